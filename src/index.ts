// The Worker's entry point: HTTP requests, the Cron Trigger (the sync, and the sweep that wakes
// webhook senders a lost wake-up missed), and the Durable Object classes.
import { app } from "./app";
import { normalizeRequest } from "./http/normalize";
import { runSync } from "./sync/run-sync";
import { sweepWebhooks } from "./webhooks/wake";

export { RateLimiter } from "./throttle/rate-limiter";
export { SourceSync } from "./sync/source-sync";
export { FeedCompiler } from "./feeds/feed-compiler";
export { WebhookSender } from "./webhooks/webhook-sender";

export default {
  fetch(request, env, ctx) {
    return app.fetch(normalizeRequest(request), env, ctx);
  },
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runSync(env, controller.scheduledTime));
    ctx.waitUntil(sweepWebhooks(env));
  },
} satisfies ExportedHandler<Env>;
