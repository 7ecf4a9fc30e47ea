// One TikTok Shop Partner API call, the way every operation of the connector makes it: app_key,
// timestamp (unix seconds) and, for a shop's data, shop_cipher in the query, signed as the SDK's
// signer does (tiktok.sign.ts), the JSON body sent as the exact bytes signed, the access token in
// x-tts-access-token, no redirect followed, the answer read with the kit's 16 MiB cap. Every
// answer is TikTok's envelope {code, message, request_id, data}: a `code` other than 0 is an error
// naming TikTok's code and message, whatever the HTTP status (a 200 with an error inside is still
// an error). An answer refusing the access token (401, or TikTok's token codes) is made once more
// with a renewed token; refused again, it is the source's error, without a loop. The shop's cipher
// comes from the Settings, or from GetAuthorizedShops by the Settings' shop id (kept in the
// source's storage).
import { MarketplaceError, type ConnectorContext } from "../connector";
import type { AccessTokens } from "../kit/access-token";
import { readCappedText, retryAfterMs, sendToMarketplace } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { TiktokSettings } from "./tiktok.settings";
import { signsBody, tiktokSignature } from "./tiktok.sign";
import type { TiktokEnvelope, TiktokShop } from "./tiktok.types";

const TIMEOUT_MS = 15_000;
/** Rate limit and internal error: worth another try (third parties quoting TikTok's common-errors page). */
const TRANSIENT_CODES = new Set([36009002, 36009003]);
/** Codes about the access token (expired, invalid) as third parties quote TikTok's common-errors page. */
const TOKEN_CODES = new Set([105001, 105002, 105003, 105004]);
const SHOPS_PATH = "/authorization/202309/shops";

/** A TikTok answer with a `code` other than 0 (or no envelope at all): `code` is TikTok's, null when it sent none. */
export class TiktokApiError extends MarketplaceError {
  constructor(
    message: string,
    status: number | null,
    retryable: boolean,
    readonly code: number | null,
    retryAfter: number | null = null,
  ) {
    super(message, status, retryable, retryAfter);
  }
}

export interface TiktokCall {
  /** The SDK's name of the operation (its @summary), for messages: "GetOrderList". */
  operation: string;
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string>;
  /** The JSON body, signed and sent as the same bytes. */
  json?: object;
  /** A shop's data: the call carries shop_cipher. */
  shop: boolean;
}

export interface TiktokClient {
  /** The envelope's `data` of a call TikTok answered with code 0; a TiktokApiError otherwise. */
  call<T>(call: TiktokCall): Promise<T>;
  /** The shop's cipher (Settings, kept, or looked up). */
  shopCipher(): Promise<string>;
}

interface Answer {
  status: number;
  headers: Headers;
  envelope: TiktokEnvelope | null;
  text: string;
}

export function tiktokClient(ctx: ConnectorContext, settings: TiktokSettings, storage: SourceStorage, tokens: AccessTokens): TiktokClient {
  const cipherKey = `tiktok:shopCipher:${settings.appKey}:${settings.shopId ?? ""}`;
  let cipher: string | null = settings.shopCipher ?? storage.get<string>(cipherKey) ?? null;

  async function send(call: TiktokCall, token: string, shopCipher: string | null): Promise<Answer> {
    const query: Record<string, string> = { ...call.query, app_key: settings.appKey, timestamp: String(Math.floor(ctx.now().getTime() / 1000)) };
    if (shopCipher !== null) query.shop_cipher = shopCipher;
    const body = call.json === undefined ? undefined : JSON.stringify(call.json);
    const sign = await tiktokSignature(settings.appSecret, call.path, query, body !== undefined && signsBody(call.json) ? body : null);
    const url = `${settings.baseUrl}${call.path}?${new URLSearchParams({ ...query, sign })}`;
    const response = await sendToMarketplace({
      marketplace: "TikTok",
      fetch: ctx.fetch,
      method: call.method,
      url,
      headers: { Accept: "application/json", "Content-Type": "application/json", "x-tts-access-token": token },
      body,
      timeoutMs: TIMEOUT_MS,
    });
    const text = await readCappedText(response.body, `TikTok ${call.operation} answer`, response.status);
    let envelope: TiktokEnvelope | null = null;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) envelope = parsed as TiktokEnvelope;
    } catch {
      // Not JSON: described by its status and first characters.
    }
    return { status: response.status, headers: response.headers, envelope, text };
  }

  const codeOf = (a: Answer) => (typeof a.envelope?.code === "number" && Number.isSafeInteger(a.envelope.code) ? a.envelope.code : null);
  const wordsOf = (a: Answer) =>
    typeof a.envelope?.message === "string" && a.envelope.message.trim() !== "" ? a.envelope.message.trim().slice(0, 300) : "no message";

  function refusesToken(a: Answer): boolean {
    const code = codeOf(a);
    if (code !== null && TOKEN_CODES.has(code)) return true;
    if (code === 36009004 && /access[_ -]?token/i.test(wordsOf(a))) return true;
    // 106001 is the signature, not the token.
    return a.status === 401 && code !== 106001;
  }

  function failure(call: TiktokCall, a: Answer): TiktokApiError {
    const code = codeOf(a);
    const wait = retryAfterMs(a.headers.get("Retry-After"), ctx.now());
    const requestId = typeof a.envelope?.request_id === "string" ? ` (request_id ${a.envelope.request_id.slice(0, 64)})` : "";
    if (code === null) {
      const ok = a.status >= 200 && a.status < 300;
      const detail = ok ? "the answer is not TikTok's envelope (no numeric code)" : a.text.trim().slice(0, 200) || "no details";
      return new TiktokApiError(`TikTok ${a.status} on ${call.operation}: ${detail}`, a.status, ok || a.status === 429 || a.status >= 500, null, wait);
    }
    const retryable = a.status === 429 || a.status >= 500 || TRANSIENT_CODES.has(code);
    const http = a.status === 200 ? "" : ` (HTTP ${a.status})`;
    return new TiktokApiError(`TikTok ${code} on ${call.operation}${http}: ${wordsOf(a)}${requestId}`, a.status, retryable, code, wait);
  }

  async function once(call: TiktokCall): Promise<Answer> {
    const cipherOfShop = call.shop ? await shopCipher() : null;
    const used = await tokens.get();
    const first = await send(call, used, cipherOfShop);
    if (!refusesToken(first)) return first;
    // An access token can expire or be revoked on TikTok's side: one renewal, one more try.
    tokens.drop(used);
    const second = await send(call, await tokens.get(), cipherOfShop);
    if (!refusesToken(second)) return second;
    const error = failure(call, second);
    throw new TiktokApiError(
      `${error.message}: TikTok refused the source's access token right after renewing it; the seller may have to authorise the app again (see the TikTok ` +
        `Shop source README)`,
      second.status,
      true,
      error.code,
    );
  }

  async function call<T>(c: TiktokCall): Promise<T> {
    const answer = await once(c);
    if (codeOf(answer) !== 0 || answer.status < 200 || answer.status >= 300) throw failure(c, answer);
    return (answer.envelope?.data ?? null) as T;
  }

  async function shopCipher(): Promise<string> {
    if (cipher !== null) return cipher;
    const data = await call<{ shops?: TiktokShop[] } | null>({ operation: "GetAuthorizedShops", method: "GET", path: SHOPS_PATH, shop: false });
    const shops = Array.isArray(data?.shops) ? data.shops : null;
    if (!shops) throw new TiktokApiError("TikTok GetAuthorizedShops answer has no shops list", 200, true, 0);
    const mine = shops.find((s) => typeof s?.id === "string" && s.id === settings.shopId);
    if (!mine || typeof mine.cipher !== "string" || mine.cipher === "") {
      const known = shops.map((s) => `${String(s?.id)}${s?.name ? ` (${s.name})` : ""}`).join(", ") || "none";
      throw new TiktokApiError(
        `TikTok: the seller authorised this app for shops ${known}, not shop ${settings.shopId}; check the source's shopId`,
        200,
        false,
        0,
      );
    }
    cipher = mine.cipher;
    storage.put(cipherKey, cipher);
    return cipher;
  }

  return { call, shopCipher };
}
