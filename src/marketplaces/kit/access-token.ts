// The OAuth access token a connector sends with its calls, the same way for every marketplace:
// renewed some time before it expires (so no call carries a token that dies in flight), one
// token request shared by calls that start together, dropped when the marketplace refuses it,
// and, for a connector that asks, kept in the source's storage across cycles with a fingerprint
// of the credentials it came from, so new settings never reuse it; and a call the marketplace
// refuses for its token is made once more with a fresh one. Each connector still makes its own
// token request (grant, endpoint, errors): that is the marketplace's own part.
import { MarketplaceError } from "../connector";
import type { SourceStorage } from "../storage";

/** A token as the marketplace issued it. */
export interface IssuedToken {
  value: string;
  lifetimeMs: number;
}

export interface AccessTokenOptions {
  now: () => number;
  /** How long before its expiry a token is renewed (at most half its lifetime). */
  renewEarlyMs: number;
  /** One token request to the marketplace. */
  issue: () => Promise<IssuedToken>;
  /** Keep the token in the source's storage under `key`, valid only for credentials of this fingerprint. */
  keep?: { storage: SourceStorage; key: string; fingerprint: () => Promise<string> };
}

export interface AccessTokens {
  /** A token valid for a while yet: the cached one, or a new one. */
  get(): Promise<string>;
  /** The marketplace refused `used`: the next get() asks for a new one (unless another call already did). */
  drop(used: string): void;
}

interface Held {
  value: string;
  renewAt: number;
}

interface Kept extends Held {
  fingerprint: string;
}

export function accessTokens(options: AccessTokenOptions): AccessTokens {
  const { now, renewEarlyMs, issue, keep } = options;
  let token: Held | null = null;
  let inFlight: Promise<string> | null = null;

  async function renew(): Promise<string> {
    const requestedAt = now();
    const issued = await issue();
    const fresh: Held = { value: issued.value, renewAt: requestedAt + issued.lifetimeMs - Math.min(renewEarlyMs, issued.lifetimeMs / 2) };
    token = fresh;
    if (keep) keep.storage.put(keep.key, { ...fresh, fingerprint: await keep.fingerprint() } satisfies Kept);
    return fresh.value;
  }

  return {
    async get() {
      if (!token && keep) {
        const kept = keep.storage.get<Kept>(keep.key);
        if (kept && kept.fingerprint === (await keep.fingerprint())) token = { value: kept.value, renewAt: kept.renewAt };
      }
      if (token && now() < token.renewAt) return token.value;
      // Calls that start together share one token request.
      inFlight ??= renew().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    drop(used) {
      if (token?.value !== used) return;
      token = null;
      keep?.storage.delete(keep.key);
    },
  };
}

/**
 * The token of an OAuth token answer (`access_token`, `expires_in` in seconds), or a retryable
 * MarketplaceError naming `label` when it carries none; a missing or unreadable `expires_in`
 * counts as `defaultSeconds`.
 */
export function issuedToken(body: unknown, label: string, status: number, defaultSeconds: number): IssuedToken {
  const answer = (typeof body === "object" && body !== null ? body : {}) as { access_token?: unknown; expires_in?: unknown };
  if (typeof answer.access_token !== "string" || answer.access_token === "") {
    throw new MarketplaceError(`${label} carries no access_token`, status, true);
  }
  const seconds = typeof answer.expires_in === "number" && Number.isFinite(answer.expires_in) && answer.expires_in > 0 ? answer.expires_in : defaultSeconds;
  return { value: answer.access_token, lifetimeMs: seconds * 1000 };
}

/**
 * One call with the current token. When the marketplace refuses the token (401, or the statuses
 * given: Amazon answers 403), it is dropped and the call made once more with a fresh one: a
 * token can be revoked or expire early on the marketplace's side. The second answer stands.
 */
export async function withFreshToken(
  tokens: AccessTokens,
  send: (token: string) => Promise<Response>,
  refusedStatuses: readonly number[] = [401],
): Promise<Response> {
  const used = await tokens.get();
  const response = await send(used);
  if (!refusedStatuses.includes(response.status)) return response;
  await response.body?.cancel().catch(() => undefined);
  tokens.drop(used);
  return send(await tokens.get());
}
