// Every statement on stores and store_usage. A store's row carries its limits and its shard; it
// is in the directory (where a request finds the store) and, as a copy, in its shard (which its
// orders' foreign keys and limit triggers read): every change here writes the directory, then
// the copy, which takes only a newer revision of the row. store_usage, what
// the store holds, is kept by each database's triggers (migrations/0004_orders_scale.sql): its
// consumer keys in the directory, the rest in the shard. A trigger's refusal is turned into its
// answer here too, since that answer reads the limit's value.
import { and, asc, eq, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { directoryDb, locateStore, storeDb } from "../db/shards";
import { stores, storeUsage } from "../db/schema";
import { ApiError } from "../http/errors";
import { LIMITS, limitError, limitReached, type LimitName } from "./limits";

export type StoreRow = typeof stores.$inferSelect;
export type Limits = Record<LimitName, number>;

export function limitsOf(store: StoreRow): Limits {
  return Object.fromEntries(Object.entries(LIMITS).map(([name, { column }]) => [name, store[column]])) as Limits;
}

/** Limit columns to write: only the names given. */
function limitColumns(limits: Partial<Limits> | undefined): Partial<StoreRow> {
  const set: Record<string, number> = {};
  for (const [name, value] of Object.entries(limits ?? {})) {
    if (value !== undefined) set[LIMITS[name as LimitName].column] = value;
  }
  return set as Partial<StoreRow>;
}

/**
 * A new store on `shard`: its copy in the shard first, then the directory row that makes it
 * visible, so no request finds a store whose shard does not know it.
 */
export async function insertStore(
  env: Env,
  store: { id: string; name: string; maskBuyerPii: boolean; createdAt: number; shard: string },
  limits?: Partial<Limits>,
): Promise<StoreRow> {
  const values = { ...store, deletedAt: null, ...limitColumns(limits) };
  await storeDb(env, store).insert(stores).values(values);
  const [row] = await directoryDb(env).insert(stores).values(values).returning();
  return row!;
}

/**
 * Writes the directory's row of a store into a shard's copy, only if it is newer than the copy
 * (its revision): a write built from an earlier read (a move's step, a PATCH that raced a move's
 * switch) never undoes a later one, whatever order they land in.
 */
export function upsertStoreCopy(db: Db, store: StoreRow) {
  const { id: _, ...columns } = store;
  return db
    .insert(stores)
    .values(store)
    .onConflictDoUpdate({ target: stores.id, set: columns, setWhere: sql`excluded.revision > ${stores.revision}` });
}

/**
 * A move's switch: the directory's row names `to`, in one statement, only while `while` holds
 * (the move is still at its switch, not given up: a condition on the directory's store_moves,
 * given by the module that owns it) and the store lives in `from`. The row as written, or
 * undefined when nothing was switched.
 */
export async function switchStoreShard(directory: Db, storeId: string, from: string, to: string, condition: SQL): Promise<StoreRow | undefined> {
  const [row] = await directory
    .update(stores)
    .set({ shard: to, revision: sql`${stores.revision} + 1` })
    .where(and(eq(stores.id, storeId), isNull(stores.deletedAt), eq(stores.shard, from), condition))
    .returning();
  return row;
}

/** The directory's row of a store, deleted or not (a move reads what it copies). */
export function directoryRow(directory: Db, storeId: string): Promise<StoreRow | undefined> {
  return directory.select().from(stores).where(eq(stores.id, storeId)).get();
}

/** Stores whose data lives in `shard` (directory rows, with their shard). */
export function storesOfShard(db: Db, shard: string): Promise<StoreRow[]> {
  return db
    .select()
    .from(stores)
    .where(and(eq(stores.shard, shard), isNull(stores.deletedAt)));
}

/** What a shard holds for the stores living in it (not a moving store's copy): one row of sums. */
export async function shardTotals(db: Db, shard: string): Promise<{ stores: number; orders: number; orderItems: number; products: number }> {
  const row = await db
    .select({
      stores: sql<number>`count(*)`,
      orders: sql<number>`coalesce(sum(${storeUsage.orders}), 0)`,
      orderItems: sql<number>`coalesce(sum(${storeUsage.orderItems}), 0)`,
      products: sql<number>`coalesce(sum(${storeUsage.products}), 0)`,
    })
    .from(storeUsage)
    .innerJoin(stores, eq(stores.id, storeUsage.storeId))
    .where(and(eq(stores.shard, shard), isNull(stores.deletedAt)))
    .get();
  return row ?? { stores: 0, orders: 0, orderItems: 0, products: 0 };
}

export function listStores(db: Db): Promise<StoreRow[]> {
  return db.select().from(stores).where(isNull(stores.deletedAt)).orderBy(stores.createdAt);
}

export function findStore(db: Db, storeId: string): Promise<StoreRow | undefined> {
  return db
    .select()
    .from(stores)
    .where(and(eq(stores.id, storeId), isNull(stores.deletedAt)))
    .get();
}

/** The database of a store's data (a Durable Object knowing only the store's id); undefined once the store is gone. */
export async function storeDbById(env: Env, storeId: string): Promise<Db | undefined> {
  const store = await directoryDb(env).select({ shard: stores.shard }).from(stores).where(eq(stores.id, storeId)).get();
  return store && storeDb(env, store);
}

/**
 * The store and database of a row known by its own id (a source, a feed, an endpoint): the store
 * as given (a queue message, an object's storage), else found in the shards (locateStore), then
 * its database as the directory says now. Undefined when the row or its store is gone.
 */
export async function storeOfRow(
  env: Env,
  find: (db: Db) => Promise<{ storeId: string } | null | undefined>,
  known?: string,
): Promise<{ storeId: string; db: Db } | undefined> {
  const storeId = known ?? (await locateStore(env, async (db) => (await find(db)) ?? undefined));
  const db = storeId === undefined ? undefined : await storeDbById(env, storeId);
  return db && { storeId: storeId!, db };
}

/** A live store (its directory row, which names its shard), or 404. */
export async function requireStore(env: Env, storeId: string): Promise<StoreRow> {
  const store = await findStore(directoryDb(env), storeId);
  if (!store) throw new ApiError(404, `No store with StoreId '${storeId.slice(0, 40)}'.`);
  return store;
}

/**
 * Changes a store's settings in the directory, then in the copy of the shard the directory names
 * after that change. A move switching the store meanwhile either read this change (it copies the
 * directory's row) or is already switched (this change then names the new shard): the new shard's
 * copy never misses it (upsertStoreCopy keeps the newest).
 */
export async function updateStore(
  env: Env,
  store: StoreRow,
  changes: { name?: string; maskBuyerPii?: boolean; limits?: Partial<Limits> },
): Promise<StoreRow | undefined> {
  const set: Partial<StoreRow> = { ...limitColumns(changes.limits) };
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.maskBuyerPii !== undefined) set.maskBuyerPii = changes.maskBuyerPii;
  if (Object.keys(set).length === 0) return findStore(directoryDb(env), store.id);
  const live = and(eq(stores.id, store.id), isNull(stores.deletedAt));
  const [row] = await directoryDb(env)
    .update(stores)
    .set({ ...set, revision: sql`${stores.revision} + 1` })
    .where(live)
    .returning();
  if (row) await upsertStoreCopy(storeDb(env, row), row);
  return row;
}

/** Deleted in the directory first: from then on no request finds it; the shard's copy (where the directory says) stops its sync. */
export async function markStoreDeleted(env: Env, store: StoreRow, at: number): Promise<void> {
  const [row] = await directoryDb(env)
    .update(stores)
    .set({ deletedAt: at, revision: sql`${stores.revision} + 1` })
    .where(eq(stores.id, store.id))
    .returning();
  if (row) await upsertStoreCopy(storeDb(env, row), row);
}

/** Deleted stores still to purge (directory rows: id and shard), longest deleted first. */
export function deletedStores(db: Db, limit: number): Promise<{ id: string; shard: string }[]> {
  return db.select({ id: stores.id, shard: stores.shard }).from(stores).where(isNotNull(stores.deletedAt)).orderBy(asc(stores.deletedAt)).limit(limit);
}

/** The last step of a purge: the store's usage row and the store itself. */
export function deleteStoreRow(db: Db, storeId: string) {
  return [
    db.delete(storeUsage).where(eq(storeUsage.storeId, storeId)),
    db.delete(stores).where(and(eq(stores.id, storeId), isNotNull(stores.deletedAt))),
  ] as const;
}

/** The store's MaskBuyerPii setting, as a query an order read can batch. */
export function maskSettingOf(db: Db, storeId: string) {
  return db.select({ maskBuyerPii: stores.maskBuyerPii }).from(stores).where(eq(stores.id, storeId));
}

/** How many orders the store holds, as a query an order read can batch. */
export function ordersStoredOf(db: Db, storeId: string) {
  return db.select({ n: storeUsage.orders }).from(storeUsage).where(eq(storeUsage.storeId, storeId));
}

/** What the store holds of the limits its shard keeps (all but consumer keys), read in that shard. */
export async function shardUsageOf(db: Db, storeId: string): Promise<Omit<Limits, "ConsumerKeys">> {
  const u = await db.select().from(storeUsage).where(eq(storeUsage.storeId, storeId)).get();
  return Object.fromEntries(
    Object.entries(LIMITS)
      .filter(([name]) => name !== "ConsumerKeys")
      .map(([name, { used }]) => [name, u?.[used] ?? 0]),
  ) as Omit<Limits, "ConsumerKeys">;
}

/** What the store holds, by limit name: its consumer keys from the directory, the rest from its shard. */
export async function usageOf(env: Env, store: StoreRow): Promise<Limits> {
  const [shard, keys] = await Promise.all([
    shardUsageOf(storeDb(env, store), store.id),
    directoryDb(env).select({ consumerKeys: storeUsage.consumerKeys }).from(storeUsage).where(eq(storeUsage.storeId, store.id)).get(),
  ]);
  const used: Limits = { ...shard, ConsumerKeys: keys?.consumerKeys ?? 0 };
  // In the limits' own order, as every answer lists them.
  return Object.fromEntries(Object.keys(LIMITS).map((name) => [name, used[name as LimitName]])) as Limits;
}

/** The value of one limit of a store (for an error message); undefined if the store is gone. */
async function limitValue(db: Db, storeId: string, name: LimitName): Promise<number | undefined> {
  const store = await db.select().from(stores).where(eq(stores.id, storeId)).get();
  return store ? store[LIMITS[name].column] : undefined;
}

/**
 * A database trigger refused a write over a store limit (every write path, whoever wrote it):
 * the 400 that names the limit, with its value when the store is known (`storeId` as the request
 * carried it, URL-encoded or not). null when the error is something else. Reading the value may
 * fail like any read; the answer then goes without it.
 */
export async function limitRefusal(env: Env, error: unknown, storeId: string | undefined): Promise<ApiError | null> {
  const name = limitReached(error);
  if (!name) return null;
  const value = storeId
    ? await Promise.resolve()
        .then(() => limitValue(directoryDb(env), decodeURIComponent(storeId), name))
        .catch(() => undefined)
    : undefined;
  return limitError(name, value);
}
