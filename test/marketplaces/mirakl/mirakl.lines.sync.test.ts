// A Mirakl source's line-level and returns work through whole cycles fired by the Cron Trigger
// (the Worker's scheduled handler), with the fake Mirakl of this folder in place of the global
// fetch: a line shipped through /v1 UpdateStatus with Items leaves as an ST01 package naming that
// line alone, the other line after it; a line cancelled through /v1 reaches Mirakl as OR30 for that
// line; a return made on Mirakl comes in through RT11 and is listed by GET /v1/{token}/Returns with
// its state; the seller's refund of it through PUT .../Refund reaches Mirakl as OR28 by line.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ALL_SCOPES, call, storeWithToken } from "../../helpers/api";
import { createSource, deliveries, fireCron, listOrders, MINUTE } from "../../helpers/sync";
import { createMiraklFake, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL } from "./mirakl-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

const SETTINGS = { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, carriers: { "UPS Ground": "UPS" }, pushStock: false };
const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];
const ALL_TIME = "fromDate=2000-01-01&toDate=2100-01-01&page=1&pageSize=100";

interface Item {
  OrderItemId: string;
  Sku: string;
  QuantityShipped: number;
  QuantityCancelled: number;
}

describe("a Mirakl source's lines, returns and refunds through the cron", () => {
  it("ships one line as its own ST01 package then the other, cancels a line through OR30, reads an RT11 return with its state, refunds it through OR28", async () => {
    let at = Date.now();
    const fake = createMiraklFake({ now: () => new Date(at) });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    for (const id of ["M-1", "M-2"])
      fake.orders.add({
        id,
        state: "SHIPPING",
        createdAt: new Date(at - 30 * MINUTE),
        lines: [
          { sku: "SKU-1", quantity: 2, unitPrice: 15, tax: 3 },
          { sku: "SKU-2", quantity: 1, unitPrice: 40, tax: 4 },
        ],
      });
    const { storeId, token } = await storeWithToken({ scopes: SCOPES });
    const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl lines", Settings: SETTINGS });
    const cron = async (minutesLater: number) => {
      at += minutesLater * MINUTE;
      await fireCron(at);
    };

    await cron(0);
    const imported = await listOrders(token);
    expect(imported.map((o) => o.OrderSourceOrderNumber).sort()).toEqual(["M-1", "M-2"]);
    const one = imported.find((o) => o.OrderSourceOrderNumber === "M-1")!;
    const two = imported.find((o) => o.OrderSourceOrderNumber === "M-2")!;
    const [first, second] = (one.OrderItems as unknown as Item[]).map((i) => i.OrderItemId) as [string, string];
    const [twoFirst, twoSecond] = (two.OrderItems as unknown as Item[]).map((i) => i.OrderItemId) as [string, string];

    // Both units of the first line of M-1 ship: one ST01 package naming that line alone.
    const ship = (id: string, tracking: string, item: string, quantity: number) =>
      call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, {
        body: {
          OrderStatus: "SHIPPED",
          ShipmentTrackingNumber: tracking,
          DestinationShippingCarrier: "UPS Ground",
          Items: [{ OrderItemId: item, Quantity: quantity }],
        },
      });
    const shipped = await ship(one.OrderId, "1Z999AA10123456784", first, 2);
    expect(shipped.status, shipped.text).toBe(200);
    await cron(2);
    const st01 = (n: number, line: string, quantity: number, tracking: string) => ({
      shipments: [
        {
          order_id: "M-1",
          shipment_lines: [{ order_line_id: line, quantity, package_reference: `hub-${n}` }],
          tracking: { carrier_code: "UPS", tracking_number: tracking },
          shipped: true,
        },
      ],
    });
    const packages = () => fake.calls("ST01").map((r) => r.body as { shipments: { shipment_lines: { package_reference: string }[] }[] });
    const firstPackage = Number(packages()[0]!.shipments[0]!.shipment_lines[0]!.package_reference.slice(4));
    expect(packages()).toEqual([st01(firstPackage, "M-1-1", 2, "1Z999AA10123456784")]);
    expect(fake.orders.get("M-1")!.order_state).toBe("SHIPPING");

    // Then the other line, as a second package: Mirakl has both lines shipped.
    expect((await ship(one.OrderId, "1Z999AA10123456785", second, 1)).status).toBe(200);
    await cron(2);
    expect(packages()).toEqual([st01(firstPackage, "M-1-1", 2, "1Z999AA10123456784"), st01(firstPackage + 1, "M-1-2", 1, "1Z999AA10123456785")]);
    expect(fake.orders.lines.shipments.map((s) => [s.id, s.status, s.shipment_lines!.map((l) => [l.order_line_id, l.quantity])])).toEqual([
      ["SHIP-1", "SHIPPED", [["M-1-1", 2]]],
      ["SHIP-2", "SHIPPED", [["M-1-2", 1]]],
    ]);
    expect(fake.orders.get("M-1")!.order_state).toBe("SHIPPED");

    // One unit of M-2's first line cancelled through /v1: OR30 for that unit, its share of the tax
    // with it. The /v1 cancellation carries no reason: the hub's own ("Canceled by seller") matches
    // none of the operator's, so the operator's first CANCELATION reason goes, and the warning says so.
    const cancelled = await call("PUT", `/v1/${token}/Orders/${two.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "CANCELED", Items: [{ OrderItemId: twoFirst, Quantity: 1 }] },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await cron(2);
    expect(fake.calls("OR30").map((r) => [r.method, r.path, r.body])).toEqual([
      [
        "PUT",
        "/api/orders/cancel",
        {
          order_tax_mode: "TAX_EXCLUDED",
          cancelations: [
            {
              order_line_id: "M-2-1",
              quantity: 1,
              amount: 15,
              shipping_amount: 0,
              reason_code: "34",
              currency_iso_code: "USD",
              taxes: [{ code: "TAXDEFAULT", amount: 1.5 }],
              shipping_taxes: [],
            },
          ],
        },
      ],
    ]);
    expect(fake.orders.get("M-2")!.order_lines!.map((l) => [l.order_line_id, l.quantity, (l.cancelations ?? []).map((c) => c.quantity)])).toEqual([
      ["M-2-1", 2, [1]],
      ["M-2-2", 1, []],
    ]);
    expect((await deliveries(storeId, sourceId)).map((d) => [d.OrderId, d.Kind, d.Status, d.Reference, d.Warning])).toEqual([
      [one.OrderId, "ship", "delivered", "SHIP-1", null],
      [one.OrderId, "ship", "delivered", "SHIP-2", null],
      [
        two.OrderId,
        "cancel",
        "delivered",
        "CANCEL-3",
        'reason "Canceled by seller" is none of Mirakl\'s CANCELATION reasons: sent as 34 (Cancelled by the client prior to shipping)',
      ],
    ]);

    // The buyer returns one unit of M-1's first line on Mirakl: RT11 (polled every 15 minutes) brings it in.
    fake.orders.lines.addReturn({ id: "RET-1", orderId: "M-1", lines: [{ lineId: "M-1-1", quantity: 1, reason: "RETURN_BROKEN_ITEM" }] });
    await cron(16);
    const after = (await listOrders(token)).find((o) => o.OrderId === two.OrderId)!;
    expect((after.OrderItems as unknown as Item[]).map((i) => [i.OrderItemId, i.QuantityShipped, i.QuantityCancelled])).toEqual([
      [twoFirst, 0, 1],
      [twoSecond, 0, 0],
    ]);
    const listed = await call("GET", `/v1/${token}/Returns?${ALL_TIME}`);
    expect(listed.status, listed.text).toBe(200);
    const returns = JSON.parse(listed.text).Returns as {
      ReturnId: string;
      OrderId: string;
      ReturnSourceNumber: string;
      Status: string;
      SourceStatus: string;
      Reason: string | null;
      Items: { OrderItemId: string; Sku: string; Quantity: number }[];
      RefundTotal: number;
    }[];
    expect(returns.map((r) => [r.OrderId, r.ReturnSourceNumber, r.Status, r.SourceStatus, r.Reason, r.RefundTotal])).toEqual([
      [one.OrderId, "RET-1", "Requested", "WAITING_ACCEPTANCE", "RETURN_BROKEN_ITEM", 0],
    ]);
    expect(returns[0]!.Items.map((i) => [i.OrderItemId, i.Sku, i.Quantity])).toEqual([[first, "SKU-1", 1]]);

    // The seller refunds the return (a reason the operator lists, matched by its label): OR28 for
    // the returned unit, its price and tax.
    const refund = await call("PUT", `/v1/${token}/Orders/${one.OrderId}/Refund`, { body: { Reason: "Item returned", ReturnId: returns[0]!.ReturnId } });
    expect(refund.status, refund.text).toBe(200);
    expect((JSON.parse(refund.text).Refund as { Total: number }).Total).toBe(16.5);
    await cron(2);
    expect(fake.calls("OR28").map((r) => [r.method, r.path, r.body])).toEqual([
      [
        "PUT",
        "/api/orders/refund",
        { order_tax_mode: "TAX_INCLUDED", refunds: [{ order_line_id: "M-1-1", amount: 16.5, shipping_amount: 0, reason_code: "17", quantity: 1 }] },
      ],
    ]);
    const refunds = (await deliveries(storeId, sourceId)).filter((d) => d.Kind === "refund");
    expect(refunds.map((d) => [d.OrderId, d.Status, d.Reference, d.Warning])).toEqual([[one.OrderId, "delivered", "REFUND-4", null]]);
    const refunded = JSON.parse((await call("GET", `/v1/${token}/Returns/${returns[0]!.ReturnId}`)).text).Returns as { RefundTotal: number }[];
    expect(refunded[0]!.RefundTotal).toBe(16.5);
    expect(fake.violations).toEqual([]);
  });
});
