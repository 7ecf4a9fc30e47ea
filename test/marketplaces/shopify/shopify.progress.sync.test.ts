// What the follow-up query (ShopifyOrderProgress) costs through whole cycles of the Cron Trigger,
// with the fake Shopify of this folder in place of the global fetch, counted on the fake's record
// of the queries it received: an order fulfilled in Shopify's admin and imported again and again
// (the windows' overlap, a note changed in the admin) is read once; a second package, a refund of
// units and a refund of money alone each cost exactly one more read, and what it brings is on
// `GET /v1/{token}/Orders/{id}`. The memory of reads is bounded: the oldest order of its storage
// key (64 orders a key) is forgotten first and read again when it comes back; a newer one is not.
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import type { WireRefund } from "../../../src/refunds/refunds.wire";
import { memoryKeyOf } from "../../../src/marketplaces/kit/order-memory";
import { PROGRESS_MEMORY } from "../../../src/marketplaces/shopify/shopify.progress";
import { admin, ALL_SCOPES, call, storeWithToken } from "../../helpers/api";
import { createSource, fireCron, listOrders, MINUTE, type WireOrder } from "../../helpers/sync";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN, type ShopifyFake } from "./shopify-fake";
import { orderGid, shopifyOrder } from "./shopify-fixtures";

afterEach(() => {
  vi.restoreAllMocks();
});

const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

interface Item {
  Sku: string;
  QuantityShipped: number;
  QuantityCancelled: number;
}
type Order = WireOrder & { Shipments: { ShipmentTrackingNumber: string | null }[]; Refunds: WireRefund[] };

async function read(token: string, id: string): Promise<Order> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text).Orders as Order[])[0]!;
}
const counts = (order: Order) => (order.OrderItems as unknown as Item[]).map((i) => [i.Sku, i.QuantityShipped, i.QuantityCancelled]);

/** ShopifyOrderProgress queries the fake received for order n. */
const followUps = (fake: ShopifyFake, n: number) =>
  fake.calls.filter((c) => c.operationName === "ShopifyOrderProgress" && c.variables.id === orderGid(n)).length;

/** ShopifyOrders pages since the `from`-th call whose search window holds order n's updatedAt now: each imported it again. */
function pagesHolding(fake: ShopifyFake, n: number, from: number): number {
  const at = Date.parse(fake.order(n).updatedAt as string);
  return fake.calls.slice(from).filter((c) => {
    if (c.operationName !== "ShopifyOrders") return false;
    const m = /updated_at:>='([^']+)' updated_at:<'([^']+)'/.exec(String(c.variables.query));
    return m !== null && Date.parse(m[1]!) <= at && at < Date.parse(m[2]!);
  }).length;
}

async function shopifySource(fake: ShopifyFake) {
  vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
  const { storeId, token } = await storeWithToken({ scopes: SCOPES });
  const sourceId = await createSource(storeId, {
    Type: "shopify",
    Name: "Shopify admin",
    Settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN },
  });
  // The file's database outlives the test: its cycles must not call the next test's fake.
  onTestFinished(async () => {
    const res = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Enabled: false });
    expect(res.status, res.text).toBe(200);
  });
  return token;
}

describe("the follow-up query is not read again for an order that did not change", () => {
  it("costs one read for an order fulfilled in Shopify's admin however often it is imported, and one more for each change", async () => {
    const start = Date.now();
    // The admin's changes are dated a few minutes before the cycles run (each 30 s after the last),
    // so each lies in the overlap of every later window and is imported again by each cycle.
    let adminAt = start - 6 * MINUTE;
    const fake = createShopifyFake({
      orders: [1, 2].map((n) => shopifyOrder({ n, createdAt: iso(start - 30 * MINUTE), updatedAt: iso(start - 30 * MINUTE + n * 1000) })),
      now: () => new Date(adminAt),
    });
    const token = await shopifySource(fake);
    await fireCron();
    const listed = await listOrders(token);
    const id = (n: number) => listed.find((o) => o.OrderSourceOrderNumber === String(5000000000 + n))!.OrderId;
    const cycles = async (n: number) => {
      for (let i = 0; i < n; i++) await fireCron();
    };
    let from = 0;
    const change = (what: () => void) => {
      adminAt += 30_000;
      what();
      from = fake.calls.length;
    };

    // One mug of order 1 fulfilled in the admin, then four cycles import the order again: one read.
    change(() => fake.fulfilInAdmin(1, [{ line: 0, quantity: 1 }], { number: "794600000001", company: "FedEx" }));
    await cycles(4);
    expect([pagesHolding(fake, 1, from), followUps(fake, 1)]).toEqual([4, 1]);
    expect(counts(await read(token, id(1)))).toEqual([
      ["MUG-BLUE", 1, 0],
      ["TEE-L", 0, 0],
    ]);

    // A note changed in the admin: the order comes back (its updatedAt moved), no unit moved: no read.
    change(() => fake.touch(1, (o) => (o.note = "Leave at the door")));
    await cycles(2);
    expect([pagesHolding(fake, 1, from), followUps(fake, 1)]).toEqual([2, 1]);

    // A second package: exactly one read more, and the package is on the order.
    change(() => fake.fulfilInAdmin(1, [{ line: 1, quantity: 1 }], { number: "794600000002", company: "FedEx" }));
    await cycles(3);
    expect([pagesHolding(fake, 1, from), followUps(fake, 1)]).toEqual([3, 2]);
    let one = await read(token, id(1));
    expect(one.Shipments.map((s) => s.ShipmentTrackingNumber)).toEqual(["794600000001", "794600000002"]);
    expect(counts(one)).toEqual([
      ["MUG-BLUE", 1, 0],
      ["TEE-L", 1, 0],
    ]);

    // The mug still to ship refunded before shipping: one read more, the refund and the cancelled unit imported.
    let refund = "";
    change(() => (refund = fake.refundInAdmin(1, [{ line: 0, quantity: 1, restockType: "CANCEL" }])));
    await cycles(3);
    expect([pagesHolding(fake, 1, from), followUps(fake, 1)]).toEqual([3, 3]);
    one = await read(token, id(1));
    expect(one.Refunds.map((r) => [r.SourceRefundId, r.Total])).toEqual([[refund, 13.5]]);
    expect(counts(one)).toEqual([
      ["MUG-BLUE", 1, 1],
      ["TEE-L", 1, 0],
    ]);

    // Money refunded alone (no line moves, the order stays PARTIALLY_REFUNDED): one read more, imported.
    let goodwill = "";
    change(() => (goodwill = fake.refundInAdmin(1, [], "4.00", "Goodwill")));
    await cycles(3);
    expect([pagesHolding(fake, 1, from), followUps(fake, 1)]).toEqual([3, 4]);
    one = await read(token, id(1));
    expect(one.Refunds.map((r) => [r.SourceRefundId, r.Reason, r.ShippingAmount])).toEqual([
      [refund, "", 0],
      [goodwill, "Goodwill", 4],
    ]);

    // Order 2, untouched in the admin, never needed the follow-up.
    expect(followUps(fake, 2)).toBe(0);
    expect(fake.calls.filter((c) => c.throttled)).toEqual([]);
    expect(fake.violations).toEqual([]);
  });

  it("forgets the oldest order of a full memory key first, reads it again when it comes back, and not a newer one", async () => {
    // 65 orders whose ids share one of the memory's 16 keys (64 orders a key, 1,024 in all).
    const key = memoryKeyOf(PROGRESS_MEMORY, orderGid(1));
    const numbers: number[] = [];
    for (let n = 1; numbers.length < 65; n++) if (memoryKeyOf(PROGRESS_MEMORY, orderGid(n)) === key) numbers.push(n);
    const start = Date.now();
    let adminAt = start - 40 * MINUTE;
    const fake = createShopifyFake({
      orders: numbers.map((n) => shopifyOrder({ n, updatedAt: iso(adminAt) })),
      now: () => new Date(adminAt),
      // Shopify's bucket is not what this test is about.
      maximumAvailable: 1_000_000,
      restoreRate: 1_000_000,
    });
    // Each fulfilled in the admin half an hour before the cycles, a second apart, oldest first.
    for (const n of numbers) {
      adminAt += 1000;
      fake.fulfilInAdmin(n, [{ line: 0, quantity: 2 }]);
    }
    const token = await shopifySource(fake);
    await fireCron();
    expect((await listOrders(token)).length).toBe(65);
    expect(numbers.map((n) => followUps(fake, n))).toEqual(numbers.map(() => 1));

    // The oldest and the newest come back (a note changed in the admin), and nothing else does.
    const [oldest, newest] = [numbers[0]!, numbers[64]!];
    adminAt = start - 5 * MINUTE;
    const from = fake.calls.length;
    fake.touch(oldest, (o) => (o.note = "Gift"));
    fake.touch(newest, (o) => (o.note = "Gift"));
    await fireCron();
    expect([followUps(fake, oldest), followUps(fake, newest)]).toEqual([2, 1]);
    expect(numbers.slice(1).every((n) => followUps(fake, n) === 1)).toBe(true);
    // Read again, it is remembered again: the next cycle imports both once more without a read.
    await fireCron();
    expect([pagesHolding(fake, oldest, from), followUps(fake, oldest), followUps(fake, newest)]).toEqual([2, 2, 1]);
    expect(fake.violations).toEqual([]);
  });
});
