// /v1/{token}/Orders/... (spec 4.2 to 4.7). Each route names the scope it needs; the handler
// reads the caller's store from the context, so no query can reach another store's orders.
import { requireScope } from "../auth/authorize";
import { ApiError } from "../http/errors";
import { ok, okStream } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { z } from "zod";
import { moveOrder, orderNotFound, updateStatusRequest } from "./order-move.service";
import { countOrders, findOrder, listOrders } from "./orders.queries";
import { insertOrder } from "./orders.writes";
import { pagingAnswer, sortingAnswer } from "../http/query-schemas";
import { askedPage } from "../http/paging";
import { acknowledgeQuery, insertOrderBody, orderCountQuery, orderIdParam, orderListQuery, updateStatusBody } from "./orders.schemas";
import { refundsOfOrders } from "../refunds/refunds.queries";
import { toWireOrder, wireOrder, wireOrders } from "./orders.wire";
import { wakeLater } from "../webhooks/wake";

/**
 * Decisions 12: AcknowledgeOrder takes the whole order, never lines. Items sent with it (in a
 * JSON body, which it otherwise ignores, or the query) are refused rather than silently dropped.
 */
async function refuseItems(request: Request, query: Record<string, string>): Promise<void> {
  const refuse = () => {
    throw new ApiError(
      400,
      "'Items': AcknowledgeOrder acknowledges the whole order and takes no Items; ship or cancel lines with UpdateStatus. Nothing was changed.",
    );
  };
  if (Object.keys(query).some((name) => name.toLowerCase() === "items")) refuse();
  const text = await request.clone().text();
  if (!text.trim()) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).some((key) => key.toLowerCase() === "items")) refuse();
}

export const ordersRoutes = createRouter()
  .get(
    "/count",
    documented("token", { summary: "Count orders", tags: ["Orders"], answer: envelope({ Count: z.number().int() }) }),
    requireScope("OrdersRead"),
    validate("query", orderCountQuery),
    async (c) => {
      const count = await countOrders(c.get("db"), c.get("caller").storeId, c.req.valid("query"));
      return ok(c, { Count: count });
    },
  )
  .put(
    "/insertorder",
    documented("token", { summary: "Insert an order", tags: ["Orders"], answer: envelope({ OrderId: z.string() }) }),
    requireScope("OrdersCreate"),
    validate("json", insertOrderBody),
    async (c) => {
      const result = await insertOrder(c.get("db"), c.get("caller").storeId, c.req.valid("json"), Date.now());
      if (!result.inserted) {
        const body = c.req.valid("json");
        throw new ApiError(
          400,
          `An order with OrderSource '${body.OrderSource}' and OrderSourceOrderNumber '${body.OrderSourceOrderNumber}' already exists: OrderId ` +
            `${result.existingOrderId}. Nothing was inserted.`,
        );
      }
      wakeLater(c, c.get("caller").storeId, result.webhooks);
      return ok(c, { OrderId: String(result.orderId) });
    },
  )
  .get(
    "/",
    documented("token", {
      summary: "List orders",
      tags: ["Orders"],
      answer: envelope({ Orders: z.array(wireOrder), Paging: pagingAnswer, Sorting: sortingAnswer }),
    }),
    requireScope("OrdersRead"),
    validate("query", orderListQuery),
    async (c) => {
      const query = c.req.valid("query");
      const storeId = c.get("caller").storeId;
      // A cursor is only valid with the request it continues: same store, filters, sort and size.
      const binding = [
        "orders",
        storeId,
        query.fromDate,
        query.toDate,
        query.status ?? null,
        query.dateField,
        query.sortBy,
        query.sortDirection,
        query.pageSize,
        // Decisions 12's filter, only when given: a cursor issued before it existed stays good.
        ...(query.fulfillmentStatus ? [query.fulfillmentStatus] : []),
      ];
      const asked = await askedPage(
        c.env.TOKEN_SIGNING_SECRET,
        binding,
        query,
        "fromDate, toDate, status, fulfillmentStatus, dateField, sortBy, sortDirection and pageSize",
      );
      const db = c.get("db");
      const page = await listOrders(db, storeId, query, query.pageSize, asked.start);
      return okStream(c, "Orders", wireOrders(db, page), await asked.answer(page.next));
    },
  )
  // Ids are numeric, so GET on a fixed word (InsertOrder) is a wrong method (405), not an order id.
  .get(
    "/:orderId{[0-9]+}",
    documented("token", { summary: "Get one order", tags: ["Orders"], answer: envelope({ Orders: z.array(wireOrder) }) }),
    requireScope("OrdersRead"),
    validate("param", orderIdParam),
    async (c) => {
      const { orderId } = c.req.valid("param");
      const found = await findOrder(c.get("db"), c.get("caller").storeId, orderId);
      if (!found) throw orderNotFound(orderId);
      return ok(c, {
        Orders: [
          toWireOrder(found.order, found.items, found.packages, {
            maskBuyerPii: found.maskBuyerPii,
            sourceEnabled: found.sourceEnabled,
            refunds: (await refundsOfOrders(c.get("db"), [found.order.id])).get(found.order.id) ?? [],
          }),
        ],
      });
    },
  )
  .put(
    "/:orderId/acknowledgeorder",
    documented("token", { summary: "Acknowledge an order with the seller's order number", tags: ["Orders"], answer: envelope({}) }),
    requireScope("OrdersUpdate"),
    validate("param", orderIdParam),
    validate("query", acknowledgeQuery),
    async (c) => {
      const { orderDestinationOrderNumber } = c.req.valid("query");
      await refuseItems(c.req.raw, c.req.query());
      const storeId = c.get("caller").storeId;
      const { webhooks } = await moveOrder(c.get("db"), storeId, c.req.valid("param").orderId, {
        kind: "acknowledge",
        sellerOrderNumber: orderDestinationOrderNumber,
      });
      wakeLater(c, storeId, webhooks);
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
      const storeId = c.get("caller").storeId;
      const { webhooks } = await moveOrder(c.get("db"), storeId, c.req.valid("param").orderId, updateStatusRequest(body));
      wakeLater(c, storeId, webhooks);
      return ok(c);
    },
  );
