// The throttle benchmark's Worker entry (`bench/throttle.bench.mjs` starts it with its own
// config): the production Worker, with a RateLimiter that counts the round trips it is asked
// for, and two benchmark-only routes. Production builds start at src/index.ts and never see
// these.
//   GET /bench/trips/<name>          the round trips the object <name> has answered since it started
//   GET /bench/bare-count/<store>~<shard>?fromDate&toDate
//                                    the D1 count Orders/count runs, on the store's shard, with no
//                                    routing, validation, auth or throttle: the bare Worker of the
//                                    end-to-end ratio, in the same workerd as the service
import worker from "../src/index";
import { RateLimiter as ServiceRateLimiter, type TripRequest } from "../src/throttle/rate-limiter";
import { countStatement } from "../src/orders/orders.queries";
import { shardD1 } from "../src/db/shards";

// Every Durable Object class of the service (export * leaves its default export, replaced below);
// the RateLimiter below takes the place of the service's.
export * from "../src/index";

export class RateLimiter extends ServiceRateLimiter {
  private trips = 0;

  override async trip(request: TripRequest) {
    this.trips += 1;
    return super.trip(request);
  }

  // admitKey and noteBookmark (the code before leases) are trips too: each calls trip() once.

  async benchTrips(): Promise<number> {
    return this.trips;
  }
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/bench/trips/")) {
      const name = decodeURIComponent(url.pathname.slice("/bench/trips/".length));
      const stub = env.RATE_LIMITER.getByName(name) as unknown as { benchTrips(): Promise<number> };
      return Response.json({ trips: await stub.benchTrips() });
    }
    if (url.pathname.startsWith("/bench/bare-count/")) {
      const [storeId = "", shard = "DB"] = url.pathname.slice("/bench/bare-count/".length).split("~");
      const fromDate = Date.parse(url.searchParams.get("fromDate") ?? "");
      const toDate = Date.parse(url.searchParams.get("toDate") ?? "");
      const { sql, params } = countStatement(storeId, { fromDate, toDate, dateField: "created" } as Parameters<typeof countStatement>[1]);
      const row = await shardD1(env, shard)
        .prepare(sql)
        .bind(...params)
        .first<{ n: number }>();
      return Response.json({ Success: true, Message: "", Count: row?.n ?? 0 });
    }
    return worker.fetch(request, env, ctx);
  },
  scheduled: worker.scheduled,
  queue: worker.queue,
} satisfies ExportedHandler<Env>;
