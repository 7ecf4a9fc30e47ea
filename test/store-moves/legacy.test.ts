// A hub upgraded to shards (issue 19): a store created before sharding has its row and all its
// data in the directory (its shard column 'DB', the migration's default) and keeps working
// there until moved: its orders, products, sources and feeds stay in DB alone, a key whose grant
// was stored before grants named a shard reads there, and new stores still go to the shards. A
// feed's compiler scheduled before shards (its object knows no store) keeps its schedule.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, call, createKey, insert, tokenFor } from "../helpers/api";
import { databasesWith } from "../helpers/shards";
import { createSource, cycleAt, simulatedWindow } from "../helpers/sync";
import { createFeed, product, putProducts } from "../feeds/feeds-helpers";

/** A store as the pre-shard schema wrote it: no shard named, so the column's default. */
async function storeFromBeforeShards(name: string): Promise<string> {
  const id = `st_legacy_${crypto.randomUUID().slice(0, 8)}`;
  await env.DB.prepare("insert into stores (id, name, mask_buyer_pii, created_at) values (?, ?, 0, ?)").bind(id, name, Date.now()).run();
  return id;
}

const list = (token: string) => call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);

describe("a store from before sharding", () => {
  it("lives in the directory: its answers say Shard DB, its data stays in DB alone, GET /admin/v1/shards counts it there", async () => {
    const storeId = await storeFromBeforeShards("Old shop");
    expect((await admin("GET", `/stores/${storeId}`)).json.Store).toMatchObject({ StoreId: storeId, Shard: "DB" });
    const token = await tokenFor((await createKey(storeId)).Key);
    // The directory's own ids (epoch 0): the first order of this file's database is 1.
    expect(await insert(token, { OrderSourceOrderNumber: "OLD-1", OrderItems: [{ Sku: "A", Name: "A", Quantity: 1, UnitPrice: 1 }] })).toBe("1");
    await putProducts(storeId, [product("OLD-P1"), product("OLD-P2")]);
    const feedId = (await createFeed(storeId)).FeedId;
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(2) });
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ imported: 2 });

    for (const table of ["orders", "products", "feeds", "sources"]) {
      expect(await databasesWith(`select 1 from ${table} where store_id = ?`, storeId), table).toEqual(["DB"]);
    }
    expect((await list(token)).json.Orders).toHaveLength(3);
    expect((await admin("GET", `/feeds/${feedId}`)).json.Feed).toMatchObject({ StoreId: storeId });
    const shards = (await admin("GET", "/shards")).json.Shards as { Shard: string }[];
    // Its lines: the inserted order's one and what the marketplace's two orders carried, counted in DB.
    const lines = await itemsOf(storeId);
    expect(lines).toBeGreaterThan(2);
    expect(shards[0]).toEqual({ Shard: "DB", Stores: 1, Orders: 3, OrderItems: lines, Products: 2, Draining: true });

    // A new store still goes to a shard, never to the directory.
    const fresh = await admin("POST", "/stores", { Name: "New shop" });
    expect((fresh.json.Store as { Shard: string }).Shard).toBe("SHARD_1");
  });

  it("reads in the directory for a key whose grant was stored before grants named a shard", async () => {
    const storeId = await storeFromBeforeShards("Old shop with an old grant");
    const key = await createKey(storeId);
    const token = await tokenFor(key.Key);
    await insert(token, { OrderSourceOrderNumber: "OLD-GRANT" });
    // The grant as the limiter stored it before shards: no shard in it.
    await env.RATE_LIMITER.getByName(key.ConsumerKeyId).setGrant({
      storeId,
      scopes: ["OrdersRead", "OrdersCreate"],
      revoked: false,
      bucket: { capacity: 100, ratePerSecond: 10 },
    });
    const res = await list(token);
    expect(res.status).toBe(200);
    expect((res.json.Orders as { OrderSourceOrderNumber: string }[]).map((o) => o.OrderSourceOrderNumber)).toEqual(["OLD-GRANT"]);
  });
});

describe("a feed scheduled before shards", () => {
  it("compiles when its schedule comes due though its object was never told the store, and keeps the schedule", async () => {
    const storeId = await storeFromBeforeShards("Old shop with a scheduled feed");
    await putProducts(storeId, [product("SCHED-1"), product("SCHED-2")]);
    const feedId = (await createFeed(storeId, { CompileIntervalMinutes: 60 })).FeedId;
    const compiler = env.FEED_COMPILER.getByName(feedId);
    // What the object held before shards: the feed and its alarm, no store.
    await runInDurableObject(compiler, (_o, state) => state.storage.kv.delete("storeId"));
    expect(await runDurableObjectAlarm(compiler)).toBe(true);
    expect((await admin("GET", `/feeds/${feedId}`)).json.Feed).toMatchObject({ Status: "Completed", CompilationTotalCount: 2 });
    // The next compile is an hour away.
    const next = await runInDurableObject(compiler, (_o, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThan(Date.now() + 59 * 60_000);
  });
});

/** The store's order lines, counted in the directory. */
async function itemsOf(storeId: string): Promise<number> {
  const row = await env.DB.prepare("select count(*) as n from order_items i join orders o on o.id = i.order_id where o.store_id = ?")
    .bind(storeId)
    .first<{ n: number }>();
  return row!.n;
}
