// Every statement on store_moves (the directory's record of each store's latest move) and on a
// shard's move_capture and store_fences (which switch the triggers of migrations/0012 on and off).
import { eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { moveCapture, storeFences, storeMoves } from "../db/schema";

export type MoveRow = typeof storeMoves.$inferSelect;

export function findMove(db: Db, storeId: string): Promise<MoveRow | undefined> {
  return db.select().from(storeMoves).where(eq(storeMoves.storeId, storeId)).get();
}

/** A new move replaces the store's last finished one. */
export async function startMove(db: Db, row: MoveRow): Promise<MoveRow> {
  const [saved] = await db.insert(storeMoves).values(row).onConflictDoUpdate({ target: storeMoves.storeId, set: row }).returning();
  return saved!;
}

export async function saveMove(db: Db, row: MoveRow): Promise<void> {
  await db.update(storeMoves).set(row).where(eq(storeMoves.storeId, row.storeId));
}

/** Moves not yet finished (the cron wakes their movers, in case an alarm was lost). */
export async function unfinishedMoves(db: Db): Promise<string[]> {
  const rows = await db.select({ storeId: storeMoves.storeId }).from(storeMoves).where(inArray(storeMoves.status, ["copying", "switching"]));
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
