// When the Shopify connector reads an order's follow-up (ShopifyOrderProgress) again, called
// directly against the fake Shopify with one clock for both (no sync core): a read is remembered
// only once its page is written (a page whose write failed is read in full again in a later
// window), only for an order whose lines the write applied, and only for an order the page imports (one set aside is read each time it comes back);
// for an order Shopify shows refunded, its `updatedAt` dates what the read saw only when the read
// came a minute or more after it, so a refund of money stamped in the same second as the read is
// still read and imported.
import { describe, expect, it } from "vitest";
import type { ImportWindow } from "../../../src/marketplaces/connector";
import { createShopifyConnector } from "../../../src/marketplaces/shopify/shopify.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { importAll } from "../fake-kit/connector-calls";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN, type ShopifyFake } from "./shopify-fake";
import { orderGid, shopifyOrder, type Json } from "./shopify-fixtures";

const START = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;

function setup(orders: Json[]) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createShopifyFake({ orders, now });
  const connector = createShopifyConnector(
    { sourceId: "source-1", settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN }, fetch: fake.fetch, now },
    memoryStorage(),
    { sleep: async (ms) => void (clock.ms += ms) },
  );
  /** The window a cycle at the clock's time imports: the last hour, ending a second later (Shopify's bounds round outwards). */
  const window = (): ImportWindow => ({ since: new Date(clock.ms - 60 * MINUTE), until: new Date(clock.ms + 1) });
  return { fake, connector, clock, window };
}

const followUps = (fake: ShopifyFake, n: number) =>
  fake.calls.filter((c) => c.operationName === "ShopifyOrderProgress" && c.variables.id === orderGid(n)).length;
const order = (pages: Awaited<ReturnType<typeof importAll>>, n: number) =>
  pages.flatMap((p) => p.orders).find((o) => o.sourceOrderNumber === String(5000000000 + n));

describe("when Shopify's follow-up query is read again", () => {
  it("reads again in a later window an order whose page was not written, and not once it was", async () => {
    const { fake, connector, clock, window } = setup([shopifyOrder({ n: 1, updatedAt: "2026-03-01T11:00:00Z" })]);
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 2 }], { number: "1Z0000000000000001", company: "UPS" });
    clock.ms += 5 * MINUTE;
    // The page is read, but its write fails: the import never calls `written`.
    const unwritten = await connector.fetchOrders(window(), null);
    expect(unwritten.orders[0]!.shipments).toHaveLength(1);
    expect(followUps(fake, 1)).toBe(1);
    clock.ms += MINUTE;
    const again = await importAll(connector, window());
    expect(order(again, 1)!.shipments!.map((s) => s.trackingNumber)).toEqual(["1Z0000000000000001"]);
    expect(followUps(fake, 1)).toBe(2);
    clock.ms += MINUTE;
    const later = await importAll(connector, window());
    expect(order(later, 1)).not.toHaveProperty("shipments");
    expect(followUps(fake, 1)).toBe(2);
    expect(fake.violations).toEqual([]);
  });

  it("reads again an order the page's write could not apply (other requests kept changing it), and not once it applied", async () => {
    const { fake, connector, clock, window } = setup([shopifyOrder({ n: 1, updatedAt: "2026-03-01T11:00:00Z" })]);
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 2 }], { number: "1Z0000000000000001", company: "UPS" });
    clock.ms += 5 * MINUTE;
    // The page is written, but the order's line report lost its races: the engine names it unapplied.
    const page = await connector.fetchOrders(window(), null);
    expect(page.orders[0]!.shipments).toHaveLength(1);
    page.written?.(new Set([page.orders[0]!.sourceOrderNumber]));
    clock.ms += MINUTE;
    expect(order(await importAll(connector, window()), 1)!.shipments!.map((s) => s.trackingNumber)).toEqual(["1Z0000000000000001"]);
    expect(followUps(fake, 1)).toBe(2);
    clock.ms += MINUTE;
    expect(order(await importAll(connector, window()), 1)).not.toHaveProperty("shipments");
    expect(followUps(fake, 1)).toBe(2);
    expect(fake.violations).toEqual([]);
  });

  it("reads an order set aside each time it comes back, and remembers it once it is imported", async () => {
    const noSku = shopifyOrder({ n: 1, updatedAt: "2026-03-01T11:00:00Z", lines: [{ sku: null, name: "Engraving", quantity: 1, price: "15.00" }] });
    const { fake, connector, clock, window } = setup([noSku]);
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 1 }]);
    clock.ms += 5 * MINUTE;
    for (let i = 0; i < 2; i++) {
      const pages = await importAll(connector, window());
      expect(pages.flatMap((p) => p.setAside).map((s) => s.reason)).toEqual(["order #1001 line 1 (Engraving) has no SKU"]);
      clock.ms += MINUTE;
    }
    expect(followUps(fake, 1)).toBe(2);
    // The merchant gives the line a SKU (no unit moves): imported with its package, then remembered.
    fake.touch(1, (o) => ((o.lineItems as Json[])[0]!.sku = "ENGRAVE"));
    clock.ms += 5 * MINUTE;
    expect(order(await importAll(connector, window()), 1)!.shipments).toHaveLength(1);
    clock.ms += MINUTE;
    expect(order(await importAll(connector, window()), 1)).not.toHaveProperty("shipments");
    expect(followUps(fake, 1)).toBe(3);
    expect(fake.violations).toEqual([]);
  });

  it("reads a refunded order again when its read came within a minute of its updatedAt, and imports a refund stamped in that second", async () => {
    const { fake, connector, clock, window } = setup([shopifyOrder({ n: 1, updatedAt: "2026-03-01T11:00:00Z" })]);
    // A unit refunded in the admin at 12:00:00; the import reads the order 200 ms later.
    const first = fake.refundInAdmin(1, [{ line: 1, quantity: 1, restockType: "CANCEL" }]);
    clock.ms += 200;
    expect(order(await importAll(connector, window()), 1)!.refunds!.map((r) => r.sourceRefundId)).toEqual([first]);
    // In the same second, money refunded alone: the order's updatedAt and every figure of the page stay as they were.
    const stamp = fake.order(1).updatedAt;
    clock.ms += 300;
    const goodwill = fake.refundInAdmin(1, [], "4.00", "Goodwill");
    expect(fake.order(1).updatedAt).toBe(stamp);
    clock.ms += 2 * MINUTE;
    const next = order(await importAll(connector, window()), 1)!;
    expect(next.refunds!.map((r) => [r.sourceRefundId, r.shippingAmount])).toEqual([
      [first, 0],
      [goodwill, 4],
    ]);
    expect(followUps(fake, 1)).toBe(2);
    // That read came two minutes after the stamp: the next import trusts it.
    clock.ms += MINUTE;
    expect(order(await importAll(connector, window()), 1)).not.toHaveProperty("refunds");
    expect(followUps(fake, 1)).toBe(2);
    expect(fake.violations).toEqual([]);
  });
});
