// Every statement on the sources table: the admin routes' reads and writes, what a cycle records
// of itself, and the cron's list of enabled sources. A rename and a deletion carry their orders,
// outbox rows and set-aside orders along in the same batch, through those tables' owner modules.
// Both the sources routes (src/sources/) and the sync engine (src/sync/) below them write this
// table, so its owner sits below both, beside set-aside.queries.ts: the engine reaches it
// without importing the routes' folder, which imports the engine.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { deleteListingsOf } from "../stock/listings.queries";
import type { Db } from "../db/client";
import { sources, stores } from "../db/schema";
import { renameOrderSource, setSyncErrors } from "../orders/orders.writes";
import { failOpenRows, openOrderIds, SOURCE_DELETED } from "../outbox/outbox.queries";
import { ordersSyncFailedEvents, wokenBy } from "../webhooks/webhook-deliveries.queries";
import { deleteSetAsideOf } from "./set-aside.queries";
import { deleteSetAsideReturnsOf } from "./set-aside-returns.queries";

export type SourceRow = typeof sources.$inferSelect;

/** The most recent cycle summaries a source keeps (newest first). */
export const RECENT_CYCLES = 20;

export function insertSource(db: Db, row: SourceRow) {
  return db.insert(sources).values(row);
}

export function listSources(db: Db, storeId: string): Promise<SourceRow[]> {
  return db.select().from(sources).where(eq(sources.storeId, storeId)).orderBy(asc(sources.createdAt), asc(sources.id));
}

export async function findSource(db: Db, storeId: string, sourceId: string): Promise<SourceRow | null> {
  return (
    (await db
      .select()
      .from(sources)
      .where(and(eq(sources.id, sourceId), eq(sources.storeId, storeId)))
      .get()) ?? null
  );
}

export async function sourceById(db: Db, sourceId: string): Promise<SourceRow | null> {
  return (await db.select().from(sources).where(eq(sources.id, sourceId)).get()) ?? null;
}

/** What an overview shows of sources: of one store, or of every live store. */
export function sourcesForOverview(db: Db, storeId: string | null) {
  return db
    .select({
      id: sources.id,
      storeId: sources.storeId,
      type: sources.type,
      name: sources.name,
      enabled: sources.enabled,
      lastError: sources.lastError,
      recentCycles: sources.recentCycles,
    })
    .from(sources)
    .innerJoin(stores, eq(stores.id, sources.storeId))
    .where(and(storeId === null ? undefined : eq(sources.storeId, storeId), isNull(stores.deletedAt)))
    .orderBy(asc(sources.createdAt), asc(sources.id));
}

/** Enabled sources of live stores, oldest first: what the cron runs. */
/** The enabled sources of the live stores living in `shard` (this database's copy of where each store lives), oldest first. */
export function enabledSources(db: Db, shard: string): Promise<{ id: string; storeId: string; createdAt: number }[]> {
  return db
    .select({ id: sources.id, storeId: sources.storeId, createdAt: sources.createdAt })
    .from(sources)
    .innerJoin(stores, eq(stores.id, sources.storeId))
    .where(and(eq(sources.enabled, true), isNull(stores.deletedAt), eq(stores.shard, shard)))
    .orderBy(asc(sources.createdAt), asc(sources.id));
}

/**
 * Writes an operator's change. A rename carries the orders along in the same batch (their
 * OrderSource is the source's Name), so the next import finds them under the unique index.
 */
export async function updateSource(
  db: Db,
  before: SourceRow,
  next: Pick<SourceRow, "name" | "enabled" | "settingsCiphertext" | "updatedAt" | "cursorAt" | "returnsCursorAt">,
): Promise<void> {
  const update = db
    .update(sources)
    .set({
      name: next.name,
      enabled: next.enabled,
      settingsCiphertext: next.settingsCiphertext,
      updatedAt: next.updatedAt,
      cursorAt: next.cursorAt,
      returnsCursorAt: next.returnsCursorAt,
    })
    .where(eq(sources.id, before.id));
  if (next.name === before.name) await db.batch([update]);
  else await db.batch([update, renameOrderSource(db, before.id, next.name)]);
}

/**
 * Deletes a source. Its orders stay (SyncStatus Disabled from now on); what it still had to
 * deliver never will be, and those orders say so (and their order.sync_failed webhook events);
 * its set-aside orders and returns and its listings (the stock and price it was sent) go with it. Answers
 * the webhook endpoints to wake.
 */
export async function deleteSource(db: Db, sourceId: string, now: number): Promise<string[]> {
  const [events] = await db.batch([
    // Their deliveries fail for good here: order.sync_failed, for the endpoints answered (to wake).
    ordersSyncFailedEvents(db, openOrderIds(sourceId), now),
    setSyncErrors(db, openOrderIds(sourceId), SOURCE_DELETED, now),
    failOpenRows(db, sourceId),
    deleteSetAsideOf(db, sourceId),
    deleteSetAsideReturnsOf(db, sourceId),
    deleteListingsOf(db, sourceId),
    db.delete(sources).where(eq(sources.id, sourceId)),
  ]);
  return wokenBy(events);
}

// --- What a cycle records of itself --------------------------------------------------------

export function markCycleStarted(db: Db, sourceId: string, at: number) {
  return db.update(sources).set({ lastCycleStartedAt: at }).where(eq(sources.id, sourceId));
}

/** The import of a window completed: the cursor moves to its end, unless an operator moved it meanwhile (ImportFrom wins). */
export function advanceCursor(db: Db, sourceId: string, from: number | null, to: number) {
  return db
    .update(sources)
    .set({ cursorAt: to })
    .where(and(eq(sources.id, sourceId), from === null ? isNull(sources.cursorAt) : eq(sources.cursorAt, from)));
}

/** The returns import of a window completed: the returns cursor moves to its end, unless an operator moved it meanwhile. */
export function advanceReturnsCursor(db: Db, sourceId: string, from: number | null, to: number) {
  return db
    .update(sources)
    .set({ returnsCursorAt: to })
    .where(and(eq(sources.id, sourceId), from === null ? isNull(sources.returnsCursorAt) : eq(sources.returnsCursorAt, from)));
}

export function addImported(db: Db, sourceId: string, count: number) {
  return db
    .update(sources)
    .set({ importedTotal: sql`${sources.importedTotal} + ${count}` })
    .where(eq(sources.id, sourceId));
}

/** What the row keeps apart of a cycle's summary (the engine's CycleSummary); the whole summary goes into its recent cycles. */
export interface CycleEnd {
  endedAt: number;
  imported: number;
  error: string | null;
}

/**
 * The cycle's end: its summary goes first in the source's recent cycles (at most 20 kept). A
 * source's cycles never overlap (its Durable Object chains them), so the list read at the cycle's
 * start is still the latest.
 */
export function recordCycleEnd(db: Db, source: Pick<SourceRow, "id" | "recentCycles">, summary: CycleEnd) {
  const recent = [summary, ...source.recentCycles].slice(0, RECENT_CYCLES);
  return db
    .update(sources)
    .set({ lastCycleEndedAt: summary.endedAt, lastCycleImported: summary.imported, lastError: summary.error, recentCycles: recent })
    .where(eq(sources.id, source.id));
}
