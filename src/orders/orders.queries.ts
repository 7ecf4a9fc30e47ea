// Every order read. Each function takes `db` and is tested directly as well as through the
// routes. Reads that need several statements go in one db.batch (one round trip). Writes live
// in orders.writes.ts.
import { and, asc, between, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { orderItems, orders, sources, stores, type OrderItemRow, type OrderRow } from "../db/schema";
import type { OrderFilter, OrderListQuery, OrderSortField } from "./orders.schemas";

function filterOf(storeId: string, filter: OrderFilter): SQL {
  const column = filter.dateField === "updated" ? orders.dateUpdated : orders.dateCreatedInOrderSource;
  return and(
    eq(orders.storeId, storeId),
    filter.status ? eq(orders.status, filter.status) : undefined,
    // BETWEEN, not >= and <=: without statistics SQLite rates a BETWEEN range as narrower, and
    // only then picks the (store, status, date) index for a list with a status filter rather
    // than reading every order of the range through (store, date). test/orders.query-plan.test.ts.
    between(column, filter.fromDate, filter.toDate),
  )!;
}

export function countQuery(db: Db, storeId: string, filter: OrderFilter) {
  return db.select({ n: count() }).from(orders).where(filterOf(storeId, filter));
}

export async function countOrders(db: Db, storeId: string, filter: OrderFilter): Promise<number> {
  const row = await countQuery(db, storeId, filter).get();
  return row?.n ?? 0;
}

const SORT_COLUMNS: Record<OrderSortField, AnySQLiteColumn> = {
  DateCreatedInOrderSource: orders.dateCreatedInOrderSource,
  OrderId: orders.id,
  GrandTotal: orders.grandTotal,
  OrderStatus: orders.status,
};

export interface OrderView {
  order: OrderRow;
  items: OrderItemRow[];
  sourceEnabled: boolean | null;
}

export interface OrderPage {
  maskBuyerPii: boolean;
  orders: OrderView[];
}

function storeSettings(db: Db, storeId: string) {
  return db.select({ maskBuyerPii: stores.maskBuyerPii }).from(stores).where(eq(stores.id, storeId));
}

export function listQuery(db: Db, storeId: string, query: OrderListQuery, pageSize: number) {
  const direction = query.sortDirection === "desc" ? desc : asc;
  const sortColumn = SORT_COLUMNS[query.sortBy];
  // The tie-break by id makes the order total, so pages neither skip nor repeat.
  const orderBy = sortColumn === orders.id ? [direction(orders.id)] : [direction(sortColumn), direction(orders.id)];
  return db
    .select({ order: orders, sourceEnabled: sources.enabled })
    .from(orders)
    .leftJoin(sources, eq(sources.id, orders.sourceId))
    .where(filterOf(storeId, query))
    .orderBy(...orderBy)
    .limit(pageSize)
    .offset((query.page - 1) * pageSize);
}

export async function listOrders(db: Db, storeId: string, query: OrderListQuery, pageSize: number): Promise<OrderPage> {
  const [store, rows] = await db.batch([storeSettings(db, storeId), listQuery(db, storeId, query, pageSize)]);
  const ids = rows.map((r) => r.order.id);
  const items = ids.length
    ? await db.select().from(orderItems).where(inArray(orderItems.orderId, ids)).orderBy(asc(orderItems.id))
    : [];
  return {
    maskBuyerPii: store[0]?.maskBuyerPii ?? false,
    orders: rows.map((r) => ({
      order: r.order,
      items: items.filter((i) => i.orderId === r.order.id),
      sourceEnabled: r.sourceEnabled,
    })),
  };
}

/** An order of this store, or null. Ids that are not positive integers are simply not found. */
export async function findOrder(db: Db, storeId: string, orderId: string): Promise<(OrderView & { maskBuyerPii: boolean }) | null> {
  if (!/^[1-9]\d{0,15}$/.test(orderId)) return null;
  const id = Number(orderId);
  const [store, rows, items] = await db.batch([
    storeSettings(db, storeId),
    db
      .select({ order: orders, sourceEnabled: sources.enabled })
      .from(orders)
      .leftJoin(sources, eq(sources.id, orders.sourceId))
      .where(and(eq(orders.id, id), eq(orders.storeId, storeId))),
    db
      .select()
      .from(orderItems)
      .where(and(eq(orderItems.orderId, id), sql`exists (select 1 from orders o where o.id = ${id} and o.store_id = ${storeId})`))
      .orderBy(asc(orderItems.id)),
  ]);
  const row = rows[0];
  if (!row) return null;
  return { order: row.order, items, sourceEnabled: row.sourceEnabled, maskBuyerPii: store[0]?.maskBuyerPii ?? false };
}
