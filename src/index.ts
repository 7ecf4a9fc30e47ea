// The Worker's entry point: HTTP requests, the Cron Trigger, and the Durable Object classes.
import { app } from "./app";
import { normalizeRequest } from "./http/normalize";
import { secretsHold } from "./http/secrets";
import { runSync } from "./sync/run-sync";
import { purgeDeletedStores } from "./admin/store-purge";

export { RateLimiter } from "./throttle/rate-limiter";
export { SourceSync } from "./sync/source-sync";
export { FeedCompiler } from "./feeds/feed-compiler";

export default {
  fetch(request, env, ctx) {
    return app.fetch(normalizeRequest(request), env, ctx);
  },
  scheduled(controller, env, ctx) {
    // The sync decrypts the sources' credentials with SOURCE_SETTINGS_KEY: not with a weak one.
    if (!secretsHold(env)) return;
    ctx.waitUntil(runSync(env, controller.scheduledTime));
    ctx.waitUntil(purgeDeletedStores(env).catch((error: unknown) => console.error("purge of deleted stores failed", error)));
  },
} satisfies ExportedHandler<Env>;
