// TikTok Shop's access token for one source, renewed through the token service (the SDK's
// client/token.ts: an unsigned GET of /api/v2/token/refresh with app_key, app_secret,
// refresh_token and grant_type=refresh_token) an hour before it expires, and kept in the source's
// storage like the other connectors' (../kit/access-token.ts). TikTok answers a new refresh token
// with each renewal; like Etsy's rotation, the new one is sealed (with the key the source's
// Settings are encrypted with) into the source's storage as soon as the answer is read, before the
// new access token is handed to any call, so a cycle cut off after that renews with the newest one
// next time. What is kept belongs to the Settings' refresh token (and app key and token service): an
// operator who enters a new one starts a new chain. A renewal TikTok refuses (a used, revoked or
// expired refresh token, or a wrong app secret) is remembered for that chain and app secret: later
// cycles report it without asking TikTok again until the Settings change, so no cycle loops on a
// dead token.
import { MarketplaceError, type ConnectorContext } from "../connector";
import { sha256Hex } from "../../lib/crypto";
import { accessTokens, type AccessTokens, type IssuedToken } from "../kit/access-token";
import { readCappedText, retryAfterMs, sendToMarketplace } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { TiktokSettings } from "./tiktok.settings";
import type { TiktokEnvelope, TiktokTokenData } from "./tiktok.types";

const ACCESS_TOKEN_KEY = "tiktok:accessToken";
const REFRESH_TOKEN_KEY = "tiktok:refreshToken";
const REFUSED_KEY = "tiktok:renewalRefused";
export const REFRESH_PATH = "/api/v2/token/refresh";
/** Access tokens last seven days by default (token.ts); renewing an hour early keeps one from dying in flight. */
const RENEW_EARLY_MS = 60 * 60_000;
const DEFAULT_LIFETIME_MS = 7 * 24 * 60 * 60_000;
/** TikTok's codes for "try again later" (rate limit, internal error), as third parties quote its common-errors page. */
const TRANSIENT_CODES = new Set([36009002, 36009003]);

interface KeptRefreshToken {
  /** The chain it belongs to: a digest of the Settings' refresh token, app key and token service. */
  chain: string;
  sealed: string;
}

interface Refused {
  /** The chain and the app secret it was refused for: a corrected secret asks TikTok again. */
  chain: string;
  message: string;
}

/**
 * The access token's lifetime from `access_token_expire_in`, which the SDK documents as the unix
 * time it expires (not a duration). A value too small to be a date is read as seconds to go.
 */
export function lifetimeMs(expireIn: unknown, nowMs: number): number {
  if (typeof expireIn !== "number" || !Number.isFinite(expireIn) || expireIn <= 0) return DEFAULT_LIFETIME_MS;
  const ms = expireIn > 1_000_000_000 ? expireIn * 1000 - nowMs : expireIn * 1000;
  return Math.max(0, ms);
}

export function tiktokAccessTokens(ctx: ConnectorContext, settings: TiktokSettings, storage: SourceStorage, timeoutMs: number): AccessTokens {
  let chain: Promise<string> | null = null;
  let refusedFor: Promise<string> | null = null;
  const chainOf = () => (chain ??= sha256Hex(["tiktok", settings.appKey, settings.refreshToken, settings.authUrl].join("\n")));
  const refusalKeyOf = () => (refusedFor ??= sha256Hex(["tiktok", settings.appKey, settings.refreshToken, settings.authUrl, settings.appSecret].join("\n")));

  function sealer() {
    if (!ctx.secrets) throw new MarketplaceError("TikTok needs the source's secret sealer to keep its rotating refresh token", null, false);
    return ctx.secrets;
  }

  /** The refresh token to use: the newest TikTok issued in this chain, else the Settings' own. */
  async function currentRefreshToken(id: string): Promise<string> {
    const kept = storage.get<KeptRefreshToken>(REFRESH_TOKEN_KEY);
    if (!kept || kept.chain !== id) return settings.refreshToken;
    try {
      return await sealer().open(kept.sealed);
    } catch {
      // Sealed under another key (the service's key was replaced): only the Settings' token is left.
      return settings.refreshToken;
    }
  }

  function refused(detail: string, status: number, id: string): MarketplaceError {
    const message =
      `TikTok refused to renew the source's access (${detail}): the seller must authorise the app again ` +
      "and the source's refreshToken be replaced (see the TikTok Shop source README); nothing is sent to TikTok until then";
    storage.put(REFUSED_KEY, { chain: id, message } satisfies Refused);
    // Retryable, so that deliveries wait for the new token rather than fail; no call is made until then.
    return new MarketplaceError(message, status, true);
  }

  async function issue(): Promise<IssuedToken> {
    // Checked first: a renewal whose new refresh token could not be kept would lose the source's access.
    const secrets = sealer();
    const id = await chainOf();
    const refusal = storage.get<Refused>(REFUSED_KEY);
    if (refusal?.chain === (await refusalKeyOf())) throw new MarketplaceError(refusal.message, null, true);
    const query = new URLSearchParams({
      app_key: settings.appKey,
      app_secret: settings.appSecret,
      refresh_token: await currentRefreshToken(id),
      grant_type: "refresh_token",
    });
    const requestedAt = ctx.now().getTime();
    const response = await sendToMarketplace({
      marketplace: "TikTok",
      fetch: ctx.fetch,
      method: "GET",
      url: `${settings.authUrl}${REFRESH_PATH}?${query}`,
      headers: { Accept: "application/json" },
      timeoutMs,
    });
    const text = await readCappedText(response.body, "TikTok token answer", response.status);
    let body: TiktokEnvelope<TiktokTokenData> | null = null;
    try {
      body = JSON.parse(text) as TiktokEnvelope<TiktokTokenData>;
    } catch {
      // Described below by its status and first characters.
    }
    const code = typeof body?.code === "number" ? body.code : null;
    const words = typeof body?.message === "string" && body.message.trim() !== "" ? body.message.trim().slice(0, 300) : null;
    const transient = response.status === 429 || response.status >= 500 || code === null || TRANSIENT_CODES.has(code);
    if (!response.ok || code !== 0) {
      const detail = code === null ? `${response.status} ${text.trim().slice(0, 200) || response.statusText}` : `code ${code}: ${words ?? "no message"}`;
      if (transient) {
        throw new MarketplaceError(
          `TikTok token renewal failed: ${detail}`,
          response.status,
          true,
          retryAfterMs(response.headers.get("Retry-After"), ctx.now()),
        );
      }
      throw refused(detail, response.status, await refusalKeyOf());
    }
    const data = body?.data;
    if (typeof data?.access_token !== "string" || data.access_token === "") {
      throw new MarketplaceError("TikTok token answer carries no access_token", response.status, true);
    }
    if (typeof data.refresh_token === "string" && data.refresh_token !== "") {
      // Kept before the access token is used: from now on TikTok may take only this one.
      storage.put(REFRESH_TOKEN_KEY, { chain: id, sealed: await secrets.seal(data.refresh_token) } satisfies KeptRefreshToken);
    }
    return { value: data.access_token, lifetimeMs: lifetimeMs(data.access_token_expire_in, requestedAt) };
  }

  return accessTokens({
    now: () => ctx.now().getTime(),
    renewEarlyMs: RENEW_EARLY_MS,
    keep: { storage, key: ACCESS_TOKEN_KEY, fingerprint: chainOf },
    issue,
  });
}
