// A line that took less stock than it ordered (decisions 11 and 12): the take stops at 0, so a Sku
// with 2 left and a line of 5 takes 2, and whoever cancels the line (the seller through /v1
// UpdateStatus, with or without Items, or the marketplace at an import, whole order or lines) gives
// back at most those 2, once, whatever the order and the concurrency of the calls. Cancelled units
// first use up what the line never took. A line that took all it ordered gives back every
// cancelled unit, as before. Read as a client and an operator see it (the order, the product).
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, insert, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, listOrders, MINUTE } from "../helpers/sync";
import { createMiraklFake, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL } from "../marketplaces/mirakl/mirakl-fake";
import { putStock, quantities, quantityOf } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

interface Line {
  OrderItemId: string;
  Sku: string;
  Quantity: number;
  QuantityShipped: number;
  QuantityCancelled: number;
}

const lines = (...items: [string, number][]) => items.map(([Sku, Quantity]) => ({ Sku, Name: Sku, Quantity, UnitPrice: 5 }));
const update = (token: string, id: string, body: Record<string, unknown>) => call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body });
const cancelUnits = (token: string, id: string, item: string, n: number) =>
  update(token, id, { OrderStatus: "CANCELED", Items: [{ OrderItemId: item, Quantity: n }] });

async function linesOf(token: string, id: string): Promise<{ status: string; lines: Line[] }> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  const order = JSON.parse(res.text).Orders[0] as { OrderStatus: string; OrderItems: Line[] };
  return { status: order.OrderStatus, lines: order.OrderItems };
}

/** A store whose MUG has `mug` units (CAP 10), and an order inserted with `items`; its line ids in order. */
async function shortOrder(mug: number, ...items: [string, number][]) {
  const store = await storeWithToken();
  await putStock(store.storeId, [
    { Sku: "MUG", Quantity: mug },
    { Sku: "CAP", Quantity: 10 },
  ]);
  const orderId = await insert(store.token, { OrderItems: lines(...items) });
  const ids = (await linesOf(store.token, orderId)).lines.map((l) => l.OrderItemId);
  return { ...store, orderId, ids };
}

describe("cancelled by the seller through /v1 after a short take", () => {
  it("a line of 5 that took the 2 in stock gives back 2 when its 5 units are cancelled, and nothing more when asked again", async () => {
    const { storeId, token, orderId, ids } = await shortOrder(2, ["MUG", 5]);
    expect(await quantityOf(storeId, "MUG")).toBe(0);
    const res = await cancelUnits(token, orderId, ids[0]!, 5);
    expect(res.status, res.text).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(2);
    const after = await linesOf(token, orderId);
    expect(after.status).toBe("Canceled");
    expect(after.lines.map((l) => [l.Quantity, l.QuantityCancelled])).toEqual([[5, 5]]);
    // The same call again records nothing and gives nothing back.
    expect((await cancelUnits(token, orderId, ids[0]!, 5)).status).toBe(200);
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(2);
  });

  it("a whole-order cancel (no Items) gives back what each line took: 2 of a short MUG line, all 3 of a full CAP line", async () => {
    const { storeId, token, orderId } = await shortOrder(2, ["MUG", 5], ["CAP", 3]);
    expect(await quantities(storeId, ["MUG", "CAP"])).toEqual({ MUG: 0, CAP: 7 });
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantities(storeId, ["MUG", "CAP"])).toEqual({ MUG: 2, CAP: 10 });
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantities(storeId, ["MUG", "CAP"])).toEqual({ MUG: 2, CAP: 10 });
  });

  it("partial cancellations use up the 3 units never taken first, then give back the 2 taken, one call at a time", async () => {
    const { storeId, token, orderId, ids } = await shortOrder(2, ["MUG", 5]);
    const mug = ids[0]!;
    // [units cancelled by this call, MUG's stock after it]; never the same call twice running (a repeat records nothing).
    const steps: [number, number][] = [
      [1, 0],
      [2, 0],
      [1, 1],
    ];
    for (const [n, stock] of steps) {
      expect((await cancelUnits(token, orderId, mug, n)).status).toBe(200);
      expect(await quantityOf(storeId, "MUG"), `after cancelling ${n} more`).toBe(stock);
    }
    // The last unit, by a whole-order cancel.
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(2);
    expect((await linesOf(token, orderId)).lines[0]!.QuantityCancelled).toBe(5);
    // Nothing left to cancel: 400 naming the line, nothing given back.
    const over = await cancelUnits(token, orderId, mug, 2);
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text).Message).toContain(mug);
    expect(await quantityOf(storeId, "MUG")).toBe(2);
  });

  it("units shipped count against what the line took: ship 2 of the 5, cancel the other 3, nothing comes back", async () => {
    const { storeId, token, orderId, ids } = await shortOrder(2, ["MUG", 5]);
    const shipped = await update(token, orderId, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1", Items: [{ OrderItemId: ids[0], Quantity: 2 }] });
    expect(shipped.status, shipped.text).toBe(200);
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    const after = await linesOf(token, orderId);
    expect(after.lines.map((l) => [l.QuantityShipped, l.QuantityCancelled])).toEqual([[2, 3]]);
    expect(after.status).toBe("Shipped");
    expect(await quantityOf(storeId, "MUG")).toBe(0);
  });

  it("two lines of one Sku share what it had in their order: 3 in stock, lines of 2 and 2 take 2 and 1, and give back 1 and 2", async () => {
    const { storeId, token, orderId, ids } = await shortOrder(3, ["MUG", 2], ["MUG", 2]);
    expect(await quantityOf(storeId, "MUG")).toBe(0);
    expect((await cancelUnits(token, orderId, ids[1]!, 2)).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(1);
    expect((await cancelUnits(token, orderId, ids[0]!, 2)).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(3);
  });

  it("a Sku not tracked when the order arrived took nothing, so gives nothing back once tracked", async () => {
    const { storeId, token } = await storeWithToken();
    const orderId = await insert(token, { OrderItems: lines(["LAMP", 4]) });
    await putStock(storeId, [{ Sku: "LAMP", Quantity: 7 }]);
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantityOf(storeId, "LAMP")).toBe(7);
  });
});

describe("concurrent cancellations after a short take", () => {
  it("four identical whole-order cancels at once give back the 2 taken once", async () => {
    const { storeId, token, orderId } = await shortOrder(2, ["MUG", 5], ["CAP", 4]);
    const answers = await Promise.all([1, 2, 3, 4].map(() => update(token, orderId, { OrderStatus: "CANCELED" })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await quantities(storeId, ["MUG", "CAP"])).toEqual({ MUG: 2, CAP: 10 });
  });

  it("cancels of 3 and 2 units of the line at once: both apply, and the two calls together give back 2", async () => {
    const { storeId, token, orderId, ids } = await shortOrder(2, ["MUG", 5]);
    const answers = await Promise.all([cancelUnits(token, orderId, ids[0]!, 3), cancelUnits(token, orderId, ids[0]!, 2)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect((await linesOf(token, orderId)).lines[0]!.QuantityCancelled).toBe(5);
    expect(await quantityOf(storeId, "MUG")).toBe(2);
  });
});

describe("a line that took all it ordered", () => {
  it("gives back every cancelled unit, as before: 10 in stock, a line of 5, cancel 2, ship 1, cancel 2 leaves 9", async () => {
    const { storeId, token, orderId, ids } = await shortOrder(10, ["MUG", 5]);
    expect(await quantityOf(storeId, "MUG")).toBe(5);
    expect((await cancelUnits(token, orderId, ids[0]!, 2)).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(7);
    expect((await update(token, orderId, { OrderStatus: "SHIPPED", Items: [{ OrderItemId: ids[0], Quantity: 1 }] })).status).toBe(200);
    expect((await update(token, orderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(9);
  });
});

describe("cancelled by the marketplace at an import (Mirakl's fake)", () => {
  const SETTINGS = { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, acceptance: "manual", pushStock: false };

  /** A Mirakl source whose shop sells SKU-1 (2 in stock) and SKU-2 (3 in stock), with the fake's orders. */
  async function miraklShop(orders: { id: string; lines: { sku: string; quantity: number }[] }[]) {
    let at = Date.now();
    const fake = createMiraklFake({ now: () => new Date(at) });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    orders.forEach((o, i) => fake.orders.add({ id: o.id, createdAt: new Date(at - (30 - i) * MINUTE), lines: o.lines.map((l) => ({ ...l, unitPrice: 10 })) }));
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "SKU-1", Quantity: 2, Price: 10 },
      { Sku: "SKU-2", Quantity: 3, Price: 10 },
    ]);
    const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl shop", Settings: SETTINGS });
    const cycle = async () => {
      at += 2 * MINUTE;
      const result = await cycleAt(sourceId, at);
      // The returns reader keeps its own pace (RT11 every 15 minutes): only the order import must have gone through.
      expect(result.error ?? "").not.toMatch(/^import:/);
      return result;
    };
    const orderOf = async (number: string) => (await listOrders(token)).find((o) => o.OrderSourceOrderNumber === number)!;
    return { fake, storeId, token, cycle, orderOf };
  }

  it("an order of 5 that took 2, cancelled whole at Mirakl, gives back 2 once; the seller's cancel after it gives nothing more", async () => {
    const { fake, storeId, token, cycle, orderOf } = await miraklShop([{ id: "M-1", lines: [{ sku: "SKU-1", quantity: 5 }] }]);
    await cycle();
    expect(await quantityOf(storeId, "SKU-1")).toBe(0);
    fake.orders.edit("M-1", (o) => {
      o.order_state = "CANCELED";
      for (const l of o.order_lines ?? []) l.order_line_state = "CANCELED";
    });
    await cycle();
    expect((await orderOf("M-1")).SourceOrderStatus).toBe("CANCELED");
    expect(await quantityOf(storeId, "SKU-1")).toBe(2);
    await cycle();
    expect((await update(token, (await orderOf("M-1")).OrderId, { OrderStatus: "CANCELED" })).status).toBe(200);
    expect(await quantityOf(storeId, "SKU-1")).toBe(2);
    expect(fake.violations).toEqual([]);
  });

  it("lines of one Sku in one page share what it had (3: lines of 2 and 2 take 2 and 1); a line Mirakl cancels gives back what it took", async () => {
    const { fake, storeId, cycle, orderOf } = await miraklShop([
      { id: "M-1", lines: [{ sku: "SKU-2", quantity: 2 }] },
      {
        id: "M-2",
        lines: [
          { sku: "SKU-2", quantity: 2 },
          { sku: "SKU-1", quantity: 1 },
        ],
      },
    ]);
    await cycle();
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 1, "SKU-2": 0 });
    // Mirakl cancels M-2's SKU-2 line (the one that took 1) while the rest of the order goes on.
    fake.orders.edit("M-2", (o) => {
      o.order_state = "SHIPPING";
      o.order_lines![0]!.order_line_state = "CANCELED";
      o.order_lines![1]!.order_line_state = "SHIPPING";
    });
    await cycle();
    const m2 = await orderOf("M-2");
    expect(m2.OrderItems.map((i) => [i.Sku, i.Quantity, (i as unknown as Line).QuantityCancelled])).toEqual([
      ["SKU-2", 2, 2],
      ["SKU-1", 1, 0],
    ]);
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 1, "SKU-2": 1 });
    // Imported again: nothing more. Then Mirakl cancels M-1 whole: its 2 come back.
    await cycle();
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 1, "SKU-2": 1 });
    fake.orders.edit("M-1", (o) => {
      o.order_state = "CANCELED";
      for (const l of o.order_lines ?? []) l.order_line_state = "CANCELED";
    });
    await cycle();
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 1, "SKU-2": 3 });
    expect(fake.violations).toEqual([]);
  });
});
