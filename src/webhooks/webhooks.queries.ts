// Every statement on the webhooks table: a store's endpoints, their secrets (ciphertext only) and
// the switches the hub itself flips (a 410, five failed events in a row).
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { webhooks } from "../db/schema";
import { deleteDeliveriesOf } from "./webhook-deliveries.queries";

export type WebhookRow = typeof webhooks.$inferSelect;

export async function insertWebhook(db: Db, row: WebhookRow): Promise<void> {
  await db.insert(webhooks).values(row);
}

export function findWebhook(db: Db, storeId: string, webhookId: string): Promise<WebhookRow | undefined> {
  return db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.storeId, storeId), eq(webhooks.id, webhookId)))
    .get();
}

export function webhookById(db: Db, webhookId: string): Promise<WebhookRow | undefined> {
  return db.select().from(webhooks).where(eq(webhooks.id, webhookId)).get();
}

export function listWebhooks(db: Db, storeId: string): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(eq(webhooks.storeId, storeId)).orderBy(asc(webhooks.createdAt), asc(webhooks.id));
}

export type WebhookChange = Partial<
  Pick<
    WebhookRow,
    "url" | "events" | "description" | "enabled" | "disabledReason" | "secretCiphertext" | "previousSecretCiphertext" | "previousSecretExpiresAt"
  >
>;

export async function updateWebhook(db: Db, webhookId: string, change: WebhookChange, now: number): Promise<WebhookRow | undefined> {
  return db
    .update(webhooks)
    .set({ ...change, updatedAt: now })
    .where(eq(webhooks.id, webhookId))
    .returning()
    .get();
}

/** The hub disables an endpoint, saying why; an operator's later PATCH Enabled:true clears it. */
export async function disableWebhook(db: Db, webhookId: string, reason: string, now: number): Promise<void> {
  await db.update(webhooks).set({ enabled: false, disabledReason: reason, updatedAt: now }).where(eq(webhooks.id, webhookId));
}

export async function deleteWebhook(db: Db, webhookId: string): Promise<void> {
  await db.batch([deleteDeliveriesOf(db, webhookId), db.delete(webhooks).where(eq(webhooks.id, webhookId))]);
}

/** The last step of a deleted store's purge (its deliveries gone first): its endpoints. */
export function deleteWebhooksOfStore(db: Db, storeId: string) {
  return db.delete(webhooks).where(eq(webhooks.storeId, storeId));
}
