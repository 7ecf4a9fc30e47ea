// What the merchant does to an order's lines in Shopify's own admin reaches the hub through whole
// cycles fired by the Cron Trigger, with the fake Shopify of this folder in place of the global
// fetch: units fulfilled there (a package with its tracking), units cancelled there (refunded
// before shipping) and refunds made there (a returned unit with shipping) are read back by line
// and answered by GET /v1/{token}/Orders/{id} (QuantityShipped, QuantityCancelled, Shipments,
// Refunds), and nothing is sent back to Shopify. The hub's own package and refund come back as
// the same package and refund, not twice; an order Shopify's admin did not touch costs no
// follow-up query.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WireRefund } from "../../../src/refunds/refunds.wire";
import { ALL_SCOPES, call, storeWithToken } from "../../helpers/api";
import { createSource, deliveries, fireCron, listOrders, MINUTE, type WireOrder } from "../../helpers/sync";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN } from "./shopify-fake";
import { shopifyOrder } from "./shopify-fixtures";

afterEach(() => {
  vi.restoreAllMocks();
});

const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

interface Item {
  OrderItemId: string;
  Sku: string;
  QuantityShipped: number;
  QuantityCancelled: number;
}
interface Package {
  ShipmentId: string;
  ShipmentTrackingNumber: string | null;
  DestinationShippingCarrier: string | null;
  Items: { OrderItemId: string; Quantity: number }[];
}
type Order = WireOrder & { Shipments: Package[]; Refunds: WireRefund[]; RefundTotal: number; FulfillmentStatus: string };

async function read(token: string, id: string): Promise<Order> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text).Orders as Order[])[0]!;
}
const counts = (order: Order) => (order.OrderItems as unknown as Item[]).map((i) => [i.Sku, i.QuantityShipped, i.QuantityCancelled]);

describe("a Shopify source reads back what the merchant did in Shopify's admin", () => {
  it("imports fulfilments, line cancellations and refunds made in Shopify by line, recognises the hub's own, and sends nothing back", async () => {
    const t0 = Date.now() - 30 * MINUTE;
    // Each order: MUG-BLUE x2 at 12.50 less 2.50 (tax 4.50), TEE-L x1 at 20.00 (tax 4.00), 5.00 shipping.
    const fake = createShopifyFake({ orders: [1, 2, 3, 4].map((n) => shopifyOrder({ n, createdAt: iso(t0), updatedAt: iso(t0 + n * MINUTE) })) });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken({ scopes: SCOPES });
    const sourceId = await createSource(storeId, {
      Type: "shopify",
      Name: "Shopify admin",
      Settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN },
    });

    await fireCron();
    const listed = await listOrders(token);
    const id = (n: number) => listed.find((o) => o.OrderSourceOrderNumber === String(5000000000 + n))!.OrderId;
    const lineIds = async (n: number) => ((await read(token, id(n))).OrderItems as unknown as Item[]).map((i) => i.OrderItemId) as [string, string];
    const [mug1, tee1] = await lineIds(1);
    const [mug2] = await lineIds(2);
    const [mug3, tee3] = await lineIds(3);
    expect(counts(await read(token, id(1)))).toEqual([
      ["MUG-BLUE", 0, 0],
      ["TEE-L", 0, 0],
    ]);
    // Nothing was touched in Shopify yet: no order needed the follow-up.
    expect(fake.calls.filter((c) => c.operationName === "ShopifyOrderProgress")).toEqual([]);

    // The hub ships order 3 itself and refunds one of its mugs.
    const shipped = await call("PUT", `/v1/${token}/Orders/${id(3)}/UpdateStatus`, {
      body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z999AA10000000003", DestinationShippingCarrier: "UPS" },
    });
    expect(shipped.status, shipped.text).toBe(200);
    const hubRefund = await call("PUT", `/v1/${token}/Orders/${id(3)}/Refund`, { body: { Items: [{ OrderItemId: mug3, Quantity: 1 }], Reason: "Chipped" } });
    expect(hubRefund.status, hubRefund.text).toBe(200);

    // Meanwhile in Shopify's admin: order 1 gets one mug fulfilled with tracking, and its T-shirt
    // cancelled (refunded and restocked before shipping); order 2 is fulfilled whole, then one mug
    // comes back and is refunded with the shipping.
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 1 }], { number: "794600000001", company: "FedEx" });
    const r1 = fake.refundInAdmin(1, [{ line: 1, quantity: 1, restockType: "CANCEL" }]);
    fake.fulfilInAdmin(
      2,
      [
        { line: 0, quantity: 2 },
        { line: 1, quantity: 1 },
      ],
      { number: "1Z999AA10000000002", company: "UPS" },
    );
    const r2 = fake.refundInAdmin(2, [{ line: 0, quantity: 1, restockType: "RETURN" }], "5.00", "Damaged in transit");

    await fireCron();
    await fireCron();

    // Order 1: one mug shipped in Shopify's package, the T-shirt cancelled, its refund imported.
    const one = await read(token, id(1));
    expect(counts(one)).toEqual([
      ["MUG-BLUE", 1, 0],
      ["TEE-L", 0, 1],
    ]);
    expect(one.Shipments.map((s) => [s.ShipmentTrackingNumber, s.DestinationShippingCarrier, s.Items])).toEqual([
      ["794600000001", "FedEx", [{ OrderItemId: mug1, Quantity: 1 }]],
    ]);
    expect(one.Refunds).toHaveLength(1);
    expect(one.Refunds[0]).toMatchObject({
      Origin: "Marketplace",
      Status: "Refunded",
      SourceRefundId: r1,
      Items: [{ OrderItemId: tee1, Quantity: 1, Amount: 24 }],
      ShippingAmount: 0,
      Total: 24,
      Currency: "USD",
    });
    expect(one.RefundTotal).toBe(24);
    expect([one.OrderStatus, one.FulfillmentStatus]).toEqual(["New", "PartiallyShipped"]);

    // Order 2: shipped whole; the returned mug is refunded, not cancelled.
    const two = await read(token, id(2));
    expect(counts(two)).toEqual([
      ["MUG-BLUE", 2, 0],
      ["TEE-L", 1, 0],
    ]);
    expect(two.Shipments.map((s) => [s.ShipmentTrackingNumber, s.DestinationShippingCarrier, s.Items.map((i) => i.Quantity)])).toEqual([
      ["1Z999AA10000000002", "UPS", [2, 1]],
    ]);
    expect(two.Refunds.map((r) => [r.Origin, r.SourceRefundId, r.Reason, r.Items, r.ShippingAmount, r.Total])).toEqual([
      ["Marketplace", r2, "Damaged in transit", [{ OrderItemId: mug2, Quantity: 1, Amount: 13.5 }], 5, 18.5],
    ]);
    expect([two.OrderStatus, two.FulfillmentStatus, two.SourceOrderStatus]).toEqual(["Shipped", "Shipped", "FULFILLED"]);

    // Order 3: the hub's own package and refund, read back from Shopify, are not recorded twice,
    // and the refunded mug (shipped) is not a cancellation.
    const three = await read(token, id(3));
    expect(counts(three)).toEqual([
      ["MUG-BLUE", 2, 0],
      ["TEE-L", 1, 0],
    ]);
    expect(three.Shipments.map((s) => [s.ShipmentTrackingNumber, s.Items])).toEqual([
      [
        "1Z999AA10000000003",
        [
          { OrderItemId: mug3, Quantity: 2 },
          { OrderItemId: tee3, Quantity: 1 },
        ],
      ],
    ]);
    expect(three.Refunds.map((r) => [r.Origin, r.Status, r.SourceRefundId, r.Items])).toEqual([
      ["Hub", "Refunded", fake.refunds[0]!.refundId, [{ OrderItemId: mug3, Quantity: 1, Amount: 13.5 }]],
    ]);

    // Nothing went back to Shopify for what its admin did: the only mutations sent are the hub's
    // own package and refund of order 3.
    const mutations = () => fake.calls.filter((c) => /^\s*mutation\b/.test(c.query)).map((c) => c.operationName);
    expect(mutations()).toEqual(["ShopifyFulfillmentCreate", "ShopifyRefundCreate"]);
    expect(fake.callsOf("fulfillmentCreate").map((c) => c.variables.fulfillment)).toMatchObject([{ trackingInfo: { number: "1Z999AA10000000003" } }]);
    expect(fake.refunds.map((r) => r.input.orderId)).toEqual(["gid://shopify/Order/5000000003"]);
    expect((await deliveries(storeId, sourceId)).map((d) => [d.OrderId, d.Kind, d.Status])).toEqual([
      [id(3), "ship", "delivered"],
      [id(3), "refund", "delivered"],
    ]);
    // Only the orders Shopify shows touched were read again (order 4, untouched, never), each
    // within one query's cost ceiling.
    const progress = fake.calls.filter((c) => c.operationName === "ShopifyOrderProgress");
    expect([...new Set(progress.map((c) => c.variables.id as string))].sort()).toEqual([
      "gid://shopify/Order/5000000001",
      "gid://shopify/Order/5000000002",
      "gid://shopify/Order/5000000003",
    ]);
    expect([...new Set(progress.map((c) => c.requestedCost))]).toEqual([581]);
    expect(progress.every((c) => c.actualCost! <= 30)).toBe(true);

    // Order 1 changes again in Shopify (a note): imported again, nothing is recorded twice.
    fake.touch(1);
    await fireCron();
    const again = await read(token, id(1));
    expect([counts(again), again.Shipments.length, again.Refunds.length]).toEqual([
      [
        ["MUG-BLUE", 1, 0],
        ["TEE-L", 0, 1],
      ],
      1,
      1,
    ]);
    expect(mutations()).toEqual(["ShopifyFulfillmentCreate", "ShopifyRefundCreate"]);
    expect(fake.calls.filter((c) => c.throttled)).toEqual([]);
    expect(fake.violations).toEqual([]);
  });
});
