// Every statement that writes orders and order_items: InsertOrder, the import of a marketplace
// page, the order moves (with their stock, webhook event and outbox row in one batch under one
// guard, stillAsRead), and what the sync and the sources admin change on orders. The row of a new
// order is built by orders.wire.ts's orderWriteOf. Reads stay in orders.queries.ts. Each write carries its
// webhook events' statements (src/webhooks/webhook-deliveries.queries.ts) in its own batch.
//
// Both ways an order is created (a client's InsertOrder, a marketplace import) go through the
// same statement shape: each order travels as one JSON array holding the values of ORDER_FIELDS
// in that order (each line likewise, ITEM_FIELDS), unpacked by json_each, so the column list is
// written once below and D1's 100-parameter limit never applies, whatever the number of items.
// Arrays, not objects keyed by field: SQLite finds `->> 5` without comparing key names, and the
// page's JSON carries no names; the import's upsert took half the time it took with named keys.
import { and, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { lineChanges, orderItems, orders } from "../db/schema";
import { deleteRowsOfOrders, enqueueStatements, lastRowError, type Enqueued } from "../outbox/outbox.queries";
import {
  importedEventsAfter,
  importedEventsBefore,
  orderCreatedEvents,
  orderMovedEvents,
  toD1,
  wokenBy,
  type MovedEvent,
} from "../webhooks/webhook-deliveries.queries";
import {
  cancelledAtMarketplace,
  lineTakesSql,
  stockAskedByImportStatement,
  stockBackStatement,
  stockBackByImportStatement,
  stockTakenStatement,
} from "../products/products.queries";
import type { Move, OrderSet, OrderState } from "./order-moves";
import { deleteRefundsOfOrders } from "../refunds/refunds.queries";
import { deleteReturnsOfOrders } from "../returns/returns.queries";
import type { InsertOrderBody } from "./orders.schemas";
import { orderWriteOf, type ItemValues, type OrderValues, type OrderWrite } from "./orders.wire";

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
  "fulfillmentStatus",
] as const satisfies readonly (keyof OrderValues)[];

/** The same for an item. */
const ITEM_FIELDS = [
  "sourceLineId",
  "sku",
  "name",
  "quantity",
  "unitPrice",
  "saleTaxCost",
  "discount",
  "quantityShipped",
  "quantityCancelled",
] as const satisfies readonly (keyof ItemValues)[];

// Compile-time: the two lists name every value of a new order's row (orders.wire.ts's OrderWrite),
// so a column added there and forgotten here does not build.
type Unlisted<T, F> = Exclude<keyof T, F>;
true satisfies Unlisted<OrderValues, (typeof ORDER_FIELDS)[number]> extends never ? true : false;
true satisfies Unlisted<ItemValues, (typeof ITEM_FIELDS)[number]> extends never ? true : false;

const dialect = new SQLiteAsyncDialect();
const orderColumns = getTableColumns(orders);
const itemColumns = getTableColumns(orderItems);
const ORDER_COLUMN_LIST = ORDER_FIELDS.map((f) => orderColumns[f].name).join(", ");
const ITEM_COLUMN_LIST = ITEM_FIELDS.map((f) => itemColumns[f].name).join(", ");

/** An order's values as the JSON array the statements read: ORDER_FIELDS' order. */
const orderTuple = (order: OrderValues): unknown[] => ORDER_FIELDS.map((f) => order[f]);
/** The SQL reading an order tuple `o` back, column by column. */
const orderValueList = (o: string) => ORDER_FIELDS.map((_, i) => `${o} ->> ${i}`).join(", ");
/** A line as its JSON array, after `prefix` (the import puts the order's number and whether it takes stock first). */
const itemTuple = (item: ItemValues, ...prefix: unknown[]): unknown[] => [...prefix, ...ITEM_FIELDS.map((f) => item[f])];
/** The SQL reading a line tuple back; `from` skips its prefix. */
const itemValueList = (line: string, from = 0) => ITEM_FIELDS.map((_, i) => `${line} ->> ${i + from}`).join(", ");
/** An imported line's prefix: its order's number, then 1 when it takes stock (its order did not arrive cancelled). */
const IMPORT_PREFIX = 2;
/** Where an imported line holds its marketplace line id, Sku and quantity. */
const LINE_ID_AT = IMPORT_PREFIX + ITEM_FIELDS.indexOf("sourceLineId");
const SKU_AT = IMPORT_PREFIX + ITEM_FIELDS.indexOf("sku");
const UNITS_AT = IMPORT_PREFIX + ITEM_FIELDS.indexOf("quantity");

// ---------------------------------------------------------------------------------------------
// InsertOrder

/** `webhooks`: the endpoints the order's event was recorded for (their senders are to be woken). */
export type InsertResult = { inserted: true; orderId: number; webhooks: string[] } | { inserted: false; existingOrderId: number };

// An inserted order whose OrderSource names a source of the store syncs with that source.
const INSERT_ORDER = `insert into orders (store_id, source_id, order_source, ${ORDER_COLUMN_LIST}, date_updated)
  select ?1, (select id from sources where store_id = ?1 and name = ?2), ?2, ${orderValueList("o")}, ?3
  from (select value as o from json_each(?4))`;

// Items keep the order they were sent in (json_each walks the array in order). Each takes its
// share of its Sku's stock (?5: 1, or 0 for an order inserted Canceled), read before the batch's
// take statement lowers it (products.queries.ts's lineTakesSql and stockTakenStatement).
const INSERT_ORDER_ITEMS = `insert into order_items (order_id, ${ITEM_COLUMN_LIST}, stock_taken)
  select (select id from orders where store_id = ?1 and order_source = ?2 and order_source_order_number = ?3), ${itemValueList("line.value")},
    ${lineTakesSql({ before: "p.quantity", units: `line.value ->> ${ITEM_FIELDS.indexOf("quantity")}`, takes: "?5", sku: `line.value ->> ${ITEM_FIELDS.indexOf("sku")}`, key: "line.key" })}
  from json_each(?4) as line left join products as p on p.store_id = ?1 and p.sku = line.value ->> ${ITEM_FIELDS.indexOf("sku")}
  order by line.key`;

// An order inserted Shipped or Canceled is so by its lines (decisions 12; orderWriteOf set their
// units): one package of every line, with the order's tracking, carrier, method and date, or one
// cancellation of every line.
const INSERT_ORDER_LINE_CHANGE = `insert into line_changes (order_id, seq, store_id, kind, origin, lines, tracking_number, carrier, shipping_method,
  date_shipped, created_at, updated_at)
  select o.id, 1, o.store_id, case o.status when 'Shipped' then 'ship' else 'cancel' end, 'seller',
    (select json_group_array(json_array(i.id, i.quantity)) from (select id, quantity from order_items where order_id = o.id order by id) as i),
    case o.status when 'Shipped' then o.shipment_tracking_number end, case o.status when 'Shipped' then nullif(o.destination_shipping_carrier, '') end,
    case o.status when 'Shipped' then nullif(o.shipping_method, '') end, case o.status when 'Shipped' then o.date_shipped end, ?4, ?4
  from orders as o where o.store_id = ?1 and o.order_source = ?2 and o.order_source_order_number = ?3 and o.status in ('Shipped', 'Canceled')`;

export async function insertOrder(db: Db, storeId: string, body: InsertOrderBody, now: number): Promise<InsertResult> {
  const write = orderWriteOf(body, now);
  const key = and(eq(orders.storeId, storeId), eq(orders.orderSource, body.OrderSource), eq(orders.orderSourceOrderNumber, body.OrderSourceOrderNumber));
  const { items, ...head } = write;
  const d1 = db.$client;
  let events: D1Result;
  try {
    // One batch: the order, its items (with the stock each takes), its webhook events and the
    // stock they take land together or not at all (a duplicate's unique violation undoes the stock too).
    const takes = head.status === "Canceled" ? 0 : 1;
    [, , events] = (await d1.batch([
      d1.prepare(INSERT_ORDER).bind(storeId, body.OrderSource, now, JSON.stringify([orderTuple(head)])),
      d1.prepare(INSERT_ORDER_ITEMS).bind(storeId, body.OrderSource, body.OrderSourceOrderNumber, JSON.stringify(items.map((item) => itemTuple(item))), takes),
      toD1(db, orderCreatedEvents(db, { storeId, orderSource: body.OrderSource, orderSourceOrderNumber: body.OrderSourceOrderNumber }, now)),
      ...(takes ? [stockTakenStatement(d1, storeId, { orderSource: body.OrderSource, number: body.OrderSourceOrderNumber })] : []),
      ...(head.status === "Shipped" || head.status === "Canceled"
        ? [d1.prepare(INSERT_ORDER_LINE_CHANGE).bind(storeId, body.OrderSource, body.OrderSourceOrderNumber, now)]
        : []),
    ])) as [D1Result, D1Result, D1Result];
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await db.select({ id: orders.id }).from(orders).where(key).get();
    if (!existing) throw error;
    return { inserted: false, existingOrderId: existing.id };
  }
  const created = await db.select({ id: orders.id }).from(orders).where(key).get();
  return { inserted: true, orderId: created!.id, webhooks: wokenBy(events) };
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

/** SQL: order `o`'s ship-to address is blank (a marketplace that hides it until acceptance, decisions 14). */
const NO_ADDRESS = (o: string) => `(${o}.street1 = '' and ${o}.city = '' and ${o}.postal_code = '' and ${o}.country = '')`;
/** The ship-to block, taken whole from the import when the stored one is blank. */
const SHIP_TO_COLUMNS = ["first_name", "last_name", "ship_to_company_name", "street1", "street2", "city", "state_or_province", "postal_code", "country"];
/** Buyer contacts, each filled in when stored blank. */
const CONTACT_COLUMNS = ["buyer_email_address", "buyer_phone_number"];

// A new order starts New. A known one only takes the marketplace's status word and facts (the
// client owns OrderStatus), and an order inserted by a client under this source's name before the
// source existed (or claimed by a source since deleted) is claimed by it. A known order whose
// ship-to address is still blank takes the one the import brings, and a blank buyer contact
// likewise: marketplaces that hide them until the seller accepts the order (Mirakl) send them
// with the next import after acceptance (decisions 14); an address once stored is never replaced.
const UPSERT_IMPORTED_ORDERS = `insert into orders (store_id, source_id, order_source, ${ORDER_COLUMN_LIST}, date_updated)
  select ?1, ?2, ${SOURCE_NAME}, ${orderValueList("o")}, ?4
  from (select value as o from json_each(?3)) where exists (select 1 from sources where id = ?2)
  on conflict (store_id, order_source, order_source_order_number) do update set
    source_order_status = excluded.source_order_status,
    source_data = coalesce(excluded.source_data, orders.source_data),
    ${SHIP_TO_COLUMNS.map((c) => `${c} = case when ${NO_ADDRESS("orders")} then excluded.${c} else orders.${c} end`).join(",\n    ")},
    ${CONTACT_COLUMNS.map((c) => `${c} = case when orders.${c} = '' then excluded.${c} else orders.${c} end`).join(",\n    ")},
    source_id = case when orders.source_id is null or not exists (select 1 from sources where id = orders.source_id)
      then excluded.source_id else orders.source_id end,
    date_updated = max(excluded.date_updated, orders.date_updated + 1)
  where orders.source_order_status is not excluded.source_order_status
    or orders.source_data is not coalesce(excluded.source_data, orders.source_data)
    or (${NO_ADDRESS("orders")} and not ${NO_ADDRESS("excluded")})
    or ${CONTACT_COLUMNS.map((c) => `(orders.${c} = '' and excluded.${c} <> '')`).join(" or ")}
    or orders.source_id is null or not exists (select 1 from sources where id = orders.source_id)`;

// Lines are matched by the marketplace's line id, so a page written again adds none twice; an
// order a client inserted (its lines have no marketplace id) keeps the client's lines only. The
// upsert and this insert share the batch, so no order is ever seen without its lines. The page's
// lines come flat, each led by its order's number and whether it takes stock, in the page's
// order; CROSS JOIN pins the loop order (SQLite never reorders it): lines first, then one index
// probe per line. Left to the planner, it scanned every order of the source once per page,
// quadratic in the source's size (a 10,000-order import took minutes).
const newImportedLines = (join = "") => `from json_each(?3) as line
    cross join orders ${join}
  where orders.store_id = ?1 and orders.order_source = ${SOURCE_NAME} and orders.order_source_order_number = line.value ->> 0
    and not exists (select 1 from order_items as known
      where known.order_id = orders.id and (known.source_line_id = line.value ->> ${LINE_ID_AT} or known.source_line_id is null))`;

// The new lines that take stock, for the page's take (products.queries.ts's stockAskedByImportStatement):
// exactly the lines the insert below writes, less those of orders that arrive cancelled.
const NEW_IMPORTED_LINES_TAKING = `select line.value ->> ${SKU_AT} as sku, line.value ->> ${UNITS_AT} as units ${newImportedLines()} and line.value ->> 1 = 1`;

// Each new line takes its share of what its Sku had before the page: the take statement before
// this one has lowered the Sku by all the page's new lines ask (not stopping at 0), so that is the
// quantity now plus what they ask; the page's earlier lines are served first. SQLite computes
// every row of the SELECT before it writes one (the SELECT reads order_items, and the window sums
// need every row), so each line written, which brings its Sku back to 0 if below (the trigger
// order_items_stock_settled, migrations/0017_stock_taken.sql), changes nothing the others read.
// The lines are written in the page's order (the window sums would otherwise order them by Sku).
const INSERT_IMPORTED_ITEMS = `insert into order_items (order_id, ${ITEM_COLUMN_LIST}, stock_taken)
  select orders.id, ${itemValueList("line.value", IMPORT_PREFIX)},
    ${lineTakesSql({
      before: `p.quantity + sum(case when line.value ->> 1 = 1 then line.value ->> ${UNITS_AT} else 0 end) over (partition by line.value ->> ${SKU_AT})`,
      units: `line.value ->> ${UNITS_AT}`,
      takes: "line.value ->> 1",
      sku: `line.value ->> ${SKU_AT}`,
      key: "line.key",
    })}
  ${newImportedLines(`left join products as p on p.store_id = ?1 and p.sku = line.value ->> ${SKU_AT}`)}
  order by line.key`;

/**
 * The statements that write one page of imported orders (bind order fixed here), with the
 * order.created events of the new ones. The first answers how many of them the source already
 * had. Stock (decisions 11), each once: known orders the marketplace now says are cancelled give
 * theirs back before the upsert stores the new status word; the lines new to the hub (of orders
 * not cancelled on arrival) take theirs around their insert, each line keeping what it took
 * (stockAskedByImportStatement, then the insert, whose lines bring a Sku below 0 back to 0).
 */
export function importPageStatements(db: Db, source: { storeId: string; id: string }, page: OrderWrite[], now: number): D1PreparedStatement[] {
  const rows = JSON.stringify(page.map(orderTuple));
  const lines = JSON.stringify(
    page.flatMap((order) => {
      const takes = cancelledAtMarketplace(order.sourceOrderStatus) ? 0 : 1;
      return order.items.map((item) => itemTuple(item, order.orderSourceOrderNumber, takes));
    }),
  );
  const cancelled = page.filter((order) => cancelledAtMarketplace(order.sourceOrderStatus));
  const d1 = db.$client;
  const numbers = page.map((order) => order.orderSourceOrderNumber);
  return [
    d1.prepare(COUNT_KNOWN_ORDERS).bind(source.storeId, source.id, JSON.stringify(numbers)),
    importedEventsBefore(db, source, numbers, now),
    ...(cancelled.length > 0
      ? [
          stockBackByImportStatement(
            d1,
            source.storeId,
            source.id,
            cancelled.map((order) => order.orderSourceOrderNumber),
          ),
        ]
      : []),
    d1.prepare(UPSERT_IMPORTED_ORDERS).bind(source.storeId, source.id, rows, now),
    ...importedEventsAfter(db, source, now),
    stockAskedByImportStatement(d1, source.storeId, source.id, lines, NEW_IMPORTED_LINES_TAKING),
    d1.prepare(INSERT_IMPORTED_ITEMS).bind(source.storeId, source.id, lines),
  ];
}

// ---------------------------------------------------------------------------------------------
// Moves (acknowledge, ship, cancel) and what the sync and the sources admin change on orders.

/**
 * The one guard of a moves' batch: the order is still as its move read it. dateUpdated moves
 * forward with every write of an order, so an order that changed since it was read fails it.
 * Every statement of the batch carries it for each order it touches (`id` and `dateUpdated` are
 * that statement's expressions for the order's id and the dateUpdated its move read), and the
 * orders' own update comes last: inside the batch's transaction, what holds for the first
 * statement holds for the last.
 */
export function stillAsRead(id: SQL, dateUpdated: SQL): SQL {
  return sql`exists (select 1 from ${orders} as as_read where as_read.id = ${id} and as_read.date_updated = ${dateUpdated})`;
}

/** The order columns a move may set, as their SQL names. */
const SETTABLE = [
  "status",
  "fulfillmentStatus",
  "orderDestinationOrderNumber",
  "dateCreatedInDestination",
  "shipmentTrackingNumber",
  "dateShipped",
  "destinationShippingCarrier",
  "syncUserErrorMessage",
  "cancelReason",
] as const satisfies readonly (keyof OrderSet)[];
const orderColumn = (field: (typeof SETTABLE)[number]) => getTableColumns(orders)[field].name;

/** What applyMoves made of its moves: the orders it changed, and the webhook endpoints to wake. */
export interface AppliedMoves {
  applied: Set<number>;
  webhooks: string[];
}

/**
 * Applies moves of one store's orders, each only if its order is still as its move read it, as
 * one batch whatever their number or their lines: per kind of row one statement taking every
 * order's rows as one JSON parameter. In order: the stock cancelled units give back, the
 * packages and cancellations recorded, packages corrected, the lines' units, the webhook events,
 * the outbox rows, and last the orders themselves (RETURNING says which applied: D1's
 * meta.changes counts the rows the orders' triggers write as well). An order changed by another
 * request since it was read changes nothing here; its caller reads and decides again.
 */
export async function applyMoves(db: Db, storeId: string, moves: { order: OrderState; move: Move }[], now: number): Promise<AppliedMoves> {
  const changes = moves.flatMap(({ order, move }) => (move.kind === "change" ? [{ order, move, at: Math.max(now, order.dateUpdated + 1) }] : []));
  if (changes.length === 0) return { applied: new Set(), webhooks: [] };
  const d1 = db.$client;
  const at = (key: string) => sql.raw(key);
  const guardOn = (row: string) => stillAsRead(at(`${row}.value ->> 'o'`), at(`${row}.value ->> 'u'`));
  const statements: D1PreparedStatement[] = [];
  const run = (query: SQL) => {
    const q = dialect.sqlToQuery(query);
    statements.push(d1.prepare(q.sql).bind(...q.params));
  };

  const stock = changes.flatMap(({ order, move }) => move.stockBack.map(([sku, n]): [number, number, string, number] => [order.id, order.dateUpdated, sku, n]));
  if (stock.length > 0) statements.push(stockBackStatement(d1, storeId, stock, stillAsRead(at("u.value ->> 0"), at("u.value ->> 1"))));

  const recorded = changes.flatMap(({ order, move, at: when }) =>
    move.record.map((r) => ({ o: order.id, u: order.dateUpdated, ...r, lines: JSON.stringify(r.lines), at: when })),
  );
  if (recorded.length > 0) {
    run(sql`insert into ${lineChanges} (order_id, seq, store_id, kind, origin, lines, tracking_number, carrier, shipping_method, date_shipped,
      marketplace_ref, created_at, updated_at)
      select c.value ->> 'o', c.value ->> 'seq', ${storeId}, c.value ->> 'kind', c.value ->> 'origin', c.value ->> 'lines', c.value ->> 'trackingNumber',
        c.value ->> 'carrier', c.value ->> 'shippingMethod', c.value ->> 'dateShipped', c.value ->> 'marketplaceRef', c.value ->> 'at', c.value ->> 'at'
      from json_each(${JSON.stringify(recorded)}) as c where ${guardOn("c")} order by c.key`);
  }

  const corrected = changes.flatMap(({ order, move, at: when }) => (move.correct ? [{ o: order.id, u: order.dateUpdated, ...move.correct, at: when }] : []));
  if (corrected.length > 0) {
    run(sql`update ${lineChanges} set tracking_number = k.value ->> 'trackingNumber', carrier = k.value ->> 'carrier', date_shipped = k.value ->>
      'dateShipped', updated_at = k.value ->> 'at'
      from json_each(${JSON.stringify(corrected)}) as k where ${lineChanges.id} = k.value ->> 'id' and ${lineChanges.orderId} = k.value ->> 'o' and
        ${guardOn("k")}`);
  }

  // The lines' units; order_items' trigger refuses the batch if any line would hold more than ordered.
  const units = changes.flatMap(({ order, move }) => move.units.map((u) => ({ o: order.id, u: order.dateUpdated, i: u.id, s: u.shipped, c: u.cancelled })));
  if (units.length > 0) {
    run(sql`update ${orderItems} set quantity_shipped = quantity_shipped + (l.value ->> 's'), quantity_cancelled = quantity_cancelled + (l.value ->> 'c')
      from json_each(${JSON.stringify(units)}) as l where ${orderItems.id} = l.value ->> 'i' and ${orderItems.orderId} = l.value ->> 'o' and ${guardOn("l")}`);
  }

  const events: MovedEvent[] = changes.flatMap(({ order, move }) =>
    move.events.map((e) => ({
      orderId: order.id,
      dateUpdated: order.dateUpdated,
      type: e.type,
      status: e.status,
      ...(e.shipment ? ("id" in e.shipment ? { shipmentId: e.shipment.id } : { shipmentSeq: e.shipment.seq }) : {}),
      ...(e.items ? { items: e.items.map(([id, n]) => ({ OrderItemId: String(id), Quantity: n })) } : {}),
    })),
  );
  const eventStatement = orderMovedEvents(db, storeId, events, guardOn("e"), now);
  const eventsAt = statements.length;
  if (eventStatement) statements.push(eventStatement);

  const queued: Enqueued[] = changes.flatMap(({ order, move, at: when }) =>
    move.delivery && order.sourceId ? [{ orderId: order.id, dateUpdated: order.dateUpdated, sourceId: order.sourceId, ...move.delivery, at: when }] : [],
  );
  statements.push(...enqueueStatements(db, storeId, queued, guardOn("d")));

  const updates = changes.map(({ order, move, at: when }) => ({
    o: order.id,
    u: order.dateUpdated,
    at: when,
    set: move.set,
    outbox: move.delivery && order.sourceId ? 1 : 0,
  }));
  const assignments = SETTABLE.map((field) => {
    const column = sql.raw(orderColumn(field));
    const value = sql`case when json_type(x.value, ${`$.set.${field}`}) is null then ${orders}.${column} else x.value ->> ${`$.set.${field}`} end`;
    // When a delivery is queued, the order says what became of it: nothing, or that its source is gone.
    if (field === "syncUserErrorMessage") return sql`${column} = case when x.value ->> 'outbox' = 1 then ${lastRowError(sql`${orders}.id`)} else ${value} end`;
    return sql`${column} = ${value}`;
  });
  run(sql`update ${orders} set ${sql.join(assignments, sql`, `)}, date_updated = x.value ->> 'at'
    from json_each(${JSON.stringify(updates)}) as x where ${orders}.id = x.value ->> 'o' and ${orders}.date_updated = x.value ->> 'u'
    returning ${orders}.id as id`);

  const results = await d1.batch(statements);
  const applied = new Set((results.at(-1)!.results as { id: number }[]).map((r) => r.id));
  return { applied, webhooks: eventStatement ? wokenBy(results[eventsAt]) : [] };
}

/**
 * Applies one order's move (applyMoves for one): false when another request changed the order
 * first (the caller reads and decides again), else the webhook endpoints to wake.
 */
export async function applyMove(db: Db, order: OrderState, move: Move, now: number): Promise<false | { webhooks: string[] }> {
  if (move.kind === "none") return { webhooks: [] };
  const done = await applyMoves(db, order.storeId, [{ order, move }], now);
  return done.applied.has(order.id) && { webhooks: done.webhooks };
}

/**
 * The hub's package was taken by the marketplace, which gave it a reference (a fulfillment id):
 * kept on the package, so the marketplace's own report of it at a later import is known as this
 * package, not made a second one. Runs with the delivery's outcome.
 */
export function packageDelivered(db: Db, shipmentId: number, reference: string) {
  return db
    .update(lineChanges)
    .set({ marketplaceRef: reference })
    .where(and(eq(lineChanges.id, shipmentId), eq(lineChanges.kind, "ship")));
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
 * One batch of a deleted store's purge: its first `limit` orders with their lines, line changes,
 * outbox rows, refunds and returns, in one transaction (those first: they reference the orders). The last
 * statement answers the orders that went (D1's `changes` also counts what triggers wrote).
 */
export function purgeOrdersStatements(db: Db, storeId: string, limit: number) {
  const batch = sql`(select ${orders.id} from ${orders} where ${orders.storeId} = ${storeId} order by ${orders.id} limit ${limit})`;
  return [
    // Refunds name returns, and both name lines: they go first.
    ...deleteRefundsOfOrders(db, batch),
    ...deleteReturnsOfOrders(db, batch),
    deleteRowsOfOrders(db, batch),
    db.delete(lineChanges).where(sql`${lineChanges.orderId} in ${batch}`),
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
  const orderId = sql`(select ${orders.id} from ${orders} where ${orders.storeId} = ${storeId} and ${orders.orderSource} = ${orderSource} and
    ${orders.orderSourceOrderNumber} = ${order.orderSourceOrderNumber})`;
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
