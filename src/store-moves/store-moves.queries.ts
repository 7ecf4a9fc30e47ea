// Every statement on store_moves (the directory's record of each store's latest move) and on a
// shard's move_capture, move_log and store_fences (which switch the triggers of migrations/0012 on
// and off, and hold what they logged). The move's row is claimed and saved by compare-and-set, so
// two requests, or a request and the mover, never both win.
import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { moveCapture, moveLog, storeFences, storeMoves, stores } from "../db/schema";

export type MoveRow = typeof storeMoves.$inferSelect;

const ACTIVE = ["copying", "switching"] as const;
/** The steps before the directory names the new shard: a move there may still be given up. */
export const BEFORE_SWITCH = ["capture", "copy", "catch-up", "fence", "drain", "flip"] as const;

export function findMove(db: Db, storeId: string): Promise<MoveRow | undefined> {
  return db.select().from(storeMoves).where(eq(storeMoves.storeId, storeId)).get();
}

/**
 * A new move, claimed in one statement: it replaces the store's last move only if that one is
 * finished. Undefined when a move is under way (another request claimed it first).
 */
export async function claimMove(db: Db, row: MoveRow): Promise<MoveRow | undefined> {
  const [saved] = await db
    .insert(storeMoves)
    .values(row)
    .onConflictDoUpdate({ target: storeMoves.storeId, set: row, setWhere: notInArray(storeMoves.status, [...ACTIVE]) })
    .returning();
  return saved;
}

/** Saves the mover's step, only if the row is still as the mover read it (a give-up may have changed it); true when saved. */
export async function saveMove(db: Db, row: MoveRow, read: Pick<MoveRow, "phase" | "updatedAt">): Promise<boolean> {
  const saved = await db
    .update(storeMoves)
    .set(row)
    .where(and(eq(storeMoves.storeId, row.storeId), eq(storeMoves.phase, read.phase), eq(storeMoves.updatedAt, read.updatedAt)))
    .returning({ storeId: storeMoves.storeId });
  return saved.length > 0;
}

/** The condition a move's switch of the directory holds under: its row is still at the switch (not given up). */
export function stillAtSwitch(storeId: string) {
  return sql`exists (select 1 from ${storeMoves} where ${storeMoves.storeId} = ${storeId} and ${storeMoves.phase} = 'flip' and ${storeMoves.status} =
    'switching')`;
}

/**
 * Gives up a move that has not switched, in one statement: only while the directory still names
 * the shard the store is leaving (the switch and this exclude each other). The row as saved, or
 * undefined when there is no such move.
 */
export async function giveUpMove(db: Db, storeId: string, now: number, reason: string): Promise<MoveRow | undefined> {
  const [row] = await db
    .update(storeMoves)
    .set({ phase: "abandon", cursor: { step: 0, released: false, reason }, updatedAt: now, error: null })
    .where(
      and(
        eq(storeMoves.storeId, storeId),
        inArray(storeMoves.status, [...ACTIVE]),
        inArray(storeMoves.phase, [...BEFORE_SWITCH]),
        sql`exists (select 1 from ${stores} where ${stores.id} = ${storeId} and ${stores.shard} = ${storeMoves.fromShard})`,
      ),
    )
    .returning();
  return row;
}

/** Moves not yet finished (the cron wakes their movers, in case an alarm was lost). */
export async function unfinishedMoves(db: Db): Promise<string[]> {
  const rows = await db
    .select({ storeId: storeMoves.storeId })
    .from(storeMoves)
    .where(inArray(storeMoves.status, [...ACTIVE]));
  return rows.map((r) => r.storeId);
}

/** From now on every change of the store's rows in this shard is logged (idempotent). */
export function captureChanges(db: Db, storeId: string, since: number) {
  return db.insert(moveCapture).values({ storeId, since }).onConflictDoNothing();
}

/** Every write of the store's rows in this shard is refused; `purging` lets the cleanup's deletes through. */
export function fenceStore(db: Db, storeId: string, purging: boolean) {
  return db.insert(storeFences).values({ storeId, purging }).onConflictDoUpdate({ target: storeFences.storeId, set: { purging } });
}

/** The switch is over: the cleanup's deletes in the old shard need no log. */
export function stopCapture(db: Db, storeId: string) {
  return db.delete(moveCapture).where(eq(moveCapture.storeId, storeId));
}

/** A move given up: the store's rows in this shard are written freely and no longer logged. */
export function releaseStore(db: Db, storeId: string) {
  return [db.delete(storeFences).where(eq(storeFences.storeId, storeId)), db.delete(moveCapture).where(eq(moveCapture.storeId, storeId))] as const;
}

/** Removes up to `limit` of the store's logged changes (a move given up); how many were removed. */
export async function clearMoveLog(db: Db, storeId: string, limit: number): Promise<number> {
  const gone = await db
    .delete(moveLog)
    .where(inArray(moveLog.seq, db.select({ seq: moveLog.seq }).from(moveLog).where(eq(moveLog.storeId, storeId)).limit(limit)))
    .returning({ seq: moveLog.seq });
  return gone.length;
}
