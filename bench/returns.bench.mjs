#!/usr/bin/env node
// Returns benchmark (issue 30): a page of 100 returns against a page of 100 orders of the same
// store, at 10,000 and at 1,000,000 orders with one return per 20 orders, in one run against one
// `wrangler dev` (the orders' page is the baseline, timed interleaved with the returns' under the
// same load); and a Receive with Restock of 100 lines (one D1 batch in src/returns/returns.writes.ts)
// against one of 1 line.
//
// Seeding as bench/orders.bench.mjs does: migrations applied to a local D1 of its own (the directory
// database first, then the shards), then the stores, keys, orders (2 items each), returns (one line
// each, statuses in turn) and products written straight into its SQLite file with node:sqlite,
// INSERT ... SELECT over a recursive series, the triggers running; the orders' and lines' plain
// indexes are dropped for the rows' insert and built once afterwards (the 1,000,000-order store
// seeds in about 4 minutes on the shared 2-CPU machine instead of about 30); then `wrangler dev`
// (loopback, ports 8812-8813) serves the Worker against that file. `--reuse` keeps the seeded
// database of the last run.
//
//   npm run bench -- returns      (10,000 and 1,000,000 orders)
//   npx node bench/returns.bench.mjs [--small 10000] [--large 1000000] [--repeats 9] [--port 8812] [--reuse]
//   (npx node: node:sqlite needs the project's Node 22, which npm scripts put first on the PATH)
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DatabaseSync } from "node:sqlite";
import { loadavg } from "node:os";
import { applyMigrations, d1SqliteFile } from "./harness.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const SMALL = arg("small", 10_000);
const LARGE = arg("large", 1_000_000);
const PORT = arg("port", 8812);
const REPEATS = arg("repeats", 9);
const RETURN_EVERY = 20;
const PERSIST = path.join(root, ".wrangler", "bench-returns");
const ADMIN_KEY = "bench-admin-key-0123456789abcdef-0123";
const VARS = {
  ADMIN_API_KEY: ADMIN_KEY,
  TOKEN_SIGNING_SECRET: "bench-token-signing-secret-0123456789",
  SOURCE_SETTINGS_KEY: "YmVuY2gtc291cmNlLXNldHRpbmdzLWtleS0zMmJ5dGU=",
};
const DAY = 86_400_000;
const END = Math.floor(Date.now() / DAY) * DAY - DAY;
const START = END - 365 * DAY;

// ---------------------------------------------------------------- seeding
const REUSE = process.argv.includes("--reuse") && existsSync(path.join(PERSIST, "seeded.json"));
if (!REUSE) rmSync(PERSIST, { recursive: true, force: true });
mkdirSync(PERSIST, { recursive: true });
// The directory database (binding DB, where a store lives unless moved) migrated first, alone, so
// that its SQLite file is the only one to seed; then the shards' (empty here), which the Worker reads too.
const migrate = REUSE
  ? { status: 0 }
  : spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", PERSIST], {
      cwd: root,
      env: { ...process.env, CI: "true" },
      encoding: "utf8",
    });
if (!REUSE && migrate.status !== 0) {
  console.error(migrate.stdout, migrate.stderr);
  process.exit(1);
}
const d1File = d1SqliteFile(PERSIST);
if (!REUSE) applyMigrations(PERSIST);

const stores = {
  small: { id: "st_rbench_small", orders: SMALL },
  large: { id: "st_rbench_large", orders: LARGE },
  restock: { id: "st_rbench_restock", orders: 2 },
};
const keys = {};
let db;
/** The store, its key, and its orders with `itemsPerOrder` items each (the triggers keep usage and day counts as for any write). */
function seedOrders(store, itemsPerOrder) {
  const secret = `ofh_bench_${store.id}`;
  db.prepare("insert into stores (id, name, created_at) values (?, ?, ?)").run(store.id, store.id, Date.now());
  db.prepare(
    "insert into consumer_keys (id, store_id, name, key_hash, scopes, lifespan, bucket_size, leak_rate_per_second, created_at) values (?, ?, 'bench', ?, " +
      "?, 'NeverExpires', 100000, 10000, ?)",
  ).run(
    `ck_${store.id}`,
    store.id,
    createHash("sha256").update(secret).digest("hex"),
    JSON.stringify(["OrdersRead", "ReturnsRead", "ReturnsUpdate"]),
    Date.now(),
  );
  keys[store.id] = secret;
  // As the orders bench: created dates a permutation of the year, statuses a quarter each.
  db.prepare(
    `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
     insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
       buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
       grand_total, sub_total, date_created_in_order_source, date_updated)
     select ?1, 'Bench', 'B-' || i, case (i * 7) % 4 when 0 then 'New' when 1 then 'Processing' when 2 then 'Shipped' else 'Canceled' end, 'x',
       'buyer' || i || '@example.com', '555-010-' || (i % 10000), 'Jane', 'Doe', i || ' Main St', 'Springfield', 'IL', '62701', 'US', 'Standard',
       ((i * 7919) % 50000) / 100.0, ((i * 7919) % 50000) / 100.0, c, c + (i * 31337) % (30 * ${DAY})
     from (select i, ?3 + ((i * 104729) % ?2) * (365 * ${DAY} / ?2) + (i % 997) as c from r)`,
  ).run(store.id, store.orders, START);
  db.prepare(
    `with recursive k(n) as (select 1 union all select n + 1 from k where n < ?2)
     insert into order_items (order_id, sku, name, quantity, unit_price, sale_tax_cost, discount)
     select o.id, 'SKU-' || ((o.id + n) % 5000), 'Item ' || n || ' of order ' || o.id || ' with a name of ordinary length', 1 + n % 3, 9.99, 0.8, '0'
     from orders o, k where o.store_id = ?1 order by o.id, n`,
  ).run(store.id, itemsPerOrder);
}
/** One return per RETURN_EVERY orders (every order for the restock store), asked 3 days after its order, statuses in turn; one line each (all its order's lines for the restock store). */
function seedReturns(store) {
  const every = store === stores.restock ? 1 : RETURN_EVERY;
  db.prepare(
    `insert into returns (store_id, order_id, source_id, source_return_number, status, source_status, reason, date_requested, date_updated, created_at)
     select ?1, o.id, 'src_bench', 'RMA-' || o.id,
       case (o.id / ?2) % 4 when 0 then 'Requested' when 1 then 'Approved' when 2 then 'Received' else 'Refunded' end, 'x', 'Does not fit',
       o.date_created_in_order_source + 3 * ${DAY}, o.date_created_in_order_source + 4 * ${DAY}, ?3
     from orders o where o.store_id = ?1 and o.id % ?2 = 0 order by o.id`,
  ).run(store.id, every, Date.now());
  db.prepare(
    `insert into return_lines (return_id, order_item_id, source_return_line_id, quantity, reason)
     select r.id, i.id, 'L-' || i.id, i.quantity, 'Does not fit'
     from returns r join order_items i on i.order_id = r.order_id
     where r.store_id = ?1 and (?2 = 1 or i.id = (select min(id) from order_items where order_id = r.order_id)) order by r.id, i.id`,
  ).run(store.id, store === stores.restock ? 1 : 0);
}
const seconds = (since) => (performance.now() - since) / 1000;
let seedSeconds = {};
if (REUSE) {
  const seeded = JSON.parse(readFileSync(path.join(PERSIST, "seeded.json"), "utf8"));
  seedSeconds = seeded.seedSeconds;
  Object.assign(keys, seeded.keys);
  console.log("reusing the database seeded before");
} else {
  // Seeding in minutes rather than half an hour at a million orders: the rows still go in by
  // INSERT ... SELECT and every trigger still runs, but the orders' and lines' plain indexes (not
  // the unique ones the triggers look up by) are dropped first and built again once from the
  // finished tables (a sort each), instead of taking a million inserts each at scattered places;
  // and SQLite gets a cache of 1 GiB instead of its 2 MiB. The schema afterwards is the
  // migrations' own (each index re-created from its CREATE statement as sqlite_master keeps it).
  const t0 = performance.now();
  db = new DatabaseSync(d1File);
  db.exec("PRAGMA cache_size = -1048576; PRAGMA temp_store = MEMORY");
  const plainIndexes = db
    .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name in ('orders', 'order_items') and sql like 'CREATE INDEX%'")
    .all();
  for (const index of plainIndexes) db.exec(`drop index ${index.name}`);
  seedOrders(stores.small, 2);
  seedOrders(stores.large, 2);
  // The restock store: order 1 with 100 lines, order 2 with 1, each fully returned; their Skus in stock.
  seedOrders(stores.restock, 100);
  seedSeconds.rows = seconds(t0);
  const t1 = performance.now();
  for (const index of plainIndexes) db.exec(index.sql);
  seedSeconds.indexes = seconds(t1);
  const t2 = performance.now();
  for (const store of Object.values(stores)) seedReturns(store);
  db.prepare(
    "delete from return_lines where return_id = (select max(id) from returns where store_id = ?) and id > (select min(id) from return_lines where " +
      "return_id = (select max(id) from returns where store_id = ?))",
  ).run(stores.restock.id, stores.restock.id);
  db.prepare(
    `insert or ignore into products (store_id, sku, title, price, quantity, updated_at)
     select distinct ?1, i.sku, 'Product ' || i.sku, 9.99, 10, ?2 from order_items i join orders o on o.id = i.order_id where o.store_id = ?1`,
  ).run(stores.restock.id, Date.now());
  seedSeconds.returns = seconds(t2);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  seedSeconds.total = seconds(t0);
  writeFileSync(path.join(PERSIST, "seeded.json"), JSON.stringify({ seedSeconds, keys }));
  console.log(
    `seeded ${SMALL} + ${LARGE} orders (2 items each), a return per ${RETURN_EVERY}, in ${seedSeconds.total.toFixed(0)} s ` +
      `(rows ${seedSeconds.rows.toFixed(0)} s, indexes ${seedSeconds.indexes.toFixed(0)} s, returns ${seedSeconds.returns.toFixed(0)} s; load average ${loadavg()[0].toFixed(1)})`,
  );
}

// ---------------------------------------------------------------- server
const agent = new https.Agent({ keepAlive: true, maxSockets: 4 });
function request(method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: "127.0.0.1",
        port: PORT,
        method,
        path: urlPath,
        agent,
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "cf-connecting-ip": "192.0.2.1", ...(payload ? { "content-type": "application/json" } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, json, text, bytes: text.length });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
async function must(method, urlPath, body) {
  const res = await request(method, urlPath, body);
  if (res.status !== 200) throw new Error(`${method} ${urlPath}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}
async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const devArgs = [
  "wrangler",
  "dev",
  "--ip",
  "127.0.0.1",
  "--port",
  String(PORT),
  "--inspector-port",
  String(PORT + 1),
  "--local-protocol",
  "https",
  "--persist-to",
  PERSIST,
];
for (const [name, value] of Object.entries(VARS)) devArgs.push("--var", `${name}:${value}`);
const dev = spawn("npx", devArgs, { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true });
let devLog = "";
dev.stdout.on("data", (d) => (devLog += d));
dev.stderr.on("data", (d) => (devLog += d));
const stop = () => {
  try {
    process.kill(-dev.pid, "SIGTERM");
  } catch {
    // already gone
  }
};
process.on("exit", stop);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stop();
    process.exit(130);
  });
}

async function waitForServer() {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (dev.exitCode !== null) throw new Error(`wrangler dev exited with ${dev.exitCode}`);
    try {
      if ((await request("GET", "/admin/v1/stores")).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("wrangler dev did not answer within 120 s");
}

// ---------------------------------------------------------------- measuring
try {
  await waitForServer();
  const tokens = {};
  for (const store of Object.values(stores)) tokens[store.id] = (await must("PUT", "/v1/Authorization", { ConsumerKey: keys[store.id] })).json.Token;
  const whole = `fromDate=${new Date(START - DAY).toISOString()}&toDate=${new Date(END + 60 * DAY).toISOString()}`;
  const month = `fromDate=${new Date(END - 45 * DAY).toISOString()}&toDate=${new Date(END - 15 * DAY).toISOString()}`;
  // Each shape: the orders' query and the returns' query of the same meaning.
  const shapes = [
    { name: "page 1, whole range, default sort", orders: `${whole}&page=1&pageSize=100`, returns: `${whole}&page=1&pageSize=100` },
    {
      name: "page 1, whole range, newest first",
      orders: `${whole}&sortBy=DateCreatedInOrderSource&sortDirection=desc&page=1&pageSize=100`,
      returns: `${whole}&sortBy=DateRequested&sortDirection=desc&page=1&pageSize=100`,
    },
    { name: "page 1, dateField=updated", orders: `${whole}&dateField=updated&page=1&pageSize=100`, returns: `${whole}&dateField=updated&page=1&pageSize=100` },
    { name: "page 1, a status", orders: `${whole}&status=NEW&page=1&pageSize=100`, returns: `${whole}&status=REQUESTED&page=1&pageSize=100` },
    { name: "page 1, 30 days", orders: `${month}&page=1&pageSize=100`, returns: `${month}&page=1&pageSize=100` },
  ];
  const rows = [];
  console.log(`${"shape".padEnd(40)} ${"size".padStart(8)} ${"orders ms".padStart(10)} ${"returns ms".padStart(10)} ${"ratio".padStart(6)}`);
  for (const shape of shapes) {
    for (const size of ["small", "large"]) {
      const store = stores[size];
      const o = `/v1/${tokens[store.id]}/Orders?${shape.orders}`;
      const r = `/v1/${tokens[store.id]}/Returns?${shape.returns}`;
      const counts = { orders: (await must("GET", o)).json.Orders.length, returns: (await must("GET", r)).json.Returns.length };
      const times = { orders: [], returns: [] };
      for (let i = 0; i < REPEATS; i++) {
        times.orders.push((await timed(() => must("GET", o))).ms);
        times.returns.push((await timed(() => must("GET", r))).ms);
      }
      const row = { shape: shape.name, size: store.orders, orders: median(times.orders), returns: median(times.returns), counts };
      row.ratio = row.returns / row.orders;
      rows.push(row);
      console.log(
        `${shape.name.padEnd(40)} ${String(store.orders).padStart(8)} ${row.orders.toFixed(1).padStart(10)} ${row.returns.toFixed(1).padStart(10)} ` +
          `${row.ratio.toFixed(2).padStart(6)}  ${JSON.stringify(counts)}`,
      );
    }
  }

  // Receive with Restock: the return of 100 lines against the return of 1 line (one request each).
  const token = tokens[stores.restock.id];
  const list = (await must("GET", `/v1/${token}/Returns?${whole}&page=1&pageSize=100`)).json.Returns;
  const big = list.find((x) => x.Items.length === 100);
  const one = list.find((x) => x.Items.length === 1);
  const receive = (ret) =>
    timed(() =>
      must("PUT", `/v1/${token}/Returns/${ret.ReturnId}/Receive`, {
        Items: ret.Items.map((i) => ({ OrderItemId: i.OrderItemId, Quantity: i.Quantity })),
        Restock: true,
      }),
    );
  const restock = { lines100Ms: (await receive(big)).ms, lines1Ms: (await receive(one)).ms, repeat100Ms: (await receive(big)).ms };
  const after = (await must("GET", `/v1/${token}/Returns/${big.ReturnId}`)).json.Returns[0];
  restock.restocked = after.Items.reduce((n, i) => n + i.QuantityRestocked, 0);
  restock.returned = after.Items.reduce((n, i) => n + i.Quantity, 0);
  console.log(`restock: ${JSON.stringify(restock)}`);

  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(
    path.join(root, "bench", "results", "returns.json"),
    JSON.stringify({ at: new Date().toISOString(), small: SMALL, large: LARGE, seedSeconds, rows, restock, loadavg: loadavg() }, null, 2),
  );
} catch (error) {
  console.error(error);
  console.error(devLog.slice(-3000));
  process.exitCode = 1;
} finally {
  stop();
}
