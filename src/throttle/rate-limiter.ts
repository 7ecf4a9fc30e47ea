// One Durable Object per consumer key (named by its id) and one per client IP (named "ip:<addr>",
// which empties itself once idle).
// A key's object holds what authorizing a call needs (store, scopes, revocation, bucket size),
// so that one RPC both authorizes and throttles and the hot path reads nothing from D1.
// The bucket arithmetic is src/throttle/gcra.ts; this class only loads, calls and stores, with
// synchronous storage so that no other call can interleave between the read and the write.
// Beside the bucket it keeps the key's latest D1 bookmark (src/throttle/bookmark.ts): every call
// of the key comes here first, so its admission can carry where the key's reads must start.
import { DurableObject } from "cloudflare:workers";
import { directoryDb } from "../db/shards";
import { findKeyWithStore, type KeyRow } from "../consumer-keys/consumer-keys.queries";
import { type BucketConfig, DEFAULT_BUCKET, decide, rebase, remainingAt, sameBucket } from "./gcra";
import { laterBookmark } from "./bookmark";
import { mergeGrant } from "./grants";
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

export type Admission =
  | {
      allowed: true;
      storeId: string;
      shard: string;
      /** Set while the store's move switches shards: writes answer 503 until then (ms). */
      writesHeldUntil?: number;
      limit: number;
      remaining: number;
      /** The key's latest write's D1 bookmark (null before its first): its reads start there. */
      bookmark: string | null;
    }
  | {
      allowed: false;
      reason: Reason;
      limit: number;
      remaining: number;
      retryAfterMs: number;
    };

type Reason = "throttled" | "unknown" | "revoked" | "scope";

interface ShardBookmark {
  shard: string;
  bookmark: string;
}

const GRANT = "grant";
/** The bucket's one value, the GCRA theoretical arrival time in µs (src/throttle/gcra.ts). */
const TAT = "tatUs";
/** The key's latest write's D1 session bookmark, and the shard it is a bookmark of: { shard, bookmark }. */
const BOOKMARK = "d1ShardBookmark";
/** An address's second bucket: failed admin-key checks and console sign-ins. */
const ADMIN_FAILURE_TAT = "adminFailureTatUs";

/**
 * Wrong admin keys an address may present: 20 at once, then one every 5 s (720 an hour), against
 * a key of at least 32 random bytes. Its own bucket, so a client's token calls do not spend it.
 */
export const ADMIN_FAILURE_BUCKET: BucketConfig = { capacity: 20, ratePerSecond: 0.2 };

export class RateLimiter extends DurableObject<Env> {
  /** Authorize a call of a consumer key for `scope`, then take one unit from its bucket. */
  async admitKey(consumerKeyId: string, scope: string): Promise<Admission> {
    const grant = this.ctx.storage.kv.get<KeyGrant>(GRANT) ?? (await this.loadGrant(consumerKeyId));
    // Refusals before the bucket leave it as it was; their headers show what it still holds.
    if (!grant) return this.refuse("unknown", DEFAULT_BUCKET);
    if (grant.revoked) return this.refuse("revoked", grant.bucket);
    if (!grant.scopes.includes(scope)) return this.refuse("scope", grant.bucket);
    const admission = this.take(grant.bucket);
    if (!admission.allowed) return admission;
    const shard = grant.shard ?? "DB";
    // A bookmark of the shard the store lived in before a move says nothing about the new one.
    const held = this.ctx.storage.kv.get<ShardBookmark>(BOOKMARK);
    const bookmark = held?.shard === shard ? held.bookmark : null;
    const hold = grant.writesHeldUntil !== undefined && grant.writesHeldUntil > Date.now() ? { writesHeldUntil: grant.writesHeldUntil } : {};
    return { ...admission, storeId: grant.storeId, shard, ...hold, bookmark };
  }

  /** After a write of this key on `shard`: where its D1 session ended. Only a later bookmark of the same shard replaces the held one. */
  async noteBookmark(bookmark: string, shard = "DB"): Promise<void> {
    const kv = this.ctx.storage.kv;
    const held = kv.get<ShardBookmark>(BOOKMARK);
    const later = laterBookmark(held?.shard === shard ? held.bookmark : undefined, bookmark);
    if (later !== held?.bookmark || held?.shard !== shard) kv.put(BOOKMARK, { shard, bookmark: later } satisfies ShardBookmark);
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

  /** What the caller's address bucket holds, without taking from it (headers of early refusals). */
  async peekAnonymous(): Promise<{ limit: number; remaining: number }> {
    const tat = this.ctx.storage.kv.get<number>(TAT) ?? 0;
    return { limit: DEFAULT_BUCKET.capacity, remaining: remainingAt(tat, Date.now(), DEFAULT_BUCKET) };
  }

  /**
   * Written by the admin API when a key is created or changed, and by a store's move; revocation
   * takes effect at once and is never undone by a grant built earlier, and an older store part
   * never replaces a newer one (src/throttle/grants.ts). A new BucketSize or LeakRatePerSecond
   * keeps the calls the bucket already holds.
   */
  async setGrant(told: KeyGrant): Promise<void> {
    const kv = this.ctx.storage.kv;
    const previous = kv.get<KeyGrant>(GRANT);
    const grant = mergeGrant(previous, told);
    const tat = kv.get<number>(TAT);
    if (previous && tat !== undefined && !sameBucket(previous.bucket, grant.bucket)) {
      kv.put(TAT, rebase(tat, Date.now(), previous.bucket, grant.bucket));
    }
    kv.put(GRANT, grant);
  }

  private take(bucket: BucketConfig, key = TAT): Admission {
    const now = Date.now();
    const decision = decide(this.ctx.storage.kv.get<number>(key) ?? 0, now, bucket);
    if (!decision.allowed) {
      return { allowed: false, reason: "throttled", limit: bucket.capacity, remaining: 0, retryAfterMs: decision.retryAfterMs };
    }
    this.ctx.storage.kv.put(key, decision.tat);
    return { allowed: true, storeId: "", shard: "", limit: bucket.capacity, remaining: decision.remaining, bookmark: null };
  }

  private refuse(reason: Reason, bucket: BucketConfig): Admission {
    const remaining = remainingAt(this.ctx.storage.kv.get<number>(TAT) ?? 0, Date.now(), bucket);
    return { allowed: false, reason, limit: bucket.capacity, remaining, retryAfterMs: 0 };
  }

  /**
   * A key's object that has never been told its grant (created before this object existed, or
   * its storage was reset) reads it from D1 once. blockConcurrencyWhile keeps concurrent calls
   * from each loading it, and from touching the bucket before the grant is known.
   */
  private async loadGrant(consumerKeyId: string): Promise<KeyGrant | null> {
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

/** Tells a key's RateLimiter what it now may do; revocation reaches it before the answer. */
export async function publishGrant(env: Env, key: KeyRow, store: GrantStore): Promise<void> {
  try {
    await env.RATE_LIMITER.getByName(key.id).setGrant(grantOf(key, store));
  } catch (error) {
    console.error("publishing a grant failed", key.id, error);
    throw new ApiError(503, "The key's rate limiter could not be reached; nothing was changed in the database. Try again.", {
      "Retry-After": "1",
    });
  }
}
