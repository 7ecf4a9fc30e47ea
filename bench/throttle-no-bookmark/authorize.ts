// Bench only: what bench/throttle-write.bench.mjs builds in place of src/auth/authorize.ts for its
// baseline server (an [alias] in that server's own config), so that a /v1 write makes one
// RateLimiter RPC (the admission) instead of two (admission, then the bookmark publish). It runs
// the real requireScope against an env whose limiter drops noteBookmark and marks the answer
// X-Bench-Bookmark-Skipped, so the bench can check the publish would have happened. Nothing
// under src/ refers to this file, so a deployed build cannot contain it.
import { createMiddleware } from "hono/factory";
import type { Scope } from "../../src/auth/scopes";
import type { AppEnv } from "../../src/app-env";
import { requireScope as realRequireScope } from "../../src/auth/authorize";

export * from "../../src/auth/authorize";

export function requireScope(scope: Scope) {
  const real = realRequireScope(scope);
  return createMiddleware<AppEnv>(async function authorizeWithoutBookmark(c, next) {
    const env = c.env;
    const limiter = {
      getByName(name: string) {
        const stub = env.RATE_LIMITER.getByName(name);
        return {
          admitKey: (consumerKeyId: string, wanted: string) => stub.admitKey(consumerKeyId, wanted),
          noteBookmark: async (_bookmark: string) => {
            c.header("X-Bench-Bookmark-Skipped", "1");
          },
        };
      },
    };
    c.env = { ...env, RATE_LIMITER: limiter as unknown as Env["RATE_LIMITER"] };
    try {
      await real(c, next);
    } finally {
      c.env = env;
    }
  });
}
