// Fulfilment by line (decisions 12) through /v1 UpdateStatus with Items: packages, line
// cancellations, what the order answers (QuantityShipped/QuantityCancelled, Shipments,
// FulfillmentStatus), the 400s that store nothing, the concurrency guard, the list and count
// filter, one outbox row per package or cancellation naming only its lines, stock given back once.
import { describe, expect, it } from "vitest";
import { call, insert, storeWithToken } from "../helpers/api";
import { insertSource, outboxOf } from "../helpers/db";
import { putStock, quantityOf } from "../stock/helpers";

interface Line {
  OrderItemId: string;
  Sku: string;
  Quantity: number;
  QuantityShipped: number;
  QuantityCancelled: number;
}
interface Order {
  OrderId: string;
  OrderStatus: string;
  FulfillmentStatus: string;
  DateUpdated: string;
  ShipmentTrackingNumber: string | null;
  OrderItems: Line[];
  Shipments: {
    ShipmentId: string;
    ShipmentTrackingNumber: string | null;
    DestinationShippingCarrier: string | null;
    Items: { OrderItemId: string; Quantity: number }[];
  }[];
}

/** An order of three lines (MUG 3, CAP 2, HAT 1) claimed by a marketplace source, so moves queue deliveries. */
async function threeLines() {
  const store = await storeWithToken();
  await insertSource(store.storeId, "Mall");
  await putStock(store.storeId, [
    { Sku: "MUG", Quantity: 10 },
    { Sku: "CAP", Quantity: 10 },
    { Sku: "HAT", Quantity: 10 },
  ]);
  const orderId = await insert(store.token, {
    OrderSource: "Mall",
    OrderItems: [
      { Sku: "MUG", Name: "Mug", Quantity: 3, UnitPrice: 5 },
      { Sku: "CAP", Name: "Cap", Quantity: 2, UnitPrice: 5 },
      { Sku: "HAT", Name: "Hat", Quantity: 1, UnitPrice: 5 },
    ],
  });
  const order = await read(store.token, orderId);
  const [mug, cap, hat] = order.OrderItems.map((i) => i.OrderItemId) as [string, string, string];
  return { ...store, orderId, mug, cap, hat };
}

async function read(token: string, id: string): Promise<Order> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text).Orders[0] as Order;
}

const update = (token: string, id: string, body: Record<string, unknown>) => call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body });
const units = (o: Order) => o.OrderItems.map((i) => [i.Sku, i.Quantity, i.QuantityShipped, i.QuantityCancelled]);
const payloads = async (id: string) => (await outboxOf(id)).map((r) => ({ kind: r.kind, ...JSON.parse(r.payload) }));

describe("UpdateStatus SHIPPED with Items", () => {
  it("ships exactly those units as one package; the rest ship later as a second; the order answers both", async () => {
    const { token, orderId, mug, cap, hat } = await threeLines();
    const first = await update(token, orderId, {
      OrderStatus: "SHIPPED",
      ShipmentTrackingNumber: "T-1",
      DestinationShippingCarrier: "UPS",
      Items: [
        { OrderItemId: mug, Quantity: 2 },
        { OrderItemId: cap, Quantity: 2 },
      ],
    });
    expect(first.status, first.text).toBe(200);
    let order = await read(token, orderId);
    expect(order.OrderStatus).toBe("New");
    expect(order.FulfillmentStatus).toBe("PartiallyShipped");
    expect(units(order)).toEqual([
      ["MUG", 3, 2, 0],
      ["CAP", 2, 2, 0],
      ["HAT", 1, 0, 0],
    ]);
    expect(order.Shipments).toHaveLength(1);
    expect(order.Shipments[0]).toMatchObject({
      ShipmentTrackingNumber: "T-1",
      DestinationShippingCarrier: "UPS",
      Items: [
        { OrderItemId: mug, Quantity: 2 },
        { OrderItemId: cap, Quantity: 2 },
      ],
    });
    expect(order.ShipmentTrackingNumber).toBe("T-1");

    // Without Items: every unit left, as one more package.
    expect((await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-2" })).status).toBe(200);
    order = await read(token, orderId);
    expect(order.OrderStatus).toBe("Shipped");
    expect(order.FulfillmentStatus).toBe("Shipped");
    expect(units(order)).toEqual([
      ["MUG", 3, 3, 0],
      ["CAP", 2, 2, 0],
      ["HAT", 1, 1, 0],
    ]);
    expect(order.Shipments.map((s) => s.ShipmentTrackingNumber)).toEqual(["T-1", "T-2"]);
    expect(order.Shipments[1]!.Items).toEqual([
      { OrderItemId: mug, Quantity: 1 },
      { OrderItemId: hat, Quantity: 1 },
    ]);
    // The seed's fields are the newest package's.
    expect(order.ShipmentTrackingNumber).toBe("T-2");

    // One outbox row per package, each naming only its lines and its package.
    const rows = await payloads(orderId);
    expect(rows.map((r) => [r.kind, r.trackingNumber, r.shipmentId, r.lines])).toEqual([
      [
        "ship",
        "T-1",
        Number(order.Shipments[0]!.ShipmentId),
        [
          [Number(mug), 2],
          [Number(cap), 2],
        ],
      ],
      [
        "ship",
        "T-2",
        Number(order.Shipments[1]!.ShipmentId),
        [
          [Number(mug), 1],
          [Number(hat), 1],
        ],
      ],
    ]);
  });

  it("a repeated identical call records and queues nothing; a named ShipmentId corrects that package only", async () => {
    const { token, orderId, mug, cap } = await threeLines();
    const body = { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1", Items: [{ OrderItemId: mug, Quantity: 1 }] };
    expect((await update(token, orderId, body)).status).toBe(200);
    const before = await read(token, orderId);
    expect((await update(token, orderId, body)).status).toBe(200);
    const after = await read(token, orderId);
    expect(after).toEqual(before);
    expect(await outboxOf(orderId)).toHaveLength(1);

    expect((await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-2", Items: [{ OrderItemId: cap, Quantity: 1 }] })).status).toBe(
      200,
    );
    const [p1, p2] = (await read(token, orderId)).Shipments;
    expect((await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentId: p1!.ShipmentId, ShipmentTrackingNumber: "T-1b" })).status).toBe(200);
    const corrected = await read(token, orderId);
    expect(corrected.Shipments.map((s) => s.ShipmentTrackingNumber)).toEqual(["T-1b", "T-2"]);
    expect(corrected.ShipmentTrackingNumber).toBe("T-2");
    expect(units(corrected)).toEqual([
      ["MUG", 3, 1, 0],
      ["CAP", 2, 1, 0],
      ["HAT", 1, 0, 0],
    ]);
    const rows = await payloads(orderId);
    // The correction replaced the first package's undelivered row (only the latest matters to the
    // marketplace) and left the second package's alone.
    expect(rows.map((r) => [r.trackingNumber, r.shipmentId, r.lines])).toEqual([
      ["T-2", Number(p2!.ShipmentId), [[Number(cap), 1]]],
      ["T-1b", Number(p1!.ShipmentId), [[Number(mug), 1]]],
    ]);
    const unknown = await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentId: "999999", ShipmentTrackingNumber: "X" });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("ShipmentId");
  });

  it("two clients shipping the last unit at once: one package is made, the other gets 400", async () => {
    const { token, orderId, hat } = await threeLines();
    const body = (t: string) => ({ OrderStatus: "SHIPPED", ShipmentTrackingNumber: t, Items: [{ OrderItemId: hat, Quantity: 1 }] });
    const answers = await Promise.all([update(token, orderId, body("A")), update(token, orderId, body("B"))]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const order = await read(token, orderId);
    expect(order.Shipments).toHaveLength(1);
    expect(units(order)).toEqual([
      ["MUG", 3, 0, 0],
      ["CAP", 2, 0, 0],
      ["HAT", 1, 1, 0],
    ]);
    expect(await outboxOf(orderId)).toHaveLength(1);
  });
});

describe("UpdateStatus CANCELED with Items", () => {
  it("cancels exactly those units, gives their stock back once, and the order becomes Canceled only when every unit is", async () => {
    const { storeId, token, orderId, mug, cap, hat } = await threeLines();
    expect(await quantityOf(storeId, "MUG")).toBe(7);
    const body = { OrderStatus: "CANCELED", Items: [{ OrderItemId: mug, Quantity: 2 }] };
    expect((await update(token, orderId, body)).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(9);
    // The same call again: nothing new, stock included.
    expect((await update(token, orderId, body)).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(9);
    let order = await read(token, orderId);
    expect(order.OrderStatus).toBe("New");
    expect(order.FulfillmentStatus).toBe("Unshipped");
    expect(units(order)).toEqual([
      ["MUG", 3, 0, 2],
      ["CAP", 2, 0, 0],
      ["HAT", 1, 0, 0],
    ]);

    // Ship what is left of two lines, then cancel the rest without Items: every unit not shipped.
    expect(
      (
        await update(token, orderId, {
          OrderStatus: "SHIPPED",
          Items: [
            { OrderItemId: mug, Quantity: 1 },
            { OrderItemId: cap, Quantity: 2 },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    order = await read(token, orderId);
    expect(units(order)).toEqual([
      ["MUG", 3, 1, 2],
      ["CAP", 2, 2, 0],
      ["HAT", 1, 0, 1],
    ]);
    // Something shipped and nothing left: Shipped.
    expect(order.OrderStatus).toBe("Shipped");
    expect(order.FulfillmentStatus).toBe("Shipped");
    expect([await quantityOf(storeId, "MUG"), await quantityOf(storeId, "CAP"), await quantityOf(storeId, "HAT")]).toEqual([9, 8, 10]);
    const rows = await payloads(orderId);
    expect(rows.map((r) => [r.kind, r.lines])).toEqual([
      ["cancel", [[Number(mug), 2]]],
      [
        "ship",
        [
          [Number(mug), 1],
          [Number(cap), 2],
        ],
      ],
      ["cancel", [[Number(hat), 1]]],
    ]);
  });

  it("a whole-order cancellation of an untouched order is the seed's: Canceled, one row without lines", async () => {
    const { storeId, token, orderId } = await threeLines();
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    const order = await read(token, orderId);
    expect([order.OrderStatus, order.FulfillmentStatus]).toEqual(["Canceled", "Canceled"]);
    expect(units(order)).toEqual([
      ["MUG", 3, 0, 3],
      ["CAP", 2, 0, 2],
      ["HAT", 1, 0, 1],
    ]);
    const rows = await payloads(orderId);
    expect(rows).toEqual([{ kind: "cancel", reason: "Canceled by seller" }]);
    expect(await quantityOf(storeId, "MUG")).toBe(10);
  });
});

describe("bad Items: 400 naming the field or the OrderItemId, nothing stored", () => {
  it("refuses every kind of bad entry", async () => {
    const { token, orderId, mug, cap } = await threeLines();
    const other = await insert(token, { OrderSource: "Mall" });
    const otherItem = (await read(token, other)).OrderItems[0]!.OrderItemId;
    const before = await read(token, orderId);
    const ship = (Items: unknown) => update(token, orderId, { OrderStatus: "SHIPPED", Items });
    const cases: [string, Promise<{ status: number; text: string }>, string][] = [
      ["zero", ship([{ OrderItemId: mug, Quantity: 0 }]), "Quantity"],
      ["negative", ship([{ OrderItemId: mug, Quantity: -1 }]), "Quantity"],
      ["fractional", ship([{ OrderItemId: mug, Quantity: 1.5 }]), "Quantity"],
      ["string quantity", ship([{ OrderItemId: mug, Quantity: "1" }]), "Quantity"],
      [
        "duplicate",
        ship([
          { OrderItemId: mug, Quantity: 1 },
          { OrderItemId: mug, Quantity: 1 },
        ]),
        mug,
      ],
      ["over what is left", ship([{ OrderItemId: cap, Quantity: 3 }]), cap],
      ["another order's line", ship([{ OrderItemId: otherItem, Quantity: 1 }]), otherItem],
      ["not an id", ship([{ OrderItemId: "<script>", Quantity: 1 }]), "OrderItemId"],
      ["not a list", ship({ OrderItemId: mug, Quantity: 1 }), "Items"],
      ["empty list", ship([]), "Items"],
      ["over 500 entries", ship(Array.from({ length: 501 }, (_, i) => ({ OrderItemId: String(i + 1), Quantity: 1 }))), "Items"],
      ["cancel over what is left", update(token, orderId, { OrderStatus: "CANCELED", Items: [{ OrderItemId: mug, Quantity: 4 }] }), mug],
      [
        "Items on AcknowledgeOrder",
        call("PUT", `/v1/${token}/Orders/${orderId}/AcknowledgeOrder?orderDestinationOrderNumber=S-1`, {
          body: { Items: [{ OrderItemId: mug, Quantity: 1 }] },
        }),
        "Items",
      ],
    ];
    for (const [name, answer, named] of cases) {
      const res = await answer;
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.text, name).toContain(named);
    }
    expect(await read(token, orderId)).toEqual(before);
    expect(await outboxOf(orderId)).toHaveLength(0);
  });

  it("Items on a whole-order correction (nothing left to ship) is 400 and stores nothing", async () => {
    const { token, orderId, mug } = await threeLines();
    expect((await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1" })).status).toBe(200);
    const before = await read(token, orderId);
    const res = await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-9", Items: [{ OrderItemId: mug, Quantity: 1 }] });
    expect(res.status).toBe(400);
    expect(res.text).toContain(mug);
    expect(await read(token, orderId)).toEqual(before);
    expect(await outboxOf(orderId)).toHaveLength(1);
  });
});

describe("fulfillmentStatus= on lists and counts", () => {
  it("filters by each of the four values, in any case", async () => {
    const { token } = await storeWithToken();
    const a = await insert(token, { OrderItems: [{ Sku: "A", Name: "A", Quantity: 2, UnitPrice: 1 }] });
    const b = await insert(token, { OrderItems: [{ Sku: "A", Name: "A", Quantity: 2, UnitPrice: 1 }] });
    const c = await insert(token, { OrderItems: [{ Sku: "A", Name: "A", Quantity: 2, UnitPrice: 1 }] });
    const d = await insert(token);
    const item = async (id: string) => (await read(token, id)).OrderItems[0]!.OrderItemId;
    expect((await update(token, a, { OrderStatus: "SHIPPED", Items: [{ OrderItemId: await item(a), Quantity: 1 }] })).status).toBe(200);
    expect((await update(token, b, { OrderStatus: "SHIPPED" })).status).toBe(200);
    expect((await update(token, c, { OrderStatus: "CANCELED" })).status).toBe(200);
    const range = "page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01";
    for (const [filter, expected] of [
      ["partiallyshipped", [a]],
      ["SHIPPED", [b]],
      ["Canceled", [c]],
      ["unshipped", [d]],
    ] as const) {
      const listed = await call("GET", `/v1/${token}/Orders?${range}&fulfillmentStatus=${filter}`);
      expect(listed.status, listed.text).toBe(200);
      expect((JSON.parse(listed.text).Orders as Order[]).map((o) => o.OrderId)).toEqual(expected);
      const counted = await call("GET", `/v1/${token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01&fulfillmentStatus=${filter}`);
      expect(JSON.parse(counted.text).Count).toBe(1);
    }
    const bad = await call("GET", `/v1/${token}/Orders?${range}&fulfillmentStatus=Lost`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("fulfillmentStatus");
  });
});
