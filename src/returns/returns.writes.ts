// The seller's receipt and decision written (decisions 13): one D1 batch each, guarded by the
// return as it was read, holding the return's change, its lines, the stock it puts back, its
// webhook event and its outbox row for the marketplace, all or nothing. A lost race (another
// request changed the return first) writes nothing and answers false: the route reads again.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { enqueueWhen } from "../outbox/outbox.queries";
import { stockRestockedStatement } from "../products/products.queries";
import { returnEvents, toD1, wokenBy } from "../webhooks/webhook-deliveries.queries";
import type { Decision, Receipt } from "./return-moves";
import { moveReturnStatement, receiveLinesStatement, returnAsRead, returnIs, type ReturnView } from "./returns.queries";

export async function applyReceipt(db: Db, ret: ReturnView, receipt: Receipt, now: number): Promise<false | { webhooks: string[] }> {
  const updatedAt = Math.max(now, ret.dateUpdated + 1);
  const d1 = db.$client;
  const payload = {
    returnId: ret.id,
    lines: receipt.added.map((a) => ({ returnLineId: a.returnLineId, quantity: a.quantity })),
    restock: receipt.restock.length > 0,
  };
  const statements = [
    // Before the change and under its guard: written exactly when the change is.
    toD1(db, returnEvents(db, "return.updated", now, returnIs(ret), receipt.status)),
    ...(receipt.restock.length > 0 ? [stockRestockedStatement(d1, ret.storeId, receipt.restock, { returnId: ret.id, dateUpdated: ret.dateUpdated })] : []),
    receiveLinesStatement(db, ret, receipt.lines),
    enqueueWhen(
      db,
      { storeId: ret.storeId, sourceId: ret.sourceId, orderId: ret.orderId, kind: "receiveReturn", payload: sql`${JSON.stringify(payload)}`, at: updatedAt },
      returnAsRead(ret),
    ),
    toD1(db, moveReturnStatement(db, ret, receipt.status, updatedAt)),
  ];
  const results = await d1.batch(statements);
  return results.at(-1)!.results.length === 1 && { webhooks: wokenBy(results[0]) };
}

export async function applyDecision(db: Db, ret: ReturnView, decision: Decision, now: number): Promise<false | { webhooks: string[] }> {
  const updatedAt = Math.max(now, ret.dateUpdated + 1);
  const d1 = db.$client;
  const kind = decision.status === "Approved" ? "approveReturn" : "rejectReturn";
  const statements = [
    toD1(db, returnEvents(db, "return.updated", now, returnIs(ret), decision.status)),
    enqueueWhen(
      db,
      {
        storeId: ret.storeId,
        sourceId: ret.sourceId,
        orderId: ret.orderId,
        kind,
        payload: sql`${JSON.stringify({ returnId: ret.id, reason: decision.reason })}`,
        at: updatedAt,
      },
      returnAsRead(ret),
    ),
    toD1(db, moveReturnStatement(db, ret, decision.status, updatedAt)),
  ];
  const results = await d1.batch(statements);
  return results.at(-1)!.results.length === 1 && { webhooks: wokenBy(results[0]) };
}
