// One Durable Object per consumer key (named by its id) and one per client IP (named "ip:<addr>",
// which empties itself once idle).
// A key's object holds what authorizing a call needs (store, scopes, revocation, bucket size),
// so that one RPC both authorizes and throttles and the hot path reads nothing from D1; and it
// issues leases (src/throttle/lease.ts): admissions an isolate makes without asking, so that most
// calls of a busy key make no RPC at all (docs/throttle-leases.md).
// The arithmetic is src/throttle/gcra.ts and src/throttle/lease.ts; this class only loads, calls
// and stores, with synchronous storage so that no other call can interleave between the read and
// the write. Beside the bucket it keeps the key's latest D1 bookmark (src/throttle/bookmark.ts),
// handed out with each admission and each lease, so the key's reads start where its writes ended.
// A grant change (revocation, scopes, bucket, a store's move) and another isolate's write answer
// only once every lease issued before them has been reported or has expired.
import { DurableObject } from "cloudflare:workers";
import { directoryDb } from "../db/shards";
import { findKeyWithStore, type KeyRow } from "../consumer-keys/consumer-keys.queries";
import { type BucketConfig, DEFAULT_BUCKET, decide, rebase, remainingAt, sameBucket } from "./gcra";
import { laterBookmark } from "./bookmark";
import { mergeGrant } from "./grants";
import { type BucketState, expireUnreturned, LEASE_MS, type LeaseTerms, peek, revoke, revokedUntil, settle, trip } from "./lease";
import { type LeaseGrant, releaseEverywhere, reportAt, type WireReport } from "./lease-book";
import { ApiError } from "../http/errors";

export interface KeyGrant {
  storeId: string;
  /** The shard holding the store's data (src/db/shards.ts); absent in grants stored before shards: the directory. */
  shard?: string;
  /** Until when (ms) the store's writes are held while a move switches it to another shard. */
  writesHeldUntil?: number;
  scopes: string[];
  revoked: boolean;
  bucket: BucketConfig;
  /** The revision of the store's directory row the store part was read at (src/throttle/grants.ts). */
  storeRevision?: number;
}

/** What every answer's rate-limit fields show (decisions 5): bucket size, calls left, time until empty, drain time of a full bucket. */
export interface LimitView {
  limit: number;
  remaining: number;
  /** ms until the bucket is empty again (X-RateLimit-Reset, RateLimit's t, in whole seconds rounded up). */
  resetMs: number;
  /** Seconds a full bucket takes to drain (RateLimit-Policy's w). */
  windowSeconds: number;
}

export type Admission =
  | (LimitView & {
      allowed: true;
      storeId: string;
      shard: string;
      /** Set while the store's move switches shards: writes answer 503 until then (ms). */
      writesHeldUntil?: number;
      /** The key's latest write's D1 bookmark (null before its first): its reads start there. */
      bookmark: string | null;
    })
  | (LimitView & {
      allowed: false;
      reason: Reason;
      retryAfterMs: number;
    });

type Reason = "throttled" | "unknown" | "revoked" | "scope";

/** One round trip of an isolate to a key's object: report its lease, take this call, note a write, ask for a new lease. */
export interface TripRequest {
  keyId: string;
  scope: string;
  /** The isolate's lease book (lease-book.ts). */
  holder: string;
  /** Take one call now (false: a write's bookmark, or a lease returned, only). */
  admit: boolean;
  /** Admissions wanted in a new lease (0: none). */
  want: number;
  report?: WireReport;
  /** A write of this isolate ended its D1 session here. */
  note?: { bookmark: string; shard: string };
}

export interface TripAnswer {
  admission: Admission;
  lease: { terms: LeaseTerms; grant: LeaseGrant } | null;
}

interface ShardBookmark {
  shard: string;
  bookmark: string;
}

const GRANT = "grant";
/** The bucket's settled value, the GCRA theoretical arrival time in µs (src/throttle/gcra.ts, lease.ts). */
const TAT = "tatUs";
/** Leases outstanding (lease.ts's LeaseRecord[]). */
const LEASES = "leases";
/** Isolates (lease books) that made a trip lately, with when: { holder: ms }. */
const HOLDERS = "holders";
/** When the key's last write was noted (ms). */
const WRITTEN_AT = "writtenAt";
/** The key's latest write's D1 session bookmark, and the shard it is a bookmark of: { shard, bookmark }. */
const BOOKMARK = "d1ShardBookmark";
/** An address's second bucket: failed admin-key checks and console sign-ins. */
const ADMIN_FAILURE_TAT = "adminFailureTatUs";

/**
 * A key written within this long (ms) by one isolate while another made trips too gets no leases:
 * each of its calls asks the object, so its reads in every isolate start at its latest write.
 */
export const SHARED_WRITER_MS = 60_000;

/**
 * Wrong admin keys an address may present: 20 at once, then one every 5 s (720 an hour), against
 * a key of at least 32 random bytes. Its own bucket, so a client's token calls do not spend it.
 */
export const ADMIN_FAILURE_BUCKET: BucketConfig = { capacity: 20, ratePerSecond: 0.2 };

export function windowSeconds(bucket: BucketConfig): number {
  return Math.ceil(bucket.capacity / bucket.ratePerSecond);
}

export class RateLimiter extends DurableObject<Env> {
  /** Resolved whenever a lease is reported: a change waiting for leases looks again. */
  private reported: (() => void)[] = [];

  /** Authorize a call of a consumer key for `scope`, then take one unit from its bucket (no lease: one RPC per call). */
  async admitKey(consumerKeyId: string, scope: string): Promise<Admission> {
    return (await this.trip({ keyId: consumerKeyId, scope, holder: "", admit: true, want: 0 })).admission;
  }

  /**
   * An isolate's round trip: its lease reported (settled: unused admissions go back), this call
   * authorized and taken, its write's bookmark noted, and a new lease issued when one fits.
   */
  async trip(request: TripRequest): Promise<TripAnswer> {
    const kv = this.ctx.storage.kv;
    const grant = kv.get<KeyGrant>(GRANT) ?? (await this.loadGrant(request.keyId));
    const bucket = grant?.bucket ?? DEFAULT_BUCKET;
    const now = Date.now();
    let state = this.state();
    const holders = this.seen(request.holder, now);
    let mustWait = false;
    if (request.note) {
      this.keepBookmark(request.note.bookmark, request.note.shard);
      this.ctx.storage.kv.put(WRITTEN_AT, now);
      // Other isolates' leases were issued with an older bookmark: this write answers once they end.
      mustWait = state.leases.some((lease) => lease.holder !== request.holder);
      state = revoke(state, (lease) => lease.holder !== request.holder);
    }
    const usable = grant !== null && !grant.revoked;
    const admit = usable && request.admit && grant.scopes.includes(request.scope);
    const lease = usable && request.holder !== "" && request.want > 0 && !this.sharedWriter(request.holder, holders, now);
    const step = trip(state, now, bucket, {
      admit,
      lease,
      holder: request.holder,
      want: request.want,
      leaseId: crypto.randomUUID(),
      ...(request.report ? { report: reportAt(request.report, now * 1000) } : {}),
    });
    state = step.state;
    const view = { limit: bucket.capacity, windowSeconds: windowSeconds(bucket) };
    let admission: Admission;
    if (!grant) admission = this.refusal("unknown", state, now, DEFAULT_BUCKET);
    else if (grant.revoked) admission = this.refusal("revoked", state, now, bucket);
    else if (request.admit && !admit) admission = this.refusal("scope", state, now, bucket);
    else if (step.direct && !step.direct.allowed) {
      admission = {
        allowed: false,
        reason: "throttled",
        ...view,
        remaining: 0,
        resetMs: Math.ceil(step.direct.resetUs / 1000),
        retryAfterMs: step.direct.retryAfterMs,
      };
    } else {
      // Taken now, or (a write's bookmark, a returned lease) the bucket as it stands.
      const shown = step.direct ?? { remaining: peek(state, now, bucket).remaining, resetUs: peek(state, now, bucket).resetUs };
      admission = { allowed: true, ...this.where(grant, now), ...view, remaining: shown.remaining, resetMs: Math.ceil(shown.resetUs / 1000) };
    }
    let issued: TripAnswer["lease"] = null;
    if (grant && step.terms) {
      const where = this.where(grant, now);
      issued = {
        terms: step.terms,
        grant: {
          storeId: where.storeId,
          shard: where.shard,
          scopes: grant.scopes,
          ...(where.writesHeldUntil !== undefined ? { writesHeldUntil: where.writesHeldUntil } : {}),
          bookmark: where.bookmark,
          ...view,
          capacity: bucket.capacity,
        },
      };
    }
    this.store(state);
    // A change waiting for this lease looks again.
    if (request.report) this.wake();
    if (mustWait) await this.leasesEnded();
    return { admission, lease: issued };
  }

  /** After a write of this key on `shard`: where its D1 session ended. Only a later bookmark of the same shard replaces the held one. */
  async noteBookmark(bookmark: string, shard = "DB"): Promise<void> {
    await this.trip({ keyId: "", scope: "", holder: "", admit: false, want: 0, note: { bookmark, shard } });
  }

  /** Throttle an unauthenticated caller (token exchange, failed tokens) by its address. */
  async admitAnonymous(): Promise<Admission> {
    const admission = this.take(DEFAULT_BUCKET);
    await this.cleanUpWhenIdle();
    return admission.allowed ? { ...admission, storeId: "", shard: "" } : admission;
  }

  /** Count one wrong admin key (or console sign-in) of this address; refused once its bucket is empty. */
  async admitAdminFailure(): Promise<Admission> {
    const admission = this.take(ADMIN_FAILURE_BUCKET, ADMIN_FAILURE_TAT);
    await this.cleanUpWhenIdle();
    return admission.allowed ? { ...admission, storeId: "", shard: "" } : admission;
  }

  /**
   * An address's object is worth keeping only while one of its buckets holds calls: once every
   * bucket would be full again, forgetting it changes no answer. The alarm is set for that moment,
   * so the one object per client address ever seen does not stay in storage for good.
   */
  override async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    if (kv.get(GRANT) !== undefined) return;
    const idleAt = this.idleAt();
    if (idleAt <= Date.now()) await this.ctx.storage.deleteAll();
    else await this.ctx.storage.setAlarm(idleAt);
  }

  /** When every bucket of this object is full again (ms). */
  private idleAt(): number {
    const kv = this.ctx.storage.kv;
    return Math.ceil(Math.max(kv.get<number>(TAT) ?? 0, kv.get<number>(ADMIN_FAILURE_TAT) ?? 0) / 1000);
  }

  private async cleanUpWhenIdle(): Promise<void> {
    const idleAt = this.idleAt();
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current < idleAt) await this.ctx.storage.setAlarm(Math.max(idleAt, Date.now()));
  }

  /** What the caller's address bucket holds, without taking from it. */
  async peekAnonymous(): Promise<{ limit: number; remaining: number }> {
    const { limit, remaining } = await this.viewAnonymous();
    return { limit, remaining };
  }

  /** The address bucket's rate-limit fields, without taking from it (headers of early refusals). */
  async viewAnonymous(): Promise<LimitView> {
    const tat = this.ctx.storage.kv.get<number>(TAT) ?? 0;
    const now = Date.now();
    return {
      limit: DEFAULT_BUCKET.capacity,
      remaining: remainingAt(tat, now, DEFAULT_BUCKET),
      resetMs: Math.max(0, Math.ceil(tat / 1000 - now)),
      windowSeconds: windowSeconds(DEFAULT_BUCKET),
    };
  }

  /**
   * Written by the admin API when a key is created or changed, and by a store's move; revocation
   * takes effect at once for the object's own admissions and is never undone by a grant built
   * earlier, and an older store part never replaces a newer one (src/throttle/grants.ts). The call
   * answers once every lease issued before it has been reported (`reports`: the caller's own
   * isolate's, handed back with the change) or has expired, so no admission anywhere follows the
   * old grant after the answer. A new BucketSize or LeakRatePerSecond keeps the calls the bucket
   * already holds.
   */
  async setGrant(told: KeyGrant, reports: WireReport[] = []): Promise<void> {
    const kv = this.ctx.storage.kv;
    const previous = kv.get<KeyGrant>(GRANT);
    const grant = mergeGrant(previous, told);
    const now = Date.now();
    const bucket = previous?.bucket ?? grant.bucket;
    let state = expireUnreturned(this.state(), now, bucket);
    for (const report of reports) state = settle(state, reportAt(report, now * 1000), bucket);
    if (previous && kv.get<number>(TAT) !== undefined && !sameBucket(previous.bucket, grant.bucket)) {
      state = { ...state, tat: rebase(state.tat, now, previous.bucket, grant.bucket) };
    }
    const changed = previous === undefined || JSON.stringify(previous) !== JSON.stringify(grant);
    if (changed) state = revoke(state, () => true);
    kv.put(GRANT, grant);
    this.store(state);
    if (reports.length > 0) this.wake();
    if (changed) await this.leasesEnded();
  }

  /** The settled bucket and its outstanding leases. */
  private state(): BucketState {
    const kv = this.ctx.storage.kv;
    return { tat: kv.get<number>(TAT) ?? 0, leases: kv.get<BucketState["leases"]>(LEASES) ?? [] };
  }

  private store(state: BucketState): void {
    const kv = this.ctx.storage.kv;
    if (state.tat !== (kv.get<number>(TAT) ?? 0)) kv.put(TAT, state.tat);
    if (state.leases.length > 0 || kv.get(LEASES) !== undefined) kv.put(LEASES, state.leases);
  }

  /** Where the key's calls go: its store, shard, any write hold, and its latest bookmark on that shard. */
  private where(grant: KeyGrant, now: number): { storeId: string; shard: string; writesHeldUntil?: number; bookmark: string | null } {
    const shard = grant.shard ?? "DB";
    // A bookmark of the shard the store lived in before a move says nothing about the new one.
    const held = this.ctx.storage.kv.get<ShardBookmark>(BOOKMARK);
    const bookmark = held?.shard === shard ? held.bookmark : null;
    const hold = grant.writesHeldUntil !== undefined && grant.writesHeldUntil > now ? { writesHeldUntil: grant.writesHeldUntil } : {};
    return { storeId: grant.storeId, shard, ...hold, bookmark };
  }

  private keepBookmark(bookmark: string, shard: string): void {
    const kv = this.ctx.storage.kv;
    const held = kv.get<ShardBookmark>(BOOKMARK);
    const later = laterBookmark(held?.shard === shard ? held.bookmark : undefined, bookmark);
    if (later !== held?.bookmark || held?.shard !== shard) kv.put(BOOKMARK, { shard, bookmark: later } satisfies ShardBookmark);
  }

  /** Records the holder's trip; returns who made trips within SHARED_WRITER_MS. */
  private seen(holder: string, now: number): Record<string, number> {
    if (holder === "") return this.ctx.storage.kv.get<Record<string, number>>(HOLDERS) ?? {};
    const recent: Record<string, number> = {};
    for (const [id, at] of Object.entries(this.ctx.storage.kv.get<Record<string, number>>(HOLDERS) ?? {})) if (at > now - SHARED_WRITER_MS) recent[id] = at;
    recent[holder] = now;
    this.ctx.storage.kv.put(HOLDERS, recent);
    return recent;
  }

  /** A key written lately while another isolate also made trips: no leases (see SHARED_WRITER_MS). */
  private sharedWriter(holder: string, holders: Record<string, number>, now: number): boolean {
    const writtenAt = this.ctx.storage.kv.get<number>(WRITTEN_AT);
    if (writtenAt === undefined || writtenAt <= now - SHARED_WRITER_MS) return false;
    return Object.keys(holders).some((id) => id !== holder);
  }

  /**
   * Waits until no revoked lease can still admit: each is reported or expires, at most LEASE_MS
   * from now. The wait is also bounded by time really slept, so a clock held still (tests) cannot
   * make it endless; a lease still outstanding then counts as fully used at its expiry anyway.
   */
  private async leasesEnded(): Promise<void> {
    let slept = 0;
    for (;;) {
      const until = revokedUntil(this.state(), Date.now());
      if (until === null || slept > LEASE_MS + 1_000) return;
      const step = Math.max(1, Math.min(until - Date.now(), 250));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, step);
        this.reported.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      slept += step;
    }
  }

  private wake(): void {
    for (const resolve of this.reported.splice(0)) resolve();
  }

  private take(bucket: BucketConfig, key = TAT): Admission {
    const now = Date.now();
    const tat = this.ctx.storage.kv.get<number>(key) ?? 0;
    const decision = decide(tat, now, bucket);
    const view = { limit: bucket.capacity, windowSeconds: windowSeconds(bucket) };
    if (!decision.allowed) {
      return {
        allowed: false,
        reason: "throttled",
        ...view,
        remaining: 0,
        resetMs: Math.max(0, Math.ceil(tat / 1000 - now)),
        retryAfterMs: decision.retryAfterMs,
      };
    }
    this.ctx.storage.kv.put(key, decision.tat);
    return { allowed: true, storeId: "", shard: "", ...view, remaining: decision.remaining, resetMs: Math.ceil(decision.tat / 1000 - now), bookmark: null };
  }

  private refusal(reason: Reason, state: BucketState, now: number, bucket: BucketConfig): Admission {
    const view = peek(state, now, bucket);
    return {
      allowed: false,
      reason,
      limit: bucket.capacity,
      remaining: view.remaining,
      resetMs: Math.ceil(view.resetUs / 1000),
      windowSeconds: windowSeconds(bucket),
      retryAfterMs: 0,
    };
  }

  /**
   * A key's object that has never been told its grant (created before this object existed, or
   * its storage was reset) reads it from D1 once. blockConcurrencyWhile keeps concurrent calls
   * from each loading it, and from touching the bucket before the grant is known.
   */
  private async loadGrant(consumerKeyId: string): Promise<KeyGrant | null> {
    if (consumerKeyId === "") return null;
    return this.ctx.blockConcurrencyWhile(async () => {
      const known = this.ctx.storage.kv.get<KeyGrant>(GRANT);
      if (known) return known;
      const row = await findKeyWithStore(directoryDb(this.env), consumerKeyId);
      if (!row) return null;
      const grant = grantOf(row.key, row.store);
      this.ctx.storage.kv.put(GRANT, grant);
      return grant;
    });
  }
}

/** What a key's object holds: the key's own settings, and of its store whether it is deleted, its shard and any write hold. */
export interface GrantStore {
  deleted: boolean;
  shard: string;
  writesHeldUntil?: number;
  /** The revision of the store's directory row this was read at. */
  revision?: number;
}

export function grantOf(key: KeyRow, store: GrantStore): KeyGrant {
  return {
    storeId: key.storeId,
    shard: store.shard,
    ...(store.writesHeldUntil !== undefined ? { writesHeldUntil: store.writesHeldUntil } : {}),
    scopes: key.scopes,
    revoked: key.revokedAt !== null || store.deleted,
    bucket: {
      capacity: key.bucketSize ?? DEFAULT_BUCKET.capacity,
      ratePerSecond: key.leakRatePerSecond ?? DEFAULT_BUCKET.ratePerSecond,
    },
    ...(store.revision !== undefined ? { storeRevision: store.revision } : {}),
  };
}

/**
 * Tells a key's RateLimiter what it now may do; revocation reaches it before the answer. This
 * isolate's own leases of the key are handed back with the change; the object waits out the rest.
 */
export async function publishGrant(env: Env, key: KeyRow, store: GrantStore): Promise<void> {
  try {
    await env.RATE_LIMITER.getByName(key.id).setGrant(grantOf(key, store), releaseEverywhere(key.id, Date.now()));
  } catch (error) {
    console.error("publishing a grant failed", key.id, error);
    throw new ApiError(503, "The key's rate limiter could not be reached; nothing was changed in the database. Try again.", {
      "Retry-After": "1",
    });
  }
}
