// Every statement on returns and return_lines (decisions 13): the list (the keyset pages orders
// use, src/db/keyset.ts), the count, one return with its lines, what a delivery needs, the
// imported page's upsert, the seller's receipt and decision (each guarded by the return's
// DateUpdated as read, like an order's move), the overview's open returns and the purge.
import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { keysetPageStatement } from "../db/keyset";
import { idIn } from "../db/sql";
import { orderItems, orders, returnLines, returns, type ReturnLineRow, type ReturnRow } from "../db/schema";
import type { PageStart } from "../lib/cursor";
import type { ReturnFilter, ReturnListQuery, ReturnSortField, ReturnStatus } from "./returns.schemas";

/** A return with what the wire shows of its order. */
export interface ReturnListRow extends ReturnRow {
  orderSource: string;
  orderSourceOrderNumber: string;
}
export type ReturnLineView = ReturnLineRow & { sku: string };
export interface ReturnView extends ReturnListRow {
  lines: ReturnLineView[];
}

/** Statuses the seller still has something to do about: the overview counts them as open. */
export const OPEN_STATUSES = ["Requested", "Approved", "Received"] as const satisfies readonly ReturnStatus[];

/**
 * How far along a status is: a marketplace's later report never moves a return back (a return the
 * seller received stays Received when the marketplace still says approved). Closed and Rejected end it.
 */
export const STATUS_RANK: Record<ReturnStatus, number> = { Requested: 0, Approved: 1, Received: 2, Refunded: 3, Closed: 4, Rejected: 4 };
const RANK_SQL = (s: string) => `(case ${s} when 'Requested' then 0 when 'Approved' then 1 when 'Received' then 2 when 'Refunded' then 3 else 4 end)`;

const DATE_COLUMN = { requested: "date_requested", updated: "date_updated" } as const;
const indexOf = (status: string | undefined, what: "requested" | "updated" | "id") => `returns_store_${status ? "status_" : ""}${what}`;

const SORTS: Record<ReturnSortField, { column: string; key: keyof ReturnRow; index: (q: ReturnFilter) => string }> = {
  DateRequested: { column: "date_requested", key: "dateRequested", index: (q) => indexOf(q.status, "requested") },
  DateUpdated: { column: "date_updated", key: "dateUpdated", index: (q) => indexOf(q.status, "updated") },
  ReturnId: { column: "id", key: "id", index: (q) => indexOf(q.status, "id") },
  Status: { column: "status", key: "status", index: () => "returns_store_status_id" },
};

/** A count: the filter's rows through its (store, [status,] date) index. */
export function countStatement(storeId: string, filter: ReturnFilter): { sql: string; params: unknown[] } {
  const column = DATE_COLUMN[filter.dateField];
  return {
    sql:
      `select count(*) as n from returns indexed by ${indexOf(filter.status, filter.dateField)} where store_id = ` +
      `?${filter.status ? " and status = ?" : ""} and ${column} between ? and ?`,
    params: [storeId, ...(filter.status ? [filter.status] : []), filter.fromDate, filter.toDate],
  };
}

export async function countReturns(db: Db, storeId: string, filter: ReturnFilter): Promise<number> {
  const { sql: text, params } = countStatement(storeId, filter);
  return (
    (
      await db.$client
        .prepare(text)
        .bind(...params)
        .first<{ n: number }>()
    )?.n ?? 0
  );
}

/** The page's statement: its ids along the sort's index, then the returns with their order's source and number. */
export function listStatement(storeId: string, query: ReturnListQuery, limit: number, start: PageStart, plan: "sort index" | "date index" = "sort index") {
  return keysetPageStatement(
    {
      table: "returns",
      alias: "r",
      index: plan === "date index" ? indexOf(query.status, query.dateField) : SORTS[query.sortBy].index(query),
      storeId,
      equals: query.status ? [["status", query.status]] : [],
      dateColumn: DATE_COLUMN[query.dateField],
      fromDate: query.fromDate,
      toDate: query.toDate,
      sortColumn: SORTS[query.sortBy].column,
      direction: query.sortDirection,
      project: (dir) => `select r.*, o.order_source as order_source, o.order_source_order_number as order_source_order_number
        from page join returns r on r.id = page.id join orders o on o.id = r.order_id order by page.sk ${dir}, page.id ${dir}`,
    },
    limit,
    start,
  );
}

/**
 * A range holding fewer returns than this is read whole through its date index and sorted; a
 * wider one is walked along the sort's index. Orders decide from their day buckets and the store's
 * size (src/orders/orders.queries.ts); returns, a twentieth as many, count the range up to this
 * bound instead, which costs at most this many index entries.
 */
export const SMALL_RANGE = 1_000;

export async function planFor(db: Db, storeId: string, query: ReturnListQuery): Promise<"sort index" | "date index"> {
  if (SORTS[query.sortBy].column === DATE_COLUMN[query.dateField]) return "sort index";
  const column = DATE_COLUMN[query.dateField];
  const row = await db.$client
    .prepare(
      `select count(*) as n from (select 1 from returns indexed by ${indexOf(query.status, query.dateField)}
        where store_id = ?${query.status ? " and status = ?" : ""} and ${column} between ? and ? limit ${SMALL_RANGE})`,
    )
    .bind(storeId, ...(query.status ? [query.status] : []), query.fromDate, query.toDate)
    .first<{ n: number }>();
  return (row?.n ?? 0) < SMALL_RANGE ? "date index" : "sort index";
}

const RETURN_COLUMNS = Object.entries(getTableColumns(returns));

/** A raw `returns` row (SQL names) as drizzle maps it, with the order's source and number. */
function toListRow(raw: Record<string, unknown>): ReturnListRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of RETURN_COLUMNS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return { ...(row as unknown as ReturnRow), orderSource: String(raw.order_source), orderSourceOrderNumber: String(raw.order_source_order_number) };
}

export interface ReturnListPage {
  rows: ReturnListRow[];
  next: { value: string | number; id: number } | null;
}

/** One page of returns without their lines (linesOfReturns reads those). */
export async function listReturns(db: Db, storeId: string, query: ReturnListQuery, pageSize: number, start: PageStart): Promise<ReturnListPage> {
  const plan = await planFor(db, storeId, query);
  const { sql: text, params } = listStatement(storeId, query, pageSize + 1, start, plan);
  const { results } = await db.$client
    .prepare(text)
    .bind(...params)
    .all<Record<string, unknown>>();
  const rows = results.slice(0, pageSize).map(toListRow);
  const last = rows.at(-1);
  return { rows, next: results.length > pageSize && last ? { value: last[SORTS[query.sortBy].key] as string | number, id: last.id } : null };
}

/** The lines of these returns with their Sku, in line order, per return. */
export async function linesOfReturns(db: Db, returnIds: number[]): Promise<Map<number, ReturnLineView[]>> {
  const out = new Map<number, ReturnLineView[]>();
  if (returnIds.length === 0) return out;
  return groupLines(await linesQuery(db, returnIds));
}

export function groupLines(rows: ReturnLineView[]): Map<number, ReturnLineView[]> {
  const out = new Map<number, ReturnLineView[]>();
  for (const row of rows) out.set(row.returnId, [...(out.get(row.returnId) ?? []), row]);
  return out;
}

/** The lines of these returns (linesOfReturns' statement, for a caller's batch; group with groupLines). */
export function linesQuery(db: Db, returnIds: number[]) {
  return db
    .select({ ...lineColumns, sku: orderItems.sku })
    .from(returnLines)
    .innerJoin(orderItems, eq(orderItems.id, returnLines.orderItemId))
    .where(idIn(returnLines.returnId, returnIds))
    .orderBy(asc(returnLines.returnId), asc(returnLines.id));
}

const lineColumns = {
  id: returnLines.id,
  returnId: returnLines.returnId,
  orderItemId: returnLines.orderItemId,
  sourceReturnLineId: returnLines.sourceReturnLineId,
  quantity: returnLines.quantity,
  quantityReceived: returnLines.quantityReceived,
  quantityRestocked: returnLines.quantityRestocked,
  reason: returnLines.reason,
};

/** A return of this store with its lines, or null. Ids that are not positive integers are simply not found. */
export async function findReturn(db: Db, storeId: string, returnId: string | number): Promise<ReturnView | null> {
  const text = String(returnId);
  if (!/^[1-9]\d{0,15}$/.test(text)) return null;
  const id = Number(text);
  const [heads, lines] = await db.batch([
    db
      .select({ ret: returns, orderSource: orders.orderSource, orderSourceOrderNumber: orders.orderSourceOrderNumber })
      .from(returns)
      .innerJoin(orders, eq(orders.id, returns.orderId))
      .where(and(eq(returns.id, id), eq(returns.storeId, storeId))),
    linesQuery(db, [id]),
  ]);
  const head = heads[0];
  if (!head) return null;
  return { ...head.ret, orderSource: head.orderSource, orderSourceOrderNumber: head.orderSourceOrderNumber, lines };
}

/** The returns of an order with their lines (a refund naming one checks its lines; the console's order page lists them). */
export async function returnsOfOrder(db: Db, storeId: string, orderId: number): Promise<ReturnView[]> {
  const heads = await db
    .select({ ret: returns, orderSource: orders.orderSource, orderSourceOrderNumber: orders.orderSourceOrderNumber })
    .from(returns)
    .innerJoin(orders, eq(orders.id, returns.orderId))
    .where(and(eq(returns.orderId, orderId), eq(returns.storeId, storeId)))
    .orderBy(asc(returns.id));
  const lines = await linesOfReturns(
    db,
    heads.map((h) => h.ret.id),
  );
  return heads.map((h) => ({ ...h.ret, orderSource: h.orderSource, orderSourceOrderNumber: h.orderSourceOrderNumber, lines: lines.get(h.ret.id) ?? [] }));
}

// ---------------------------------------------------------------------------------------------
// The seller's receipt and decision: statements guarded by the return as it was read (its
// DateUpdated), like an order's move. The update of the return comes last in its batch and says
// (RETURNING) whether the move applied; every statement before it carries the same guard, so
// all of them apply or none does.

/** SQL over `returns`: the row of the return as read (for a statement that reads the return itself, an event). */
export function returnIs(ret: { id: number; dateUpdated: number }): SQL {
  return sql`${returns.id} = ${ret.id} and ${returns.dateUpdated} = ${ret.dateUpdated}`;
}

/** SQL: the return is still as read. */
export function returnAsRead(ret: { id: number; dateUpdated: number }): SQL {
  return sql`exists (select 1 from ${returns} where ${returns.id} = ${ret.id} and ${returns.dateUpdated} = ${ret.dateUpdated})`;
}

/** The lines' new received and restocked counts ([line id, received, restocked]), under the return's guard. */
export function receiveLinesStatement(
  db: Db,
  ret: { id: number; dateUpdated: number },
  lines: [id: number, received: number, restocked: number][],
): D1PreparedStatement {
  return db.$client
    .prepare(
      `update return_lines set quantity_received = l.value ->> 1, quantity_restocked = l.value ->> 2
      from json_each(?2) as l where return_lines.return_id = ?1 and return_lines.id = l.value ->> 0
        and exists (select 1 from returns where id = ?1 and date_updated = ?3)`,
    )
    .bind(ret.id, JSON.stringify(lines), ret.dateUpdated);
}

/** The return's new status and DateUpdated, if it is still as read: answers a row when it applied. */
export function moveReturnStatement(db: Db, ret: { id: number; dateUpdated: number }, status: ReturnStatus, updatedAt: number) {
  return db
    .update(returns)
    .set({ status, dateUpdated: updatedAt })
    .where(and(eq(returns.id, ret.id), eq(returns.dateUpdated, ret.dateUpdated)))
    .returning({ id: returns.id });
}

/** A refund recorded against a return moves it to Refunded (unless it is further along), in the refund's batch. */
export function markRefundedStatement(db: Db, returnId: number, refunded: SQL, now: number) {
  return db
    .update(returns)
    .set({ status: "Refunded", dateUpdated: sql`max(${returns.dateUpdated} + 1, ${now})` })
    .where(and(eq(returns.id, returnId), inArray(returns.status, ["Requested", "Approved", "Received"]), refunded));
}

/** SQL over `returns`: the return a refund names is moved by markRefundedStatement (the same condition, for its event before it). */
export function refundMoves(returnId: number, refunded: SQL): SQL {
  return sql`${returns.id} = ${returnId} and ${returns.status} in ('Requested', 'Approved', 'Received') and ${refunded}`;
}

// ---------------------------------------------------------------------------------------------
// An imported page of returns (src/sources/imported-returns.ts composes the batch).

export interface ImportedReturnWrite {
  number: string;
  orderNumber: string;
  state: ReturnStatus;
  sourceStatus: string;
  requestedAt: number;
  reason: string | null;
  sourceData: string | null;
  lines: { sourceReturnLineId: string; sourceLineId: string; quantity: number; reason: string | null }[];
}

/**
 * The page's returns and their lines, for orders of the source the database holds (the caller
 * sets aside the others). A known return takes the marketplace's word for its state only if it
 * is as far along as the hub's (STATUS_RANK), and is rewritten only when something changed. The
 * rows a statement wrote are marked `<lastWrite>:new` or `<lastWrite>:upd`, for their events.
 */
export function importedReturnStatements(
  db: Db,
  source: { id: string; storeId: string },
  rows: ImportedReturnWrite[],
  lastWrite: string,
  now: number,
): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  const d1 = db.$client;
  const json = JSON.stringify(
    rows.map((r) => ({
      number: r.number,
      order: r.orderNumber,
      state: r.state,
      sourceStatus: r.sourceStatus,
      at: r.requestedAt,
      reason: r.reason,
      data: r.sourceData,
      lines: r.lines.map((l) => [l.sourceReturnLineId, l.sourceLineId, l.quantity, l.reason]),
    })),
  );
  const upsert = `insert into returns (store_id, order_id, source_id, source_return_number, status, source_status, reason, source_data,
    date_requested, date_updated, created_at, last_write)
    select ?1, o.id, ?2, r.value ->> 'number', r.value ->> 'state', r.value ->> 'sourceStatus', r.value ->> 'reason', r.value ->> 'data', r.value ->>
      'at', ?3, ?3, ?4 || ':new'
    from json_each(?5) as r cross join orders as o
    where o.store_id = ?1 and o.order_source = (select name from sources where id = ?2) and o.order_source_order_number = r.value ->> 'order'
    on conflict (store_id, source_id, source_return_number) do update set
      status = case when ${RANK_SQL("excluded.status")} >= ${RANK_SQL("returns.status")} then excluded.status else returns.status end,
      source_status = excluded.source_status,
      reason = coalesce(excluded.reason, returns.reason),
      source_data = coalesce(excluded.source_data, returns.source_data),
      date_updated = max(excluded.date_updated, returns.date_updated + 1),
      last_write = ?4 || ':upd'
    where returns.source_status is not excluded.source_status
      or returns.reason is not coalesce(excluded.reason, returns.reason)
      or returns.source_data is not coalesce(excluded.source_data, returns.source_data)
      or (${RANK_SQL("excluded.status")} >= ${RANK_SQL("returns.status")} and returns.status is not excluded.status)`;
  const lines = `insert into return_lines (return_id, order_item_id, source_return_line_id, quantity, reason)
    select t.id, i.id, l.value ->> 0, l.value ->> 2, l.value ->> 3
    from json_each(?3) as r cross join json_each(r.value -> 'lines') as l cross join returns as t cross join order_items as i
    where t.store_id = ?1 and t.source_id = ?2 and t.source_return_number = r.value ->> 'number'
      and i.order_id = t.order_id and i.source_line_id = l.value ->> 1
    on conflict (return_id, source_return_line_id) do update set
      quantity = max(excluded.quantity, return_lines.quantity_received), reason = excluded.reason
    where return_lines.quantity is not max(excluded.quantity, return_lines.quantity_received) or return_lines.reason is not excluded.reason`;
  return [d1.prepare(upsert).bind(source.storeId, source.id, now, lastWrite, json), d1.prepare(lines).bind(source.storeId, source.id, json)];
}

/** SQL over `returns`: the page's returns the batch `lastWrite` inserted (`new`) or changed (`upd`). */
export function returnsWrittenBy(source: { id: string; storeId: string }, numbers: string[], lastWrite: string, how: "new" | "upd"): SQL {
  return sql`${returns.storeId} = ${source.storeId} and ${returns.sourceId} = ${source.id}
    and ${returns.sourceReturnNumber} in (select value from json_each(${JSON.stringify(numbers)})) and ${returns.lastWrite} = ${`${lastWrite}:${how}`}`;
}

// ---------------------------------------------------------------------------------------------
// Deliveries, the overview, the purge

export interface ReturnForDelivery {
  id: number;
  sourceReturnNumber: string;
  sourceData: string | null;
  /** The return's lines: their marketplace id and their order line's (lines of an inserted order numbered in order). */
  lines: Map<number, { sourceReturnLineId: string; sourceLineId: string }>;
}

export async function returnsForDelivery(db: Db, returnIds: number[]): Promise<Map<number, ReturnForDelivery>> {
  const out = new Map<number, ReturnForDelivery>();
  if (returnIds.length === 0) return out;
  const [heads, lines] = await db.batch([
    db
      .select({ id: returns.id, sourceReturnNumber: returns.sourceReturnNumber, sourceData: returns.sourceData })
      .from(returns)
      .where(idIn(returns.id, returnIds)),
    db
      .select({
        id: returnLines.id,
        returnId: returnLines.returnId,
        sourceReturnLineId: returnLines.sourceReturnLineId,
        sourceLineId: sql<string>`coalesce(${orderItems.sourceLineId}, (select count(*) from order_items as j where j.order_id = ${orderItems.orderId}
          and j.id <= ${orderItems.id}))`,
      })
      .from(returnLines)
      .innerJoin(orderItems, eq(orderItems.id, returnLines.orderItemId))
      .where(idIn(returnLines.returnId, returnIds)),
  ]);
  for (const head of heads) out.set(head.id, { ...head, lines: new Map() });
  for (const line of lines)
    out.get(line.returnId)?.lines.set(line.id, { sourceReturnLineId: line.sourceReturnLineId, sourceLineId: String(line.sourceLineId) });
  return out;
}

/** Open returns (Requested, Approved, Received) per store of these: one statement along (store, status, id). */
export async function openReturnsOf(db: Db, storeIds: string[]): Promise<Map<string, number>> {
  const out = new Map(storeIds.map((id) => [id, 0]));
  if (storeIds.length === 0) return out;
  const rows = await db
    .select({ storeId: returns.storeId, n: sql<number>`count(*)` })
    .from(returns)
    .where(and(idIn(returns.storeId, storeIds), inArray(returns.status, [...OPEN_STATUSES])))
    .groupBy(returns.storeId);
  for (const row of rows) out.set(row.storeId, row.n);
  return out;
}

/** A purge of a deleted store: the returns of these orders (a subquery) and their lines, lines first. */
export function deleteReturnsOfOrders(db: Db, orderIds: SQL) {
  return [
    db.delete(returnLines).where(sql`${returnLines.returnId} in (select ${returns.id} from ${returns} where ${returns.orderId} in ${orderIds})`),
    db.delete(returns).where(sql`${returns.orderId} in ${orderIds}`),
  ] as const;
}
