// A typed client generated from the document (openapi-typescript types + openapi-fetch) drives
// the service: create a store and a key, exchange the key, insert, list and acknowledge an order,
// count feeds through the Bearer form. Type errors here fail `npm run typecheck`.
import { exports } from "cloudflare:workers";
import createClient from "openapi-fetch";
import { expect, it } from "vitest";
import type { paths } from "./order-feed-hub";

const client = createClient<paths>({
  baseUrl: "https://hub.test",
  fetch: (request) => exports.default.fetch(request),
});
const asAdmin = { headers: { authorization: "Bearer test-admin-key-0123456789abcdef-0123" } };

it("drives the service end to end with the generated client", async () => {
  const store = await client.POST("/admin/v1/stores", { ...asAdmin, body: { Name: "Typed client store" } });
  expect(store.response.status).toBe(200);
  const storeId = store.data!.Store.StoreId;

  const key = await client.POST("/admin/v1/stores/{storeId}/consumer-keys", {
    ...asAdmin,
    params: { path: { storeId } },
    body: { Name: "typed", Scopes: ["OrdersCreate", "OrdersRead", "OrdersUpdate", "FeedsRead"], Lifespan: "NeverExpires" },
  });
  expect(key.data!.ConsumerKey.Scopes).toEqual(["OrdersCreate", "OrdersRead", "OrdersUpdate", "FeedsRead"]);

  const auth = await client.PUT("/v1/authorization", { body: { ConsumerKey: key.data!.ConsumerKey.Key }, headers: { "cf-connecting-ip": "203.0.113.77" } });
  expect(auth.data!.TokenExpirationDate).toBeNull();
  const token = auth.data!.Token;

  const inserted = await client.PUT("/v1/{token}/orders/insertorder", {
    params: { path: { token } },
    body: {
      BuyerEmailAddress: "ann@example.com",
      BuyerPhoneNumber: "555-0100",
      OrderSource: "Web",
      OrderSourceOrderNumber: "TYPED-1",
      DateCreatedInOrderSource: "2026-05-01T08:00:00Z",
      ShipToCompanyName: null,
      FirstName: "Ann",
      LastName: "Lee",
      Street1: "2 Elm St",
      City: "Salem",
      StateOrProvince: "OR",
      Country: "US",
      PostalCode: "97301",
      ShippingMethod: "Ground",
      GrandTotal: 10,
      SubTotal: 10,
      OrderItems: [{ Sku: "T-1", Name: "Tea", Quantity: 1, UnitPrice: 10 }],
    },
  });
  expect(inserted.response.headers.get("X-RateLimit-Limit")).toBe("50");
  const orderId = inserted.data!.OrderId;

  const list = await client.GET("/v1/{token}/orders", {
    params: { path: { token }, query: { fromDate: "2026-05-01", toDate: "2026-05-02", page: 1, pageSize: 10 } },
  });
  expect(list.data!.Orders.map((o) => [o.OrderId, o.OrderStatus, o.OrderItems.length])).toEqual([[orderId, "New", 1]]);
  expect(list.data!.Paging).toEqual({ Page: 1, PageSize: 10, MaxPageSize: 100, NextCursor: null });
  // Paging left out: page 1 of 100 (decisions 3).
  const defaults = await client.GET("/v1/{token}/orders", { params: { path: { token }, query: { fromDate: "2026-05-01", toDate: "2026-05-02" } } });
  expect(defaults.data!.Paging).toEqual({ Page: 1, PageSize: 100, MaxPageSize: 100, NextCursor: null });

  const ack = await client.PUT("/v1/{token}/orders/{orderId}/acknowledgeorder", {
    params: { path: { token, orderId }, query: { orderDestinationOrderNumber: "ERP-1" } },
  });
  expect(ack.data).toEqual({ Success: true, Message: "" });

  // An error comes back typed as the envelope.
  const missing = await client.GET("/v1/{token}/orders/{orderId}", { params: { path: { token, orderId: "999999" } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error!.Success).toBe(false);
  expect(missing.error!.Message).toBe("No order with OrderId '999999' exists in this store.");

  const feeds = await client.GET("/api/v1/feeds/count", { headers: { authorization: `Bearer ${token}` } });
  expect(feeds.data!.Count).toBe(0);
});
