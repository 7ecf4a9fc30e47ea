// The test side of shards: which D1 database holds a store's data (the shard its directory row
// names), and reads over every database at once for rows known only by their id. The binding
// names are written here, not imported, so a test of placement cannot agree with a wrong list.
import { env } from "cloudflare:workers";
import { dbOf, type Db } from "../../src/db/client";
import { admin } from "./api";

/** The directory (DB) and the shards wrangler.toml declares, in that order. */
export const DATABASES = ["DB", "SHARD_1", "SHARD_2", "SHARD_3"] as const;
export type DatabaseName = (typeof DATABASES)[number];

export function d1(name: string): D1Database {
  if (!(DATABASES as readonly string[]).includes(name)) throw new Error(`'${name}' is not a database of the test setup`);
  return env[name as DatabaseName];
}

/** The shard a store lives in, as its directory row says. */
export async function shardOf(storeId: string): Promise<DatabaseName> {
  const row = await env.DB.prepare("select shard from stores where id = ?").bind(storeId).first<{ shard: string }>();
  if (!row) throw new Error(`store '${storeId}' has no directory row`);
  d1(row.shard);
  return row.shard as DatabaseName;
}

/** The D1 database holding a store's orders, products, feeds, sources and webhooks. */
export async function storeD1(storeId: string): Promise<D1Database> {
  return d1(await shardOf(storeId));
}

/** The drizzle database over a D1 binding (or a test's wrapper of one), for calling a module directly. */
export function drizzleOf(database: D1Database): Db {
  return dbOf(database);
}

/** The drizzle database of a store's shard. */
export async function storeDrizzle(storeId: string): Promise<Db> {
  return drizzleOf(await storeD1(storeId));
}

/** Every row a query finds in any database (for rows known by an id unique across shards). */
export async function everywhere<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]> {
  const answers = await Promise.all(
    DATABASES.map((name) =>
      env[name]
        .prepare(sql)
        .bind(...params)
        .all<T>(),
    ),
  );
  return answers.flatMap((answer) => answer.results);
}

/** A `count(*) as n` query summed over every database. */
export async function countEverywhere(sql: string, ...params: unknown[]): Promise<number> {
  const rows = await everywhere<{ n: number }>(sql, ...params);
  return rows.reduce((sum, row) => sum + row.n, 0);
}

/** The databases holding a row the query finds, by name (an isolation test's "only in its own shard"). */
export async function databasesWith(sql: string, ...params: unknown[]): Promise<DatabaseName[]> {
  const found = await Promise.all(
    DATABASES.map(async (name) =>
      (
        await env[name]
          .prepare(sql)
          .bind(...params)
          .all()
      ).results.length > 0
        ? name
        : undefined,
    ),
  );
  return found.filter((name): name is DatabaseName => name !== undefined);
}

/** A store the operator placed on a named shard (POST /admin/v1/stores {Shard}). */
export async function storeOn(shard: DatabaseName, name = `Store on ${shard}`): Promise<string> {
  const res = await admin("POST", "/stores", { Name: name, Shard: shard });
  if (res.status !== 200) throw new Error(`storeOn: ${res.status} ${res.text}`);
  return (res.json.Store as { StoreId: string }).StoreId;
}
