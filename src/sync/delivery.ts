// Delivery: the outbox rows of one source, oldest first, each order's rows strictly in order. A
// row is only due once every earlier row of its order is delivered or notApplicable, so a
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
// order.sync_failed webhook event is recorded in that same write.
import type { Db } from "../db/client";
import { deliveryReadsOf } from "../orders/orders.queries";
import { markDeliveryFailed, packageDelivered } from "../orders/orders.writes";
import { orderSyncFailedEvents } from "../webhooks/webhook-deliveries.queries";
import {
  completedOf,
  dueEntries,
  recordOutcome,
  recordStillSubmitted,
  submittedEntries,
  type OutboxEntry,
  type RowOutcome,
} from "../outbox/outbox.queries";
import {
  MarketplaceError,
  type Capabilities,
  type Connector,
  type Delivery,
  type DeliveryOrder,
  type DeliveryOutcome,
  type EarlierDelivery,
  type LineQuantity,
} from "../marketplaces/connector";
import { exponentialDelay } from "../lib/retry";

export const MAX_ATTEMPTS = 8;
/** Rows read per round trip. */
const ROUND = 100;
/** Submitted rows asked about per cycle (in turn: the next cycle asks the next ones). */
const CHECKS_PER_CYCLE = 100;
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
}

interface Target {
  order: DeliveryOrder;
  /** The order's lines by their OrderItemId (what payloads name). */
  itemLines: Map<number, DeliveryOrder["lines"][number]>;
  earlier: { id: number; delivery: EarlierDelivery }[];
}

export async function deliverPending(
  db: Db,
  sourceId: string,
  connector: Connector,
  now: number,
  options: { limit?: number; checkAfter?: number } = {},
): Promise<DeliveryResult> {
  const limit = options.limit ?? 5_000;
  const result: DeliveryResult = {
    delivered: 0,
    submitted: 0,
    notApplicable: 0,
    retrying: 0,
    failed: 0,
    stoppedBy: null,
    checksStoppedBy: null,
    checkedUpTo: options.checkAfter ?? 0,
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
  if (connector.checkSubmitted) {
    const submitted = await submittedEntries(db, sourceId, result.checkedUpTo, CHECKS_PER_CYCLE);
    const targets = await deliveryTargets(db, submitted.map((e) => e.orderId));
    for (const entry of submitted) {
      const delivery = toDelivery(sourceId, entry, targets.get(entry.orderId));
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
    }
  }

  let attempted = 0;
  while (attempted < limit && !result.stoppedBy) {
    const entries = await dueEntries(db, sourceId, now, Math.min(ROUND, limit - attempted));
    if (entries.length === 0) break;
    const targets = await deliveryTargets(db, entries.map((e) => e.orderId));
    const done = new Set<number>();
    for (const entry of entries) {
      if (done.has(entry.id) || result.stoppedBy) continue;
      done.add(entry.id);
      attempted += 1;
      const delivery = toDelivery(sourceId, entry, targets.get(entry.orderId));
      if (typeof delivery === "string") {
        await record(entry, { state: "failed", error: delivery, called: false });
        continue;
      }
      // The connector's own reason first: it can say what the seller does instead (Etsy: cancel on Etsy).
      const lacking = connector.notApplicable?.(delivery) ?? missingCapability(connector.capabilities, delivery);
      if (lacking !== null) {
        await record(entry, { state: "notApplicable", reason: lacking, called: false });
        continue;
      }
      const batch = connector.batch;
      if (batch?.kinds.includes(delivery.kind)) {
        // Due rows of one kind, one per order (dueEntries never hands two of one order), up to the batch size.
        const group: { entry: OutboxEntry; delivery: Delivery }[] = [{ entry, delivery }];
        for (const other of entries) {
          if (group.length >= batch.size) break;
          if (done.has(other.id) || other.kind !== delivery.kind) continue;
          const otherDelivery = toDelivery(sourceId, other, targets.get(other.orderId));
          if (typeof otherDelivery === "string") continue;
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
    }
  }
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

function send(connector: Connector, delivery: Delivery): Promise<DeliveryOutcome> {
  switch (delivery.kind) {
    case "acknowledge":
      return connector.acknowledge(delivery);
    case "ship":
      return connector.ship(delivery);
    case "cancel":
      return connector.cancel(delivery);
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

/** The delivery a row asks for, or why it cannot be made. */
function toDelivery(sourceId: string, entry: OutboxEntry, target: Target | undefined): Delivery | string {
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
    case "acknowledge":
      return { ...base, kind: "acknowledge", sellerOrderNumber: payload.sellerOrderNumber ?? target.order.sellerOrderNumber };
    case "ship": {
      // A row written before packages carries every line, whole.
      const lines = payload.lines === null ? target.order.lines.map((l) => ({ sourceLineId: l.sourceLineId, quantity: l.quantity })) : linesOf(target, payload.lines);
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
  const [heads, lines, completed] = await db.batch([
    headsQuery,
    linesQuery,
    completedOf(db, ids),
  ]);
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
  }
  for (const row of completed) {
    if (row.state !== "delivered" && row.state !== "notApplicable") continue;
    const shipmentId = row.kind === "ship" && row.shipmentId !== null ? { shipmentId: String(row.shipmentId) } : {};
    map.get(row.orderId)?.earlier.push({ id: row.id, delivery: { kind: row.kind, state: row.state, reference: row.reference, ...shipmentId } });
  }
  return map;
}
