// Returns set aside (decisions 6 and 13): one its connector could not map, or whose order (or an
// order line it names) the hub does not hold, kept with the reason and the marketplace's record
// (at most 64 KiB of its JSON) until the operator retries or dismisses it, or it maps at a later
// import. Every statement on set_aside_returns is here, beside the set-aside orders'.
import { and, asc, count, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { idIn } from "../db/sql";
import { setAsideReturns } from "../db/schema";
import { recordJson } from "./set-aside.queries";

export type SetAsideReturnRow = typeof setAsideReturns.$inferSelect;

interface SetAsideReturn {
  sourceReturnNumber: string;
  sourceOrderNumber: string | null;
  reason: string;
  record: unknown;
}

const UPSERT = `insert into set_aside_returns (store_id, source_id, source_return_number, order_source_order_number, reason, record, record_truncated,
  first_seen_at, last_seen_at)
  select ?1, ?2, s ->> 'number', s ->> 'order', s ->> 'reason', s ->> 'record', s ->> 'truncated', ?3, ?3
  from (select value as s from json_each(?4)) where exists (select 1 from sources where id = ?2)
  on conflict (source_id, source_return_number) do update set
    order_source_order_number = excluded.order_source_order_number, reason = excluded.reason, record = excluded.record,
    record_truncated = excluded.record_truncated, last_seen_at = excluded.last_seen_at`;

const CLEAR_WRITTEN = `delete from set_aside_returns where source_id = ?1 and source_return_number in (select value from json_each(?2))`;

/** The statements that keep a page's set-aside returns and clear those now written (bind order fixed here). */
export function setAsideReturnStatements(
  db: Db,
  source: { id: string; storeId: string },
  page: { written: readonly string[]; setAside: readonly SetAsideReturn[] },
  now: number,
): D1PreparedStatement[] {
  const d1 = db.$client;
  const out: D1PreparedStatement[] = [];
  if (page.setAside.length > 0) {
    const rows = page.setAside.map((r) => {
      const record = recordJson(r.record);
      return { number: r.sourceReturnNumber, order: r.sourceOrderNumber, reason: r.reason.slice(0, 2000), record: record.text, truncated: record.truncated };
    });
    out.push(d1.prepare(UPSERT).bind(source.storeId, source.id, now, JSON.stringify(rows)));
  }
  if (page.written.length > 0) out.push(d1.prepare(CLEAR_WRITTEN).bind(source.id, JSON.stringify(page.written)));
  return out;
}

export function listSetAsideReturns(db: Db, sourceId: string, limit: number): Promise<SetAsideReturnRow[]> {
  return db
    .select()
    .from(setAsideReturns)
    .where(eq(setAsideReturns.sourceId, sourceId))
    .orderBy(asc(setAsideReturns.firstSeenAt), asc(setAsideReturns.id))
    .limit(limit);
}

export async function countSetAsideReturns(db: Db, sourceIds: string[]): Promise<Map<string, number>> {
  const map = new Map(sourceIds.map((id) => [id, 0]));
  if (sourceIds.length === 0) return map;
  const rows = await db
    .select({ sourceId: setAsideReturns.sourceId, n: count() })
    .from(setAsideReturns)
    .where(idIn(setAsideReturns.sourceId, sourceIds))
    .groupBy(setAsideReturns.sourceId);
  for (const row of rows) map.set(row.sourceId, row.n);
  return map;
}

/** Dismisses one set-aside return; answers whether there was one. */
export async function dismissSetAsideReturn(db: Db, sourceId: string, returnNumber: string): Promise<boolean> {
  const result = await db.delete(setAsideReturns).where(and(eq(setAsideReturns.sourceId, sourceId), eq(setAsideReturns.sourceReturnNumber, returnNumber)));
  return result.meta.changes > 0;
}

/** Every set-aside return of a source goes when the source does. */
export function deleteSetAsideReturnsOf(db: Db, sourceId: string) {
  return db.delete(setAsideReturns).where(eq(setAsideReturns.sourceId, sourceId));
}
