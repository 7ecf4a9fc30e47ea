// Benchmark-only routes (bench/shards.bench.mjs), served only by the benchmark's own entry
// (bench/shards-worker.ts): the production Worker (src/index.ts) never imports this file.
// /seed writes a store's orders straight into the shard the directory names for it, as one
// INSERT ... SELECT over a recursive series (orders, then one line each, in one D1 batch, so one
// transaction): 900,000 orders through PUT /Orders/insertorder would take hours. The shard's
// triggers run as for any write, so store_usage, the day counts and the stored bytes are kept as in
// production. /census counts a store's rows in every shard (the move's end check); /sizes each
// database's size. /ping (no I/O) and /spin (awaited D1 reads for a while in one request) are the
// probes that showed a busy mover starving the local service (docs/sharding.md#measured). Raw SQL
// on purpose: it stands in for a seller's history, not for any module's statements.
import { z } from "zod";
import { directoryDb, shardD1, shardNames } from "../src/db/shards";
import { ApiError } from "../src/http/errors";
import { ok } from "../src/http/envelope";
import { createRouter } from "../src/app-env";
import { validate } from "../src/http/validate";
import { findStore } from "../src/stores/stores.queries";

const DAY = 86_400_000;

const seedQuery = z.object({
  storeId: z.string(),
  /** The series' first and last number (1-based, inclusive): order 'B-i' of the store. */
  first: z.coerce.number().int().min(1),
  last: z.coerce.number().int().min(1),
  /** Orders the whole store will hold: spreads created dates over the year as a permutation. */
  total: z.coerce.number().int().min(1),
  /** The year's first day (ms). */
  start: z.coerce.number().int(),
});
const censusQuery = z.object({ storeId: z.string(), prefix: z.string().default("W-") });

async function requireShard(env: Env, storeId: string): Promise<string> {
  const store = await findStore(directoryDb(env), storeId);
  if (!store) throw new ApiError(404, `No store '${storeId}'.`);
  return store.shard;
}

export const shardsBenchRoutes = createRouter()
  // Each database's size in bytes as D1 reports it (meta.size_after): bytes per order, measured.
  .get("/sizes", async (c) => {
    const sizes = await Promise.all(
      shardNames(c.env).map(async (shard) => ({ Shard: shard, Bytes: (await shardD1(c.env, shard).prepare("select 1").run()).meta.size_after })),
    );
    return ok(c, { Sizes: sizes });
  })
  // No I/O at all: whether the Worker itself answers while a move runs.
  .get("/ping", (c) => ok(c, {}))
  // Awaited D1 reads one after another for `ms` in this request (a diagnosis: does a Worker busy
  // with D1 keep answering others locally?).
  .post(
    "/spin",
    validate("query", z.object({ ms: z.coerce.number().int().max(60_000), shard: z.string(), yieldEvery: z.coerce.number().int().default(0) })),
    async (c) => {
      const { ms, shard, yieldEvery } = c.req.valid("query");
      const d1 = shardD1(c.env, shard);
      const until = Date.now() + ms;
      let queries = 0;
      while (Date.now() < until) {
        await d1.prepare("select id from orders order by id desc limit 200").all();
        queries++;
        if (yieldEvery && queries % yieldEvery === 0) await new Promise((r) => setTimeout(r, 0));
      }
      return ok(c, { Queries: queries });
    },
  )
  .post("/seed", validate("query", seedQuery), async (c) => {
    const { storeId, first, last, total, start } = c.req.valid("query");
    const shard = await requireShard(c.env, storeId);
    const d1 = shardD1(c.env, shard);
    const started = Date.now();
    const before = await d1.prepare("select coalesce(max(id), 0) as id from orders").first<{ id: number }>();
    // Created dates a permutation of the year (ids and dates disagree, as with imports); statuses a
    // quarter each; totals with ties; updated up to 30 days later (bench/orders.bench.mjs's shape).
    await d1.batch([
      d1
        .prepare(
          `with recursive r(i) as (select ?2 union all select i + 1 from r where i < ?3)
           insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
             buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
             grand_total, sub_total, date_created_in_order_source, date_updated)
           select ?1, 'Bench', 'B-' || i, case (i * 7) % 4 when 0 then 'New' when 1 then 'Processing' when 2 then 'Shipped' else 'Canceled' end, 'x',
             'buyer' || i || '@example.com', '555-010-' || (i % 10000), 'Jane', 'Doe', i || ' Main St', 'Springfield', 'IL', '62701', 'US', 'Standard',
             ((i * 7919) % 50000) / 100.0, ((i * 7919) % 50000) / 100.0, c, c + (i * 31337) % (30 * ${DAY})
           from (select i, ?5 + ((i * 104729) % ?4) * (365 * ${DAY} / ?4) + (i % 997) as c from r)`,
        )
        .bind(storeId, first, last, total, start),
      d1
        .prepare(
          `insert into order_items (order_id, sku, name, quantity, unit_price, sale_tax_cost, discount)
           select o.id, 'SKU-' || (o.id % 5000), 'Item of order ' || o.id || ' with a name of ordinary length', 1 + o.id % 3, 9.99, 0.8, '0'
           from orders o where o.store_id = ?1 and o.id > ?2 order by o.id`,
        )
        .bind(storeId, before!.id),
    ]);
    return ok(c, { Shard: shard, Seeded: last - first + 1, Ms: Date.now() - started });
  })
  // The store's orders, their lines and its logged changes in every shard; in each, how many order
  // numbers are held twice, and which numbers starting with `prefix` (the writer's) are there.
  .get("/census", validate("query", censusQuery), async (c) => {
    const { storeId, prefix } = c.req.valid("query");
    const shards = await Promise.all(
      shardNames(c.env).map(async (shard) => {
        const d1 = shardD1(c.env, shard);
        const [counts, written] = await d1.batch([
          d1
            .prepare(
              `select (select count(*) from orders where store_id = ?1) as orders,
                 (select count(distinct order_source_order_number) from orders where store_id = ?1) as distinctNumbers,
                 (select count(*) from order_items where order_id in (select id from orders where store_id = ?1)) as items,
                 (select count(*) from orders o where store_id = ?1 and not exists (select 1 from order_items i where i.order_id = o.id)) as withoutItems,
                 (select count(*) from move_log where store_id = ?1) as logged,
                 (select count(*) from stores where id = ?1) as storeRows`,
            )
            .bind(storeId),
          d1
            .prepare("select order_source_order_number as n from orders where store_id = ?1 and order_source_order_number like ?2 || '%'")
            .bind(storeId, prefix),
        ]);
        return { Shard: shard, ...(counts!.results[0] as Record<string, number>), Written: (written!.results as { n: string }[]).map((r) => r.n) };
      }),
    );
    return ok(c, { Shards: shards });
  });
