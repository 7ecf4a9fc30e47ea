// The order state machine of decisions 3 and 12, as pure functions of (order, request, now). Each
// answers what to change (the order's columns, its lines' shipped and cancelled units, a package
// or a cancellation to record, a package to correct), what to deliver to the marketplace and
// which webhook events to record, or throws a 400 saying why the move is not allowed. Repeating a
// move with the same values changes and delivers nothing. The marketplace's own line changes,
// met at an import, go through the same vocabulary (marketplaceLines) and deliver nothing.
import type { OrderRow } from "../db/schema";
import { ApiError } from "../http/errors";
import type { OutboxPayload } from "../outbox/outbox.queries";
import type { OrderStatus } from "./orders.schemas";

/** An order line as a move reads it. */
export interface LineState {
  id: number;
  sku: string;
  sourceLineId: string | null;
  quantity: number;
  shipped: number;
  cancelled: number;
  /** Units of stock the line took when it arrived (order_items.stock_taken; its quantity for a line stored before that). */
  taken: number;
}

/** [[orderItemId, units], ...]: lines and how many of their units. */
export type Units = [number, number][];

/** A package (ship) or a cancellation of an order, as recorded (line_changes). */
export interface LineChangeState {
  id: number;
  seq: number;
  kind: "ship" | "cancel";
  origin: "seller" | "marketplace";
  lines: Units;
  trackingNumber: string | null;
  carrier: string | null;
  dateShipped: number | null;
  marketplaceRef: string | null;
}

/** What a move reads of its order (orders.queries.ts's moveStates: one statement), and all it decides on. */
export type OrderState = Pick<
  OrderRow,
  | "id"
  | "storeId"
  | "dateUpdated"
  | "status"
  | "sourceId"
  | "sourceOrderStatus"
  | "orderDestinationOrderNumber"
  | "dateCreatedInDestination"
  | "shipmentTrackingNumber"
  | "dateShipped"
  | "destinationShippingCarrier"
  | "shippingMethod"
  | "fulfillmentStatus"
> & { lines: LineState[]; changes: LineChangeState[] };

/** The order columns a move may set. */
export type OrderSet = Partial<
  Pick<
    OrderRow,
    | "status"
    | "fulfillmentStatus"
    | "orderDestinationOrderNumber"
    | "dateCreatedInDestination"
    | "shipmentTrackingNumber"
    | "dateShipped"
    | "destinationShippingCarrier"
    | "syncUserErrorMessage"
    | "cancelReason"
  >
>;

/** A package or a cancellation to record; `seq` names it within the order until it has an id. */
export interface NewLineChange {
  seq: number;
  kind: "ship" | "cancel";
  origin: "seller" | "marketplace";
  lines: Units;
  trackingNumber: string | null;
  carrier: string | null;
  shippingMethod: string | null;
  dateShipped: number | null;
  marketplaceRef: string | null;
}

export type MoveEventType = "order.acknowledged" | "order.shipped" | "order.cancelled" | "order.shipment_created" | "order.items_cancelled";

/** A webhook event of the move, with the OrderStatus after it; a package is named by its id, or by the seq of the one this move records. */
export interface MoveEvent {
  type: MoveEventType;
  status: string;
  shipment?: { id: number } | { seq: number };
  items?: Units;
}

/** What reaches the marketplace: a payload, the new package it carries (by seq), and whether it replaces a pending row of the same kind (and package). */
export interface MoveDelivery {
  payload: OutboxPayload;
  shipmentSeq: number | null;
  replaces: boolean;
}

export type Move =
  | { kind: "none" }
  | {
      kind: "change";
      set: OrderSet;
      /** Units added to each line's shipped and cancelled counts. */
      units: { id: number; shipped: number; cancelled: number }[];
      record: NewLineChange[];
      /** A package's tracking, carrier and date corrected. */
      correct: { id: number; trackingNumber: string | null; carrier: string | null; dateShipped: number } | null;
      delivery: MoveDelivery | null;
      events: MoveEvent[];
      /** [sku, units] the cancelled units give back (stockGivenBack), if the order still holds its stock (products.queries.ts). */
      stockBack: [string, number][];
    };

const NONE: Move = { kind: "none" };

/** The one reason the service records; the request cannot set it (spec 3). */
export const CANCEL_REASON = "Canceled by seller";
export const MARKETPLACE_CANCEL_REASON = "Canceled at the marketplace";

/** Units a line has left: ordered, less shipped and cancelled. */
const left = (line: LineState) => line.quantity - line.shipped - line.cancelled;

/**
 * Units of stock a line has given back once `cancelled` of its units are cancelled (decisions 11
 * and 12: never more than it took, each unit once). Cancelled units first use up what the line
 * never took: a line that took every unit gives back each cancelled one; a line of 5 that took 2
 * (the Sku had 2) gives back nothing for its first 3 cancelled units and 2 for the last 2, in
 * whatever calls and from whichever side they come, so what a move gives back is the difference
 * of this before and after it. The same rule as products.queries.ts's givenBackSql.
 */
export const stockGivenBack = (line: Pick<LineState, "quantity" | "taken">, cancelled: number) => Math.max(0, cancelled - (line.quantity - line.taken));

/** The order's status and fulfilment once its lines are as given (decisions 12). */
export function statusOf(lines: LineState[], status: string): { status: string; fulfillmentStatus: OrderRow["fulfillmentStatus"] } {
  const done = lines.every((l) => left(l) === 0);
  const shipped = lines.some((l) => l.shipped > 0);
  if (done && !shipped) return { status: "Canceled", fulfillmentStatus: "Canceled" };
  if (done) return { status: "Shipped", fulfillmentStatus: "Shipped" };
  return { status, fulfillmentStatus: shipped ? "PartiallyShipped" : "Unshipped" };
}

/** The same units, whatever their order. */
function sameUnits(a: Units, b: Units): boolean {
  const key = (u: Units) => JSON.stringify([...u].sort((x, y) => x[0] - y[0] || x[1] - y[1]));
  return key(a) === key(b);
}

/** A change of the order, assembled: the lines after it give the status, the events follow from it. */
function assemble(
  order: OrderState,
  parts: {
    shipped?: Units;
    cancelled?: Units;
    set?: OrderSet;
    record?: NewLineChange[];
    delivery?: MoveDelivery | null;
    events?: (status: string) => MoveEvent[];
    cancelReason?: string;
  },
): Move {
  const add = new Map<number, { shipped: number; cancelled: number }>();
  for (const [id, n] of parts.shipped ?? []) add.set(id, { shipped: (add.get(id)?.shipped ?? 0) + n, cancelled: add.get(id)?.cancelled ?? 0 });
  for (const [id, n] of parts.cancelled ?? []) add.set(id, { shipped: add.get(id)?.shipped ?? 0, cancelled: (add.get(id)?.cancelled ?? 0) + n });
  const after = order.lines.map((l) => ({
    ...l,
    shipped: l.shipped + (add.get(l.id)?.shipped ?? 0),
    cancelled: l.cancelled + (add.get(l.id)?.cancelled ?? 0),
  }));
  const { status, fulfillmentStatus } = statusOf(after, order.status);
  const set: OrderSet = { ...parts.set };
  if (status !== order.status) set.status = status;
  if (fulfillmentStatus !== order.fulfillmentStatus) set.fulfillmentStatus = fulfillmentStatus;
  if (status === "Canceled" && order.status !== "Canceled") set.cancelReason = parts.cancelReason ?? CANCEL_REASON;
  const events = parts.events?.(status) ?? [];
  if (status !== order.status && status === "Shipped") events.push({ type: "order.shipped", status });
  if (status !== order.status && status === "Canceled") events.push({ type: "order.cancelled", status });
  const stockBack = order.lines.flatMap((l): [string, number][] => {
    const back = stockGivenBack(l, l.cancelled + (add.get(l.id)?.cancelled ?? 0)) - stockGivenBack(l, l.cancelled);
    return back > 0 ? [[l.sku, back]] : [];
  });
  return {
    kind: "change",
    set,
    units: [...add].map(([id, u]) => ({ id, ...u })),
    record: parts.record ?? [],
    correct: null,
    delivery: parts.delivery && order.sourceId ? parts.delivery : null,
    events,
    stockBack,
  };
}

const nextSeq = (order: OrderState, plus = 1) => Math.max(0, ...order.changes.map((c) => c.seq)) + plus;
const newest = (order: OrderState) => order.changes.reduce<LineChangeState | null>((a, c) => (a && a.seq > c.seq ? a : c), null);
const newestPackage = (order: OrderState) =>
  order.changes.filter((c) => c.kind === "ship").reduce<LineChangeState | null>((a, c) => (a && a.seq > c.seq ? a : c), null);
const leftUnits = (order: OrderState): Units => order.lines.filter((l) => left(l) > 0).map((l) => [l.id, left(l)]);

// ---------------------------------------------------------------------------------------------
// Acknowledge

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
  const next = status === "New" ? "Processing" : status;
  return {
    kind: "change",
    set: {
      status: next,
      orderDestinationOrderNumber: sellerOrderNumber,
      dateCreatedInDestination: order.dateCreatedInDestination ?? now,
      syncUserErrorMessage: null,
    },
    units: [],
    record: [],
    correct: null,
    delivery: order.sourceId ? { payload: { kind: "acknowledge", sellerOrderNumber }, shipmentSeq: null, replaces: true } : null,
    events: [{ type: "order.acknowledged", status: next }],
    stockBack: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Ship

/** Lines and units a client names (UpdateStatus Items), as the schema checked them. */
export interface RequestedUnits {
  orderItemId: string;
  quantity: number;
}

export interface ShipRequest {
  trackingNumber: string | null | undefined;
  dateShipped: number | null | undefined;
  carrier: string | null | undefined;
  /** Ship exactly these units as one package; left out, every unit left. */
  items?: RequestedUnits[];
  /** Correct this package (its ShipmentId) rather than the newest. */
  shipmentId?: string;
}

/** The requested units as lines of this order; 400 naming an OrderItemId that is not one. */
function unitsOf(order: OrderState, items: RequestedUnits[]): Units {
  const byId = new Map(order.lines.map((l) => [String(l.id), l]));
  return items.map((item) => {
    const line = byId.get(item.orderItemId);
    if (!line) throw new ApiError(400, `'Items': OrderItemId '${item.orderItemId.slice(0, 40)}' is not a line of order ${order.id}. Nothing was changed.`);
    return [line.id, item.quantity];
  });
}

/** 400 naming the first OrderItemId asked for more units than it has left. */
function checkLeft(order: OrderState, units: Units, verb: "ship" | "cancel"): void {
  for (const [id, n] of units) {
    const line = order.lines.find((l) => l.id === id)!;
    if (n > left(line)) {
      throw new ApiError(
        400,
        `'Items': OrderItemId '${id}' has ${left(line)} unit(s) left to ${verb} (ordered ${line.quantity}, shipped ${line.shipped}, cancelled ` +
          `${line.cancelled}); ${n} asked. Nothing was changed.`,
      );
    }
  }
}

export function ship(order: OrderState, request: ShipRequest, now: number): Move {
  if (order.status === "Canceled") {
    throw new ApiError(400, `Order ${order.id} is Canceled; a cancelled order cannot be shipped.`);
  }
  if (request.shipmentId !== undefined) {
    const named = order.changes.find((c) => c.kind === "ship" && String(c.id) === request.shipmentId);
    if (!named) throw new ApiError(400, `'ShipmentId': '${request.shipmentId.slice(0, 40)}' is not a package of order ${order.id}. Nothing was changed.`);
    return correctPackage(order, named, request, now);
  }
  if (request.items) {
    const units = unitsOf(order, request.items);
    const last = newest(order);
    if (
      last?.kind === "ship" &&
      sameUnits(last.lines, units) &&
      (request.trackingNumber ?? null) === last.trackingNumber &&
      (request.carrier == null || request.carrier === (last.carrier ?? "")) &&
      (request.dateShipped == null || request.dateShipped === last.dateShipped)
    ) {
      return NONE;
    }
    checkLeft(order, units, "ship");
    return newPackage(order, units, request, now);
  }
  const units = leftUnits(order);
  if (units.length > 0) return newPackage(order, units, request, now);
  // Nothing left to ship: a correction of the newest package (section 3's second call).
  const target = newestPackage(order);
  if (!target) throw new ApiError(400, `Order ${order.id} has nothing left to ship and no package to correct.`);
  return correctPackage(order, target, request, now);
}

function newPackage(order: OrderState, units: Units, request: ShipRequest, now: number): Move {
  const trackingNumber = request.trackingNumber ?? null;
  const dateShipped = request.dateShipped ?? now;
  const carrier = request.carrier ?? order.destinationShippingCarrier;
  const seq = nextSeq(order);
  return assemble(order, {
    shipped: units,
    // The seed's ShipmentTrackingNumber, DateShipped and carrier are the newest package's.
    set: { shipmentTrackingNumber: trackingNumber, dateShipped, destinationShippingCarrier: carrier, syncUserErrorMessage: null },
    record: [
      {
        seq,
        kind: "ship",
        origin: "seller",
        lines: units,
        trackingNumber,
        carrier: carrier || null,
        shippingMethod: order.shippingMethod || null,
        dateShipped,
        marketplaceRef: null,
      },
    ],
    delivery: {
      payload: {
        kind: "ship",
        trackingNumber,
        carrier: carrier || null,
        shippingMethod: order.shippingMethod || null,
        shippedAt: dateShipped,
        shipmentId: null,
        lines: units,
      },
      shipmentSeq: seq,
      replaces: false,
    },
    events: (status) => [{ type: "order.shipment_created", status, shipment: { seq }, items: units }],
  });
}

/** A package's tracking, carrier or date corrected: what the request leaves out keeps its stored value. */
function correctPackage(order: OrderState, target: LineChangeState, request: ShipRequest, now: number): Move {
  const trackingNumber = request.trackingNumber ?? target.trackingNumber;
  const dateShipped = request.dateShipped ?? target.dateShipped ?? now;
  const carrier = request.carrier ?? target.carrier ?? "";
  if (trackingNumber === target.trackingNumber && dateShipped === target.dateShipped && carrier === (target.carrier ?? "")) return NONE;
  const isNewest = newestPackage(order)?.id === target.id;
  return {
    kind: "change",
    set: {
      ...(isNewest ? { shipmentTrackingNumber: trackingNumber, dateShipped, destinationShippingCarrier: carrier } : {}),
      syncUserErrorMessage: null,
    },
    units: [],
    record: [],
    correct: { id: target.id, trackingNumber, carrier: carrier || null, dateShipped },
    delivery: order.sourceId
      ? {
          payload: {
            kind: "ship",
            trackingNumber,
            carrier: carrier || null,
            shippingMethod: order.shippingMethod || null,
            shippedAt: dateShipped,
            shipmentId: target.id,
            lines: target.lines,
          },
          shipmentSeq: null,
          // Only the latest correction of a package matters to the marketplace.
          replaces: true,
        }
      : null,
    // A Shipped order's correction says so again, as the whole-order correction always has.
    events: order.status === "Shipped" ? [{ type: "order.shipped", status: order.status }] : [],
    stockBack: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Cancel

export interface CancelRequest {
  /** Cancel exactly these units; left out, every unit not yet shipped. */
  items?: RequestedUnits[];
}

export function cancel(order: OrderState, request: CancelRequest = {}): Move {
  if (request.items) {
    const units = unitsOf(order, request.items);
    const last = newest(order);
    if (last?.kind === "cancel" && last.origin === "seller" && sameUnits(last.lines, units)) return NONE;
    checkLeft(order, units, "cancel");
    return cancellation(order, units);
  }
  const status = order.status as OrderStatus;
  if (status === "Canceled") return NONE;
  if (status === "Shipped") {
    throw new ApiError(400, `Order ${order.id} is Shipped; a shipped order cannot be cancelled.`);
  }
  const units = leftUnits(order);
  // An order without lines cancels whole, as before lines; one whose lines are all done has nothing left.
  if (units.length === 0 && order.lines.length > 0) return NONE;
  return cancellation(order, units);
}

function cancellation(order: OrderState, units: Units): Move {
  // The whole order, untouched before: the marketplace's whole-order cancellation, as always.
  const untouched = order.lines.every((l) => l.shipped === 0 && l.cancelled === 0);
  const whole = untouched && order.lines.every((l) => units.some(([id, n]) => id === l.id && n === l.quantity));
  const seq = nextSeq(order);
  return assemble(order, {
    cancelled: units,
    set: { syncUserErrorMessage: null },
    record: [
      {
        seq,
        kind: "cancel",
        origin: "seller",
        lines: units,
        trackingNumber: null,
        carrier: null,
        shippingMethod: null,
        dateShipped: null,
        marketplaceRef: null,
      },
    ],
    delivery: { payload: { kind: "cancel", reason: CANCEL_REASON, lines: whole ? null : units }, shipmentSeq: null, replaces: false },
    events: (status) => [{ type: "order.items_cancelled", status, items: units }],
  });
}

// ---------------------------------------------------------------------------------------------
// The marketplace's own line changes, met at an import

/** What a marketplace reports of an order's lines (ImportedOrder's optional fields), by its line ids. */
export interface MarketplaceLines {
  items: { sourceLineId: string; quantityShipped?: number; quantityCancelled?: number }[];
  shipments?: {
    sourceShipmentId: string | null;
    trackingNumber: string | null;
    carrier: string | null;
    shippingMethod: string | null;
    shippedAt: number | null;
    lines: { sourceLineId: string; quantity: number }[];
  }[];
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;

/**
 * Applies what the marketplace reports to the order, never sending it back: a line's shipped and
 * cancelled units only grow (a lower count is a change of the hub's not yet delivered), held to
 * what the line has; a package is recorded when the order does not know it (by the
 * marketplace's id, else by tracking number) and its lines fit what the shipped counts leave
 * unpackaged. Cancelled units give their stock back once.
 */
export function marketplaceLines(order: OrderState, report: MarketplaceLines, now: number): Move {
  const bySourceId = new Map(order.lines.filter((l) => l.sourceLineId !== null).map((l) => [l.sourceLineId!, l]));
  const known = order.changes.filter((c) => c.kind === "ship");
  const knownRefs = new Set(known.flatMap((c) => (c.marketplaceRef ?? "").split(/\s+/).filter(Boolean)));
  const knownTracking = new Set(known.map((c) => c.trackingNumber).filter((t): t is string => !!t));
  const reportedShipped = new Map<number, number>();
  const packages = (report.shipments ?? []).flatMap((s) => {
    const units: Units = [];
    for (const l of s.lines) {
      const line = bySourceId.get(l.sourceLineId);
      if (!line || !isCount(l.quantity) || l.quantity === 0) return [];
      units.push([line.id, l.quantity]);
    }
    if (units.length === 0) return [];
    for (const [id, n] of units) reportedShipped.set(id, (reportedShipped.get(id) ?? 0) + n);
    return [{ ...s, units }];
  });
  // Each line's counts after the report.
  const shippedTo = new Map<number, number>();
  const cancelledTo = new Map<number, number>();
  for (const line of order.lines) {
    const item = line.sourceLineId === null ? undefined : report.items.find((i) => i.sourceLineId === line.sourceLineId);
    const rs = isCount(item?.quantityShipped) ? item.quantityShipped : report.shipments ? (reportedShipped.get(line.id) ?? 0) : 0;
    const rc = isCount(item?.quantityCancelled) ? item.quantityCancelled : 0;
    const shipped = Math.min(line.quantity - line.cancelled, Math.max(line.shipped, rs));
    shippedTo.set(line.id, shipped);
    cancelledTo.set(line.id, Math.min(line.quantity - shipped, Math.max(line.cancelled, rc)));
  }
  // Packages the order does not know, as far as the shipped counts leave units without a package.
  const packaged = new Map<number, number>();
  for (const c of known) for (const [id, n] of c.lines) packaged.set(id, (packaged.get(id) ?? 0) + n);
  const record: NewLineChange[] = [];
  for (const p of packages) {
    if (p.sourceShipmentId && knownRefs.has(p.sourceShipmentId)) continue;
    if (p.trackingNumber && knownTracking.has(p.trackingNumber)) continue;
    if (!p.units.every(([id, n]) => (packaged.get(id) ?? 0) + n <= (shippedTo.get(id) ?? 0))) continue;
    for (const [id, n] of p.units) packaged.set(id, (packaged.get(id) ?? 0) + n);
    if (p.sourceShipmentId) knownRefs.add(p.sourceShipmentId);
    if (p.trackingNumber) knownTracking.add(p.trackingNumber);
    record.push({
      seq: nextSeq(order, record.length + 1),
      kind: "ship",
      origin: "marketplace",
      lines: p.units,
      trackingNumber: p.trackingNumber,
      carrier: p.carrier,
      shippingMethod: p.shippingMethod,
      dateShipped: p.shippedAt ?? now,
      marketplaceRef: p.sourceShipmentId,
    });
  }
  const shipped: Units = order.lines.map((l) => [l.id, shippedTo.get(l.id)! - l.shipped] as [number, number]).filter(([, n]) => n > 0);
  const cancelled: Units = order.lines.map((l) => [l.id, cancelledTo.get(l.id)! - l.cancelled] as [number, number]).filter(([, n]) => n > 0);
  if (shipped.length === 0 && cancelled.length === 0 && record.length === 0) return NONE;
  if (cancelled.length > 0) {
    record.push({
      seq: nextSeq(order, record.length + 1),
      kind: "cancel",
      origin: "marketplace",
      lines: cancelled,
      trackingNumber: null,
      carrier: null,
      shippingMethod: null,
      dateShipped: null,
      marketplaceRef: null,
    });
  }
  const lastPackage = record.filter((r) => r.kind === "ship").at(-1);
  return assemble(order, {
    shipped,
    cancelled,
    set: lastPackage
      ? {
          shipmentTrackingNumber: lastPackage.trackingNumber,
          dateShipped: lastPackage.dateShipped,
          ...(lastPackage.carrier ? { destinationShippingCarrier: lastPackage.carrier } : {}),
        }
      : {},
    record,
    delivery: null,
    cancelReason: MARKETPLACE_CANCEL_REASON,
    events: (status) => [
      ...record.filter((r) => r.kind === "ship").map((r): MoveEvent => ({ type: "order.shipment_created", status, shipment: { seq: r.seq }, items: r.lines })),
      ...(cancelled.length > 0 ? [{ type: "order.items_cancelled" as const, status, items: cancelled }] : []),
    ],
  });
}
