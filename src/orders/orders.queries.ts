// Every order read and write. Each function takes `db` and is tested directly as well as
// through the routes. Reads that need several statements go in one db.batch (one round trip);
// writes that change several rows go in one db.batch (all or nothing).
import { and, asc, between, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { orderItems, orders, outbox, sources, stores, type OrderItemRow, type OrderRow } from "../db/schema";
import type { Move } from "./order-moves";
import type { InsertOrderBody, OrderFilter, OrderListQuery, OrderSortField } from "./orders.schemas";

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

export type InsertResult = { inserted: true; orderId: number } | { inserted: false; existingOrderId: number };

/**
 * D1 allows 100 bound parameters a statement; an item row binds 9 (six values and the three of
 * the order-id subquery). test/orders.insert.test.ts counts them.
 */
const ITEMS_PER_STATEMENT = Math.floor(100 / 9);

export async function insertOrder(db: Db, storeId: string, body: InsertOrderBody, now: number): Promise<InsertResult> {
  const status = body.OrderStatus ?? "New";
  const key = and(
    eq(orders.storeId, storeId),
    eq(orders.orderSource, body.OrderSource),
    eq(orders.orderSourceOrderNumber, body.OrderSourceOrderNumber),
  );
  const orderIdOf = sql`(select ${orders.id} from ${orders} where ${key})`;
  const insertHead = db.insert(orders).values({
    storeId,
    // An inserted order whose OrderSource names a source of the store syncs with that source.
    sourceId: sql`(select ${sources.id} from ${sources} where ${sources.storeId} = ${storeId} and ${sources.name} = ${body.OrderSource})`,
    orderSource: body.OrderSource,
    orderSourceOrderNumber: body.OrderSourceOrderNumber,
    orderSourceCustomerOrderNumber: body.OrderSourceCustomerOrderNumber ?? null,
    orderDestinationOrderNumber: body.OrderDestinationOrderNumber ?? null,
    status,
    sourceOrderStatus: status,
    buyerEmailAddress: body.BuyerEmailAddress,
    buyerPhoneNumber: body.BuyerPhoneNumber,
    buyerUserId: body.BuyerUserId ?? null,
    firstName: body.FirstName,
    lastName: body.LastName,
    shipToCompanyName: body.ShipToCompanyName,
    street1: body.Street1,
    street2: body.Street2 ?? "",
    city: body.City,
    stateOrProvince: body.StateOrProvince,
    postalCode: body.PostalCode,
    country: body.Country,
    shippingMethod: body.ShippingMethod,
    shippingServiceName: body.ShippingServiceName ?? "",
    shippingServiceValue: body.ShippingServiceValue ?? "",
    destinationShippingCarrier: body.DestinationShippingCarrier ?? "",
    paymentType: body.PaymentType ?? null,
    paymentTransactionId: body.PaymentTransactionId ?? null,
    isMarketplacePrime: body.IsMarketplacePrime ?? false,
    grandTotal: body.GrandTotal,
    subTotal: body.SubTotal,
    shippingTotal: body.ShippingTotal ?? 0,
    shippingTaxTotal: body.ShippingTaxTotal ?? 0,
    giftWrapTotal: body.GiftWrapTotal ?? 0,
    giftWrapTaxTotal: body.GiftWrapTaxTotal ?? 0,
    shipmentTrackingNumber: body.ShipmentTrackingNumber ?? null,
    syncUserErrorMessage: body.SyncUserErrorMessage ?? null,
    dateCreatedInOrderSource: body.DateCreatedInOrderSource,
    dateCreatedInDestination: body.DateCreatedInDestination ?? (body.OrderDestinationOrderNumber ? now : null),
    dateShipped: body.DateShipped ?? null,
    dateUpdated: now,
  });
  const itemStatements = chunk(body.OrderItems, ITEMS_PER_STATEMENT).map((part) =>
    db.insert(orderItems).values(
      part.map((item) => ({
        orderId: orderIdOf,
        sku: item.Sku,
        name: item.Name,
        quantity: item.Quantity,
        unitPrice: item.UnitPrice,
        saleTaxCost: item.SaleTaxCost ?? 0,
        discount: item.Discount ?? "0",
      })),
    ),
  );
  try {
    // One batch: the order and its items land together or not at all.
    await db.batch([insertHead, ...itemStatements]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await db.select({ id: orders.id }).from(orders).where(key).get();
    if (!existing) throw error;
    return { inserted: false, existingOrderId: existing.id };
  }
  const created = await db.select({ id: orders.id }).from(orders).where(key).get();
  return { inserted: true, orderId: created!.id };
}

export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (/UNIQUE constraint failed/i.test(e.message)) return true;
  }
  return false;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Applies a move if the order is still as it was read (same dateUpdated and status), together
 * with its outbox row, in one batch. Returns false when another request changed the order first;
 * the caller re-reads and decides again.
 */
export async function applyMove(db: Db, order: OrderRow, move: Move, now: number): Promise<boolean> {
  if (move.kind === "none") return true;
  const guard = and(eq(orders.id, order.id), eq(orders.dateUpdated, order.dateUpdated), eq(orders.status, order.status));
  // dateUpdated only moves forward, so the guard of the next move always differs from this one's.
  const updatedAt = Math.max(now, order.dateUpdated + 1);
  const update = db.update(orders).set({ ...move.set, dateUpdated: updatedAt }).where(guard);
  if (!move.delivery || !order.sourceId) {
    const [result] = await db.batch([update]);
    return result.meta.changes === 1;
  }
  // The outbox row is written only if the update happened: changes() still reports it here,
  // inside the same batch (one transaction, one connection).
  const enqueue = dialect.sqlToQuery(sql`insert into ${outbox} (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, created_at)
    select ${order.storeId}, ${order.sourceId}, ${order.id}, ${move.delivery.kind}, ${JSON.stringify(move.delivery.payload)}, 'pending', 0, ${updatedAt}, ${updatedAt}
    where changes() = 1`);
  // Straight to D1: drizzle's batch cannot carry a raw `db.run(sql)` statement (it has no
  // prepared statement to bind, and the whole batch failed with a TypeError).
  const [result] = await db.$client.batch([statement(db, update.toSQL()), statement(db, enqueue)]);
  return result!.meta.changes === 1;
}

const dialect = new SQLiteAsyncDialect();

function statement(db: Db, query: { sql: string; params: unknown[] }): D1PreparedStatement {
  return db.$client.prepare(query.sql).bind(...query.params);
}

/**
 * The operator's search (console): orders of a store whose marketplace number, seller number or
 * OrderId is exactly `number`, newest first. Reads the store's orders through (store, date); an
 * operator's lookup, not a client's hot path.
 */
export async function findOrdersByNumber(db: Db, storeId: string, number: string, limit: number): Promise<OrderPage> {
  const id = /^[1-9]\d{0,15}$/.test(number) ? Number(number) : -1;
  const [store, rows] = await db.batch([
    storeSettings(db, storeId),
    db
      .select({ order: orders, sourceEnabled: sources.enabled })
      .from(orders)
      .leftJoin(sources, eq(sources.id, orders.sourceId))
      .where(
        and(
          eq(orders.storeId, storeId),
          sql`(${orders.orderSourceOrderNumber} = ${number} or ${orders.orderDestinationOrderNumber} = ${number} or ${orders.id} = ${id})`,
        ),
      )
      .orderBy(desc(orders.dateCreatedInOrderSource), desc(orders.id))
      .limit(limit),
  ]);
  const ids = rows.map((r) => r.order.id);
  const items = ids.length ? await db.select().from(orderItems).where(inArray(orderItems.orderId, ids)).orderBy(asc(orderItems.id)) : [];
  return {
    maskBuyerPii: store[0]?.maskBuyerPii ?? false,
    orders: rows.map((r) => ({ order: r.order, items: items.filter((i) => i.orderId === r.order.id), sourceEnabled: r.sourceEnabled })),
  };
}

/** An order's outbox rows (what is or was to be told to its marketplace), oldest first. */
export async function orderDeliveries(db: Db, storeId: string, orderId: number) {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.orderId, orderId), eq(outbox.storeId, storeId)))
    .orderBy(asc(outbox.id));
}
