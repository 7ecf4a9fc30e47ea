// An answer's size is bounded (issue 12): a page of 100 orders of 500 items each is read and
// written a slice at a time. What a client sees is one ordinary JSON answer with every item.
import { describe, expect, it } from "vitest";
import { call, insert, storeWithToken } from "../helpers/api";
import { storeD1 } from "../helpers/shards";

describe("a page of 100 orders of 500 items", () => {
  it("answers every order with every item, in order, as one JSON envelope", async () => {
    const { storeId, token } = await storeWithToken();
    // One order through the API, 99 copied from it in D1 (50,000 items through InsertOrder would be slow).
    const firstId = await insert(token, {
      DateCreatedInOrderSource: "2026-03-01T00:00:00Z",
      GrandTotal: 1,
      OrderItems: Array.from({ length: 500 }, (_, i) => ({ Sku: `SKU-${i}`, Name: `Item ${i} ${"x".repeat(40)}`, Quantity: 1, UnitPrice: 1 })),
    });
    const shard = await storeD1(storeId);
    await shard
      .prepare(
        `insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address, buyer_phone_number,
        first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method, grand_total, sub_total,
        date_created_in_order_source, date_updated)
       select store_id, order_source, 'COPY-' || value, status, source_order_status, buyer_email_address, buyer_phone_number,
        first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method, value + 1, sub_total,
        date_created_in_order_source + value * 1000, date_updated
       from orders, json_each(?) where orders.id = ?`,
      )
      .bind(JSON.stringify(Array.from({ length: 99 }, (_, i) => i + 1)), Number(firstId))
      .run();
    await shard
      .prepare(
        `insert into order_items (order_id, sku, name, quantity, unit_price, sale_tax_cost, discount)
       select o.id, i.sku || '-' || o.id, i.name, i.quantity, i.unit_price, i.sale_tax_cost, i.discount
       from orders o join order_items i on i.order_id = ? where o.store_id = ? and o.id <> ? order by o.id, i.id`,
      )
      .bind(Number(firstId), storeId, Number(firstId))
      .run();

    for (const sort of ["sortBy=OrderId", "sortBy=GrandTotal&sortDirection=desc"]) {
      const res = await call("GET", `/v1/${token}/Orders?fromDate=2026-03-01&toDate=2026-03-02&page=1&pageSize=100&${sort}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.text.length).toBeGreaterThan(5_000_000);
      const body = JSON.parse(res.text) as {
        Success: boolean;
        Message: string;
        Orders: { OrderId: string; GrandTotal: number; OrderItems: { OrderItemId: string; Sku: string }[] }[];
        Paging: { NextCursor: string | null };
        Sorting: unknown;
      };
      expect(Object.keys(body)).toEqual(["Success", "Message", "Orders", "Paging", "Sorting"]);
      expect(body.Success).toBe(true);
      expect(body.Orders).toHaveLength(100);
      expect(body.Paging.NextCursor).toBeNull();
      const totals = body.Orders.map((o) => o.GrandTotal);
      expect(totals).toEqual(sort.includes("desc") ? Array.from({ length: 100 }, (_, i) => 100 - i) : Array.from({ length: 100 }, (_, i) => i + 1));
      for (const order of body.Orders) {
        expect(order.OrderItems, order.OrderId).toHaveLength(500);
        const itemIds = order.OrderItems.map((i) => Number(i.OrderItemId));
        expect(itemIds).toEqual([...itemIds].sort((a, b) => a - b));
        const suffix = order.OrderId === firstId ? "" : `-${order.OrderId}`;
        expect(order.OrderItems[499]!.Sku).toBe(`SKU-499${suffix}`);
      }
    }
  }, 120_000);
});
