// /admin/v1/stores/:storeId/orders[/:orderId]: the operator's view of a store's orders (the
// console's orders page): search by number, filter by status and date, page through; one order
// with its items, packages, deliveries and returns; and the operator's UpdateStatus (ship or cancel
// the whole order or chosen lines, decisions 12) through the same order-move service as /v1.
// Mounted under /admin/v1; reads through orders.queries.ts.
import { z } from "zod";
import { requireStore } from "../stores/stores.queries";
import { storeDb } from "../db/shards";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { documented, envelope } from "../http/openapi";
import { validate } from "../http/validate";
import { isoDateField, toWireDate } from "../lib/dates";
import { MAX_PAGE_SIZE, pagingAnswer, pagingQuery } from "../http/query-schemas";
import { entriesOfOrder } from "../outbox/outbox.queries";
import type { Db } from "../db/client";
import { findOrder, findOrdersByNumber, listOrders, type OrderListPage } from "./orders.queries";
import { statusFilter, updateStatusBody } from "./orders.schemas";
import { moveOrder, updateStatusRequest } from "./order-move.service";
import { wakeLater } from "../webhooks/wake";
import { refundsOfOrders } from "../refunds/refunds.queries";
import { returnsOfOrder } from "../returns/returns.queries";
import { wireReturnsOf } from "../returns/returns.service";
import { wireReturn } from "../returns/returns.wire";
import { orderDelivery, toWireOrder, wireOrder, wireOrders, type WireOrder } from "./orders.wire";

const adminOrderQuery = z.object({
  orderNumber: z.string().trim().min(1).max(100).optional().describe("Exact marketplace number, seller number or OrderId."),
  status: statusFilter.optional(),
  fromDate: isoDateField.optional(),
  toDate: isoDateField.optional(),
  page: pagingQuery.page.transform((n) => n ?? 1).describe("The page to answer, from 1; page 1 when left out."),
  pageSize: pagingQuery.pageSize,
});

const storeParam = z.object({ storeId: z.string() });
const orderParam = z.object({ storeId: z.string(), orderId: z.string() });

/** The page's orders with their items (an operator's page: at most 100 orders, answered at once). */
async function wireOrdersAtOnce(db: Db, page: OrderListPage): Promise<WireOrder[]> {
  const out: WireOrder[] = [];
  for await (const order of wireOrders(db, page)) out.push(order);
  return out;
}

/** Orders from the first of time to the last a date can say: no date filter. */
const ALL_TIME = { fromDate: 0, toDate: 253_402_300_799_999 };

export const ordersAdminRoutes = createRouter()
  .get(
    "/stores/:storeId/orders",
    documented("admin", {
      summary: "Search and page through a store's orders, newest first",
      tags: ["Orders (operator)"],
      answer: envelope({ Orders: z.array(wireOrder), Paging: pagingAnswer.omit({ NextCursor: true }).describe("Pages by number only: an operator's search.") }),
    }),
    validate("param", storeParam),
    validate("query", adminOrderQuery),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const query = c.req.valid("query");
      const { pageSize } = query;
      const db = storeDb(c.env, store);
      const page = query.orderNumber
        ? await findOrdersByNumber(db, store.id, query.orderNumber, pageSize)
        : await listOrders(
            db,
            store.id,
            {
              fromDate: query.fromDate ?? ALL_TIME.fromDate,
              toDate: query.toDate ?? ALL_TIME.toDate,
              status: query.status,
              dateField: "created",
              page: query.page,
              pageSize,
              sortBy: "DateCreatedInOrderSource",
              sortDirection: "desc",
            },
            pageSize,
            { offset: (query.page - 1) * pageSize },
          );
      return ok(c, {
        Orders: await wireOrdersAtOnce(db, page),
        Paging: { Page: query.orderNumber ? 1 : query.page, PageSize: pageSize, MaxPageSize: MAX_PAGE_SIZE },
      });
    },
  )
  .get(
    "/stores/:storeId/orders/:orderId",
    documented("admin", {
      summary: "One order with its items and its deliveries to the marketplace",
      tags: ["Orders (operator)"],
      answer: envelope({
        Order: wireOrder,
        Deliveries: z.array(orderDelivery),
        Returns: z.array(wireReturn).describe("The order's returns (decisions 13), oldest first."),
      }),
    }),
    validate("param", orderParam),
    async (c) => {
      const { storeId, orderId } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      const db = storeDb(c.env, store);
      const found = await findOrder(db, store.id, orderId);
      if (!found) throw new ApiError(404, `No order with OrderId '${orderId.slice(0, 40)}' in store '${store.id}'.`);
      const deliveries = await entriesOfOrder(db, store.id, found.order.id);
      const returns = await wireReturnsOf(db, await returnsOfOrder(db, store.id, found.order.id));
      return ok(c, {
        Order: toWireOrder(found.order, found.items, found.packages, {
          maskBuyerPii: found.maskBuyerPii,
          sourceEnabled: found.sourceEnabled,
          refunds: (await refundsOfOrders(db, [found.order.id])).get(found.order.id) ?? [],
        }),
        Deliveries: deliveries.map((d) => ({
          DeliveryId: String(d.id),
          SourceId: d.sourceId,
          Kind: d.kind,
          Status: d.state,
          Attempts: d.attempts,
          LastError: d.lastError,
          DateCreated: toWireDate(d.createdAt),
          DateDelivered: toWireDate(d.deliveredAt),
        })),
        Returns: returns,
      });
    },
  )
  .put(
    "/stores/:storeId/orders/:orderId/status",
    documented("admin", {
      summary: "Ship or cancel an order, whole or chosen lines (UpdateStatus's body), as the seller's system would",
      tags: ["Orders (operator)"],
      answer: envelope({ Order: wireOrder }),
    }),
    validate("param", orderParam),
    validate("json", updateStatusBody),
    async (c) => {
      const { storeId, orderId } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      const db = storeDb(c.env, store);
      const { webhooks } = await moveOrder(db, store.id, orderId, updateStatusRequest(c.req.valid("json")));
      wakeLater(c, store.id, webhooks);
      const found = await findOrder(db, store.id, orderId);
      if (!found) throw new ApiError(404, `No order with OrderId '${orderId.slice(0, 40)}' in store '${store.id}'.`);
      return ok(c, {
        Order: toWireOrder(found.order, found.items, found.packages, {
          maskBuyerPii: found.maskBuyerPii,
          sourceEnabled: found.sourceEnabled,
          refunds: (await refundsOfOrders(db, [found.order.id])).get(found.order.id) ?? [],
        }),
      });
    },
  );
