// PUT /v1/{token}/Orders/InsertOrder (spec 4.7, decisions 3): what lands, duplicates, atomicity.
import { describe, expect, it } from "vitest";
import { insertOrder } from "../../src/orders/orders.writes";
import { insertOrderBody } from "../../src/orders/orders.schemas";
import { call, sampleOrder, storeWithToken } from "../helpers/api";
import { countRows } from "../helpers/db";
import { drizzleOf, storeD1, storeDrizzle } from "../helpers/shards";

function put(token: string, body: unknown) {
  return call("PUT", `/v1/${token}/Orders/InsertOrder`, { body });
}

async function getOrder(token: string, id: string) {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status).toBe(200);
  return (res.json.Orders as Record<string, unknown>[])[0]!;
}

/** D1 refuses a statement with more than 100 bound parameters in production (local D1 does not). */
const D1_MAX_BOUND_PARAMETERS = 100;

/** A D1 binding that records how many parameters each statement binds. */
function recordingDb(database: D1Database, seen: { sql: string; parameters: number }[]): D1Database {
  return new Proxy(database, {
    get(target, property) {
      if (property === "prepare") {
        return (query: string) => {
          const statement = target.prepare(query);
          return new Proxy(statement, {
            get(stmt, name) {
              if (name === "bind") {
                return (...values: unknown[]) => {
                  seen.push({ sql: query, parameters: values.length });
                  return stmt.bind(...values);
                };
              }
              const value = Reflect.get(stmt, name, stmt);
              return typeof value === "function" ? value.bind(stmt) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("InsertOrder", () => {
  it("answers the new OrderId and stores every field it was given", async () => {
    const { token } = await storeWithToken();
    const body = sampleOrder({
      OrderId: "",
      BuyerUserId: "buyer-77",
      OrderSource: "Shopfront",
      OrderSourceOrderNumber: "SF-1001",
      OrderSourceCustomerOrderNumber: "CUST-9",
      OrderDestinationOrderNumber: "ERP-55",
      DateCreatedInOrderSource: "2026-03-01T10:15:00Z",
      DateCreatedInDestination: "2026-03-01T11:00:00Z",
      DateShipped: "2026-03-03T08:00:00Z",
      ShipmentTrackingNumber: "1Z999",
      ShipToCompanyName: "Acme Ltd",
      Street2: "Suite 5",
      ShippingServiceName: "Ground",
      ShippingServiceValue: "GND",
      DestinationShippingCarrier: "UPS",
      PaymentType: "Card",
      PaymentTransactionId: "pay_123",
      SyncUserErrorMessage: null,
      IsMarketplacePrime: true,
      GrandTotal: 40.75,
      SubTotal: 33,
      ShippingTotal: 5,
      ShippingTaxTotal: 0.75,
      GiftWrapTotal: 1.5,
      GiftWrapTaxTotal: 0.5,
      OrderItems: [
        { OrderItemId: "", Sku: "MUG-1", Name: "Blue mug", Quantity: 2, UnitPrice: 12.5, SaleTaxCost: 1.2, Discount: "0.50" },
        { Sku: "TEA-2", Name: "Tea", Quantity: 1, UnitPrice: 8 },
      ],
    });
    const res = await put(token, body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ Success: true, Message: "", OrderId: expect.stringMatching(/^[1-9]\d*$/) });
    const order = await getOrder(token, res.json.OrderId as string);
    expect(order).toMatchObject({
      OrderId: res.json.OrderId,
      BuyerEmailAddress: body.BuyerEmailAddress,
      BuyerPhoneNumber: body.BuyerPhoneNumber,
      BuyerUserId: "buyer-77",
      OrderSource: "Shopfront",
      OrderSourceOrderNumber: "SF-1001",
      OrderSourceCustomerOrderNumber: "CUST-9",
      OrderDestinationOrderNumber: "ERP-55",
      OrderStatus: "New",
      DateCreatedInOrderSource: "2026-03-01T10:15:00.000Z",
      DateCreatedInDestination: "2026-03-01T11:00:00.000Z",
      DateShipped: "2026-03-03T08:00:00.000Z",
      ShipmentTrackingNumber: "1Z999",
      ShipToCompanyName: "Acme Ltd",
      FirstName: "Jane",
      LastName: "Doe",
      Street1: "1 Main St",
      Street2: "Suite 5",
      City: "Springfield",
      StateOrProvince: "IL",
      PostalCode: "62701",
      Country: "US",
      ShippingMethod: "Standard",
      ShippingServiceName: "Ground",
      ShippingServiceValue: "GND",
      DestinationShippingCarrier: "UPS",
      PaymentType: "Card",
      PaymentTransactionId: "pay_123",
      SyncUserErrorMessage: null,
      IsMarketplacePrime: true,
      GrandTotal: 40.75,
      SubTotal: 33,
      ShippingTotal: 5,
      ShippingTaxTotal: 0.75,
      GiftWrapTotal: 1.5,
      GiftWrapTaxTotal: 0.5,
    });
    expect(order.OrderItems).toEqual([
      // Decisions 12 adds each line's shipped and cancelled units.
      {
        OrderItemId: expect.stringMatching(/^\d+$/),
        Sku: "MUG-1",
        Name: "Blue mug",
        Quantity: 2,
        UnitPrice: 12.5,
        SaleTaxCost: 1.2,
        Discount: "0.50",
        QuantityShipped: 0,
        QuantityCancelled: 0,
      },
      {
        OrderItemId: expect.stringMatching(/^\d+$/),
        Sku: "TEA-2",
        Name: "Tea",
        Quantity: 1,
        UnitPrice: 8,
        SaleTaxCost: 0,
        Discount: "0",
        QuantityShipped: 0,
        QuantityCancelled: 0,
      },
    ]);
    expect(order).toMatchObject({ Shipments: [], FulfillmentStatus: "Unshipped" });
  });

  it("makes an order without OrderStatus New, and fills optional fields with their empty values", async () => {
    const { token } = await storeWithToken();
    const res = await put(token, sampleOrder());
    const order = await getOrder(token, res.json.OrderId as string);
    expect(order).toMatchObject({
      OrderStatus: "New",
      OrderDestinationOrderNumber: null,
      DateCreatedInDestination: null,
      DateShipped: null,
      Street2: "",
      ShippingTaxTotal: 0,
      GiftWrapTotal: 0,
      IsMarketplacePrime: false,
      PaymentTransactionId: null,
    });
  });

  it.each([
    ["NEW", "New"],
    ["processing", "Processing"],
    ["Shipped", "Shipped"],
    ["CANCELED", "Canceled"],
    ["Cancelled", "Canceled"],
  ])("respects OrderStatus %s (stored as %s)", async (given, stored) => {
    const { token } = await storeWithToken();
    const res = await put(token, sampleOrder({ OrderStatus: given }));
    expect(res.status).toBe(200);
    expect((await getOrder(token, res.json.OrderId as string)).OrderStatus).toBe(stored);
  });

  it("refuses a duplicate (OrderSource, OrderSourceOrderNumber) with 400 naming the existing OrderId, storing nothing", async () => {
    const { storeId, token } = await storeWithToken();
    const first = await put(token, sampleOrder({ OrderSource: "Web", OrderSourceOrderNumber: "W-1" }));
    expect(first.status).toBe(200);
    const itemsBefore = await countRows("order_items", storeId);
    const again = await put(
      token,
      sampleOrder({ OrderSource: "Web", OrderSourceOrderNumber: "W-1", FirstName: "Other", OrderItems: [{ Sku: "X", Name: "X", Quantity: 1, UnitPrice: 1 }] }),
    );
    expect(again.status).toBe(400);
    expect(again.json.Success).toBe(false);
    expect(again.json.Message).toContain(`OrderId ${first.json.OrderId}`);
    expect(again.json.OrderId).toBeUndefined();
    expect(await countRows("orders", storeId)).toBe(1);
    expect(await countRows("order_items", storeId)).toBe(itemsBefore);
    expect((await getOrder(token, first.json.OrderId as string)).FirstName).toBe("Jane");
    // Another OrderSource with the same number is another order.
    expect((await put(token, sampleOrder({ OrderSource: "Mall", OrderSourceOrderNumber: "W-1" }))).status).toBe(200);
  });

  it("trims the identifiers (OrderSource, OrderSourceOrderNumber, Sku), so a padded copy is the same order; other text stays verbatim", async () => {
    const { storeId, token } = await storeWithToken();
    const first = await put(
      token,
      sampleOrder({
        OrderSource: " Web ",
        OrderSourceOrderNumber: "\tW-7 ",
        FirstName: "  Jane ",
        OrderItems: [{ Sku: " SKU-1 ", Name: " Mug ", Quantity: 1, UnitPrice: 1 }],
      }),
    );
    expect(first.status).toBe(200);
    const stored = await getOrder(token, first.json.OrderId as string);
    expect(stored.OrderSource).toBe("Web");
    expect(stored.OrderSourceOrderNumber).toBe("W-7");
    expect(stored.FirstName).toBe("  Jane ");
    const items = stored.OrderItems as Record<string, unknown>[];
    expect(items[0]).toMatchObject({ Sku: "SKU-1", Name: " Mug " });
    const again = await put(token, sampleOrder({ OrderSource: "Web", OrderSourceOrderNumber: "W-7" }));
    expect(again.status).toBe(400);
    expect(again.json.Message).toContain(`OrderId ${first.json.OrderId}`);
    expect(await countRows("orders", storeId)).toBe(1);
  });

  it("lets exactly one of two concurrent inserts of the same order through", async () => {
    const { storeId, token } = await storeWithToken();
    const body = sampleOrder({ OrderSourceOrderNumber: "RACE-1" });
    const results = await Promise.all([put(token, body), put(token, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.status === 200)!;
    const loser = results.find((r) => r.status === 400)!;
    expect(loser.json.Message).toContain(`OrderId ${winner.json.OrderId}`);
    expect(await countRows("orders", storeId)).toBe(1);
    expect(await countRows("order_items", storeId)).toBe(1);
  });

  it("stores an order with 150 items whole, in order", async () => {
    const { storeId, token } = await storeWithToken();
    const items = Array.from({ length: 150 }, (_, i) => ({ Sku: `SKU-${i}`, Name: `Item ${i}`, Quantity: 1 + (i % 3), UnitPrice: i }));
    const res = await put(token, sampleOrder({ OrderItems: items }));
    expect(res.status).toBe(200);
    const order = await getOrder(token, res.json.OrderId as string);
    expect((order.OrderItems as { Sku: string }[]).map((i) => i.Sku)).toEqual(items.map((i) => i.Sku));
    expect(await countRows("order_items", storeId)).toBe(150);
  });

  it("binds at most 100 parameters per statement (D1's limit), even for the largest order", async () => {
    const { storeId } = await storeWithToken();
    const seen: { sql: string; parameters: number }[] = [];
    const db = drizzleOf(recordingDb(await storeD1(storeId), seen));
    const body = insertOrderBody.parse(
      sampleOrder({
        OrderItems: Array.from({ length: 500 }, (_, i) => ({
          Sku: `S${i}`,
          Name: "n".repeat(50),
          Quantity: 1,
          UnitPrice: 1,
          SaleTaxCost: 0.1,
          Discount: "0.5",
        })),
        Street2: "x",
        PaymentTransactionId: "p",
      }),
    );
    const result = await insertOrder(db, storeId, body, Date.now());
    expect(result.inserted).toBe(true);
    expect(seen.length).toBeGreaterThan(1);
    const widest = Math.max(...seen.map((s) => s.parameters));
    expect(widest).toBeLessThanOrEqual(D1_MAX_BOUND_PARAMETERS);
    expect(await countRows("order_items", storeId)).toBe(500);
  });

  it("leaves no half order when a statement of the batch fails", async () => {
    const { storeId } = await storeWithToken();
    const body = insertOrderBody.parse(
      sampleOrder({ OrderItems: Array.from({ length: 30 }, (_, i) => ({ Sku: `S${i}`, Name: "n", Quantity: 1, UnitPrice: 1 })) }),
    );
    // The last item breaks a NOT NULL constraint, so the last items statement of the batch fails.
    (body.OrderItems[29] as { Quantity: number | null }).Quantity = null;
    const itemsBefore = await countRows("order_items");
    await expect(insertOrder(await storeDrizzle(storeId), storeId, body, Date.now())).rejects.toThrow(/NOT NULL/);
    expect(await countRows("orders", storeId)).toBe(0);
    expect(await countRows("order_items")).toBe(itemsBefore);
  });
});
