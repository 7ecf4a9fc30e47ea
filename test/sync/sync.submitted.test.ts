// Submitted deliveries a marketplace never settles (decisions 6): failed after 24 hours with the
// last answer, a failing check never holds back pending rows, and every submitted row is asked
// about in turn, not only the oldest 100. The simulated marketplace plays the slow side.
import { describe, expect, it } from "vitest";
import { call, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, deliveries, HOUR, listOrders, MINUTE, patchSource, received, simulatedWindow } from "../helpers/sync";

const ack = (token: string, order: { OrderId: string }, number: string) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=${number}`);
const ship = (token: string, order: { OrderId: string }, tracking: string) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
    body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: tracking, DestinationShippingCarrier: "UPS" },
  });

async function importedStore(count: number, settings: Record<string, unknown>) {
  const { storeId, token } = await storeWithToken();
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(count), pageSize: 500, ...settings } });
  await cycleAt(sourceId, Date.now());
  const orders = await listOrders(token);
  expect(orders).toHaveLength(count);
  return { storeId, token, sourceId, orders };
}

describe("a Submitted delivery the marketplace never settles", () => {
  it("a failing check does not hold back another order's pending row, and the row fails after 24 hours with the last answer", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(2, { asynchronous: { operations: ["acknowledge"], checksBeforeResult: 100 } });
    const [a, b] = [orders[0]!, orders[1]!];
    expect((await ack(token, a, "PO-1")).status).toBe(200);
    const t0 = Date.now();
    expect(await cycleAt(sourceId, t0)).toMatchObject({ submitted: 1 });

    await patchSource(storeId, sourceId, { Settings: { fault: { kind: "http500", operations: ["checkSubmitted"] } } });
    expect((await ship(token, b, "TRK-2")).status).toBe(200);
    const checked = await cycleAt(sourceId, t0 + 15 * MINUTE);
    expect(checked.delivered).toBe(1);
    expect(checked.error).toMatch(/500/);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["submitted", "delivered"]);

    // Just under a day: still submitted.
    await cycleAt(sourceId, t0 + 24 * HOUR - MINUTE);
    expect((await deliveries(storeId, sourceId))[0]!.Status).toBe("submitted");
    const failed = await cycleAt(sourceId, t0 + 24 * HOUR + MINUTE);
    expect(failed.failed).toBe(1);
    const [row] = await deliveries(storeId, sourceId);
    expect(row!.Status).toBe("failed");
    expect(row!.LastError).toBe(
      "The marketplace did not confirm this submission within 24 hours. Its last answer: Simulated marketplace 500 Internal Server Error: the service is " +
        "temporarily unavailable",
    );
    const order = (await listOrders(token)).find((o) => o.OrderId === a.OrderId)!;
    expect(order.SyncUserErrorMessage).toBe(row!.LastError);
  });

  it("a row still processing after 24 hours fails saying so", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1, { asynchronous: { operations: ["acknowledge"], checksBeforeResult: 100 } });
    expect((await ack(token, orders[0]!, "PO-1")).status).toBe(200);
    const t0 = Date.now();
    await cycleAt(sourceId, t0);
    await cycleAt(sourceId, t0 + 24 * HOUR + MINUTE);
    const [row] = await deliveries(storeId, sourceId);
    expect(row).toMatchObject({
      Status: "failed",
      LastError: "The marketplace did not confirm this submission within 24 hours. Its last answer: still processing",
    });
  });

  it("asks about every submitted row in turn, not only the oldest 100", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(101, { asynchronous: { operations: ["acknowledge"], checksBeforeResult: 2 } });
    for (const [i, order] of orders.entries()) expect((await ack(token, order, `PO-${i}`)).status).toBe(200);
    const t0 = Date.now();
    expect(await cycleAt(sourceId, t0)).toMatchObject({ submitted: 101 });
    await cycleAt(sourceId, t0 + 15 * MINUTE);
    await cycleAt(sourceId, t0 + 30 * MINUTE);
    const rows = await deliveries(storeId, sourceId);
    const last = orders.find((o) => o.OrderId === rows[100]!.OrderId)!;
    const checks = (await received(storeId, sourceId)).filter(
      (r) => r.Operation === "checkSubmitted" && r.OrderSourceOrderNumber === last.OrderSourceOrderNumber,
    );
    expect(checks.length).toBeGreaterThanOrEqual(1);
  });
});

describe("corrections that alternate", () => {
  it("replace the pending row of the same order and kind instead of queueing one each", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(2, {});
    const [a, b] = [orders[0]!, orders[1]!];
    for (const number of ["PO-A", "PO-B", "PO-A", "PO-B", "PO-A", "PO-C"]) expect((await ack(token, a, number)).status).toBe(200);
    for (const tracking of ["TRK-1", "TRK-2", "TRK-1", "TRK-3"]) expect((await ship(token, b, tracking)).status).toBe(200);
    expect((await deliveries(storeId, sourceId)).map((d) => `${d.OrderId}:${d.Kind}:${d.Status}`)).toEqual([
      `${a.OrderId}:acknowledge:pending`,
      `${b.OrderId}:ship:pending`,
    ]);
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ delivered: 2 });
    const got = await received(storeId, sourceId);
    expect(got.map((r) => [r.Operation, r.Body.sellerOrderNumber ?? r.Body.trackingNumber])).toEqual([
      ["acknowledge", "PO-C"],
      ["ship", "TRK-3"],
    ]);
    // A correction after delivery is a new row, as before.
    expect((await ship(token, b, "TRK-4")).status).toBe(200);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered", "delivered", "pending"]);
  });
});
