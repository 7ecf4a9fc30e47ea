// The Cron Trigger's four jobs, each started here and awaited by the runtime (ctx.waitUntil): the
// sync fan-out (one queue message per enabled source, src/sync/run-sync.ts), the sweep that wakes
// webhook senders a lost wake-up missed, the purge of deleted stores, and the wake-up of store
// moves whose alarm was lost. A job's failure is logged and never stops the others. The four
// share one invocation's limits (src/lib/invocation-budget.ts): the purge takes at most 500 D1
// queries and 2,000 subrequests, the sweep at most 2,000 wake-ups, the sync 5,000 sendBatch calls
// (500,000 sources), and the moves one wake-up each; docs/performance.md has the figures.
import { purgeDeletedStores } from "./admin/store-purge";
import { secretsHold } from "./http/secrets";
import { resumeMoves } from "./store-moves/move-start";
import { queueSync } from "./sync/run-sync";
import { sweepWebhooks } from "./webhooks/wake";

export function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): void {
  // The sync decrypts the sources' credentials with SOURCE_SETTINGS_KEY: not with a weak one.
  if (!secretsHold(env)) return;
  ctx.waitUntil(queueSync(env, controller.scheduledTime));
  ctx.waitUntil(sweepWebhooks(env));
  ctx.waitUntil(purgeDeletedStores(env).catch((error: unknown) => console.error("purge of deleted stores failed", error)));
  ctx.waitUntil(resumeMoves(env).catch((error: unknown) => console.error("waking store movers failed", error)));
}
