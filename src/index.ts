// The Worker's entry point: HTTP requests, the Cron Trigger, the sync queue's consumer, and the
// Durable Object classes.
import { app } from "./app";
import { normalizeRequest } from "./http/normalize";
import { queueSync } from "./sync/run-sync";
import { consumeSyncBatch } from "./sync/sync-queue";

export { RateLimiter } from "./throttle/rate-limiter";
export { SourceSync } from "./sync/source-sync";
export { FeedCompiler } from "./feeds/feed-compiler";

export default {
  fetch(request, env, ctx) {
    return app.fetch(normalizeRequest(request), env, ctx);
  },
  scheduled(controller, env, ctx) {
    ctx.waitUntil(queueSync(env, controller.scheduledTime));
  },
  queue(batch, env) {
    return consumeSyncBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
