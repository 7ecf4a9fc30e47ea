// The order-move service: acknowledge, ship or cancel one order of a store. It reads the one row
// a move decides on (orders.queries.ts's moveStateOf), decides with the pure state machine
// (order-moves.ts), and writes the change with its stock, webhook event and outbox row as one
// batch under one guard (orders.writes.ts's applyMove). When another request changed the order
// between the read and the write, the guard fails, nothing is written, and the move is read and
// decided again. The routes (/v1 and the operator's) only parse the request and call moveOrder.
import type { Db } from "../db/client";
import { ApiError } from "../http/errors";
import { acknowledge, cancel, ship, type Move, type OrderState, type ShipRequest } from "./order-moves";
import { moveStateOf } from "./orders.queries";
import { applyMove } from "./orders.writes";

/** What a client asks of an order. */
export type MoveRequest =
  | { kind: "acknowledge"; sellerOrderNumber: string }
  | ({ kind: "ship" } & ShipRequest)
  | { kind: "cancel" };

/** Reads, decides and writes this many times before a busy order answers 503. */
const ATTEMPTS = 3;

export const orderNotFound = (orderId: string) => new ApiError(404, `No order with OrderId '${orderId.slice(0, 40)}' exists in this store.`);

function decide(order: OrderState, request: MoveRequest, now: number): Move {
  switch (request.kind) {
    case "acknowledge":
      return acknowledge(order, request.sellerOrderNumber, now);
    case "ship":
      return ship(order, request, now);
    case "cancel":
      return cancel(order);
  }
}

/**
 * Moves an order of the store as the request asks. Throws 404 for an order the store does not
 * have, 400 (from the state machine) for a move the order's state does not allow, and 503 when
 * other requests keep changing the order. Answers the webhook endpoints to wake.
 */
export async function moveOrder(db: Db, storeId: string, orderId: string, request: MoveRequest): Promise<{ webhooks: string[] }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const order = await moveStateOf(db, storeId, orderId);
    if (!order) throw orderNotFound(orderId);
    const now = Date.now();
    const applied = await applyMove(db, order, decide(order, request, now), now);
    if (applied) return applied;
  }
  throw new ApiError(503, `Order ${orderId} is being changed by other requests; try again.`, { "Retry-After": "1" });
}
