// The Walmart connector inside a real cycle: the cycle's fetch is the global one, replaced here by
// the fake Walmart of test/marketplaces/walmart (no network), so this is what the cron would do in production.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWalmartConnector } from "../../../src/marketplaces/walmart/walmart.connector";
import { admin, call, storeWithToken } from "../../helpers/api";
import { createSource, cycleAt, deliveries, listOrders, type WireOrder } from "../../helpers/sync";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET, type WalmartFake } from "./walmart-fake";
import { badDaySuite } from "../../helpers/bad-day";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a Walmart source in a sync cycle", () => {
  it("imports Walmart's orders and delivers an acknowledgement to it", async () => {
    const fake = createWalmartFake();
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "walmart",
      Name: "Walmart US",
      Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    });

    const first = await cycleAt(sourceId, Date.now());
    expect(first.error).toBeNull();
    expect(first.imported).toBeGreaterThan(0);
    const orders = await listOrders(token);
    expect(orders).toHaveLength(first.imported);
    expect(orders.every((o) => o.OrderSource === "Walmart US" && o.SyncStatus === "Enabled")).toBe(true);
    // Lines Walmart reports shipped or cancelled reach the order (decisions 12): its documented
    // orders are 11 still Created, 3 shipped and 6 cancelled.
    const statuses = new Map<string, number>();
    for (const o of orders)
      statuses.set(
        `${o.SourceOrderStatus}:${o.OrderStatus}:${o.FulfillmentStatus}`,
        (statuses.get(`${o.SourceOrderStatus}:${o.OrderStatus}:${o.FulfillmentStatus}`) ?? 0) + 1,
      );
    expect(Object.fromEntries(statuses)).toEqual({ "Created:New:Unshipped": 11, "Shipped:Shipped:Shipped": 3, "Cancelled:Canceled:Canceled": 6 });

    // An order Walmart still has in Created (most documented ones are cancelled or shipped).
    const order = orders.find((o) => o.SourceOrderStatus === "Created")!;
    expect((await call("PUT", `/v1/${token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-9`)).status).toBe(200);
    const second = await cycleAt(sourceId, Date.now());
    expect(second.delivered).toBe(1);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered"]);
    const acks = fake.apiRequests().filter((r) => r.method === "POST" && r.path.endsWith("/acknowledge"));
    expect(acks.map((r) => r.path)).toEqual([`/v3/orders/${encodeURIComponent(order.OrderSourceOrderNumber)}/acknowledge`]);
    expect(fake.violations).toEqual([]);
    expect(fake.order(order.OrderSourceOrderNumber)!.orderLines!.orderLine!.map((l) => l.orderLineStatuses!.orderLineStatus!.map((s) => s.status))).toEqual([
      ["Acknowledged"],
    ]);
  });

  async function walmartStore() {
    const fake = createWalmartFake();
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "walmart",
      Name: "Walmart US",
      Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    });
    expect((await cycleAt(sourceId, Date.now())).error).toBeNull();
    const orders = await listOrders(token);
    const open = orders.filter((o) => o.SourceOrderStatus === "Created");
    return { fake, storeId, token, sourceId, orders, open };
  }
  const lineStatuses = (fake: WalmartFake, id: string) =>
    fake.order(id)!.orderLines!.orderLine!.flatMap((l) => l.orderLineStatuses!.orderLineStatus!.map((s) => `${l.lineNumber}:${s.status}`));
  const shipBody = { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z999AA10123456784", DestinationShippingCarrier: "UPS" };
  const shipped = (fake: WalmartFake) => fake.apiRequests().filter((r) => r.operationId === "shippingUpdates");

  it("ships and cancels through whole cycles: Walmart's lines move, and the next import reads them back", async () => {
    const { fake, storeId, token, sourceId, open } = await walmartStore();
    expect(open.length).toBeGreaterThanOrEqual(3);
    const [a, b] = open as [WireOrder, WireOrder];
    expect((await call("PUT", `/v1/${token}/Orders/${a.OrderId}/UpdateStatus`, { body: shipBody })).status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/${b.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ delivered: 2, failed: 0, error: null });
    expect(lineStatuses(fake, a.OrderSourceOrderNumber).every((s) => s.endsWith(":Shipped"))).toBe(true);
    expect(lineStatuses(fake, b.OrderSourceOrderNumber).every((s) => s.endsWith(":Cancelled"))).toBe(true);
    // Walmart's own status words come back with the next import (the cursor reaches back 10 minutes).
    await cycleAt(sourceId, Date.now());
    const byId = new Map((await listOrders(token)).map((o) => [o.OrderId, o]));
    expect(byId.get(a.OrderId)!.SourceOrderStatus).toBe("Shipped");
    expect(byId.get(b.OrderId)!.SourceOrderStatus).toBe("Cancelled");
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered", "delivered"]);
    expect(fake.violations).toEqual([]);
  });

  it("a Walmart 500 in the middle of a round: what went out stays out, the rest goes next cycle, no line is shipped twice", async () => {
    const { fake, storeId, token, sourceId, open } = await walmartStore();
    const three = open.slice(0, 3);
    for (const order of three) {
      expect((await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, { body: shipBody })).status).toBe(200);
    }
    // The first shipment is taken, the second meets a 500: the cycle stops there.
    let shipmentsSeen = 0;
    const real = fake.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      if (new Request(input, init).url.endsWith("/shipping") && ++shipmentsSeen === 2) fake.failNext({ status: 500 });
      return real(input, init);
    });
    const first = await cycleAt(sourceId, Date.now());
    expect(first).toMatchObject({ delivered: 1, retrying: 1 });
    expect(first.error).toMatch(/^delivery: Walmart 500/);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered", "pending", "pending"]);

    const second = await cycleAt(sourceId, Date.now() + 5 * 60_000);
    expect(second).toMatchObject({ delivered: 2, failed: 0 });
    const accepted = shipped(fake)
      .filter((r) => r.status === 200)
      .map((r) => r.path);
    expect(accepted.sort()).toEqual(three.map((o) => `/v3/orders/${o.OrderSourceOrderNumber}/shipping`).sort());
    expect(shipped(fake).filter((r) => r.status === 400)).toEqual([]);
    for (const order of three) expect(lineStatuses(fake, order.OrderSourceOrderNumber).every((s) => s.endsWith(":Shipped"))).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it("Walmart refuses a second shipment of shipped lines: the correction fails for good with Walmart's message", async () => {
    const { fake, storeId, token, sourceId, open } = await walmartStore();
    const order = open[0]!;
    await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, { body: shipBody });
    await cycleAt(sourceId, Date.now());
    // The seller corrects the tracking number: a second shipment of the same lines.
    await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, { body: { ...shipBody, ShipmentTrackingNumber: "1Z999AA10123456785" } });
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ failed: 1, retrying: 0 });
    const rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => d.Status)).toEqual(["delivered", "failed"]);
    expect(rows[1]!.LastError).toMatch(/^Walmart 400 INVALID_REQUEST_CONTENT\.GMP_ORDER_API: Order \d+ line \d+ is already shipped: 1 sent, 0 open/);
    const [again] = (await listOrders(token)).filter((o) => o.OrderId === order.OrderId);
    expect(again!.SyncUserErrorMessage).toBe(rows[1]!.LastError);
    expect(shipped(fake).map((r) => r.status)).toEqual([200, 400]);
  });

  it("Walmart refuses to ship a cancelled order and to cancel a shipped one", async () => {
    const fake = createWalmartFake();
    const connector = createWalmartConnector({
      sourceId: "s",
      settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
      fetch: fake.fetch,
      now: () => new Date(),
    });
    const page = await connector.fetchOrders({ since: new Date(0), until: new Date() }, null);
    const created = page.orders.find((o) => o.sourceOrderStatus === "Created")!;
    const cancelled = page.orders.find((o) => o.sourceOrderStatus === "Cancelled")!;
    const delivery = (o: typeof created) => ({
      id: 1,
      idempotencyKey: "s-1",
      earlier: [],
      order: {
        sourceOrderNumber: o.sourceOrderNumber,
        sourceCustomerOrderNumber: null,
        sellerOrderNumber: null,
        sourceData: {},
        lines: o.items.map((i) => ({ sourceLineId: i.sourceLineId, sku: i.sku, quantity: i.quantity })),
      },
    });
    const shipment = (o: typeof created) => ({
      trackingNumber: "1Z1",
      carrier: "UPS",
      shippingMethod: null,
      shippedAt: new Date(),
      lines: o.items.map((i) => ({ sourceLineId: i.sourceLineId, quantity: i.quantity })),
    });
    await expect(connector.ship({ ...delivery(cancelled), kind: "ship", shipment: shipment(cancelled) })).rejects.toThrow(/is cancelled and cannot be shipped/);
    await expect(connector.acknowledge({ ...delivery(cancelled), kind: "acknowledge", sellerOrderNumber: null })).rejects.toThrow(
      /is cancelled and cannot be acknowledged/,
    );
    expect(await connector.ship({ ...delivery(created), kind: "ship", shipment: shipment(created) })).toEqual({ state: "delivered" });
    const refused = connector.cancel({ ...delivery(created), kind: "cancel", reason: "Canceled by seller" });
    await expect(refused).rejects.toMatchObject({ status: 400, retryable: false });
    await expect(refused).rejects.toThrow(/is shipped and cannot be cancelled/);
    expect(fake.violations).toEqual([]);
  });

  it("sets aside an order with a line Walmart sent without a lineNumber, and imports the rest of the page", async () => {
    const fake = createWalmartFake();
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    fake.editOrder("1796277083022", (o) => {
      delete o.orderLines!.orderLine![0]!.lineNumber;
    });
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "walmart",
      Name: "Walmart US",
      Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    });
    const summary = await cycleAt(sourceId, Date.now());
    expect(summary).toMatchObject({ setAside: 1, fetched: 19, imported: 19, error: null });
    const list = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).json.SetAside as {
      OrderSourceOrderNumber: string;
      Reason: string;
      Record: { purchaseOrderId: string };
    }[];
    expect(list).toEqual([
      expect.objectContaining({ OrderSourceOrderNumber: "1796277083022", Reason: "Walmart order 1796277083022 line #1 has no lineNumber" }),
    ]);
    expect(list[0]!.Record.purchaseOrderId).toBe("1796277083022");
    expect((await listOrders(token)).map((o) => o.OrderSourceOrderNumber)).not.toContain("1796277083022");
  });
});

describe("a Walmart source on a bad day", () => {
  badDaySuite({
    type: "walmart",
    settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    hosts: ["marketplace.walmartapis.com"],
    fake: (now) => createWalmartFake({ now }),
    orderList: {},
    token: { target: "token" },
    pausedBy: { target: "token" },
    // An orderLine that is an object, not the list the description has: a TypeError in mapping.
    spoilRecord(fake) {
      (fake as WalmartFake).editOrder("1796277083022", (order) => {
        order.orderLines = { orderLine: { lineNumber: "1" } as never };
      });
      return "1796277083022";
    },
  });
});
