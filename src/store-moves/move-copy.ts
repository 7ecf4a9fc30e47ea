// The rows of a moving store, copied from one shard's D1 to another's: in bounded batches that
// resume from a cursor (copyBatch), then the changes logged while copying, replayed (applyChanges),
// then the old copy removed (removeBatch). The mover is the one module that handles every table of
// a store's data, so it does so opaquely: each table's columns come from its drizzle definition
// (written once, in src/db/schema.ts), rows travel as one JSON parameter per table, and an upsert
// on the primary key makes every step safe to run twice. What each table's owner knows (limits,
// usage, day counts) the destination's own triggers rebuild as the rows arrive, so store_usage and
// the day counts are never copied. Work is bounded by bytes as well as rows: a batch reads the
// sizes of the rows it may take first and takes as many as fit its bytes (at least one), and a
// table's rows are written in statements whose JSON parameter stays under VALUE_BYTES (production
// D1 takes at most 2 MB a value). Why this shape, and its limits: docs/sharding.md.
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../db/schema";

/** The tables a store's data is in, parents before children (FK order); how each is keyed. */
const TABLES = {
  sources: { table: schema.sources, key: ["id"], numeric: false },
  webhooks: { table: schema.webhooks, key: ["id"], numeric: false },
  feeds: { table: schema.feeds, key: ["id"], numeric: false },
  orders: { table: schema.orders, key: ["id"], numeric: true },
  order_items: { table: schema.orderItems, key: ["id"], numeric: true },
  line_changes: { table: schema.lineChanges, key: ["id"], numeric: true },
  outbox: { table: schema.outbox, key: ["id"], numeric: true },
  // Returns and refunds (decisions 13) go with their orders: a return names an order and its
  // lines, a refund an order, its lines and maybe a return.
  returns: { table: schema.returns, key: ["id"], numeric: true },
  return_lines: { table: schema.returnLines, key: ["id"], numeric: true },
  refunds: { table: schema.refunds, key: ["id"], numeric: true },
  refund_lines: { table: schema.refundLines, key: ["id"], numeric: true },
  set_aside_orders: { table: schema.setAsideOrders, key: ["id"], numeric: true },
  set_aside_returns: { table: schema.setAsideReturns, key: ["id"], numeric: true },
  products: { table: schema.products, key: ["store_id", "sku"], numeric: false },
  listings: { table: schema.listings, key: ["source_id", "sku"], numeric: false },
  webhook_deliveries: { table: schema.webhookDeliveries, key: ["id"], numeric: true },
  stock_clock: { table: schema.stockClock, key: ["store_id"], numeric: false },
} as const satisfies Record<string, { table: SQLiteTable; key: readonly string[]; numeric: boolean }>;
export type TableName = keyof typeof TABLES;
const PARENTS_FIRST = Object.keys(TABLES) as TableName[];

/** The tables of an order's own rows (by order_id): copied and removed with it, and counted in its size. */
const OF_ORDER = ["order_items", "line_changes", "outbox"] as const;
const ofOrder = (table: string): table is (typeof OF_ORDER)[number] => (OF_ORDER as readonly string[]).includes(table);

/** Returns and refunds (see TABLES), copied and removed with their orders, and their lines (by `parent`). */
const WITH_LINES = [
  { table: "returns", lines: "return_lines", parent: "return_id" },
  { table: "refunds", lines: "refund_lines", parent: "refund_id" },
] as const;

type Row = Record<string, unknown>;

function columnsOf(name: TableName): string[] {
  return Object.values(getTableColumns(TABLES[name].table)).map((column) => column.name);
}

/** INSERT ... ON CONFLICT (key) DO UPDATE of every column, from a JSON array of rows (?1). */
const upsertSql = memo((name: TableName) => {
  const columns = columnsOf(name);
  const key = TABLES[name].key;
  const values = columns.map((c) => `json_extract(value, '$.${c}')`).join(", ");
  const set = columns.filter((c) => !(key as readonly string[]).includes(c)).map((c) => `${c} = excluded.${c}`);
  return `insert into ${getTableName(TABLES[name].table)} (${columns.join(", ")}) select ${values} from json_each(?1) where true
    on conflict (${key.join(", ")}) do ${set.length ? `update set ${set.join(", ")}` : "nothing"}`;
});

function memo<T>(make: (name: TableName) => T): (name: TableName) => T {
  const made = new Map<TableName, T>();
  return (name) => {
    if (!made.has(name)) made.set(name, make(name));
    return made.get(name)!;
  };
}

/**
 * Tables with a unique key besides the primary one, and the column a clash is parked in. A row may
 * arrive with the key a row of the destination holds under another id (an order number deleted and
 * inserted again, a set-aside order dismissed and set aside again, a source's name given to another
 * source, its orders' OrderSource renamed with it). The source's own unique index says the held
 * row's key has changed there, or the row is gone, and that change is in the log: the held row's key
 * is parked (suffixed with its id) until its own change arrives, so neither row, nor an order's
 * lines, is ever deleted to make room.
 */
const UNIQUE: Partial<Record<TableName, { key: string[]; park: string }>> = {
  orders: { key: ["store_id", "order_source", "order_source_order_number"], park: "order_source_order_number" },
  set_aside_orders: { key: ["source_id", "order_source_order_number"], park: "order_source_order_number" },
  set_aside_returns: { key: ["source_id", "source_return_number"], park: "source_return_number" },
  sources: { key: ["store_id", "name"], park: "name" },
};

function parkings(to: D1Database, name: TableName, json: string): D1PreparedStatement[] {
  const unique = UNIQUE[name];
  if (!unique) return [];
  const table = getTableName(TABLES[name].table);
  const incoming = (columns: string[]) => `select ${columns.map((c) => `json_extract(value, '$.${c}')`).join(", ")} from json_each(?1)`;
  return [
    to
      .prepare(
        `update ${table} set ${unique.park} = ${unique.park} || ' (moving ' || id || ')'
         where (${unique.key.join(", ")}) in (${incoming(unique.key)})
           and (id, ${unique.key.join(", ")}) not in (${incoming(["id", ...unique.key])})`,
      )
      .bind(json),
  ];
}

/** The most a statement's JSON parameter holds: half of production D1's 2 MB a value. */
export const VALUE_BYTES = 1_000_000;

const encoder = new TextEncoder();

/** Rows in groups whose JSON stays under VALUE_BYTES (a row larger alone is a group of its own). */
function chunks(rows: Row[]): Row[][] {
  const out: Row[][] = [];
  let current: Row[] = [];
  let size = 2;
  for (const row of rows) {
    const bytes = encoder.encode(JSON.stringify(row)).byteLength + 1;
    if (current.length > 0 && size + bytes > VALUE_BYTES) {
      out.push(current);
      current = [];
      size = 2;
    }
    current.push(row);
    size += bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function upsert(to: D1Database, name: TableName, rows: Row[]): D1PreparedStatement[] {
  return chunks(rows).flatMap((chunk) => upsertChunk(to, name, chunk));
}

function upsertChunk(to: D1Database, name: TableName, rows: Row[]): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  const json = JSON.stringify(rows);
  const statements = [...parkings(to, name, json), to.prepare(upsertSql(name)).bind(json)];
  // A product's insert moves the destination's stock clock (its trigger); the plan cursors of the
  // store's listings count in the old shard's clock, so each product keeps its own stock_seq.
  if (name === "products") {
    statements.push(
      to
        .prepare(
          "update products set stock_seq = json_extract(j.value, '$.stock_seq') from json_each(?1) j where products.store_id = json_extract(j.value, " +
            "'$.store_id') and products.sku = json_extract(j.value, '$.sku')",
        )
        .bind(json),
    );
  }
  return statements;
}

/**
 * A row's size as a JSON object, estimated in SQL from its columns (UTF-8 bytes of each value, its
 * name and punctuation), so a batch can choose how many rows to read before reading them.
 */
const sizeSql = memo((name: TableName) => (alias: string) => {
  const columns = columnsOf(name);
  const names = columns.reduce((n, c) => n + c.length + 6, 2);
  // A balanced sum: SQLite refuses an expression tree deeper than 100, and a chain of one `+` per column of orders is.
  return `(${balancedSum(columns.map((c) => `coalesce(length(cast(${alias}.${c} as blob)), 4)`))} + ${names})`;
});

function balancedSum(terms: string[]): string {
  if (terms.length === 1) return terms[0]!;
  const half = Math.ceil(terms.length / 2);
  return `(${balancedSum(terms.slice(0, half))} + ${balancedSum(terms.slice(half))})`;
}

/** How many of the sized rows (in key order) a batch of `bytes` takes: as many as fit, at least one. */
function fitting(sizes: Row[], bytes: number): number {
  let used = 0;
  for (let i = 0; i < sizes.length; i++) {
    used += Number(sizes[i]!.bytes);
    if (i > 0 && used > bytes) return i;
  }
  return sizes.length;
}

async function all(d1: D1Database, query: string, ...binds: unknown[]): Promise<Row[]> {
  return (
    await d1
      .prepare(query)
      .bind(...binds)
      .all<Row>()
  ).results;
}

// ---------------------------------------------------------------------------------------------
// The copy

/** Where the copy stands: the phase, which source or webhook of the store (by index), the last key copied. */
export interface CopyCursor {
  phase: "small" | "orders" | "products" | "listings" | "setAside" | "setAsideReturns" | "deliveries" | "stockClock" | "done";
  item: number;
  after: string | number | null;
}
export const COPY_START: CopyCursor = { phase: "small", item: 0, after: null };
const NEXT: Record<CopyCursor["phase"], CopyCursor["phase"]> = {
  small: "orders",
  orders: "products",
  products: "listings",
  listings: "setAside",
  setAside: "setAsideReturns",
  setAsideReturns: "deliveries",
  deliveries: "stockClock",
  stockClock: "done",
  done: "done",
};

export interface CopyLimits {
  /** Orders (each with its lines, line changes and outbox rows) or other rows per batch. */
  rows: number;
  /** Bytes a batch takes at most (one order with its lines, or one row, larger alone is a batch of its own). */
  bytes: number;
}

const next = (cursor: CopyCursor): CopyCursor => ({ phase: NEXT[cursor.phase], item: 0, after: null });

/**
 * Copies one batch of the store's rows from `from` to `to` (one read per table, one D1 batch
 * written) and answers where the next batch starts and how many rows this one copied. A batch
 * short of the limit ends its table: rows written behind it since the capture began are in the
 * change log, so a store written faster than one batch a step is never chased.
 */
export async function copyBatch(
  from: D1Database,
  to: D1Database,
  storeId: string,
  cursor: CopyCursor,
  limits: CopyLimits,
): Promise<{ cursor: CopyCursor; rows: number }> {
  const n = limits.rows;
  switch (cursor.phase) {
    case "small": {
      // Sources, endpoints and feeds: at most a few hundred each (the store's limits).
      const [sources, webhooks, feeds] = await Promise.all(
        ["sources", "webhooks", "feeds"].map((t) => all(from, `select * from ${t} where store_id = ?1`, storeId)),
      );
      await write(to, [...upsert(to, "sources", sources!), ...upsert(to, "webhooks", webhooks!), ...upsert(to, "feeds", feeds!)]);
      return { cursor: next(cursor), rows: sources!.length + webhooks!.length + feeds!.length };
    }
    case "orders": {
      // The next orders by id, as many as fit the batch's bytes with their lines, line changes and outbox rows.
      const after = cursor.after ?? -1;
      const sizes = await all(
        from,
        `select o.id as k, ${sizeSql("orders")("o")}
           ${OF_ORDER.map((t) => `+ coalesce((select sum(${sizeSql(t)("c")}) from ${t} c where c.order_id = o.id), 0)`).join(" ")} as bytes
         from orders o where o.store_id = ?1 and o.id > ?2 order by o.id limit ?3`,
        storeId,
        after,
        n,
      );
      if (sizes.length === 0) return { cursor: next(cursor), rows: 0 };
      const taken = fitting(sizes, limits.bytes);
      const last = sizes[taken - 1]!.k as number;
      const orders = await all(from, "select * from orders where store_id = ?1 and id > ?2 and id <= ?3 order by id", storeId, after, last);
      const within = (table: string, column: string, parents: Row[]) =>
        all(from, `select * from ${table} where ${column} in (select value from json_each(?1)) order by id`, JSON.stringify(parents.map((r) => r.id)));
      // Returns and refunds go with their orders; their size is not in the byte bound.
      const [own, withLines] = await Promise.all([
        Promise.all(OF_ORDER.map((t) => within(t, "order_id", orders))),
        Promise.all(
          WITH_LINES.map(async (w) => {
            const parents = await within(w.table, "order_id", orders);
            return [parents, parents.length ? await within(w.lines, w.parent, parents) : []] as const;
          }),
        ),
      ]);
      const written: [TableName, Row[]][] = [
        ["orders", orders],
        ...OF_ORDER.map((t, i) => [t, own[i]!] as [TableName, Row[]]),
        ...WITH_LINES.flatMap((w, i) => [[w.table, withLines[i]![0]] as [TableName, Row[]], [w.lines, withLines[i]![1]] as [TableName, Row[]]]),
      ];
      await write(
        to,
        written.flatMap(([name, rows]) => upsert(to, name, rows)),
      );
      const ended = sizes.length < n && taken === sizes.length;
      return {
        cursor: ended ? next(cursor) : { ...cursor, after: last },
        rows: written.reduce((sum, [, rows]) => sum + rows.length, 0),
      };
    }
    case "products": {
      const result = await copyRange(from, to, "products", "store_id", storeId, "sku", cursor.after ?? "", limits);
      return { cursor: result.ended ? next(cursor) : { ...cursor, after: result.last }, rows: result.rows };
    }
    case "listings":
    case "setAside":
    case "setAsideReturns": {
      // Per source, by the source's own index (listings by Sku, set-aside by order or return number).
      const sources = await all(from, "select id from sources where store_id = ?1 order by id", storeId);
      const source = sources[cursor.item]?.id;
      if (source === undefined) return { cursor: next(cursor), rows: 0 };
      const [table, column] =
        cursor.phase === "listings"
          ? (["listings", "sku"] as const)
          : cursor.phase === "setAside"
            ? (["set_aside_orders", "order_source_order_number"] as const)
            : (["set_aside_returns", "source_return_number"] as const);
      const result = await copyRange(from, to, table, "source_id", source, column, cursor.after ?? "", limits);
      return { cursor: result.ended ? { ...cursor, item: cursor.item + 1, after: null } : { ...cursor, after: result.last }, rows: result.rows };
    }
    case "deliveries": {
      const webhooks = await all(from, "select id from webhooks where store_id = ?1 order by id", storeId);
      const webhook = webhooks[cursor.item]?.id;
      if (webhook === undefined) return { cursor: next(cursor), rows: 0 };
      const result = await copyRange(from, to, "webhook_deliveries", "webhook_id", webhook, "id", cursor.after ?? -1, limits);
      return { cursor: result.ended ? { ...cursor, item: cursor.item + 1, after: null } : { ...cursor, after: result.last }, rows: result.rows };
    }
    case "stockClock": {
      const rows = await all(from, "select * from stock_clock where store_id = ?1", storeId);
      await write(to, upsert(to, "stock_clock", rows));
      return { cursor: next(cursor), rows: rows.length };
    }
    case "done":
      return { cursor, rows: 0 };
  }
}

/**
 * Copies the next rows of `table` whose `scope` column is `owner`, in `key` order after `after`:
 * as many as the batch's rows and bytes allow (at least one). Answers the last key copied and
 * whether the range ended.
 */
async function copyRange(
  from: D1Database,
  to: D1Database,
  name: TableName,
  scope: string,
  owner: unknown,
  key: string,
  after: string | number,
  limits: CopyLimits,
): Promise<{ rows: number; last: string | number; ended: boolean }> {
  const table = getTableName(TABLES[name].table);
  const sizes = await all(
    from,
    `select t.${key} as k, ${sizeSql(name)("t")} as bytes from ${table} t where t.${scope} = ?1 and t.${key} > ?2 order by t.${key} limit ?3`,
    owner,
    after,
    limits.rows,
  );
  if (sizes.length === 0) return { rows: 0, last: after, ended: true };
  const taken = fitting(sizes, limits.bytes);
  const last = sizes[taken - 1]!.k as string | number;
  const rows = await all(from, `select * from ${table} where ${scope} = ?1 and ${key} > ?2 and ${key} <= ?3 order by ${key}`, owner, after, last);
  await write(to, upsert(to, name, rows));
  return { rows: rows.length, last, ended: sizes.length < limits.rows && taken === sizes.length };
}

async function write(to: D1Database, statements: D1PreparedStatement[]): Promise<void> {
  if (statements.length > 0) await to.batch(statements);
}

// ---------------------------------------------------------------------------------------------
// The changes logged while copying

/** Whether the destination's copy of a row must be written again or removed. */
interface Change {
  tbl: TableName;
  k1: string;
  k2: string | null;
}

const keyOf = (c: { tbl: string; k1: string; k2: string | null }) => `${c.tbl}\u0000${c.k1}\u0000${c.k2 ?? ""}`;

/**
 * Replays logged changes of the store, oldest first: up to `limits.changes` of them, and no more
 * than fit `limits.bytes` (the sizes of the changed rows are read first; at least one change).
 * Each changed row is read as it is now in `from` and written to `to`, or removed from `to` if it
 * is gone. Deletes go first, children before parents, then writes, parents before children, so
 * foreign keys hold at every statement and a key removed and added again (a re-created source
 * name) does not collide. Answers how many log entries it consumed (removed from the log once
 * applied) and whether more wait.
 */
export async function applyChanges(
  from: D1Database,
  to: D1Database,
  storeId: string,
  limits: { changes: number; bytes: number },
): Promise<{ applied: number; more: boolean }> {
  const log = (await all(
    from,
    "select seq, tbl, k1, k2 from move_log where store_id = ?1 order by seq limit ?2",
    storeId,
    limits.changes,
  )) as unknown as (Change & { seq: number })[];
  if (log.length === 0) return { applied: 0, more: false };
  // The sizes of the rows changed, then as many changes, in log order, as fit the bytes.
  const sizes = new Map<string, number>();
  for (const [name, keys] of byTable(distinct(log))) {
    for (const row of await readRows(from, storeId, name, keys, `${keyColumns(name)}, ${sizeSql(name)(getTableName(TABLES[name].table))} as bytes`)) {
      sizes.set(`${name}\u0000${rowKey(name, row)}`, Number(row.bytes));
    }
  }
  let used = 0;
  let taken = log.length;
  const seen = new Set<string>();
  for (let i = 0; i < log.length; i++) {
    const entry = log[i]!;
    if (seen.has(keyOf(entry))) continue;
    seen.add(keyOf(entry));
    used += sizes.get(`${entry.tbl}\u0000${changeKey(entry.tbl as TableName, entry)}`) ?? 0;
    if (i > 0 && used > limits.bytes) {
      taken = i;
      break;
    }
  }
  const kept = log.slice(0, taken);
  const deletes: D1PreparedStatement[][] = [];
  const writes: D1PreparedStatement[][] = [];
  const changed = byTable(distinct(kept));
  for (const name of PARENTS_FIRST) {
    const keys = changed.get(name);
    if (!keys) continue;
    const { present, gone } = await readCurrent(from, storeId, name, keys);
    writes.push(upsert(to, name, present));
    if (gone.length > 0) deletes.unshift([deleteByKeys(to, storeId, name, gone)]);
  }
  const lastSeq = kept.at(-1)!.seq;
  await write(to, [...deletes.flat(), ...writes.flat()]);
  await from.prepare("delete from move_log where store_id = ?1 and seq <= ?2").bind(storeId, lastSeq).run();
  return { applied: kept.length, more: taken < log.length || log.length === limits.changes };
}

/** The distinct changes of a log, first occurrence kept. */
function distinct(log: Change[]): Change[] {
  const changes = new Map<string, Change>();
  for (const entry of log) if (entry.tbl in TABLES && !changes.has(keyOf(entry))) changes.set(keyOf(entry), { tbl: entry.tbl, k1: entry.k1, k2: entry.k2 });
  return [...changes.values()];
}

function byTable(changes: Change[]): Map<TableName, Change[]> {
  const out = new Map<TableName, Change[]>();
  for (const change of changes) out.set(change.tbl, [...(out.get(change.tbl) ?? []), change]);
  return out;
}

/** The columns a row of the table is known by in the log. */
function keyColumns(name: TableName): string {
  if (name === "products") return "sku";
  if (name === "listings") return "source_id, sku";
  return TABLES[name].key[0]!;
}

/** The rows of these keys as they are now in `from`; the keys with no row there. */
async function readCurrent(from: D1Database, storeId: string, name: TableName, keys: Change[]): Promise<{ present: Row[]; gone: Change[] }> {
  const rows = await readRows(from, storeId, name, keys, "*");
  const found = new Set(rows.map((r) => rowKey(name, r)));
  return { present: rows, gone: keys.filter((k) => !found.has(changeKey(name, k))) };
}

/** `columns` of the rows of these keys in `from`. */
async function readRows(from: D1Database, storeId: string, name: TableName, keys: Change[], columns: string): Promise<Row[]> {
  const spec = TABLES[name];
  const table = getTableName(spec.table);
  if (name === "products") {
    // Logged by Sku: the store is the moving one.
    return all(
      from,
      `select ${columns} from products where store_id = ?2 and sku in (select value from json_each(?1))`,
      JSON.stringify(keys.map((k) => k.k1)),
      storeId,
    );
  }
  if (name === "listings") {
    return all(
      from,
      `select ${columns} from listings where (source_id, sku) in (select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(?1))`,
      JSON.stringify(keys.map((k) => [k.k1, k.k2])),
    );
  }
  const ids = JSON.stringify(keys.map((k) => (spec.numeric ? Number(k.k1) : k.k1)));
  return all(from, `select ${columns} from ${table} where ${spec.key[0]} in (select value from json_each(?1))`, ids);
}

function rowKey(name: TableName, row: Row): string {
  if (name === "products") return `${row.sku}`;
  if (name === "listings") return `${row.source_id}\u0000${row.sku}`;
  return String(row[TABLES[name].key[0]!]);
}

function changeKey(name: TableName, change: Change): string {
  return name === "listings" ? `${change.k1}\u0000${change.k2}` : change.k1;
}

function deleteByKeys(to: D1Database, storeId: string, name: TableName, keys: Change[]): D1PreparedStatement {
  const spec = TABLES[name];
  const table = getTableName(spec.table);
  if (name === "listings") {
    return to
      .prepare(`delete from ${table} where (source_id, sku) in (select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(?1))`)
      .bind(JSON.stringify(keys.map((k) => [k.k1, k.k2])));
  }
  if (name === "products") {
    return to
      .prepare(`delete from ${table} where store_id = ?2 and sku in (select value from json_each(?1))`)
      .bind(JSON.stringify(keys.map((k) => k.k1)), storeId);
  }
  return to
    .prepare(`delete from ${table} where ${spec.key[0]} in (select value from json_each(?1))`)
    .bind(JSON.stringify(keys.map((k) => (spec.numeric ? Number(k.k1) : k.k1))));
}

// ---------------------------------------------------------------------------------------------
// The old copy, removed once the store lives in its new shard

/** Removal order: children before parents, the derived tables and the store's own row last. */
const REMOVE_STEPS = [
  "refund_lines",
  "refunds",
  "return_lines",
  "returns",
  "order_items",
  "line_changes",
  "outbox",
  "orders",
  "webhook_deliveries",
  "listings",
  "set_aside_orders",
  "set_aside_returns",
  "products",
  "feeds",
  "webhooks",
  "sources",
  "derived",
] as const;
export type RemoveCursor = { step: number };
export const REMOVE_START: RemoveCursor = { step: 0 };

/**
 * Deletes up to `limit` rows of the current step from `from` (an order's lines and outbox rows
 * count with it); the step ends when it deletes fewer. `keepStoreRow`: the store's row and usage
 * there stay (the directory's own, when a store from before sharding leaves it).
 */
export async function removeBatch(
  from: D1Database,
  storeId: string,
  cursor: RemoveCursor,
  limit: number,
  keepStoreRow: boolean,
): Promise<{ cursor: RemoveCursor | null; rows: number }> {
  const step = REMOVE_STEPS[cursor.step];
  if (step === undefined) return { cursor: null, rows: 0 };
  const bySource = `(select id from sources where store_id = ?1)`;
  const byWebhook = `(select id from webhooks where store_id = ?1)`;
  // Refunds name returns, and both name order lines: they go in the steps before the orders'.
  const withLines = Object.fromEntries(
    WITH_LINES.flatMap((w) => [
      [w.lines, `delete from ${w.lines} where id in (select l.id from ${w.lines} l join ${w.table} r on r.id = l.${w.parent} where r.store_id = ?1 limit ?2)`],
      [w.table, `delete from ${w.table} where id in (select id from ${w.table} where store_id = ?1 limit ?2)`],
    ]),
  ) as Record<(typeof WITH_LINES)[number]["table" | "lines"], string>;
  const statement: Record<Exclude<(typeof REMOVE_STEPS)[number], "derived" | (typeof OF_ORDER)[number] | "orders">, string> = {
    ...withLines,
    webhook_deliveries: `delete from webhook_deliveries where id in (select id from webhook_deliveries where webhook_id in ${byWebhook} limit ?2)`,
    listings: `delete from listings where rowid in (select rowid from listings where source_id in ${bySource} limit ?2)`,
    set_aside_orders: `delete from set_aside_orders where id in (select id from set_aside_orders where source_id in ${bySource} limit ?2)`,
    set_aside_returns: `delete from set_aside_returns where id in (select id from set_aside_returns where source_id in ${bySource} limit ?2)`,
    products: `delete from products where rowid in (select rowid from products where store_id = ?1 limit ?2)`,
    feeds: `delete from feeds where id in (select id from feeds where store_id = ?1 limit ?2)`,
    webhooks: `delete from webhooks where id in (select id from webhooks where store_id = ?1 limit ?2)`,
    sources: `delete from sources where id in (select id from sources where store_id = ?1 limit ?2)`,
  };
  if (step === "derived") {
    const derived = [
      "stock_clock",
      "order_day_counts",
      "order_source_day_counts",
      "move_log",
      "move_capture",
      "store_fences",
      ...(keepStoreRow ? [] : ["store_usage"]),
    ];
    await from.batch(derived.map((t) => from.prepare(`delete from ${t} where store_id = ?1`).bind(storeId)));
    if (!keepStoreRow) await from.prepare("delete from stores where id = ?1").bind(storeId).run();
    return { cursor: null, rows: 0 };
  }
  // Counted from RETURNING: meta.changes would count the rows the tables' triggers touch too.
  if (step === "orders" || ofOrder(step)) {
    // The next orders with their lines, line changes and outbox rows, as many as make `limit` rows (at least one order).
    const sizes = await all(
      from,
      `select o.id as k, 1 ${OF_ORDER.map((t) => `+ (select count(*) from ${t} c where c.order_id = o.id)`).join(" ")} as bytes
       from orders o where o.store_id = ?1 order by o.id limit ?2`,
      storeId,
      limit,
    );
    if (sizes.length === 0) return { cursor: { step: REMOVE_STEPS.indexOf("webhook_deliveries") }, rows: 0 };
    const taken = fitting(sizes, limit);
    const ids = JSON.stringify(sizes.slice(0, taken).map((r) => r.k));
    const results = await from.batch(
      [...OF_ORDER, "orders"].map((t) =>
        from.prepare(`delete from ${t} where ${t === "orders" ? "id" : "order_id"} in (select value from json_each(?1)) returning 1 as gone`).bind(ids),
      ),
    );
    const rows = results.reduce((n, r) => n + r.results.length, 0);
    const ended = sizes.length < limit && taken === sizes.length;
    return { cursor: ended ? { step: REMOVE_STEPS.indexOf("webhook_deliveries") } : cursor, rows };
  }
  const rows = (await from.prepare(`${statement[step]} returning 1 as gone`).bind(storeId, limit).all()).results.length;
  return { cursor: rows < limit ? { step: cursor.step + 1 } : cursor, rows };
}
