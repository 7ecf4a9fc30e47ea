// eBay's packages read back at import (decisions 12), called on the connector against the fake
// eBay, which checks every getShippingFulfillments call against eBay's Fulfillment API
// description and makes fulfilments of its own (Seller Hub's): an order's packages are read only
// when a line is fulfilled or in progress and the order names a fulfillment the connector neither
// made nor read for a page written in an earlier window; the calls each getOrders page adds are counted (at most 50, the page cut before the order
// that would need one more); a throttled read fails the page, a refused or nonsense one imports
// the order without packages.
import { describe, expect, it } from "vitest";
import type { ImportedOrder, OrderPage, ShipDelivery } from "../../../src/marketplaces/connector";
import { createEbayConnector } from "../../../src/marketplaces/ebay/ebay.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { rejection } from "../../helpers/rejection";
import { deliveryOrder, importAll } from "../fake-kit/connector-calls";
import { createEbayFake, EBAY_FAKE_CLIENT_ID, EBAY_FAKE_CLIENT_SECRET, EBAY_FAKE_REFRESH_TOKEN, type EbayFake } from "./ebay-fake";
import { orderIdOf, sampleOrder } from "./ebay-orders";

const START = Date.parse("2026-03-01T12:00:00.000Z");
const CREATED = Date.parse("2026-02-28T02:00:00.000Z");
const SHIPPED = "2026-03-01T09:15:00.000Z";
const lineOf = (n: number, k: number) => String(10_000_000_000 + n * 10 + k);

/** `count` orders of two lines each (line 1: three units, line 2: one), made a second apart. */
function setup(count: number) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const orders = Array.from({ length: count }, (_, i) =>
    sampleOrder({
      orderId: orderIdOf(i + 1),
      created: new Date(CREATED + i * 1000),
      modified: new Date(CREATED + i * 1000 + 60_000),
      lines: [
        { lineItemId: lineOf(i + 1, 1), quantity: 3, unitPrice: "5.00" },
        { lineItemId: lineOf(i + 1, 2), quantity: 1, unitPrice: "9.00" },
      ],
    }),
  );
  const fake = createEbayFake({ now, orders });
  const connector = createEbayConnector(
    {
      sourceId: "source-1",
      settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" },
      fetch: fake.fetch,
      now,
    },
    memoryStorage(),
  );
  /** The window the core would import after the clock moved on by `minutes`. */
  const later = (minutes: number) => {
    clock.ms += minutes * 60_000;
    return { since: new Date("2026-02-28T00:00:00.000Z"), until: new Date(clock.ms - 2 * 60_000) };
  };
  return { fake, connector, later };
}

const byNumber = (pages: OrderPage[]) => new Map(pages.flatMap((p) => p.orders).map((o) => [o.sourceOrderNumber, o]));
const reads = (fake: EbayFake) => fake.requestsOf("fulfillment").filter((r) => r.operationId === "getShippingFulfillments");
const pageCalls = (fake: EbayFake) => fake.requestsOf("fulfillment").filter((r) => r.operationId === "getOrders");

/** A Seller Hub fulfilment of order n: two units of line 1 under a USPS number. */
const sellerHub = (fake: EbayFake, n: number, tracking = `9400111899223197${String(428_490 + n)}`) =>
  fake.shipInSellerHub(orderIdOf(n), {
    lineItems: [{ lineItemId: lineOf(n, 1), quantity: 2 }],
    trackingNumber: tracking,
    shippingCarrierCode: "USPS",
    shippedDate: SHIPPED,
  });

let nextId = 1;
function shipThroughHub(order: ImportedOrder, tracking: string): ShipDelivery {
  const id = nextId++;
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    order: deliveryOrder(order),
    earlier: [],
    kind: "ship",
    shipment: {
      shipmentId: `shp_${id}`,
      trackingNumber: tracking,
      carrier: "UPS",
      shippingMethod: null,
      shippedAt: new Date("2026-03-01T10:30:00.000Z"),
      lines: [{ sourceLineId: order.items[1]!.sourceLineId, quantity: 1 }],
    },
  };
}

describe("eBay packages read back", () => {
  it("reads the packages of an order fulfilled in Seller Hub with one call, and none of an order not shipped", async () => {
    const { fake, connector, later } = setup(2);
    const fulfillmentId = sellerHub(fake, 1);
    const window = later(10);
    const pages = await importAll(connector, window);
    const orders = byNumber(pages);
    expect(orders.get(orderIdOf(1))!.shipments).toEqual([
      {
        sourceShipmentId: fulfillmentId,
        trackingNumber: "9400111899223197428491",
        carrier: "USPS",
        shippingMethod: null,
        shippedAt: new Date(SHIPPED),
        lines: [{ sourceLineId: lineOf(1, 1), quantity: 2 }],
      },
    ]);
    // Line 1 is IN_PROGRESS: its count is the package's (the hub counts it); line 2 NOT_STARTED.
    expect(orders.get(orderIdOf(1))!.items.map((i) => i.quantityShipped)).toEqual([undefined, 0]);
    expect(orders.get(orderIdOf(2))!.shipments).toBeUndefined();
    expect(reads(fake).map((r) => r.path)).toEqual([`/sell/fulfillment/v1/order/${orderIdOf(1)}/shipping_fulfillment`]);

    // The same window read again (its page not written, say): read again. A later window that
    // sees the order unchanged (the windows' overlap), or changed without a new fulfillment: not.
    await importAll(connector, window);
    expect(reads(fake)).toHaveLength(2);
    await importAll(connector, later(10));
    fake.touch(orderIdOf(1), (o) => (o.salesRecordReference = "2041"));
    const touched = byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!;
    expect(touched.sourceCustomerOrderNumber).toBe("2041");
    expect(touched.shipments).toBeUndefined();
    expect(reads(fake)).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });

  it("reads the packages again in a later window when the page that read them was not written", async () => {
    const { fake, connector, later } = setup(1);
    sellerHub(fake, 1);
    // The page is read, but its write fails: the import never calls `written`.
    const unwritten = await connector.fetchOrders(later(10), null);
    expect(unwritten.orders[0]!.shipments).toHaveLength(1);
    const again = byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!;
    expect(again.shipments).toHaveLength(1);
    expect(reads(fake)).toHaveLength(2);
    expect(byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!.shipments).toBeUndefined();
    expect(reads(fake)).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });

  it("reads the packages again when the page was written but the order's packages could not be applied", async () => {
    const { fake, connector, later } = setup(1);
    sellerHub(fake, 1);
    // The page is written, but the order's line report lost its races: the engine names it unapplied.
    const page = await connector.fetchOrders(later(10), null);
    expect(page.orders[0]!.shipments).toHaveLength(1);
    page.written?.(new Set([orderIdOf(1)]));
    expect(byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!.shipments).toHaveLength(1);
    expect(reads(fake)).toHaveLength(2);
    expect(byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!.shipments).toBeUndefined();
    expect(reads(fake)).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });

  it("reads nothing for an order only the connector shipped, and both packages once Seller Hub adds one", async () => {
    const { fake, connector, later } = setup(1);
    const [first] = (await importAll(connector, later(10)))[0]!.orders;
    const outcome = await connector.ship(shipThroughHub(first!, "1Z0000000000000001"));
    expect(outcome).toMatchObject({ state: "delivered", reference: "1Z0000000000000001" });

    // eBay changed the order (its line 2 FULFILLED): imported again, no package read.
    const again = byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!;
    expect(again.items.map((i) => i.quantityShipped)).toEqual([0, 1]);
    expect(again.shipments).toBeUndefined();
    expect(reads(fake)).toHaveLength(0);

    // The seller ships two units of line 1 in Seller Hub: one read, both packages reported.
    sellerHub(fake, 1, "9400111899223197428400");
    const both = byNumber(await importAll(connector, later(10))).get(orderIdOf(1))!;
    expect(both.shipments!.map((s) => [s.sourceShipmentId, s.carrier, s.lines])).toEqual([
      ["1Z0000000000000001", "UPS", [{ sourceLineId: lineOf(1, 2), quantity: 1 }]],
      ["9400111899223197428400", "USPS", [{ sourceLineId: lineOf(1, 1), quantity: 2 }]],
    ]);
    expect(reads(fake)).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("adds one call per order a page needs read: 30 for a page of 200 with 30 fulfilled in Seller Hub and 20 through the connector", async () => {
    const { fake, connector, later } = setup(200);
    const [page] = await importAll(connector, later(10));
    const imported = byNumber([page!]);
    for (let n = 1; n <= 20; n++) await connector.ship(shipThroughHub(imported.get(orderIdOf(n))!, `1Z00000000000001${String(n).padStart(2, "0")}`));
    for (let n = 21; n <= 50; n++) sellerHub(fake, n);
    const readsBefore = reads(fake).length;
    const pagesBefore = pageCalls(fake).length;

    const pages = await importAll(connector, later(10));
    expect(pages.map((p) => p.orders.length)).toEqual([200]);
    expect(pageCalls(fake).length - pagesBefore).toBe(1);
    expect(reads(fake).length - readsBefore).toBe(30);
    const withPackages = pages[0]!.orders.filter((o) => o.shipments !== undefined).map((o) => o.sourceOrderNumber);
    expect(withPackages).toEqual(Array.from({ length: 30 }, (_, i) => orderIdOf(21 + i)));
    expect(fake.violations).toEqual([]);
  });

  it("reads at most 50 a page: 120 orders to read among 200 end pages at the 51st, each order imported once", async () => {
    const { fake, connector, later } = setup(200);
    for (let n = 1; n <= 120; n++) sellerHub(fake, n);
    const pages = await importAll(connector, later(10));
    expect(pages.map((p) => p.orders.length)).toEqual([50, 50, 100]);
    expect(pages.map((p) => p.orders.filter((o) => o.shipments?.length === 1).length)).toEqual([50, 50, 20]);
    expect(pages.map((p) => p.nextCursor)).toEqual(["50/200", "100/200", null]);
    expect(pageCalls(fake).map((r) => r.query.offset)).toEqual(["0", "50", "100"]);
    expect(reads(fake)).toHaveLength(120);
    const numbers = pages.flatMap((p) => p.orders.map((o) => o.sourceOrderNumber));
    expect(new Set(numbers).size).toBe(200);
    expect(numbers).toHaveLength(200);
    expect(fake.violations).toEqual([]);
  });
});

describe("eBay packages on a bad day", () => {
  it("a throttled or failing read fails the page for a later cycle; a refused or nonsense one imports the order without packages", async () => {
    const { fake, connector, later } = setup(2);
    sellerHub(fake, 1);
    const window = later(10);

    fake.failNext({ target: "fulfillment", operation: "getShippingFulfillments", status: 429, headers: { "Retry-After": "120" } });
    const throttled = await rejection(connector.fetchOrders(window, null));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 120_000]);
    fake.failNext({ target: "fulfillment", operation: "getShippingFulfillments", status: 503 });
    expect((await rejection(connector.fetchOrders(window, null))).retryable).toBe(true);

    fake.failNext({ target: "fulfillment", operation: "getShippingFulfillments", status: 400 });
    const refused = byNumber([await connector.fetchOrders(window, null)]);
    expect([...refused.keys()]).toEqual([orderIdOf(1), orderIdOf(2)]);
    expect(refused.get(orderIdOf(1))!.shipments).toBeUndefined();

    fake.failNext({ target: "fulfillment", operation: "getShippingFulfillments", status: 200, body: { fulfillments: "none", total: 1 } });
    expect(byNumber([await connector.fetchOrders(window, null)]).get(orderIdOf(1))!.shipments).toBeUndefined();

    // A fulfillment naming a line the order does not have is left out; the others still count.
    fake.failNext({
      target: "fulfillment",
      operation: "getShippingFulfillments",
      status: 200,
      body: {
        total: 2,
        fulfillments: [
          { fulfillmentId: "A1", lineItems: [{ lineItemId: "99999999999", quantity: 1 }] },
          { fulfillmentId: "B2", lineItems: [{ lineItemId: lineOf(1, 2) }], shippedDate: "not a date" },
        ],
      },
    });
    expect(byNumber([await connector.fetchOrders(window, null)]).get(orderIdOf(1))!.shipments).toEqual([
      {
        sourceShipmentId: "B2",
        trackingNumber: null,
        carrier: null,
        shippingMethod: null,
        shippedAt: null,
        lines: [{ sourceLineId: lineOf(1, 2), quantity: 1 }],
      },
    ]);

    // eBay is itself again.
    expect(byNumber([await connector.fetchOrders(window, null)]).get(orderIdOf(1))!.shipments).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });
});
