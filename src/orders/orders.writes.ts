// Every statement that writes orders and order_items: InsertOrder, the import of a marketplace
// page, the order moves (with their outbox row in the same batch), and what the sync and the
// sources admin change on orders. Reads stay in orders.queries.ts. Each write carries its
// webhook events' statements (src/webhooks/webhook-deliveries.queries.ts) in its own batch.
//
// Both ways an order is created (a client's InsertOrder, a marketplace import) go through the
// same statement shape: each order travels as one JSON array holding the values of ORDER_FIELDS
// in that order (each line likewise, ITEM_FIELDS), unpacked by json_each, so the column list is
// written once below and D1's 100-parameter limit never applies, whatever the number of items.
// Arrays, not objects keyed by field: SQLite finds `->> 5` without comparing key names, and the
// page's JSON carries no names; the import's upsert took half the time it took with named keys.
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { orderItems, orders, type OrderRow } from "../db/schema";
import { deleteRowsOfOrders, enqueueAfterChange } from "../outbox/outbox.queries";
import { deleteRefundsOfOrders } from "../refunds/refunds.queries";
import { deleteReturnsOfOrders } from "../returns/returns.queries";
import { importedEventsAfter, importedEventsBefore, orderCreatedEvents, orderMovedEvents, toD1, wokenBy } from "../webhooks/webhook-deliveries.queries";
import { cancelledAtMarketplace, stockBackByCancelStatement, stockBackByImportStatement, stockTakenByImportStatement, stockTakenStatement } from "../products/products.queries";
import type { Move } from "./order-moves";
import type { InsertOrderBody } from "./orders.schemas";

/** The columns an order write takes, in the order of its JSON array: the one column list of an order. */
const ORDER_FIELDS = [
  "orderSourceOrderNumber",
  "orderSourceCustomerOrderNumber",
  "orderDestinationOrderNumber",
  "status",
  "sourceOrderStatus",
  "buyerEmailAddress",
  "buyerPhoneNumber",
  "buyerUserId",
  "firstName",
  "lastName",
  "shipToCompanyName",
  "street1",
  "street2",
  "city",
  "stateOrProvince",
  "postalCode",
  "country",
  "shippingMethod",
  "shippingServiceName",
  "shippingServiceValue",
  "destinationShippingCarrier",
  "paymentType",
  "paymentTransactionId",
  "isMarketplacePrime",
  "grandTotal",
  "subTotal",
  "shippingTotal",
  "shippingTaxTotal",
  "giftWrapTotal",
  "giftWrapTaxTotal",
  "shipmentTrackingNumber",
  "syncUserErrorMessage",
  "sourceData",
  "dateCreatedInOrderSource",
  "dateCreatedInDestination",
  "dateShipped",
] as const satisfies readonly (keyof OrderRow)[];

/** The same for an item. */
const ITEM_FIELDS = ["sourceLineId", "sku", "name", "quantity", "unitPrice", "saleTaxCost", "discount"] as const satisfies readonly (keyof typeof orderItems.$inferSelect)[];

export type OrderValues = Pick<OrderRow, (typeof ORDER_FIELDS)[number]>;
export type ItemValues = Pick<typeof orderItems.$inferSelect, (typeof ITEM_FIELDS)[number]>;
/** One order as its write statement reads it: the order's values and its items. */
export type OrderWrite = OrderValues & { items: ItemValues[] };

const orderColumns = getTableColumns(orders);
const itemColumns = getTableColumns(orderItems);
const ORDER_COLUMN_LIST = ORDER_FIELDS.map((f) => orderColumns[f].name).join(", ");
const ITEM_COLUMN_LIST = ITEM_FIELDS.map((f) => itemColumns[f].name).join(", ");

/** An order's values as the JSON array the statements read: ORDER_FIELDS' order. */
const orderTuple = (order: OrderValues): unknown[] => ORDER_FIELDS.map((f) => order[f]);
/** The SQL reading an order tuple `o` back, column by column. */
const orderValueList = (o: string) => ORDER_FIELDS.map((_, i) => `${o} ->> ${i}`).join(", ");
/** A line as its JSON array, after `prefix` (the import puts the order's number first). */
const itemTuple = (item: ItemValues, ...prefix: unknown[]): unknown[] => [...prefix, ...ITEM_FIELDS.map((f) => item[f])];
/** The SQL reading a line tuple back; `from` skips its prefix. */
const itemValueList = (line: string, from = 0) => ITEM_FIELDS.map((_, i) => `${line} ->> ${i + from}`).join(", ");
/** Where an imported line holds its marketplace line id (its order's number is at 0). */
const LINE_ID_AT = 1 + ITEM_FIELDS.indexOf("sourceLineId");

// ---------------------------------------------------------------------------------------------
// InsertOrder

/** `webhooks`: the endpoints the order's event was recorded for (their senders are to be woken). */
export type InsertResult = { inserted: true; orderId: number; webhooks: string[] } | { inserted: false; existingOrderId: number };

// An inserted order whose OrderSource names a source of the store syncs with that source.
const INSERT_ORDER = `insert into orders (store_id, source_id, order_source, ${ORDER_COLUMN_LIST}, date_updated)
  select ?1, (select id from sources where store_id = ?1 and name = ?2), ?2, ${orderValueList("o")}, ?3
  from (select value as o from json_each(?4))`;

// Items keep the order they were sent in (json_each walks the array in order).
const INSERT_ORDER_ITEMS = `insert into order_items (order_id, ${ITEM_COLUMN_LIST})
  select (select id from orders where store_id = ?1 and order_source = ?2 and order_source_order_number = ?3), ${itemValueList("line.value")}
  from json_each(?4) as line order by line.key`;

export async function insertOrder(db: Db, storeId: string, body: InsertOrderBody, now: number): Promise<InsertResult> {
  const write = insertedOrder(body, now);
  const key = and(
    eq(orders.storeId, storeId),
    eq(orders.orderSource, body.OrderSource),
    eq(orders.orderSourceOrderNumber, body.OrderSourceOrderNumber),
  );
  const { items, ...head } = write;
  const d1 = db.$client;
  let events: D1Result;
  try {
    // One batch: the order, its items, its webhook events and the stock they take land together
    // or not at all (a duplicate's unique violation undoes the stock too).
    [, , events] = await d1.batch([
      d1.prepare(INSERT_ORDER).bind(storeId, body.OrderSource, now, JSON.stringify([orderTuple(head)])),
      d1.prepare(INSERT_ORDER_ITEMS).bind(storeId, body.OrderSource, body.OrderSourceOrderNumber, JSON.stringify(items.map((item) => itemTuple(item)))),
      toD1(db, orderCreatedEvents(db, { storeId, orderSource: body.OrderSource, orderSourceOrderNumber: body.OrderSourceOrderNumber }, now)),
      ...(head.status === "Canceled" ? [] : [stockTakenStatement(d1, storeId, items.map((item) => [item.sku, item.quantity]))]),
    ]) as [D1Result, D1Result, D1Result];
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await db.select({ id: orders.id }).from(orders).where(key).get();
    if (!existing) throw error;
    return { inserted: false, existingOrderId: existing.id };
  }
  const created = await db.select({ id: orders.id }).from(orders).where(key).get();
  return { inserted: true, orderId: created!.id, webhooks: wokenBy(events) };
}

function insertedOrder(body: InsertOrderBody, now: number): OrderWrite {
  const status = body.OrderStatus ?? "New";
  return {
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
    sourceData: null,
    dateCreatedInOrderSource: body.DateCreatedInOrderSource,
    dateCreatedInDestination: body.DateCreatedInDestination ?? (body.OrderDestinationOrderNumber ? now : null),
    dateShipped: body.DateShipped ?? null,
    items: body.OrderItems.map((item) => ({
      sourceLineId: null,
      sku: item.Sku,
      name: item.Name,
      quantity: item.Quantity,
      unitPrice: item.UnitPrice,
      saleTaxCost: item.SaleTaxCost ?? 0,
      discount: item.Discount ?? "0",
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Import of a marketplace page. Orders are keyed by the source, not by a name read earlier: the
// name is read inside the statement (`select name from sources where id = ?`), so a source
// renamed while its cycle runs (the rename moves its orders' OrderSource in one batch) never gets
// an order twice, and a source deleted meanwhile gets nothing.

const SOURCE_NAME = `(select name from sources where id = ?2)`;

/** How many of the page's orders the source already has (run first in the page's batch). */
const COUNT_KNOWN_ORDERS = `select count(*) as n from orders
  where store_id = ?1 and order_source = ${SOURCE_NAME} and order_source_order_number in (select value from json_each(?3))`;

// A new order starts New. A known one only takes the marketplace's status word and facts (the
// client owns OrderStatus), and an order inserted by a client under this source's name before the
// source existed (or claimed by a source since deleted) is claimed by it.
const UPSERT_IMPORTED_ORDERS = `insert into orders (store_id, source_id, order_source, ${ORDER_COLUMN_LIST}, date_updated)
  select ?1, ?2, ${SOURCE_NAME}, ${orderValueList("o")}, ?4
  from (select value as o from json_each(?3)) where exists (select 1 from sources where id = ?2)
  on conflict (store_id, order_source, order_source_order_number) do update set
    source_order_status = excluded.source_order_status,
    source_data = coalesce(excluded.source_data, orders.source_data),
    source_id = case when orders.source_id is null or not exists (select 1 from sources where id = orders.source_id)
      then excluded.source_id else orders.source_id end,
    date_updated = max(excluded.date_updated, orders.date_updated + 1)
  where orders.source_order_status is not excluded.source_order_status
    or orders.source_data is not coalesce(excluded.source_data, orders.source_data)
    or orders.source_id is null or not exists (select 1 from sources where id = orders.source_id)`;

// Lines are matched by the marketplace's line id, so a page written again adds none twice; an
// order a client inserted (its lines have no marketplace id) keeps the client's lines only. The
// upsert and this insert share the batch, so no order is ever seen without its lines. The page's
// lines come flat, each led by its order's number, in the page's order; CROSS JOIN pins the loop
// order (SQLite never reorders it): lines first, then one index probe per line. Left to the
// planner, it scanned every order of the source once per page, quadratic in the source's size
// (a 10,000-order import took minutes).
const INSERT_IMPORTED_ITEMS = `insert into order_items (order_id, ${ITEM_COLUMN_LIST})
  select orders.id, ${itemValueList("line.value", 1)}
  from json_each(?3) as line
    cross join orders
  where orders.store_id = ?1 and orders.order_source = ${SOURCE_NAME} and orders.order_source_order_number = line.value ->> 0
    and not exists (select 1 from order_items as known
      where known.order_id = orders.id and (known.source_line_id = line.value ->> ${LINE_ID_AT} or known.source_line_id is null))`;

/**
 * The statements that write one page of imported orders (bind order fixed here), with the
 * order.created events of the new ones. The first answers how many of them the source already
 * had. The stock statements run before the upsert: new orders (not cancelled on arrival) take
 * their lines, known orders the marketplace now says are cancelled give theirs back (decisions
 * 11), each once.
 */
export function importPageStatements(db: Db, source: { storeId: string; id: string }, page: OrderWrite[], now: number): D1PreparedStatement[] {
  const rows = JSON.stringify(page.map(orderTuple));
  const lines = JSON.stringify(page.flatMap((order) => order.items.map((item) => itemTuple(item, order.orderSourceOrderNumber))));
  const cancelled = page.filter((order) => cancelledAtMarketplace(order.sourceOrderStatus));
  const taking = page.filter((order) => !cancelledAtMarketplace(order.sourceOrderStatus));
  const d1 = db.$client;
  const numbers = page.map((order) => order.orderSourceOrderNumber);
  return [
    d1.prepare(COUNT_KNOWN_ORDERS).bind(source.storeId, source.id, JSON.stringify(numbers)),
    importedEventsBefore(db, source, numbers, now),
    stockTakenByImportStatement(d1, source.storeId, source.id, taking.flatMap((order) => order.items.map((item): [string, string, number] => [order.orderSourceOrderNumber, item.sku, item.quantity]))),
    ...(cancelled.length > 0 ? [stockBackByImportStatement(d1, source.storeId, source.id, cancelled.map((order) => order.orderSourceOrderNumber))] : []),
    d1.prepare(UPSERT_IMPORTED_ORDERS).bind(source.storeId, source.id, rows, now),
    ...importedEventsAfter(db, source, now),
    d1.prepare(INSERT_IMPORTED_ITEMS).bind(source.storeId, source.id, lines),
  ];
}

// ---------------------------------------------------------------------------------------------
// Moves (acknowledge, ship, cancel) and what the sync and the sources admin change on orders.

/**
 * Applies a move if the order is still as it was read (same dateUpdated and status), together
 * with its outbox row and its webhook event, in one batch. Returns false when another request
 * changed the order first (the caller re-reads and decides again), else the endpoints to wake.
 */
export async function applyMove(db: Db, order: OrderRow, move: Move, now: number): Promise<false | { webhooks: string[] }> {
  if (move.kind === "none") return { webhooks: [] };
  const guard = and(eq(orders.id, order.id), eq(orders.dateUpdated, order.dateUpdated), eq(orders.status, order.status));
  // dateUpdated only moves forward, so the guard of the next move always differs from this one's.
  const updatedAt = Math.max(now, order.dateUpdated + 1);
  // Whether it applied is read from RETURNING: D1's meta.changes counts the rows the orders
  // triggers write as well (a status move reported 5), so it cannot say.
  const update = db.update(orders).set({ ...move.set, dateUpdated: updatedAt }).where(guard).returning({ id: orders.id });
  const d1 = db.$client;
  // A cancellation gives the order's stock back, and every move records its webhook event, both
  // under the same guard as the move and before it.
  const stock = move.set.status === "Canceled" ? [stockBackByCancelStatement(d1, order)] : [];
  const events = toD1(db, orderMovedEvents(db, move.event, order, move.set.status ?? order.status, now));
  if (!move.delivery || !order.sourceId) {
    const update$ = update.toSQL();
    const results = await d1.batch([...stock, events, d1.prepare(update$.sql).bind(...update$.params)]);
    return results.at(-1)!.results.length === 1 && { webhooks: wokenBy(results.at(-2)) };
  }
  const sourceId = order.sourceId;
  // The outbox row is written only if the update happened: changes() still reports it there,
  // inside the same batch (one transaction, one connection). When the order's source is gone the
  // row is failed at once, and the order says why.
  const enqueue = enqueueAfterChange(db, { storeId: order.storeId, sourceId, orderId: order.id, payload: move.delivery, at: updatedAt });
  const orphaned = db
    .update(orders)
    .set({ syncUserErrorMessage: sql`(select last_error from outbox where order_id = ${order.id} order by id desc limit 1)` })
    .where(and(eq(orders.id, order.id), eq(orders.dateUpdated, updatedAt), sql`not exists (select 1 from sources where id = ${sourceId})`))
    .toSQL();
  const update$ = update.toSQL();
  // Straight to D1: drizzle's batch cannot carry a raw `db.run(sql)` statement (it has no
  // prepared statement to bind, and the whole batch failed with a TypeError).
  const results = await d1.batch([
    ...stock,
    events,
    d1.prepare(update$.sql).bind(...update$.params),
    ...enqueue,
    d1.prepare(orphaned.sql).bind(...orphaned.params),
  ]);
  return results[stock.length + 1]!.results.length === 1 && { webhooks: wokenBy(results[stock.length]) };
}

/** A delivery failed for good: the order says what the marketplace answered, and dateUpdated moves so polls see it. */
export function markDeliveryFailed(db: Db, orderId: number, message: string, now: number) {
  return db
    .update(orders)
    .set({ syncUserErrorMessage: message, dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
    .where(eq(orders.id, orderId));
}

/** The operator retries failed deliveries: the orders' messages clear. `orderIds` is a subquery. */
export function clearSyncErrors(db: Db, orderIds: ReturnType<typeof sql>, now: number) {
  return db
    .update(orders)
    .set({ syncUserErrorMessage: null, dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
    .where(sql`${orders.id} in ${orderIds}`);
}

/** Sets the message on the orders of a subquery (a deleted source's undelivered rows). */
export function setSyncErrors(db: Db, orderIds: ReturnType<typeof sql>, message: string, now: number) {
  return db
    .update(orders)
    .set({ syncUserErrorMessage: message, dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
    .where(sql`${orders.id} in ${orderIds}`);
}

/** An order's OrderSource is its source's Name: a rename carries the orders along, in the rename's batch. */
export function renameOrderSource(db: Db, sourceId: string, name: string) {
  return db.update(orders).set({ orderSource: name }).where(eq(orders.sourceId, sourceId));
}

/**
 * One batch of a deleted store's purge: its first `limit` orders with their lines, outbox rows,
 * refunds and returns, in one transaction (those first: they reference the orders). The last
 * statement answers the orders that went (D1's `changes` also counts what triggers wrote).
 */
export function purgeOrdersStatements(db: Db, storeId: string, limit: number) {
  const batch = sql`(select ${orders.id} from ${orders} where ${orders.storeId} = ${storeId} order by ${orders.id} limit ${limit})`;
  return [
    // Refunds name returns, and both name lines: they go first.
    ...deleteRefundsOfOrders(db, batch),
    ...deleteReturnsOfOrders(db, batch),
    deleteRowsOfOrders(db, batch),
    db.delete(orderItems).where(sql`${orderItems.orderId} in ${batch}`),
    db.delete(orders).where(sql`${orders.id} in ${batch}`).returning({ id: orders.id }),
  ] as const;
}

// ---------------------------------------------------------------------------------------------
// The sync benchmark's (bench/sync-bench.routes.ts): its baseline and its delivery setup

/**
 * The baseline the page write is measured against: one order (the same values an import writes)
 * as two plain drizzle inserts, no upsert and no JSON packing. Its lines find their order by key,
 * as InsertOrder's do.
 */
export function plainInsertStatements(db: Db, storeId: string, orderSource: string, write: OrderWrite, now: number) {
  const { items, ...order } = write;
  const orderId = sql`(select ${orders.id} from ${orders} where ${orders.storeId} = ${storeId} and ${orders.orderSource} = ${orderSource} and ${orders.orderSourceOrderNumber} = ${order.orderSourceOrderNumber})`;
  return [
    db.insert(orders).values({ ...order, storeId, orderSource, dateUpdated: now }),
    db.insert(orderItems).values(items.map((item) => ({ orderId, ...item }))),
  ] as const;
}

/**
 * Up to `count` New orders of the source put in Processing as AcknowledgeOrder would (numbered
 * BENCH-<id>, updated at `now`), without the outbox row: outbox.queries.ts's
 * enqueueAcknowledgementsOf adds those, in the same batch.
 */
export function markProcessingForBench(db: Db, sourceId: string, count: number, now: number): D1PreparedStatement {
  return db.$client
    .prepare(
      `update orders set status = 'Processing', order_destination_order_number = 'BENCH-' || id, date_updated = ?1
           where id in (select id from orders where source_id = ?2 and status = 'New' order by id limit ?3)`,
    )
    .bind(now, sourceId, count);
}

/**
 * The order changed in a way its answer shows (a refund recorded: its Refunds), so a client polling
 * by DateUpdated sees it: DateUpdated moves, when `guard` holds in the batch.
 */
export function touchOrderWhen(db: Db, orderId: number, guard: ReturnType<typeof sql>, now: number) {
  return db
    .update(orders)
    .set({ dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
    .where(and(eq(orders.id, orderId), guard));
}

/** The same for the orders of a subquery (an import's refunds). */
export function touchOrdersIn(db: Db, orderIds: ReturnType<typeof sql>, now: number) {
  return db
    .update(orders)
    .set({ dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
    .where(sql`${orders.id} in ${orderIds}`);
}
