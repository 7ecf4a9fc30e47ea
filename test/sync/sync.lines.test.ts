// Fulfilment by line with a marketplace, both ways (decisions 12), through the simulated
// connector: a package and a line cancellation of the hub's reach it naming only their lines;
// lines the marketplace ships or cancels of its own reach the order at the next import, without
// being sent back, giving cancelled stock back once however often the page is imported again.
import { describe, expect, it } from "vitest";
import { call, storeWithToken } from "../helpers/api";
import { outboxOf } from "../helpers/db";
import { createSource, cycleAt, listOrders, patchSource, received, simulatedWindow, type WireOrder } from "../helpers/sync";
import { putStock, quantityOf } from "../stock/helpers";

type LineOrder = WireOrder & {
  FulfillmentStatus: string;
  Shipments: { ShipmentId: string; ShipmentTrackingNumber: string | null; Items: { OrderItemId: string; Quantity: number }[] }[];
  OrderItems: (WireOrder["OrderItems"][number] & { OrderItemId: string; QuantityShipped: number; QuantityCancelled: number })[];
};

/** What the simulated marketplace sells (src/marketplaces/simulated/simulated.mapping.ts). */
const SIMULATED_SKUS = ["MUG-BLU-12", "TEE-BLK-M", "BTL-STL-750", "LMP-DSK-LED", "BAG-CNV-TOTE", "NTB-A5-DOT", "CBL-USBC-2M", "SCK-WOOL-L"];
const MORE_SKUS = ["CND-SOY-LAV", "PLN-CER-S", "HDP-BT-NC", "KTL-ELC-1L"];

/**
 * A simulated source's orders imported (six; twelve with `stock`, each Sku tracked with `stock`
 * units first); the first whose line 1 has at least 2 units (with `stock`: and a unit left once
 * one of them ships and one is cancelled, since the generated orders vary with the source's id).
 */
async function imported(stock?: number) {
  const { storeId, token } = await storeWithToken();
  if (stock !== undefined)
    await putStock(
      storeId,
      [...SIMULATED_SKUS, ...MORE_SKUS].map((Sku) => ({ Sku, Quantity: stock })),
    );
  const count = stock === undefined ? 6 : 12;
  const settings = simulatedWindow(count);
  const sourceId = await createSource(storeId, { Settings: settings });
  await cycleAt(sourceId, Date.now());
  const orders = (await listOrders(token)) as LineOrder[];
  expect(orders).toHaveLength(count);
  const order = orders.find((o) => o.OrderItems[0]!.Quantity >= 2 && (stock === undefined || o.OrderItems[0]!.Quantity >= 3 || o.OrderItems.length > 1))!;
  expect(order).toBeDefined();
  return { storeId, token, sourceId, settings, order };
}

async function read(token: string, id: string): Promise<LineOrder> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text).Orders[0] as LineOrder;
}

describe("the hub's lines reach the marketplace", () => {
  it("a package names only its lines and its ShipmentId; a line cancellation only its lines", async () => {
    const { storeId, token, sourceId, order } = await imported();
    const line = order.OrderItems[0]!;
    const ship = await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1", Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }] },
    });
    expect(ship.status, ship.text).toBe(200);
    const cancel = await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "CANCELED", Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }] },
    });
    expect(cancel.status, cancel.text).toBe(200);
    await cycleAt(sourceId, Date.now());
    const calls = (await received(storeId, sourceId)).filter((r) => r.OrderSourceOrderNumber === order.OrderSourceOrderNumber);
    const shipmentId = (await read(token, order.OrderId)).Shipments[0]!.ShipmentId;
    expect(calls.map((c) => [c.Operation, c.Answer])).toEqual([
      ["ship", 200],
      ["cancel", 200],
    ]);
    expect(calls[0]!.Body).toMatchObject({ shipmentId, trackingNumber: "T-1", lines: [{ lineNumber: "1", sku: line.Sku, quantity: 1 }] });
    expect(calls[1]!.Body).toEqual({ reason: "Canceled by seller", lines: [{ lineNumber: "1", sku: line.Sku, quantity: 1 }] });
    expect((await outboxOf(order.OrderId)).map((r) => r.state)).toEqual(["delivered", "delivered"]);
  });
});

describe("a marketplace that takes whole orders only", () => {
  it("gets no partial package and no line cancellation (NotApplicable, with the reason), and the last package's tracking on the whole order", async () => {
    const { storeId, token, sourceId, settings, order } = await imported();
    await patchSource(storeId, sourceId, { Settings: { ...settings, unsupportedOperations: ["shipLines", "cancelLines"] } });
    const line = order.OrderItems[0]!;
    const move = (body: Record<string, unknown>) => call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, { body });
    expect((await move({ OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1", Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }] })).status).toBe(200);
    await cycleAt(sourceId, Date.now());
    expect((await move({ OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-2" })).status).toBe(200);
    await cycleAt(sourceId, Date.now());
    const rows = await outboxOf(order.OrderId);
    expect(rows.map((r) => r.state)).toEqual(["notApplicable", "delivered"]);
    const calls = (await received(storeId, sourceId)).filter((r) => r.OrderSourceOrderNumber === order.OrderSourceOrderNumber);
    expect(calls.map((c) => [c.Operation, (c.Body as { trackingNumber: string }).trackingNumber])).toEqual([["ship", "T-2"]]);
  });

  it("a line cancellation ends NotApplicable saying the lines stay cancelled in the hub", async () => {
    const { storeId, token, sourceId, settings, order } = await imported();
    await patchSource(storeId, sourceId, { Settings: { ...settings, unsupportedOperations: ["cancelLines"] } });
    const line = order.OrderItems[0]!;
    const res = await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "CANCELED", Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }] },
    });
    expect(res.status).toBe(200);
    await cycleAt(sourceId, Date.now());
    const [row] = (await outboxOf(order.OrderId)) as (Awaited<ReturnType<typeof outboxOf>>[number] & { warning: string | null })[];
    expect(row!.state).toBe("notApplicable");
    expect(row!.warning).toContain("cancels whole orders only");
    expect((await received(storeId, sourceId)).filter((r) => r.OrderSourceOrderNumber === order.OrderSourceOrderNumber)).toHaveLength(0);
  });
});

describe("the marketplace's own lines reach the hub", () => {
  it("at the next import, as a package and cancelled units, sending nothing back and giving stock back once", async () => {
    // 50 of each Sku: every line takes all it orders, so its cancelled unit gives back 1.
    const { storeId, token, sourceId, settings, order } = await imported(50);
    const line = order.OrderItems[0]!;
    const held = await quantityOf(storeId, line.Sku);
    expect(held).toBeLessThanOrEqual(50 - line.Quantity);
    await patchSource(storeId, sourceId, {
      Settings: { ...settings, lineChanges: { [order.OrderSourceOrderNumber]: { shipped: { "1": 1 }, cancelled: { "1": 1 } } } },
    });
    const again = async () => {
      // The same window again (ImportFrom moves the cursor back): the orders are known now.
      await patchSource(storeId, sourceId, { ImportFrom: new Date(Date.now() - 2 * 86_400_000).toISOString() });
      await cycleAt(sourceId, Date.now());
    };
    await again();
    let now = await read(token, order.OrderId);
    expect([now.OrderItems[0]!.QuantityShipped, now.OrderItems[0]!.QuantityCancelled]).toEqual([1, 1]);
    expect(now.Shipments.map((s) => [s.ShipmentTrackingNumber, s.Items])).toEqual([
      [expect.stringMatching(/^SIMTRK\d+$/), [{ OrderItemId: line.OrderItemId, Quantity: 1 }]],
    ]);
    expect(now.FulfillmentStatus).toBe("PartiallyShipped");
    expect(await quantityOf(storeId, line.Sku)).toBe(held! + 1);
    expect(await outboxOf(order.OrderId)).toHaveLength(0);
    // Imported again: nothing new, stock included.
    await again();
    now = await read(token, order.OrderId);
    expect([now.OrderItems[0]!.QuantityShipped, now.OrderItems[0]!.QuantityCancelled, now.Shipments.length]).toEqual([1, 1, 1]);
    expect(await quantityOf(storeId, line.Sku)).toBe(held! + 1);
    expect(await outboxOf(order.OrderId)).toHaveLength(0);
    expect((await received(storeId, sourceId)).filter((r) => r.OrderSourceOrderNumber === order.OrderSourceOrderNumber)).toHaveLength(0);
  });
});
