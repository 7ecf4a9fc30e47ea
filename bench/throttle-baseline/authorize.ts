// Bench only: the code before leases, what bench/throttle.bench.mjs builds in place of
// src/auth/authorize.ts for its baseline server (an [alias] in that server's own config, as
// bench/throttle-bypass does): requireScope as it was at commit c04673e, one RPC to the key's
// RateLimiter per call (admitKey) and a second after each write (noteBookmark), both still served
// by the object. Only the routers import "../auth/authorize", so only they get this one; the
// rest is the real module's. Nothing under src/ refers to this file.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../src/app-env";
import type { Scope } from "../../src/auth/scopes";
import { verifyToken } from "../../src/auth/tokens";
import { openSession } from "../../src/db/client";
import { shardD1 } from "../../src/db/shards";
import { ApiError, DENIED, storeSwitching } from "../../src/http/errors";
import type { Admission } from "../../src/throttle/rate-limiter";
import { throttleAddress } from "../../src/auth/authorize";

export * from "../../src/auth/authorize";

const deniedUntil = new Map<string, { until: number; limit: number }>();

export function requireScope(scope: Scope) {
  return createMiddleware<AppEnv>(async function authorize(c, next) {
    const claims = await verifyToken(c.env.TOKEN_SIGNING_SECRET, c.req.param("token") ?? "");
    if (!claims) {
      await throttleAddress(c);
      throw new ApiError(401, "The access token is invalid. Generate a token with PUT /v1/Authorization.");
    }
    const now = Date.now();
    if (claims.expiresAt !== null && claims.expiresAt <= now) {
      await throttleAddress(c);
      throw new ApiError(401, "The access token expired.");
    }
    const denial = deniedUntil.get(claims.consumerKeyId);
    if (denial && denial.until > now) throw tooMany(c, denial.limit, denial.until - now);
    let admission: Admission;
    try {
      admission = await c.env.RATE_LIMITER.getByName(claims.consumerKeyId).admitKey(claims.consumerKeyId, scope);
    } catch {
      throw new ApiError(503, "The service cannot check its call limit right now; try again shortly.", { "Retry-After": "1" });
    }
    c.header("X-RateLimit-Limit", String(admission.limit));
    c.header("X-RateLimit-Remaining", String(admission.remaining));
    if (!admission.allowed) {
      if (admission.reason === "throttled") {
        deniedUntil.set(claims.consumerKeyId, { until: now + admission.retryAfterMs, limit: admission.limit });
        throw tooMany(c, admission.limit, admission.retryAfterMs);
      }
      if (admission.reason === "scope") throw new ApiError(401, DENIED);
      await throttleAddress(c);
      throw new ApiError(401, "The consumer key of this token has been revoked or no longer exists.");
    }
    const reads = c.req.method === "GET" || c.req.method === "HEAD";
    if (!reads && admission.writesHeldUntil !== undefined) throw storeSwitching(Math.min(admission.writesHeldUntil - now, 2_000));
    const session = openSession(shardD1(c.env, admission.shard), reads ? (admission.bookmark ?? "first-unconstrained") : "first-primary");
    c.set("caller", { storeId: admission.storeId, consumerKeyId: claims.consumerKeyId });
    c.set("db", session.db);
    await next();
    const bookmark = session.bookmark();
    if (!reads && bookmark !== null && bookmark !== admission.bookmark) {
      await c.env.RATE_LIMITER.getByName(claims.consumerKeyId)
        .noteBookmark(bookmark, admission.shard)
        .catch((error: unknown) => console.error("rate limiter unreachable for the bookmark", error));
    }
  });
}

function tooMany(c: { header(name: string, value: string): void }, limit: number, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  c.header("X-RateLimit-Limit", String(limit));
  c.header("X-RateLimit-Remaining", "0");
  return new ApiError(429, `The call limit was exceeded; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`, { "Retry-After": String(seconds) });
}
