// Per-store limits (issue 12): an operator sets them; a write over one is refused with a 400
// naming it and stores nothing; the store view shows use against each limit. The database's
// triggers enforce them, so the import path is covered as well as the API.
import { describe, expect, it, vi } from "vitest";
import { admin, call, createKey, insert, sampleOrder, storeWithToken, tokenFor } from "../helpers/api";
import type { Limits } from "../../src/stores/stores.queries";
import { countRows } from "../helpers/db";
import { storeD1 } from "../helpers/shards";
import { createSource, simulatedWindow } from "../helpers/sync";

// Whole walks through the Worker: generous on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

async function view(storeId: string) {
  const res = await admin("GET", `/stores/${storeId}`);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text).Store as { Limits: Limits; Usage: Limits };
}

async function setLimits(storeId: string, limits: Partial<Limits>) {
  const res = await admin("PATCH", `/stores/${storeId}`, { Limits: limits });
  expect(res.status, res.text).toBe(200);
  return res.json.Store as { Limits: Limits; Usage: Limits };
}

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ Sku: `SKU-${i}`, Name: `Item ${i}`, Quantity: 1, UnitPrice: 1 }));

function refusedFor(res: { status: number; json: { Success: boolean; Message: string } }, name: string, value: number) {
  expect(res.status, res.json?.Message).toBe(400);
  expect(res.json.Success).toBe(false);
  expect(res.json.Message).toContain(`Store limit reached: ${name}.`);
  expect(res.json.Message).toContain(`limit of ${value} `);
  expect(res.json.Message).toContain("nothing of this request was stored");
}

describe("store limits", () => {
  it("are set at creation or by PATCH, refused when malformed, and shown with what the store uses", async () => {
    const created = await admin("POST", "/stores", { Name: "Small", Limits: { Orders: 10, Feeds: 3 } });
    expect(created.status, created.text).toBe(200);
    const store = created.json.Store as { StoreId: string; Limits: Limits; Usage: Limits };
    expect(store.Limits).toEqual({ Orders: 10, OrderItems: 10000000, Products: 2000000, Feeds: 3, Sources: 200, ConsumerKeys: 200, StoredBytes: 2000000000 });
    expect(store.Usage).toEqual({ Orders: 0, OrderItems: 0, Products: 0, Feeds: 0, Sources: 0, ConsumerKeys: 0, StoredBytes: 0 });
    for (const bad of [{ Orders: -1 }, { Orders: 1.5 }, { Orders: "10" }, { Nonsense: 1 }, { Orders: 2_000_000_000 }]) {
      const res = await admin("PATCH", `/stores/${store.StoreId}`, { Limits: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await view(store.StoreId)).Limits.Orders).toBe(10);

    const key = await createKey(store.StoreId);
    const token = await tokenFor(key.Key);
    await insert(token, { OrderItems: items(3) });
    await insert(token, { OrderItems: items(2) });
    expect((await admin("POST", `/stores/${store.StoreId}/feeds`, { Name: "f", Format: "csv" })).status).toBe(200);
    expect((await admin("PUT", `/stores/${store.StoreId}/products`, { Products: [{ Sku: "A" }, { Sku: "B" }] })).status).toBe(200);
    await createSource(store.StoreId, { Name: "Market" });
    const { StoredBytes, ...counts } = (await view(store.StoreId)).Usage;
    expect(counts).toEqual({ Orders: 2, OrderItems: 5, Products: 2, Feeds: 1, Sources: 1, ConsumerKeys: 1 });
    expect(StoredBytes).toBeGreaterThan(0);
  });

  it("InsertOrder over Orders or OrderItems is a 400 naming the limit, and stores neither the order nor any item", async () => {
    const { storeId, token } = await storeWithToken();
    await setLimits(storeId, { Orders: 2, OrderItems: 160 });
    await insert(token, { OrderItems: items(5) });
    // 150 items travel in 14 statements of one batch: the item that crosses aborts all of them.
    const over = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ OrderItems: items(156) }) });
    refusedFor(over, "OrderItems", 160);
    expect(await countRows("orders", storeId)).toBe(1);
    expect(await countRows("order_items", storeId)).toBe(5);
    await insert(token, { OrderItems: items(155) });
    expect((await view(storeId)).Usage).toMatchObject({ Orders: 2, OrderItems: 160 });

    await setLimits(storeId, { OrderItems: 1000 });
    const third = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder() });
    refusedFor(third, "Orders", 2);
    expect(await countRows("orders", storeId)).toBe(2);
    expect(await countRows("order_items", storeId)).toBe(160);
    // A duplicate at the limit is still answered as a duplicate.
    const number = (await (
      await storeD1(storeId)
    )
      .prepare("select order_source_order_number as n from orders where store_id = ? limit 1")
      .bind(storeId)
      .first<{ n: string }>())!.n;
    const dup = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ OrderSourceOrderNumber: number }) });
    expect(dup.status).toBe(400);
    expect(dup.json.Message).toMatch(/already exists: OrderId \d+/);
    // Raising the limit lets the store grow again; lowering it below use removes nothing.
    await setLimits(storeId, { Orders: 3 });
    await insert(token);
    const lowered = await setLimits(storeId, { Orders: 1 });
    expect(lowered.Usage.Orders).toBe(3);
    expect(lowered.Limits.Orders).toBe(1);
    expect((await call("GET", `/v1/${token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01`)).json.Count).toBe(3);
  });

  it("a catalog upload whose new Skus would cross Products stores nothing, while updates of known Skus pass at the limit", async () => {
    const { storeId } = await storeWithToken();
    await setLimits(storeId, { Products: 3 });
    const put = (products: unknown[]) => admin("PUT", `/stores/${storeId}/products`, { Products: products });
    expect(
      (
        await put([
          { Sku: "A", Title: "a" },
          { Sku: "B", Title: "b" },
        ])
      ).status,
    ).toBe(200);
    const over = await put([{ Sku: "A", Title: "changed" }, { Sku: "C" }, { Sku: "D" }]);
    refusedFor(over, "Products", 3);
    const titles = (await (await storeD1(storeId)).prepare("select sku, title from products where store_id = ? order by sku").bind(storeId).all()).results;
    expect(titles).toEqual([
      { sku: "A", title: "a" },
      { sku: "B", title: "b" },
    ]);
    expect((await put([{ Sku: "A", Title: "again" }, { Sku: "B", Title: "again" }, { Sku: "C" }])).status).toBe(200);
    // At the limit: known Skus update, a new one is refused.
    expect((await put([{ Sku: "C", Title: "c" }])).status).toBe(200);
    refusedFor(await put([{ Sku: "E" }]), "Products", 3);
    expect((await view(storeId)).Usage.Products).toBe(3);
    // A deleted product frees its place.
    expect((await admin("DELETE", `/stores/${storeId}/products/A`)).status).toBe(200);
    expect((await put([{ Sku: "E" }])).status).toBe(200);
    expect((await view(storeId)).Usage.Products).toBe(3);
  });

  it("feeds, sources and active consumer keys are refused over their limits; a revoked key or a deleted feed frees its place", async () => {
    const { storeId, key } = await storeWithToken();
    await setLimits(storeId, { Feeds: 1, Sources: 1, ConsumerKeys: 2 });
    const feed = await admin("POST", `/stores/${storeId}/feeds`, { Name: "one", Format: "csv" });
    expect(feed.status).toBe(200);
    refusedFor(await admin("POST", `/stores/${storeId}/feeds`, { Name: "two", Format: "csv" }), "Feeds", 1);
    expect((await admin("DELETE", `/feeds/${(feed.json.Feed as { FeedId: string }).FeedId}`)).status).toBe(200);
    expect((await admin("POST", `/stores/${storeId}/feeds`, { Name: "two", Format: "csv" })).status).toBe(200);

    await createSource(storeId, { Name: "First" });
    refusedFor(await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Second" }), "Sources", 1);
    expect(await (await storeD1(storeId)).prepare("select count(*) as n from sources where store_id = ?").bind(storeId).first("n")).toBe(1);

    const second = await createKey(storeId);
    const third = await admin("POST", `/stores/${storeId}/consumer-keys`, { Name: "k3", Scopes: ["OrdersRead"], Lifespan: "7Days" });
    refusedFor(third, "ConsumerKeys", 2);
    expect(await countRows("consumer_keys", storeId)).toBe(2);
    expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
    expect((await admin("POST", `/stores/${storeId}/consumer-keys`, { Name: "k3", Scopes: ["OrdersRead"], Lifespan: "7Days" })).status).toBe(200);
    expect(second.ConsumerKeyId).toMatch(/^ck_/);
    expect((await view(storeId)).Usage).toMatchObject({ Feeds: 1, Sources: 1, ConsumerKeys: 2 });
  });

  it("an import page that would cross Orders is refused whole: the orders stored are whole pages, each with its items", async () => {
    const { storeId } = await storeWithToken();
    await setLimits(storeId, { Orders: 150 });
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(250), pageSize: 100 } });
    const sync = await admin("POST", `/sync?sourceId=${sourceId}`);
    expect(sync.status, sync.text).toBe(200);
    const status = (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { LastError: string | null } };
    expect(status.Status.LastError).toContain("Store limit reached: Orders");
    expect(await countRows("orders", storeId)).toBe(100);
    const orphans = await (await storeD1(storeId))
      .prepare("select count(*) as n from orders o where o.store_id = ? and not exists (select 1 from order_items i where i.order_id = o.id)")
      .bind(storeId)
      .first("n");
    expect(orphans).toBe(0);
    const usage = (await view(storeId)).Usage;
    expect(usage.Orders).toBe(100);
    expect(usage.OrderItems).toBe(await countRows("order_items", storeId));
  }, 60_000);
});

describe("a streamed CSV catalog over Products", () => {
  it("stops at the batch that would cross the limit, refuses that batch whole, and says how many rows were stored", async () => {
    const { storeId } = await storeWithToken();
    await setLimits(storeId, { Products: 500 });
    const csv = ["Sku,Title", ...Array.from({ length: 800 }, (_, i) => `S${String(i).padStart(4, "0")},t${i}`)].join("\n");
    const res = await call("PUT", `/admin/v1/stores/${storeId}/products`, {
      raw: csv,
      headers: { authorization: "Bearer test-admin-key-0123456789abcdef-0123", "content-type": "text/csv" },
    });
    expect(res.status, res.text).toBe(400);
    // Batches are 350 rows: the first fits, the second (rows 351-700) would cross 500.
    expect(res.json.Message).toMatch(/^Store limit reached: Products\. This store already holds its limit of 500 products\. /);
    expect(res.json.Message).toContain("The upload stopped there: the first 350 valid rows were stored, none after them.");
    expect(await (await storeD1(storeId)).prepare("select count(*) as n from products where store_id = ?").bind(storeId).first("n")).toBe(350);
    expect((await view(storeId)).Usage.Products).toBe(350);
  });
});
