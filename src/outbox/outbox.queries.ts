// The outbox: what must reach a marketplace, one row per acknowledgement, shipment,
// cancellation, refund or return receipt or decision. This module holds every statement on the table and the one description of a
// row's payload (a zod union on the row's kind, validated whenever a row is read), so the order
// moves that write rows, the sync that delivers them and the admin routes that show and retry
// them all speak one typed vocabulary.
import { and, asc, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import type { Db } from "../db/client";
import { idIn } from "../db/sql";
import { OUTBOX_KINDS, type OUTBOX_STATES, outbox, sources } from "../db/schema";
import { untrackedLinesSql } from "../products/products.queries";

export const DELIVERY_KINDS = OUTBOX_KINDS;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export type OutboxState = (typeof OUTBOX_STATES)[number];

const nullableText = z.string().nullable().default(null);
/** Lines and units as a payload keeps them: [[orderItemId, units], ...] (decisions 12). */
const lineUnits = z.array(z.tuple([z.number().int(), z.number().int().positive()]));

/** What each kind of row carries; the row's `kind` column is the discriminator. */
export const outboxPayload = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("acknowledge"),
    /** The number this acknowledgement carried, not whatever the order holds by delivery time. */
    sellerOrderNumber: nullableText,
    /**
     * Queued at import to decide a marketplace's acceptance (decisions 14): the order's lines
     * (OrderItemIds) whose Sku was not tracked when the import took its stock; every other line
     * is decided by what it took (order_items.stock_taken). Absent on any other acknowledgement.
     */
    untracked: z.array(z.number().int()).optional(),
    /**
     * The same, as rows queued before the lines' take decided it carry it: each line's stock as
     * the import found it, by the marketplace's line id (null: not tracked). Read for those rows
     * only (src/sync/delivery.ts); nothing writes it any more.
     */
    stock: z.record(z.string(), z.number().int().nullable()).optional(),
  }),
  z.object({
    kind: z.literal("ship"),
    trackingNumber: nullableText,
    carrier: nullableText,
    shippingMethod: nullableText,
    /** Epoch ms; rows written before it was kept fall back to the row's creation time. */
    shippedAt: z.number().int().nullable().default(null),
    /** The package (line_changes id, the order's ShipmentId) this delivery carries; null on rows written before packages. */
    shipmentId: z.number().int().nullable().default(null),
    /** [[orderItemId, units], ...]: the package's lines; null on rows written before packages (every line, whole). */
    lines: lineUnits.nullable().default(null),
  }),
  z.object({
    kind: z.literal("cancel"),
    reason: z.string().default("Canceled by seller"),
    /** [[orderItemId, units], ...] to cancel; null: the whole order (and on rows written before line cancellations). */
    lines: lineUnits.nullable().default(null),
  }),
  // Returns and refunds (decisions 13): the row names its refund or return, whose own rows hold
  // what is delivered (immutable once written: a refund's lines, a return's marketplace number).
  z.object({ kind: z.literal("refund"), refundId: z.number().int() }),
  z.object({
    kind: z.literal("receiveReturn"),
    returnId: z.number().int(),
    /** What this receipt added, per return line (by the line's id in the hub). */
    lines: z.array(z.object({ returnLineId: z.number().int(), quantity: z.number().int() })),
    restock: z.boolean().default(false),
  }),
  z.object({ kind: z.literal("approveReturn"), returnId: z.number().int(), reason: nullableText }),
  z.object({ kind: z.literal("rejectReturn"), returnId: z.number().int(), reason: nullableText }),
]);
export type OutboxPayload = z.output<typeof outboxPayload>;

type Row = typeof outbox.$inferSelect;

/** A row as the rest of the service sees it: the payload parsed, or the reason it could not be. */
export type OutboxEntry = Omit<Row, "payload"> & ({ payload: OutboxPayload; unreadable: null } | { payload: null; unreadable: string });

export function readEntry(row: Row): OutboxEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(row.payload);
  } catch {
    return { ...row, payload: null, unreadable: "its stored payload is not JSON" };
  }
  const parsed = outboxPayload.safeParse({ ...(typeof raw === "object" && raw !== null ? raw : {}), kind: row.kind });
  if (!parsed.success) return { ...row, payload: null, unreadable: `its stored payload is invalid (${parsed.error.issues[0]?.message ?? "?"})` };
  return { ...row, payload: parsed.data, unreadable: null };
}

/**
 * The payload as stored (the kind lives in its own column). The fields of decisions 12 are left
 * out when null (a whole order), so a whole-order row is stored as it always was.
 */
export function payloadJson(payload: OutboxPayload): string {
  const { kind: _, ...rest } = payload;
  const stored: Record<string, unknown> = { ...rest };
  for (const key of ["lines", "shipmentId"]) if (stored[key] === null) delete stored[key];
  return JSON.stringify(stored);
}

const dialect = new SQLiteAsyncDialect();

/** One outbox row to write with an order change (enqueueStatements). */
export interface Enqueued {
  orderId: number;
  /** The order's dateUpdated as the move read it: the row is written only while it still is. */
  dateUpdated: number;
  sourceId: string;
  payload: OutboxPayload;
  /** The package it carries, by its seq within the order, when the same batch records that package. */
  shipmentSeq: number | null;
  /** Whether it replaces a pending row of the same order and kind (and, for a shipment, package). */
  replaces: boolean;
  at: number;
}

/**
 * The outbox rows of order changes, as two statements for the changes' batch: each row is
 * written only while `guard` holds for its order (the order is still as the move read it:
 * src/orders/orders.writes.ts builds the guard on `d.value ->> 'o'` and `d.value ->> 'u'`), and
 * both come before the orders' own update, so one guard decides the whole batch. A row for an
 * order whose source was deleted is failed at once, saying so, instead of pending forever: the
 * source is looked up once, by the insert's join, and the order's update reads the outcome off
 * the row (lastRowError).
 *
 * A replacing row (an acknowledgement, a package's corrected tracking) deletes the pending row of
 * the same order and kind (and package) it supersedes: only the latest correction matters to the
 * marketplace, and corrections that alternate must not queue one delivery each. The new row has
 * its own id and so its own idempotency key (a marketplace that holds the old key must not answer
 * the new payload "as before"). A new package or a cancellation never replaces anything.
 */
export function enqueueStatements(db: Db, storeId: string, rows: Enqueued[], guard: SQL): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  const json = JSON.stringify(
    rows.map((r) => ({
      o: r.orderId,
      u: r.dateUpdated,
      src: r.sourceId,
      kind: r.payload.kind,
      payload: payloadJson(r.payload),
      seq: r.shipmentSeq,
      sid: r.payload.kind === "ship" ? r.payload.shipmentId : null,
      replaces: r.replaces ? 1 : 0,
      at: r.at,
    })),
  );
  const replace = dialect.sqlToQuery(sql`delete from ${outbox}
    where ${outbox.state} = 'pending' and exists (select 1 from json_each(${json}) as d
      where d.value ->> 'replaces' = 1 and ${outbox.orderId} = d.value ->> 'o' and ${outbox.kind} = d.value ->> 'kind'
        and (d.value ->> 'sid' is null or json_extract(${outbox.payload}, '$.shipmentId') = d.value ->> 'sid') and ${guard})`);
  // A new package's row names it by the id its line_changes row was given earlier in the batch.
  const insert =
    dialect.sqlToQuery(sql`insert into ${outbox} (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, last_error, created_at)
    select ${storeId}, d.value ->> 'src', d.value ->> 'o', d.value ->> 'kind',
      case when d.value ->> 'seq' is null then d.value ->> 'payload'
        else json_set(d.value ->> 'payload', '$.shipmentId', (select c.id from line_changes as c where c.order_id = d.value ->> 'o' and c.seq =
          d.value ->> 'seq')) end,
      case when s.id is null then 'failed' else 'pending' end, 0, d.value ->> 'at',
      case when s.id is null then ${SOURCE_DELETED} else null end, d.value ->> 'at'
    from json_each(${json}) as d left join ${sources} as s on s.id = d.value ->> 'src'
    where ${guard} order by d.key`);
  return [db.$client.prepare(replace.sql).bind(...replace.params), db.$client.prepare(insert.sql).bind(...insert.params)];
}

/** What an order's update sets its SyncUserErrorMessage to after enqueueStatements: the new row's error (null unless its source is gone). */
export function lastRowError(orderId: SQL): SQL {
  return sql`(select ${outbox.lastError} from ${outbox} where ${outbox.orderId} = ${orderId} order by ${outbox.id} desc limit 1)`;
}

/**
 * The outbox row of a return's or a refund's change (decisions 13), for the change's batch: it
 * is inserted when `guard` holds there (the change applies), and replaces no other row (two
 * refunds of one order are two deliveries). `payload` is SQL yielding the payload's JSON without
 * its kind (a refund's id is only known inside the batch). Failed at once when the source is gone.
 */
export function enqueueWhen(
  db: Db,
  row: { storeId: string; sourceId: string; orderId: number; kind: Exclude<DeliveryKind, "acknowledge" | "ship" | "cancel">; payload: SQL; at: number },
  guard: SQL,
): D1PreparedStatement {
  const live = sql`exists (select 1 from ${sources} where ${sources.id} = ${row.sourceId})`;
  const insert =
    dialect.sqlToQuery(sql`insert into ${outbox} (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, last_error, created_at)
    select ${row.storeId}, ${row.sourceId}, ${row.orderId}, ${row.kind}, ${row.payload},
      case when ${live} then 'pending' else 'failed' end, 0, ${row.at}, case when ${live} then null else ${SOURCE_DELETED} end, ${row.at}
    where ${guard}`);
  return db.$client.prepare(insert.sql).bind(...insert.params);
}

export const SOURCE_DELETED = "The order's marketplace source was deleted; nothing can be delivered to it.";

/** Pending rows that are due and have no earlier row of their order still to complete, oldest first. */
export async function dueEntries(db: Db, sourceId: string, now: number, limit: number): Promise<OutboxEntry[]> {
  const rows = await db
    .select()
    .from(outbox)
    .where(
      and(
        eq(outbox.sourceId, sourceId),
        eq(outbox.state, "pending"),
        sql`${outbox.nextAttemptAt} <= ${now}`,
        sql`not exists (select 1 from outbox as earlier
          where earlier.order_id = ${outbox.orderId} and earlier.id < ${outbox.id} and earlier.state not in ('delivered', 'notApplicable'))`,
      ),
    )
    .orderBy(asc(outbox.id))
    .limit(limit);
  return rows.map(readEntry);
}

/**
 * Submitted rows whose result the marketplace has not given yet, in id order after `afterId` and
 * then from the start again: each cycle asks about the next `limit`, so every row gets its turn.
 */
export async function submittedEntries(db: Db, sourceId: string, afterId: number, limit: number): Promise<OutboxEntry[]> {
  const page = (from: SQL | undefined, n: number) =>
    db
      .select()
      .from(outbox)
      .where(and(eq(outbox.sourceId, sourceId), eq(outbox.state, "submitted"), from))
      .orderBy(asc(outbox.id))
      .limit(n);
  const rows = await page(sql`${outbox.id} > ${afterId}`, limit);
  if (rows.length < limit && afterId > 0) rows.push(...(await page(sql`${outbox.id} <= ${afterId}`, limit - rows.length)));
  return rows.map(readEntry);
}

/** Completed rows of these orders (what an earlier delivery left: its kind, reference and package), oldest first. */
export function completedOf(db: Db, orderIds: number[]) {
  return db
    .select({
      id: outbox.id,
      orderId: outbox.orderId,
      kind: outbox.kind,
      state: outbox.state,
      reference: outbox.reference,
      shipmentId: sql<number | null>`json_extract(${outbox.payload}, '$.shipmentId')`,
    })
    .from(outbox)
    .where(and(idIn(outbox.orderId, orderIds), inArray(outbox.state, ["delivered", "notApplicable"])))
    .orderBy(asc(outbox.id));
}

/** What became of one attempt, as the row will record it. */
export type RowOutcome =
  | { state: "delivered"; reference: string | null; warning: string | null; called: boolean }
  | { state: "submitted"; reference: string }
  | { state: "notApplicable"; reason: string; called: boolean }
  | { state: "retry"; error: string; nextAttemptAt: number }
  | { state: "failed"; error: string; called: boolean };

/**
 * The statement recording one outcome. Guarded by the state the row was read in, so a row the
 * operator or a source deletion moved meanwhile is left as they put it.
 */
export function recordOutcome(db: Db, entry: { id: number; state: OutboxState }, outcome: RowOutcome, now: number) {
  const guard = and(eq(outbox.id, entry.id), eq(outbox.state, entry.state));
  const attempted = (called: boolean) => (called ? sql`${outbox.attempts} + 1` : sql`${outbox.attempts}`);
  switch (outcome.state) {
    case "delivered":
      return db
        .update(outbox)
        .set({
          state: "delivered",
          attempts: attempted(outcome.called),
          deliveredAt: now,
          lastError: null,
          reference: sql`coalesce(${outcome.reference}, ${outbox.reference})`,
          warning: outcome.warning,
        })
        .where(guard);
    case "submitted":
      // A submitted row is never due again: its next_attempt_at keeps when it was submitted, the
      // start of the 24 hours the marketplace has to settle it (src/sync/delivery.ts).
      return db
        .update(outbox)
        .set({ state: "submitted", attempts: sql`${outbox.attempts} + 1`, lastError: null, reference: outcome.reference, nextAttemptAt: now })
        .where(guard);
    case "notApplicable":
      return db
        .update(outbox)
        .set({ state: "notApplicable", attempts: attempted(outcome.called), deliveredAt: now, lastError: null, warning: outcome.reason })
        .where(guard);
    case "retry":
      return db
        .update(outbox)
        .set({ attempts: sql`${outbox.attempts} + 1`, nextAttemptAt: outcome.nextAttemptAt, lastError: outcome.error })
        .where(guard);
    case "failed":
      return db
        .update(outbox)
        .set({ state: "failed", attempts: attempted(outcome.called), lastError: outcome.error })
        .where(guard);
  }
}

/** A submitted row the marketplace has not finished with: asked again next cycle, attempt counted. */
export function recordStillSubmitted(db: Db, id: number, error: string | null) {
  return db
    .update(outbox)
    .set({ lastError: error })
    .where(and(eq(outbox.id, id), eq(outbox.state, "submitted")));
}

export interface OutboxCounts {
  pending: number;
  submitted: number;
  failed: number;
}

/** Rows still to complete and rows failed for good, per source. */
export async function countsBySource(db: Db, sourceIds: string[]): Promise<Map<string, OutboxCounts>> {
  const map = new Map<string, OutboxCounts>(sourceIds.map((id) => [id, { pending: 0, submitted: 0, failed: 0 }]));
  if (sourceIds.length === 0) return map;
  const rows = await db
    .select({ sourceId: outbox.sourceId, state: outbox.state, n: count() })
    .from(outbox)
    // One JSON parameter, not one per id: a store with more than 100 sources made its list a 500.
    .where(and(idIn(outbox.sourceId, sourceIds), inArray(outbox.state, ["pending", "submitted", "failed"])))
    .groupBy(outbox.sourceId, outbox.state);
  for (const row of rows) {
    const counts = map.get(row.sourceId);
    if (counts && (row.state === "pending" || row.state === "submitted" || row.state === "failed")) counts[row.state] = row.n;
  }
  return map;
}

/** A source's rows for the deliveries route, oldest first. */
export async function listEntries(db: Db, sourceId: string, state: OutboxState | undefined, limit: number): Promise<OutboxEntry[]> {
  const rows = await db
    .select()
    .from(outbox)
    .where(and(eq(outbox.sourceId, sourceId), state ? eq(outbox.state, state) : undefined))
    .orderBy(asc(outbox.id))
    .limit(limit);
  return rows.map(readEntry);
}

/** Orders with a failed row of this source (a subquery for the orders' message reset). */
export function failedOrderIds(sourceId: string): SQL {
  return sql`(select ${outbox.orderId} from ${outbox} where ${outbox.sourceId} = ${sourceId} and ${outbox.state} = 'failed')`;
}

/**
 * The operator's retry: failed rows go out again on the next cycle, attempts from zero. Answers
 * the rows it moved (D1's `changes` also counts what the table's triggers wrote).
 */
export function retryFailed(db: Db, sourceId: string, now: number) {
  return db
    .update(outbox)
    .set({ state: "pending", attempts: 0, nextAttemptAt: now, lastError: null })
    .where(and(eq(outbox.sourceId, sourceId), eq(outbox.state, "failed")))
    .returning({ id: outbox.id });
}

/** Orders with a row of this source still to complete (a subquery, for the deletion's order messages). */
export function openOrderIds(sourceId: string): SQL {
  return sql`(select ${outbox.orderId} from ${outbox} where ${outbox.sourceId} = ${sourceId} and ${outbox.state} in ('pending', 'submitted'))`;
}

/** The source is deleted: what it still had to deliver never will be. */
export function failOpenRows(db: Db, sourceId: string) {
  return db
    .update(outbox)
    .set({ state: "failed", lastError: SOURCE_DELETED })
    .where(and(eq(outbox.sourceId, sourceId), inArray(outbox.state, ["pending", "submitted"])));
}

/** A purge of a deleted store: the rows of these orders (a subquery), whatever their state. */
export function deleteRowsOfOrders(db: Db, orderIds: SQL) {
  return db.delete(outbox).where(sql`${outbox.orderId} in ${orderIds}`);
}

export function countOpen(db: Db, sourceId: string) {
  return db
    .select({ state: outbox.state, n: count() })
    .from(outbox)
    .where(and(eq(outbox.sourceId, sourceId), inArray(outbox.state, ["pending", "submitted", "failed"])))
    .groupBy(outbox.state);
}

/** An order's rows (what is or was to be told to its marketplace), oldest first: the operator's order page. */
export async function entriesOfOrder(db: Db, storeId: string, orderId: number): Promise<OutboxEntry[]> {
  const rows = await db
    .select()
    .from(outbox)
    .where(and(eq(outbox.orderId, orderId), eq(outbox.storeId, storeId)))
    .orderBy(asc(outbox.id));
  return rows.map(readEntry);
}

/**
 * A pending acknowledgement for each order of the source put in Processing at `updatedAt` (the
 * sync benchmark's setup, after orders.writes.ts's markProcessingForBench in the same batch).
 */
export function enqueueAcknowledgementsOf(db: Db, sourceId: string, updatedAt: number): D1PreparedStatement {
  return db.$client
    .prepare(
      `insert into outbox (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, created_at)
           select store_id, source_id, id, 'acknowledge', json_object('sellerOrderNumber', order_destination_order_number), 'pending', 0, ?1, ?1
           from orders where source_id = ?2 and date_updated = ?1 and status = 'Processing' order by id`,
    )
    .bind(updatedAt, sourceId);
}

/**
 * The acknowledgements an import queues (decisions 14: a marketplace whose orders wait for the
 * seller's acceptance, Connector.acceptOnImport), in the page's batch after its orders and lines:
 * one for each named order of the source that is New and has no outbox row yet, i.e. inserted by
 * this batch (a page written again queues nothing twice). The decision is made from what each
 * line took (order_items.stock_taken, written by the lines' insert just before); the payload
 * adds what that cannot tell, the lines whose Sku is not tracked (such a line took nothing, as
 * one whose Sku had no stock did), read in the take's batch, so as the take saw the products.
 */
export function acceptOnImportStatement(d1: D1Database, source: { storeId: string; id: string }, numbers: string[], at: number): D1PreparedStatement {
  return d1
    .prepare(
      `insert into outbox (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, created_at)
      select o.store_id, ?2, o.id, 'acknowledge', json_object('sellerOrderNumber', null, 'untracked', json(${untrackedLinesSql("o.store_id", "o.id")})), 'pending', 0, ?4, ?4
      from json_each(?3) as r
        cross join orders as o
      where o.store_id = ?1 and o.source_id = ?2 and o.order_source = (select name from sources where id = ?2)
        and o.order_source_order_number = r.value and o.status = 'New'
        and not exists (select 1 from outbox as b where b.order_id = o.id)
      order by r.key`,
    )
    .bind(source.storeId, source.id, JSON.stringify(numbers), at);
}
