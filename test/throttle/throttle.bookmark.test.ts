// Reads near the caller (issue 19, decisions 10): /v1 calls run on a D1 session, a write hands
// its session's bookmark to the key's RateLimiter, and the key's next read starts its session
// there, so a key always reads its own writes; another key does not get the bookmark. Locally
// D1 has no replicas: these tests hold the plumbing (which session each request starts from, on
// which database: the store's shard).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, createKey, insert, storeWithToken, tokenFor } from "../helpers/api";
import { DATABASES, shardOf, storeOn, type DatabaseName } from "../helpers/shards";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every D1 session the Worker opens while `run` runs, in any database: which, what it started from, and the bookmark it ended at. */
async function sessionsDuring(run: () => Promise<unknown>) {
  const opened: { database: DatabaseName; start: string | undefined; session: D1DatabaseSession }[] = [];
  for (const database of DATABASES) {
    const original = env[database].withSession.bind(env[database]);
    vi.spyOn(env[database], "withSession").mockImplementation((start) => {
      const session = original(start);
      opened.push({ database, start, session });
      return session;
    });
  }
  await run();
  vi.restoreAllMocks();
  return opened.map(({ database, start, session }) => ({ database, start, end: session.getBookmark() }));
}

const heldBookmark = async (keyId: string) => {
  const admission = await env.RATE_LIMITER.getByName(keyId).admitKey(keyId, "OrdersRead");
  if (!admission.allowed) throw new Error(`not admitted: ${admission.reason}`);
  return admission.bookmark;
};

describe("read-your-writes through the key's limiter", () => {
  it("passes an InsertOrder's bookmark to the same key's next list, and not to another key of the store", async () => {
    const { storeId, key, token } = await storeWithToken();
    const shard = await shardOf(storeId);
    const other = await createKey(storeId);
    const otherToken = await tokenFor(other.Key);
    expect(await heldBookmark(key.ConsumerKeyId)).toBeNull();

    const write = await sessionsDuring(() => insert(token, { OrderSourceOrderNumber: "RYW-1" }));
    // The write started on the primary of the store's shard and ended at a bookmark, which the key's limiter now holds.
    expect(write).toHaveLength(1);
    expect(write[0]!.database).toBe(shard);
    expect(write[0]!.start).toBe("first-primary");
    const written = write[0]!.end;
    expect(written).toEqual(expect.any(String));
    expect(await heldBookmark(key.ConsumerKeyId)).toBe(written);
    expect(await heldBookmark(other.ConsumerKeyId)).toBeNull();

    const list = (t: string) => call("GET", `/v1/${t}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
    let answer: Awaited<ReturnType<typeof list>> | undefined;
    const own = await sessionsDuring(async () => (answer = await list(token)));
    expect(own.map((s) => [s.database, s.start])).toEqual([[shard, written]]);
    expect(answer!.status).toBe(200);
    expect(JSON.parse(answer!.text).Orders.map((o: { OrderSourceOrderNumber: string }) => o.OrderSourceOrderNumber)).toEqual(["RYW-1"]);

    const others = await sessionsDuring(async () => (answer = await list(otherToken)));
    expect(others.map((s) => [s.database, s.start])).toEqual([[shard, "first-unconstrained"]]);
    expect(JSON.parse(answer!.text).Orders).toHaveLength(1);
    // A read hands nothing back: the held bookmark is still the write's.
    expect(await heldBookmark(key.ConsumerKeyId)).toBe(written);
    expect(await heldBookmark(other.ConsumerKeyId)).toBeNull();
  });

  it("moves the key's bookmark forward with each write (an order's acknowledgement too)", async () => {
    const { key, token } = await storeWithToken();
    const orderId = await insert(token, { OrderSourceOrderNumber: "RYW-2" });
    const first = await heldBookmark(key.ConsumerKeyId);
    const ack = await call("PUT", `/v1/${token}/Orders/${orderId}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-2`);
    expect(ack.status).toBe(200);
    const second = await heldBookmark(key.ConsumerKeyId);
    expect(first).not.toBeNull();
    expect(second! > first!).toBe(true);
  });
});

describe("read-your-writes on each shard", () => {
  it.each(["SHARD_1", "SHARD_2", "SHARD_3"] as const)(
    "a store on %s: the write's session and the same key's next read are on that shard, the read starting at the write's bookmark",
    async (shard) => {
      const storeId = await storeOn(shard);
      const key = await createKey(storeId);
      const token = await tokenFor(key.Key);
      const write = await sessionsDuring(() => insert(token, { OrderSourceOrderNumber: `RYW-${shard}` }));
      expect(write.map((s) => [s.database, s.start])).toEqual([[shard, "first-primary"]]);
      const written = write[0]!.end;
      expect(written).toEqual(expect.any(String));
      let answer: Awaited<ReturnType<typeof call>> | undefined;
      const read = await sessionsDuring(
        async () => (answer = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`)),
      );
      expect(read.map((s) => [s.database, s.start])).toEqual([[shard, written]]);
      expect(JSON.parse(answer!.text).Orders.map((o: { OrderSourceOrderNumber: string }) => o.OrderSourceOrderNumber)).toEqual([`RYW-${shard}`]);
    },
  );
});

describe("RateLimiter.noteBookmark", () => {
  it("hands a read no bookmark of a shard other than the store's (one noted before the store moved)", async () => {
    const id = `ck_bookmark_${crypto.randomUUID().slice(0, 8)}`;
    const stub = env.RATE_LIMITER.getByName(id);
    await stub.setGrant({ storeId: "st_unit", shard: "SHARD_2", scopes: ["OrdersRead"], revoked: false, bucket: { capacity: 50, ratePerSecond: 1 } });
    await stub.noteBookmark("00000000000000c0-00000000-00004f3c-00000000000000000000000000000000", "SHARD_1");
    expect(await heldBookmark(id)).toBeNull();
    const own = "00000000000000a0-00000000-00004f3c-00000000000000000000000000000000";
    await stub.noteBookmark(own, "SHARD_2");
    expect(await heldBookmark(id)).toBe(own);
  });

  it("keeps the latest bookmark: an older one arriving late does not replace it", async () => {
    const id = `ck_bookmark_${crypto.randomUUID().slice(0, 8)}`;
    const stub = env.RATE_LIMITER.getByName(id);
    await stub.setGrant({ storeId: "st_unit", scopes: ["OrdersRead"], revoked: false, bucket: { capacity: 50, ratePerSecond: 1 } });
    const newer = "00000000000000a1-00000002-00004f3c-1c4a6f0d2b5e7c9a8f3e2d1c0b9a8f7e";
    const older = "00000000000000a0-00000009-00004f3c-ffffffffffffffffffffffffffffffff";
    await stub.noteBookmark(newer);
    await stub.noteBookmark(older);
    expect(await heldBookmark(id)).toBe(newer);
    const newest = "00000000000000b0-00000000-00004f3c-00000000000000000000000000000000";
    await stub.noteBookmark(newest);
    expect(await heldBookmark(id)).toBe(newest);
  });
});
