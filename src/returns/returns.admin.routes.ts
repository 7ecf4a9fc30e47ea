// /admin/v1/stores/:storeId/returns[/:returnId]: the operator's view of a store's returns (the
// console's Returns tab): newest first, filtered by status, paged by number; one return with its
// lines and its deliveries; the operator's receipt (with Restock) and decision. Same reads and
// writes as the /v1 routes (returns.service.ts).
import { z } from "zod";
import { createRouter } from "../app-env";
import { storeDb } from "../db/shards";
import { ok } from "../http/envelope";
import { documented, envelope } from "../http/openapi";
import { MAX_PAGE_SIZE, pagingAnswer, pagingQuery } from "../http/query-schemas";
import { validate } from "../http/validate";
import { toWireDate } from "../lib/dates";
import { entriesOfOrder } from "../outbox/outbox.queries";
import { refundsOfOrders } from "../refunds/refunds.queries";
import { requireStore } from "../stores/stores.queries";
import { wakeLater } from "../webhooks/wake";
import { listReturns } from "./returns.queries";
import { decisionBody, receiveBody, returnStatusFilter } from "./returns.schemas";
import { answerReturn, decideReturn, receiveReturn, wireReturnsOf } from "./returns.service";
import { returnDelivery, wireReturn } from "./returns.wire";

const adminReturnQuery = z.object({
  status: returnStatusFilter.optional(),
  page: pagingQuery.page.transform((n) => n ?? 1).describe("The page to answer, from 1; page 1 when left out."),
  pageSize: pagingQuery.pageSize,
});
const storeParam = z.object({ storeId: z.string() });
const returnParam = z.object({ storeId: z.string(), returnId: z.string() });

const ALL_TIME = { fromDate: 0, toDate: 253_402_300_799_999 };

export const returnsAdminRoutes = createRouter()
  .get(
    "/stores/:storeId/returns",
    documented("admin", {
      summary: "Page through a store's returns, newest first, by status",
      tags: ["Returns (operator)"],
      answer: envelope({ Returns: z.array(wireReturn), Paging: pagingAnswer.omit({ NextCursor: true }).describe("Pages by number only: an operator's view.") }),
    }),
    validate("param", storeParam),
    validate("query", adminReturnQuery),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const query = c.req.valid("query");
      const { pageSize } = query;
      const db = storeDb(c.env, store);
      const page = await listReturns(
        db,
        store.id,
        { ...ALL_TIME, status: query.status, dateField: "requested", page: query.page, pageSize, sortBy: "DateRequested", sortDirection: "desc" },
        pageSize,
        { offset: (query.page - 1) * pageSize },
      );
      return ok(c, { Returns: await wireReturnsOf(db, page.rows), Paging: { Page: query.page, PageSize: pageSize, MaxPageSize: MAX_PAGE_SIZE } });
    },
  )
  .get(
    "/stores/:storeId/returns/:returnId",
    documented("admin", {
      summary: "One return with its lines and the deliveries of its receipts, decisions and refunds",
      tags: ["Returns (operator)"],
      answer: envelope({ Return: wireReturn, Deliveries: z.array(returnDelivery) }),
    }),
    validate("param", returnParam),
    async (c) => {
      const { storeId, returnId } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      const db = storeDb(c.env, store);
      const ret = await answerReturn(db, store.id, returnId);
      const id = Number(ret.ReturnId);
      const orderId = Number(ret.OrderId);
      const refunds = new Set(((await refundsOfOrders(db, [orderId])).get(orderId) ?? []).filter((r) => r.returnId === id).map((r) => r.id));
      const entries = (await entriesOfOrder(db, store.id, orderId)).filter(
        (d) =>
          (d.payload?.kind === "refund" && refunds.has(d.payload.refundId)) || (d.payload !== null && "returnId" in d.payload && d.payload.returnId === id),
      );
      return ok(c, {
        Return: ret,
        Deliveries: entries.map((d) => ({
          DeliveryId: String(d.id),
          Kind: d.kind,
          Status: d.state,
          Attempts: d.attempts,
          LastError: d.lastError,
          Warning: d.warning,
          DateCreated: toWireDate(d.createdAt),
          DateDelivered: toWireDate(d.deliveredAt),
        })),
      });
    },
  )
  .put(
    "/stores/:storeId/returns/:returnId/receive",
    documented("admin", {
      summary: "Record what came back of a return (the console's Receive), with Restock",
      tags: ["Returns (operator)"],
      answer: envelope({ Return: wireReturn }),
    }),
    validate("param", returnParam),
    validate("json", receiveBody),
    async (c) => {
      const { storeId, returnId } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      const db = storeDb(c.env, store);
      const webhooks = await receiveReturn(db, store.id, returnId, c.req.valid("json"));
      wakeLater(c, store.id, webhooks);
      return ok(c, { Return: await answerReturn(db, store.id, returnId) });
    },
  )
  .put(
    "/stores/:storeId/returns/:returnId/:decision{approve|reject}",
    documented("admin", {
      summary: "Approve or reject a requested return",
      tags: ["Returns (operator)"],
      answer: envelope({ Return: wireReturn }),
      body: { "application/json": decisionBody },
      bodyOptional: true,
    }),
    validate("param", returnParam.extend({ decision: z.enum(["approve", "reject"]) })),
    validate("json", decisionBody, { optional: true }),
    async (c) => {
      const { storeId, returnId, decision } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      const db = storeDb(c.env, store);
      const webhooks = await decideReturn(db, store.id, returnId, decision, c.req.valid("json"));
      wakeLater(c, store.id, webhooks);
      return ok(c, { Return: await answerReturn(db, store.id, returnId) });
    },
  );
