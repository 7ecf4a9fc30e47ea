// /v1/{token}/Returns/... (decisions 13): count, list and get (scope ReturnsRead; filters, paging,
// sorting and cursors as orders have them), Receive with Restock, and the seller's Approve and
// Reject of a requested return (scope ReturnsUpdate). The caller's store comes from the context,
// so no query reaches another store's returns.
import { z } from "zod";
import { requireScope } from "../auth/authorize";
import { createRouter } from "../app-env";
import { ok } from "../http/envelope";
import { documented, envelope } from "../http/openapi";
import { askedPage } from "../http/paging";
import { pagingAnswer, sortingAnswer } from "../http/query-schemas";
import { validate } from "../http/validate";
import { wakeLater } from "../webhooks/wake";
import { countReturns, listReturns } from "./returns.queries";
import { decisionBody, receiveBody, returnCountQuery, returnIdParam, returnListQuery } from "./returns.schemas";
import { answerReturn, decideReturn, receiveReturn, wireReturnsOf } from "./returns.service";
import { wireReturn } from "./returns.wire";

export const returnsRoutes = createRouter()
  .get(
    "/count",
    documented("token", { summary: "Count returns", tags: ["Returns"], answer: envelope({ Count: z.number().int() }) }),
    requireScope("ReturnsRead"),
    validate("query", returnCountQuery),
    async (c) => {
      return ok(c, { Count: await countReturns(c.get("db"), c.get("caller").storeId, c.req.valid("query")) });
    },
  )
  .get(
    "/",
    documented("token", {
      summary: "List returns",
      tags: ["Returns"],
      answer: envelope({ Returns: z.array(wireReturn), Paging: pagingAnswer, Sorting: sortingAnswer }),
    }),
    requireScope("ReturnsRead"),
    validate("query", returnListQuery),
    async (c) => {
      const query = c.req.valid("query");
      const storeId = c.get("caller").storeId;
      // A cursor is only valid with the request it continues: same store, filters, sort and size.
      const binding = [
        "returns",
        storeId,
        query.fromDate,
        query.toDate,
        query.status ?? null,
        query.dateField,
        query.sortBy,
        query.sortDirection,
        query.pageSize,
      ];
      const asked = await askedPage(c.env.TOKEN_SIGNING_SECRET, binding, query, "fromDate, toDate, status, dateField, sortBy, sortDirection and pageSize");
      const db = c.get("db");
      const page = await listReturns(db, storeId, query, query.pageSize, asked.start);
      return ok(c, { Returns: await wireReturnsOf(db, page.rows), ...(await asked.answer(page.next)) });
    },
  )
  // Ids are numeric, so a fixed word (count) is never taken for a return id.
  .get(
    "/:returnId{[0-9]+}",
    documented("token", { summary: "Get one return", tags: ["Returns"], answer: envelope({ Returns: z.array(wireReturn) }) }),
    requireScope("ReturnsRead"),
    validate("param", returnIdParam),
    async (c) => {
      return ok(c, { Returns: [await answerReturn(c.get("db"), c.get("caller").storeId, c.req.valid("param").returnId)] });
    },
  )
  .put(
    "/:returnId/receive",
    documented("token", {
      summary: "Record what came back of a return, and put it back in stock",
      description:
        "Items give, per order line of the return, how many units came back in all so far: a repeated call changes nothing. With Restock true, the units " +
        "this call adds go back in the Skus' stock, once each (and so to every channel's next stock push). The marketplace is told where it takes receipts.",
      tags: ["Returns"],
      answer: envelope({ Return: wireReturn }),
    }),
    requireScope("ReturnsUpdate"),
    validate("param", returnIdParam),
    validate("json", receiveBody),
    async (c) => {
      const { returnId } = c.req.valid("param");
      const body = c.req.valid("json");
      const db = c.get("db");
      const storeId = c.get("caller").storeId;
      const webhooks = await receiveReturn(db, storeId, returnId, body);
      wakeLater(c, storeId, webhooks);
      return ok(c, { Return: await answerReturn(db, storeId, returnId) });
    },
  )
  .put(
    "/:returnId/approve",
    documented("token", {
      summary: "Approve a requested return (where the marketplace lets the seller decide)",
      tags: ["Returns"],
      answer: envelope({ Return: wireReturn }),
      body: { "application/json": decisionBody },
      bodyOptional: true,
    }),
    requireScope("ReturnsUpdate"),
    validate("param", returnIdParam),
    validate("json", decisionBody, { optional: true }),
    async (c) => {
      const { returnId } = c.req.valid("param");
      const body = c.req.valid("json");
      const db = c.get("db");
      const storeId = c.get("caller").storeId;
      const webhooks = await decideReturn(db, storeId, returnId, "approve", body);
      wakeLater(c, storeId, webhooks);
      return ok(c, { Return: await answerReturn(db, storeId, returnId) });
    },
  )
  .put(
    "/:returnId/reject",
    documented("token", {
      summary: "Reject a requested return (where the marketplace lets the seller decide)",
      tags: ["Returns"],
      answer: envelope({ Return: wireReturn }),
      body: { "application/json": decisionBody },
      bodyOptional: true,
    }),
    requireScope("ReturnsUpdate"),
    validate("param", returnIdParam),
    validate("json", decisionBody, { optional: true }),
    async (c) => {
      const { returnId } = c.req.valid("param");
      const body = c.req.valid("json");
      const db = c.get("db");
      const storeId = c.get("caller").storeId;
      const webhooks = await decideReturn(db, storeId, returnId, "reject", body);
      wakeLater(c, storeId, webhooks);
      return ok(c, { Return: await answerReturn(db, storeId, returnId) });
    },
  );
