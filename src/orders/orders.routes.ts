// /v1/{token}/Orders/... (spec 4.2 to 4.7). Each route names the scope it needs; the handler
// reads the caller's store from the context, so no query can reach another store's orders.
import { requireScope } from "../auth/authorize";
import { ApiError } from "../http/errors";
import { ok, okStream } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { z } from "zod";
import { acknowledge, cancel, ship, type Move } from "./order-moves";
import { countOrders, findOrder, listOrders } from "./orders.queries";
import { applyMove, insertOrder } from "./orders.writes";
import { invalidCursor, MAX_PAGE_SIZE, pagingAnswer, sortingAnswer } from "../http/query-schemas";
import { nextCursor, pageStart } from "../lib/cursor";
import {
  acknowledgeQuery,
  insertOrderBody,
  orderCountQuery,
  orderIdParam,
  orderListQuery,
  updateStatusBody,
} from "./orders.schemas";
import { refundsOfOrders } from "../refunds/refunds.queries";
import { toWireOrder, wireOrder, wireOrders } from "./orders.wire";
import type { Db } from "../db/client";
import type { OrderRow } from "../db/schema";
import { wakeLater } from "../webhooks/wake";

const orderNotFound = (orderId: string) =>
  new ApiError(404, `No order with OrderId '${orderId.slice(0, 40)}' exists in this store.`);

/** Read, decide, write with a guard; on a lost race, read and decide again. Answers the webhook endpoints to wake. */
async function moveOrder(db: Db, storeId: string, orderId: string, decide: (order: OrderRow, now: number) => Move): Promise<string[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findOrder(db, storeId, orderId);
    if (!found) throw orderNotFound(orderId);
    const now = Date.now();
    const applied = await applyMove(db, found.order, decide(found.order, now), now);
    if (applied) return applied.webhooks;
  }
  throw new ApiError(503, `Order ${orderId} is being changed by other requests; try again.`, { "Retry-After": "1" });
}

export const ordersRoutes = createRouter()
  .get("/count", documented("token", { summary: "Count orders", tags: ["Orders"], answer: envelope({ Count: z.number().int() }) }), requireScope("OrdersRead"), validate("query", orderCountQuery), async (c) => {
    const count = await countOrders(c.get("db"), c.get("caller").storeId, c.req.valid("query"));
    return ok(c, { Count: count });
  })
  .put("/insertorder", documented("token", { summary: "Insert an order", tags: ["Orders"], answer: envelope({ OrderId: z.string() }) }), requireScope("OrdersCreate"), validate("json", insertOrderBody), async (c) => {
    const result = await insertOrder(c.get("db"), c.get("caller").storeId, c.req.valid("json"), Date.now());
    if (!result.inserted) {
      const body = c.req.valid("json");
      throw new ApiError(
        400,
        `An order with OrderSource '${body.OrderSource}' and OrderSourceOrderNumber '${body.OrderSourceOrderNumber}' already exists: OrderId ${result.existingOrderId}. Nothing was inserted.`,
      );
    }
    wakeLater(c, c.get("caller").storeId, result.webhooks);
    return ok(c, { OrderId: String(result.orderId) });
  })
  .get("/", documented("token", { summary: "List orders", tags: ["Orders"], answer: envelope({ Orders: z.array(wireOrder), Paging: pagingAnswer, Sorting: sortingAnswer }) }), requireScope("OrdersRead"), validate("query", orderListQuery), async (c) => {
    const query = c.req.valid("query");
    const storeId = c.get("caller").storeId;
    const pageSize = Math.min(query.pageSize, MAX_PAGE_SIZE);
    // A cursor is only valid with the request it continues: same store, filters, sort and size.
    const binding = ["orders", storeId, query.fromDate, query.toDate, query.status ?? null, query.dateField, query.sortBy, query.sortDirection, pageSize];
    const asked = await pageStart(c.env.TOKEN_SIGNING_SECRET, binding, query, pageSize);
    if (!asked) throw invalidCursor("fromDate, toDate, status, dateField, sortBy, sortDirection and pageSize");
    const db = c.get("db");
    const page = await listOrders(db, storeId, query, pageSize, asked.start);
    return okStream(c, "Orders", wireOrders(db, page), {
      Paging: { Page: asked.page, PageSize: pageSize, MaxPageSize: MAX_PAGE_SIZE, NextCursor: await nextCursor(c.env.TOKEN_SIGNING_SECRET, binding, asked.page, page.next) },
      Sorting: { SortBy: query.sortBy, SortDirection: query.sortDirection },
    });
  })
  // Ids are numeric, so GET on a fixed word (InsertOrder) is a wrong method (405), not an order id.
  .get("/:orderId{[0-9]+}", documented("token", { summary: "Get one order", tags: ["Orders"], answer: envelope({ Orders: z.array(wireOrder) }) }), requireScope("OrdersRead"), validate("param", orderIdParam), async (c) => {
    const { orderId } = c.req.valid("param");
    const found = await findOrder(c.get("db"), c.get("caller").storeId, orderId);
    if (!found) throw orderNotFound(orderId);
    return ok(c, {
      Orders: [toWireOrder(found.order, found.items, { maskBuyerPii: found.maskBuyerPii, sourceEnabled: found.sourceEnabled, refunds: (await refundsOfOrders(c.get("db"), [found.order.id])).get(found.order.id) ?? [] })],
    });
  })
  .put(
    "/:orderId/acknowledgeorder",
    documented("token", { summary: "Acknowledge an order with the seller's order number", tags: ["Orders"], answer: envelope({}) }),
    requireScope("OrdersUpdate"),
    validate("param", orderIdParam),
    validate("query", acknowledgeQuery),
    async (c) => {
      const { orderDestinationOrderNumber } = c.req.valid("query");
      const webhooks = await moveOrder(c.get("db"), c.get("caller").storeId, c.req.valid("param").orderId, (order, now) =>
        acknowledge(order, orderDestinationOrderNumber, now),
      );
      wakeLater(c, c.get("caller").storeId, webhooks);
      return ok(c);
    },
  )
  .put(
    "/:orderId/updatestatus",
    documented("token", { summary: "Ship or cancel an order", tags: ["Orders"], answer: envelope({}) }),
    requireScope("OrdersUpdate"),
    validate("param", orderIdParam),
    validate("json", updateStatusBody),
    async (c) => {
      const body = c.req.valid("json");
      const webhooks = await moveOrder(c.get("db"), c.get("caller").storeId, c.req.valid("param").orderId, (order, now) =>
        body.OrderStatus === "Shipped"
          ? ship(order, { trackingNumber: body.ShipmentTrackingNumber, dateShipped: body.DateShipped, carrier: body.DestinationShippingCarrier }, now)
          : cancel(order),
      );
      wakeLater(c, c.get("caller").storeId, webhooks);
      return ok(c);
    },
  );
