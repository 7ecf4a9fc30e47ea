// Etsy's OAuth tokens for one source. The access token (an hour) is renewed with the refresh
// token five minutes before it expires and kept in the source's storage like the other
// connectors' (access-token.ts). What is Etsy's own: the refresh token rotates, each renewal
// answering a new one and refusing the old one from then on. So the new one is sealed (with the
// key the source's Settings are encrypted with) into the source's storage as soon as the answer
// is read, before the new access token is handed to any call: a cycle cut off after that point
// renews with the new one next time. What is kept belongs to the Settings' refresh token (and
// keystring and token URL): an operator who enters a new one starts a new chain. A refused
// renewal (invalid_grant: revoked, expired or already used) is remembered for that chain, so later
// cycles report it without asking Etsy again until the Settings change: the seller must
// authorise again.
import { MarketplaceError, type ConnectorContext } from "../connector";
import { sha256Hex } from "../../lib/crypto";
import { accessTokens, issuedToken, type AccessTokens } from "../kit/access-token";
import { answerFailure, readJsonAnswer, sendToMarketplace } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { EtsySettings } from "./etsy.settings";
import type { EtsyError } from "./etsy.types";

const ACCESS_TOKEN_KEY = "etsy:accessToken";
const REFRESH_TOKEN_KEY = "etsy:refreshToken";
const REFUSED_KEY = "etsy:renewalRefused";
/** Access tokens live an hour (Etsy's guides); five minutes early keeps one from dying in flight. */
const RENEW_EARLY_MS = 5 * 60_000;
const DEFAULT_LIFETIME_S = 3600;

interface KeptRefreshToken {
  /** The chain it belongs to: a digest of the Settings' refresh token, keystring and token URL. */
  chain: string;
  sealed: string;
}

interface Refused {
  chain: string;
  message: string;
}

export function etsyAccessTokens(ctx: ConnectorContext, settings: EtsySettings, storage: SourceStorage, timeoutMs: number): AccessTokens {
  let chain: Promise<string> | null = null;
  const chainOf = () => (chain ??= sha256Hex(["etsy", settings.keystring, settings.refreshToken, settings.tokenUrl].join("\n")));

  function sealer() {
    if (!ctx.secrets) throw new MarketplaceError("Etsy needs the source's secret sealer to keep its rotating refresh token", null, false);
    return ctx.secrets;
  }

  /** The refresh token to use: the last one Etsy issued in this chain, else the Settings' own. */
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

  /** A failed token answer in Etsy's words (OAuth's `error: error_description`), with its retry-after. */
  function failure(response: Response): Promise<MarketplaceError> {
    return answerFailure(response, {
      prefix: `${response.status}`,
      describe: (text) => {
        const body = JSON.parse(text) as EtsyError;
        if (typeof body.error !== "string") return null;
        return [body.error, typeof body.error_description === "string" ? body.error_description : ""].filter(Boolean).join(": ");
      },
      now: ctx.now(),
    });
  }

  async function refused(response: Response, id: string): Promise<MarketplaceError> {
    const read = await failure(response);
    const message =
      `Etsy refused to renew the source's access (${read.message}): the seller must authorise the app again ` +
      "and the source's refreshToken be replaced (see the Etsy source README); nothing is sent to Etsy until then";
    storage.put(REFUSED_KEY, { chain: id, message } satisfies Refused);
    return new MarketplaceError(message, response.status, false);
  }

  return accessTokens({
    now: () => ctx.now().getTime(),
    renewEarlyMs: RENEW_EARLY_MS,
    keep: { storage, key: ACCESS_TOKEN_KEY, fingerprint: chainOf },
    async issue() {
      // Checked first: a renewal whose new refresh token could not be kept would lose the source's access.
      const secrets = sealer();
      const id = await chainOf();
      const refusal = storage.get<Refused>(REFUSED_KEY);
      if (refusal?.chain === id) throw new MarketplaceError(refusal.message, null, false);
      const response = await sendToMarketplace({
        marketplace: "Etsy",
        fetch: ctx.fetch,
        method: "POST",
        url: settings.tokenUrl,
        headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", client_id: settings.keystring, refresh_token: await currentRefreshToken(id) }).toString(),
        timeoutMs,
      });
      // 400 (invalid_grant, invalid_request) and 401 (invalid_client) will not change on a retry.
      if (response.status === 400 || response.status === 401) throw await refused(response, id);
      if (!response.ok) {
        const read = await failure(response);
        throw new MarketplaceError(`Etsy token renewal failed: ${read.message}`, read.status, read.retryable, read.retryAfterMs);
      }
      const body = await readJsonAnswer(response, "Etsy token answer");
      const rotated = (body as { refresh_token?: unknown } | null)?.refresh_token;
      if (typeof rotated === "string" && rotated !== "") {
        // Kept before the access token is used: from now on Etsy takes only this one.
        storage.put(REFRESH_TOKEN_KEY, { chain: id, sealed: await secrets.seal(rotated) } satisfies KeptRefreshToken);
      }
      return issuedToken(body, "Etsy token answer", response.status, DEFAULT_LIFETIME_S);
    },
  });
}
