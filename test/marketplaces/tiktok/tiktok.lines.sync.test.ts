// A TikTok Shop source's line-level and returns work through whole cycles fired by the Cron
// Trigger (the Worker's scheduled handler), with the fake TikTok Shop of this folder in place of
// the global fetch: a line shipped through /v1 UpdateStatus with Items leaves as a package of that
// line alone (the order split, then the package shipped), the other line after it; a line
// cancelled through /v1 reaches TikTok as the seller's cancellation of that line item; a return the
// buyer makes on TikTok comes in and is listed by GET /v1/{token}/Returns with its state; the
// seller's refund of it through PUT .../Refund reaches TikTok as the approval of the returned
// package, and a refund of a line without a return as TikTok's CreateReturn of type REFUND.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ALL_SCOPES, call, storeWithToken } from "../../helpers/api";
import { createSource, deliveries, fireCron, listOrders } from "../../helpers/sync";
import { createTiktokFake, TIKTOK_FAKE_APP_KEY, TIKTOK_FAKE_APP_SECRET, TIKTOK_FAKE_REFRESH_TOKEN, TIKTOK_FAKE_SHOP_ID } from "./tiktok-fake";
import { sampleOrder, sampleReturn } from "./tiktok-orders";
import { lineId, orderId, USPS } from "./tiktok-setup";

afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
const SETTINGS = {
  appKey: TIKTOK_FAKE_APP_KEY,
  appSecret: TIKTOK_FAKE_APP_SECRET,
  refreshToken: TIKTOK_FAKE_REFRESH_TOKEN,
  shopId: TIKTOK_FAKE_SHOP_ID,
  shippingProviders: { USPS },
};
const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];
const ALL_TIME = "fromDate=2000-01-01&toDate=2100-01-01&page=1&pageSize=100";
const RETURN_ID = "460000000000000777";

/** Order n with two line items in one package: SKU-n-1 at $12 and SKU-n-2 at $8, $0.50 tax each. */
function twoLines(n: number, from: number) {
  return sampleOrder({
    id: orderId(n),
    created: new Date(from),
    updated: new Date(from + n * 20_000),
    lines: [
      { id: lineId(n, 1), sku: `SKU-${n}-1`, price: 1200, tax: 50 },
      { id: lineId(n, 2), sku: `SKU-${n}-2`, price: 800, tax: 50 },
    ],
    shipping: 400,
  });
}

interface Item {
  OrderItemId: string;
  Sku: string;
  QuantityShipped: number;
  QuantityCancelled: number;
}

describe("a TikTok Shop source's lines, returns and refunds through the cron", () => {
  it("ships one line as its own package then the other, cancels a line, reads a return with its state, and refunds it and a line", async () => {
    let ahead = 0;
    const start = Date.now();
    const from = start - 60 * MINUTE;
    const fake = createTiktokFake({ now: () => new Date(Date.now() + ahead), orders: [twoLines(1, from), twoLines(2, from)] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken({ scopes: SCOPES });
    const sourceId = await createSource(storeId, { Type: "tiktok", Name: "TikTok Lines", Settings: SETTINGS });
    const cron = async (minutes: number) => {
      ahead = minutes * MINUTE;
      await fireCron(Date.now() + ahead);
    };

    await cron(0);
    const imported = await listOrders(token);
    expect(imported.map((o) => o.OrderSourceOrderNumber).sort()).toEqual([orderId(1), orderId(2)]);
    const one = imported.find((o) => o.OrderSourceOrderNumber === orderId(1))!;
    const two = imported.find((o) => o.OrderSourceOrderNumber === orderId(2))!;
    const [first, second] = (one.OrderItems as unknown as Item[]).map((i) => i.OrderItemId) as [string, string];
    const [twoFirst, twoSecond] = (two.OrderItems as unknown as Item[]).map((i) => i.OrderItemId) as [string, string];
    expect((one.OrderItems as unknown as Item[]).map((i) => i.Sku)).toEqual(["SKU-1-1", "SKU-1-2"]);

    // The first line of order 1 ships: TikTok splits it into a package of its own and ships that.
    const ship = (id: string, tracking: string, item: string) =>
      call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, {
        body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: tracking, DestinationShippingCarrier: "USPS", Items: [{ OrderItemId: item, Quantity: 1 }] },
      });
    const shipped = await ship(one.OrderId, "9400111899223197428401", first);
    expect(shipped.status, shipped.text).toBe(200);
    await cron(5);
    expect(fake.fulfilled.map((c) => [c.operation, c.orderId, c.detail])).toEqual([
      ["SplitOrders", orderId(1), `5800000000000000001: ${lineId(1, 1)}`],
      ["ShipPackage", orderId(1), `5800000000000000001: ${lineId(1, 1)} 9400111899223197428401`],
    ]);
    expect(fake.orders.get(orderId(1))!.line_items!.map((l) => [l.id, l.display_status, l.tracking_number ?? null])).toEqual([
      [lineId(1, 1), "AWAITING_COLLECTION", "9400111899223197428401"],
      [lineId(1, 2), "AWAITING_SHIPMENT", null],
    ]);

    // Then the other line, as a second package.
    expect((await ship(one.OrderId, "9400111899223197428402", second)).status).toBe(200);
    await cron(10);
    expect(fake.fulfilled.slice(2).map((c) => [c.operation, c.orderId, c.detail])).toEqual([
      ["ShipPackage", orderId(1), `116461413038700001: ${lineId(1, 2)} 9400111899223197428402`],
    ]);

    // A line of order 2 cancelled through /v1: the seller's cancellation of that line item.
    const cancelled = await call("PUT", `/v1/${token}/Orders/${two.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "CANCELED", Items: [{ OrderItemId: twoFirst, Quantity: 1 }] },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await cron(15);
    expect(fake.fulfilled.slice(3).map((c) => [c.operation, c.orderId, c.detail])).toEqual([["CancelOrder", orderId(2), lineId(2, 1)]]);
    expect(fake.orders.get(orderId(2))!.line_items!.map((l) => [l.id, l.display_status, l.cancel_user ?? null])).toEqual([
      [lineId(2, 1), "CANCELLED", "SELLER"],
      [lineId(2, 2), "AWAITING_SHIPMENT", null],
    ]);
    const rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => [d.OrderId, d.Kind, d.Status, d.Reference, d.Warning])).toEqual([
      [one.OrderId, "ship", "delivered", "5800000000000000001", null],
      [one.OrderId, "ship", "delivered", "116461413038700001", null],
      [two.OrderId, "cancel", "delivered", "410000000000000001", null],
    ]);
    const afterCancel = (await listOrders(token)).find((o) => o.OrderId === two.OrderId)!;
    expect((afterCancel.OrderItems as unknown as Item[]).map((i) => [i.OrderItemId, i.QuantityShipped, i.QuantityCancelled])).toEqual([
      [twoFirst, 0, 1],
      [twoSecond, 0, 0],
    ]);

    // The buyer sends the first line of order 1 back: the return comes in with the next cycle.
    fake.addReturn(
      sampleReturn({
        id: RETURN_ID,
        order: fake.orders.get(orderId(1))!,
        lineIds: [lineId(1, 1)],
        status: "BUYER_SHIPPED_ITEM",
        created: new Date(Date.now() + 16 * MINUTE),
      }),
    );
    await cron(20);
    const listed = await call("GET", `/v1/${token}/Returns?${ALL_TIME}`);
    expect(listed.status, listed.text).toBe(200);
    const returns = JSON.parse(listed.text).Returns as {
      ReturnId: string;
      OrderId: string;
      ReturnSourceNumber: string;
      Status: string;
      SourceStatus: string;
      Items: { OrderItemId: string; Sku: string; Quantity: number }[];
      RefundTotal: number;
    }[];
    expect(returns.map((r) => [r.OrderId, r.ReturnSourceNumber, r.Status, r.SourceStatus, r.RefundTotal])).toEqual([
      [one.OrderId, RETURN_ID, "Approved", "BUYER_SHIPPED_ITEM", 0],
    ]);
    expect(returns[0]!.Items.map((i) => [i.OrderItemId, i.Sku, i.Quantity])).toEqual([[first, "SKU-1-1", 1]]);

    // The seller refunds the return: TikTok's approval of the returned package, which refunds it.
    const refund = await call("PUT", `/v1/${token}/Orders/${one.OrderId}/Refund`, { body: { Reason: "Returned", ReturnId: returns[0]!.ReturnId } });
    expect(refund.status, refund.text).toBe(200);
    // And the line of order 2 that is left, without a return: CreateReturn of type REFUND.
    const lineRefund = await call("PUT", `/v1/${token}/Orders/${two.OrderId}/Refund`, {
      body: { Reason: "Damaged in transit", Items: [{ OrderItemId: twoSecond, Quantity: 1 }] },
    });
    expect(lineRefund.status, lineRefund.text).toBe(200);
    await cron(25);
    expect(fake.returned.map((c) => [c.operation, c.returnId, c.detail])).toEqual([
      ["ApproveReturn", RETURN_ID, "APPROVE_RECEIVED_PACKAGE"],
      ["CreateReturn", "460000000000000001", `${orderId(2)}: ${lineId(2, 2)} 8.50`],
    ]);
    const refunds = (await deliveries(storeId, sourceId)).filter((d) => d.Kind === "refund");
    expect(refunds.map((d) => [d.OrderId, d.Status, d.Reference, d.Warning])).toEqual([
      [one.OrderId, "delivered", RETURN_ID, null],
      [two.OrderId, "delivered", "460000000000000001", null],
    ]);

    // The next cycle reads the return refunded, and the seller's refund as a return of its own.
    await cron(30);
    const after = JSON.parse((await call("GET", `/v1/${token}/Returns?${ALL_TIME}`)).text).Returns as { ReturnSourceNumber: string; Status: string }[];
    expect(after.map((r) => [r.ReturnSourceNumber, r.Status])).toEqual([
      [RETURN_ID, "Refunded"],
      ["460000000000000001", "Refunded"],
    ]);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });
});
