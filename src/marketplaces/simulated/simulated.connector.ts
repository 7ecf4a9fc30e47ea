// `simulated`: a deterministic marketplace that lives in-process, for local use, demos and tests.
// It sells orders at a steady rate (simulated.mapping.ts), records every call it receives in the
// source's own storage (the SourceSync Durable Object that runs the source's cycles, so a record
// costs no D1 statement and is gone with the source), and behaves as Settings ask: it fails on
// demand (HTTP 500, a timeout, 429 with Retry-After), refuses chosen orders, makes every Nth order
// unmappable (set aside), takes chosen operations for later processing (submitted, then confirmed
// or rejected when asked), lacks chosen operations (notApplicable), and takes a repeated
// idempotency key without applying the call twice. Returns and refunds, both ways, are
// simulated.returns.ts's (decisions 13).
import {
  MarketplaceError,
  type Capabilities,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type DeliveryOutcome,
  type ImportedOrder,
  type ReturnDelivery,
  type Shipment,
  type SubmissionStatus,
} from "../connector";
import { connectorSettings } from "../kit/settings";
import { CAPABILITIES, type DELIVERY_OPERATIONS, simulatedSettingsSchema, type Operation } from "./simulated.settings";
import { toWireDate } from "../../lib/dates";
import type { SourceStorage } from "../storage";
import { indexOfOrderNumber, indexRange, makeRecord, simulatedOrderReader, type SimulatedRecord } from "./simulated.mapping";
import { readOrder, splitPage } from "../kit/orders-page";
import { simulatedListings } from "./simulated.listings";
import { keepRefund, marketplaceRefund, refundsTaken, simulatedReturns, toImportedRefund } from "./simulated.returns";

/** One call the marketplace received, as the source's status can show it. */
export interface ReceivedCall {
  seq: number;
  at: number;
  operation: Operation;
  orderNumber: string | null;
  /** What was sent: the seller order number, the shipment, the lines. */
  body: Record<string, unknown>;
  /** The answer: 200, 202 (accepted for later), 400, 404, 429, 500, or "timeout". */
  answer: number | "timeout";
  /** The idempotency key the call carried, if any. */
  idempotencyKey: string | null;
  /** The marketplace had already taken this key: it answered as before and applied nothing again. */
  duplicate: boolean;
}

interface Submission {
  operation: Operation;
  orderNumber: string;
  checks: number;
  reject: boolean;
}

const RECEIVED_PREFIX = "simulated:received:";
const SEQ_KEY = "simulated:seq";
const KEY_PREFIX = "simulated:key:";
const SUBMISSION_PREFIX = "simulated:submission:";
/** Oldest records are dropped past this many, so a long-lived demo source stays small. */
const KEEP_RECEIVED = 20_000;

export function receivedCalls(storage: SourceStorage): ReceivedCall[] {
  return storage.list<ReceivedCall>(RECEIVED_PREFIX).map(([, call]) => call);
}

/** The latest 1,000 calls (the source keeps up to 20,000) as GET .../received answers them. */
export function receivedWire(storage: SourceStorage): unknown[] {
  return receivedCalls(storage)
    .slice(-1000)
    .map((r) => ({
      Seq: r.seq,
      Date: toWireDate(r.at),
      Operation: r.operation,
      OrderSourceOrderNumber: r.orderNumber,
      Body: r.body,
      Answer: r.answer,
      IdempotencyKey: r.idempotencyKey ?? null,
      Duplicate: r.duplicate ?? false,
    }));
}

export function createSimulatedConnector(ctx: ConnectorContext, storage: SourceStorage): Connector {
  const settings = connectorSettings(simulatedSettingsSchema, ctx, "Simulated");
  const grid = {
    intervalMs: Math.max(1, Math.round(3_600_000 / settings.ordersPerHour)),
    startAt: settings.startAt ?? 0,
    endAt: settings.endAt ?? null,
  };

  function record(
    operation: Operation,
    orderNumber: string | null,
    body: Record<string, unknown>,
    answer: ReceivedCall["answer"],
    idempotencyKey: string | null = null,
    duplicate = false,
  ): number {
    const seq = (storage.get<number>(SEQ_KEY) ?? 0) + 1;
    storage.put(SEQ_KEY, seq);
    const call: ReceivedCall = { seq, at: ctx.now().getTime(), operation, orderNumber, body, answer, idempotencyKey, duplicate };
    storage.put(`${RECEIVED_PREFIX}${String(seq).padStart(12, "0")}`, call);
    if (seq > KEEP_RECEIVED) storage.delete(`${RECEIVED_PREFIX}${String(seq - KEEP_RECEIVED).padStart(12, "0")}`);
    return seq;
  }

  /** Throws what the configured fault answers for this operation, if any (the call recorded). */
  function fault(operation: Operation, orderNumber: string | null, body: Record<string, unknown>, key: string | null = null): void {
    const fault = settings.fault;
    if (fault?.operations.includes(operation)) {
      if (fault.kind === "timeout") {
        record(operation, orderNumber, body, "timeout", key);
        // Not actually waited: a test or a demo should not sit through it.
        throw new MarketplaceError(`Simulated marketplace ${operation}: no answer within 10 s (timeout)`, null, true);
      }
      if (fault.kind === "rateLimited") {
        record(operation, orderNumber, body, 429, key);
        throw new MarketplaceError(
          `Simulated marketplace 429 Too Many Requests: retry after ${fault.retryAfterSeconds} s`,
          429,
          true,
          fault.retryAfterSeconds * 1000,
        );
      }
      record(operation, orderNumber, body, 500, key);
      throw new MarketplaceError("Simulated marketplace 500 Internal Server Error: the service is temporarily unavailable", 500, true);
    }
  }

  /** One delivery call: recorded, answered as Settings say. */
  function receive(operation: (typeof DELIVERY_OPERATIONS)[number], delivery: Delivery | ReturnDelivery, body: Record<string, unknown>): DeliveryOutcome {
    const orderNumber = delivery.order.sourceOrderNumber;
    const key = delivery.idempotencyKey;
    fault(operation, orderNumber, body, key);
    const k = indexOfOrderNumber(ctx.sourceId, orderNumber);
    if (k === null || k * grid.intervalMs < grid.startAt || (grid.endAt !== null && k * grid.intervalMs > grid.endAt)) {
      record(operation, orderNumber, body, 404, key);
      throw new MarketplaceError(`Simulated marketplace 404 ORDER_NOT_FOUND: no order ${orderNumber} on this marketplace`, 404, false);
    }
    // A key it has taken before: the marketplace answers as it did and applies nothing again.
    const earlier = storage.get<DeliveryOutcome>(`${KEY_PREFIX}${key}`);
    if (earlier) {
      record(operation, orderNumber, body, earlier.state === "submitted" ? 202 : 200, key, true);
      return earlier;
    }
    const reject = settings.rejectOrderNumbers.includes(orderNumber);
    if (settings.asynchronous?.operations.includes(operation)) {
      const seq = record(operation, orderNumber, body, 202, key);
      const reference = `SIM-SUB-${seq}`;
      storage.put(`${SUBMISSION_PREFIX}${reference}`, { operation, orderNumber, checks: 0, reject } satisfies Submission);
      return remember(key, { state: "submitted", reference });
    }
    if (reject) {
      record(operation, orderNumber, body, 400, key);
      throw new MarketplaceError(`Simulated marketplace 400 INVALID_REQUEST: order ${orderNumber} cannot be updated (${operation} refused)`, 400, false);
    }
    const seq = record(operation, orderNumber, body, 200, key);
    const warning = operation === "ship" && body.trackingNumber === null ? "Shipped without a tracking number: the buyer sees none." : null;
    return remember(key, { state: "delivered", reference: `SIM-${seq}`, warning });
  }

  function remember(key: string, outcome: DeliveryOutcome): DeliveryOutcome {
    storage.put(`${KEY_PREFIX}${key}`, outcome);
    return outcome;
  }

  const linesOf = (delivery: Delivery) => delivery.order.lines.map((l) => ({ lineNumber: l.sourceLineId, sku: l.sku, quantity: l.quantity }));
  const shipmentOf = (delivery: Delivery, s: Shipment) => ({
    // The hub's package id: the marketplace keys its package on it.
    ...(s.shipmentId !== undefined ? { shipmentId: s.shipmentId } : {}),
    trackingNumber: s.trackingNumber,
    carrier: s.carrier,
    shippingMethod: s.shippingMethod,
    shipDate: s.shippedAt.toISOString(),
    lines: s.lines.map((l) => ({
      lineNumber: l.sourceLineId,
      sku: delivery.order.lines.find((o) => o.sourceLineId === l.sourceLineId)?.sku ?? null,
      quantity: l.quantity,
    })),
  });
  const malformedEvery = settings.malformedEvery ?? null;
  const unsupported = new Set<string>(settings.unsupportedOperations);
  const capabilities = Object.fromEntries(CAPABILITIES.map((c) => [c, !unsupported.has(c)])) as unknown as Capabilities;

  const cancelled = new Set(settings.cancelledOrderNumbers);
  const refunded = new Set(settings.refundedOrderNumbers);

  /** An order as the marketplace reports it now: with the refunds it made and those it took from the hub. */
  function withRefunds(order: ImportedOrder): ImportedOrder {
    const k = indexOfOrderNumber(ctx.sourceId, order.sourceOrderNumber);
    const own =
      refunded.has(order.sourceOrderNumber) && k !== null
        ? [marketplaceRefund(ctx.sourceId, k, grid.intervalMs, order.createdAt.getTime() + 3_600_000, `${order.sourceOrderNumber}-REFUND`)]
        : [];
    const all = [...own, ...refundsTaken(storage, order.sourceOrderNumber)];
    return all.length > 0 ? { ...order, refunds: all.map(toImportedRefund) } : order;
  }
  const returnsImport = settings.returnsEvery
    ? simulatedReturns({ sourceId: ctx.sourceId, grid, settings, fault: (body) => fault("fetchReturns", null, body), now: ctx.now })
    : { notApplicable: "This simulated marketplace sells without returns: set Settings.returnsEvery to have every Nth order come back." };

  /** The lines the marketplace shipped or cancelled of its own (Settings.lineChanges), on its record. */
  function withLineChanges(record: SimulatedRecord, k: number): void {
    const change = settings.lineChanges[record.sourceOrderNumber];
    if (!change) return;
    const held = (map: Record<string, number> | undefined, line: string, most: number) => Math.min(most, map?.[line] ?? 0);
    record.items = record.items.map((item) => {
      const shipped = held(change.shipped, item.sourceLineId, item.quantity);
      return { ...item, quantityShipped: shipped, quantityCancelled: held(change.cancelled, item.sourceLineId, item.quantity - shipped) };
    });
    const lines = record.items.filter((i) => (i.quantityShipped ?? 0) > 0).map((i) => ({ sourceLineId: i.sourceLineId, quantity: i.quantityShipped! }));
    record.shipments =
      lines.length > 0
        ? [
            {
              sourceShipmentId: `SIM-PKG-${record.sourceOrderNumber}`,
              trackingNumber: `SIMTRK${k}`,
              carrier: "UPS",
              shippingMethod: record.shippingMethod,
              shippedAt: new Date(record.createdAt),
              lines,
            },
          ]
        : [];
  }

  return {
    capabilities,
    listings: simulatedListings({
      settings,
      fault: (body) => fault("pushListings", null, body),
      record: (body, answer) => record("pushListings", null, body, answer),
    }),
    async fetchOrders(window, cursor) {
      // Page requests are not recorded: only what the marketplace is told matters to a seller.
      fault("fetchOrders", null, { since: window.since.toISOString(), until: window.until.toISOString(), cursor });
      const range = indexRange(grid, window.since.getTime(), window.until.getTime());
      if (!range) return { orders: [], setAside: [], nextCursor: null };
      const first = cursor === null ? range.first : Number(cursor);
      if (!Number.isSafeInteger(first) || first < range.first) {
        throw new MarketplaceError(`Simulated marketplace 400 INVALID_CURSOR: '${cursor}'`, 400, false);
      }
      const last = Math.min(range.last, first + settings.pageSize - 1);
      const records: SimulatedRecord[] = [];
      for (let k = first; k <= last; k++) {
        const record = makeRecord(ctx.sourceId, k, grid.intervalMs, malformedEvery);
        // A buyer's cancellation, as Settings.cancelledOrderNumbers plays it.
        if (cancelled.has(record.sourceOrderNumber)) record.sourceOrderStatus = "Cancelled";
        withLineChanges(record, k);
        records.push(record);
      }
      const page = splitPage(simulatedOrderReader, records, "Simulated fetchOrders");
      return { ...page, orders: page.orders.map(withRefunds), nextCursor: last < range.last ? String(last + 1) : null };
    },
    // The marketplace's records are a function of the order number: asked again, it sends the
    // record as it would now (so turning malformedEvery off models the marketplace fixing its data).
    remap(record) {
      const number = typeof record === "object" && record !== null && "sourceOrderNumber" in record ? String(record.sourceOrderNumber) : "";
      const k = indexOfOrderNumber(ctx.sourceId, number);
      if (k === null) return { sourceOrderNumber: number, reason: "the record names no order of this marketplace", record };
      const mapped = readOrder(simulatedOrderReader, makeRecord(ctx.sourceId, k, grid.intervalMs, malformedEvery));
      return "reason" in mapped ? mapped : withRefunds(mapped);
    },
    returns: returnsImport,
    ...(unsupported.has("refund")
      ? {}
      : {
          async refund(delivery) {
            const body = {
              lines: delivery.lines.map((l) => ({ lineNumber: l.sourceLineId, sku: l.sku, quantity: l.quantity, amount: l.amount })),
              shipping: delivery.shippingAmount,
              total: delivery.total,
              currency: delivery.currency,
              reason: delivery.reason,
              returnNumber: delivery.return?.sourceReturnNumber ?? null,
            };
            const outcome = receive("refund", delivery, body);
            // The refund is the marketplace's now: it reports it with the order, under this id.
            const number = delivery.order.sourceOrderNumber;
            if (outcome.state === "delivered" && outcome.reference && !refundsTaken(storage, number).some((r) => r.refundId === outcome.reference)) {
              keepRefund(storage, number, {
                refundId: outcome.reference,
                createdAt: ctx.now().toISOString(),
                reason: delivery.reason,
                lines: delivery.lines.map((l) => ({ orderLineNumber: l.sourceLineId, quantity: l.quantity, amount: l.amount })),
                shipping: delivery.shippingAmount,
              });
            }
            return outcome;
          },
        }),
    ...(unsupported.has("receiveReturn")
      ? {}
      : {
          async receiveReturn(delivery) {
            return receive("receiveReturn", delivery, {
              returnNumber: delivery.return.sourceReturnNumber,
              restock: delivery.restock,
              lines: delivery.lines.map((l) => ({ returnLineNumber: l.sourceReturnLineId, lineNumber: l.sourceLineId, quantity: l.quantity })),
            });
          },
        }),
    ...(unsupported.has("decideReturn")
      ? {}
      : {
          async decideReturn(delivery) {
            return receive("decideReturn", delivery, {
              returnNumber: delivery.return.sourceReturnNumber,
              decision: delivery.kind === "approveReturn" ? "approve" : "reject",
              reason: delivery.reason,
            });
          },
        }),
    async acknowledge(delivery) {
      return receive("acknowledge", delivery, { sellerOrderNumber: delivery.sellerOrderNumber, lines: linesOf(delivery) });
    },
    async ship(delivery) {
      return receive("ship", delivery, shipmentOf(delivery, delivery.shipment));
    },
    async cancel(delivery) {
      // A line cancellation names only its lines; a whole-order one (lines null) every line.
      const lines = delivery.lines
        ? delivery.lines.map((l) => ({
            lineNumber: l.sourceLineId,
            sku: delivery.order.lines.find((o) => o.sourceLineId === l.sourceLineId)?.sku ?? null,
            quantity: l.quantity,
          }))
        : linesOf(delivery);
      return receive("cancel", delivery, { reason: delivery.reason, lines });
    },
    async checkSubmitted(delivery, reference): Promise<SubmissionStatus> {
      const orderNumber = delivery.order.sourceOrderNumber;
      fault("checkSubmitted", orderNumber, { reference });
      const submission = storage.get<Submission>(`${SUBMISSION_PREFIX}${reference}`);
      if (!submission) {
        record("checkSubmitted", orderNumber, { reference, result: "unknown" }, 404);
        return { state: "rejected", message: `Simulated marketplace has no submission ${reference}` };
      }
      submission.checks += 1;
      storage.put(`${SUBMISSION_PREFIX}${reference}`, submission);
      const checksBeforeResult = settings.asynchronous?.checksBeforeResult ?? 1;
      if (submission.checks < checksBeforeResult) {
        record("checkSubmitted", orderNumber, { reference, result: "pending" }, 200);
        return { state: "pending" };
      }
      if (submission.reject) {
        record("checkSubmitted", orderNumber, { reference, result: "rejected" }, 200);
        return {
          state: "rejected",
          message: `Simulated marketplace rejected ${reference}: order ${orderNumber} cannot be updated (${submission.operation} refused)`,
        };
      }
      record("checkSubmitted", orderNumber, { reference, result: "delivered" }, 200);
      return { state: "delivered", reference };
    },
  };
}
