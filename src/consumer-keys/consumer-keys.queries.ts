// Every statement on consumer_keys. A key is stored as its SHA-256 only; the active ones count
// against the store's ConsumerKeys limit (kept by triggers, see src/stores/limits.ts). It sits
// below what reads keys (token exchange in src/auth/, each key's limiter in src/throttle/); the
// routes that create and revoke keys are the store's (src/stores/stores.routes.ts).
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { consumerKeys, stores } from "../db/schema";

export type KeyRow = typeof consumerKeys.$inferSelect;

export async function insertKey(db: Db, key: KeyRow): Promise<void> {
  await db.insert(consumerKeys).values(key);
}

export function keysOfStore(db: Db, storeId: string): Promise<KeyRow[]> {
  return db.select().from(consumerKeys).where(eq(consumerKeys.storeId, storeId)).orderBy(consumerKeys.createdAt);
}

/** A page of the store's keys by id, after `afterId` (a move tells them in pages). */
export function keysOfStorePage(db: Db, storeId: string, afterId: string, limit: number): Promise<KeyRow[]> {
  return db
    .select()
    .from(consumerKeys)
    .where(and(eq(consumerKeys.storeId, storeId), gt(consumerKeys.id, afterId)))
    .orderBy(asc(consumerKeys.id))
    .limit(limit);
}

/** A deleted store's purge: its keys (revoked since its deletion) go. */
export function deleteKeysOfStore(db: Db, storeId: string) {
  return db.delete(consumerKeys).where(eq(consumerKeys.storeId, storeId));
}

export function findKey(db: Db, consumerKeyId: string): Promise<KeyRow | undefined> {
  return db.select().from(consumerKeys).where(eq(consumerKeys.id, consumerKeyId)).get();
}

export async function markKeyRevoked(db: Db, consumerKeyId: string, at: number): Promise<void> {
  await db.update(consumerKeys).set({ revokedAt: at }).where(eq(consumerKeys.id, consumerKeyId));
}

/** The active key with this hash whose store is live (token exchange). */
export async function findActiveKeyByHash(db: Db, keyHash: string): Promise<KeyRow | undefined> {
  const row = await db
    .select({ key: consumerKeys })
    .from(consumerKeys)
    .innerJoin(stores, eq(stores.id, consumerKeys.storeId))
    .where(and(eq(consumerKeys.keyHash, keyHash), isNull(consumerKeys.revokedAt), isNull(stores.deletedAt)))
    .get();
  return row?.key;
}

/** A key with what its limiter holds of its store: whether it is deleted, and its shard. */
export async function findKeyWithStore(
  db: Db,
  consumerKeyId: string,
): Promise<{ key: KeyRow; store: { deleted: boolean; shard: string; revision: number } } | undefined> {
  const row = await db
    .select({ key: consumerKeys, storeDeletedAt: stores.deletedAt, shard: stores.shard, revision: stores.revision })
    .from(consumerKeys)
    .innerJoin(stores, eq(stores.id, consumerKeys.storeId))
    .where(eq(consumerKeys.id, consumerKeyId))
    .get();
  return row && { key: row.key, store: { deleted: row.storeDeletedAt !== null, shard: row.shard, revision: row.revision } };
}
