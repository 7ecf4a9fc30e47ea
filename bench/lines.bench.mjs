#!/usr/bin/env node
// Lines benchmark (issue 29, decisions 12): GET /v1 Orders, a page of 100 orders where every order
// has 3 lines and 2 packages, against the same page of a store whose 100 orders have the same 3
// lines and no package (the baseline), timed interleaved in one run against one `wrangler dev`
// (bench/harness.mjs). The target: the page with packages within 1.3x of the page without.
//
// Seeding: the migrations applied to a fresh local D1 (directory and shards), then both stores, their keys, orders and
// lines (and, for one, the packages: line_changes rows of kind `ship`, the lines' shipped units
// set to match) written straight into its SQLite file with node:sqlite, with no server running.
//
//   npm run bench -- lines [--seconds 6] [--clients 4] [--port 8814]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { applyMigrations, arg, benchPort, d1SqliteFile, freshDir, interleaved, main, pairedMedian, root, startDev, table, writeResult } from "./harness.mjs";

const PORT = benchPort(8814);
const SECONDS = arg("seconds", 6);
const CLIENTS = arg("clients", 4);
const ORDERS = 100;
const DAY = 86_400_000;
const START = Math.floor(Date.now() / DAY) * DAY - 30 * DAY;

const persist = freshDir("lines");
// The directory database (binding DB, where a store lives unless moved) migrated first, alone, so
// that its SQLite file is the only one; then the shards' (theirs are empty here).
const migrated = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], {
  cwd: root,
  env: { ...process.env, CI: "true" },
  encoding: "utf8",
});
if (migrated.status !== 0) throw new Error(`migrations of DB failed:\n${migrated.stdout}\n${migrated.stderr}`);
const directory = d1SqliteFile(persist);
applyMigrations(persist);
const stores = { bare: { id: "st_lbench_bare", packages: false }, packed: { id: "st_lbench_packed", packages: true } };
const db = new DatabaseSync(directory);
for (const store of Object.values(stores)) {
  store.key = `ofh_bench_${store.id}`;
  db.prepare("insert into stores (id, name, created_at) values (?, ?, ?)").run(store.id, store.id, Date.now());
  db.prepare(
    "insert into consumer_keys (id, store_id, name, key_hash, scopes, lifespan, bucket_size, leak_rate_per_second, created_at) values (?, ?, 'bench', ?, " +
      "?, 'NeverExpires', 100000, 10000, ?)",
  ).run(`ck_${store.id}`, store.id, createHash("sha256").update(store.key).digest("hex"), JSON.stringify(["OrdersRead"]), Date.now());
  db.prepare(
    `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
     insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
       buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
       grand_total, sub_total, date_created_in_order_source, date_updated)
     select ?1, 'Bench', 'L-' || i, 'Processing', 'x', 'buyer' || i || '@example.com', '555-010-' || i, 'Jane', 'Doe', i || ' Main St', 'Springfield',
       'IL', '62701', 'US', 'Standard', 29.97, 29.97, ?3 + i * 60000, ?3 + i * 60000
     from r`,
  ).run(store.id, ORDERS, START);
  db.prepare(
    `with recursive k(n) as (select 1 union all select n + 1 from k where n < 3)
     insert into order_items (order_id, sku, name, quantity, unit_price, sale_tax_cost, discount, quantity_shipped)
     select o.id, 'SKU-' || n, 'Item ' || n || ' of order ' || o.id || ' with a name of ordinary length', 2, 9.99, 0.8, '0', ?2
     from orders o, k where o.store_id = ?1 order by o.id, n`,
  ).run(store.id, store.packages ? 2 : 0);
  if (store.packages) {
    // Two packages per order: one unit of each of its 3 lines in each.
    db.prepare(
      `with recursive k(n) as (select 1 union all select n + 1 from k where n < 2)
       insert into line_changes (order_id, seq, store_id, kind, origin, lines, tracking_number, carrier, shipping_method, date_shipped, created_at, updated_at)
       select o.id, n, ?1, 'ship', 'seller', (select json_group_array(json_array(i.id, 1)) from order_items i where i.order_id = o.id),
         'TRACK-' || o.id || '-' || n, 'UPS', 'Standard', o.date_created_in_order_source + n * ${DAY}, ?2, ?2
       from orders o, k where o.store_id = ?1 order by o.id, n`,
    ).run(store.id, Date.now());
  }
}
db.close();

await main(async () => {
  const dev = await startDev({ port: PORT, persist });
  const page = `fromDate=2000-01-01T00:00:00Z&toDate=2100-01-01T00:00:00Z&page=1&pageSize=${ORDERS}`;
  const targets = [];
  for (const store of Object.values(stores)) {
    const token = (await dev.must("PUT", "/v1/Authorization", { ConsumerKey: store.key })).Token;
    targets.push({
      name: store.packages ? "100 orders, 3 lines and 2 packages each" : "100 orders, 3 lines, no package",
      call: () => dev.request("GET", `/v1/${token}/Orders?${page}`),
      check: (res) => {
        const orders = JSON.parse(res.text).Orders;
        const packages = orders.reduce((n, o) => n + o.Shipments.length, 0);
        if (orders.length !== ORDERS || packages !== (store.packages ? 2 * ORDERS : 0)) throw new Error(`${orders.length} orders, ${packages} packages`);
      },
    });
  }
  const [bare, packed] = await interleaved(targets, { seconds: SECONDS, clients: CLIENTS });
  const print = table([
    ["page", 42],
    ["p50 ms", 10],
    ["p99 ms", 10],
    [`rps@${CLIENTS}`, 10],
  ]);
  for (const r of [bare, packed]) print(r.name, r.single.p50.toFixed(1), r.single.p99.toFixed(1), r.loaded.rps.toFixed(1));
  const ratio = packed.single.p50 / bare.single.p50;
  const paired = pairedMedian(packed.samples, bare.samples);
  const throughput = bare.loaded.rps / packed.loaded.rps;
  console.log(`with packages / without: ${ratio.toFixed(2)}x at p50 (paired difference ${paired.toFixed(1)} ms), ${throughput.toFixed(2)}x in throughput`);
  writeResult("lines", { bare, packed, ratio, paired, throughput });
});
