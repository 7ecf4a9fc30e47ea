// The Worker's entry point: HTTP requests (src/app.ts), the Cron Trigger (src/cron.ts), the sync
// queue's consumer, and the Durable Object classes.
import { app } from "./app";
import { scheduled } from "./cron";
import { normalizeRequest } from "./http/normalize";
import { consumeSyncBatch } from "./sync/sync-queue";

export { RateLimiter } from "./throttle/rate-limiter";
export { SourceSync } from "./sync/source-sync";
export { FeedCompiler } from "./feeds/feed-compiler";
export { WebhookSender } from "./webhooks/webhook-sender";
export { StoreMover } from "./store-moves/store-mover";

export default {
  fetch(request, env, ctx) {
    return app.fetch(normalizeRequest(request), env, ctx);
  },
  scheduled,
  queue(batch, env) {
    return consumeSyncBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
