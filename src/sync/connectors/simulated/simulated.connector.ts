// `simulated`: a deterministic marketplace that lives in-process, for local use, demos and tests.
// It sells orders at a steady rate (simulated.orders.ts), records every call it receives in the
// source's own storage (the SourceSync Durable Object that runs the source's cycles, so a record
// costs no D1 statement and is gone with the source), and fails on demand through Settings:
// HTTP 500, a timeout, or 429 with Retry-After, for chosen operations.
import { z } from "zod";
import { MarketplaceError, type Connector, type ConnectorContext, type DeliveryOrder, type Shipment } from "../../connector";
import type { SourceStorage } from "../storage";
import { indexOfOrderNumber, indexRange, makeOrder } from "./simulated.orders";

const OPERATIONS = ["fetchOrders", "acknowledge", "ship", "cancel"] as const;
type Operation = (typeof OPERATIONS)[number];

const isoInstant = z.iso.datetime({ offset: true }).transform((value) => Date.parse(value));

export const simulatedSettingsSchema = z.strictObject({
  /** The steady rate at which the marketplace sells. */
  // At least one order in 1,000 hours: a rate that is positive but tiny (5e-324) made the order
  // interval Infinity, every date NaN, and each import fail in D1 (NOT NULL) for good.
  ordersPerHour: z.number().min(0.001).max(3_600_000).default(6),
  /** The marketplace opened at this time: no order is older. Default: none before the import window. */
  startAt: isoInstant.optional(),
  /** The marketplace stops selling at this time (makes a run's order count exact). */
  endAt: isoInstant.optional(),
  pageSize: z.number().int().min(1).max(500).default(100),
  /** Make calls fail: `http500`, `timeout`, or `rateLimited` (429 with Retry-After). */
  fault: z
    .strictObject({
      kind: z.enum(["http500", "timeout", "rateLimited"]),
      retryAfterSeconds: z.number().int().min(0).max(86_400).default(60),
      operations: z.array(z.enum(OPERATIONS)).min(1).default([...OPERATIONS]),
    })
    .optional(),
  /** Order numbers whose deliveries the marketplace refuses with a 400 (no retry can fix it). */
  rejectOrderNumbers: z.array(z.string()).default([]),
});
export type SimulatedSettings = z.output<typeof simulatedSettingsSchema>;

/** One call the marketplace received, as the source's status can show it. */
export interface ReceivedCall {
  seq: number;
  at: number;
  operation: Operation;
  orderNumber: string | null;
  /** What was sent: the seller order number, the shipment, the lines. */
  body: Record<string, unknown>;
  /** The answer: 200, 400, 404, 429, 500, or "timeout". */
  answer: number | "timeout";
}

const RECEIVED_PREFIX = "simulated:received:";
const SEQ_KEY = "simulated:seq";
/** Oldest records are dropped past this many, so a long-lived demo source stays small. */
const KEEP_RECEIVED = 20_000;

export function receivedCalls(storage: SourceStorage): ReceivedCall[] {
  return storage.list<ReceivedCall>(RECEIVED_PREFIX).map(([, call]) => call);
}

export function createSimulatedConnector(ctx: ConnectorContext, storage: SourceStorage): Connector {
  const parsed = simulatedSettingsSchema.safeParse(ctx.settings);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "settings"}: ${i.message}`).join("; ");
    throw new MarketplaceError(`Simulated settings of source ${ctx.sourceId} are invalid: ${detail}`, null, false);
  }
  const settings = parsed.data;
  const grid = {
    intervalMs: Math.max(1, Math.round(3_600_000 / settings.ordersPerHour)),
    startAt: settings.startAt ?? 0,
    endAt: settings.endAt ?? null,
  };

  function record(operation: Operation, orderNumber: string | null, body: Record<string, unknown>, answer: ReceivedCall["answer"]) {
    const seq = (storage.get<number>(SEQ_KEY) ?? 0) + 1;
    storage.put(SEQ_KEY, seq);
    const call: ReceivedCall = { seq, at: ctx.now().getTime(), operation, orderNumber, body, answer };
    storage.put(`${RECEIVED_PREFIX}${String(seq).padStart(12, "0")}`, call);
    if (seq > KEEP_RECEIVED) storage.delete(`${RECEIVED_PREFIX}${String(seq - KEEP_RECEIVED).padStart(12, "0")}`);
  }

  /** Records the call and throws what the configured fault answers, if any. */
  function receive(operation: Operation, orderNumber: string | null, body: Record<string, unknown>): void {
    const fault = settings.fault;
    if (fault && fault.operations.includes(operation)) {
      if (fault.kind === "timeout") {
        record(operation, orderNumber, body, "timeout");
        // Not actually waited: a test or a demo should not sit through it.
        throw new MarketplaceError(`Simulated marketplace ${operation}: no answer within 10 s (timeout)`, null, true);
      }
      if (fault.kind === "rateLimited") {
        record(operation, orderNumber, body, 429);
        throw new MarketplaceError(
          `Simulated marketplace 429 Too Many Requests: retry after ${fault.retryAfterSeconds} s`,
          429,
          true,
          fault.retryAfterSeconds * 1000,
        );
      }
      record(operation, orderNumber, body, 500);
      throw new MarketplaceError("Simulated marketplace 500 Internal Server Error: the service is temporarily unavailable", 500, true);
    }
    if (orderNumber !== null) {
      const k = indexOfOrderNumber(ctx.sourceId, orderNumber);
      if (k === null || k * grid.intervalMs < grid.startAt || (grid.endAt !== null && k * grid.intervalMs > grid.endAt)) {
        record(operation, orderNumber, body, 404);
        throw new MarketplaceError(`Simulated marketplace 404 ORDER_NOT_FOUND: no order ${orderNumber} on this marketplace`, 404, false);
      }
      if (settings.rejectOrderNumbers.includes(orderNumber)) {
        record(operation, orderNumber, body, 400);
        throw new MarketplaceError(
          `Simulated marketplace 400 INVALID_REQUEST: order ${orderNumber} cannot be updated (${operation} refused)`,
          400,
          false,
        );
      }
    }
    record(operation, orderNumber, body, 200);
  }

  const linesOf = (order: DeliveryOrder) => order.lines.map((l) => ({ lineNumber: l.sourceLineId, sku: l.sku, quantity: l.quantity }));
  const shipmentOf = (s: Shipment) => ({
    trackingNumber: s.trackingNumber,
    carrier: s.carrier,
    shippingMethod: s.shippingMethod,
    shipDate: s.shippedAt.toISOString(),
  });

  return {
    async fetchOrders(since, cursor) {
      // Page requests are not recorded: only what the marketplace is told matters to a seller.
      if (settings.fault?.operations.includes("fetchOrders")) receive("fetchOrders", null, { since: since.toISOString(), cursor });
      const range = indexRange(grid, since.getTime(), ctx.now().getTime());
      if (!range) return { orders: [], nextCursor: null };
      const first = cursor === null ? range.first : Number(cursor);
      if (!Number.isSafeInteger(first) || first < range.first) {
        throw new MarketplaceError(`Simulated marketplace 400 INVALID_CURSOR: '${cursor}'`, 400, false);
      }
      const last = Math.min(range.last, first + settings.pageSize - 1);
      const orders = [];
      for (let k = first; k <= last; k++) orders.push(makeOrder(ctx.sourceId, k, grid.intervalMs));
      return { orders, nextCursor: last < range.last ? String(last + 1) : null };
    },
    async acknowledge(order) {
      receive("acknowledge", order.sourceOrderNumber, { sellerOrderNumber: order.sellerOrderNumber, lines: linesOf(order) });
    },
    async ship(order, shipment) {
      receive("ship", order.sourceOrderNumber, { ...shipmentOf(shipment), lines: linesOf(order) });
    },
    async cancel(order) {
      receive("cancel", order.sourceOrderNumber, { lines: linesOf(order) });
    },
  };
}
