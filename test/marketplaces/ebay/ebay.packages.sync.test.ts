// eBay's packages read back through whole cycles fired by the Cron Trigger (the Worker's scheduled
// handler), against the fake eBay of this folder (every call checked against eBay's Fulfillment
// API description). A package the seller made in Seller Hub reaches the order a client reads over
// GET /v1/{token}/Orders/{id} as a Shipment with its tracking, and nothing goes back to eBay; the
// hub's own package goes out once, costs no read, and is not taken for a second one when eBay
// lists it beside a later Seller Hub package.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WireOrder } from "../../../src/orders/orders.wire";
import { call, storeWithToken } from "../../helpers/api";
import { createSource, deliveries, fireCron, listOrders } from "../../helpers/sync";
import { createEbayFake, EBAY_FAKE_CLIENT_ID, EBAY_FAKE_CLIENT_SECRET, EBAY_FAKE_REFRESH_TOKEN } from "./ebay-fake";
import { orderIdOf, sampleOrder } from "./ebay-orders";

afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
const MUGS = "10000000411";
const PLATE = "10000000412";

async function read(token: string, id: string): Promise<WireOrder> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { Orders: WireOrder[] }).Orders[0]!;
}

describe("eBay packages through the cron", () => {
  it("shows a package made in Seller Hub on the order with its tracking, sends nothing back, and keeps the hub's own package single", async () => {
    let ahead = 0;
    const created = new Date(Date.now() - 60 * MINUTE);
    const fake = createEbayFake({
      now: () => new Date(Date.now() + ahead),
      orders: [
        sampleOrder({
          orderId: orderIdOf(41),
          created,
          modified: new Date(created.getTime() + MINUTE),
          lines: [
            { lineItemId: MUGS, sku: "MUG-RED", quantity: 3, unitPrice: "12.50" },
            { lineItemId: PLATE, sku: "PLATE-BLUE", quantity: 1, unitPrice: "7.25" },
          ],
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
    const opsOf = (op: string) => fake.requestsOf("fulfillment").filter((r) => r.operationId === op);

    // Cycle 1: the order comes in, nothing shipped, no package read.
    await fireCron();
    const [imported] = await listOrders(token);
    const orderId = imported!.OrderId;
    const item = Object.fromEntries(imported!.OrderItems.map((i) => [i.Sku, i.OrderItemId]));
    expect(opsOf("getShippingFulfillments")).toHaveLength(0);

    // The seller ships a mug in Seller Hub, with a USPS tracking number.
    ahead = 2 * MINUTE;
    const fulfillmentId = fake.shipInSellerHub(orderIdOf(41), {
      lineItems: [{ lineItemId: MUGS, quantity: 1 }],
      trackingNumber: "9400111899223197428490",
      shippingCarrierCode: "USPS",
      shippedDate: "2026-03-01T09:15:00.000Z",
    });

    // Cycle 2: the order changed and names a fulfillment the hub did not make: one read.
    ahead = 5 * MINUTE;
    await fireCron(Date.now() + ahead);
    expect(opsOf("getShippingFulfillments").map((r) => r.path)).toEqual([`/sell/fulfillment/v1/order/${orderIdOf(41)}/shipping_fulfillment`]);
    const partly = await read(token, orderId);
    expect(partly.FulfillmentStatus).toBe("PartiallyShipped");
    expect(partly.OrderItems.map((i) => [i.Sku, i.Quantity, i.QuantityShipped, i.QuantityCancelled])).toEqual([
      ["MUG-RED", 3, 1, 0],
      ["PLATE-BLUE", 1, 0, 0],
    ]);
    expect(partly.Shipments).toHaveLength(1);
    expect(partly.Shipments[0]).toMatchObject({
      ShipmentTrackingNumber: "9400111899223197428490",
      DestinationShippingCarrier: "USPS",
      DateShipped: "2026-03-01T09:15:00.000Z",
      Items: [{ OrderItemId: item["MUG-RED"], Quantity: 1 }],
    });
    expect(partly.ShipmentTrackingNumber).toBe("9400111899223197428490");
    // Nothing goes back to eBay: no delivery, no fulfillment made by the hub.
    expect(await deliveries(storeId, sourceId)).toEqual([]);
    expect(opsOf("createShippingFulfillment")).toHaveLength(0);
    expect(fake.fulfillments.get(orderIdOf(41))!.map((f) => f.fulfillmentId)).toEqual([fulfillmentId]);

    // The client ships a mug and the plate as one package; cycle 3 delivers it once, and reads no
    // package: eBay's order names the Seller Hub fulfillment already read and the hub's own.
    const shipped = await call("PUT", `/v1/${token}/Orders/${orderId}/UpdateStatus`, {
      body: {
        OrderStatus: "Shipped",
        ShipmentTrackingNumber: "1Z999AA10123456784",
        DestinationShippingCarrier: "UPS",
        Items: [
          { OrderItemId: item["MUG-RED"], Quantity: 1 },
          { OrderItemId: item["PLATE-BLUE"], Quantity: 1 },
        ],
      },
    });
    expect(shipped.status, shipped.text).toBe(200);
    ahead = 10 * MINUTE;
    await fireCron(Date.now() + ahead);
    expect((await deliveries(storeId, sourceId)).map((d) => [d.Kind, d.Status, d.Reference])).toEqual([["ship", "delivered", "1Z999AA10123456784"]]);
    expect(opsOf("createShippingFulfillment").map((r) => r.body)).toEqual([
      {
        lineItems: [
          { lineItemId: MUGS, quantity: 1 },
          { lineItemId: PLATE, quantity: 1 },
        ],
        shippedDate: expect.any(String),
        shippingCarrierCode: "UPS",
        trackingNumber: "1Z999AA10123456784",
      },
    ]);

    expect(opsOf("getShippingFulfillments")).toHaveLength(1);

    // The seller ships the last mug in Seller Hub. Cycle 4 reads the order's packages once more:
    // eBay lists all three, the hub's own is recognised and not added twice; the order is shipped.
    ahead = 12 * MINUTE;
    fake.shipInSellerHub(orderIdOf(41), {
      lineItems: [{ lineItemId: MUGS, quantity: 1 }],
      trackingNumber: "9400111899223197428491",
      shippingCarrierCode: "USPS",
      shippedDate: "2026-03-01T11:40:00.000Z",
    });
    ahead = 15 * MINUTE;
    await fireCron(Date.now() + ahead);
    expect(opsOf("getShippingFulfillments")).toHaveLength(2);
    const done = await read(token, orderId);
    expect(done.OrderStatus).toBe("Shipped");
    expect(done.FulfillmentStatus).toBe("Shipped");
    expect(done.Shipments.map((s) => [s.ShipmentTrackingNumber, s.DestinationShippingCarrier, s.Items.map((i) => [i.OrderItemId, i.Quantity])])).toEqual([
      ["9400111899223197428490", "USPS", [[item["MUG-RED"], 1]]],
      [
        "1Z999AA10123456784",
        "UPS",
        [
          [item["MUG-RED"], 1],
          [item["PLATE-BLUE"], 1],
        ],
      ],
      ["9400111899223197428491", "USPS", [[item["MUG-RED"], 1]]],
    ]);
    expect(done.OrderItems.map((i) => [i.Sku, i.QuantityShipped])).toEqual([
      ["MUG-RED", 3],
      ["PLATE-BLUE", 1],
    ]);
    expect(opsOf("createShippingFulfillment")).toHaveLength(1);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Kind)).toEqual(["ship"]);
    expect(fake.violations).toEqual([]);
  });
});
