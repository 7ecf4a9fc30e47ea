// Delivery: the outbox rows of one source, oldest first, each order's rows strictly in order
// (its acknowledgement, shipments and cancellation, and its refunds and returns' receipts and
// decisions, decisions 13, all in one sequence). A row is only due once every earlier row of its order is delivered or notApplicable, so a
// shipment never overtakes the acknowledgement before it, nothing after a failed row goes out,
// and nothing overtakes a row the marketplace still processes (submitted).
//
// A submitted row the marketplace has not settled within 24 hours is failed with its last answer;
// asking about submitted rows (100 a cycle, in turn) never holds back the pending rows.
//
// Each marketplace call's outcome is written before the next call is made: a cycle cut off at any
// point (eviction, a D1 error, a deploy) repeats at most the one call in flight, and that call
// carries an idempotency key derived from the row. Failures are retried with exponential backoff
// (or the marketplace's Retry-After, if longer); after the last try, or at once for an answer no
// retry can change (a 400), the row is failed and the order's SyncUserErrorMessage says why; its
// order.sync_failed webhook event is recorded in that same write. An acknowledgement queued at
// import to decide acceptance by stock (decisions 14) hands the connector what each line took from
// stock at import (order_items.stock_taken), and a decision that refused lines puts the
// connector's warning on the order's SyncUserErrorMessage.
//
// A round stops before a row (or a check) that would not fit in the invocation's share of
// Cloudflare's limits (src/lib/invocation-budget.ts): each row costs at least its one write, so a
// cycle of 1,000 rows goes on in the source's next invocation, as if cut off there.
import type { Db } from "../db/client";
import type { Cost, InvocationBudget } from "../lib/invocation-budget";
import { deliveryReadsOf } from "../orders/orders.queries";
import { markDeliveryFailed, packageDelivered } from "../orders/orders.writes";
import { orderSyncFailedEvents } from "../webhooks/webhook-deliveries.queries";
import { completedOf, dueEntries, recordOutcome, recordStillSubmitted, submittedEntries, type OutboxEntry, type RowOutcome } from "../outbox/outbox.queries";
import {
  MarketplaceError,
  type Capabilities,
  type Connector,
  type Delivery,
  type DeliveryLine,
  type DeliveryOrder,
  type DeliveryOutcome,
  type DeliveryReturn,
  type EarlierDelivery,
  type ReturnDelivery,
  type LineQuantity,
} from "../marketplaces/connector";
import { exponentialDelay } from "../lib/retry";
import { refundsForDelivery, type RefundForDelivery } from "../refunds/refunds.queries";
import { returnsForDelivery, type ReturnForDelivery } from "../returns/returns.queries";

export const MAX_ATTEMPTS = 8;
/** Rows read per round trip. */
const ROUND = 100;
/** Submitted rows asked about per cycle (in turn: the next cycle asks the next ones). */
export const CHECKS_PER_CYCLE = 100;
/** Attempts one cycle makes at most. */
export const DELIVERIES_PER_CYCLE = 5_000;
/** A round's reads (its due rows, then their orders, lines and completed rows in one batch). */
const ROUND_COST: Cost = { d1Queries: 4, subrequests: 2 };
/** A row before any was measured: its write (up to three statements) and one marketplace call. */
const FIRST_ROW_COST: Cost = { d1Queries: 3, subrequests: 2 };
/** A submission the marketplace has not settled in this long is failed with its last answer (decisions 6). */
export const SUBMITTED_DEADLINE_MS = 24 * 60 * 60_000;

export interface DeliveryResult {
  delivered: number;
  /** Accepted by the marketplace for later processing. */
  submitted: number;
  /** Completed without a call: the marketplace has no such operation. */
  notApplicable: number;
  /** Failed this time, to be tried again later. */
  retrying: number;
  /** Failed for good: the order's SyncUserErrorMessage says why. */
  failed: number;
  /** Set when the marketplace answered that it is unavailable or busy: the cycle stopped there. */
  stoppedBy: MarketplaceError | null;
  /** Set when asking about submitted rows failed that way: the checks stopped, the pending rows went on. */
  checksStoppedBy: MarketplaceError | null;
  /** The last submitted row asked about: the next cycle asks about those after it. */
  checkedUpTo: number;
  /** Due rows attempted (each counts against the cycle's limit), and submitted rows asked about. */
  attempted: number;
  checked: number;
  /** The invocation's share ran out first: the rest goes on in the next invocation. */
  outOfBudget: boolean;
}

interface Target {
  order: DeliveryOrder;
  /** The order's lines by their OrderItemId (what payloads name). */
  itemLines: Map<number, DeliveryOrder["lines"][number]>;
  /** Per line of `order.lines`, in the same order: its OrderItemId and the units of stock it took when it arrived. */
  takes: { itemId: number; stockTaken: number }[];
  earlier: { id: number; delivery: EarlierDelivery }[];
}

export async function deliverPending(
  db: Db,
  sourceId: string,
  connector: Connector,
  now: number,
  options: { limit?: number; checkAfter?: number; checks?: number; budget?: InvocationBudget } = {},
): Promise<DeliveryResult> {
  const limit = options.limit ?? DELIVERIES_PER_CYCLE;
  const units = options.budget?.units(FIRST_ROW_COST);
  /** Whether one more row (or check), and `extra` reads before it, are expected to fit in the invocation. */
  const room = (extra: Partial<Cost> = {}) => {
    if (!units || units.fits(extra)) return true;
    result.outOfBudget = true;
    return false;
  };
  const result: DeliveryResult = {
    delivered: 0,
    submitted: 0,
    notApplicable: 0,
    retrying: 0,
    failed: 0,
    stoppedBy: null,
    checksStoppedBy: null,
    checkedUpTo: options.checkAfter ?? 0,
    attempted: 0,
    checked: 0,
    outOfBudget: false,
  };

  const record = async (entry: OutboxEntry, outcome: RowOutcome) => {
    const statements: Parameters<Db["batch"]>[0][number][] = [recordOutcome(db, entry, outcome, now), ...withOutcome(db, entry, outcome, now)];
    await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
    if (outcome.state === "retry") result.retrying += 1;
    else if (outcome.state === "failed") result.failed += 1;
    else result[outcome.state] += 1;
  };

  // What the marketplace made of earlier submissions: asked first, so rows waiting behind a
  // confirmed one can go out in this same cycle. A check that fails never holds back the pending
  // rows below: a busy marketplace only ends the checks of this cycle.
  const checks = options.checks ?? CHECKS_PER_CYCLE;
  if (connector.checkSubmitted && checks > 0 && room(ROUND_COST)) {
    const submitted = await submittedEntries(db, sourceId, result.checkedUpTo, checks);
    const targets = await deliveryTargets(
      db,
      submitted.map((e) => e.orderId),
    );
    const extras = await returnReads(db, submitted);
    for (const entry of submitted) {
      if (!room()) break;
      const started = units?.begin();
      try {
        result.checked += 1;
        const delivery = toDelivery(sourceId, entry, targets.get(entry.orderId), extras);
        if (typeof delivery === "string" || entry.reference === null) {
          await record(entry, { state: "failed", error: typeof delivery === "string" ? delivery : "no marketplace reference was kept", called: false });
          continue;
        }
        // next_attempt_at of a submitted row is when it was submitted (src/outbox/outbox.ts).
        const overdue = now - entry.nextAttemptAt >= SUBMITTED_DEADLINE_MS;
        let lastAnswer = entry.lastError;
        if (!result.checksStoppedBy) {
          result.checkedUpTo = entry.id;
          try {
            const status = await connector.checkSubmitted(delivery, entry.reference);
            if (status.state === "delivered") {
              await record(entry, { state: "delivered", reference: status.reference ?? null, warning: status.warning ?? null, called: false });
              continue;
            }
            if (status.state === "rejected") {
              await record(entry, { state: "failed", error: status.message, called: false });
              continue;
            }
            lastAnswer = null;
            if (entry.lastError !== null && !overdue) await db.batch([recordStillSubmitted(db, entry.id, null)]);
          } catch (error) {
            const failure = asMarketplaceError(error);
            lastAnswer = failure.message;
            if (!overdue) await db.batch([recordStillSubmitted(db, entry.id, failure.message)]);
            if (failure.retryable) result.checksStoppedBy = failure;
          }
        }
        if (overdue) {
          const error = `The marketplace did not confirm this submission within 24 hours. Its last answer: ${lastAnswer ?? "still processing"}`;
          await record(entry, { state: "failed", error, called: false });
        }
      } finally {
        if (started) units!.end(started);
      }
    }
  }

  let attempted = 0;
  while (attempted < limit && !result.stoppedBy && !result.outOfBudget && room(ROUND_COST)) {
    const entries = await dueEntries(db, sourceId, now, Math.min(ROUND, limit - attempted));
    if (entries.length === 0) break;
    const targets = await deliveryTargets(
      db,
      entries.map((e) => e.orderId),
    );
    const extras = await returnReads(db, entries);
    const done = new Set<number>();
    for (const entry of entries) {
      if (done.has(entry.id) || result.stoppedBy || result.outOfBudget) continue;
      if (!room()) break;
      const started = units?.begin();
      try {
        done.add(entry.id);
        attempted += 1;
        const delivery = toDelivery(sourceId, entry, targets.get(entry.orderId), extras);
        if (typeof delivery === "string") {
          await record(entry, { state: "failed", error: delivery, called: false });
          continue;
        }
        // The connector's own reason first: it can say what the seller does instead (Etsy: cancel on Etsy).
        const lacking = isOrderDelivery(delivery)
          ? (connector.notApplicable?.(delivery) ?? missingCapability(connector.capabilities, delivery))
          : missingReturnOperation(connector, delivery);
        if (lacking !== null) {
          await record(entry, { state: "notApplicable", reason: lacking, called: false });
          continue;
        }
        const batch = connector.batch;
        if (batch && isOrderDelivery(delivery) && batch.kinds.includes(delivery.kind)) {
          // Due rows of one kind, one per order (dueEntries never hands two of one order), up to the
          // batch size and to what the invocation can still record (up to three statements a row).
          const size = Math.min(batch.size, Math.max(1, Math.floor(((options.budget?.left().d1Queries ?? Infinity) - 1) / 3)));
          const group: { entry: OutboxEntry; delivery: Delivery }[] = [{ entry, delivery }];
          for (const other of entries) {
            if (group.length >= size) break;
            if (done.has(other.id) || other.kind !== delivery.kind) continue;
            const otherDelivery = toDelivery(sourceId, other, targets.get(other.orderId), extras);
            if (typeof otherDelivery === "string" || !isOrderDelivery(otherDelivery)) continue;
            if ((connector.notApplicable?.(otherDelivery) ?? missingCapability(connector.capabilities, otherDelivery)) !== null) continue;
            done.add(other.id);
            attempted += 1;
            group.push({ entry: other, delivery: otherDelivery });
          }
          await deliverBatch(db, batch, group, now, result);
          continue;
        }
        let outcome: RowOutcome;
        try {
          outcome = fromOutcome(await send(connector, delivery));
        } catch (error) {
          const failure = asMarketplaceError(error);
          outcome = failureOutcome(entry, failure, now);
          // An unavailable or busy marketplace will answer the next row the same way: stop, and
          // leave the rest untouched (not one attempt spent) for the next cycle.
          if (failure.retryable) result.stoppedBy = failure;
        }
        await record(entry, outcome);
      } finally {
        if (started) units!.end(started);
      }
    }
  }
  result.attempted = attempted;
  return result;

  async function deliverBatch(
    db: Db,
    batch: NonNullable<Connector["batch"]>,
    group: { entry: OutboxEntry; delivery: Delivery }[],
    now: number,
    result: DeliveryResult,
  ) {
    let answers: Map<number, DeliveryOutcome | MarketplaceError>;
    try {
      answers = await batch.deliver(group.map((g) => g.delivery));
    } catch (error) {
      const failure = asMarketplaceError(error);
      answers = new Map(group.map((g) => [g.entry.id, failure]));
      if (failure.retryable) result.stoppedBy = failure;
    }
    // Every outcome of the call in one write, before the next call.
    const statements: Parameters<Db["batch"]>[0][number][] = [];
    for (const { entry } of group) {
      const answer = answers.get(entry.id) ?? new MarketplaceError("the marketplace's answer did not mention this delivery", null, true);
      const outcome = answer instanceof MarketplaceError ? failureOutcome(entry, answer, now) : fromOutcome(answer);
      statements.push(recordOutcome(db, entry, outcome, now), ...withOutcome(db, entry, outcome, now));
      if (outcome.state === "retry") result.retrying += 1;
      else if (outcome.state === "failed") result.failed += 1;
      else result[outcome.state] += 1;
    }
    await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
  }
}

/**
 * What else an outcome writes, in its batch: a failure's event and the order's message; a
 * delivered package's marketplace reference on the package (decisions 12).
 */
function withOutcome(db: Db, entry: OutboxEntry, outcome: RowOutcome, now: number) {
  if (outcome.state === "failed") return [orderSyncFailedEvents(db, entry.orderId, now), markDeliveryFailed(db, entry.orderId, outcome.error, now)];
  // An acceptance decided by stock (decisions 14) that refused lines says so on the order.
  if (outcome.state === "delivered" && outcome.warning && entry.payload?.kind === "acknowledge" && decidedByStock(entry.payload)) {
    return [markDeliveryFailed(db, entry.orderId, outcome.warning, now)];
  }
  if (outcome.state === "delivered" && outcome.reference && entry.payload?.kind === "ship" && entry.payload.shipmentId !== null) {
    return [packageDelivered(db, entry.payload.shipmentId, outcome.reference)];
  }
  return [];
}

function failureOutcome(entry: OutboxEntry, error: MarketplaceError, now: number): RowOutcome {
  const attempts = entry.attempts + 1;
  if (error.retryable && attempts < MAX_ATTEMPTS) {
    return { state: "retry", error: error.message, nextAttemptAt: now + exponentialDelay(attempts, error.retryAfterMs) };
  }
  return { state: "failed", error: error.message, called: true };
}

function fromOutcome(outcome: DeliveryOutcome): RowOutcome {
  switch (outcome.state) {
    case "delivered":
      return { state: "delivered", reference: outcome.reference ?? null, warning: outcome.warning ?? null, called: true };
    case "submitted":
      return { state: "submitted", reference: outcome.reference };
    case "notApplicable":
      return { state: "notApplicable", reason: outcome.reason, called: true };
  }
}

function asMarketplaceError(error: unknown): MarketplaceError {
  if (error instanceof MarketplaceError) return error;
  // A connector bug or an unexpected answer: worth another try, and it must not stop the cycle.
  return new MarketplaceError(`unexpected error: ${error instanceof Error ? error.message : String(error)}`, null, true);
}

/** An order's own delivery (acknowledge, ship, cancel), which a connector's batch and notApplicable know. */
function isOrderDelivery(delivery: Delivery | ReturnDelivery): delivery is Delivery {
  return delivery.kind === "acknowledge" || delivery.kind === "ship" || delivery.kind === "cancel";
}

function send(connector: Connector, delivery: Delivery | ReturnDelivery): Promise<DeliveryOutcome> {
  switch (delivery.kind) {
    case "acknowledge":
      return connector.acknowledge(delivery);
    case "ship":
      return connector.ship(delivery);
    case "cancel":
      return connector.cancel(delivery);
    // Checked present by missingReturnOperation before.
    case "refund":
      return connector.refund!(delivery);
    case "receiveReturn":
      return connector.receiveReturn!(delivery);
    case "approveReturn":
    case "rejectReturn":
      return connector.decideReturn!(delivery);
  }
}

/** Why the marketplace cannot take a return's or refund's delivery: the connector has no such operation. */
export function missingReturnOperation(connector: Connector, delivery: ReturnDelivery): string | null {
  switch (delivery.kind) {
    case "refund":
      return connector.refund ? null : "The marketplace takes no refund from the seller through its API: refund the buyer in the marketplace itself.";
    case "receiveReturn":
      return connector.receiveReturn ? null : "The marketplace takes no receipt of a return through its API.";
    case "approveReturn":
    case "rejectReturn":
      return connector.decideReturn ? null : "The marketplace takes no decision on a return from the seller through its API.";
  }
}

/** Why the marketplace cannot take this delivery at all, from its declared capabilities; null if it can. */
export function missingCapability(capabilities: Capabilities, delivery: Delivery): string | null {
  if (delivery.kind === "acknowledge") {
    return capabilities.acknowledge ? null : "The marketplace has no order acknowledgement.";
  }
  if (delivery.kind === "ship") {
    const whole = coversEveryLine(delivery.order, delivery.shipment.lines);
    if (whole) return capabilities.ship ? null : "The marketplace takes no shipment from the seller.";
    return capabilities.shipLines ? null : "The marketplace cannot ship only some lines of an order.";
  }
  if (!capabilities.cancel) return "The marketplace has no cancellation by the seller.";
  if (delivery.lines && !capabilities.cancelLines) {
    return "The marketplace cancels whole orders only: these lines stay cancelled in the hub; cancel them in the marketplace's own admin.";
  }
  return null;
}

/**
 * Whether shipping the whole order at the marketplace ships no more than asked: the package holds
 * every unit, or (decisions 12, a marketplace without shipLines) every unit of the order is
 * shipped in the hub and none cancelled, so each package's tracking can go on the whole order.
 */
function coversEveryLine(order: DeliveryOrder, lines: { sourceLineId: string; quantity: number }[]): boolean {
  const sent = new Map(lines.map((l) => [l.sourceLineId, l.quantity]));
  if (order.lines.every((l) => (sent.get(l.sourceLineId) ?? 0) >= l.quantity)) return true;
  return order.lines.every((l) => l.quantityShipped === l.quantity && (l.quantityCancelled ?? 0) === 0);
}

type AcknowledgePayload = Extract<NonNullable<OutboxEntry["payload"]>, { kind: "acknowledge" }>;

/** An acknowledgement the import queued to decide acceptance by stock (decisions 14), written now or before the lines' take decided it. */
function decidedByStock(payload: AcknowledgePayload): boolean {
  return payload.untracked !== undefined || payload.stock !== undefined;
}

/**
 * The order's lines with what each took at import (DeliveryLine.stockTaken; null for a Sku not
 * tracked then). A row queued before the lines' take decided acceptance carries instead each
 * line's stock as the import found it (what its Sku had for the order, by the marketplace's line
 * id): its lines are given the take that stock made, served in order as the import serves them,
 * and the connector decides on that take by today's rule (a line after a short one of its Sku is
 * refused, where the stock map alone accepted it when the units it freed were enough).
 */
function stockTakenLines(target: Target, payload: AcknowledgePayload): DeliveryLine[] {
  const { stock } = payload;
  if (stock === undefined) {
    const untracked = new Set(payload.untracked);
    return target.order.lines.map((l, i) => ({ ...l, stockTaken: untracked.has(target.takes[i]!.itemId) ? null : target.takes[i]!.stockTaken }));
  }
  const left = new Map<string, number>();
  return target.order.lines.map((l) => {
    const had = stock[l.sourceLineId] ?? null;
    if (had === null) return { ...l, stockTaken: null };
    const have = left.get(l.sku) ?? Math.max(0, had);
    left.set(l.sku, Math.max(0, have - l.quantity));
    return { ...l, stockTaken: Math.min(l.quantity, have) };
  });
}

/** The refunds and returns a round's rows name (read only when it has such rows). */
interface ReturnReads {
  refunds: Map<number, RefundForDelivery>;
  returns: Map<number, ReturnForDelivery>;
}

async function returnReads(db: Db, entries: OutboxEntry[]): Promise<ReturnReads> {
  const refundIds: number[] = [];
  const returnIds: number[] = [];
  for (const entry of entries) {
    const payload = entry.payload;
    if (payload?.kind === "refund") refundIds.push(payload.refundId);
    else if (payload && "returnId" in payload) returnIds.push(payload.returnId);
  }
  const refunds = await refundsForDelivery(db, refundIds);
  for (const refund of refunds.values()) if (refund.returnId !== null) returnIds.push(refund.returnId);
  return { refunds, returns: await returnsForDelivery(db, [...new Set(returnIds)]) };
}

function deliveryReturn(ret: ReturnForDelivery): DeliveryReturn {
  return { sourceReturnNumber: ret.sourceReturnNumber, sourceData: sourceDataSchema(ret.sourceData) };
}

/** The delivery a row asks for, or why it cannot be made. */
function toDelivery(sourceId: string, entry: OutboxEntry, target: Target | undefined, extras: ReturnReads): Delivery | ReturnDelivery | string {
  if (!target) return "The order no longer exists.";
  if (entry.payload === null) return `Delivery ${entry.id} cannot be sent: ${entry.unreadable}.`;
  const base = {
    id: entry.id,
    idempotencyKey: `${sourceId}-${entry.id}`,
    order: target.order,
    earlier: target.earlier.filter((e) => e.id < entry.id).map((e) => e.delivery),
  };
  const payload = entry.payload;
  switch (payload.kind) {
    case "acknowledge": {
      // Queued at import to decide acceptance (decisions 14): each line with the stock it took.
      const order = decidedByStock(payload) ? { ...target.order, lines: stockTakenLines(target, payload) } : target.order;
      return { ...base, order, kind: "acknowledge", sellerOrderNumber: payload.sellerOrderNumber ?? target.order.sellerOrderNumber };
    }
    case "ship": {
      // A row written before packages carries every line, whole.
      const lines =
        payload.lines === null ? target.order.lines.map((l) => ({ sourceLineId: l.sourceLineId, quantity: l.quantity })) : linesOf(target, payload.lines);
      if (typeof lines === "string") return lines;
      return {
        ...base,
        kind: "ship",
        shipment: {
          ...(payload.shipmentId !== null ? { shipmentId: String(payload.shipmentId) } : {}),
          trackingNumber: payload.trackingNumber,
          carrier: payload.carrier,
          shippingMethod: payload.shippingMethod,
          shippedAt: new Date(payload.shippedAt ?? entry.createdAt),
          lines,
        },
      };
    }
    case "cancel": {
      const lines = payload.lines === null ? null : linesOf(target, payload.lines);
      if (typeof lines === "string") return lines;
      return { ...base, kind: "cancel", reason: payload.reason, lines };
    }
    case "refund": {
      const refund = extras.refunds.get(payload.refundId);
      if (!refund) return `Refund ${payload.refundId} no longer exists.`;
      const ret = refund.returnId === null ? undefined : extras.returns.get(refund.returnId);
      return {
        ...base,
        kind: "refund",
        lines: refund.lines,
        shippingAmount: refund.shippingAmount,
        total: refund.total,
        currency: refund.currency,
        reason: refund.reason,
        return: ret ? deliveryReturn(ret) : null,
      };
    }
    case "receiveReturn": {
      const ret = extras.returns.get(payload.returnId);
      if (!ret) return `Return ${payload.returnId} no longer exists.`;
      const lines = payload.lines.flatMap((l) => {
        const line = ret.lines.get(l.returnLineId);
        return line ? [{ ...line, quantity: l.quantity }] : [];
      });
      return { ...base, kind: "receiveReturn", return: deliveryReturn(ret), lines, restock: payload.restock };
    }
    case "approveReturn":
    case "rejectReturn": {
      const ret = extras.returns.get(payload.returnId);
      if (!ret) return `Return ${payload.returnId} no longer exists.`;
      return { ...base, kind: payload.kind, return: deliveryReturn(ret), reason: payload.reason };
    }
  }
}

/** A payload's [orderItemId, units] as the marketplace's line ids, or why they cannot be. */
function linesOf(target: Target, units: [number, number][]): LineQuantity[] | string {
  const lines: LineQuantity[] = [];
  for (const [id, quantity] of units) {
    const line = target.itemLines.get(id);
    if (!line) return `Delivery names line ${id}, which the order no longer has.`;
    lines.push({ sourceLineId: line.sourceLineId, quantity });
  }
  return lines;
}

const sourceDataSchema = (raw: string | null): Record<string, string> => {
  if (raw === null) return {};
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return {};
  }
};

async function deliveryTargets(db: Db, orderIds: number[]): Promise<Map<number, Target>> {
  const ids = [...new Set(orderIds)];
  const map = new Map<number, Target>();
  if (ids.length === 0) return map;
  const [headsQuery, linesQuery] = deliveryReadsOf(db, ids);
  const [heads, lines, completed] = await db.batch([headsQuery, linesQuery, completedOf(db, ids)]);
  for (const head of heads) {
    map.set(head.id, {
      order: {
        sourceOrderNumber: head.number,
        sourceCustomerOrderNumber: head.customerNumber,
        sellerOrderNumber: head.seller,
        sourceData: sourceDataSchema(head.sourceData),
        lines: [],
      },
      itemLines: new Map(),
      takes: [],
      earlier: [],
    });
  }
  for (const line of lines) {
    const target = map.get(line.orderId);
    if (!target) continue;
    // An order a client inserted has no marketplace line ids: its lines are numbered in order.
    const delivered = {
      sourceLineId: line.sourceLineId ?? String(target.order.lines.length + 1),
      sku: line.sku,
      quantity: line.quantity,
      quantityShipped: line.quantityShipped,
      quantityCancelled: line.quantityCancelled,
    };
    target.order.lines.push(delivered);
    target.itemLines.set(line.id, delivered);
    // A line stored before migration 0017 recorded no take: it reads as having taken its quantity.
    target.takes.push({ itemId: line.id, stockTaken: line.stockTaken ?? line.quantity });
  }
  for (const row of completed) {
    if (row.state !== "delivered" && row.state !== "notApplicable") continue;
    const shipmentId = row.kind === "ship" && row.shipmentId !== null ? { shipmentId: String(row.shipmentId) } : {};
    map.get(row.orderId)?.earlier.push({ id: row.id, delivery: { kind: row.kind, state: row.state, reference: row.reference, ...shipmentId } });
  }
  return map;
}
