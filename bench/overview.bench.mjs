#!/usr/bin/env node
// Overview benchmark (issue 24): GET /admin/v1/stores/{id}/overview on a store of 1,000,000
// orders against the same on a store of 10,000 (the baseline, same run, same server), and
// GET /admin/v1/overview over 100 stores. Each store has 3 sources with 20 kept cycles, an
// outbox backlog and 2 feeds; the large and the small store differ only in their orders.
// Also, for scale: what the 30-day chart would cost counted from orders instead of the day counts
// (the same question asked of the SQLite file directly), and what keeping the by-source day counts
// costs each order written (an in-memory database, with and without their triggers).
//
// Seeding in the frame of bench/seed.mjs (a local D1 of its own, migrated, `--reuse` keeping it),
// with rows of its own shape (orders of three sources, no items; sources, outbox, set-aside orders
// and feeds) written straight into the directory database's SQLite file with node:sqlite
// (INSERT ... SELECT over a recursive series; the triggers keep the day counts as in production);
// then `wrangler dev` (ports 8812-8813, or BENCH_PORT and the next) serves it.
//
//   npm run bench -- overview    (node bench/overview.bench.mjs [--small 10000] [--large 1000000]
//                                  [--stores 100] [--repeats 21] [--port 8812] [--reuse] for other sizes)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { arg, benchPort, main, median, root, sleep, startDev, timed, writeResult } from "./harness.mjs";
import { DAY, seededOnce } from "./seed.mjs";

const SMALL = arg("small", 10_000);
const LARGE = arg("large", 1_000_000);
const STORES = arg("stores", 100);
const REPEATS = arg("repeats", 21);
const PORT = benchPort(8812);
const NOW = Date.now();
const TODAY = Math.floor(NOW / DAY) * DAY;
const START = TODAY - 364 * DAY;

// ---------------------------------------------------------------- write cost
// What the by-source day counts (migration 0009) add to every order written: the same inserts
// into an in-memory database of all the migrations, with and without its three triggers.
function writeCost(orders) {
  const migrations = readdirSync(path.join(root, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();
  const time = (withBySource) => {
    const db = new DatabaseSync(":memory:");
    for (const file of migrations) {
      for (const statement of readFileSync(path.join(root, "migrations", file), "utf8").split("--> statement-breakpoint")) {
        if (statement.trim()) db.exec(statement);
      }
    }
    if (!withBySource) for (const t of ["orders_source_counted", "orders_source_recounted", "orders_source_uncounted"]) db.exec(`drop trigger ${t}`);
    db.prepare("insert into stores (id, name, created_at) values ('st_w', 'w', 0)").run();
    const t0 = performance.now();
    db.prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?1)
       insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
         buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
         grand_total, sub_total, date_created_in_order_source, date_updated)
       select 'st_w', case i % 3 when 0 then 'Web' when 1 then 'Phone' else 'Market' end, 'W-' || i, 'New', 'x', 'b@example.com', '555', 'Jo', 'Doe',
         '1 Main St', 'Town', 'IL', '62701', 'US', 'Std', 10, 10, ?2 + (i % 365) * ${DAY}, ?2 + (i % 365) * ${DAY} from r`,
    ).run(orders, START);
    const ms = performance.now() - t0;
    db.close();
    return ms;
  };
  const runs = { without: [], with: [] };
  for (let i = 0; i < 3; i += 1) {
    runs.without.push(time(false));
    runs.with.push(time(true));
  }
  return {
    orders,
    msWithout: +median(runs.without).toFixed(0),
    msWith: +median(runs.with).toFixed(0),
    extraPerOrderUs: +(((median(runs.with) - median(runs.without)) / orders) * 1000).toFixed(2),
  };
}
const cost = writeCost(arg("write-orders", 100_000));
console.log(`write cost of the by-source day counts: ${JSON.stringify(cost)}`);

// ---------------------------------------------------------------- seeding
const large = "st_bench_large";
const small = "st_bench_small";
const others = Array.from({ length: Math.max(0, STORES - 2) }, (_, i) => `st_bench_${String(i + 1).padStart(3, "0")}`);

/** 20 kept cycle summaries, newest first; a source whose index is 2 has failed its last 3. */
const cycles = (sourceId, k) =>
  Array.from({ length: 20 }, (_, i) => ({
    sourceId,
    name: `Source ${k}`,
    type: "simulated",
    startedAt: NOW - (i + 1) * 900_000,
    endedAt: NOW - (i + 1) * 900_000 + 2_000,
    ran: true,
    more: false,
    fetched: 40,
    imported: 38,
    setAside: 2,
    delivered: 12,
    submitted: 0,
    notApplicable: 0,
    retrying: 0,
    failed: i % 7 === 0 ? 1 : 0,
    pendingDeliveries: 100,
    submittedDeliveries: 0,
    failedDeliveries: 10,
    statements: 30,
    error: k === 2 && i < 3 ? "import: Simulated marketplace 500" : null,
  }));

function seedStore(db, id, orders) {
  db.prepare("insert into stores (id, name, created_at) values (?, ?, ?)").run(id, id, NOW);
  const names = ["Web", "Phone", "Market"];
  // Created dates spread over the last 365 days, a third a source; statuses a quarter each.
  db.prepare(
    `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
     insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
       buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
       grand_total, sub_total, date_created_in_order_source, date_updated)
     select ?1, case i % 3 when 0 then 'Web' when 1 then 'Phone' else 'Market' end, 'B-' || i,
       case (i * 7) % 4 when 0 then 'New' when 1 then 'Processing' when 2 then 'Shipped' else 'Canceled' end, 'x',
       'buyer' || i || '@example.com', '555-0100', 'Jane', 'Doe', '1 Main St', 'Springfield', 'IL', '62701', 'US', 'Standard',
       10, 10, c, c from (select i, ?3 + ((i * 104729) % ?2) * (365 * ${DAY} / ?2) as c from r)`,
  ).run(id, orders, START);
  const firstOrder = db.prepare("select min(id) as id from orders where store_id = ?").get(id).id;
  names.forEach((name, k) => {
    const sourceId = `src_${id}_${k}`;
    db.prepare(
      "insert into sources (id, store_id, type, name, enabled, settings_ciphertext, last_cycle_started_at, last_cycle_ended_at, last_error, recent_cycles, " +
        "created_at, updated_at) values (?, ?, 'simulated', ?, 1, 'x.y', ?, ?, ?, ?, ?, ?)",
    ).run(
      sourceId,
      id,
      name,
      NOW - 900_000,
      NOW - 898_000,
      k === 2 ? "import: Simulated marketplace 500" : null,
      JSON.stringify(cycles(sourceId, k)),
      NOW,
      NOW,
    );
    // A backlog: 100 pending and 10 failed deliveries a source, 5 set-aside orders.
    db.prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < 110)
       insert into outbox (store_id, source_id, order_id, kind, payload, state, attempts, next_attempt_at, created_at)
       select ?1, ?2, ?3, 'acknowledge', '{"kind":"acknowledge"}', case when i <= 100 then 'pending' else 'failed' end, 0, ?4, ?4 from r`,
    ).run(id, sourceId, firstOrder, NOW);
    db.prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < 5)
       insert into set_aside_orders (store_id, source_id, order_source_order_number, reason, record, record_truncated, first_seen_at, last_seen_at)
       select ?1, ?2, 'SA-' || i, 'a line without a SKU', '{}', 0, ?3, ?3 from r`,
    ).run(id, sourceId, NOW);
  });
  for (const [k, status] of ["Completed", "Failed"].entries()) {
    db.prepare(
      "insert into feeds (id, store_id, name, name_key, format, template, status, status_message, file_name, total_count, valid_count, warning_count, " +
        "error_count, score, date_last_compiled, created_at) values (?, ?, ?, ?, 'csv', 'google-shopping', ?, ?, 'f.csv', 1000, 990, 40, 10, 93, ?, ?)",
    ).run(`fd_${id}_${k}`, id, `Feed ${k}`, `feed ${k}`, status, status === "Failed" ? "All products have errors" : "", NOW - 3_600_000, NOW);
  }
}

const seeded = seededOnce("overview", (file) => {
  const db = new DatabaseSync(file);
  const t0 = performance.now();
  seedStore(db, large, LARGE);
  seedStore(db, small, SMALL);
  for (const id of others) seedStore(db, id, 100);
  const counts = db
    .prepare(
      "select (select count(*) from orders) as orders, (select count(*) from stores) as stores, (select count(*) from order_source_day_counts) as " +
        "sourceDays, (select count(*) from order_day_counts) as statusDays",
    )
    .get();
  db.close();
  return { counts: { ...counts, seedSeconds: Math.round((performance.now() - t0) / 1000) } };
});
console.log(`${seeded.reused ? "reusing the database seeded before" : "seeded"} ${JSON.stringify(seeded.counts)}`);

await main(async () => {
  const dev = await startDev({ port: PORT, persist: seeded.persist, clientOptions: { maxSockets: 2 } });
  const get = (urlPath) => timed(() => dev.must("GET", urlPath));

  const paths = { large: `/admin/v1/stores/${large}/overview`, small: `/admin/v1/stores/${small}/overview`, hub: "/admin/v1/overview" };
  // Warm-up (isolate, D1's page cache), then the stores alternately so that drift hits both alike.
  for (const p of Object.values(paths)) await get(p);
  const times = { large: [], small: [], hub: [] };
  for (let i = 0; i < REPEATS; i += 1) {
    for (const name of i % 2 ? ["small", "large", "hub"] : ["large", "small", "hub"]) times[name].push((await get(paths[name])).ms);
  }
  const answer = (await get(paths.large)).value.Overview;
  const hub = (await get(paths.hub)).value.Overview;
  const chartOrders = answer.OrdersPerDay.Totals.reduce((a, b) => a + b, 0);
  const result = {
    repeats: REPEATS,
    largeStoreOrders: LARGE,
    smallStoreOrders: SMALL,
    stores: hub.Stores.length,
    medianMs: { large: +median(times.large).toFixed(1), small: +median(times.small).toFixed(1), hub: +median(times.hub).toFixed(1) },
    ratioLargeToSmall: +(median(times.large) / median(times.small)).toFixed(2),
    largeStoreChartOrders30Days: chartOrders,
    hubAttentionItems: hub.Attention.length,
  };
  // The server lets go of the SQLite file before it is read directly.
  dev.stop();
  await Promise.race([dev.exited, sleep(10_000)]);

  // For scale: the same 30 days counted from orders (what the day counts spare), on the file itself.
  const db = new DatabaseSync(seeded.file, { readOnly: true, timeout: 10_000 });
  const direct = [];
  for (let i = 0; i < 3; i += 1) {
    const t = performance.now();
    db.prepare(
      "select order_source, date_created_in_order_source / 86400000 as d, count(*) from orders where store_id = ? and date_created_in_order_source >= ? " +
        "group by 1, 2",
    ).all(large, TODAY - 29 * DAY);
    direct.push(performance.now() - t);
  }
  const t = performance.now();
  db.prepare("select order_source, day, n from order_source_day_counts where store_id = ? and day >= ?").all(large, TODAY - 29 * DAY);
  result.sqliteFileMs = { chartFromOrders: +median(direct).toFixed(1), chartFromDayCounts: +(performance.now() - t).toFixed(2) };
  db.close();
  console.log(JSON.stringify(result, null, 2));
  writeResult("overview", { seeded: seeded.counts, writeCost: cost, ...result });
});
