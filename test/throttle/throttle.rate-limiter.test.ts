// The RateLimiter Durable Object through its RPC methods, as the Worker calls it.
// Buckets here leak 0.001 call/s (one per 1000 s), so no test depends on how fast it runs.
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { directoryDb } from "../../src/db/shards";
import { consumerKeys } from "../../src/db/schema";
import type { KeyGrant } from "../../src/throttle/rate-limiter";
import { admin, createKey, createStore } from "../helpers/api";
import { shardOf } from "../helpers/shards";

const SLOW = { capacity: 50, ratePerSecond: 0.001 };
let serial = 0;

/** A key id known only to its object (no D1 row): the object can only answer from storage. */
async function keyWithGrant(grant: Partial<KeyGrant> = {}) {
  serial += 1;
  const id = `ck_unit${serial}_${crypto.randomUUID().slice(0, 8)}`;
  const stub = env.RATE_LIMITER.getByName(id);
  await stub.setGrant({ storeId: "st_unit", scopes: ["OrdersRead"], revoked: false, bucket: SLOW, ...grant });
  return { id, stub };
}

async function admitMany(id: string, count: number, scope = "OrdersRead") {
  const stub = env.RATE_LIMITER.getByName(id);
  return Promise.all(Array.from({ length: count }, () => stub.admitKey(id, scope)));
}

describe("RateLimiter", () => {
  it("admits exactly 50 of 100 concurrent calls on one key", async () => {
    const { id } = await keyWithGrant();
    const results = await admitMany(id, 100);
    expect(results.filter((r) => r.allowed)).toHaveLength(50);
    const refused = results.filter((r) => !r.allowed);
    expect(refused).toHaveLength(50);
    expect(refused.every((r) => !r.allowed && r.reason === "throttled" && r.retryAfterMs > 0)).toBe(true);
    // Each admitted call saw a distinct count of what was left: no two read the same state.
    const remaining = results.flatMap((r) => (r.allowed ? [r.remaining] : [])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it("remembers a full bucket and its grant after the object is evicted", async () => {
    const { id, stub } = await keyWithGrant();
    await admitMany(id, 50);
    await evictDurableObject(stub);
    const after = await env.RATE_LIMITER.getByName(id).admitKey(id, "OrdersRead");
    // "throttled", not "unknown": the grant came back from storage, the key has no D1 row.
    expect(after).toMatchObject({ allowed: false, reason: "throttled" });
  });

  it("keeps two keys' buckets apart", async () => {
    const first = await keyWithGrant();
    const second = await keyWithGrant();
    await admitMany(first.id, 50);
    expect((await first.stub.admitKey(first.id, "OrdersRead")).allowed).toBe(false);
    expect(await second.stub.admitKey(second.id, "OrdersRead")).toMatchObject({ allowed: true, remaining: 49 });
  });

  it("refuses a revoked key on its very next call", async () => {
    const storeId = await createStore();
    const key = await createKey(storeId, { scopes: ["OrdersRead"] });
    const stub = env.RATE_LIMITER.getByName(key.ConsumerKeyId);
    expect(await stub.admitKey(key.ConsumerKeyId, "OrdersRead")).toMatchObject({ allowed: true, storeId });
    expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
    expect(await stub.admitKey(key.ConsumerKeyId, "OrdersRead")).toMatchObject({ allowed: false, reason: "revoked" });
  });

  it("refuses a missing scope without taking from the bucket", async () => {
    const { id, stub } = await keyWithGrant({ scopes: ["OrdersRead"] });
    const refusals = await admitMany(id, 80, "OrdersUpdate");
    expect(refusals.every((r) => !r.allowed && r.reason === "scope" && r.remaining === 50)).toBe(true);
    expect(await stub.admitKey(id, "OrdersRead")).toMatchObject({ allowed: true, remaining: 49 });
  });

  it("reads a key it was never told about from D1 once, with the key's own bucket", async () => {
    const storeId = await createStore();
    const id = `ck_direct_${crypto.randomUUID().slice(0, 8)}`;
    await directoryDb(env)
      .insert(consumerKeys)
      .values({
        id,
        storeId,
        name: "inserted without the admin API",
        keyHash: crypto.randomUUID(),
        scopes: ["OrdersRead"],
        lifespan: "NeverExpires",
        bucketSize: 3,
        leakRatePerSecond: 0.001,
        createdAt: Date.now(),
        revokedAt: null,
      });
    const results = await admitMany(id, 5);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
    // The grant read from the directory names the store's shard, where its requests will read.
    expect(results[0]).toMatchObject({ storeId, shard: await shardOf(storeId), limit: 3, remaining: 2 });
  });

  it("refuses a key that does not exist", async () => {
    const id = `ck_nowhere_${crypto.randomUUID().slice(0, 8)}`;
    expect(await env.RATE_LIMITER.getByName(id).admitKey(id, "OrdersRead")).toMatchObject({ allowed: false, reason: "unknown" });
  });

  it("keeps the calls a bucket holds when the key's BucketSize changes", async () => {
    const { id, stub } = await keyWithGrant();
    await admitMany(id, 20);
    const grant = { storeId: "st_unit", scopes: ["OrdersRead"], revoked: false };
    // Grown to 100: the 20 calls already made still count.
    await stub.setGrant({ ...grant, bucket: { capacity: 100, ratePerSecond: 0.001 } });
    expect(await stub.admitKey(id, "OrdersRead")).toMatchObject({ allowed: true, limit: 100, remaining: 79 });
    // Shrunk to 10: full, and refused until it drains.
    await stub.setGrant({ ...grant, bucket: { capacity: 10, ratePerSecond: 0.001 } });
    expect(await stub.admitKey(id, "OrdersRead")).toMatchObject({ allowed: false, reason: "throttled", limit: 10 });
  });

  it("throttles an address with the default bucket, and a peek takes nothing", async () => {
    // The object runs in this isolate, so a frozen Date freezes its clock too.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(1_800_000_000_000);
      const stub = env.RATE_LIMITER.getByName("ip:203.0.113.7");
      expect(await stub.peekAnonymous()).toEqual({ limit: 50, remaining: 50 });
      const results = await Promise.all(Array.from({ length: 60 }, () => stub.admitAnonymous()));
      expect(results.filter((r) => r.allowed)).toHaveLength(50);
      expect(await stub.peekAnonymous()).toEqual({ limit: 50, remaining: 0 });
      vi.setSystemTime(1_800_000_000_000 + 1_000);
      expect(await stub.peekAnonymous()).toEqual({ limit: 50, remaining: 2 });
      expect(await stub.peekAnonymous()).toEqual({ limit: 50, remaining: 2 });
    } finally {
      vi.useRealTimers();
    }
  });
});
