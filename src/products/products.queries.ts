// Every statement on products: upserts by (store, Sku), deletes, counts, the keyset pages the
// feed compiler reads, and the stock statements (decisions 11) that orders, PUT Inventory and a
// return's restock (decisions 13) run inside their own batches. The import paths that feed them are catalog.ts.
import { and, count, eq, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { products, stockClock, type ProductRow } from "../db/schema";
import type { ProductInput } from "./product-fields";

/** D1 binds at most 100 parameters a statement; a product row binds 14. */
const ROWS_PER_STATEMENT = 7;
/** Statements per db.batch: one round trip, all or nothing. */
const STATEMENTS_PER_BATCH = 50;
export const ROWS_PER_BATCH = ROWS_PER_STATEMENT * STATEMENTS_PER_BATCH;

const dialect = new SQLiteAsyncDialect();

const excluded = (column: string) => sql.raw(`excluded.${column}`);

export async function upsertProducts(db: Db, storeId: string, rows: ProductInput[], now: number): Promise<void> {
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    statements.push(
      db
        .insert(products)
        .values(rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({ ...r, storeId, updatedAt: now })))
        .onConflictDoUpdate({
          target: [products.storeId, products.sku],
          set: {
            title: excluded("title"),
            description: excluded("description"),
            link: excluded("link"),
            imageLink: excluded("image_link"),
            price: excluded("price"),
            currency: excluded("currency"),
            availability: excluded("availability"),
            brand: excluded("brand"),
            gtin: excluded("gtin"),
            attributes: excluded("attributes"),
            // A catalog without a Quantity column leaves the stock alone: orders and PUT
            // Inventory keep it between catalog uploads.
            quantity: sql`coalesce(excluded.quantity, ${products.quantity})`,
            updatedAt: excluded("updated_at"),
          },
        }),
    );
  }
  for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) {
    const chunk = statements.slice(i, i + STATEMENTS_PER_BATCH);
    await db.batch(chunk as [(typeof chunk)[number], ...typeof chunk]);
  }
}

export async function deleteProduct(db: Db, storeId: string, sku: string): Promise<boolean> {
  const gone = await db
    .delete(products)
    .where(and(eq(products.storeId, storeId), eq(products.sku, sku)))
    .returning({ sku: products.sku });
  return gone.length > 0;
}

/** One batch of a deleted store's purge: up to `limit` of its products; answers how many went. */
export async function purgeProducts(db: Db, storeId: string, limit: number): Promise<number> {
  const gone = await db
    .delete(products)
    .where(
      and(
        eq(products.storeId, storeId),
        sql`${products.sku} in (select ${products.sku} from ${products} where ${products.storeId} = ${storeId} limit ${limit})`,
      ),
    )
    .returning({ sku: products.sku });
  return gone.length;
}

/** A purged store's stock clock: the last of its products' rows (run with the store's own row). */
export function deleteStockClockOf(db: Db, storeId: string) {
  return db.delete(stockClock).where(eq(stockClock.storeId, storeId));
}

export async function findProduct(db: Db, storeId: string, sku: string): Promise<ProductRow | undefined> {
  return db
    .select()
    .from(products)
    .where(and(eq(products.storeId, storeId), eq(products.sku, sku)))
    .get();
}

export async function countProducts(db: Db, storeId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(products).where(eq(products.storeId, storeId)).get();
  return row?.n ?? 0;
}

const PAGE_COLUMNS = "sku, title, description, link, image_link, price, currency, availability, brand, gtin, attributes, updated_at, quantity, stock_seq";

/**
 * The next page after `afterSku` (null: from the start), in Sku order; the primary key serves it.
 * The compile's hot read: plain D1 with rows as arrays, mapped here, skips the ORM's generic
 * per-column mapping, which cost about as much as the query itself on a million rows.
 */
export async function pageProducts(d1: D1Database, storeId: string, afterSku: string | null, limit: number): Promise<ProductRow[]> {
  const statement =
    afterSku === null
      ? d1.prepare(`select ${PAGE_COLUMNS} from products where store_id = ?1 order by sku limit ?2`).bind(storeId, limit)
      : d1.prepare(`select ${PAGE_COLUMNS} from products where store_id = ?1 and sku > ?3 order by sku limit ?2`).bind(storeId, limit, afterSku);
  const rows =
    await statement.raw<
      [
        string,
        string | null,
        string | null,
        string | null,
        string | null,
        number | null,
        string | null,
        string | null,
        string | null,
        string | null,
        string | null,
        number,
        number | null,
        number | null,
      ]
    >();
  const out = new Array<ProductRow>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    out[i] = {
      storeId,
      sku: r[0],
      title: r[1],
      description: r[2],
      link: r[3],
      imageLink: r[4],
      price: r[5],
      currency: r[6],
      availability: r[7],
      brand: r[8],
      gtin: r[9],
      attributes: r[10] === null ? null : (JSON.parse(r[10]) as Record<string, string>),
      updatedAt: r[11],
      quantity: r[12],
      stockSeq: r[13],
    };
  }
  return out;
}

/** How many of these Skus (at most 1,000, as one JSON parameter) the store does not hold yet. */
export async function countUnknownSkus(db: Db, storeId: string, skus: string[]): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(sql`json_each(${JSON.stringify(skus)}) as upload`)
    .where(sql`not exists (select 1 from ${products} where ${products.storeId} = ${storeId} and ${products.sku} = upload.value)`)
    .get();
  return row?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Stock (decisions 11): the statements that move a product's Quantity. Each is built here and run
// inside the batch of the write that causes it (PUT Inventory, an order stored, a cancellation),
// so the stock and the order never disagree. Only tracked products (quantity not null) move, and
// never below 0. The triggers of migrations/0008_stock.sql stamp every change on the stock clock.

/** What PUT Inventory sets on one Sku: an absent field is left as it is; Quantity null stops tracking. */
export interface InventoryChange {
  sku: string;
  quantity?: number | null;
  price?: number | null;
}

const has = (value: unknown) => (value === undefined ? 0 : 1);

/**
 * Applies the changes of known Skus and answers the positions (from 0) of the unknown ones, in
 * one batch. A Sku named twice takes its last change.
 */
export async function setInventory(db: Db, storeId: string, changes: InventoryChange[], now: number): Promise<{ updated: number; unknown: number[] }> {
  const last = new Map<string, InventoryChange>();
  for (const change of changes) last.set(change.sku, change);
  const tuples = [...last.values()].map((c) => [c.sku, has(c.quantity), c.quantity ?? null, has(c.price), c.price ?? null]);
  const d1 = db.$client;
  const [unknown] = await d1.batch<{ key: number }>([
    d1
      .prepare(`select key from json_each(?2) as u where not exists (select 1 from products where store_id = ?1 and sku = u.value ->> 0) order by key`)
      .bind(storeId, JSON.stringify(changes.map((c) => [c.sku]))),
    // An upsert over rows that exist (the select finds them) rather than UPDATE ... FROM
    // json_each, whose plan walked the store's products once per item: CROSS JOIN pins the loop
    // to the items first, one primary-key probe each. The stock triggers see an update.
    d1
      .prepare(
        `insert into products (store_id, sku, quantity, price, updated_at)
        select p.store_id, p.sku,
          case when u.value ->> 1 = 1 then u.value ->> 2 else p.quantity end,
          case when u.value ->> 3 = 1 then u.value ->> 4 else p.price end,
          ?3
        from json_each(?2) as u cross join products as p
        where p.store_id = ?1 and p.sku = u.value ->> 0
        on conflict (store_id, sku) do update set quantity = excluded.quantity, price = excluded.price, updated_at = excluded.updated_at`,
      )
      .bind(storeId, JSON.stringify(tuples), now),
  ]);
  const positions = unknown!.results.map((r) => r.key);
  // Counted here: meta.changes also counts the rows the stock triggers touch.
  return { updated: last.size - new Set(positions.map((i) => changes[i]!.sku)).size, unknown: positions };
}

// What each line took is kept on the line (order_items.stock_taken), set in the write that lowers
// the stock: a line takes its quantity while its Sku has it, what is left when the take stops at
// 0 (the lines of one write served in order), nothing for an untracked or unknown Sku. Giving
// back reads it (givenBackSql below).

/**
 * SQL: the units of stock one line of a write takes, for the lines' INSERT ... SELECT (the only
 * place a line's stock_taken is set). `before` is its product's quantity before the write took
 * any (null: untracked or unknown), `units` the line's quantity, `takes` 1 when the line takes
 * stock at all (0: its order arrives cancelled), `sku` and `key` the line's Sku and position: the
 * write's earlier lines of the same Sku are served first.
 */
export function lineTakesSql(at: { before: string; units: string; takes: string; sku: string; key: string }): string {
  const earlier = `coalesce(sum(case when ${at.takes} = 1 then ${at.units} else 0 end) over (partition by ${at.sku} order by ${at.key}
    rows between unbounded preceding and 1 preceding), 0)`;
  return `case when ${at.takes} = 1 and ${at.before} is not null then min(${at.units}, max(0, ${at.before} - ${earlier})) else 0 end`;
}

/**
 * SQL: a JSON array of the OrderItemIds of order `orderId`'s lines whose Sku is not tracked
 * (no product, or a product without a quantity): lines that took no stock whatever they ordered,
 * as lines whose Sku had none did. An acceptance decided by what lines took (decisions 14,
 * src/outbox/outbox.queries.ts's acceptOnImportStatement) reads it in the take's batch.
 */
export function untrackedLinesSql(storeId: string, orderId: string): string {
  return `(select json_group_array(u.id) from (select i.id from order_items as i
      left join products as p on p.store_id = ${storeId} and p.sku = i.sku
      where i.order_id = ${orderId} and p.quantity is null order by i.id) as u)`;
}

/** An order a client inserted lowers its Skus by what its lines took: run in the insert's batch, after its lines. */
export function stockTakenStatement(d1: D1Database, storeId: string, order: { orderSource: string; number: string }): D1PreparedStatement {
  const lines = `select i.sku, i.stock_taken from order_items as i where i.order_id =
    (select id from orders where store_id = ?1 and order_source = ?2 and order_source_order_number = ?3) and i.stock_taken > 0`;
  return d1
    .prepare(
      `update products set quantity = max(0, quantity - (select sum(l.stock_taken) from (${lines}) as l where l.sku = products.sku))
      where store_id = ?1 and quantity is not null and sku in (select l.sku from (${lines}) as l)`,
    )
    .bind(storeId, order.orderSource, order.number);
}

/**
 * An imported page's take, in two statements around the insert of its lines. `fresh` is the SQL
 * (a SELECT of `sku` and `units`, with `?1` the store, `?2` the source, `?3` the page's lines) of
 * the lines the insert is about to write whose order takes stock: written once, by the lines'
 * owner (src/orders/orders.writes.ts), and run by both this statement and the insert, so they
 * agree on what a page takes, and a page imported again (its lines known) takes nothing.
 *
 * This one lowers each Sku by all its new lines ask, WITHOUT stopping at 0, so the insert after it
 * still reads what the Sku had (its quantity now plus what its lines asked) and gives each line
 * its share (lineTakesSql); each line the insert writes brings its Sku back to 0 if below (the
 * trigger order_items_stock_settled, migrations/0017_stock_taken.sql), so nothing else ever
 * reads a value below 0. A trigger rather than a statement after the insert: a page's statements
 * are what an import spends of an invocation's 1,000 D1 queries.
 */
export function stockAskedByImportStatement(d1: D1Database, storeId: string, sourceId: string, lines: string, fresh: string): D1PreparedStatement {
  return d1
    .prepare(
      `update products set quantity = quantity - (select sum(f.units) from (${fresh}) as f where f.sku = products.sku)
      where store_id = ?1 and quantity is not null and sku in (select f.sku from (${fresh}) as f)`,
    )
    .bind(storeId, sourceId, lines);
}

/**
 * SQL: the units of stock a line `i` (an order_items row) has given back once `cancelled` of its
 * units are cancelled. Cancelled units first use up what the line never took: a line that took
 * all it ordered gives back every cancelled unit, a line of 5 that took 2 gives back nothing for
 * its first 3 cancelled units and 2 for the last 2, in whatever calls they come. A line stored
 * before stock_taken existed reads as having taken its quantity (what was given back then). The
 * same rule as src/orders/order-moves.ts's stockGivenBack.
 */
const givenBackSql = (i: string, cancelled: string) => `max(0, ${cancelled} - (${i}.quantity - coalesce(${i}.stock_taken, ${i}.quantity)))`;

/**
 * SQL: the marketplace's status word of `o` says cancelled (Walmart, Shopify: Cancelled; eBay,
 * Amazon, Mirakl: Canceled) or refused (Mirakl: REFUSED, every line refused before acceptance).
 */
const CANCELLED_AT_MARKETPLACE = (o: string) => `lower(${o}.source_order_status) in ('cancelled', 'canceled', 'refused')`;
/** Whether a marketplace status word means the order is cancelled (the same rule as the SQL above). */
export const cancelledAtMarketplace = (word: string) => /^(cancell?ed|refused)$/i.test(word.trim());

/**
 * Known orders of the source whose marketplace now says cancelled (`numbers`) give back what
 * their lines still hold, once: what cancelling every unit neither shipped nor cancelled gives
 * back (givenBackSql). Runs in the page's batch BEFORE the upsert stores the new status word.
 */
export function stockBackByImportStatement(d1: D1Database, storeId: string, sourceId: string, numbers: string[]): D1PreparedStatement {
  const held = `select i.sku, ${givenBackSql("i", "i.quantity - i.quantity_shipped")} - ${givenBackSql("i", "i.quantity_cancelled")} as quantity
    from order_items as i join orders as o on o.id = i.order_id
    where o.store_id = ?1 and o.order_source = (select name from sources where id = ?2)
      and o.order_source_order_number in (select value from json_each(?3)) and not ${CANCELLED_AT_MARKETPLACE("o")}`;
  return d1
    .prepare(
      `update products set quantity = quantity + (select sum(h.quantity) from (${held}) as h where h.sku = products.sku)
      where store_id = ?1 and quantity is not null and sku in (select h.sku from (${held}) as h)`,
    )
    .bind(storeId, sourceId, JSON.stringify(numbers));
}

/**
 * Cancelled units give their stock back, whichever side cancelled them (decisions 11 and 12):
 * `units` holds [orderId, dateUpdated, sku, units] of the moves of one batch (the units each move
 * decided its lines give back, order-moves.ts's stockGivenBack: never more than they took), each counted only
 * while `guard` holds for its order (built on `u.value ->> 0` and `u.value ->> 1`) and while the
 * order still holds its stock (an order the marketplace cancelled whole gave all of it back at
 * that import). Runs in the moves' batch, before the orders' update.
 */
export function stockBackStatement(d1: D1Database, storeId: string, units: [number, number, string, number][], guard: SQL): D1PreparedStatement {
  const held = sql`${guard} and not exists (select 1 from orders as o where o.id = u.value ->> 0 and ${sql.raw(CANCELLED_AT_MARKETPLACE("o"))})`;
  const json = JSON.stringify(units);
  const query = dialect.sqlToQuery(sql`update products set quantity = quantity + (select sum(u.value ->> 3) from json_each(${json}) as u where u.value ->> 2 =
      products.sku and ${held})
    where store_id = ${storeId} and quantity is not null and sku in (select u.value ->> 2 from json_each(${json}) as u where ${held})`);
  return d1.prepare(query.sql).bind(...query.params);
}

/**
 * A return's received units go back on the shelf ([sku, quantity] of what this receipt adds), in
 * the receipt's batch and under its guard (the return still as read), so each unit once. Untracked
 * products stay untracked.
 */
export function stockRestockedStatement(
  d1: D1Database,
  storeId: string,
  lines: [string, number][],
  guard: { returnId: number; dateUpdated: number },
): D1PreparedStatement {
  return d1
    .prepare(
      `update products set quantity = quantity + (select sum(l.value ->> 1) from json_each(?2) as l where l.value ->> 0 = products.sku)
      where store_id = ?1 and quantity is not null and sku in (select value ->> 0 from json_each(?2))
        and exists (select 1 from returns where id = ?3 and date_updated = ?4)`,
    )
    .bind(storeId, JSON.stringify(lines), guard.returnId, guard.dateUpdated);
}
