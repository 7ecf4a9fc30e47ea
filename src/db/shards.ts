// Which database holds what, and the only place a shard's name becomes a database. The directory
// (the DB binding) holds what a request needs before it knows the store: stores and the shard each
// lives in, consumer keys, maintenance, console sign-outs, id epochs. Each store's own data
// (orders, lines, outbox, products, feeds, sources, listings, webhooks) lives in one shard: every
// D1 binding named SHARD_*. One schema (migrations/) is applied to all of them; no query joins
// across two. Stores created before sharding stay in the directory ('DB', always draining) until
// moved. Why shards of D1 and how far they go: docs/sharding.md.
import { eq, max } from "drizzle-orm";
import * as schema from "./schema";
import { dbOf, type Db } from "./client";

/** The directory's name as a shard: where stores made before sharding live. */
export const DIRECTORY = "DB";
const SHARD_BINDING = /^SHARD_[A-Z0-9_]{1,40}$/;

/** Tables with AUTOINCREMENT ids a move keeps: each shard allocates them from its own epoch. */
const EPOCH_TABLES = [
  "orders",
  "order_items",
  "outbox",
  "set_aside_orders",
  "webhook_deliveries",
  "line_changes",
  "returns",
  "return_lines",
  "refunds",
  "refund_lines",
  "set_aside_returns",
] as const;
/** Ids per epoch: 2^34 (17 billion per table); 2^53 / 2^34 = 524,288 epochs for the hub's life. */
export const EPOCH_SIZE = 2 ** 34;

type Bindings = Record<string, unknown>;

function isD1(value: unknown): value is D1Database {
  return (
    typeof value === "object" && value !== null && typeof (value as D1Database).prepare === "function" && typeof (value as D1Database).batch === "function"
  );
}

/** Every shard that may hold a store's data, the directory first, then SHARD_1, SHARD_2, ... in number order. */
export function shardNames(env: Env): string[] {
  const names = Object.keys(env as unknown as Bindings).filter((key) => SHARD_BINDING.test(key) && isD1((env as unknown as Bindings)[key]));
  names.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return [DIRECTORY, ...names];
}

/** Shards no new store is placed on (the directory always; DRAINING_SHARDS lists others). */
export function drainingShards(env: Env): Set<string> {
  const listed = (env.DRAINING_SHARDS ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return new Set([DIRECTORY, ...listed]);
}

export function isShard(env: Env, name: string): boolean {
  return shardNames(env).includes(name);
}

/** The D1 database of a shard; an unknown name is a bug or a binding removed under live stores. */
export function shardD1(env: Env, name: string): D1Database {
  const d1 = name === DIRECTORY ? env.DB : (env as unknown as Bindings)[name];
  if (!SHARD_BINDING.test(name) && name !== DIRECTORY) throw new Error(`'${name}' is not a shard name`);
  if (!isD1(d1)) throw new Error(`No D1 binding for shard '${name}': was it removed from wrangler.toml while stores live in it?`);
  return d1;
}

export function shardDb(env: Env, name: string): Db {
  return dbOf(shardD1(env, name));
}

/** The database of a store's data, from its directory row (or any value carrying its shard). */
export function storeDb(env: Env, store: { shard: string }): Db {
  return shardDb(env, store.shard);
}

/** The directory: stores and where each lives, consumer keys, settings, id epochs. */
export function directoryDb(env: Pick<Env, "DB">): Db {
  return dbOf(env.DB);
}

/** Shards known (in this isolate) to have been given an epoch. */
const withEpoch = new Set<string>();

/**
 * Gives `shard` a fresh epoch: the directory issues the next one (above every earlier one), and
 * the shard's AUTOINCREMENT counters move up to its start, so every id the shard hands out from
 * now on is above every id that exists in any shard. Idempotent in effect: a second call only
 * wastes an epoch.
 */
export async function issueEpoch(env: Env, shard: string, now: number): Promise<number> {
  const [row] = await directoryDb(env).insert(schema.shardEpochs).values({ shard, issuedAt: now }).returning({ epoch: schema.shardEpochs.epoch });
  const base = row!.epoch * EPOCH_SIZE;
  const d1 = shardD1(env, shard);
  await d1.batch(
    EPOCH_TABLES.flatMap((table) => [
      d1.prepare("insert into sqlite_sequence (name, seq) select ?1, ?2 where not exists (select 1 from sqlite_sequence where name = ?1)").bind(table, base),
      d1.prepare("update sqlite_sequence set seq = max(seq, ?2) where name = ?1").bind(table, base),
    ]),
  );
  withEpoch.add(shard);
  return row!.epoch;
}

/** A shard about to take its first store gets its first epoch (the directory's ids are epoch 0). */
export async function ensureEpoch(env: Env, shard: string, now: number): Promise<void> {
  if (shard === DIRECTORY || withEpoch.has(shard)) return;
  const known = await directoryDb(env)
    .select({ epoch: max(schema.shardEpochs.epoch) })
    .from(schema.shardEpochs)
    .where(eq(schema.shardEpochs.shard, shard))
    .get();
  if (known?.epoch) withEpoch.add(shard);
  else await issueEpoch(env, shard, now);
}

/**
 * The store owning a row known only by its id (an admin route by feed or source id): asks every
 * shard at once. A moving store's rows are in two shards; either names the same store, whose
 * directory row then says which copy is its own.
 */
export async function locateStore(env: Env, find: (db: Db) => Promise<{ storeId: string } | undefined>): Promise<string | undefined> {
  const found = await Promise.all(shardNames(env).map((shard) => find(shardDb(env, shard))));
  return found.find((row) => row !== undefined)?.storeId;
}
