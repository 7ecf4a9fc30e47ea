// Bench only: what bench/throttle.bench.mjs builds in place of src/auth/authorize.ts for its
// server B (an [alias] in that server's own config, aliasedConfig in bench/harness.mjs), to
// measure the same route without authentication and throttling. The routers import requireScope
// as "../auth/authorize", so only they get this one; everything else is the real module's.
// Nothing under src/ refers to this file, so a deployed build cannot contain it.
import { createMiddleware } from "hono/factory";
import type { Scope } from "../../src/auth/scopes";
import type { AppEnv } from "../../src/app-env";
import { openSession } from "../../src/db/client";
import { shardD1 } from "../../src/db/shards";

export * from "../../src/auth/authorize";

/** No token check, no limiter call: the path carries `storeId~shard` where the token would be. */
export function requireScope(_scope: Scope) {
  return createMiddleware<AppEnv>(async function authorize(c, next) {
    const [storeId = "", shard = "DB"] = (c.req.param("token") ?? "").split("~");
    // The same kind of D1 session as the real read path, so only the limiter call differs.
    c.set("caller", { storeId, consumerKeyId: "bench" });
    c.set("db", openSession(shardD1(c.env, shard), "first-unconstrained").db);
    // Set here so that rateLimitHeaders does not call the limiter either.
    c.header("X-RateLimit-Limit", "0");
    c.header("X-RateLimit-Remaining", "0");
    await next();
  });
}
