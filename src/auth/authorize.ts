// requireScope(scope) is the only gate in front of a /v1 resource route. Checks, in order:
// the token's signature and expiry (no I/O), then the key's lease in this isolate
// (src/throttle/lease-book.ts): while it holds admissions the call is authorized and taken here,
// with no round trip; otherwise one RPC to the key's RateLimiter checks revocation and scope,
// takes the call from the bucket and hands back a new lease. A request refused before that never
// drains a key's bucket; a bad token drains its sender's IP bucket instead, so tokens cannot be
// guessed at speed. The admission also opens the request's D1 session: a read starts at the key's
// last write (read-your-writes, from the nearest replica that has it), and a write hands its
// session's bookmark back to the key's limiter before it is answered, on the trip that renews
// the lease. Every /v1 answer carries the rate-limit fields of decisions 5 (limitHeaders).
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError, DENIED, storeSwitching } from "../http/errors";
import type { AppEnv } from "../app-env";
import { DEFAULT_BUCKET } from "../throttle/gcra";
import { LEASE_MS } from "../throttle/lease";
import { bookFor, type LeaseBook } from "../throttle/lease-book";
import { type Admission, type TripRequest, windowSeconds } from "../throttle/rate-limiter";
import { openSession } from "../db/client";
import { shardD1 } from "../db/shards";
import { verifyToken } from "./tokens";
import { toWireDate } from "../lib/dates";
import type { Scope } from "./scopes";

/** What the rate-limit fields of an answer show. */
export interface LimitView {
  limit: number;
  remaining: number;
  resetMs: number;
  windowSeconds: number;
}

/** A refusal remembered: until when it holds, and the bucket's fields as the refusal showed them. */
interface Denial {
  until: number;
  limit: number;
  windowSeconds: number;
  emptyAt: number;
}

/**
 * Keys (and addresses, "ip:...") refused for overflow, with the time the refusal holds until.
 * An isolate may answer 429 from here without the RPC: the value only moves forward. Allows are
 * held only as leases, which the object issued and bounds.
 */
const deniedUntil = new Map<string, Denial>();
const DENIED_CACHE_MAX = 10_000;

/** One trip per key and lease book at a time: concurrent calls of a key whose lease is spent wait for it, then take from the new lease. */
const inflight = new Map<string, Promise<unknown>>();

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
      throw new ApiError(401, `The access token expired at ${toWireDate(claims.expiresAt)}. Generate a new one with PUT /v1/Authorization.`);
    }
    const keyId = claims.consumerKeyId;
    refuseIfDenied(c, keyId, now);
    const namespace = c.env.RATE_LIMITER;
    const book = bookFor(namespace);
    const admission = await admitCall(namespace, book, keyId, scope);
    limitHeaders(c, admission);
    if (!admission.allowed) {
      if (admission.reason === "throttled") throw deny(c, keyId, admission, now);
      if (admission.reason === "scope") throw new ApiError(401, DENIED);
      // A genuine token of a revoked or unknown key is a failed-token attempt too.
      await throttleAddress(c);
      throw new ApiError(401, "The consumer key of this token has been revoked or no longer exists.");
    }
    // A write starts on the primary, so what it reads to decide (an order's state) is current.
    const reads = c.req.method === "GET" || c.req.method === "HEAD";
    // The hold lasts until the switch ends (tens of milliseconds measured) or its bound: ask for a
    // retry soon, not at the bound.
    if (!reads && admission.writesHeldUntil !== undefined && admission.writesHeldUntil > now)
      throw storeSwitching(Math.min(admission.writesHeldUntil - now, 2_000));
    // The store's shard, as its key's limiter holds it (src/db/shards.ts).
    const session = openSession(shardD1(c.env, admission.shard), reads ? (admission.bookmark ?? "first-unconstrained") : "first-primary");
    c.set("caller", { storeId: admission.storeId, consumerKeyId: keyId });
    c.set("db", session.db);
    await next();
    const bookmark = session.bookmark();
    if (!reads && bookmark !== null && bookmark !== admission.bookmark) {
      // Awaited: the key's next read may come the moment this answer arrives. The same trip
      // reports and renews the lease.
      await trip(namespace, book, { keyId, scope, admit: false, note: { bookmark, shard: admission.shard } })
        // The write stands; only this write's read-your-writes is lost, and a retry would repeat it.
        .catch((error: unknown) => console.error("rate limiter unreachable for the bookmark", error));
    }
  });
}

/**
 * A call of `keyId` admitted (or refused) from this isolate's lease, or by a trip to the key's
 * object when the lease is spent, expired or missing. Fails closed (503) when the object cannot
 * be reached.
 */
async function admitCall(namespace: Env["RATE_LIMITER"], book: LeaseBook, keyId: string, scope: string): Promise<Admission> {
  for (;;) {
    const local = book.admit(keyId, scope, Date.now());
    if (local.kind === "admit") {
      const { grant } = local;
      return {
        allowed: true,
        storeId: grant.storeId,
        shard: grant.shard,
        ...(grant.writesHeldUntil !== undefined ? { writesHeldUntil: grant.writesHeldUntil } : {}),
        bookmark: grant.bookmark,
        limit: grant.capacity,
        remaining: local.remaining,
        resetMs: local.resetMs,
        windowSeconds: grant.windowSeconds,
      };
    }
    if (local.kind === "refuse") {
      return {
        allowed: false,
        reason: local.reason,
        limit: local.grant.capacity,
        remaining: local.remaining,
        resetMs: local.resetMs,
        windowSeconds: local.grant.windowSeconds,
        retryAfterMs: local.retryAfterMs,
      };
    }
    // Another call of this key here is on its way to the object: its answer may bring a lease.
    const pending = inflight.get(`${book.holder}|${keyId}`);
    if (!pending) break;
    await pending.catch(() => undefined);
  }
  return callLimiter(() => trip(namespace, book, { keyId, scope, admit: true }));
}

/**
 * One round trip to the key's object: the book's lease reported, the request's part done, a new
 * lease held. One at a time per key and book: concurrent calls that find the lease spent wait for
 * the trip under way (see admitCall), and a trip never replaces a lease it did not report.
 */
async function trip(namespace: Env["RATE_LIMITER"], book: LeaseBook, request: Pick<TripRequest, "keyId" | "scope" | "admit" | "note">): Promise<Admission> {
  const slot = `${book.holder}|${request.keyId}`;
  for (let pending = inflight.get(slot); pending; pending = inflight.get(slot)) await pending.catch(() => undefined);
  const run = (async () => {
    const sentAt = Date.now();
    const report = book.release(request.keyId, sentAt);
    const answer = await namespace.getByName(request.keyId).trip({
      ...request,
      holder: book.holder,
      want: book.want(request.keyId, LEASE_MS),
      ...(report ? { report } : {}),
    });
    if (answer.lease) book.accept(request.keyId, answer.lease.terms, answer.lease.grant, sentAt, Date.now());
    return answer.admission;
  })();
  inflight.set(slot, run);
  try {
    return await run;
  } finally {
    if (inflight.get(slot) === run) inflight.delete(slot);
  }
}

/**
 * Throttle by client address: PUT /v1/Authorization and every failed token. An address refused
 * for overflow is answered from the denied-cache too, so a guesser costs no RPC until it may
 * try again.
 */
export async function throttleAddress(c: Context<AppEnv>): Promise<void> {
  const name = addressName(c);
  const now = Date.now();
  refuseIfDenied(c, name, now);
  const admission = await callLimiter(() => c.env.RATE_LIMITER.getByName(name).admitAnonymous());
  limitHeaders(c, admission);
  if (!admission.allowed) throw deny(c, name, admission, now);
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
  if (!admission.allowed) throw deny(c, `admin:${name}`, admission, Date.now());
}

/** Refuses an address whose admin failures were refused (isolate-local, so it costs no RPC). */
export function refuseAdminDenied(c: Context<AppEnv>): void {
  refuseIfDenied(c, `admin:${addressName(c)}`, Date.now());
}

/**
 * Every /v1 answer carries the rate-limit fields. Most get them from the bucket their call was
 * charged to; an answer given before any bucket was consulted (403 for HTTP, 406, 404/405/410 for
 * the route, 413, maintenance 503) shows the sender's address bucket, read without taking from
 * it. Mounted outermost on /v1/*, so it sees the rendered errors too.
 */
export const rateLimitHeaders = createMiddleware<AppEnv>(async function rateLimitHeaders(c, next) {
  await next();
  if (c.res.headers.has("X-RateLimit-Limit")) return;
  // Unknown: "0 remaining" and a full drain promise nothing the limiter could not confirm.
  let view: LimitView = {
    limit: DEFAULT_BUCKET.capacity,
    remaining: 0,
    resetMs: windowSeconds(DEFAULT_BUCKET) * 1000,
    windowSeconds: windowSeconds(DEFAULT_BUCKET),
  };
  try {
    view = await c.env.RATE_LIMITER.getByName(addressName(c)).viewAnonymous();
  } catch (error) {
    console.error("rate limiter unreachable for headers", error);
  }
  limitHeaders(c, view);
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

/**
 * The rate-limit fields of decisions 5: X-RateLimit-Limit, -Remaining and -Reset (seconds until
 * the bucket is empty again, rounded up), and the same numbers as the structured fields of
 * draft-ietf-httpapi-ratelimit-headers-11: RateLimit-Policy (q the bucket size, w the seconds a
 * full bucket takes to drain) and RateLimit (r remaining, t reset).
 */
export function limitHeaders(c: Context<AppEnv>, view: LimitView): void {
  const reset = Math.max(0, Math.ceil(view.resetMs / 1000));
  c.header("X-RateLimit-Limit", String(view.limit));
  c.header("X-RateLimit-Remaining", String(view.remaining));
  c.header("X-RateLimit-Reset", String(reset));
  c.header("RateLimit-Policy", `"bucket";q=${view.limit};w=${view.windowSeconds}`);
  c.header("RateLimit", `"bucket";r=${view.remaining};t=${reset}`);
}

function tooMany(c: Context<AppEnv>, view: LimitView, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  limitHeaders(c, { ...view, remaining: 0 });
  return new ApiError(429, `The call limit was exceeded; retry after ${seconds} second${seconds === 1 ? "" : "s"}.`, {
    "Retry-After": String(seconds),
  });
}

/** The 429 of `name` (a key, "ip:..." or "admin:ip:..."), answered from this isolate while its refusal holds. */
function refuseIfDenied(c: Context<AppEnv>, name: string, now: number): void {
  const denial = deniedUntil.get(name);
  if (denial && denial.until > now)
    throw tooMany(c, { limit: denial.limit, remaining: 0, resetMs: denial.emptyAt - now, windowSeconds: denial.windowSeconds }, denial.until - now);
}

/** The 429 of a refusal for overflow, remembered for `name` until the bucket lets it try again. */
function deny(c: Context<AppEnv>, name: string, refusal: LimitView & { retryAfterMs: number }, now: number): ApiError {
  if (deniedUntil.size >= DENIED_CACHE_MAX) deniedUntil.clear();
  deniedUntil.set(name, { until: now + refusal.retryAfterMs, limit: refusal.limit, windowSeconds: refusal.windowSeconds, emptyAt: now + refusal.resetMs });
  return tooMany(c, refusal, refusal.retryAfterMs);
}
