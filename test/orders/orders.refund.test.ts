// PUT /v1/{token}/Orders/{orderId}/Refund (decisions 13) through real requests: what is recorded,
// what the order answers (Refunds, RefundTotal), the limits (never more than was paid for a
// line, concurrent refunds too), repeats that record and send nothing, delivery to the simulated
// marketplace and its refunds coming back at the next import without being sent back, the
// order.refunded webhook event, and bad input answered 400/404 with nothing stored or queued.
import { beforeAll, describe, expect, it } from "vitest";
import type { WireRefund } from "../../src/refunds/refunds.wire";
import { ALL_SCOPES, call, insert, storeWithToken } from "../helpers/api";
import { outboxOf } from "../helpers/db";
import { createSource, cycleAt, deliveries, HOUR, listOrders, patchSource, received, simulatedWindow, type WireOrder } from "../helpers/sync";
import { createWebhook, deliveries as webhookDeliveries } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified } from "../webhooks/webhook-receiver";

beforeAll(installReceiver);

const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];

type OrderWithRefunds = WireOrder & { Refunds: WireRefund[]; RefundTotal: number };

async function read(token: string, id: string): Promise<OrderWithRefunds> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text).Orders as OrderWithRefunds[])[0]!;
}

const refund = (token: string, id: string, body: unknown) => call("PUT", `/v1/${token}/Orders/${id}/Refund`, { body });

/** An order of the hub's own (no marketplace): 2 × 12.50 of SKU-1 and 1 × 8.00 of SKU-2 less 1.00, 2.50 shipping. */
async function ownOrder() {
  const store = await storeWithToken({ scopes: SCOPES });
  const id = await insert(store.token, {
    GrandTotal: 34.5,
    SubTotal: 32,
    ShippingTotal: 2.5,
    OrderItems: [
      { Sku: "SKU-1", Name: "Blue mug", Quantity: 2, UnitPrice: 12.5 },
      { Sku: "SKU-2", Name: "Red cup", Quantity: 1, UnitPrice: 8, Discount: "1.00" },
    ],
  });
  const order = await read(store.token, id);
  return { ...store, id, order, lines: order.OrderItems.map((i) => i.OrderItemId) as [string, string] };
}

/** A store with a simulated source whose `count` orders are imported. */
async function importedOrders(count: number, settings: Record<string, unknown> = {}) {
  const { storeId, token } = await storeWithToken({ scopes: SCOPES });
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(count, 8 * HOUR), ...settings } });
  await cycleAt(sourceId, Date.now());
  const orders = (await listOrders(token)) as OrderWithRefunds[];
  expect(orders).toHaveLength(count);
  return { storeId, token, sourceId, orders };
}

describe("a seller's refund of an order", () => {
  it("records a refund of lines and shipping, with the line's paid amount per unit by default, and the order answers it", async () => {
    const { token, id, lines } = await ownOrder();
    const res = await refund(token, id, { Items: [{ OrderItemId: lines[0], Quantity: 1 }], ShippingAmount: 2.5, Reason: "Broken in transit" });
    expect(res.status, res.text).toBe(200);
    const answered = JSON.parse(res.text).Refund as WireRefund;
    expect(answered).toMatchObject({
      Status: "NotApplicable",
      Origin: "Hub",
      Reason: "Broken in transit",
      ReturnId: null,
      Items: [{ OrderItemId: lines[0], Quantity: 1, Amount: 12.5 }],
      ShippingAmount: 2.5,
      Total: 15,
    });
    const order = await read(token, id);
    expect(order.Refunds).toEqual([answered]);
    expect(order.RefundTotal).toBe(15);
    // Amount-only refund of the discounted line: at most what was paid for it (8 − 1 = 7).
    const over = await refund(token, id, { Items: [{ OrderItemId: lines[1], Quantity: 0, Amount: 7.01 }], Reason: "Goodwill" });
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text).Message).toContain("Items[0].Amount");
    const exact = await refund(token, id, { Items: [{ OrderItemId: lines[1], Quantity: 0, Amount: 7 }], Reason: "Goodwill" });
    expect(exact.status, exact.text).toBe(200);
    expect((await read(token, id)).RefundTotal).toBe(22);
  });

  it("refunds a line unit by unit to exactly what was paid, and refuses a unit more naming the line", async () => {
    const { token, id, lines } = await ownOrder();
    for (const reason of ["first", "second"]) {
      const res = await refund(token, id, { Items: [{ OrderItemId: lines[0], Quantity: 1 }], Reason: reason });
      expect(res.status, res.text).toBe(200);
    }
    const third = await refund(token, id, { Items: [{ OrderItemId: lines[0], Quantity: 1 }], Reason: "third" });
    expect(third.status).toBe(400);
    expect(JSON.parse(third.text).Message).toContain("Items[0].Quantity");
    expect(JSON.parse(third.text).Message).toContain(`line ${lines[0]}`);
    const order = await read(token, id);
    expect(order.Refunds.map((r) => r.Total)).toEqual([12.5, 12.5]);
    expect(order.RefundTotal).toBe(25);
  });

  it("a repeated identical call records nothing new and queues nothing", async () => {
    const { storeId, token, sourceId, orders } = await importedOrders(1);
    const order = orders[0]!;
    const body = { Items: [{ OrderItemId: order.OrderItems[0]!.OrderItemId, Quantity: 1 }], Reason: "Damaged" };
    const first = await refund(token, order.OrderId, body);
    expect(first.status, first.text).toBe(200);
    const second = await refund(token, order.OrderId, body);
    expect(second.status).toBe(200);
    expect(JSON.parse(second.text).Refund).toEqual(JSON.parse(first.text).Refund);
    expect((await read(token, order.OrderId)).Refunds).toHaveLength(1);
    expect((await deliveries(storeId, sourceId)).filter((d) => d.Kind === "refund")).toHaveLength(1);
  });

  it("never lets concurrent refunds of a line add up to more than was paid for it", async () => {
    const { token, id, lines } = await ownOrder();
    // Each asks for the whole line (2 units, 25.00): only one can have it.
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((reason) => refund(token, id, { Items: [{ OrderItemId: lines[0], Quantity: 2 }], Reason: `race ${reason}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    for (const loser of results.filter((r) => r.status === 400)) expect(JSON.parse(loser.text).Message).toContain("Items[0].Quantity");
    const order = await read(token, id);
    expect(order.Refunds).toHaveLength(1);
    expect(order.RefundTotal).toBe(25);
  });

  it("delivers a refund to the marketplace once; the marketplace reports it back with the order and it is not recorded or sent again", async () => {
    const { storeId, token, sourceId, orders } = await importedOrders(2);
    const order = orders[0]!;
    const res = await refund(token, order.OrderId, { Items: [{ OrderItemId: order.OrderItems[0]!.OrderItemId, Quantity: 1 }], Reason: "Damaged" });
    expect(res.status, res.text).toBe(200);
    const made = JSON.parse(res.text).Refund as WireRefund;
    expect(made.Status).toBe("Pending");
    await cycleAt(sourceId, Date.now());
    const sent = (await received(storeId, sourceId)).filter((r) => r.Operation === "refund");
    expect(sent.map((r) => r.OrderSourceOrderNumber)).toEqual([order.OrderSourceOrderNumber]);
    const after = await read(token, order.OrderId);
    expect(after.Refunds).toHaveLength(1);
    expect(after.Refunds[0]).toMatchObject({ RefundId: made.RefundId, Status: "Refunded", Origin: "Hub", Total: made.Total });
    expect(after.Refunds[0]!.SourceRefundId).not.toBeNull();
    // Imported again (an import from a day back): the marketplace reports it with the order, under
    // the id it gave it, and it is the same refund.
    await patchSource(storeId, sourceId, { ImportFrom: new Date(Date.now() - 24 * HOUR).toISOString() });
    const reimport = await cycleAt(sourceId, Date.now());
    expect(reimport.fetched).toBe(2);
    const again = await read(token, order.OrderId);
    expect(again.Refunds).toHaveLength(1);
    expect(again.RefundTotal).toBe(made.Total);
    expect((await received(storeId, sourceId)).filter((r) => r.Operation === "refund")).toHaveLength(1);
    expect((await deliveries(storeId, sourceId)).filter((d) => d.Kind === "refund")).toHaveLength(1);
  });

  it("records refunds the marketplace made at the next import, and sends them nowhere", async () => {
    const probe = await importedOrders(2);
    const number = probe.orders[1]!.OrderSourceOrderNumber;
    // The marketplace refunds it; an import from a day back sees the order again, with the refund.
    await patchSource(probe.storeId, probe.sourceId, {
      Settings: { refundedOrderNumbers: [number] },
      ImportFrom: new Date(Date.now() - 24 * HOUR).toISOString(),
    });
    await cycleAt(probe.sourceId, Date.now());
    const order = await read(probe.token, probe.orders[1]!.OrderId);
    expect(order.Refunds).toHaveLength(1);
    expect(order.Refunds[0]).toMatchObject({ Origin: "Marketplace", Status: "Refunded", Reason: "Refunded by the marketplace", ShippingAmount: 0 });
    expect(order.RefundTotal).toBe(order.Refunds[0]!.Total);
    expect(order.RefundTotal).toBeGreaterThan(0);
    expect((await deliveries(probe.storeId, probe.sourceId)).filter((d) => d.Kind === "refund")).toHaveLength(0);
    // A later cycle sees it again: still one.
    await cycleAt(probe.sourceId, Date.now() + HOUR);
    expect((await read(probe.token, probe.orders[1]!.OrderId)).Refunds).toHaveLength(1);
  });

  it("records order.refunded for the store's webhooks in the same write", async () => {
    const { storeId, token, id, lines } = await ownOrder();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url, ["order.refunded"]);
    const res = await refund(token, id, { Items: [{ OrderItemId: lines[0], Quantity: 1 }], Reason: "Damaged" });
    expect(res.status).toBe(200);
    await until(() => hook.accepted.length === 1);
    const body = verified(created.Secret, hook.all[0]!) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe("order.refunded");
    expect(body.data).toMatchObject({ StoreId: storeId, OrderId: id });
    const hookId = created.WebhookId;
    expect((await webhookDeliveries(storeId, hookId)).map((d) => d.Type)).toEqual(["order.refunded"]);
    // The repeat records no second event.
    await refund(token, id, { Items: [{ OrderItemId: lines[0], Quantity: 1 }], Reason: "Damaged" });
    expect((await webhookDeliveries(storeId, hookId)).map((d) => d.Type)).toEqual(["order.refunded"]);
  });
});

describe("bad refunds", () => {
  it("answers 400 naming the field, records nothing and queues nothing", async () => {
    const { storeId, token, sourceId, orders } = await importedOrders(2);
    const order = orders[0]!;
    const line = order.OrderItems[0]!;
    const otherLine = orders[1]!.OrderItems[0]!.OrderItemId;
    const cases: [unknown, string][] = [
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }] }, "Reason"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }], Reason: "   " }, "Reason"],
      [{ Items: [{ OrderItemId: otherLine, Quantity: 1 }], Reason: "x" }, "Items[0].OrderItemId"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: line.Quantity + 1 }], Reason: "x" }, "Items[0].Quantity"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1.5 }], Reason: "x" }, "Items[0].Quantity"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: -1 }], Reason: "x" }, "Items[0].Quantity"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1, Amount: 1_000_000 }], Reason: "x" }, "Items[0].Amount"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1, Amount: -3 }], Reason: "x" }, "Items[0].Amount"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1, Amount: 1.005 }], Reason: "x" }, "Items[0].Amount"],
      [{ ShippingAmount: 1_000, Reason: "x" }, "ShippingAmount"],
      [{ Reason: "nothing named" }, "Items"],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }], Reason: "x", ReturnId: "77777777" }, "ReturnId"],
      [{ Items: "all", Reason: "x" }, "Items"],
      [
        {
          Items: [
            { OrderItemId: line.OrderItemId, Quantity: 1 },
            { OrderItemId: line.OrderItemId, Quantity: 1 },
          ],
          Reason: "x",
        },
        "Items[1].OrderItemId",
      ],
      [{ Items: [{ OrderItemId: line.OrderItemId, Quantity: 1 }], Reason: "x".repeat(501) }, "Reason"],
    ];
    for (const [body, field] of cases) {
      const res = await refund(token, order.OrderId, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`).toBe(400);
      expect(JSON.parse(res.text).Message).toContain(field);
    }
    const broken = await call("PUT", `/v1/${token}/Orders/${order.OrderId}/Refund`, { raw: '{"Reason": ', headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    const huge = await call("PUT", `/v1/${token}/Orders/${order.OrderId}/Refund`, {
      raw: JSON.stringify({ Reason: "y".repeat(2_000_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    const after = await read(token, order.OrderId);
    expect(after.Refunds).toEqual([]);
    expect(after.RefundTotal).toBe(0);
    expect((await outboxOf(order.OrderId)).filter((r) => r.kind === "refund")).toEqual([]);
    expect(await deliveries(storeId, sourceId)).toEqual([]);
  });

  it("answers 404 for an unknown order and for another store's order", async () => {
    const mine = await ownOrder();
    const stranger = await storeWithToken({ scopes: SCOPES });
    const body = { Items: [{ OrderItemId: mine.lines[0], Quantity: 1 }], Reason: "x" };
    expect((await refund(stranger.token, mine.id, body)).status).toBe(404);
    expect((await refund(mine.token, "999999999", body)).status).toBe(404);
    expect((await read(mine.token, mine.id)).Refunds).toEqual([]);
  });
});
