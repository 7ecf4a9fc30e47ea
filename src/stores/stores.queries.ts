// Every statement on stores and store_usage. A store's row carries its limits; store_usage, what
// it holds, is kept by the database's triggers (migrations/0004_orders_scale.sql). A trigger's
// refusal is turned into its answer here too, since that answer reads the limit's value.
import { and, asc, eq, isNotNull, isNull } from "drizzle-orm";
import { getDb, type Db } from "../db/client";
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

export async function insertStore(db: Db, store: { id: string; name: string; maskBuyerPii: boolean; createdAt: number }, limits?: Partial<Limits>): Promise<StoreRow> {
  const [row] = await db
    .insert(stores)
    .values({ ...store, deletedAt: null, ...limitColumns(limits) })
    .returning();
  return row!;
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

/** A live store, or 404. */
export async function requireStore(env: Env, storeId: string): Promise<StoreRow> {
  const store = await findStore(getDb(env), storeId);
  if (!store) throw new ApiError(404, `No store with StoreId '${storeId.slice(0, 40)}'.`);
  return store;
}

export async function updateStore(
  db: Db,
  storeId: string,
  changes: { name?: string; maskBuyerPii?: boolean; limits?: Partial<Limits> },
): Promise<StoreRow | undefined> {
  const set: Partial<StoreRow> = { ...limitColumns(changes.limits) };
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.maskBuyerPii !== undefined) set.maskBuyerPii = changes.maskBuyerPii;
  if (Object.keys(set).length === 0) return findStore(db, storeId);
  const [row] = await db
    .update(stores)
    .set(set)
    .where(and(eq(stores.id, storeId), isNull(stores.deletedAt)))
    .returning();
  return row;
}

export async function markStoreDeleted(db: Db, storeId: string, at: number): Promise<void> {
  await db.update(stores).set({ deletedAt: at }).where(eq(stores.id, storeId));
}

/** Deleted stores still to purge, longest deleted first. */
export async function deletedStoreIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db.select({ id: stores.id }).from(stores).where(isNotNull(stores.deletedAt)).orderBy(asc(stores.deletedAt)).limit(limit);
  return rows.map((r) => r.id);
}

/** The last step of a purge: the store's usage row and the store itself. */
export function deleteStoreRow(db: Db, storeId: string) {
  return [db.delete(storeUsage).where(eq(storeUsage.storeId, storeId)), db.delete(stores).where(and(eq(stores.id, storeId), isNotNull(stores.deletedAt)))] as const;
}

/** The store's MaskBuyerPii setting, as a query an order read can batch. */
export function maskSettingOf(db: Db, storeId: string) {
  return db.select({ maskBuyerPii: stores.maskBuyerPii }).from(stores).where(eq(stores.id, storeId));
}

/** How many orders the store holds, as a query an order read can batch. */
export function ordersStoredOf(db: Db, storeId: string) {
  return db.select({ n: storeUsage.orders }).from(storeUsage).where(eq(storeUsage.storeId, storeId));
}

/** What the store holds, by limit name. */
export async function usageOf(db: Db, storeId: string): Promise<Limits> {
  const u = await db.select().from(storeUsage).where(eq(storeUsage.storeId, storeId)).get();
  return Object.fromEntries(Object.entries(LIMITS).map(([name, { used }]) => [name, u?.[used] ?? 0])) as Limits;
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
        .then(() => limitValue(getDb(env), decodeURIComponent(storeId), name))
        .catch(() => undefined)
    : undefined;
  return limitError(name, value);
}

