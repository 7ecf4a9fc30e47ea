// The order state machine of decisions 3, as pure functions of (order, request, now). Each
// answers what to change and what to deliver to the marketplace, or throws a 400 saying why the
// move is not allowed. Repeating a move with the same values changes and delivers nothing.
import type { OrderRow } from "../db/schema";
import { ApiError } from "../http/errors";
import type { OutboxPayload } from "../outbox/outbox.queries";
import type { OrderStatus } from "./orders.schemas";

/** `event`: what the move is, for its webhook event whether or not there is a marketplace to tell. */
export type Move = { kind: "none" } | { kind: "change"; set: Partial<OrderRow>; delivery: OutboxPayload | null; event: "acknowledge" | "ship" | "cancel" };

const NONE: Move = { kind: "none" };

type OrderState = Pick<
  OrderRow,
  | "id"
  | "status"
  | "sourceId"
  | "orderDestinationOrderNumber"
  | "dateCreatedInDestination"
  | "shipmentTrackingNumber"
  | "dateShipped"
  | "destinationShippingCarrier"
  | "shippingMethod"
>;

function change(order: OrderState, set: Partial<OrderRow>, payload: Extract<OutboxPayload, { kind: "acknowledge" | "ship" | "cancel" }>): Move {
  // Only an order that came from (or is claimed by) a marketplace source has anywhere to deliver.
  return { kind: "change", set, delivery: order.sourceId ? payload : null, event: payload.kind };
}

export function acknowledge(order: OrderState, sellerOrderNumber: string, now: number): Move {
  const status = order.status as OrderStatus;
  if (status === "Canceled") {
    throw new ApiError(400, `Order ${order.id} is Canceled; a cancelled order cannot be acknowledged.`);
  }
  if (order.orderDestinationOrderNumber === sellerOrderNumber && status !== "New") return NONE;
  if (status === "Shipped" && order.orderDestinationOrderNumber !== null) {
    throw new ApiError(
      400,
      `Order ${order.id} is Shipped and already acknowledged as '${order.orderDestinationOrderNumber}'; its seller order number can no longer change.`,
    );
  }
  return change(
    order,
    {
      status: status === "New" ? "Processing" : status,
      orderDestinationOrderNumber: sellerOrderNumber,
      dateCreatedInDestination: order.dateCreatedInDestination ?? now,
      syncUserErrorMessage: null,
    },
    { kind: "acknowledge", sellerOrderNumber },
  );
}

export interface ShipRequest {
  trackingNumber: string | null | undefined;
  dateShipped: number | null | undefined;
  carrier: string | null | undefined;
}

export function ship(order: OrderState, request: ShipRequest, now: number): Move {
  const status = order.status as OrderStatus;
  if (status === "Canceled") {
    throw new ApiError(400, `Order ${order.id} is Canceled; a cancelled order cannot be shipped.`);
  }
  // On a repeat (a correction), what the request leaves out keeps its stored value.
  const repeat = status === "Shipped";
  const trackingNumber = request.trackingNumber ?? (repeat ? order.shipmentTrackingNumber : null);
  const dateShipped = request.dateShipped ?? (repeat && order.dateShipped !== null ? order.dateShipped : now);
  const carrier = request.carrier ?? order.destinationShippingCarrier;
  if (
    repeat &&
    trackingNumber === order.shipmentTrackingNumber &&
    dateShipped === order.dateShipped &&
    carrier === order.destinationShippingCarrier
  ) {
    return NONE;
  }
  return change(
    order,
    {
      status: "Shipped",
      shipmentTrackingNumber: trackingNumber,
      dateShipped,
      destinationShippingCarrier: carrier,
      syncUserErrorMessage: null,
    },
    { kind: "ship", trackingNumber, carrier: carrier || null, shippingMethod: order.shippingMethod || null, shippedAt: dateShipped },
  );
}

/** The one reason the service records; the request cannot set it (spec 3). */
export const CANCEL_REASON = "Canceled by seller";

export function cancel(order: OrderState): Move {
  const status = order.status as OrderStatus;
  if (status === "Canceled") return NONE;
  if (status === "Shipped") {
    throw new ApiError(400, `Order ${order.id} is Shipped; a shipped order cannot be cancelled.`);
  }
  return change(order, { status: "Canceled", cancelReason: CANCEL_REASON, syncUserErrorMessage: null }, { kind: "cancel", reason: CANCEL_REASON });
}
