// The order-move service: acknowledge, ship or cancel one order of a store (whole, or the lines
// and units a client names), and apply what a marketplace reports of its orders' lines at an
// import. It reads the one row a move decides on (orders.queries.ts's moveStateOf: the order with
// its lines and line changes folded in), decides with the pure state machine (order-moves.ts), and
// writes the change with its stock, packages, webhook events and outbox row as one batch under
// one guard (orders.writes.ts's applyMoves). When another request changed the order between the
// read and the write, the guard fails, nothing is written, and the move is read and decided
// again: two clients shipping the last unit at once see one package made, and the other's call
// decided again on the order as it now is (a 400: nothing left). The routes (/v1 and the
// operator's) only parse the request and call moveOrder.
import type { Db } from "../db/client";
import { ApiError } from "../http/errors";
import {
  acknowledge,
  cancel,
  marketplaceLines,
  ship,
  type CancelRequest,
  type MarketplaceLines,
  type Move,
  type OrderState,
  type ShipRequest,
} from "./order-moves";
import { moveStateOf, moveStatesOfNumbers } from "./orders.queries";
import type { UpdateStatusBody } from "./orders.schemas";
import { applyMoves } from "./orders.writes";

/** What a client asks of an order. */
export type MoveRequest = { kind: "acknowledge"; sellerOrderNumber: string } | ({ kind: "ship" } & ShipRequest) | ({ kind: "cancel" } & CancelRequest);

/** UpdateStatus's body (/v1 and the operator's) as a move request. */
export function updateStatusRequest(body: UpdateStatusBody): MoveRequest {
  const items = body.Items?.map((i) => ({ orderItemId: i.OrderItemId, quantity: i.Quantity }));
  if (body.OrderStatus === "Canceled") return { kind: "cancel", ...(items ? { items } : {}) };
  return {
    kind: "ship",
    trackingNumber: body.ShipmentTrackingNumber,
    dateShipped: body.DateShipped,
    carrier: body.DestinationShippingCarrier,
    ...(items ? { items } : {}),
    ...(body.ShipmentId !== undefined ? { shipmentId: body.ShipmentId } : {}),
  };
}

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
      return cancel(order, request);
  }
}

/** A batch a line's own guard refused (order_items' trigger): another write got there first, as a failed guard says. */
const lostRace = (error: unknown) =>
  error instanceof Error && /line_over_quantity/.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? "")}`);

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
    const move = decide(order, request, now);
    if (move.kind === "none") return { webhooks: [] };
    try {
      const done = await applyMoves(db, storeId, [{ order, move }], now);
      if (done.applied.has(order.id)) return { webhooks: done.webhooks };
    } catch (error) {
      if (!lostRace(error)) throw error;
    }
  }
  throw new ApiError(503, `Order ${orderId} is being changed by other requests; try again.`, { "Retry-After": "1" });
}

/**
 * What an import met of its orders' lines (decisions 12): the marketplace's shipped and cancelled
 * units and its packages, applied to the orders the source holds, in one read and one batch for
 * the lot (again for those another request changed meanwhile), never queued back. Orders the
 * source does not hold are passed over. Answers how many orders moved, the webhook endpoints to
 * wake, and the order numbers whose report is still not applied after the last attempt (other
 * requests kept changing them): the connector must not remember those as read.
 */
export async function applyMarketplaceLines(
  db: Db,
  source: { storeId: string; id: string },
  reports: Map<string, MarketplaceLines>,
  now: number,
): Promise<{ moved: number; webhooks: string[]; unapplied: string[] }> {
  const webhooks = new Set<string>();
  let moved = 0;
  let pending = [...reports.keys()];
  for (let attempt = 0; attempt < ATTEMPTS && pending.length > 0; attempt++) {
    const states = await moveStatesOfNumbers(db, source.storeId, source.id, pending);
    const moves = [...states].map(([number, order]) => ({ number, order, move: marketplaceLines(order, reports.get(number)!, now) }));
    const changing = moves.filter((m) => m.move.kind === "change");
    if (changing.length === 0) {
      pending = [];
      break;
    }
    let applied: Set<number>;
    try {
      const done = await applyMoves(db, source.storeId, changing, now);
      for (const id of done.webhooks) webhooks.add(id);
      applied = done.applied;
      moved += applied.size;
    } catch (error) {
      if (!lostRace(error)) throw error;
      applied = new Set();
    }
    pending = changing.filter((m) => !applied.has(m.order.id)).map((m) => m.number);
  }
  return { moved, webhooks: [...webhooks], unapplied: pending };
}
