// Isolation across shards (issue 19, decisions 10): two stores on different shards, each with
// orders (inserted and imported, one acknowledged to its marketplace), products, a feed, a source and a webhook endpoint with its
// events. Each one's rows are in its own shard database alone (its store row also in the
// directory, its keys only there), and neither a consumer key nor a store's admin paths reach
// the other's.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createKey, insert, tokenFor } from "../helpers/api";
import { databasesWith, storeOn, type DatabaseName } from "../helpers/shards";
import { createSource, cycleAt, simulatedWindow } from "../helpers/sync";
import { createWebhook, deliveries } from "../helpers/webhooks";
import { installReceiver, receiver, until } from "../webhooks/webhook-receiver";
import { createFeed, product, putProducts } from "../feeds/feeds-helpers";

beforeAll(installReceiver);

interface Seeded {
  storeId: string;
  shard: DatabaseName;
  token: string;
  orderIds: string[];
  feedId: string;
  sourceId: string;
  webhookId: string;
}

/** A store on `shard` holding 2 inserted orders, `imported` imported ones, 3 products, a feed, a source and an endpoint with its events delivered. */
async function seeded(shard: DatabaseName, imported: number): Promise<Seeded> {
  const storeId = await storeOn(shard, `Isolated on ${shard}`);
  const token = await tokenFor((await createKey(storeId)).Key);
  const hook = receiver();
  const webhookId = (await createWebhook(storeId, hook.url, ["order.created"])).WebhookId;
  const orderIds = [await insert(token, { OrderSourceOrderNumber: `${shard}-1` }), await insert(token, { OrderSourceOrderNumber: `${shard}-2` })];
  await until(async () => (await deliveries(storeId, webhookId, "delivered")).length === 2);
  await putProducts(storeId, [product(`${shard}-P1`), product(`${shard}-P2`), product(`${shard}-P3`)]);
  const feedId = (await createFeed(storeId, { Name: `Feed of ${shard}` })).FeedId;
  const sourceId = await createSource(storeId, { Name: `Market of ${shard}`, Settings: simulatedWindow(imported) });
  // The cycle is given only the source: it finds the store's shard itself.
  expect(await cycleAt(sourceId, Date.now())).toMatchObject({ imported });
  // An acknowledgement of an imported order queues its delivery (an outbox row) in the shard.
  const res = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
  const marketOrder = (res.json.Orders as { OrderId: number; OrderSource: string }[]).find((o) => o.OrderSource === `Market of ${shard}`)!;
  expect((await call("PUT", `/v1/${token}/Orders/${marketOrder.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-${shard}`)).status).toBe(200);
  return { storeId, shard, token, orderIds, feedId, sourceId, webhookId };
}

const listOf = async (token: string) => {
  const res = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
  expect(res.status).toBe(200);
  return (res.json.Orders as { OrderId: number | string; OrderSourceOrderNumber: string }[]).map((o) => String(o.OrderId));
};

describe("two stores on two shards", () => {
  let one: Seeded;
  let two: Seeded;
  beforeAll(async () => {
    one = await seeded("SHARD_1", 3);
    two = await seeded("SHARD_3", 4);
  });

  it("keep each store's rows in its own shard database and nowhere else", async () => {
    for (const store of [one, two]) {
      for (const table of ["orders", "outbox", "products", "feeds", "sources", "webhooks", "webhook_deliveries"]) {
        expect(await databasesWith(`select 1 from ${table} where store_id = ?`, store.storeId), `${table} of ${store.shard}`).toEqual([store.shard]);
      }
      expect(await databasesWith("select 1 from order_items where order_id in (select id from orders where store_id = ?)", store.storeId)).toEqual([
        store.shard,
      ]);
      for (const id of store.orderIds) expect(await databasesWith("select 1 from order_items where order_id = ?", Number(id))).toEqual([store.shard]);
      // The store itself: in the directory, with the copy its rows' keys need in its shard; its keys in the directory only.
      expect(await databasesWith("select 1 from stores where id = ?", store.storeId)).toEqual(["DB", store.shard]);
      expect(await databasesWith("select 1 from consumer_keys where store_id = ?", store.storeId)).toEqual(["DB"]);
    }
    // A store's usage: its keys counted in the directory, the rest in its shard.
    expect((await admin("GET", `/stores/${one.storeId}`)).json.Store).toMatchObject({
      Shard: "SHARD_1",
      Usage: { Orders: 5, Products: 3, Feeds: 1, Sources: 1, ConsumerKeys: 1 },
    });
    expect((await admin("GET", `/stores/${two.storeId}`)).json.Store).toMatchObject({
      Shard: "SHARD_3",
      Usage: { Orders: 6, Products: 3, Feeds: 1, Sources: 1, ConsumerKeys: 1 },
    });
    // The shard between them holds nothing of either.
    expect(await databasesWith("select 1 from orders where store_id in (?, ?)", one.storeId, two.storeId)).not.toContain("SHARD_2");
  });

  it("answer a key only its own store's orders and feeds", async () => {
    const own = await listOf(one.token);
    expect(own).toHaveLength(5);
    expect(own).toEqual(expect.arrayContaining(one.orderIds));
    expect((await listOf(two.token)).filter((id) => own.includes(id))).toEqual([]);
    const count = await call("GET", `/v1/${one.token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01`);
    expect(count.json.Count).toBe(5);
    for (const id of two.orderIds) {
      expect((await call("GET", `/v1/${one.token}/Orders/${id}`)).status).toBe(404);
      // A write to the other store's order finds nothing either.
      expect((await call("PUT", `/v1/${one.token}/Orders/${id}/AcknowledgeOrder?orderDestinationOrderNumber=X`)).status).toBe(404);
    }
    expect((await call("GET", `/v1/${two.token}/Orders/${two.orderIds[0]}`)).status).toBe(200);
    const feeds = await call("GET", `/v1/${one.token}/feeds?page=1&pageSize=100`);
    expect((feeds.json.Feeds as { FeedId: string }[]).map((f) => f.FeedId)).toEqual([one.feedId]);
    expect((await call("GET", `/v1/${one.token}/feeds/${two.feedId}`)).status).toBe(404);
  });

  it("answer a store's admin paths only for its own sources and webhooks; a feed or source known by id is found in its shard", async () => {
    expect((await admin("GET", `/stores/${one.storeId}/sources/${two.sourceId}`)).status).toBe(404);
    expect((await admin("GET", `/stores/${one.storeId}/webhooks/${two.webhookId}`)).status).toBe(404);
    expect((await admin("GET", `/stores/${one.storeId}/sources`)).json.Sources).toEqual([expect.objectContaining({ SourceId: one.sourceId })]);
    expect((await admin("GET", `/stores/${two.storeId}/webhooks`)).json.Webhooks).toEqual([expect.objectContaining({ WebhookId: two.webhookId })]);
    expect((await admin("GET", `/feeds/${two.feedId}`)).json.Feed).toMatchObject({ FeedId: two.feedId, StoreId: two.storeId });
    expect((await admin("GET", `/feeds/${one.feedId}`)).json.Feed).toMatchObject({ FeedId: one.feedId, StoreId: one.storeId });
    // The admin sync of one source runs in its store's shard: the other store gains nothing.
    expect((await admin("POST", `/sync?sourceId=${two.sourceId}`)).status).toBe(200);
    expect(await listOf(one.token)).toHaveLength(5);
    expect(await listOf(two.token)).toHaveLength(6);
  });
});
