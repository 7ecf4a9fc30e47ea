// Direct reads and writes of the test databases, for asserting the state a request left behind:
// a store's rows in its shard (test/helpers/shards.ts), stores and consumer keys in the directory.
import { env } from "cloudflare:workers";
import { countEverywhere, everywhere, storeD1 } from "./shards";

/**
 * Rows of a table: of one store (in its shard; its store row and keys in the directory), or in
 * every database (a store's row counts in the directory and as its shard's copy).
 */
export async function countRows(table: "orders" | "order_items" | "outbox" | "stores" | "consumer_keys" | "products", storeId?: string): Promise<number> {
  if (!storeId) return countEverywhere(`select count(*) as n from ${table}`);
  if (table === "stores" || table === "consumer_keys") {
    const row = await env.DB.prepare(`select count(*) as n from ${table} where ${table === "stores" ? "id" : "store_id"} = ?`)
      .bind(storeId)
      .first<{ n: number }>();
    return row?.n ?? 0;
  }
  const db = await storeD1(storeId);
  if (table === "order_items") {
    const row = await db
      .prepare("select count(*) as n from order_items i join orders o on o.id = i.order_id where o.store_id = ?")
      .bind(storeId)
      .first<{ n: number }>();
    return row?.n ?? 0;
  }
  const row = await db.prepare(`select count(*) as n from ${table} where store_id = ?`).bind(storeId).first<{ n: number }>();
  return row?.n ?? 0;
}

/** A marketplace source of the store, written straight into its shard: orders whose OrderSource is its Name are claimed by it. */
export async function insertSource(storeId: string, name: string): Promise<string> {
  const id = `src_${Math.random().toString(36).slice(2, 10)}`;
  const now = Date.now();
  await (await storeD1(storeId))
    .prepare(
      "insert into sources (id, store_id, type, name, enabled, settings_ciphertext, created_at, updated_at) values (?, ?, 'simulated', ?, 1, 'x.y', ?, ?)",
    )
    .bind(id, storeId, name, now, now)
    .run();
  return id;
}

export interface OutboxRow {
  id: number;
  order_id: number;
  source_id: string;
  kind: string;
  payload: string;
  state: string;
}

/** An order's outbox rows; order ids are unique across shards, so every shard is asked. */
export async function outboxOf(orderId: string | number): Promise<OutboxRow[]> {
  const rows = await everywhere<OutboxRow>("select * from outbox where order_id = ? order by id", Number(orderId));
  return rows.sort((a, b) => a.id - b.id);
}

export async function orderRow(orderId: string | number): Promise<Record<string, unknown> | null> {
  const rows = await everywhere("select * from orders where id = ?", Number(orderId));
  if (rows.length > 1) throw new Error(`order ${orderId} is in ${rows.length} databases`);
  return rows[0] ?? null;
}

/** What went to D1 through a countingD1: each statement run on its own, and each batch, as SQL text. */
export interface D1Traffic {
  alone: string[];
  batches: string[][];
}

/**
 * A D1 binding that records the SQL it runs: statements run one at a time (first, all, run, raw)
 * and batches, so a test can pin how many statements and round trips a call costs.
 */
export function countingD1(database: D1Database): { d1: D1Database; traffic: D1Traffic } {
  const traffic: D1Traffic = { alone: [], batches: [] };
  const real = new WeakMap<object, D1PreparedStatement>();
  const sqlOf = new WeakMap<object, string>();
  const wrap = (statement: D1PreparedStatement, query: string): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, name) {
        if (name === "bind") return (...values: unknown[]) => wrap(target.bind(...values), query);
        if (name === "first" || name === "all" || name === "run" || name === "raw") {
          return (...args: unknown[]) => {
            traffic.alone.push(query);
            return (target[name] as (...a: unknown[]) => unknown)(...args);
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    real.set(proxy, statement);
    sqlOf.set(proxy, query);
    return proxy;
  };
  const d1 = new Proxy(database, {
    get(target, name) {
      if (name === "prepare") return (query: string) => wrap(target.prepare(query), query);
      if (name === "batch") {
        return (statements: D1PreparedStatement[]) => {
          traffic.batches.push(statements.map((s) => sqlOf.get(s) ?? "?"));
          return target.batch(statements.map((s) => real.get(s) ?? s));
        };
      }
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { d1, traffic };
}
