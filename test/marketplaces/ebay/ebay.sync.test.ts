// An eBay source through whole cycles fired by the Cron Trigger (the Worker's scheduled handler):
// the cycles' fetch is the global one, replaced here by the fake eBay of test/marketplaces/ebay, which checks
// every request against eBay's description. No network.
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../../helpers/api";
import { everywhere } from "../../helpers/shards";
import { createSource, cycleAt, deliveries, fireCron, listOrders } from "../../helpers/sync";
import { createEbayFake, EBAY_FAKE_CLIENT_ID, EBAY_FAKE_CLIENT_SECRET, EBAY_FAKE_REFRESH_TOKEN } from "./ebay-fake";
import { orderIdOf, sampleOrder } from "./ebay-orders";
import { badDaySuite } from "../../helpers/bad-day";

afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;

describe("an eBay source in sync cycles fired by the cron", () => {
  it("imports eBay's orders, sets aside the one it cannot map, and delivers a shipment, a corrected shipment and a cancellation", async () => {
    // The fake's clock runs `ahead` of the machine's, so a later cycle can be "minutes later".
    let ahead = 0;
    const start = Date.now();
    const created = new Date(start - 60 * MINUTE);
    const fake = createEbayFake({
      now: () => new Date(Date.now() + ahead),
      orders: [
        sampleOrder({
          orderId: orderIdOf(1),
          created,
          modified: new Date(created.getTime() + MINUTE),
          salesRecordReference: "2001",
          lines: [
            { lineItemId: "10000000011", sku: "MUG-RED", title: "Red mug", quantity: 2, unitPrice: "12.50", tax: "2.00", shipping: "4.00" },
            { lineItemId: "10000000012", sku: "PLATE-BLUE", title: "Blue plate", quantity: 1, unitPrice: "7.25" },
          ],
        }),
        sampleOrder({
          orderId: orderIdOf(2),
          created,
          modified: new Date(created.getTime() + 2 * MINUTE),
          lines: [{ lineItemId: "10000000021", sku: "CUP", quantity: 1, unitPrice: "3.00" }],
        }),
        // In-store pickup: nothing to ship, so nothing the service can hold as an Order.
        sampleOrder({
          orderId: orderIdOf(3),
          created,
          modified: new Date(created.getTime() + 3 * MINUTE),
          shipTo: null,
          lines: [{ lineItemId: "10000000031", sku: "BOWL", quantity: 1, unitPrice: "5.00" }],
        }),
      ],
    });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "ebay",
      Name: "eBay US",
      Settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" },
    });

    // Cycle 1: import.
    await fireCron(start);
    const imported = await listOrders(token);
    expect(imported.map((o) => o.OrderSourceOrderNumber).sort()).toEqual([orderIdOf(1), orderIdOf(2)]);
    const first = imported.find((o) => o.OrderSourceOrderNumber === orderIdOf(1))!;
    expect(first).toMatchObject({
      OrderSource: "eBay US",
      OrderSourceCustomerOrderNumber: "2001",
      OrderStatus: "New",
      SourceOrderStatus: "NOT_STARTED",
      SyncStatus: "Enabled",
      ShippingMethod: "USPSPriority",
      BuyerUserId: "buyer_one",
    });
    expect(first.OrderItems.map((i) => [i.Sku, i.Quantity])).toEqual([
      ["MUG-RED", 2],
      ["PLATE-BLUE", 1],
    ]);
    const [getOrders] = fake.requestsOf("fulfillment");
    // The window ends settleMs (2 minutes) before the cycle and reaches back the first 7 days.
    expect(getOrders!.rawQuery).toBe(
      `?filter=lastmodifieddate:%5B${new Date(start - 2 * MINUTE - 7 * 24 * 60 * MINUTE).toISOString()}..` +
        `${new Date(start - 2 * MINUTE).toISOString()}%5D&limit=200&offset=0`,
    );
    const aside = await everywhere("select order_source_order_number as number, reason from set_aside_orders where source_id = ?", sourceId);
    expect(aside).toEqual([
      { number: orderIdOf(3), reason: `eBay order ${orderIdOf(3)}: it has no shippingStep.shipTo (fulfillment SHIP_TO): nothing for the seller to ship` },
    ]);

    // The seller acknowledges and ships order 1, and cancels order 2.
    const second = imported.find((o) => o.OrderSourceOrderNumber === orderIdOf(2))!;
    expect((await call("PUT", `/v1/${token}/Orders/${first.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=SO-1`)).status).toBe(200);
    const shipped = await call("PUT", `/v1/${token}/Orders/${first.OrderId}/UpdateStatus`, {
      body: {
        OrderStatus: "Shipped",
        ShipmentTrackingNumber: "1Z 999 AA1 0123456784",
        DestinationShippingCarrier: "UPS Ground",
        DateShipped: new Date(start).toISOString(),
      },
    });
    expect(shipped.status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/${second.OrderId}/UpdateStatus`, { body: { OrderStatus: "Canceled" } })).status).toBe(200);

    // Cycle 2: deliver.
    await fireCron(Date.now());
    const rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => [d.OrderId, d.Kind, d.Status, d.Reference])).toEqual([
      [first.OrderId, "acknowledge", "notApplicable", null],
      [first.OrderId, "ship", "delivered", "1Z999AA10123456784"],
      [second.OrderId, "cancel", "delivered", "5000000001"],
    ]);
    const post = fake.requestsOf("fulfillment").find((r) => r.operationId === "createShippingFulfillment")!;
    expect(post.body).toEqual({
      lineItems: [
        { lineItemId: "10000000011", quantity: 2 },
        { lineItemId: "10000000012", quantity: 1 },
      ],
      shippedDate: new Date(start).toISOString(),
      shippingCarrierCode: "UPS",
      trackingNumber: "1Z999AA10123456784",
    });
    expect(fake.requestsOf("postOrder").map((r) => r.body)).toEqual([
      { legacyOrderId: orderIdOf(2) },
      {
        legacyOrderId: orderIdOf(2),
        cancelReason: "OUT_OF_STOCK_OR_CANNOT_FULFILL",
        buyerPaid: true,
        buyerPaidDate: { value: new Date(created.getTime() + MINUTE).toISOString() },
      },
    ]);

    // A corrected tracking number: eBay keeps the first, the delivery says so.
    const corrected = await call("PUT", `/v1/${token}/Orders/${first.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "Shipped", ShipmentTrackingNumber: "1Z999AA10123456799" },
    });
    expect(corrected.status).toBe(200);
    await fireCron(Date.now());
    const third = (await deliveries(storeId, sourceId)).at(-1)!;
    expect([third.Kind, third.Status, third.Reference, third.Warning]).toEqual([
      "ship",
      "delivered",
      "1Z999AA10123456799",
      "every line was already shipped on eBay: the corrected tracking number was added beside the earlier one, which eBay keeps",
    ]);
    expect(fake.fulfillments.get(orderIdOf(1))!.map((f) => [f.shipmentTrackingNumber, f.shippingCarrierCode])).toEqual([
      ["1Z999AA10123456784", "UPS"],
      ["1Z999AA10123456799", "UPS"],
    ]);

    // Minutes later the next import sees what eBay made of it.
    ahead = 5 * MINUTE;
    await fireCron(Date.now() + ahead);
    const after = await listOrders(token);
    expect(Object.fromEntries(after.map((o) => [o.OrderSourceOrderNumber, o.SourceOrderStatus]))).toEqual({
      [orderIdOf(1)]: "FULFILLED",
      [orderIdOf(2)]: "CANCELED",
    });
    expect(fake.tokens).toHaveLength(1);
    expect(fake.violations).toEqual([]);
    const source = await admin("GET", `/stores/${storeId}/sources/${sourceId}`);
    expect((source.json.Source as { Status: { LastError: string | null } }).Status.LastError ?? null).toBeNull();
  });

  // Cycles of this source only (what the cron dispatches to it): the other test's source stays enabled.
  it("keeps a shipment eBay cannot take pending while eBay is down, and delivers it once eBay is back", async () => {
    let ahead = 0;
    const created = new Date(Date.now() - 60 * MINUTE);
    const fake = createEbayFake({
      now: () => new Date(Date.now() + ahead),
      orders: [
        sampleOrder({
          orderId: orderIdOf(9),
          created,
          modified: new Date(created.getTime() + MINUTE),
          lines: [{ lineItemId: "10000000091", quantity: 1, unitPrice: "3.00" }],
        }),
      ],
    });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "ebay",
      Name: "eBay GB",
      Settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_GB" },
    });
    await cycleAt(sourceId, Date.now());
    const [order] = await listOrders(token);
    expect(
      (
        await call("PUT", `/v1/${token}/Orders/${order!.OrderId}/UpdateStatus`, {
          body: { OrderStatus: "Shipped", ShipmentTrackingNumber: "RM123456785GB", DestinationShippingCarrier: "Royal Mail" },
        })
      ).status,
    ).toBe(200);

    // getOrders and getOrder both answer 500 with eBay's system error.
    fake.failNext({ target: "fulfillment", status: 500 });
    fake.failNext({ target: "fulfillment", status: 500 });
    await cycleAt(sourceId, Date.now());
    const [pending] = await deliveries(storeId, sourceId);
    expect([pending!.Status, pending!.Attempts, pending!.LastError]).toEqual(["pending", 1, "eBay 500 on getOrder: 30500 System error"]);
    expect(fake.fulfillments.size).toBe(0);

    // After the backoff eBay is back: the shipment goes out, once.
    ahead = 6 * MINUTE;
    await cycleAt(sourceId, Date.now() + ahead);
    const [done] = await deliveries(storeId, sourceId);
    expect([done!.Status, done!.Reference]).toEqual(["delivered", "RM123456785GB"]);
    expect(fake.fulfillments.get(orderIdOf(9))!.map((f) => f.shippingCarrierCode)).toEqual(["RoyalMail"]);
    expect(fake.violations).toEqual([]);
  });
});

describe("an eBay source on a bad day", () => {
  badDaySuite({
    type: "ebay",
    settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" },
    hosts: ["api.ebay.com"],
    fake(now) {
      const created = new Date(Date.now() - 60 * MINUTE);
      return createEbayFake({
        now,
        orders: [1, 2].map((n) =>
          sampleOrder({
            orderId: orderIdOf(n),
            created,
            modified: new Date(created.getTime() + n * MINUTE),
            lines: [{ lineItemId: `1000000000${n}`, sku: `SKU-${n}`, quantity: 1, unitPrice: "3.00" }],
          }),
        ),
      });
    },
    orderList: { target: "fulfillment" },
    token: { target: "token" },
    pausedBy: { target: "token" },
  });
});
