// Set-aside orders (decisions 6): an order a connector could not turn into an Order is kept with
// the reason and the marketplace's own record (at most 64 KiB of its JSON), so one bad order never
// stops a source's import. Every statement on the set_aside_orders table is here; it sits below
// the sync engine that fills the table and the sources routes that list, retry and dismiss.
import { and, asc, count, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { idIn } from "../db/sql";
import { setAsideOrders } from "../db/schema";

/** The most of a record's JSON kept (decisions 6). */
export const MAX_RECORD_BYTES = 64 * 1024;

export type SetAsideRow = typeof setAsideOrders.$inferSelect;

/** An order set aside as a connector reports it (the engine's SetAsideOrder has this shape). */
interface SetAsideOrder {
  sourceOrderNumber: string;
  reason: string;
  record: unknown;
}

/** The record as JSON, cut to at most 64 KiB (then marked truncated: no longer JSON, not retryable from here). */
export function recordJson(record: unknown): { text: string; truncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(record) ?? "null";
  } catch (error) {
    text = JSON.stringify(`the record could not be kept: ${error instanceof Error ? error.message : String(error)}`);
  }
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= MAX_RECORD_BYTES) return { text, truncated: false };
  // Cut on a character boundary: a UTF-8 continuation byte starts with 0b10.
  let end = MAX_RECORD_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), truncated: true };
}

const UPSERT = `insert into set_aside_orders (store_id, source_id, order_source_order_number, reason, record, record_truncated, first_seen_at, last_seen_at)
  select ?1, ?2, s ->> 'number', s ->> 'reason', s ->> 'record', s ->> 'truncated', ?3, ?3
  from (select value as s from json_each(?4)) where exists (select 1 from sources where id = ?2)
  on conflict (source_id, order_source_order_number) do update set
    reason = excluded.reason, record = excluded.record, record_truncated = excluded.record_truncated, last_seen_at = excluded.last_seen_at`;

// An order set aside once that the marketplace now sends in a form that maps is no longer aside.
const CLEAR_MAPPED = `delete from set_aside_orders where source_id = ?1
  and order_source_order_number in (select value from json_each(?2))`;

/** The statements that keep a page's set-aside orders and clear those that now mapped (bind order fixed here). */
export function setAsideStatements(
  db: Db,
  source: { id: string; storeId: string },
  page: { orders: readonly { sourceOrderNumber: string }[]; setAside: readonly SetAsideOrder[] },
  now: number,
): D1PreparedStatement[] {
  const d1 = db.$client;
  const out: D1PreparedStatement[] = [];
  if (page.setAside.length > 0) out.push(d1.prepare(UPSERT).bind(source.storeId, source.id, now, JSON.stringify(page.setAside.map(toStored))));
  if (page.orders.length > 0) {
    out.push(d1.prepare(CLEAR_MAPPED).bind(source.id, JSON.stringify(page.orders.map((o) => o.sourceOrderNumber))));
  }
  return out;
}

function toStored(order: SetAsideOrder) {
  const record = recordJson(order.record);
  // Reasons come from connectors; keep them a readable size.
  return { number: order.sourceOrderNumber, reason: order.reason.slice(0, 2000), record: record.text, truncated: record.truncated };
}

export function listSetAside(db: Db, sourceId: string, limit: number): Promise<SetAsideRow[]> {
  return db
    .select()
    .from(setAsideOrders)
    .where(eq(setAsideOrders.sourceId, sourceId))
    .orderBy(asc(setAsideOrders.firstSeenAt), asc(setAsideOrders.id))
    .limit(limit);
}

export async function countSetAside(db: Db, sourceIds: string[]): Promise<Map<string, number>> {
  const map = new Map(sourceIds.map((id) => [id, 0]));
  if (sourceIds.length === 0) return map;
  const rows = await db.select({ sourceId: setAsideOrders.sourceId, n: count() }).from(setAsideOrders).where(sqlIn(sourceIds)).groupBy(setAsideOrders.sourceId);
  for (const row of rows) map.set(row.sourceId, row.n);
  return map;
}

function sqlIn(sourceIds: string[]) {
  return idIn(setAsideOrders.sourceId, sourceIds);
}

/** Dismisses one set-aside order; answers whether there was one. */
export async function dismissSetAside(db: Db, sourceId: string, orderNumber: string): Promise<boolean> {
  const result = await db.delete(setAsideOrders).where(and(eq(setAsideOrders.sourceId, sourceId), eq(setAsideOrders.orderSourceOrderNumber, orderNumber)));
  return result.meta.changes > 0;
}

/** Every set-aside order of a source goes when the source does. */
export function deleteSetAsideOf(db: Db, sourceId: string) {
  return db.delete(setAsideOrders).where(eq(setAsideOrders.sourceId, sourceId));
}
