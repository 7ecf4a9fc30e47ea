// What the benches that write their rows straight into a local D1's SQLite file share (orders,
// returns, overview): a state dir seeded once and kept for `--reuse`, with the directory database
// (binding DB, where a store lives unless moved) migrated alone first so that its SQLite file is the
// one to seed, then the shards, which the Worker reads too; and the one seeder of stores of orders.
//
// The seeder writes, per store, the store, a consumer key and its orders with their items, each as
// one INSERT ... SELECT over a recursive series, with node:sqlite and no server running. Every
// trigger runs as for any write (usage, day counts and stored bytes come out as production keeps
// them). It is fast at a million orders because the orders' and items' plain indexes (not the
// unique ones the triggers look up by) are dropped first and built once from the finished tables,
// each from the CREATE statement sqlite_master keeps, instead of taking a million inserts each at
// scattered places, and SQLite gets a 1 GiB cache instead of its 2 MiB.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { applyMigrations, d1Bindings, d1SqliteFile, freshDir, root } from "./harness.mjs";

export const DAY = 86_400_000;

/**
 * `.wrangler/bench-<name>` seeded by `seed(file)` (file: the directory database's SQLite file; it
 * returns what the bench needs again, JSON), or as a previous run left it when the command line
 * has `--reuse` and that run finished seeding. Returns { persist, file, reused, ...what seed returned }.
 */
export function seededOnce(name, seed) {
  const persist = path.join(root, ".wrangler", `bench-${name}`);
  const saved = path.join(persist, "seeded.json");
  if (process.argv.includes("--reuse") && existsSync(saved)) {
    const kept = JSON.parse(readFileSync(saved, "utf8"));
    // A seed from before this module kept no file: seeded again.
    if (kept.file) return { persist, reused: true, ...kept };
  }
  freshDir(name);
  applyMigrations(persist, undefined, ["DB"]);
  const file = d1SqliteFile(persist);
  const shards = d1Bindings().filter((binding) => binding !== "DB");
  applyMigrations(persist, undefined, shards);
  const seeded = { file, ...seed(file) };
  writeFileSync(saved, JSON.stringify(seeded));
  return { persist, reused: false, ...seeded };
}

/** The year the orders are spread over: from `start` to `end`, yesterday at 00:00 UTC. */
export function seedYear(now = Date.now()) {
  const end = Math.floor(now / DAY) * DAY - DAY;
  return { start: end - 365 * DAY, end };
}

/**
 * Seeds `stores` ({ id, orders, items }) into the SQLite file, in the order given (order and item
 * ids follow it): each store with a consumer key of `scopes` whose secret is `ofh_bench_<id>`, and
 * `orders` orders of `items` items each. Created dates are a permutation of the year from `start`
 * (ids and dates disagree, as with imports); statuses a quarter each; totals with ties (50,000
 * distinct values); updated up to 30 days after created; items with 5,000 distinct Skus.
 * Returns { db, keys: { id: secret }, seconds: { rows, indexes } }: the database still open for a
 * bench's further rows (with every index back); closeSeeded(db) when done.
 */
export function seedOrderStores(file, stores, { scopes, start }) {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA cache_size = -1048576; PRAGMA temp_store = MEMORY");
  const plainIndexes = db
    .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name in ('orders', 'order_items') and sql like 'CREATE INDEX%'")
    .all();
  const t0 = performance.now();
  for (const index of plainIndexes) db.exec(`drop index ${index.name}`);
  const keys = {};
  for (const store of stores) keys[store.id] = seedStore(db, store, scopes, start);
  const t1 = performance.now();
  for (const index of plainIndexes) db.exec(index.sql);
  return { db, keys, seconds: { rows: (t1 - t0) / 1000, indexes: (performance.now() - t1) / 1000 } };
}

/** Writes what is still in the WAL into the file itself and closes it (the server opens it next). */
export function closeSeeded(db) {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}

function seedStore(db, store, scopes, start) {
  const secret = `ofh_bench_${store.id}`;
  db.prepare("insert into stores (id, name, created_at) values (?, ?, ?)").run(store.id, store.id, Date.now());
  db.prepare(
    "insert into consumer_keys (id, store_id, name, key_hash, scopes, lifespan, bucket_size, leak_rate_per_second, created_at) values (?, ?, 'bench', ?, " +
      "?, 'NeverExpires', 100000, 10000, ?)",
  ).run(`ck_${store.id}`, store.id, createHash("sha256").update(secret).digest("hex"), JSON.stringify(scopes), Date.now());
  db.prepare(
    `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
     insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
       buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
       grand_total, sub_total, date_created_in_order_source, date_updated)
     select ?1, 'Bench', 'B-' || i, case (i * 7) % 4 when 0 then 'New' when 1 then 'Processing' when 2 then 'Shipped' else 'Canceled' end, 'x',
       'buyer' || i || '@example.com', '555-010-' || (i % 10000), 'Jane', 'Doe', i || ' Main St', 'Springfield', 'IL', '62701', 'US', 'Standard',
       ((i * 7919) % 50000) / 100.0, ((i * 7919) % 50000) / 100.0, c, c + (i * 31337) % (30 * ${DAY})
     from (select i, ?3 + ((i * 104729) % ?2) * (365 * ${DAY} / ?2) + (i % 997) as c from r)`,
  ).run(store.id, store.orders, start);
  db.prepare(
    `with recursive k(n) as (select 1 union all select n + 1 from k where n < ?2)
     insert into order_items (order_id, sku, name, quantity, unit_price, sale_tax_cost, discount)
     select o.id, 'SKU-' || ((o.id + n) % 5000), 'Item ' || n || ' of order ' || o.id || ' with a name of ordinary length', 1 + n % 3, 9.99, 0.8, '0'
     from orders o, k where o.store_id = ?1 order by o.id, n`,
  ).run(store.id, store.items);
  return secret;
}
