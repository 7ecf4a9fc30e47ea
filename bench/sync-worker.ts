// The sync benchmark's Worker entry (`wrangler dev bench/sync-worker.ts`): the production Worker
// plus the benchmark-only routes under /admin/v1/bench, behind the admin key. Production builds
// start at src/index.ts and never see these routes.
import worker from "../src/index";
import { adminOnly } from "../src/admin/admin-auth";
import { createRouter } from "../src/app-env";
import { benchRoutes } from "./sync-bench.routes";
import { stockBenchRoutes } from "./stock-bench.routes";

// Every Durable Object class of the service (export * leaves its default export, replaced below).
export * from "../src/index";

const bench = createRouter().use("*", adminOnly).route("/admin/v1/bench", benchRoutes).route("/admin/v1/bench", stockBenchRoutes);

export default {
  fetch(request, env, ctx) {
    return new URL(request.url).pathname.startsWith("/admin/v1/bench/") ? bench.fetch(request, env, ctx) : worker.fetch(request, env, ctx);
  },
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;
