// Every statement on webhook_deliveries: one row per event and endpoint (decisions 9).
//
// Events are recorded by INSERT ... SELECT from the store's enabled, subscribed endpoints, run in
// the same batch as the change they report: a store without endpoints gets no row and pays one
// index probe of `webhooks`. Each statement RETURNs the endpoints it wrote for, so the writer can
// wake exactly those senders (src/webhooks/wake.ts) without another query.
//
// Why a row per event and endpoint rather than an event row plus delivery rows: each endpoint has
// its own state, attempts, schedule and `webhook-id` anyway, an event row would be written even
// when no endpoint wants it, and the list, the retry and the sender read one table without a join.
// The body is repeated per endpoint; it is a few hundred bytes, and stores have one or two.
import { and, asc, desc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { feeds, orders, refunds, returns, sources, webhookDeliveries as deliveries, webhooks, type WEBHOOK_DELIVERY_STATES } from "../db/schema";
import { toWireDate } from "../lib/dates";
import type { EventType } from "./webhooks.schemas";

export type DeliveryRow = typeof deliveries.$inferSelect;
export type DeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

const dialect = new SQLiteAsyncDialect();
const COLUMNS = Object.keys(getTableColumns(deliveries)) as (keyof DeliveryRow)[];

/** An event's type: a literal, or an expression of the statement's rows (a batch of order moves carries one per move). */
type TypeOf = EventType | SQL;

/** The body every attempt sends and signs: `{type, timestamp, data}`, built by SQLite from the rows it reports. */
function body(type: TypeOf, at: number, data: SQL): SQL {
  return sql`json_object('type', ${type}, 'timestamp', ${toWireDate(at)}, 'data', ${data})`;
}

/** An order event's data, from the `orders` row of the statement (`status` overrides its status: a move not yet applied). */
function orderData(status?: string | SQL): SQL {
  return sql`json_object('StoreId', ${orders.storeId}, 'OrderId', cast(${orders.id} as text), 'OrderSource', ${orders.orderSource},
    'OrderSourceOrderNumber', ${orders.orderSourceOrderNumber}, 'OrderStatus', ${status === undefined ? sql`${orders.status}` : sql`${status}`})`;
}

/** The endpoints of the subject's store that take `type`: joined to the subject's row on its store. */
function subscribed(type: TypeOf, storeId: SQL): SQL {
  return sql`join ${webhooks} on ${webhooks.storeId} = ${storeId} and ${webhooks.enabled} = 1
    and exists (select 1 from json_each(${webhooks.events}) where value in ('*', ${type}))`;
}

/**
 * One row per subscribed endpoint of the subject `from` selects (a table and its WHERE, joined to
 * the endpoints by `subscribed`), with its subject key and body, in `orderBy`'s order when given.
 * All columns, in the table's order.
 */
function insertEvents(db: Db, type: TypeOf, at: number, parts: { from: SQL; join: SQL; where: SQL; subject: SQL; payload: SQL | null; orderBy?: SQL }) {
  const values: Record<keyof DeliveryRow, SQL> = {
    id: sql`null`,
    eventId: sql`'msg_' || lower(hex(randomblob(12)))`,
    storeId: sql`${webhooks.storeId}`,
    webhookId: sql`${webhooks.id}`,
    subject: parts.subject,
    type: sql`${type}`,
    payload: parts.payload ?? sql`null`,
    state: sql`'pending'`,
    attempts: sql`0`,
    nextAttemptAt: sql`${at}`,
    lastStatusCode: sql`null`,
    lastError: sql`null`,
    createdAt: sql`${at}`,
    finishedAt: sql`null`,
  };
  const list = sql.join(
    COLUMNS.map((c) => values[c]),
    sql`, `,
  );
  return db
    .insert(deliveries)
    .select(sql`select ${list} from ${parts.from} ${parts.join} where ${parts.where}${parts.orderBy ? sql` order by ${parts.orderBy}` : sql``}`)
    .returning({ webhook_id: deliveries.webhookId });
}

/** Webhook ids out of event statements' RETURNING rows (drizzle's or D1's, both `webhook_id`): the senders to wake. */
export function wokenBy(...results: (readonly unknown[] | { results?: unknown[] } | undefined)[]): string[] {
  const ids = new Set<string>();
  for (const result of results) {
    const rows = Array.isArray(result) ? result : ((result as { results?: unknown[] } | undefined)?.results ?? []);
    for (const row of rows) {
      const id = (row as { webhook_id?: unknown }).webhook_id;
      if (typeof id === "string") ids.add(id);
    }
  }
  return [...ids];
}

/** A drizzle statement for a raw D1 batch (the order writes batch D1 statements directly). */
export function toD1(db: Db, statement: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const query = statement.toSQL();
  return db.$client.prepare(query.sql).bind(...query.params);
}

/** order.created of an order just inserted by its key (InsertOrder): after the order's insert in its batch. */
export function orderCreatedEvents(db: Db, order: { storeId: string; orderSource: string; orderSourceOrderNumber: string }, at: number) {
  return insertEvents(db, "order.created", at, {
    from: sql`${orders}`,
    join: subscribed("order.created", sql`${orders.storeId}`),
    where: sql`${orders.storeId} = ${order.storeId} and ${orders.orderSource} = ${order.orderSource} and ${orders.orderSourceOrderNumber} =
      ${order.orderSourceOrderNumber}`,
    subject: sql`'order:' || ${orders.id}`,
    payload: body("order.created", at, orderData()),
  });
}

/** An order move's webhook event, as orderMovedEvents takes it. */
export interface MovedEvent {
  orderId: number;
  /** The order's dateUpdated as the move read it: the event is written only while it still is. */
  dateUpdated: number;
  type: EventType;
  /** OrderStatus after the move. */
  status: string;
  /** order.shipment_created: the package, by id, or by its seq within the order when the same batch records it. */
  shipmentId?: number;
  shipmentSeq?: number;
  /** order.shipment_created and order.items_cancelled: [{OrderItemId, Quantity}]. */
  items?: { OrderItemId: string; Quantity: number }[];
}

/**
 * The events of order moves (acknowledge, ship, cancel, a package, a cancellation, decisions 9
 * and 12), one statement for a whole batch of moves, placed BEFORE the orders' update in its
 * batch and after the packages it names: each event is written only while `guard` holds for its
 * order (src/orders/orders.writes.ts builds it on `e.value ->> 'o'` and `e.value ->> 'u'`), so
 * inside the batch's transaction it is written exactly when its move is. The data of
 * order.shipment_created adds ShipmentId and Items, that of order.items_cancelled Items; the
 * others' data is the order's, as ever. Events keep the order they are given in.
 */
export function orderMovedEvents(db: Db, storeId: string, events: MovedEvent[], guard: SQL, at: number): D1PreparedStatement | null {
  if (events.length === 0) return null;
  const json = JSON.stringify(
    events.map((e) => ({
      o: e.orderId,
      u: e.dateUpdated,
      type: e.type,
      status: e.status,
      sid: e.shipmentId ?? null,
      seq: e.shipmentSeq ?? null,
      items: e.items ?? null,
    })),
  );
  const type = sql`e.value ->> 'type'`;
  const base = orderData(sql`e.value ->> 'status'`);
  const shipmentId = sql`cast(coalesce(e.value ->> 'sid', (select c.id from line_changes as c where c.order_id = ${orders.id} and c.seq = e.value ->>
    'seq')) as text)`;
  const data = sql`case e.value ->> 'type'
      when 'order.shipment_created' then json_insert(${base}, '$.ShipmentId', ${shipmentId}, '$.Items', json(e.value -> 'items'))
      when 'order.items_cancelled' then json_insert(${base}, '$.Items', json(e.value -> 'items'))
      else ${base} end`;
  const statement = insertEvents(db, type, at, {
    from: sql`json_each(${json}) as e join ${orders} on ${orders.id} = e.value ->> 'o' and ${orders.storeId} = ${storeId}`,
    join: subscribed(type, sql`${orders.storeId}`),
    where: guard,
    subject: sql`'order:' || ${orders.id}`,
    payload: body(type, at, data),
    orderBy: sql`e.key, ${webhooks.id}`,
  });
  return toD1(db, statement);
}

/** order.sync_failed: right after the statement that failed the marketplace delivery, if it changed its row. */
export function orderSyncFailedEvents(db: Db, orderId: number, at: number) {
  return insertEvents(db, "order.sync_failed", at, {
    from: sql`${orders}`,
    join: subscribed("order.sync_failed", sql`${orders.storeId}`),
    where: sql`${orders.id} = ${orderId} and changes() = 1`,
    subject: sql`'order:' || ${orders.id}`,
    payload: body("order.sync_failed", at, orderData()),
  });
}

/** order.sync_failed of every order of a subquery (a deleted source's orders with deliveries still open), before their rows are failed. */
export function ordersSyncFailedEvents(db: Db, orderIds: SQL, at: number) {
  return insertEvents(db, "order.sync_failed", at, {
    from: sql`${orders}`,
    join: subscribed("order.sync_failed", sql`${orders.storeId}`),
    where: sql`${orders.id} in ${orderIds}`,
    subject: sql`'order:' || ${orders.id}`,
    payload: body("order.sync_failed", at, orderData()),
  });
}

/**
 * order.refunded of the refunds `where` selects (over `refunds`, joined to their order), after
 * the refunds are written in the same batch: a seller's refund, or those an import recorded.
 * The data is the order's, with the refund's id and total.
 */
export function orderRefundedEvents(db: Db, at: number, where: SQL) {
  return insertEvents(db, "order.refunded", at, {
    from: sql`${refunds} join ${orders} on ${orders.id} = ${refunds.orderId}`,
    join: subscribed("order.refunded", sql`${orders.storeId}`),
    where,
    subject: sql`'order:' || ${orders.id}`,
    payload: body("order.refunded", at, sql`json_insert(${orderData()}, '$.RefundId', cast(${refunds.id} as text), '$.Total', ${refunds.total})`),
  });
}

/**
 * return.created or return.updated of the returns `where` selects (over `returns`, joined to
 * their order). `status` is the return's status as the event reports it when the statement runs
 * before the change (a guarded move, as orderMovedEvents); by default the row's own. Subject: the
 * order, so a return's events and its order's go out in the order they happened.
 */
export function returnEvents(db: Db, type: "return.created" | "return.updated", at: number, where: SQL, status?: string) {
  return insertEvents(db, type, at, {
    from: sql`${returns} join ${orders} on ${orders.id} = ${returns.orderId}`,
    join: subscribed(type, sql`${returns.storeId}`),
    where,
    subject: sql`'order:' || ${orders.id}`,
    payload: body(
      type,
      at,
      sql`json_object('StoreId', ${returns.storeId}, 'ReturnId', cast(${returns.id} as text), 'OrderId', cast(${orders.id} as text),
        'OrderSource', ${orders.orderSource}, 'OrderSourceOrderNumber', ${orders.orderSourceOrderNumber},
        'ReturnSourceNumber', ${returns.sourceReturnNumber}, 'Status', ${status === undefined ? sql`${returns.status}` : sql`${status}`})`,
    ),
  });
}

/** feed.compiled or feed.failed, after the feed row's update in the same batch (the body shows the row as updated). */
export function feedEvents(db: Db, type: "feed.compiled" | "feed.failed", feedId: string, at: number) {
  return insertEvents(db, type, at, {
    from: sql`${feeds}`,
    join: subscribed(type, sql`${feeds.storeId}`),
    where: sql`${feeds.id} = ${feedId}`,
    subject: sql`'feed:' || ${feeds.id}`,
    payload: body(
      type,
      at,
      sql`json_object('StoreId', ${feeds.storeId}, 'FeedId', ${feeds.id}, 'Name', ${feeds.name}, 'Status', ${feeds.status}, 'Score', ${feeds.score})`,
    ),
  });
}

// ---------------------------------------------------------------------------------------------
// An imported page: the upsert gives no way to tell new orders from known ones afterwards, so
// the rows are written in two steps around it. Before: a row without body for each number the
// source does not have yet (subject 'new:<number>'). After: each such row takes its order's id
// and body. Last: rows whose order was not written (the source was deleted meanwhile) go. All
// three touch nothing, beyond an index probe, for a store without endpoints.

const SOURCE_NAME = (sourceId: string) => sql`(select ${sources.name} from ${sources} where ${sources.id} = ${sourceId})`;

/** Before the page's upsert. */
export function importedEventsBefore(db: Db, source: { storeId: string; id: string }, numbers: string[], at: number): D1PreparedStatement {
  const known = sql`exists (select 1 from ${orders} where ${orders.storeId} = ${source.storeId}
    and ${orders.orderSource} = ${SOURCE_NAME(source.id)} and ${orders.orderSourceOrderNumber} = page.value)`;
  const statement = insertEvents(db, "order.created", at, {
    from: sql`(select distinct value from json_each(${JSON.stringify(numbers)})) as page`,
    join: subscribed("order.created", sql`${source.storeId}`),
    where: sql`not ${known}`,
    subject: sql`'new:' || page.value`,
    payload: null,
  });
  return toD1(db, statement);
}

/** After the page's upsert. */
export function importedEventsAfter(db: Db, source: { storeId: string; id: string }, at: number): D1PreparedStatement[] {
  const d1 = db.$client;
  const fill = dialect.sqlToQuery(sql`update ${deliveries} set
      subject = 'order:' || o.id,
      payload = json_object('type', 'order.created', 'timestamp', ${toWireDate(at)}, 'data', json_object('StoreId', o.store_id,
        'OrderId', cast(o.id as text), 'OrderSource', o.order_source, 'OrderSourceOrderNumber', o.order_source_order_number, 'OrderStatus', o.status))
    from ${orders} as o
    where webhook_deliveries.store_id = ${source.storeId} and webhook_deliveries.payload is null
      and o.store_id = ${source.storeId} and o.order_source = ${SOURCE_NAME(source.id)} and o.order_source_order_number = substr(webhook_deliveries.subject, 5)
    returning webhook_deliveries.webhook_id`);
  const drop = dialect.sqlToQuery(sql`delete from ${deliveries} where ${deliveries.storeId} = ${source.storeId} and ${deliveries.payload} is null`);
  return [d1.prepare(fill.sql).bind(...fill.params), d1.prepare(drop.sql).bind(...drop.params)];
}

// ---------------------------------------------------------------------------------------------
// The sender's reads and writes.

/**
 * Pending rows of the endpoint (due by `now` when given) that are the first of their subject still
 * pending: a later event of an order waits for the earlier one to be delivered or to fail for good.
 */
function firstOfSubjectPending(webhookId: string, now?: number): SQL | undefined {
  return and(
    eq(deliveries.webhookId, webhookId),
    eq(deliveries.state, "pending"),
    now === undefined ? undefined : sql`${deliveries.nextAttemptAt} <= ${now}`,
    sql`${deliveries.payload} is not null`,
    sql`not exists (select 1 from webhook_deliveries as earlier where earlier.webhook_id = ${deliveries.webhookId}
      and earlier.subject = ${deliveries.subject} and earlier.id < ${deliveries.id} and earlier.state = 'pending')`,
  );
}

/**
 * A round of the endpoint's due rows, longest due first. Sorted as webhook_deliveries_due is
 * (due time, then id) so that SQLite walks that index and stops after `limit` rows: sorted by id
 * alone it read and sorted every due row of the endpoint on each round, which made a backlog of n
 * events cost n * n / limit row reads (test/webhooks/webhooks.backlog.test.ts pins the plan).
 */
export function dueDeliveries(db: Db, webhookId: string, now: number, limit: number) {
  return db.select().from(deliveries).where(firstOfSubjectPending(webhookId, now)).orderBy(asc(deliveries.nextAttemptAt), asc(deliveries.id)).limit(limit);
}

/** The endpoint's next row to fall due (first of its subject only): the same index walk, one row. */
export function nextDue(db: Db, webhookId: string) {
  return db
    .select({ at: deliveries.nextAttemptAt })
    .from(deliveries)
    .where(firstOfSubjectPending(webhookId))
    .orderBy(asc(deliveries.nextAttemptAt), asc(deliveries.id))
    .limit(1);
}

/** When the endpoint's next row falls due, or null when none is pending. */
export async function nextDueAt(db: Db, webhookId: string): Promise<number | null> {
  const [row] = await nextDue(db, webhookId);
  return row?.at ?? null;
}

/** What one attempt came to, as its row records it. */
export type AttemptOutcome =
  | { state: "delivered"; statusCode: number }
  | { state: "retry"; statusCode: number | null; error: string; nextAttemptAt: number }
  | { state: "failed"; statusCode: number | null; error: string };

/**
 * Records attempts, any number in one statement (one D1 query whatever their number: a pass of
 * 10,000 events stays within an invocation's 1,000 queries, src/lib/invocation-budget.ts); each
 * row guarded by its still being pending (an operator's delete leaves nothing to update).
 * The attempts travel as one JSON array of [id, state, statusCode, error, nextAttemptAt].
 */
export function recordAttempts(attempts: { id: number; outcome: AttemptOutcome }[], now: number): SQL {
  const rows = JSON.stringify(
    attempts.map(({ id, outcome }) => [
      id,
      outcome.state,
      outcome.statusCode,
      outcome.state === "delivered" ? null : outcome.error,
      outcome.state === "retry" ? outcome.nextAttemptAt : null,
    ]),
  );
  return sql`update ${deliveries} set
      state = case o.state when 'retry' then ${deliveries.state} else o.state end,
      attempts = ${deliveries.attempts} + 1,
      last_status_code = o.status_code,
      last_error = o.error,
      next_attempt_at = case o.state when 'retry' then o.next_attempt_at else ${deliveries.nextAttemptAt} end,
      finished_at = case o.state when 'retry' then ${deliveries.finishedAt} else ${now} end
    from (select value ->> 0 as id, value ->> 1 as state, value ->> 2 as status_code, value ->> 3 as error, value ->> 4 as next_attempt_at
          from json_each(${rows})) as o
    where ${deliveries.id} = o.id and ${deliveries.state} = 'pending'`;
}

/** The states of the endpoint's last `n` finished events, newest first. */
export async function lastFinishedStates(db: Db, webhookId: string, n: number): Promise<DeliveryState[]> {
  const rows = await db
    .select({ state: deliveries.state })
    .from(deliveries)
    .where(and(eq(deliveries.webhookId, webhookId), sql`${deliveries.state} in ('delivered', 'failed')`))
    .orderBy(desc(deliveries.finishedAt), desc(deliveries.id))
    .limit(n);
  return rows.map((r) => r.state);
}

// ---------------------------------------------------------------------------------------------
// The admin routes and the wake-ups.

export function listDeliveries(db: Db, webhookId: string, state: DeliveryState | undefined, limit: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.webhookId, webhookId), sql`${deliveries.payload} is not null`, state ? eq(deliveries.state, state) : undefined))
    .orderBy(desc(deliveries.id))
    .limit(limit);
}

export function findDelivery(db: Db, webhookId: string, eventId: string): Promise<DeliveryRow | undefined> {
  return db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.webhookId, webhookId), eq(deliveries.eventId, eventId)))
    .get();
}

/** The operator's retry of a failed event: pending again, due now, with a fresh count of attempts. */
export async function retryDelivery(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .update(deliveries)
    .set({ state: "pending", attempts: 0, nextAttemptAt: now, lastError: null, finishedAt: null })
    .where(and(eq(deliveries.id, id), eq(deliveries.state, "failed")));
  return result.meta.changes === 1;
}

/** The endpoint is deleted: its rows go with it (the statement runs in the deletion's batch). */
export function deleteDeliveriesOf(db: Db, webhookId: string) {
  return db.delete(deliveries).where(eq(deliveries.webhookId, webhookId));
}

/** One batch of a deleted store's purge: up to `limit` rows of its endpoints (by their index); answers how many went. */
export async function purgeDeliveries(db: Db, storeId: string, limit: number): Promise<number> {
  const result = await db.delete(deliveries).where(
    sql`${deliveries.id} in (select ${deliveries.id} from ${deliveries}
      where ${deliveries.webhookId} in (select ${webhooks.id} from ${webhooks} where ${webhooks.storeId} = ${storeId}) limit ${limit})`,
  );
  return result.meta.changes;
}

/** Enabled endpoints with a pending row: of every store (the cron's sweep, a random `limit` of them), or one store's. */
export function endpointsWithPending(db: Db, storeId?: string, limit?: number): Promise<{ id: string; storeId: string }[]> {
  const query = db
    .select({ id: webhooks.id, storeId: webhooks.storeId })
    .from(webhooks)
    .where(
      and(
        storeId === undefined ? undefined : eq(webhooks.storeId, storeId),
        eq(webhooks.enabled, true),
        sql`exists (select 1 from ${deliveries} where ${deliveries.webhookId} = ${webhooks.id} and ${deliveries.state} = 'pending')`,
      ),
    );
  // A bounded sweep takes a random part, so that every endpoint is reached in turn.
  return limit === undefined ? query : query.orderBy(sql`random()`).limit(limit);
}
