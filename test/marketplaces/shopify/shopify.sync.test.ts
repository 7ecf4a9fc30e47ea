// The Shopify connector inside whole cycles fired through the Cron Trigger: the cycle's fetch is
// the global one, replaced here by the fake Shopify of test/marketplaces/shopify (no network), so this is what
// the cron does in production, from import to fulfilment, tracking correction and cancellation.
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, storeWithToken } from "../../helpers/api";
import { everywhere } from "../../helpers/shards";
import { createSource, deliveries, fireCron, listOrders, MINUTE, type WireOrder } from "../../helpers/sync";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN } from "./shopify-fake";
import { shopifyOrder, type Json } from "./shopify-fixtures";
import { badDaySuite } from "../../helpers/bad-day";

afterEach(() => {
  vi.restoreAllMocks();
});

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
/** The deliveries answer with the outcome's reference (the fulfillment or job GID). */
const outcomes = async (storeId: string, sourceId: string) =>
  (await deliveries(storeId, sourceId)) as (Awaited<ReturnType<typeof deliveries>>[number] & { Reference: string | null })[];
const byNumber = (orders: WireOrder[], n: number) => orders.find((o) => o.OrderSourceOrderNumber === String(5000000000 + n))!;

describe("a Shopify source in cycles of the Cron Trigger", () => {
  it("imports, sets aside, ships an order, corrects its tracking and cancels another through a job", async () => {
    const t0 = Date.now() - 30 * MINUTE;
    const noSku = shopifyOrder({
      n: 5,
      updatedAt: iso(t0 + 5 * MINUTE),
      lines: [{ sku: null, name: "Custom engraving", quantity: 1, price: "15.00" }],
    });
    const orders = [1, 2, 3, 4].map((n) => shopifyOrder({ n, createdAt: iso(t0), updatedAt: iso(t0 + n * MINUTE) }));
    const fake = createShopifyFake({ orders: [...orders, noSku] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "shopify",
      Name: "My Shopify",
      Settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN },
    });

    // Cycle 1: the import.
    await fireCron();
    let listed = await listOrders(token);
    expect(listed.map((o) => o.OrderSourceOrderNumber).sort()).toEqual(["5000000001", "5000000002", "5000000003", "5000000004"]);
    expect(byNumber(listed, 1)).toMatchObject({
      OrderSource: "My Shopify",
      OrderSourceCustomerOrderNumber: "#1001",
      OrderStatus: "New",
      SourceOrderStatus: "UNFULFILLED",
      SyncStatus: "Enabled",
      DateCreatedInOrderSource: iso(t0).replace("Z", ".000Z"),
      BuyerEmailAddress: "buyer1@example.com",
      FirstName: "Ada",
      LastName: "Lovelace",
      City: "London",
      StateOrProvince: "ENG",
      Country: "GB",
      ShippingMethod: "Standard",
      SubTotal: 42.5,
      ShippingTotal: 5,
      ShippingTaxTotal: 1,
      GrandTotal: 57,
    });
    expect(byNumber(listed, 1).OrderItems).toMatchObject([
      { Sku: "MUG-BLUE", Quantity: 2, UnitPrice: 12.5, SaleTaxCost: 4.5, Discount: "2.50" },
      { Sku: "TEE-L", Quantity: 1, UnitPrice: 20, SaleTaxCost: 4, Discount: "0.00" },
    ]);
    const aside = await everywhere<{ n: string; reason: string }>(
      "select order_source_order_number as n, reason from set_aside_orders where source_id = ?",
      sourceId,
    );
    expect(aside).toEqual([{ n: "5000000005", reason: "order #1005 line 1 (Custom engraving) has no SKU" }]);

    // Cycle 2: an acknowledgement (Shopify has none), a shipment, a cancellation.
    const [one, two, three] = [byNumber(listed, 1), byNumber(listed, 2), byNumber(listed, 3)];
    expect((await call("PUT", `/v1/${token}/Orders/${one.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-1`)).status).toBe(200);
    const ship = (order: WireOrder, tracking: string, carrier: string) =>
      call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
        body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: tracking, DateShipped: "2026-03-01T12:00:00Z", DestinationShippingCarrier: carrier },
      });
    expect((await ship(two, "1Z999AA10123456784", "UPS")).status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/${three.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    await fireCron();

    let rows = await outcomes(storeId, sourceId);
    expect(rows.map((d) => [d.Kind, d.Status])).toEqual([
      ["acknowledge", "notApplicable"],
      ["ship", "delivered"],
      ["cancel", "submitted"],
    ]);
    expect(rows[1]!.Reference).toBe("gid://shopify/Fulfillment/900001");
    expect(rows[2]!.Reference).toMatch(/^gid:\/\/shopify\/Job\//);
    const create = fake.callsOf("fulfillmentCreate");
    expect(create).toHaveLength(1);
    expect(create[0]!.variables.fulfillment).toEqual({
      lineItemsByFulfillmentOrder: [
        {
          fulfillmentOrderId: "gid://shopify/FulfillmentOrder/21",
          fulfillmentOrderLineItems: [
            { id: "gid://shopify/FulfillmentOrderLineItem/201", quantity: 2 },
            { id: "gid://shopify/FulfillmentOrderLineItem/202", quantity: 1 },
          ],
        },
      ],
      notifyCustomer: false,
      trackingInfo: { number: "1Z999AA10123456784", company: "UPS" },
    });
    expect(fake.callsOf("orderCancel")[0]!.variables).toMatchObject({
      orderId: "gid://shopify/Order/5000000003",
      restock: false,
      staffNote: "Canceled by seller",
    });
    expect(fake.pendingJobs()).toBe(1);

    // Cycle 3: a corrected tracking number; Shopify's cancellation job has run meanwhile.
    expect((await ship(two, "794698765432", "FedEx")).status).toBe(200);
    fake.completeJobs();
    await fireCron();

    rows = await outcomes(storeId, sourceId);
    expect(rows.map((d) => [d.Kind, d.Status, d.Reference])).toEqual([
      ["acknowledge", "notApplicable", null],
      ["ship", "delivered", "gid://shopify/Fulfillment/900001"],
      ["cancel", "delivered", rows[2]!.Reference],
      ["ship", "delivered", "gid://shopify/Fulfillment/900001"],
    ]);
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(1);
    expect(fake.callsOf("fulfillmentTrackingInfoUpdate").map((c) => c.variables)).toEqual([
      { fulfillmentId: "gid://shopify/Fulfillment/900001", trackingInfoInput: { number: "794698765432", company: "FedEx" }, notifyCustomer: false },
    ]);
    expect((fake.order(2).fulfillments as Json[])[0]!.trackingInfo).toEqual([{ number: "794698765432", company: "FedEx", url: null }]);

    // What Shopify changed came back with the import: fulfilled, cancelled.
    listed = await listOrders(token);
    expect([1, 2, 3, 4].map((n) => byNumber(listed, n).SourceOrderStatus)).toEqual(["UNFULFILLED", "FULFILLED", "CANCELLED", "UNFULFILLED"]);
    expect(listed.every((o) => o.SyncUserErrorMessage === null)).toBe(true);
    expect(fake.calls.filter((c) => c.throttled)).toEqual([]);
    expect(fake.violations).toEqual([]);
  });
});

describe("a Shopify source on a bad day", () => {
  badDaySuite({
    type: "shopify",
    settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN },
    hosts: [SHOPIFY_FAKE_SHOP],
    fake: (now) => createShopifyFake({ now, orders: [1, 2].map((n) => shopifyOrder({ n, updatedAt: iso(Date.now() - 30 * MINUTE + n * MINUTE) })) }),
    orderList: { operation: "ShopifyOrders" },
    token: null,
    pausedBy: { operation: "ShopifyOrders" },
  });
});
