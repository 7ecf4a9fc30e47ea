// Delivery: the outbox rows of one source, oldest first, each order's rows strictly in order.
// A row is only due once every earlier row of its order is delivered, so a shipment never
// overtakes the acknowledgement before it, and nothing after a finally failed row goes out.
// Failures are retried with exponential backoff (or the marketplace's Retry-After, if longer);
// after the last try, or at once for an answer no retry can change (a 400), the row is failed
// and the order's SyncUserErrorMessage says what the marketplace answered.
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { orderItems, orders, outbox } from "../db/schema";
import { MarketplaceError, type Connector, type DeliveryOrder } from "./connector";

export const MAX_ATTEMPTS = 8;
export const BASE_DELAY_MS = 5 * 60_000;
export const MAX_DELAY_MS = 6 * 60 * 60_000;
/** Rows read and written per round trip. */
const ROUND = 100;

/** The wait before attempt `attempts + 1`: 5, 10, 20 … minutes, capped at 6 h, never shorter than Retry-After. */
export function retryDelay(attempts: number, retryAfterMs: number | null): number {
  const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.max(backoff, retryAfterMs ?? 0);
}

export interface DeliveryResult {
  delivered: number;
  /** Failed this time, to be tried again later. */
  retrying: number;
  /** Failed for good: the order's SyncUserErrorMessage says why. */
  failed: number;
  /** Set when the marketplace answered that it is unavailable or busy: the cycle stopped there. */
  stoppedBy: MarketplaceError | null;
}

type OutboxRow = typeof outbox.$inferSelect;

export async function deliverPending(db: Db, sourceId: string, connector: Connector, now: number, limit = 5_000): Promise<DeliveryResult> {
  const result: DeliveryResult = { delivered: 0, retrying: 0, failed: 0, stoppedBy: null };
  let attempted = 0;
  while (attempted < limit && !result.stoppedBy) {
    const rows = await dueRows(db, sourceId, now, Math.min(ROUND, limit - attempted));
    if (rows.length === 0) break;
    const targets = await deliveryOrders(db, rows.map((r) => r.orderId));
    const writes: Parameters<Db["batch"]>[0][number][] = [];
    const deliveredIds: number[] = [];
    for (const row of rows) {
      attempted += 1;
      const target = targets.get(row.orderId);
      const error = target ? await attempt(connector, row, target) : new MarketplaceError("the order no longer exists", null, false);
      if (!error) {
        deliveredIds.push(row.id);
        result.delivered += 1;
        continue;
      }
      const attempts = row.attempts + 1;
      if (error.retryable && attempts < MAX_ATTEMPTS) {
        result.retrying += 1;
        writes.push(
          db
            .update(outbox)
            .set({ attempts, nextAttemptAt: now + retryDelay(attempts, error.retryAfterMs), lastError: error.message })
            .where(eq(outbox.id, row.id)),
        );
      } else {
        result.failed += 1;
        writes.push(
          db.update(outbox).set({ state: "failed", attempts, lastError: error.message }).where(eq(outbox.id, row.id)),
          db
            .update(orders)
            .set({ syncUserErrorMessage: error.message, dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
            .where(eq(orders.id, row.orderId)),
        );
      }
      // An unavailable or busy marketplace will answer the next row the same way: stop, and
      // leave the rest untouched (not one attempt spent) for the next cycle.
      if (error.retryable) {
        result.stoppedBy = error;
        break;
      }
    }
    if (deliveredIds.length > 0) {
      writes.push(
        db
          .update(outbox)
          .set({ state: "delivered", attempts: sql`${outbox.attempts} + 1`, deliveredAt: now, lastError: null })
          .where(idIn(outbox.id, deliveredIds)),
      );
    }
    if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
  }
  return result;
}

/** `column in (ids)` with one bound parameter: D1 allows 100 a statement, a round has up to 100 ids. */
function idIn(column: AnySQLiteColumn, ids: number[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
}

/** Pending rows that are due and have no earlier undelivered row of their order. */
function dueRows(db: Db, sourceId: string, now: number, limit: number): Promise<OutboxRow[]> {
  return db
    .select()
    .from(outbox)
    .where(
      and(
        eq(outbox.sourceId, sourceId),
        eq(outbox.state, "pending"),
        sql`${outbox.nextAttemptAt} <= ${now}`,
        sql`not exists (select 1 from outbox as earlier
          where earlier.order_id = ${outbox.orderId} and earlier.id < ${outbox.id} and earlier.state <> 'delivered')`,
      ),
    )
    .orderBy(asc(outbox.id))
    .limit(limit);
}

async function deliveryOrders(db: Db, orderIds: number[]): Promise<Map<number, DeliveryOrder>> {
  const ids = [...new Set(orderIds)];
  const [heads, lines] = await db.batch([
    db
      .select({ id: orders.id, number: orders.orderSourceOrderNumber, seller: orders.orderDestinationOrderNumber })
      .from(orders)
      .where(idIn(orders.id, ids)),
    db
      .select({ orderId: orderItems.orderId, sourceLineId: orderItems.sourceLineId, sku: orderItems.sku, quantity: orderItems.quantity })
      .from(orderItems)
      .where(idIn(orderItems.orderId, ids))
      .orderBy(asc(orderItems.id)),
  ]);
  const map = new Map<number, DeliveryOrder>();
  for (const head of heads) map.set(head.id, { sourceOrderNumber: head.number, sellerOrderNumber: head.seller, lines: [] });
  for (const line of lines) {
    const order = map.get(line.orderId);
    // An order a client inserted has no marketplace line ids: its lines are numbered in order.
    order?.lines.push({ sourceLineId: line.sourceLineId ?? String(order.lines.length + 1), sku: line.sku, quantity: line.quantity });
  }
  return map;
}

/** One delivery; null when the marketplace took it. */
async function attempt(connector: Connector, row: OutboxRow, order: DeliveryOrder): Promise<MarketplaceError | null> {
  const payload = row.payload;
  try {
    if (row.kind === "acknowledge") {
      // The number this acknowledgement carried, not whatever the order holds now.
      await connector.acknowledge({ ...order, sellerOrderNumber: (payload.sellerOrderNumber as string | undefined) ?? order.sellerOrderNumber });
    } else if (row.kind === "ship") {
      await connector.ship(order, {
        trackingNumber: (payload.trackingNumber as string | null | undefined) ?? null,
        carrier: (payload.carrier as string | null | undefined) ?? null,
        shippingMethod: (payload.shippingMethod as string | null | undefined) ?? null,
        shippedAt: new Date(typeof payload.shippedAt === "number" ? payload.shippedAt : row.createdAt),
      });
    } else {
      await connector.cancel(order);
    }
    return null;
  } catch (error) {
    if (error instanceof MarketplaceError) return error;
    // A connector bug or an unexpected answer: worth another try, and it must not stop the cycle.
    return new MarketplaceError(`unexpected error: ${error instanceof Error ? error.message : String(error)}`, null, true);
  }
}
