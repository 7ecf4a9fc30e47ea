// Returns (decisions 13) through real requests: imported from the simulated marketplace each
// cycle, listed, counted and read over /v1 (scope ReturnsRead), received with Restock (scope
// ReturnsUpdate: stock goes up once), set aside when the hub does not hold their order, and the
// bad input that must answer 400 or 404 without storing anything.
import { beforeAll, describe, expect, it } from "vitest";
import type { WireReturn } from "../../src/returns/returns.wire";
import { ALL_SCOPES, admin, call, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, deliveries, HOUR, listOrders, patchSource, received, simulatedWindow } from "../helpers/sync";
import { putStock, quantityOf } from "../stock/helpers";
import { createWebhook } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified } from "../webhooks/webhook-receiver";

beforeAll(installReceiver);

const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];
const ALL_TIME = "fromDate=2000-01-01&toDate=2100-01-01";

/**
 * A store with a simulated source of `count` orders made 8 hours ago and more (so their returns,
 * asked 6 hours after the order, exist and are not yet approved), every `every`th of them coming
 * back, imported in one cycle.
 */
async function storeWithReturns(count: number, every: number, settings: Record<string, unknown> = {}) {
  const { storeId, token } = await storeWithToken({ scopes: SCOPES });
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(count, 8 * HOUR), returnsEvery: every, ...settings } });
  const summary = await cycleAt(sourceId, Date.now());
  return { storeId, token, sourceId, summary };
}

const PAGE = `${ALL_TIME}&page=1&pageSize=100`;

async function listReturns(token: string, query = PAGE): Promise<WireReturn[]> {
  const res = await call("GET", `/v1/${token}/Returns?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json.Returns as WireReturn[];
}

async function getReturn(token: string, id: string): Promise<WireReturn> {
  const res = await call("GET", `/v1/${token}/Returns/${id}`);
  expect(res.status, res.text).toBe(200);
  return (res.json.Returns as WireReturn[])[0]!;
}

const receive = (token: string, id: string, body: unknown) => call("PUT", `/v1/${token}/Returns/${id}/Receive`, { body });

describe("returns imported from the marketplace", () => {
  it("imports every return of the window after the orders, names the order's lines and answers them by list, count and id", async () => {
    // Orders 5 minutes apart; with returnsEvery 4 the orders whose index divides by 4 come back:
    // 20 orders hold exactly 5 such indexes.
    const { token, summary } = await storeWithReturns(20, 4);
    expect(summary.imported).toBe(20);
    expect(summary.returnsImported).toBe(5);
    const orders = await listOrders(token);
    const returns = await listReturns(token);
    expect(returns).toHaveLength(5);
    const count = await call("GET", `/v1/${token}/Returns/count?${ALL_TIME}`);
    expect(count.status).toBe(200);
    expect(JSON.parse(count.text).Count).toBe(5);
    for (const ret of returns) {
      const order = orders.find((o) => o.OrderId === ret.OrderId)!;
      expect(order, `order ${ret.OrderId} of return ${ret.ReturnId}`).toBeDefined();
      expect(ret.OrderSourceOrderNumber).toBe(order.OrderSourceOrderNumber);
      expect(ret.Status).toBe("Requested");
      expect(ret.SourceStatus).toBe("REQUESTED");
      expect(ret.ReturnSourceNumber).toMatch(/^RMA-/);
      expect(ret.Items).toHaveLength(1);
      expect(ret.Items[0]).toMatchObject({
        OrderItemId: order.OrderItems[0]!.OrderItemId,
        Sku: order.OrderItems[0]!.Sku,
        Quantity: 1,
        QuantityReceived: 0,
        QuantityRestocked: 0,
      });
      expect(ret.RefundTotal).toBe(0);
      expect(await getReturn(token, ret.ReturnId)).toEqual(ret);
    }
    // Newest request first when asked so; the status filter in any case.
    const desc = await listReturns(token, `${PAGE}&sortBy=DateRequested&sortDirection=desc`);
    expect(desc.map((r) => r.ReturnId)).toEqual(
      [...returns].sort((a, b) => Date.parse(b.DateRequested!) - Date.parse(a.DateRequested!)).map((r) => r.ReturnId),
    );
    expect(await listReturns(token, `${PAGE}&status=requested`)).toHaveLength(5);
    expect(await listReturns(token, `${PAGE}&status=RECEIVED`)).toHaveLength(0);
  });

  it("pages with page numbers and with cursors, each return once", async () => {
    const { token } = await storeWithReturns(30, 2);
    const all = await listReturns(token);
    expect(all).toHaveLength(15);
    const byPage: string[] = [];
    for (let page = 1; page <= 4; page++) byPage.push(...(await listReturns(token, `${ALL_TIME}&page=${page}&pageSize=4`)).map((r) => r.ReturnId));
    expect(byPage).toEqual(all.map((r) => r.ReturnId));
    const byCursor: string[] = [];
    let res = await call("GET", `/v1/${token}/Returns?${ALL_TIME}&pageSize=4&page=1`);
    for (let i = 0; i < 10; i++) {
      expect(res.status, res.text).toBe(200);
      const body = JSON.parse(res.text) as { Returns: WireReturn[]; Paging: { NextCursor: string | null } };
      byCursor.push(...body.Returns.map((r) => r.ReturnId));
      if (!body.Paging.NextCursor) break;
      res = await call("GET", `/v1/${token}/Returns?${ALL_TIME}&pageSize=4&cursor=${encodeURIComponent(body.Paging.NextCursor)}`);
    }
    expect(byCursor).toEqual(all.map((r) => r.ReturnId));
  });

  it("imports a return once however many cycles see it, and updates it when the marketplace moves it on", async () => {
    const { token, sourceId } = await storeWithReturns(8, 4);
    const first = await listReturns(token);
    expect(first).toHaveLength(2);
    await cycleAt(sourceId, Date.now());
    expect(await listReturns(token)).toEqual(first);
    // Twelve hours after its order the marketplace approves it: a cycle then imports the change.
    const later = await cycleAt(sourceId, Date.now() + 6 * HOUR);
    // Both are fetched again; neither is new.
    expect([later.returnsFetched, later.returnsImported]).toEqual([2, 0]);
    const after = await listReturns(token);
    expect(after.map((r) => r.ReturnId)).toEqual(first.map((r) => r.ReturnId));
    expect(after.map((r) => r.Status)).toEqual(["Approved", "Approved"]);
  });

  it("sets aside a return whose order the hub does not hold, and imports it once the order is in", async () => {
    const { storeId, token } = await storeWithToken({ scopes: SCOPES });
    const sourceId = await createSource(storeId, {
      Settings: { ...simulatedWindow(4, 8 * HOUR), returnsEvery: 2, fault: { kind: "http500", operations: ["fetchOrders"] } },
    });
    const failed = await cycleAt(sourceId, Date.now());
    expect(failed.imported).toBe(0);
    expect(failed.returnsSetAside).toBe(2);
    expect(await listReturns(token)).toHaveLength(0);
    const setAside = await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`);
    expect(setAside.status).toBe(200);
    expect((JSON.parse(setAside.text).SetAsideReturns as unknown[]).length).toBe(2);

    await patchSource(storeId, sourceId, { Settings: { fault: null } });
    await cycleAt(sourceId, Date.now());
    expect(await listOrders(token)).toHaveLength(4);
    const retried = await admin("POST", `/stores/${storeId}/sources/${sourceId}/set-aside/retry`);
    expect(retried.status, retried.text).toBe(200);
    expect(await listReturns(token)).toHaveLength(2);
    expect((JSON.parse((await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).text).SetAsideReturns as unknown[]).length).toBe(0);
  });
});

describe("PUT /v1/{token}/Returns/{returnId}/Receive", () => {
  it("records what came back and, with Restock, adds it to the Sku's stock exactly once", async () => {
    const { storeId, token, sourceId } = await storeWithReturns(8, 4);
    expect(await listReturns(token)).toHaveLength(2);
    const [ret] = await listReturns(token);
    const item = ret!.Items[0]!;
    await putStock(storeId, [{ Sku: item.Sku, Quantity: 10 }]);
    const res = await receive(token, ret!.ReturnId, { Items: [{ OrderItemId: item.OrderItemId, Quantity: 1 }], Restock: true });
    expect(res.status, res.text).toBe(200);
    const answered = JSON.parse(res.text).Return as WireReturn;
    expect(answered.Status).toBe("Received");
    expect(answered.Items[0]).toMatchObject({ QuantityReceived: 1, QuantityRestocked: 1 });
    expect(await quantityOf(storeId, item.Sku)).toBe(11);
    // The same call again: nothing changes, nothing more in stock, nothing more for the marketplace.
    const outboxBefore = await deliveries(storeId, sourceId);
    const again = await receive(token, ret!.ReturnId, { Items: [{ OrderItemId: item.OrderItemId, Quantity: 1 }], Restock: true });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text).Return).toEqual(answered);
    expect(await quantityOf(storeId, item.Sku)).toBe(11);
    expect(await deliveries(storeId, sourceId)).toEqual(outboxBefore);
    // Two concurrent identical receipts of another return restock once.
    const other = (await listReturns(token)).find((r) => r.ReturnId !== ret!.ReturnId)!;
    {
      await putStock(storeId, [{ Sku: other.Items[0]!.Sku, Quantity: 20 }]);
      const body = { Items: [{ OrderItemId: other.Items[0]!.OrderItemId, Quantity: 1 }], Restock: true };
      const both = await Promise.all([receive(token, other.ReturnId, body), receive(token, other.ReturnId, body)]);
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      expect(await quantityOf(storeId, other.Items[0]!.Sku)).toBe(21);
    }
  });

  it("without Restock records the receipt and leaves the stock alone; a receipt is delivered to the marketplace at the next cycle", async () => {
    const { storeId, token, sourceId } = await storeWithReturns(4, 4);
    const [ret] = await listReturns(token);
    const item = ret!.Items[0]!;
    await putStock(storeId, [{ Sku: item.Sku, Quantity: 3 }]);
    const res = await receive(token, ret!.ReturnId, { Items: [{ OrderItemId: item.OrderItemId, Quantity: 1 }] });
    expect(res.status, res.text).toBe(200);
    expect((JSON.parse(res.text).Return as WireReturn).Items[0]).toMatchObject({ QuantityReceived: 1, QuantityRestocked: 0 });
    expect(await quantityOf(storeId, item.Sku)).toBe(3);
    expect((await deliveries(storeId, sourceId)).map((d) => [d.Kind, d.Status])).toEqual([["receiveReturn", "pending"]]);
    await cycleAt(sourceId, Date.now());
    const sent = (await received(storeId, sourceId)).filter((r) => r.Operation === "receiveReturn");
    expect(sent.map((r) => r.OrderSourceOrderNumber)).toEqual([ret!.OrderSourceOrderNumber]);
    expect((await deliveries(storeId, sourceId)).map((d) => [d.Kind, d.Status])).toEqual([["receiveReturn", "delivered"]]);
  });

  it("answers 400 naming the field, and stores nothing, for lines not of the return, too many, fractional or negative quantities", async () => {
    const { storeId, token, sourceId } = await storeWithReturns(8, 4);
    const [ret, other] = await listReturns(token);
    const item = ret!.Items[0]!;
    await putStock(storeId, [{ Sku: item.Sku, Quantity: 5 }]);
    const cases: [unknown, string][] = [
      [{ Items: [{ OrderItemId: other!.Items[0]!.OrderItemId, Quantity: 1 }], Restock: true }, "Items[0].OrderItemId"],
      [{ Items: [{ OrderItemId: item.OrderItemId, Quantity: 2 }], Restock: true }, "Items[0].Quantity"],
      [{ Items: [{ OrderItemId: item.OrderItemId, Quantity: 0.5 }], Restock: true }, "Items[0].Quantity"],
      [{ Items: [{ OrderItemId: item.OrderItemId, Quantity: -1 }], Restock: true }, "Items[0].Quantity"],
      [{ Items: [{ OrderItemId: "abc", Quantity: 1 }] }, "Items[0].OrderItemId"],
      [{ Items: [] }, "Items"],
      [{ Items: [{ OrderItemId: item.OrderItemId, Quantity: 1 }], Restock: "yes" }, "Restock"],
    ];
    for (const [body, field] of cases) {
      const res = await receive(token, ret!.ReturnId, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(JSON.parse(res.text).Message).toContain(field);
    }
    const broken = await call("PUT", `/v1/${token}/Returns/${ret!.ReturnId}/Receive`, { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    expect(await getReturn(token, ret!.ReturnId)).toEqual(ret);
    expect(await quantityOf(storeId, item.Sku)).toBe(5);
    expect(await deliveries(storeId, sourceId)).toEqual([]);
  });

  it("answers 404 for an unknown return and for another store's, and 401 without the scope", async () => {
    const { token } = await storeWithReturns(4, 4);
    const mine = (await listReturns(token))[0]!;
    const stranger = await storeWithToken({ scopes: SCOPES });
    const body = { Items: [{ OrderItemId: mine.Items[0]!.OrderItemId, Quantity: 1 }], Restock: true };
    expect((await receive(stranger.token, mine.ReturnId, body)).status).toBe(404);
    expect((await call("GET", `/v1/${stranger.token}/Returns/${mine.ReturnId}`)).status).toBe(404);
    expect((await receive(token, "999999999", body)).status).toBe(404);
    const readOnly = await storeWithToken({ scopes: ["ReturnsRead"] });
    expect((await receive(readOnly.token, mine.ReturnId, body)).status).toBe(401);
    const noReturns = await storeWithToken({ scopes: ALL_SCOPES });
    expect((await call("GET", `/v1/${noReturns.token}/Returns?${PAGE}`)).status).toBe(401);
    expect(await getReturn(token, mine.ReturnId)).toEqual(mine);
  });

  it("answers 400 naming the field for bad list queries", async () => {
    const { token } = await storeWithReturns(4, 4);
    for (const [query, field] of [
      ["fromDate=2000-01-01&page=1&pageSize=10", "toDate"],
      [`${PAGE}&status=lost`, "status"],
      [`${PAGE}&sortBy=Price`, "sortBy"],
      ["fromDate=2100-01-01&toDate=2000-01-01&page=1&pageSize=10", "fromDate"],
      [`${ALL_TIME}&pageSize=10&cursor=forged`, "cursor"],
    ] as const) {
      const res = await call("GET", `/v1/${token}/Returns?${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(400);
      expect(JSON.parse(res.text).Message).toContain(field);
    }
  });
});

describe("returns, refunds and webhooks together", () => {
  it("records return.created at the import and return.updated at a receipt and at the refund naming the return, which settles it", async () => {
    const { storeId, token } = await storeWithToken({ scopes: SCOPES });
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url, ["return.created", "return.updated", "order.refunded"]);
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(4, 8 * HOUR), returnsEvery: 4 } });
    await cycleAt(sourceId, Date.now());
    const [ret] = await listReturns(token);
    expect(ret).toBeDefined();
    await until(() => hook.accepted.length === 1);
    const first = verified(created.Secret, hook.all[0]!) as { type: string; data: Record<string, unknown> };
    expect(first.type).toBe("return.created");
    expect(first.data).toMatchObject({ StoreId: storeId, ReturnId: ret!.ReturnId, OrderId: ret!.OrderId });

    const item = ret!.Items[0]!;
    expect((await receive(token, ret!.ReturnId, { Items: [{ OrderItemId: item.OrderItemId, Quantity: 1 }] })).status).toBe(200);
    await until(() => hook.accepted.length === 2);
    expect((verified(created.Secret, hook.all[1]!) as { type: string }).type).toBe("return.updated");

    // A refund naming the return, without Items, refunds what the return takes back.
    const res = await call("PUT", `/v1/${token}/Orders/${ret!.OrderId}/Refund`, { body: { Reason: "Returned", ReturnId: ret!.ReturnId } });
    expect(res.status, res.text).toBe(200);
    const refund = JSON.parse(res.text).Refund as { ReturnId: string; Items: { OrderItemId: string; Quantity: number }[]; Total: number };
    expect(refund.ReturnId).toBe(ret!.ReturnId);
    expect(refund.Items.map((i) => [i.OrderItemId, i.Quantity])).toEqual([[item.OrderItemId, 1]]);
    const settled = await getReturn(token, ret!.ReturnId);
    expect(settled.Status).toBe("Refunded");
    expect(settled.RefundTotal).toBe(refund.Total);
    await until(() => hook.accepted.length === 4);
    expect(
      hook.all
        .slice(2)
        .map((r) => (verified(created.Secret, r) as { type: string }).type)
        .sort(),
    ).toEqual(["order.refunded", "return.updated"]);
    // The same refund again: nothing more.
    expect((await call("PUT", `/v1/${token}/Orders/${ret!.OrderId}/Refund`, { body: { Reason: "Returned", ReturnId: ret!.ReturnId } })).status).toBe(200);
    expect((await getReturn(token, ret!.ReturnId)).RefundTotal).toBe(refund.Total);
  });
});
