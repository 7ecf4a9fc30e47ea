import { describe, expect, it } from "vitest";
import { call, insert, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, deliveries, HOUR, listOrders, MINUTE, patchSource, received, simulatedWindow, type WireOrder } from "../helpers/sync";

/** A store with a simulated source whose orders are imported. */
async function importedStore(count = 3, settings: Record<string, unknown> = {}) {
  const { storeId, token } = await storeWithToken();
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(count), ...settings } });
  await cycleAt(sourceId, Date.now());
  const orders = await listOrders(token);
  expect(orders).toHaveLength(count);
  return { storeId, token, sourceId, orders };
}

const ack = (token: string, order: WireOrder, number: string) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=${number}`);
const ship = (token: string, order: WireOrder, tracking: string) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
    body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: tracking, DateShipped: "2026-11-20T12:00:00Z", DestinationShippingCarrier: "UPS" },
  });
const cancel = (token: string, order: WireOrder) => call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } });

describe("delivery to the marketplace", () => {
  it("delivers an acknowledgement, a shipment with its lines, and a cancellation made through /v1", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(3);
    const [a, b, c] = orders as [WireOrder, WireOrder, WireOrder];
    expect((await ack(token, a, "PO-1")).status).toBe(200);
    expect((await ship(token, b, "1Z999")).status).toBe(200);
    expect((await cancel(token, c)).status).toBe(200);
    expect((await deliveries(storeId, sourceId)).map((d) => [d.Kind, d.Status])).toEqual([
      ["acknowledge", "pending"],
      ["ship", "pending"],
      ["cancel", "pending"],
    ]);

    const summary = await cycleAt(sourceId, Date.now());
    expect(summary.delivered).toBe(3);
    const got = await received(storeId, sourceId);
    expect(got.map((r) => [r.Operation, r.OrderSourceOrderNumber, r.Answer])).toEqual([
      ["acknowledge", a.OrderSourceOrderNumber, 200],
      ["ship", b.OrderSourceOrderNumber, 200],
      ["cancel", c.OrderSourceOrderNumber, 200],
    ]);
    expect(got[0]!.Body.sellerOrderNumber).toBe("PO-1");
    expect(got[1]!.Body).toMatchObject({ trackingNumber: "1Z999", carrier: "UPS", shipDate: "2026-11-20T12:00:00.000Z" });
    expect(got[1]!.Body.lines).toEqual(b.OrderItems.map((item, i) => ({ lineNumber: String(i + 1), sku: item.Sku, quantity: item.Quantity })));
    expect((await deliveries(storeId, sourceId)).every((d) => d.Status === "delivered")).toBe(true);

    // A second cycle sends nothing again.
    expect((await cycleAt(sourceId, Date.now())).delivered).toBe(0);
    expect(await received(storeId, sourceId)).toHaveLength(3);
  });

  it("queues nothing for a repeated identical update, and nothing for an inserted order no source claims", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1);
    const order = orders[0]!;
    await ack(token, order, "PO-7");
    await ack(token, order, "PO-7");
    await ship(token, order, "TRK-1");
    await ship(token, order, "TRK-1");
    expect((await deliveries(storeId, sourceId)).map((d) => d.Kind)).toEqual(["acknowledge", "ship"]);

    const other = await insert(token, { OrderSource: "SomeWebShop" });
    expect((await ack(token, { OrderId: other } as WireOrder, "PO-8")).status).toBe(200);
    expect(await deliveries(storeId, sourceId)).toHaveLength(2);
    const [inserted] = await listOrders(token, `page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01&sortBy=OrderId&sortDirection=desc`);
    expect(inserted!.OrderId).toBe(other);
    expect(inserted!.SyncStatus).toBe("Disabled");
  });

  it("delivers a shipment only after the acknowledgement before it", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1, { fault: { kind: "http500", operations: ["acknowledge"] } });
    const order = orders[0]!;
    await ack(token, order, "PO-1");
    await ship(token, order, "TRK-1");
    const t0 = Date.now();
    await cycleAt(sourceId, t0);
    // The shipment waits behind the failed acknowledgement even though the marketplace would take it.
    expect((await received(storeId, sourceId)).map((r) => r.Operation)).toEqual(["acknowledge"]);
    await patchSource(storeId, sourceId, { Settings: { fault: null } });
    await cycleAt(sourceId, t0 + 5 * MINUTE);
    expect((await received(storeId, sourceId)).map((r) => [r.Operation, r.Answer])).toEqual([
      ["acknowledge", 500],
      ["acknowledge", 200],
      ["ship", 200],
    ]);
  });

  it("retries with exponential backoff and honours Retry-After", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1, { fault: { kind: "http500", operations: ["acknowledge"] } });
    await ack(token, orders[0]!, "PO-1");
    const t0 = Date.now();
    await cycleAt(sourceId, t0);
    let [row] = await deliveries(storeId, sourceId);
    expect(row).toMatchObject({ Status: "pending", Attempts: 1 });
    expect(row!.LastError).toMatch(/500/);
    expect(Date.parse(row!.DateNextAttempt!)).toBe(t0 + 5 * MINUTE);

    // Not due yet: the marketplace hears nothing.
    await cycleAt(sourceId, t0 + 4 * MINUTE);
    expect(await received(storeId, sourceId)).toHaveLength(1);

    await cycleAt(sourceId, t0 + 5 * MINUTE);
    [row] = await deliveries(storeId, sourceId);
    expect(row!.Attempts).toBe(2);
    expect(Date.parse(row!.DateNextAttempt!)).toBe(t0 + 5 * MINUTE + 10 * MINUTE);

    // 429 with Retry-After: an hour, longer than the backoff, and no call at all before it.
    await patchSource(storeId, sourceId, { Settings: { fault: { kind: "rateLimited", retryAfterSeconds: 3600, operations: ["acknowledge"] } } });
    const t2 = t0 + 15 * MINUTE;
    const limited = await cycleAt(sourceId, t2);
    expect(limited.error).toMatch(/429/);
    [row] = await deliveries(storeId, sourceId);
    expect(row!.Attempts).toBe(3);
    expect(Date.parse(row!.DateNextAttempt!)).toBe(t2 + HOUR);
    const callsBefore = (await received(storeId, sourceId)).length;
    const paused = await cycleAt(sourceId, t2 + 30 * MINUTE);
    expect(paused.error).toMatch(/Retry-After/);
    expect(await received(storeId, sourceId)).toHaveLength(callsBefore);
  });

  it("after the 8th try fails the delivery and sets SyncUserErrorMessage to what the marketplace answered", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1, { fault: { kind: "timeout", operations: ["ship"] } });
    await ship(token, orders[0]!, "TRK-1");
    let at = Date.now();
    // The schedule of docs/behaviour.md: 5, 10, 20, 40, 80, 160, 320 minutes between the 8 tries.
    const waits = [5, 10, 20, 40, 80, 160, 320];
    for (let attempt = 1; attempt <= 7; attempt++) {
      await cycleAt(sourceId, at);
      const [row] = await deliveries(storeId, sourceId);
      expect(row).toMatchObject({ Status: "pending", Attempts: attempt });
      at += waits[attempt - 1]! * MINUTE;
      expect(Date.parse(row!.DateNextAttempt!)).toBe(at);
    }
    await cycleAt(sourceId, at);
    const [row] = await deliveries(storeId, sourceId);
    expect(row).toMatchObject({ Status: "failed", Attempts: 8 });
    const [order] = await listOrders(token);
    expect(order!.SyncUserErrorMessage).toBe("Simulated marketplace ship: no answer within 10 s (timeout)");
    expect(order!.OrderStatus).toBe("Shipped");
    const source = (
      await call("GET", `/admin/v1/stores/${storeId}/sources/${sourceId}`, { headers: { authorization: "Bearer test-admin-key-0123456789abcdef-0123" } })
    ).json.Source as { Status: { DeliveriesFailed: number; DeliveriesPending: number } };
    expect(source.Status).toMatchObject({ DeliveriesFailed: 1, DeliveriesPending: 0 });
  });

  it("fails at once on an answer no retry can change, and holds the order's later deliveries", async () => {
    const probe = await importedStore(2);
    const rejected = probe.orders[0]!.OrderSourceOrderNumber;
    await patchSource(probe.storeId, probe.sourceId, { Settings: { rejectOrderNumbers: [rejected] } });
    const [a, b] = probe.orders as [WireOrder, WireOrder];
    await ack(probe.token, a, "PO-A");
    await ship(probe.token, a, "TRK-A");
    await ack(probe.token, b, "PO-B");
    await cycleAt(probe.sourceId, Date.now());
    const rows = await deliveries(probe.storeId, probe.sourceId);
    expect(rows.map((d) => [d.Kind, d.Status, d.Attempts])).toEqual([
      ["acknowledge", "failed", 1],
      ["ship", "pending", 0],
      ["acknowledge", "delivered", 1],
    ]);
    const byId = new Map((await listOrders(probe.token)).map((o) => [o.OrderId, o]));
    expect(byId.get(a.OrderId)!.SyncUserErrorMessage).toMatch(/^Simulated marketplace 400 INVALID_REQUEST: order .* cannot be updated/);
    expect(byId.get(b.OrderId)!.SyncUserErrorMessage).toBeNull();
    expect((await received(probe.storeId, probe.sourceId)).map((r) => r.Operation)).toEqual(["acknowledge", "acknowledge"]);

    // The operator sorts it out with the marketplace and retries: both of the order's rows go, in order.
    await patchSource(probe.storeId, probe.sourceId, { Settings: { rejectOrderNumbers: [] } });
    const retry = await call("POST", `/admin/v1/stores/${probe.storeId}/sources/${probe.sourceId}/deliveries/retry`, {
      headers: { authorization: "Bearer test-admin-key-0123456789abcdef-0123" },
    });
    expect(retry.json).toMatchObject({ Success: true, Retried: 1 });
    expect((await listOrders(probe.token)).every((o) => o.SyncUserErrorMessage === null)).toBe(true);
    await cycleAt(probe.sourceId, Date.now());
    expect((await deliveries(probe.storeId, probe.sourceId)).every((d) => d.Status === "delivered")).toBe(true);
    expect((await received(probe.storeId, probe.sourceId)).map((r) => `${r.Operation}:${r.Answer}`)).toEqual([
      "acknowledge:400",
      "acknowledge:200",
      "acknowledge:200",
      "ship:200",
    ]);
  });

  it("loses nothing and sends nothing twice when the marketplace fails for several cycles and then recovers", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(4, {
      fault: { kind: "http500", operations: ["acknowledge", "ship", "cancel"] },
    });
    const [a, b, c, d] = orders as [WireOrder, WireOrder, WireOrder, WireOrder];
    await ack(token, a, "PO-A");
    await ship(token, a, "TRK-A");
    await ack(token, b, "PO-B");
    await cancel(token, c);
    await ship(token, d, "TRK-D");
    let at = Date.now();
    for (let cycle = 0; cycle < 4; cycle++) {
      const summary = await cycleAt(sourceId, at);
      expect(summary.delivered).toBe(0);
      at += 15 * MINUTE;
    }
    // Still down, an order changes again: queued behind the rest, not lost.
    await ship(token, b, "TRK-B");
    await patchSource(storeId, sourceId, { Settings: { fault: null } });
    // Recovered: within a few cycles everything goes out exactly once, each order's in order.
    for (let cycle = 0; cycle < 6; cycle++) {
      await cycleAt(sourceId, at);
      at += 15 * MINUTE;
    }
    const rows = await deliveries(storeId, sourceId);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.Status === "delivered")).toBe(true);
    const accepted = (await received(storeId, sourceId)).filter((r) => r.Answer === 200);
    expect(accepted.map((r) => `${r.Operation}:${r.OrderSourceOrderNumber}`).sort()).toEqual(
      [
        `acknowledge:${a.OrderSourceOrderNumber}`,
        `ship:${a.OrderSourceOrderNumber}`,
        `acknowledge:${b.OrderSourceOrderNumber}`,
        `ship:${b.OrderSourceOrderNumber}`,
        `cancel:${c.OrderSourceOrderNumber}`,
        `ship:${d.OrderSourceOrderNumber}`,
      ].sort(),
    );
    const order = (n: string) => accepted.filter((r) => r.OrderSourceOrderNumber === n).map((r) => r.Operation);
    expect(order(a.OrderSourceOrderNumber)).toEqual(["acknowledge", "ship"]);
    expect(order(b.OrderSourceOrderNumber)).toEqual(["acknowledge", "ship"]);
    expect((await listOrders(token)).every((o) => o.SyncUserErrorMessage === null)).toBe(true);
  });

  it("never overlaps two cycles of one source: concurrent cycles deliver each row once", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(6);
    for (const [i, order] of orders.entries()) await ack(token, order, `PO-${i}`);
    const now = Date.now();
    const [first, second, third] = await Promise.all([cycleAt(sourceId, now), cycleAt(sourceId, now), cycleAt(sourceId, now)]);
    // One cycle delivered everything; the others ran after it had ended and found nothing due.
    expect([first.delivered, second.delivered, third.delivered].sort()).toEqual([0, 0, 6]);
    const calls = await received(storeId, sourceId);
    expect(calls).toHaveLength(6);
    expect(new Set(calls.map((r) => r.OrderSourceOrderNumber)).size).toBe(6);
  });

  it("delivers more rows than one round in a cycle (regression: 100 ids bound one by one broke D1's 100-parameter limit)", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(130);
    for (let i = 0; i < orders.length; i += 20) {
      await Promise.all(orders.slice(i, i + 20).map((order, j) => ack(token, order, `PO-${i + j}`)));
    }
    const summary = await cycleAt(sourceId, Date.now());
    expect(summary.error).toBeNull();
    expect(summary.delivered).toBe(130);
    expect(await received(storeId, sourceId)).toHaveLength(130);
  });
});
