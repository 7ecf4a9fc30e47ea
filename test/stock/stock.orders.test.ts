// One stock (decisions 11): orders that arrive lower each Sku's Quantity in the write that stores
// them, cancellations before shipment give it back, never below 0, an order imported twice once.
import { describe, expect, it } from "vitest";
import { call, insert, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, listOrders, patchSource, simulatedWindow } from "../helpers/sync";
import { putStock, quantities, quantityOf } from "./helpers";

/** What the simulated marketplace sells (src/marketplaces/simulated/simulated.orders.ts). */
const SIMULATED_SKUS = [
  "MUG-BLU-12",
  "TEE-BLK-M",
  "BTL-STL-750",
  "LMP-DSK-LED",
  "BAG-CNV-TOTE",
  "NTB-A5-DOT",
  "CBL-USBC-2M",
  "SCK-WOOL-L",
  "CND-SOY-LAV",
  "PLN-CER-S",
  "HDP-BT-NC",
  "KTL-ELC-1L",
];

const lines = (...items: [string, number][]) => items.map(([Sku, Quantity]) => ({ Sku, Name: Sku, Quantity, UnitPrice: 5 }));

/** Units per Sku over the orders' lines, counted from the API's answer. */
function unitsBySku(orders: { OrderItems: { Sku: string; Quantity: number }[] }[]): Map<string, number> {
  const units = new Map<string, number>();
  for (const o of orders) for (const i of o.OrderItems) units.set(i.Sku, (units.get(i.Sku) ?? 0) + i.Quantity);
  return units;
}

describe("orders inserted by the seller's system", () => {
  it("lower each line's Sku by its quantity, leave untracked and unknown Skus alone, never go below 0", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [{ Sku: "MUG", Quantity: 10 }, { Sku: "CAP", Quantity: 1 }, { Sku: "HAT" }]);
    await insert(token, { OrderItems: lines(["MUG", 3], ["CAP", 2], ["HAT", 1], ["NONE", 1], ["MUG", 1]) });
    expect(await quantities(storeId, ["MUG", "CAP", "HAT"])).toEqual({ MUG: 6, CAP: 0, HAT: null });
  });

  it("an order refused as a duplicate lowers nothing; one inserted Canceled lowers nothing", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [{ Sku: "MUG", Quantity: 10 }]);
    await insert(token, { OrderSourceOrderNumber: "W-1", OrderItems: lines(["MUG", 2]) });
    const again = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: { ...(await sample("W-1")), OrderItems: lines(["MUG", 2]) } });
    expect(again.status).toBe(400);
    await insert(token, { OrderSourceOrderNumber: "W-2", OrderStatus: "Canceled", OrderItems: lines(["MUG", 4]) });
    expect(await quantityOf(storeId, "MUG")).toBe(8);
  });

  it("a cancellation before shipment gives the stock back once; a shipped order keeps it", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [{ Sku: "MUG", Quantity: 10 }]);
    const kept = await insert(token, { OrderItems: lines(["MUG", 2]) });
    const cancelled = await insert(token, { OrderItems: lines(["MUG", 3]) });
    expect(await quantityOf(storeId, "MUG")).toBe(5);
    expect((await call("PUT", `/v1/${token}/Orders/${cancelled}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(8);
    // Cancelling again changes nothing, stock included.
    expect((await call("PUT", `/v1/${token}/Orders/${cancelled}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    expect(await quantityOf(storeId, "MUG")).toBe(8);
    expect((await call("PUT", `/v1/${token}/Orders/${kept}/UpdateStatus`, { body: { OrderStatus: "SHIPPED" } })).status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/${kept}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(400);
    expect(await quantityOf(storeId, "MUG")).toBe(8);
  });

  it("a cancellation gives back what was taken even when the stock was set in between", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [{ Sku: "MUG", Quantity: 1 }]);
    const id = await insert(token, { OrderItems: lines(["MUG", 3]) });
    expect(await quantityOf(storeId, "MUG")).toBe(0);
    await call("PUT", `/v1/${token}/Inventory`, { body: { Items: [{ Sku: "MUG", Quantity: 20 }] } });
    await call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } });
    // The line took the 1 unit MUG had, not the 3 it ordered: 1 comes back.
    expect(await quantityOf(storeId, "MUG")).toBe(21);
  });
});

async function sample(number: string) {
  const { sampleOrder } = await import("../helpers/api");
  return sampleOrder({ OrderSourceOrderNumber: number });
}

describe("orders imported from a marketplace", () => {
  it("lower the stock once, even when the same window is imported again", async () => {
    const { storeId, token } = await storeWithToken();
    const skus = SIMULATED_SKUS;
    await putStock(
      storeId,
      skus.map((Sku) => ({ Sku, Quantity: 1000 })),
    );
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(8) });
    await cycleAt(sourceId, Date.now());
    const orders = await listOrders(token);
    expect(orders).toHaveLength(8);
    const units = unitsBySku(orders);
    const expected = async () => {
      for (const [sku, n] of units) if (skus.includes(sku)) expect(await quantityOf(storeId, sku), sku).toBe(1000 - n);
    };
    expect([...units.keys()].some((sku) => skus.includes(sku))).toBe(true);
    await expected();
    // Import the same window again: the upsert leaves each order once, and the stock too.
    await patchSource(storeId, sourceId, { ImportFrom: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) });
    await cycleAt(sourceId, Date.now() + 1000);
    expect(await listOrders(token)).toHaveLength(8);
    await expected();
  });

  it("an order the marketplace then reports cancelled gives its stock back once", async () => {
    const skus = SIMULATED_SKUS;
    const other = await storeWithToken();
    await putStock(
      other.storeId,
      skus.map((Sku) => ({ Sku, Quantity: 500 })),
    );
    const source = await createSource(other.storeId, { Settings: simulatedWindow(3) });
    await cycleAt(source, Date.now());
    const orders = await listOrders(other.token);
    const gone = orders[0]!;
    const before = await quantities(other.storeId, skus);
    await patchSource(other.storeId, source, {
      Settings: { cancelledOrderNumbers: [gone.OrderSourceOrderNumber] },
      ImportFrom: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
    });
    await cycleAt(source, Date.now() + 1000);
    const after = await quantities(other.storeId, skus);
    const back = unitsBySku([gone]);
    for (const sku of skus) expect(after[sku], sku).toBe(before[sku]! + (back.get(sku) ?? 0));
    const reread = (await listOrders(other.token)).find((o) => o.OrderSourceOrderNumber === gone.OrderSourceOrderNumber)!;
    expect(reread.SourceOrderStatus).toBe("Cancelled");
    // Seen again, and then cancelled by the seller too: nothing more comes back.
    await patchSource(other.storeId, source, { ImportFrom: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) });
    await cycleAt(source, Date.now() + 2000);
    await call("PUT", `/v1/${other.token}/Orders/${reread.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } });
    expect(await quantities(other.storeId, skus)).toEqual(after);
  });
});
