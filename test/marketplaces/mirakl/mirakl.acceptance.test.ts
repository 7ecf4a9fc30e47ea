// Mirakl's acceptance decided by the hub at import (decisions 14) inside real cycles, beyond the
// cases of mirakl.sync.test.ts: the decision follows what each line took from stock when it
// arrived (order_items.stock_taken), so it holds whatever the stock or the Sku's tracking
// becomes before the acknowledgement is delivered, lines of one Sku are served in their order, an
// order the hub already holds and reads again does not count twice, and an acknowledgement queued
// by the code before (with a `stock` map in its payload) is still decided by that map. What the
// import spends on it in D1 statements is counted with the binding tally (src/lib/binding-tally.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, storeWithToken } from "../../helpers/api";
import { createSource, cycleAt, deliveries, listOrders, MINUTE, patchSource } from "../../helpers/sync";
import { storeD1 } from "../../helpers/shards";
import { putInventory, putStock, quantities } from "../../stock/helpers";
import { createMiraklFake, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL } from "./mirakl-fake";
import type { FakeOrderSpec } from "./mirakl-orders-fake";
import { tallyBindings } from "../../../src/lib/binding-tally";
import { dbOf } from "../../../src/db/client";
import { createMiraklConnector } from "../../../src/marketplaces/mirakl/mirakl.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { importOrders } from "../../../src/sync/importer";

afterEach(() => {
  vi.restoreAllMocks();
});

const SETTINGS = { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, pushStock: false };

/** A store with `stock`, a Mirakl source (auto acceptance unless `settings` say otherwise) and the fake's `orders`. */
async function miraklShop(
  stock: { Sku: string; Quantity: number | null }[],
  orders: Omit<FakeOrderSpec, "createdAt">[],
  settings: Record<string, unknown> = {},
) {
  let at = Date.now();
  const fake = createMiraklFake({ now: () => new Date(at) });
  vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
  orders.forEach((o, i) => fake.orders.add({ ...o, createdAt: new Date(at - (30 - i) * MINUTE) }));
  const { storeId, token } = await storeWithToken();
  // A product without a Quantity is not tracked.
  await putStock(
    storeId,
    stock.map((s) => (s.Quantity === null ? { Sku: s.Sku } : { ...s })),
  );
  const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl shop", Settings: { ...SETTINGS, ...settings } });
  const cycle = async (minutesLater: number, failing: RegExp = /^(import|delivery):/) => {
    at += minutesLater * MINUTE;
    const result = await cycleAt(sourceId, at);
    // The returns reader keeps its own pace (RT11 every 15 minutes): the orders' import and delivery must have gone through.
    expect(result.error ?? "").not.toMatch(failing);
    return result;
  };
  const order = async (number: string) => (await listOrders(token)).find((o) => o.OrderSourceOrderNumber === number)!;
  const addOrder = (spec: Omit<FakeOrderSpec, "createdAt">) => fake.orders.add({ ...spec, createdAt: new Date(at - MINUTE) });
  return { fake, storeId, token, sourceId, cycle, order, addOrder };
}

const line = (sku: string, quantity: number) => ({ sku, quantity, unitPrice: 10 });
const accepted = (fake: ReturnType<typeof createMiraklFake>) => fake.calls("OR21").map((r) => [r.path, r.body]);

describe("Mirakl acceptance decided at import (decisions 14)", () => {
  it("serves the lines of one Sku in their order: a line short of stock is refused, and so is every later line of that Sku, which took nothing", async () => {
    const { fake, storeId, cycle, order } = await miraklShop(
      [
        { Sku: "SKU-1", Quantity: 3 },
        { Sku: "SKU-2", Quantity: 3 },
      ],
      [{ id: "B-1", lines: [line("SKU-1", 2), line("SKU-1", 2), line("SKU-1", 1), line("SKU-2", 5), line("SKU-2", 2)] }],
    );
    expect(await cycle(0)).toMatchObject({ imported: 1, delivered: 1 });
    // SKU-1 (3) took 2, 1, 0: 2 accepted, the other two refused. SKU-2 (3) took 3, 0: both refused.
    expect(accepted(fake)).toEqual([
      [
        "/api/orders/B-1/accept",
        {
          order_lines: [
            { id: "B-1-1", accepted: true },
            { id: "B-1-2", accepted: false },
            { id: "B-1-3", accepted: false },
            { id: "B-1-4", accepted: false },
            { id: "B-1-5", accepted: false },
          ],
        },
      ],
    ]);
    expect((await order("B-1")).SyncUserErrorMessage).toBe(
      "Mirakl order B-1: accepted the lines in stock and refused line B-1-2 (Sku SKU-1: 2 ordered, 1 in stock), line B-1-3 (Sku SKU-1: 1 ordered, 0 in stock), " +
        "line B-1-4 (Sku SKU-2: 5 ordered, 3 in stock), line B-1-5 (Sku SKU-2: 2 ordered, 0 in stock)",
    );
    // The take served the lines in order too (2, 1, 0 and 3, 0): every unit is held until the refusals come back.
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 0, "SKU-2": 0 });
    // The next import reads the refused lines back and they give back what they took (1 and 3): exactly what is left.
    expect(await cycle(2)).toMatchObject({ delivered: 0 });
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 1, "SKU-2": 3 });
    expect(fake.violations).toEqual([]);
  });

  it("an order the hub already holds, read again on the page before a new one, takes nothing and leaves the new one its stock", async () => {
    const { fake, cycle, order, addOrder } = await miraklShop([{ Sku: "SKU-1", Quantity: 10 }], [{ id: "R-1", lines: [line("SKU-1", 8)] }]);
    expect(await cycle(0)).toMatchObject({ imported: 1, delivered: 1 });
    // 2 left. R-1 (accepted a minute ago, so read again by the next import's overlap) comes first on the page, then R-2.
    addOrder({ id: "R-2", lines: [line("SKU-1", 2)] });
    expect(await cycle(2)).toMatchObject({ imported: 1, delivered: 1 });
    expect(accepted(fake)).toEqual([
      ["/api/orders/R-1/accept", { order_lines: [{ id: "R-1-1", accepted: true }] }],
      ["/api/orders/R-2/accept", { order_lines: [{ id: "R-2-1", accepted: true }] }],
    ]);
    expect((await order("R-2")).SyncUserErrorMessage).toBeNull();
    expect(fake.violations).toEqual([]);
  });

  it("decides by what the import found, whatever the stock or the Sku's tracking becomes before the acknowledgement is delivered", async () => {
    const { fake, storeId, token, sourceId, cycle, order } = await miraklShop(
      [
        { Sku: "SKU-1", Quantity: 5 },
        { Sku: "SKU-2", Quantity: 1 },
        { Sku: "SKU-3", Quantity: 0 },
        { Sku: "FREE-1", Quantity: null },
      ],
      [{ id: "D-1", lines: [line("SKU-1", 2), line("SKU-2", 3), line("SKU-3", 1), line("FREE-1", 4)] }],
    );
    // Mirakl is down for the first delivery: the acknowledgement waits for a later cycle.
    fake.failNext({ status: 503, operation: "OR21" });
    expect(await cycle(0, /^import:/)).toMatchObject({ imported: 1, delivered: 0, error: "delivery: Mirakl OR21 503 fault 503" });
    expect((await deliveries(storeId, sourceId)).map((d) => [d.Kind, d.Status, d.Attempts])).toEqual([["acknowledge", "pending", 1]]);
    // Meanwhile the seller's system: SKU-1 sold out, SKU-2 restocked, SKU-3 no longer tracked, FREE-1 tracked (none).
    const changed = await putInventory(token, [
      { Sku: "SKU-1", Quantity: 0 },
      { Sku: "SKU-2", Quantity: 50 },
      { Sku: "SKU-3", Quantity: null },
      { Sku: "FREE-1", Quantity: 0 },
    ]);
    expect(changed.status, changed.text).toBe(200);
    expect(await quantities(storeId, ["SKU-1", "SKU-2", "SKU-3", "FREE-1"])).toEqual({ "SKU-1": 0, "SKU-2": 50, "SKU-3": null, "FREE-1": 0 });
    expect(await cycle(30)).toMatchObject({ delivered: 1 });
    expect(accepted(fake).at(-1)).toEqual([
      "/api/orders/D-1/accept",
      {
        order_lines: [
          { id: "D-1-1", accepted: true },
          { id: "D-1-2", accepted: false },
          { id: "D-1-3", accepted: false },
          { id: "D-1-4", accepted: true },
        ],
      },
    ]);
    expect((await order("D-1")).SyncUserErrorMessage).toBe(
      "Mirakl order D-1: accepted the lines in stock and refused line D-1-2 (Sku SKU-2: 3 ordered, 1 in stock), line D-1-3 (Sku SKU-3: 1 ordered, 0 in stock)",
    );
    expect(fake.violations).toEqual([]);
  });

  it("an acknowledgement queued before this change, with each line's stock in its payload, is still decided by that stock", async () => {
    // Imported in manual mode (nothing queued), then the row the earlier code wrote is put in the outbox and the source goes auto.
    const { fake, storeId, sourceId, cycle, order } = await miraklShop(
      [
        { Sku: "SKU-1", Quantity: 50 },
        { Sku: "SKU-2", Quantity: 50 },
      ],
      [{ id: "O-1", lines: [line("SKU-1", 2), line("FREE-1", 3), line("SKU-2", 2), line("SKU-1", 1)] }],
      { acceptance: "manual" },
    );
    expect(await cycle(0)).toMatchObject({ imported: 1, delivered: 0 });
    const orderId = Number((await order("O-1")).OrderId);
    const d1 = await storeD1(storeId);
    const stock = { "O-1-1": 2, "O-1-2": null, "O-1-3": 1, "O-1-4": 2 };
    await d1
      .prepare(
        `insert into outbox (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, created_at)
        values (?1, ?2, ?3, 'acknowledge', json_object('sellerOrderNumber', null, 'stock', json(?4)), 'pending', 0, ?5, ?5)`,
      )
      .bind(storeId, sourceId, orderId, JSON.stringify(stock), Date.now())
      .run();
    await patchSource(storeId, sourceId, { Settings: { ...SETTINGS, acceptance: "auto" } });
    expect(await cycle(2)).toMatchObject({ delivered: 1 });
    // SKU-1 had 2 for the order (its lines of 2 and 1: the second refused), FREE-1 untracked, SKU-2 had 1 (2 ordered).
    expect(accepted(fake)).toEqual([
      [
        "/api/orders/O-1/accept",
        {
          order_lines: [
            { id: "O-1-1", accepted: true },
            { id: "O-1-2", accepted: true },
            { id: "O-1-3", accepted: false },
            { id: "O-1-4", accepted: false },
          ],
        },
      ],
    ]);
    expect((await order("O-1")).SyncUserErrorMessage).toBe(
      "Mirakl order O-1: accepted the lines in stock and refused line O-1-3 (Sku SKU-2: 2 ordered, 1 in stock), line O-1-4 (Sku SKU-1: 1 ordered, 0 in stock)",
    );
    expect(fake.violations).toEqual([]);
  });
});

describe("what deciding at import costs the import", () => {
  /** D1 queries and calls of one import of `count` orders waiting for acceptance (100 a page), in `acceptance` mode. */
  async function importCost(acceptance: "auto" | "manual", count: number) {
    const at = Date.now();
    const fake = createMiraklFake({ now: () => new Date(at) });
    for (let i = 0; i < count; i++) {
      fake.orders.add({ id: `P-${i}`, createdAt: new Date(at - 60 * MINUTE + i * 1000), lines: [line("SKU-1", 1), line(`SKU-${i % 7}`, 2)] });
    }
    const { storeId } = await storeWithToken();
    await putStock(
      storeId,
      Array.from({ length: 7 }, (_, i) => ({ Sku: `SKU-${i}`, Quantity: 40, Price: 10 })),
    );
    const settings = { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, acceptance };
    const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl counted", Settings: { ...settings, pushStock: false } });
    const spent = { queries: 0, calls: 0 };
    const { DB } = tallyBindings(
      { DB: await storeD1(storeId) },
      {
        d1: (queries) => {
          spent.queries += queries;
          spent.calls += 1;
        },
      },
    );
    const connector = createMiraklConnector({ sourceId, settings, fetch: fake.fetch, now: () => new Date(at) }, memoryStorage());
    const result = await importOrders(dbOf(DB), { id: sourceId, storeId, cursorAt: null }, connector, at);
    expect(result).toMatchObject({ imported: count, endedEarly: null });
    const queued = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/deliveries`)).json.Deliveries as unknown[];
    expect(queued).toHaveLength(acceptance === "auto" ? count : 0);
    return spent;
  }

  it("is one statement a page, the acknowledgements' insert in the page's batch: no read of the stock before it", async () => {
    const manual = await importCost("manual", 250);
    const auto = await importCost("auto", 250);
    // 3 pages, each one batch of 8 statements; deciding adds the acknowledgements' insert to it
    // (before the lines' take decided acceptance, a read of the page's stock before each batch
    // too: 30 queries in 6 calls).
    expect(manual).toEqual({ queries: 24, calls: 3 });
    expect(auto).toEqual({ queries: 27, calls: 3 });
  });
});
