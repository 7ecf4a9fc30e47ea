// The operator's orders routes (what the console's orders page reads): search by number, filter
// by status and date, paging newest first, one order with its items and its deliveries, another
// store's order not found, bad queries 400 naming the parameter.
import { describe, expect, it } from "vitest";
import { admin, call, insert, storeWithToken } from "../helpers/api";
import { createSource } from "../helpers/sync";

describe("GET /admin/v1/stores/{storeId}/orders", () => {
  it("finds an order by marketplace number, seller number or OrderId, and nothing else", async () => {
    const { storeId, token } = await storeWithToken();
    const a = await insert(token, { OrderSourceOrderNumber: "MKT-1001", OrderDestinationOrderNumber: "ERP-77" });
    await insert(token, { OrderSourceOrderNumber: "MKT-1002" });
    for (const number of ["MKT-1001", "ERP-77", a]) {
      const res = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=25&orderNumber=${number}`);
      expect(res.status, number).toBe(200);
      expect(
        (res.json.Orders as { OrderId: string }[]).map((o) => o.OrderId),
        number,
      ).toEqual([a]);
    }
    const none = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=25&orderNumber=MKT-10`);
    expect(none.json.Orders).toEqual([]);
  });

  it("filters by status and creation date and pages newest first", async () => {
    const { storeId, token } = await storeWithToken();
    const ids: string[] = [];
    for (let day = 1; day <= 5; day++) ids.push(await insert(token, { DateCreatedInOrderSource: `2026-04-0${day}T12:00:00Z` }));
    await call("PUT", `/v1/${token}/Orders/${ids[1]}/UpdateStatus`, { body: { OrderStatus: "CANCELLED" } });
    const page1 = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=2`);
    expect((page1.json.Orders as { OrderId: string }[]).map((o) => o.OrderId)).toEqual([ids[4], ids[3]]);
    expect(page1.json.Paging).toEqual({ Page: 1, PageSize: 2, MaxPageSize: 100 });
    const page3 = await admin("GET", `/stores/${storeId}/orders?page=3&pageSize=2`);
    expect((page3.json.Orders as { OrderId: string }[]).map((o) => o.OrderId)).toEqual([ids[0]]);
    const canceled = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=25&status=canceled`);
    expect((canceled.json.Orders as { OrderId: string; OrderStatus: string }[]).map((o) => [o.OrderId, o.OrderStatus])).toEqual([[ids[1], "Canceled"]]);
    const range = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=25&fromDate=2026-04-02&toDate=2026-04-03T23:59:59Z`);
    expect((range.json.Orders as { OrderId: string }[]).map((o) => o.OrderId)).toEqual([ids[2], ids[1]]);
  });

  it("answers 400 naming a bad parameter, 404 for an unknown store", async () => {
    const { storeId } = await storeWithToken();
    const bad = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=25&status=lost`);
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toBe("'status': 'lost' is not allowed; use one of NEW, PROCESSING, SHIPPED, CANCELED");
    const zeroPage = await admin("GET", `/stores/${storeId}/orders?page=0&pageSize=25`);
    expect(zeroPage.status).toBe(400);
    expect(zeroPage.json.Message).toBe("'page': must be a whole number of 1 or more (pages start at 1); got '0'");
    const unknown = await admin("GET", "/stores/st_nope/orders?page=1&pageSize=25");
    expect(unknown.status).toBe(404);
  });
});

describe("GET /admin/v1/stores/{storeId}/orders/{orderId}", () => {
  it("answers the order with its items and its deliveries; another store's order is 404", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Name: "Sim market", Settings: { ordersPerHour: 0.001 } });
    const orderId = await insert(token, { OrderSource: "Sim market", OrderItems: [{ Sku: "S-1", Name: "Cup", Quantity: 3, UnitPrice: 4 }] });
    await call("PUT", `/v1/${token}/Orders/${orderId}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-9`);
    const res = await admin("GET", `/stores/${storeId}/orders/${orderId}`);
    expect(res.status).toBe(200);
    const order = res.json.Order as { OrderId: string; OrderItems: { Sku: string; Quantity: number }[]; OrderDestinationOrderNumber: string };
    expect(order.OrderId).toBe(orderId);
    expect(order.OrderDestinationOrderNumber).toBe("ERP-9");
    expect(order.OrderItems.map((i) => [i.Sku, i.Quantity])).toEqual([["S-1", 3]]);
    expect((res.json.Deliveries as { Kind: string; Status: string; SourceId: string }[]).map((d) => [d.Kind, d.Status, d.SourceId])).toEqual([
      ["acknowledge", "pending", sourceId],
    ]);
    const other = await storeWithToken();
    const elsewhere = await admin("GET", `/stores/${other.storeId}/orders/${orderId}`);
    expect(elsewhere.status).toBe(404);
  });
});
