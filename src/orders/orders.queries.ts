// Every order read. Each function takes `db` and is tested directly as well as through the
// routes. Reads that need several statements go in one db.batch (one round trip). Writes live
// in orders.writes.ts.
import { and, asc, count, desc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { idIn } from "../db/sql";
import { keysetPageStatement } from "../db/keyset";
import type { PageStart } from "../lib/cursor";
import { lineChanges, orderItems, orders, sources, type LineChangeRow, type OrderItemRow, type OrderRow } from "../db/schema";
import { maskSettingOf, ordersStoredOf } from "../stores/stores.queries";
import type { OrderFilter, OrderListQuery, OrderSortField } from "./orders.schemas";
import type { OrderState } from "./order-moves";

export interface OrderView {
  order: OrderRow;
  items: OrderItemRow[];
  /** Its packages (line changes of kind ship), in the order they were made. */
  packages: LineChangeRow[];
  sourceEnabled: boolean | null;
}

const dialect = new SQLiteAsyncDialect();

const DAY_MS = 86_400_000;
const dayStart = (ms: number) => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);

const DATE_COLUMN = { created: "date_created_in_order_source", updated: "date_updated" } as const;

/** The index whose leading columns are the filter's equalities; `what` is created, updated, id or total. */
const indexOf = (status: string | undefined, what: "created" | "updated" | "id" | "total") => `orders_store_${status ? "status_" : ""}${what}`;

/**
 * A count reads no more than two days of orders whatever the range: whole UTC days come from
 * order_day_counts (kept by triggers with every change), and only the partial days at the two
 * edges are counted in orders through the (store, [status,] date) index. A count by
 * fulfillmentStatus (decisions 12) has no day buckets: it counts the range through the (store,
 * fulfillment, date) index, reading one index entry per order of the range.
 */
export function countStatement(storeId: string, filter: OrderFilter): { sql: string; params: unknown[] } {
  const column = DATE_COLUMN[filter.dateField];
  if (filter.fulfillmentStatus) {
    const params: unknown[] = [storeId, filter.fulfillmentStatus, ...(filter.status ? [filter.status] : []), filter.fromDate, filter.toDate];
    return {
      sql:
        `select count(*) as n from orders indexed by orders_store_fulfillment_${filter.dateField} where store_id = ? and fulfillment_status = ` +
        `?${filter.status ? " and status = ?" : ""} and ${column} between ? and ?`,
      params,
    };
  }
  const index = indexOf(filter.status, filter.dateField);
  const params: unknown[] = [];
  const edge = (from: number, to: number) => {
    params.push(storeId, ...(filter.status ? [filter.status] : []), from, to);
    return `(select count(*) from orders indexed by ${index} where store_id = ?${filter.status ? " and status = ?" : ""} and ${column} between ? and ?)`;
  };
  // Whole days are [firstDay, endDay): the first day starting at or after fromDate, up to the
  // start of the day that toDate does not reach the end of.
  const firstDay = dayStart(filter.fromDate) === filter.fromDate ? filter.fromDate : dayStart(filter.fromDate) + DAY_MS;
  const endDay = dayStart(filter.toDate + 1);
  if (firstDay >= endDay) return { sql: `select ${edge(filter.fromDate, filter.toDate)} as n`, params };
  params.push(storeId, filter.dateField === "updated" ? "u" : "c", firstDay, endDay, ...(filter.status ? [filter.status] : []));
  const days =
    `(select coalesce(sum(n), 0) from order_day_counts where store_id = ? and field = ? and day >= ? and day < ` +
    `?${filter.status ? " and status = ?" : ""})`;
  return { sql: `select ${days} + ${edge(filter.fromDate, firstDay - 1)} + ${edge(endDay, filter.toDate)} as n`, params };
}

export async function countOrders(db: Db, storeId: string, filter: OrderFilter): Promise<number> {
  const { sql: text, params } = countStatement(storeId, filter);
  const row = await db.$client
    .prepare(text)
    .bind(...params)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Each sort: the row's field it orders by, and the index that yields rows in its order (id breaks ties). */
const SORTS: Record<OrderSortField, { key: keyof OrderRow; index: (q: OrderFilter) => string }> = {
  DateCreatedInOrderSource: { key: "dateCreatedInOrderSource", index: (q) => indexOf(q.status, "created") },
  DateUpdated: { key: "dateUpdated", index: (q) => indexOf(q.status, "updated") },
  OrderId: { key: "id", index: (q) => indexOf(q.status, "id") },
  GrandTotal: { key: "grandTotal", index: (q) => indexOf(q.status, "total") },
  // (store, status, id) is in status order, and with a status filter in id order.
  OrderStatus: { key: "status", index: () => "orders_store_status_id" },
};

/** A sort's SQL column, as the schema names its field. */
const sortColumn = (sortBy: OrderSortField): string => orders[SORTS[sortBy].key].name;

/**
 * The ids of one page, walked in sort order along the sort's own index (src/db/keyset.ts), so a
 * page reads about pageSize rows whatever the store's size. INDEXED BY pins the index: without
 * statistics the planner would rather read the whole date range and sort it
 * (test/orders/orders.query-plan.test.ts).
 */
export function listStatement(
  storeId: string,
  query: OrderListQuery,
  limit: number,
  start: PageStart,
  plan: "sort index" | "date index" = "sort index",
): { sql: string; params: unknown[] } {
  return keysetPageStatement(
    {
      table: "orders",
      alias: "o",
      // By fulfillment (decisions 12): its (store, fulfillment, date) index, walked in order for a
      // sort by that date, read over the range and sorted for any other sort (planFor).
      index: query.fulfillmentStatus
        ? `orders_store_fulfillment_${query.dateField}`
        : plan === "date index"
          ? indexOf(query.status, query.dateField)
          : SORTS[query.sortBy].index(query),
      storeId,
      equals: [
        ...(query.fulfillmentStatus ? [["fulfillment_status", query.fulfillmentStatus] as [string, string]] : []),
        ...(query.status ? [["status", query.status] as [string, string]] : []),
      ],
      dateColumn: DATE_COLUMN[query.dateField],
      fromDate: query.fromDate,
      toDate: query.toDate,
      sortColumn: sortColumn(query.sortBy),
      direction: query.sortDirection,
      project: (dir) => `select o.*, s.enabled as source_enabled from page join orders o on o.id = page.id
      left join sources s on s.id = o.source_id order by page.sk ${dir}, page.id ${dir}`,
    },
    limit,
    start,
  );
}

const ORDER_COLUMNS = Object.entries(getTableColumns(orders));

/** A raw `orders` row (SQL column names) as drizzle would have mapped it. */
function toOrderRow(raw: Record<string, unknown>): OrderRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of ORDER_COLUMNS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as OrderRow;
}

export interface OrderListPage {
  maskBuyerPii: boolean;
  rows: { order: OrderRow; sourceEnabled: boolean | null }[];
  /** The last row's sort value and id when another page follows; null on the last page. */
  next: { value: string | number; id: number } | null;
}

/**
 * Which index serves a sort other than the filtered date. Walking the sort's index reads about
 * pageSize x (store / range) rows before a page of the range has passed; reading the range through
 * the date index and sorting it reads the range. For a narrow range of a big store (the last hour,
 * by GrandTotal) the range is the smaller read; for a wide one the walk is. Both figures are
 * cheap: the count comes from day buckets, the store's size from store_usage.
 */
export async function planFor(db: Db, storeId: string, query: OrderListQuery, pageSize: number): Promise<"sort index" | "date index"> {
  if (sortColumn(query.sortBy) === DATE_COLUMN[query.dateField]) return "sort index";
  if (query.fulfillmentStatus) return "date index";
  const range = countStatement(storeId, query);
  const size = ordersStoredOf(db, storeId).toSQL();
  const d1 = db.$client;
  const [inRange, stored] = await d1.batch<Record<string, number>>([d1.prepare(range.sql).bind(...range.params), d1.prepare(size.sql).bind(...size.params)]);
  // Each answers one number, under whatever name its SQL gave the column.
  const first = (rows: Record<string, number>[]) => Number(Object.values(rows[0] ?? {})[0] ?? 0);
  return choosePlan(first(inRange!.results), first(stored!.results), pageSize);
}

/** The date index when reading the range is less than walking the sort's index for a page of it. */
export function choosePlan(inRange: number, stored: number, pageSize: number): "sort index" | "date index" {
  return inRange * inRange < pageSize * stored ? "date index" : "sort index";
}

/** One page of orders without their items (see orderItemsOf). */
export async function listOrders(db: Db, storeId: string, query: OrderListQuery, pageSize: number, start: PageStart): Promise<OrderListPage> {
  const plan = await planFor(db, storeId, query, pageSize);
  const { sql: text, params } = listStatement(storeId, query, pageSize + 1, start, plan);
  const d1 = db.$client;
  const mask = maskSettingOf(db, storeId).toSQL();
  const [store, page] = await d1.batch<Record<string, unknown>>([d1.prepare(mask.sql).bind(...mask.params), d1.prepare(text).bind(...params)]);
  const raw = page!.results;
  const more = raw.length > pageSize;
  const rows = raw.slice(0, pageSize).map((r) => ({
    order: toOrderRow(r),
    sourceEnabled: r.source_enabled === null || r.source_enabled === undefined ? null : Boolean(r.source_enabled),
  }));
  const last = rows.at(-1)?.order;
  const sortKey = SORTS[query.sortBy].key;
  return {
    maskBuyerPii: Boolean(store!.results[0]?.mask_buyer_pii),
    rows,
    next: more && last ? { value: last[sortKey] as string | number, id: last.id } : null,
  };
}

/** A slice of a page's orders with their items and their packages, by order id. */
export interface OrderLinesSlice {
  ids: number[];
  items: Map<number, OrderItemRow[]>;
  packages: Map<number, LineChangeRow[]>;
}

function groupBy<T extends { orderId: number }>(rows: T[]): Map<number, T[]> {
  const byOrder = new Map<number, T[]>();
  for (const row of rows) {
    const list = byOrder.get(row.orderId);
    if (list) list.push(row);
    else byOrder.set(row.orderId, [row]);
  }
  return byOrder;
}

/**
 * The items and packages (decisions 12) of a page's orders, at most `budget` items a call: orders
 * are taken in page order while their items fit (an order with more than the budget is read
 * alone), so an answer of 100 orders with 500 items each is read and written a slice at a time.
 * Each read is one batch of two statements (items, packages), whatever the number of orders.
 */
export async function* orderItemsOf(db: Db, orderIds: number[], budget: number): AsyncGenerator<OrderLinesSlice> {
  if (orderIds.length === 0) return;
  const among = (ids: number[]) => idIn(orderItems.orderId, ids);
  const read = async (ids: number[], limit: number) => {
    const [items, packages] = await db.batch([
      db.select().from(orderItems).where(among(ids)).orderBy(asc(orderItems.orderId), asc(orderItems.id)).limit(limit),
      db
        .select()
        .from(lineChanges)
        .where(and(idIn(lineChanges.orderId, ids), eq(lineChanges.kind, "ship")))
        .orderBy(asc(lineChanges.orderId), asc(lineChanges.seq)),
    ]);
    return { items, packages: groupBy(packages) };
  };
  // The common page (a few items an order) is one read.
  const all = await read(orderIds, budget + 1);
  if (all.items.length <= budget) {
    yield { ids: orderIds, items: groupBy(all.items), packages: all.packages };
    return;
  }
  const counts = new Map(
    (await db.select({ orderId: orderItems.orderId, n: count() }).from(orderItems).where(among(orderIds)).groupBy(orderItems.orderId)).map((r) => [
      r.orderId,
      r.n,
    ]),
  );
  let slice: number[] = [];
  let size = 0;
  const readSlice = async (ids: number[], n: number): Promise<OrderLinesSlice> => {
    const part = await read(ids, Math.max(n, 1));
    return { ids, items: groupBy(part.items), packages: part.packages };
  };
  for (const id of orderIds) {
    const n = counts.get(id) ?? 0;
    if (slice.length > 0 && size + n > budget) {
      yield await readSlice(slice, size);
      slice = [];
      size = 0;
    }
    slice.push(id);
    size += n;
  }
  if (slice.length > 0) yield await readSlice(slice, size);
}

/** An order of this store, or null. Ids that are not positive integers are simply not found. */
export async function findOrder(db: Db, storeId: string, orderId: string): Promise<(OrderView & { maskBuyerPii: boolean }) | null> {
  if (!/^[1-9]\d{0,15}$/.test(orderId)) return null;
  const id = Number(orderId);
  const ofStore = sql`exists (select 1 from orders o where o.id = ${id} and o.store_id = ${storeId})`;
  const [store, rows, items, packages] = await db.batch([
    maskSettingOf(db, storeId),
    db
      .select({ order: orders, sourceEnabled: sources.enabled })
      .from(orders)
      .leftJoin(sources, eq(sources.id, orders.sourceId))
      .where(and(eq(orders.id, id), eq(orders.storeId, storeId))),
    db
      .select()
      .from(orderItems)
      .where(and(eq(orderItems.orderId, id), ofStore))
      .orderBy(asc(orderItems.id)),
    db
      .select()
      .from(lineChanges)
      .where(and(eq(lineChanges.orderId, id), eq(lineChanges.kind, "ship"), ofStore))
      .orderBy(asc(lineChanges.seq)),
  ]);
  const row = rows[0];
  if (!row) return null;
  return { order: row.order, items, packages, sourceEnabled: row.sourceEnabled, maskBuyerPii: store[0]?.maskBuyerPii ?? false };
}

/**
 * What moves read of their orders (orders of one store, chosen by `where` on `o`): one statement,
 * one row per order, only the columns a move decides on and guards with, its lines and its line
 * changes (packages and cancellations) folded into the row as JSON.
 */
function moveStatesStatement(where: SQL) {
  return sql`select o.id, o.store_id, o.date_updated, o.status, o.source_id, o.source_order_status, o.order_destination_order_number,
      o.date_created_in_destination, o.shipment_tracking_number, o.date_shipped, o.destination_shipping_carrier, o.shipping_method,
      o.fulfillment_status, o.order_source_order_number,
      (select json_group_array(json_array(i.id, i.sku, i.source_line_id, i.quantity, i.quantity_shipped, i.quantity_cancelled, coalesce(i.stock_taken, i.quantity)))
        from (select * from ${orderItems} where order_id = o.id order by id) as i) as lines,
      (select json_group_array(json_array(c.id, c.seq, c.kind, c.origin, json(c.lines), c.tracking_number, c.carrier, c.date_shipped, c.marketplace_ref))
        from (select * from ${lineChanges} where order_id = o.id order by seq) as c) as changes
    from ${orders} as o where ${where}`;
}

type MoveStateRow = Record<string, unknown> & { lines: string; changes: string };

function toMoveState(row: MoveStateRow): OrderState & { orderSourceOrderNumber: string } {
  const lines = JSON.parse(row.lines) as [number, string, string | null, number, number, number, number][];
  const changes = JSON.parse(row.changes) as [
    number,
    number,
    "ship" | "cancel",
    "seller" | "marketplace",
    [number, number][],
    string | null,
    string | null,
    number | null,
    string | null,
  ][];
  return {
    id: row.id as number,
    storeId: row.store_id as string,
    dateUpdated: row.date_updated as number,
    status: row.status as string,
    sourceId: row.source_id as string | null,
    sourceOrderStatus: row.source_order_status as string,
    orderDestinationOrderNumber: row.order_destination_order_number as string | null,
    dateCreatedInDestination: row.date_created_in_destination as number | null,
    shipmentTrackingNumber: row.shipment_tracking_number as string | null,
    dateShipped: row.date_shipped as number | null,
    destinationShippingCarrier: row.destination_shipping_carrier as string,
    shippingMethod: row.shipping_method as string,
    fulfillmentStatus: row.fulfillment_status as OrderState["fulfillmentStatus"],
    orderSourceOrderNumber: row.order_source_order_number as string,
    lines: lines.map(([id, sku, sourceLineId, quantity, shipped, cancelled, taken]) => ({ id, sku, sourceLineId, quantity, shipped, cancelled, taken })),
    changes: changes.map(([id, seq, kind, origin, units, trackingNumber, carrier, dateShipped, marketplaceRef]) => ({
      id,
      seq,
      kind,
      origin,
      lines: units,
      trackingNumber,
      carrier,
      dateShipped,
      marketplaceRef,
    })),
  };
}

/** What a move reads of one order of this store; null for an id that is not one. */
export async function moveStateOf(db: Db, storeId: string, orderId: string): Promise<OrderState | null> {
  if (!/^[1-9]\d{0,15}$/.test(orderId)) return null;
  const query = dialect.sqlToQuery(moveStatesStatement(sql`o.id = ${Number(orderId)} and o.store_id = ${storeId}`));
  const row = await db.$client
    .prepare(query.sql)
    .bind(...query.params)
    .first<MoveStateRow>();
  return row ? toMoveState(row) : null;
}

/** What moves read of the source's orders with these marketplace numbers (an import page's), by number. */
export async function moveStatesOfNumbers(db: Db, storeId: string, sourceId: string, numbers: string[]): Promise<Map<string, OrderState>> {
  const query = dialect.sqlToQuery(
    moveStatesStatement(sql`o.store_id = ${storeId} and o.order_source = (select ${sources.name} from ${sources} where ${sources.id} = ${sourceId})
      and o.order_source_order_number in (select value from json_each(${JSON.stringify(numbers)}))`),
  );
  const { results } = await db.$client
    .prepare(query.sql)
    .bind(...query.params)
    .all<MoveStateRow>();
  return new Map(
    results.map((row) => {
      const state = toMoveState(row);
      return [state.orderSourceOrderNumber, state];
    }),
  );
}

/**
 * The operator's search (console): orders of a store whose marketplace number, seller number or
 * OrderId is exactly `number`, newest first, without their items (see orderItemsOf). Reads the
 * store's orders through (store, date); an operator's lookup, not a client's hot path.
 */
export async function findOrdersByNumber(db: Db, storeId: string, number: string, limit: number): Promise<OrderListPage> {
  const id = /^[1-9]\d{0,15}$/.test(number) ? Number(number) : -1;
  const [store, rows] = await db.batch([
    maskSettingOf(db, storeId),
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
  return { maskBuyerPii: store[0]?.maskBuyerPii ?? false, rows, next: null };
}

/**
 * What a marketplace delivery needs of its orders: the heads and their lines (in line order), as
 * two statements for the caller's batch.
 */
export function deliveryReadsOf(db: Db, orderIds: number[]) {
  return [
    db
      .select({
        id: orders.id,
        number: orders.orderSourceOrderNumber,
        customerNumber: orders.orderSourceCustomerOrderNumber,
        seller: orders.orderDestinationOrderNumber,
        sourceData: orders.sourceData,
      })
      .from(orders)
      .where(idIn(orders.id, orderIds)),
    db
      .select({
        id: orderItems.id,
        orderId: orderItems.orderId,
        sourceLineId: orderItems.sourceLineId,
        sku: orderItems.sku,
        quantity: orderItems.quantity,
        quantityShipped: orderItems.quantityShipped,
        quantityCancelled: orderItems.quantityCancelled,
        stockTaken: orderItems.stockTaken,
      })
      .from(orderItems)
      .where(idIn(orderItems.orderId, orderIds))
      .orderBy(asc(orderItems.id)),
  ] as const;
}

// --- The overview's day counts (kept by triggers: order_day_counts, order_source_day_counts) ---

/**
 * Orders created today and since `weekStart` per live store, and its orders waiting to be
 * acknowledged (New, any day): per store three reads of its order_day_counts rows (days times
 * statuses, by primary key), never its orders.
 */
export async function ordersTodayAndWeek(
  db: Db,
  today: number,
  weekStart: number,
): Promise<{ storeId: string; today: number; week: number; waiting: number }[]> {
  const sum = (where: string) => `(select coalesce(sum(n), 0) from order_day_counts where store_id = s.id and field = 'c' and ${where})`;
  const { results } = await db.$client
    .prepare(
      `select s.id as storeId, ${sum("day >= ?1")} as today, ${sum("day >= ?2")} as week, ${sum("status = 'New'")} as waiting from stores s where ` +
        `s.deleted_at is null`,
    )
    .bind(today, weekStart)
    .all<{ storeId: string; today: number; week: number; waiting: number }>();
  return results;
}

/** A store's orders per UTC day of creation and OrderSource from `fromDay` on (order_source_day_counts). */
export async function ordersPerSourceDay(db: Db, storeId: string, fromDay: number): Promise<{ day: number; orderSource: string; n: number }[]> {
  const { results } = await db.$client
    .prepare("select day, order_source as orderSource, n from order_source_day_counts where store_id = ? and day >= ? and n != 0 order by day, order_source")
    .bind(storeId, fromDay)
    .all<{ day: number; orderSource: string; n: number }>();
  return results;
}

/** A store's orders by status now: the sum of its day counts (a row per day and status it has orders). */
export async function ordersPerStatus(db: Db, storeId: string): Promise<{ status: string; n: number }[]> {
  const { results } = await db.$client
    .prepare("select status, sum(n) as n from order_day_counts where store_id = ? and field = 'c' group by status")
    .bind(storeId)
    .all<{ status: string; n: number }>();
  return results;
}

/**
 * The lines (marketplace line id -> the line's SKU) of the source's orders of these numbers, per
 * number: what an imported page of returns checks its returns against. One statement along the orders' unique
 * index; numbers the source has no order for are absent.
 */
export async function heldOrderLines(db: Db, source: { id: string; storeId: string }, numbers: string[]): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  if (numbers.length === 0) return out;
  const { results } = await db.$client
    .prepare(
      `select o.order_source_order_number as number, i.source_line_id as line, i.sku as sku from orders as o left join order_items as i on i.order_id = o.id
      where o.store_id = ?1 and o.order_source = (select name from sources where id = ?2) and o.order_source_order_number in (select value from json_each(?3))`,
    )
    .bind(source.storeId, source.id, JSON.stringify([...new Set(numbers)]))
    .all<{ number: string; line: string | null; sku: string | null }>();
  for (const row of results) {
    const lines = out.get(row.number) ?? new Map<string, string>();
    if (row.line !== null) lines.set(row.line, row.sku ?? "");
    out.set(row.number, lines);
  }
  return out;
}
