// A seller's refund of an order (PUT /v1/{token}/Orders/{orderId}/Refund, decisions 13): read the
// order, its refunds and the return named, decide (src/refunds/refund-rules.ts), and record it in
// one D1 batch with its outbox row, its order.refunded event, the return it settles and the
// order's DateUpdated. The insert checks the limits again inside the batch; a refund that loses
// that race to another is decided again from what D1 now holds (and so refused, naming the line).
// The same call again finds the refund it made by its request key and records nothing.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { ApiError } from "../http/errors";
import { randomId } from "../lib/crypto";
import { enqueueWhen } from "../outbox/outbox.queries";
import { decideRefund, refundRequestKey, type RefundedSoFar } from "../refunds/refund-rules";
import { hubRefundStatements, refundByRequestKey, refundsOfOrders, refundWritten, type RefundView } from "../refunds/refunds.queries";
import type { RefundBody } from "../refunds/refunds.schemas";
import { findReturn, markRefundedStatement, refundMoves } from "../returns/returns.queries";
import { orderRefundedEvents, returnEvents, toD1, wokenBy } from "../webhooks/webhook-deliveries.queries";
import { refunds as refundsTable } from "../db/schema";
import { orderNotFound } from "./order-move.service";
import { findOrder } from "./orders.queries";
import { touchOrderWhen } from "./orders.writes";

export interface RefundResult {
  refund: RefundView;
  /** False when the same call had recorded it before. */
  created: boolean;
  webhooks: string[];
}

/** What the order's refunds took so far, per line and of the shipping. */
export function refundedSoFar(refunds: RefundView[]): RefundedSoFar {
  const soFar: RefundedSoFar = { quantity: new Map(), amount: new Map(), shipping: 0 };
  for (const refund of refunds) {
    soFar.shipping += refund.shippingAmount;
    for (const line of refund.lines) {
      soFar.quantity.set(line.orderItemId, (soFar.quantity.get(line.orderItemId) ?? 0) + line.quantity);
      soFar.amount.set(line.orderItemId, (soFar.amount.get(line.orderItemId) ?? 0) + line.amount);
    }
  }
  return soFar;
}

export async function refundOrder(db: Db, storeId: string, orderId: string, body: RefundBody): Promise<RefundResult> {
  const requestKey = await refundRequestKey(body);
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findOrder(db, storeId, orderId);
    if (!found) throw orderNotFound(orderId);
    const order = found.order;
    const earlier = (await refundsOfOrders(db, [order.id])).get(order.id) ?? [];
    const repeat = earlier.find((r) => r.requestKey === requestKey);
    if (repeat) return { refund: repeat, created: false, webhooks: [] };
    let returned = null;
    if (body.ReturnId !== undefined) {
      const ret = await findReturn(db, storeId, body.ReturnId);
      if (!ret || ret.orderId !== order.id) throw new ApiError(400, `'ReturnId': '${body.ReturnId.slice(0, 40)}' is not a return of order ${order.id}.`);
      returned = { id: ret.id, lines: ret.lines.map((l) => ({ orderItemId: l.orderItemId, quantity: l.quantity })) };
    }
    const decided = decideRefund(order, found.items, refundedSoFar(earlier), returned, body);
    const now = Date.now();
    const lastWrite = randomId("rf");
    const written = refundWritten(order.id, lastWrite);
    const d1 = db.$client;
    const statements: D1PreparedStatement[] = [
      ...hubRefundStatements(db, {
        storeId,
        orderId: order.id,
        returnId: decided.returnId,
        requestKey,
        lastWrite,
        status: order.sourceId ? "Pending" : "NotApplicable",
        reason: decided.reason,
        shippingAmount: decided.shippingAmount,
        total: decided.total,
        lines: decided.lines,
        at: now,
      }),
      toD1(db, orderRefundedEvents(db, now, sql`${refundsTable.orderId} = ${order.id} and ${refundsTable.lastWrite} = ${lastWrite}`)),
      toD1(db, touchOrderWhen(db, order.id, written, now)),
    ];
    if (order.sourceId) {
      const payload = sql`json_object('refundId', (select ${refundsTable.id} from ${refundsTable} where ${refundsTable.orderId} = ${order.id} and
        ${refundsTable.lastWrite} = ${lastWrite}))`;
      statements.push(enqueueWhen(db, { storeId, sourceId: order.sourceId, orderId: order.id, kind: "refund", payload, at: now }, written));
    }
    if (decided.returnId !== null) {
      statements.push(
        toD1(db, returnEvents(db, "return.updated", now, refundMoves(decided.returnId, written), "Refunded")),
        toD1(db, markRefundedStatement(db, decided.returnId, written, now)),
      );
    }
    const results = await d1.batch(statements);
    const refund = await refundByRequestKey(db, order.id, requestKey);
    if (refund && refund.lastWrite === lastWrite) {
      return { refund, created: true, webhooks: wokenBy(results[2], ...(decided.returnId !== null ? [results.at(-2)] : [])) };
    }
    // A concurrent identical call recorded it first.
    if (refund) return { refund, created: false, webhooks: [] };
    // Another refund of the order took what this one asked for first: decide again from D1.
  }
  throw new ApiError(503, `Order ${orderId} is being refunded by other requests; try again.`, { "Retry-After": "1" });
}
