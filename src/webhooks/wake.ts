// Waking the senders of endpoints that have new events. A write that recorded events knows which
// endpoints from its statement's RETURNING (no extra query); a background job (an import cycle, a
// compile) asks for its store's endpoints with pending events once at its end; the cron sweeps
// every endpoint with a due event, which also covers a Worker that died between its write and
// the wake.
import type { Context } from "hono";
import { shardDb, shardNames } from "../db/shards";
import { storeDbById } from "../stores/stores.queries";
import type { AppEnv } from "../app-env";
import { endpointsWithPending } from "./webhook-deliveries.queries";

/** Wakes each endpoint's sender. A failure is only logged: the cron's sweep wakes it later. */
export async function wakeWebhooks(env: Pick<Env, "WEBHOOK_SENDER">, storeId: string, webhookIds: string[]): Promise<void> {
  await Promise.all(
    webhookIds.map((id) =>
      env.WEBHOOK_SENDER.getByName(id)
        .wake(id, storeId)
        .catch((error: unknown) => console.error("waking a webhook sender failed", id, error)),
    ),
  );
}

/** A request's write recorded events: their senders are woken after the answer is sent. */
export function wakeLater(c: Context<AppEnv>, storeId: string, webhookIds: string[]): void {
  if (webhookIds.length > 0) c.executionCtx.waitUntil(wakeWebhooks(c.env, storeId, webhookIds));
}

/** After a background job of a store: wakes its endpoints with pending events. */
export async function wakeStoreWebhooks(env: Env, storeId: string): Promise<void> {
  const db = await storeDbById(env, storeId);
  if (db)
    await wakeWebhooks(
      env,
      storeId,
      (await endpointsWithPending(db, storeId)).map((e) => e.id),
    );
}

/**
 * Senders one sweep wakes at most: each wake is a subrequest of the cron's invocation, which
 * also queues the sync and purges (src/cron.ts). Beyond it a random part is woken each run; the
 * others have their own alarms, which is what the sweep only stands in for when lost.
 */
export const SWEEP_WAKES = 2_000;

/** The cron's sweep: the enabled endpoints with a pending event (up to SWEEP_WAKES), in every shard at once. */
export async function sweepWebhooks(env: Env, wakes = SWEEP_WAKES): Promise<void> {
  const shards = shardNames(env);
  const perShard = Math.max(1, Math.floor(wakes / shards.length));
  const found = await Promise.all(shards.map((shard) => endpointsWithPending(shardDb(env, shard), undefined, perShard)));
  await Promise.all(found.flat().map((e) => wakeWebhooks(env, e.storeId, [e.id])));
}
