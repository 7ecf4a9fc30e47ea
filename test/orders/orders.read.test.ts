// Count, list and get one (spec 4.2 to 4.4, decisions 2 and 3): filters, paging, sorting, masking, wire shape.
import { describe, expect, it } from "vitest";
import type { WireOrder } from "../../src/orders/orders.wire";
import { admin, call, insert, storeWithToken } from "../helpers/api";

/** Spec 2.3, every field, plus DateUpdated (decisions 2). */
const ORDER_FIELDS = [
  "OrderId",
  "BuyerEmailAddress",
  "BuyerPhoneNumber",
  "DateCreatedInDestination",
  "DateCreatedInOrderSource",
  "DateShipped",
  "GrandTotal",
  "OrderDestinationOrderNumber",
  "OrderSource",
  "OrderSourceOrderNumber",
  "PaymentTransactionId",
  "PaymentType",
  "ShipmentTrackingNumber",
  "OrderItems",
  "BuyerUserId",
  "City",
  "Country",
  "PostalCode",
  "StateOrProvince",
  "FirstName",
  "LastName",
  "ShipToCompanyName",
  "Street1",
  "Street2",
  "GiftWrapTotal",
  "GiftWrapTaxTotal",
  "ShippingServiceName",
  "ShippingServiceValue",
  "ShippingTotal",
  "ShippingTaxTotal",
  "SubTotal",
  "SyncUserErrorMessage",
  "ShippingMethod",
  "DestinationShippingCarrier",
  "OrderStatus",
  "SourceOrderStatus",
  "SyncStatus",
  "OrderSourceCustomerOrderNumber",
  "IsMarketplacePrime",
  "DateUpdated",
  // Decisions 12: packages and the order's fulfilment.
  "Shipments",
  "FulfillmentStatus",
  // Decisions 13: the order's refunds.
  "Refunds",
  "RefundTotal",
];
const ITEM_FIELDS = ["OrderItemId", "Sku", "Name", "Quantity", "UnitPrice", "SaleTaxCost", "Discount", "QuantityShipped", "QuantityCancelled"];
const WIRE_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function count(token: string, query: string) {
  const res = await call("GET", `/v1/${token}/Orders/count?${query}`);
  expect(res.status, `${query}: ${res.text}`).toBe(200);
  return res.json.Count as number;
}

async function list(token: string, query: string) {
  const res = await call("GET", `/v1/${token}/Orders?${query}`);
  expect(res.status, `${query}: ${res.text}`).toBe(200);
  return { orders: res.json.Orders as WireOrder[], paging: res.json.Paging, sorting: res.json.Sorting, json: res.json };
}

describe("date filters", () => {
  it("includes both ends of fromDate..toDate; a date alone is midnight UTC", async () => {
    const { token } = await storeWithToken();
    const at = ["2026-02-28T23:59:59.999Z", "2026-03-01T00:00:00Z", "2026-03-01T12:00:00Z", "2026-03-02T00:00:00Z", "2026-03-02T00:00:00.001Z"];
    const ids = [];
    for (const date of at) ids.push(await insert(token, { DateCreatedInOrderSource: date }));
    expect(await count(token, "fromDate=2026-03-01&toDate=2026-03-02")).toBe(3);
    const { orders } = await list(token, "fromDate=2026-03-01&toDate=2026-03-02&page=1&pageSize=10");
    expect(orders.map((o) => o.OrderId)).toEqual(ids.slice(1, 4));
    expect(await count(token, "fromDate=2026-03-01T12:00:00Z&toDate=2026-03-01T12:00:00Z")).toBe(1);
    expect(await count(token, "fromDate=2026-03-01T00:00:00.001Z&toDate=2026-03-01T23:59:59.999Z")).toBe(1);
  });

  it("reads offsets: +02:00 and -05:00 name the same instants as Z", async () => {
    const { token } = await storeWithToken();
    await insert(token, { DateCreatedInOrderSource: "2026-03-01T00:00:00Z" });
    await insert(token, { DateCreatedInOrderSource: "2026-03-01T12:00:00Z" });
    // 02:00+02:00 is 00:00Z; 14:00+02:00 is 12:00Z.
    expect(await count(token, `fromDate=${encodeURIComponent("2026-03-01T02:00:00+02:00")}&toDate=${encodeURIComponent("2026-03-01T14:00:00+02:00")}`)).toBe(2);
    expect(
      await count(token, `fromDate=${encodeURIComponent("2026-03-01T02:00:00.001+02:00")}&toDate=${encodeURIComponent("2026-03-01T14:00:00+02:00")}`),
    ).toBe(1);
    expect(await count(token, "fromDate=2026-02-28T19:00:00-05:00&toDate=2026-02-28T19:00:00-05:00")).toBe(1);
    // An unencoded + arrives as a space; it still means the offset.
    expect(await count(token, "fromDate=2026-03-01T02:00:00+02:00&toDate=2026-03-01T14:00:00+02:00")).toBe(2);
    // An offset in the body is converted to UTC in the answer.
    const id = await insert(token, { DateCreatedInOrderSource: "2026-03-05T09:30:00+02:00" });
    const one = await call("GET", `/v1/${token}/Orders/${id}`);
    expect((one.json.Orders as WireOrder[])[0]!.DateCreatedInOrderSource).toBe("2026-03-05T07:30:00.000Z");
  });

  it("filters on DateUpdated with dateField=updated, and reports DateUpdated", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token, { DateCreatedInOrderSource: "2020-01-01T00:00:00Z" });
    const { orders } = await list(token, "fromDate=2019-01-01&toDate=2021-01-01&page=1&pageSize=10");
    const updated = orders[0]!.DateUpdated!;
    expect(updated).toMatch(WIRE_DATE);
    const at = encodeURIComponent(updated);
    // By creation date the order is in 2020; by update date it is now.
    expect(await count(token, `fromDate=${at}&toDate=${at}&dateField=updated`)).toBe(1);
    expect(await count(token, `fromDate=${at}&toDate=${at}`)).toBe(0);
    expect(await count(token, "fromDate=2019-01-01&toDate=2021-01-01&dateField=updated")).toBe(0);
    expect(await count(token, "fromDate=2019-01-01&toDate=2021-01-01&dateField=created")).toBe(1);
    const byUpdate = await list(token, `fromDate=${at}&toDate=${at}&dateField=Updated&page=1&pageSize=10`);
    expect(byUpdate.orders.map((o) => o.OrderId)).toEqual([id]);
    // A move bumps DateUpdated, so the order shows up as changed since the last poll.
    expect((await call("PUT", `/v1/${token}/Orders/${id}/AcknowledgeOrder?orderDestinationOrderNumber=S-9`)).json).toEqual({ Success: true, Message: "" });
    const later = encodeURIComponent(new Date(Date.parse(updated) + 1).toISOString());
    expect(await count(token, `fromDate=${later}&toDate=2100-01-01&dateField=updated`)).toBe(1);
  });

  it("filters by status, any case, CANCELLED as a synonym", async () => {
    const { token } = await storeWithToken();
    for (const status of ["New", "New", "Processing", "Shipped", "Canceled"]) {
      await insert(token, { OrderStatus: status, DateCreatedInOrderSource: "2026-03-01T10:00:00Z" });
    }
    const range = "fromDate=2026-03-01&toDate=2026-03-02";
    expect(await count(token, range)).toBe(5);
    expect(await count(token, `${range}&status=NEW`)).toBe(2);
    expect(await count(token, `${range}&status=new`)).toBe(2);
    expect(await count(token, `${range}&status=Processing`)).toBe(1);
    expect(await count(token, `${range}&status=SHIPPED`)).toBe(1);
    expect(await count(token, `${range}&status=CANCELED`)).toBe(1);
    expect(await count(token, `${range}&status=cancelled`)).toBe(1);
    const { orders } = await list(token, `${range}&status=new&page=1&pageSize=10`);
    expect(orders.map((o) => o.OrderStatus)).toEqual(["New", "New"]);
  });
});

describe("paging", () => {
  it("pages from 1 and answers Paging", async () => {
    const { token } = await storeWithToken();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await insert(token, { DateCreatedInOrderSource: `2026-03-0${i + 1}T10:00:00Z` }));
    const range = "fromDate=2026-03-01&toDate=2026-03-31";
    const pages = [];
    for (let page = 1; page <= 4; page++) {
      const res = await list(token, `${range}&page=${page}&pageSize=2`);
      expect(res.paging).toEqual({ Page: page, PageSize: 2, MaxPageSize: 100, NextCursor: page < 3 ? expect.stringMatching(/^[\w-]+\.[\w-]+$/) : null });
      pages.push(res.orders.map((o) => o.OrderId));
    }
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4), []]);
    const far = await list(token, `${range}&page=999999999&pageSize=100`);
    expect(far.orders).toEqual([]);
    expect(far.paging).toEqual({ Page: 999999999, PageSize: 100, MaxPageSize: 100, NextCursor: null });
  });

  it("clamps pageSize above 100 to 100 and says so in Paging", async () => {
    const { token } = await storeWithToken();
    for (let i = 0; i < 101; i++) await insert(token, { DateCreatedInOrderSource: "2026-03-01T10:00:00Z" });
    const res = await list(token, "fromDate=2026-03-01&toDate=2026-03-31&page=1&pageSize=1000");
    expect(res.paging).toEqual({ Page: 1, PageSize: 100, MaxPageSize: 100, NextCursor: expect.stringMatching(/^[\w-]+\.[\w-]+$/) });
    expect(res.orders).toHaveLength(100);
    const second = await list(token, "fromDate=2026-03-01&toDate=2026-03-31&page=2&pageSize=101");
    expect(second.orders).toHaveLength(1);
    expect(await count(token, "fromDate=2026-03-01&toDate=2026-03-31")).toBe(101);
  });
});

describe("sorting", () => {
  const range = "fromDate=2026-03-01&toDate=2026-03-31";

  async function seed() {
    const { token } = await storeWithToken();
    const specs = [
      { DateCreatedInOrderSource: "2026-03-03T10:00:00Z", GrandTotal: 30, OrderStatus: "Shipped" },
      { DateCreatedInOrderSource: "2026-03-01T10:00:00Z", GrandTotal: 99.5, OrderStatus: "New" },
      { DateCreatedInOrderSource: "2026-03-04T10:00:00Z", GrandTotal: 5, OrderStatus: "Canceled" },
      { DateCreatedInOrderSource: "2026-03-02T10:00:00Z", GrandTotal: 12, OrderStatus: "Processing" },
    ];
    for (const spec of specs) await insert(token, spec);
    return token;
  }

  const keyOf: Record<string, (o: WireOrder) => string | number> = {
    DateCreatedInOrderSource: (o) => Date.parse(o.DateCreatedInOrderSource!),
    OrderId: (o) => Number(o.OrderId),
    GrandTotal: (o) => o.GrandTotal,
    OrderStatus: (o) => o.OrderStatus,
  };

  it.each(
    Object.keys(keyOf).flatMap((field) => [
      [field, "asc"],
      [field, "desc"],
    ]),
  )("sorts by %s %s and echoes Sorting", async (field, direction) => {
    const token = await seed();
    const res = await list(token, `${range}&page=1&pageSize=10&sortBy=${field.toLowerCase()}&sortDirection=${direction.toUpperCase()}`);
    expect(res.sorting).toEqual({ SortBy: field, SortDirection: direction });
    const keys = res.orders.map(keyOf[field]!);
    const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (direction === "desc") sorted.reverse();
    expect(keys).toHaveLength(4);
    expect(keys).toEqual(sorted);
  });

  it("defaults to DateCreatedInOrderSource ascending", async () => {
    const token = await seed();
    const res = await list(token, `${range}&page=1&pageSize=10`);
    expect(res.sorting).toEqual({ SortBy: "DateCreatedInOrderSource", SortDirection: "asc" });
    expect(res.orders.map((o) => o.DateCreatedInOrderSource)).toEqual([
      "2026-03-01T10:00:00.000Z",
      "2026-03-02T10:00:00.000Z",
      "2026-03-03T10:00:00.000Z",
      "2026-03-04T10:00:00.000Z",
    ]);
  });

  it.each([
    ["DateCreatedInOrderSource", "asc"],
    ["DateCreatedInOrderSource", "desc"],
    ["GrandTotal", "asc"],
    ["OrderStatus", "desc"],
  ])("walks pages sorted by %s %s with many equal keys without skipping or repeating (tie-break by OrderId)", async (field, direction) => {
    const { token } = await storeWithToken();
    const ids: string[] = [];
    for (let i = 0; i < 13; i++) {
      ids.push(await insert(token, { DateCreatedInOrderSource: `2026-03-0${1 + (i % 2)}T10:00:00Z`, GrandTotal: 10, OrderStatus: "New" }));
    }
    const seen: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await list(token, `${range}&page=${page}&pageSize=3&sortBy=${field}&sortDirection=${direction}`);
      seen.push(...res.orders.map((o) => o.OrderId));
    }
    expect(seen).toHaveLength(13);
    expect(new Set(seen).size).toBe(13);
    expect([...seen].sort()).toEqual([...ids].sort());
    // Within equal keys, OrderId runs in the sort's direction.
    if (field !== "DateCreatedInOrderSource") {
      const numeric = seen.map(Number);
      expect(numeric).toEqual([...numeric].sort((a, b) => (direction === "asc" ? a - b : b - a)));
    }
  });
});

describe("get one order", () => {
  it("answers Orders with the one order", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token);
    const res = await call("GET", `/v1/${token}/Orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.json.Success).toBe(true);
    expect(res.json.Message).toBe("");
    expect((res.json.Orders as WireOrder[]).map((o) => o.OrderId)).toEqual([id]);
  });

  it("answers 404 for another store's order, an unknown id and a non-numeric id", async () => {
    const a = await storeWithToken();
    const b = await storeWithToken();
    const id = await insert(a.token);
    for (const path of [
      `/v1/${b.token}/Orders/${id}`,
      `/v1/${a.token}/Orders/99999999`,
      `/v1/${a.token}/Orders/abc`,
      `/v1/${a.token}/Orders/1.5`,
      `/v1/${a.token}/Orders/-1`,
    ]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.json.Success).toBe(false);
      expect(res.json.Message.length).toBeGreaterThan(0);
    }
  });
});

describe("PII masking", () => {
  it("masks buyer email and phone when the store's MaskBuyerPii is on, in get and list", async () => {
    const { storeId, token } = await storeWithToken({ maskBuyerPii: true });
    const id = await insert(token, {
      BuyerEmailAddress: "jane.doe@example.com",
      BuyerPhoneNumber: "(555) 201-1234",
      DateCreatedInOrderSource: "2026-03-01T10:00:00Z",
    });
    const one = (await call("GET", `/v1/${token}/Orders/${id}`)).json.Orders as WireOrder[];
    expect(one[0]).toMatchObject({ BuyerEmailAddress: "j***@example.com", BuyerPhoneNumber: "***-***-1234" });
    const { orders } = await list(token, "fromDate=2026-03-01&toDate=2026-03-02&page=1&pageSize=10");
    expect(orders[0]).toMatchObject({ BuyerEmailAddress: "j***@example.com", BuyerPhoneNumber: "***-***-1234" });
    // Turning the setting off shows the stored values, which masking never changed.
    expect((await admin("PATCH", `/stores/${storeId}`, { MaskBuyerPii: false })).status).toBe(200);
    const plain = (await call("GET", `/v1/${token}/Orders/${id}`)).json.Orders as WireOrder[];
    expect(plain[0]).toMatchObject({ BuyerEmailAddress: "jane.doe@example.com", BuyerPhoneNumber: "(555) 201-1234" });
  });

  it("does not mask for a store without MaskBuyerPii", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token, { BuyerEmailAddress: "jane.doe@example.com", BuyerPhoneNumber: "555-201-1234" });
    const one = (await call("GET", `/v1/${token}/Orders/${id}`)).json.Orders as WireOrder[];
    expect(one[0]).toMatchObject({ BuyerEmailAddress: "jane.doe@example.com", BuyerPhoneNumber: "555-201-1234" });
  });
});

describe("wire shape", () => {
  it(
    "answers exactly the fields of spec 2.3 (plus DateUpdated and decisions 12's Shipments, FulfillmentStatus, QuantityShipped, QuantityCancelled, 13's Refunds and RefundTotal) and " +
      "2.4, with every date ending in Z",
    async () => {
      const { token } = await storeWithToken();
      const id = await insert(token, {
        DateCreatedInOrderSource: "2026-03-01T10:15:00+01:00",
        DateShipped: "2026-03-02",
        DateCreatedInDestination: "2026-03-01T11:00:00.5-04:00",
        OrderItems: [
          { Sku: "A", Name: "First", Quantity: 1, UnitPrice: 1 },
          { Sku: "B", Name: "Second", Quantity: 3, UnitPrice: 2.25, SaleTaxCost: 0.5, Discount: "0.25" },
        ],
      });
      const viaGet = ((await call("GET", `/v1/${token}/Orders/${id}`)).json.Orders as WireOrder[])[0]!;
      const viaList = (await list(token, "fromDate=2026-03-01&toDate=2026-03-02&page=1&pageSize=10")).orders[0]!;
      for (const order of [viaGet, viaList]) {
        expect(Object.keys(order).sort()).toEqual([...ORDER_FIELDS].sort());
        for (const item of order.OrderItems as Record<string, unknown>[]) expect(Object.keys(item).sort()).toEqual([...ITEM_FIELDS].sort());
        for (const field of ["DateCreatedInOrderSource", "DateShipped", "DateCreatedInDestination", "DateUpdated"] as const) {
          expect(order[field], field).toMatch(WIRE_DATE);
        }
        expect(order.DateCreatedInOrderSource).toBe("2026-03-01T09:15:00.000Z");
        expect(order.DateShipped).toBe("2026-03-02T00:00:00.000Z");
        expect(order.DateCreatedInDestination).toBe("2026-03-01T15:00:00.500Z");
        expect(typeof order.GrandTotal).toBe("number");
        expect(typeof order.IsMarketplacePrime).toBe("boolean");
        expect((order.OrderItems as Record<string, unknown>[])[1]).toEqual({
          OrderItemId: expect.stringMatching(/^\d+$/),
          Sku: "B",
          Name: "Second",
          Quantity: 3,
          UnitPrice: 2.25,
          SaleTaxCost: 0.5,
          Discount: "0.25",
          QuantityShipped: 0,
          QuantityCancelled: 0,
        });
      }
      expect(viaList).toEqual(viaGet);
    },
  );

  it("answers null, not a date, for absent DateTime? fields", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token);
    const order = ((await call("GET", `/v1/${token}/Orders/${id}`)).json.Orders as WireOrder[])[0]!;
    expect(order.DateShipped).toBeNull();
    expect(order.DateCreatedInDestination).toBeNull();
  });
});
