// The Worker's entry point: HTTP requests, the Cron Trigger, and the Durable Object classes.
import { app } from "./app";
import { normalizeRequest } from "./http/normalize";

export { RateLimiter } from "./throttle/rate-limiter";
export { FeedCompiler } from "./feeds/feed-compiler";

export default {
  fetch(request, env, ctx) {
    return app.fetch(normalizeRequest(request), env, ctx);
  },
} satisfies ExportedHandler<Env>;
