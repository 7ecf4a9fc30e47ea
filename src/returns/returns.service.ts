// What the returns routes (/v1 and the operator's) share: returns as the wire shows them (their
// lines and refund totals read in one round trip), and the seller's receipt and decision: read,
// decide (return-moves.ts), write with a guard (returns.writes.ts), and on a lost race read and
// decide again.
import type { Db } from "../db/client";
import { ApiError } from "../http/errors";
import { refundTotalsQuery, totalsByReturn } from "../refunds/refunds.queries";
import { decide, receive } from "./return-moves";
import { findReturn, groupLines, linesQuery, type ReturnListRow, type ReturnView } from "./returns.queries";
import type { DecisionBody, ReceiveBody } from "./returns.schemas";
import { toWireReturn, type WireReturn } from "./returns.wire";
import { applyDecision, applyReceipt } from "./returns.writes";

export const returnNotFound = (returnId: string) => new ApiError(404, `No return with ReturnId '${returnId.slice(0, 40)}' exists in this store.`);

/** Returns as the wire shows them: their lines and refund totals in one round trip. */
export async function wireReturnsOf(db: Db, rows: ReturnListRow[]): Promise<WireReturn[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [lines, totals] = await db.batch([linesQuery(db, ids), refundTotalsQuery(db, ids)]);
  const byReturn = groupLines(lines);
  const totalOf = totalsByReturn(totals);
  return rows.map((r) => toWireReturn({ ...r, lines: byReturn.get(r.id) ?? [] }, totalOf.get(r.id) ?? 0));
}

/** Read, decide, write with a guard; on a lost race, read and decide again. Answers the return after, and the webhook endpoints to wake. */
async function moveReturn<T>(
  db: Db,
  storeId: string,
  returnId: string,
  decideFor: (ret: ReturnView) => T | "none",
  apply: (ret: ReturnView, change: T, now: number) => Promise<false | { webhooks: string[] }>,
): Promise<string[]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const ret = await findReturn(db, storeId, returnId);
    if (!ret) throw returnNotFound(returnId);
    const change = decideFor(ret);
    if (change === "none") return [];
    const applied = await apply(ret, change, Date.now());
    if (applied) return applied.webhooks;
  }
  throw new ApiError(503, `Return ${returnId} is being changed by other requests; try again.`, { "Retry-After": "1" });
}

export async function answerReturn(db: Db, storeId: string, returnId: string): Promise<WireReturn> {
  const ret = await findReturn(db, storeId, returnId);
  if (!ret) throw returnNotFound(returnId);
  return (await wireReturnsOf(db, [ret]))[0]!;
}

/** A receipt (Receive); answers the webhook endpoints to wake. */
export function receiveReturn(db: Db, storeId: string, returnId: string, body: ReceiveBody): Promise<string[]> {
  return moveReturn(
    db,
    storeId,
    returnId,
    (ret) => receive(ret, body),
    (ret, receipt, now) => applyReceipt(db, ret, receipt, now),
  );
}

/** A decision on a requested return (Approve, Reject); answers the webhook endpoints to wake. */
export function decideReturn(db: Db, storeId: string, returnId: string, decision: "approve" | "reject", body: DecisionBody): Promise<string[]> {
  return moveReturn(
    db,
    storeId,
    returnId,
    (ret) => decide(ret, decision, body),
    (ret, change, now) => applyDecision(db, ret, change, now),
  );
}
