// Waking the senders of endpoints that have new events. A write that recorded events knows which
// endpoints from its statement's RETURNING (no extra query); a background job (an import cycle, a
// compile) asks for its store's endpoints with pending events once at its end; the cron sweeps
// every endpoint with a due event, which also covers a Worker that died between its write and
// the wake.
import type { Context } from "hono";
import { getDb } from "../db/client";
import type { AppEnv } from "../http/create-router";
import { endpointsWithPending } from "./webhook-deliveries.queries";

/** Wakes each endpoint's sender. A failure is only logged: the cron's sweep wakes it later. */
export async function wakeWebhooks(env: Pick<Env, "WEBHOOK_SENDER">, webhookIds: string[]): Promise<void> {
  await Promise.all(
    webhookIds.map((id) =>
      env.WEBHOOK_SENDER.getByName(id)
        .wake(id)
        .catch((error: unknown) => console.error("waking a webhook sender failed", id, error)),
    ),
  );
}

/** A request's write recorded events: their senders are woken after the answer is sent. */
export function wakeLater(c: Context<AppEnv>, webhookIds: string[]): void {
  if (webhookIds.length > 0) c.executionCtx.waitUntil(wakeWebhooks(c.env, webhookIds));
}

/** After a background job of a store: wakes its endpoints with pending events. */
export async function wakeStoreWebhooks(env: Pick<Env, "DB" | "WEBHOOK_SENDER">, storeId: string): Promise<void> {
  await wakeWebhooks(env, await endpointsWithPending(getDb(env), storeId));
}

/** The cron's sweep: every enabled endpoint with a pending event. */
export async function sweepWebhooks(env: Pick<Env, "DB" | "WEBHOOK_SENDER">): Promise<void> {
  await wakeWebhooks(env, await endpointsWithPending(getDb(env)));
}
