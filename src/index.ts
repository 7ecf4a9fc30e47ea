// The Worker's entry point: HTTP requests, the Cron Trigger (the sync, the sweep that wakes
// webhook senders a lost wake-up missed, the purge, unfinished store moves), the sync queue's consumer, and the Durable Object classes.
import { app } from "./app";
import { normalizeRequest } from "./http/normalize";
import { secretsHold } from "./http/secrets";
import { queueSync } from "./sync/run-sync";
import { consumeSyncBatch } from "./sync/sync-queue";
import { sweepWebhooks } from "./webhooks/wake";
import { purgeDeletedStores } from "./admin/store-purge";
import { resumeMoves } from "./shards/move-start";

export { RateLimiter } from "./throttle/rate-limiter";
export { SourceSync } from "./sync/source-sync";
export { FeedCompiler } from "./feeds/feed-compiler";
export { WebhookSender } from "./webhooks/webhook-sender";
export { StoreMover } from "./shards/store-mover";

export default {
  fetch(request, env, ctx) {
    return app.fetch(normalizeRequest(request), env, ctx);
  },
  scheduled(controller, env, ctx) {
    // The sync decrypts the sources' credentials with SOURCE_SETTINGS_KEY: not with a weak one.
    if (!secretsHold(env)) return;
    ctx.waitUntil(queueSync(env, controller.scheduledTime));
    ctx.waitUntil(sweepWebhooks(env));
    ctx.waitUntil(purgeDeletedStores(env).catch((error: unknown) => console.error("purge of deleted stores failed", error)));
    ctx.waitUntil(resumeMoves(env).catch((error: unknown) => console.error("waking store movers failed", error)));
  },
  queue(batch, env) {
    return consumeSyncBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
