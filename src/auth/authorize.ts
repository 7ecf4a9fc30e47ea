// requireScope(scope) is the only gate in front of a /v1 resource route. Checks, in order:
// the token's signature and expiry (no I/O), then one RPC to the key's RateLimiter, which checks
// revocation and scope and takes one call from the bucket. A request refused before the RPC
// never drains a key's bucket; a bad token drains its sender's IP bucket instead, so tokens
// cannot be guessed at speed. The admission also opens the request's D1 session: a read starts
// at the key's last write (read-your-writes, from the nearest replica that has it), and a write
// hands its session's bookmark back to the key's limiter before it is answered.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError, DENIED, storeSwitching } from "../http/errors";
import type { AppEnv } from "../app-env";
import { DEFAULT_BUCKET } from "../throttle/gcra";
import type { Admission } from "../throttle/rate-limiter";
import { openSession, } from "../db/client";
import { shardD1 } from "../db/shards";
import { verifyToken } from "./tokens";
import { toWireDate } from "../lib/dates";
import type { Scope } from "./scopes";

/**
 * Keys (and addresses, "ip:...") refused for overflow, with the time the refusal holds until.
 * An isolate may answer 429 from here without the RPC: the value only moves forward. An allow
 * is never cached.
 */
const deniedUntil = new Map<string, { until: number; limit: number }>();
const DENIED_CACHE_MAX = 10_000;

export function requireScope(scope: Scope) {
  return createMiddleware<AppEnv>(async function authorize(c, next) {
    const token = c.req.param("token") ?? "";
    const claims = await verifyToken(c.env.TOKEN_SIGNING_SECRET, token);
    if (!claims) {
      await throttleAddress(c);
      throw new ApiError(401, "The access token is invalid. Generate a token with PUT /v1/Authorization.");
    }
    const now = Date.now();
    if (claims.expiresAt !== null && claims.expiresAt <= now) {
      await throttleAddress(c);
      throw new ApiError(
        401,
        `The access token expired at ${toWireDate(claims.expiresAt)}. Generate a new one with PUT /v1/Authorization.`,
      );
    }
    const denial = deniedUntil.get(claims.consumerKeyId);
    if (denial && denial.until > now) throw tooMany(c, denial.limit, denial.until - now);
    const admission = await callLimiter(() =>
      c.env.RATE_LIMITER.getByName(claims.consumerKeyId).admitKey(claims.consumerKeyId, scope),
    );
    applyLimitHeaders(c, admission);
    if (!admission.allowed) {
      if (admission.reason === "throttled") {
        rememberDenial(claims.consumerKeyId, { until: now + admission.retryAfterMs, limit: admission.limit });
        throw tooMany(c, admission.limit, admission.retryAfterMs);
      }
      if (admission.reason === "scope") throw new ApiError(401, DENIED);
      // A genuine token of a revoked or unknown key is a failed-token attempt too.
      await throttleAddress(c);
      throw new ApiError(401, "The consumer key of this token has been revoked or no longer exists.");
    }
    // A write starts on the primary, so what it reads to decide (an order's state) is current.
    const reads = c.req.method === "GET" || c.req.method === "HEAD";
    // The hold lasts until the switch ends (tens of milliseconds measured) or its bound: ask for a
    // retry soon, not at the bound.
    if (!reads && admission.writesHeldUntil !== undefined) throw storeSwitching(Math.min(admission.writesHeldUntil - now, 2_000));
    // The store's shard, as its key's limiter holds it (src/db/shards.ts).
    const session = openSession(shardD1(c.env, admission.shard), reads ? (admission.bookmark ?? "first-unconstrained") : "first-primary");
    c.set("caller", { storeId: admission.storeId, consumerKeyId: claims.consumerKeyId });
    c.set("db", session.db);
    await next();
    const bookmark = session.bookmark();
    if (!reads && bookmark !== null && bookmark !== admission.bookmark) {
      // Awaited: the key's next read may come the moment this answer arrives.
      await c.env.RATE_LIMITER.getByName(claims.consumerKeyId)
        .noteBookmark(bookmark, admission.shard)
        // The write stands; only this write's read-your-writes is lost, and a retry would repeat it.
        .catch((error: unknown) => console.error("rate limiter unreachable for the bookmark", error));
    }
  });
}

/**
 * Throttle by client address: PUT /v1/Authorization and every failed token. An address refused
 * for overflow is answered from the denied-cache too, so a guesser costs no RPC until it may
 * try again.
 */
export async function throttleAddress(c: Context<AppEnv>): Promise<void> {
  const name = addressName(c);
  const now = Date.now();
  const denial = deniedUntil.get(name);
  if (denial && denial.until > now) throw tooMany(c, denial.limit, denial.until - now);
  const admission = await callLimiter(() => c.env.RATE_LIMITER.getByName(name).admitAnonymous());
  applyLimitHeaders(c, admission);
  if (!admission.allowed) {
    rememberDenial(name, { until: now + admission.retryAfterMs, limit: admission.limit });
    throw tooMany(c, admission.limit, admission.retryAfterMs);
  }
}

/**
 * A wrong admin key (or console sign-in) spends one of its address's admin-failure bucket;
 * once that is empty the address is answered 429 until it refills, whatever key it sends.
 */
export async function throttleAdminFailure(c: Context<AppEnv>): Promise<void> {
  // Cloudflare's edge sets CF-Connecting-IP on every request it passes on; one without it came
  // from inside (tests, local tools), where there is no address to hold to account.
  if (!c.req.header("cf-connecting-ip")) return;
  const name = addressName(c);
  const admission = await callLimiter(() => c.env.RATE_LIMITER.getByName(name).admitAdminFailure());
  if (!admission.allowed) {
    rememberDenial(`admin:${name}`, { until: Date.now() + admission.retryAfterMs, limit: admission.limit });
    throw tooMany(c, admission.limit, admission.retryAfterMs);
  }
}

/** Refuses an address whose admin failures were refused (isolate-local, so it costs no RPC). */
export function refuseAdminDenied(c: Context<AppEnv>): void {
  const denial = deniedUntil.get(`admin:${addressName(c)}`);
  const now = Date.now();
  if (denial && denial.until > now) throw tooMany(c, denial.limit, denial.until - now);
}

/**
 * Every /v1 answer carries X-RateLimit-Limit and X-RateLimit-Remaining. Most get them from the
 * bucket their call was charged to; an answer given before any bucket was consulted (403 for
 * HTTP, 406, 404/405/410 for the route, 413, maintenance 503) shows the sender's address bucket,
 * read without taking from it. Mounted outermost on /v1/*, so it sees the rendered errors too.
 */
export const rateLimitHeaders = createMiddleware<AppEnv>(async function rateLimitHeaders(c, next) {
  await next();
  if (c.res.headers.has("X-RateLimit-Limit")) return;
  let bucket = { limit: DEFAULT_BUCKET.capacity, remaining: 0 };
  try {
    bucket = await c.env.RATE_LIMITER.getByName(addressName(c)).peekAnonymous();
  } catch (error) {
    // The answer stands; "0 remaining" promises nothing the limiter could not confirm.
    console.error("rate limiter unreachable for headers", error);
  }
  c.header("X-RateLimit-Limit", String(bucket.limit));
  c.header("X-RateLimit-Remaining", String(bucket.remaining));
});

/** The address object's name; consumer key ids start with "ck_", so the two never meet. */
function addressName(c: Context<AppEnv>): string {
  return `ip:${c.req.header("cf-connecting-ip") ?? "unknown"}`;
}

/** Fail closed: if the limiter cannot answer, the call is not let through unthrottled. */
async function callLimiter(call: () => Promise<Admission>): Promise<Admission> {
  try {
    return await call();
  } catch (error) {
    console.error("rate limiter unreachable", error);
    throw new ApiError(503, "The service cannot check its call limit right now; try again shortly.", {
      "Retry-After": "1",
    });
  }
}

function applyLimitHeaders(c: Context<AppEnv>, admission: Admission): void {
  c.header("X-RateLimit-Limit", String(admission.limit));
  c.header("X-RateLimit-Remaining", String(admission.remaining));
}

function tooMany(c: Context<AppEnv>, limit: number, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  c.header("X-RateLimit-Limit", String(limit));
  c.header("X-RateLimit-Remaining", "0");
  return new ApiError(429, `The call limit was exceeded; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`, {
    "Retry-After": String(seconds),
  });
}

function rememberDenial(consumerKeyId: string, denial: { until: number; limit: number }): void {
  if (deniedUntil.size >= DENIED_CACHE_MAX) deniedUntil.clear();
  deniedUntil.set(consumerKeyId, denial);
}
