#!/usr/bin/env node
// Orders benchmark (issue 12): every list and count shape on a store of 10,000 orders and on one
// of 1,000,000, in one run against one `wrangler dev`; a cursor walk's time per page from the
// first pages to pages 5,000 and beyond; the Worker's memory while it answers the largest page
// (100 orders of 500 items).
//
// Seeding: the migrations are applied to a local D1 (its own --persist-to directory); then, with
// no server running, the stores, a consumer key and the orders and items are written straight
// into that D1's SQLite file with node:sqlite, as INSERT ... SELECT over a recursive series. The
// database's triggers run as for any write, so usage and day counts are kept as in production.
// Then `wrangler dev` (loopback, ports 8810-8811) serves the Worker against that file.
//
//   node bench/orders.bench.mjs [--small 10000] [--large 1000000] [--walk 5100] [--port 8810] [--reuse]
// --reuse keeps the database a previous run seeded (the seed takes minutes at a million).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, statSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DatabaseSync } from "node:sqlite";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const SMALL = arg("small", 10_000);
const LARGE = arg("large", 1_000_000);
const WALK_PAGES = arg("walk", 5_100);
const PORT = arg("port", 8810);
const REPEATS = arg("repeats", 7);
const PERSIST = path.join(root, ".wrangler", "bench-orders");
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
const d1Dir = path.join(PERSIST, "v3", "d1", "miniflare-D1DatabaseObject");
const d1File = path.join(
  d1Dir,
  readdirSync(d1Dir).find((f) => f.endsWith(".sqlite")),
);

const stores = { small: { id: "st_bench_small", orders: SMALL }, large: { id: "st_bench_large", orders: LARGE }, big: { id: "st_bench_big", orders: 100 } };
const keys = {};
let db;
function seedStore(store, itemsPerOrder) {
  const secret = `ofh_bench_${store.id}`;
  db.prepare("insert into stores (id, name, created_at) values (?, ?, ?)").run(store.id, store.id, Date.now());
  db.prepare(
    "insert into consumer_keys (id, store_id, name, key_hash, scopes, lifespan, bucket_size, leak_rate_per_second, created_at) values (?, ?, 'bench', ?, " +
      "?, 'NeverExpires', 100000, 10000, ?)",
  ).run(`ck_${store.id}`, store.id, createHash("sha256").update(secret).digest("hex"), JSON.stringify(["OrdersRead"]), Date.now());
  keys[store.id] = secret;
  const t0 = performance.now();
  // Created dates are a permutation of the year (ids and dates disagree, as with imports);
  // statuses a quarter each; totals with ties (50,000 distinct values); updated up to 30 days later.
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
  return performance.now() - t0;
}
let seedMs = {};
let usage;
if (REUSE) {
  const seeded = JSON.parse(readFileSync(path.join(PERSIST, "seeded.json"), "utf8"));
  ({ seedMs, usage } = seeded);
  Object.assign(keys, seeded.keys);
  console.log(`reusing the database seeded before (${JSON.stringify(usage)})`);
} else {
  db = new DatabaseSync(d1File);
  seedMs.small = seedStore(stores.small, 2);
  seedMs.large = seedStore(stores.large, 2);
  seedMs.big = seedStore(stores.big, 500);
  usage = db.prepare("select * from store_usage where store_id = ?").get(stores.large.id);
  db.close();
  writeFileSync(path.join(PERSIST, "seeded.json"), JSON.stringify({ seedMs, usage: { ...usage }, keys }));
  console.log(
    `seeded ${SMALL} + ${LARGE} orders (2 items each) + 100 x 500 in ${((seedMs.small + seedMs.large + seedMs.big) / 1000).toFixed(0)} s; large store ` +
      `usage ${JSON.stringify(usage)}`,
  );
}
const fileMiB = ["", "-wal"].reduce((n, suffix) => n + (existsSync(d1File + suffix) ? statSync(d1File + suffix).size : 0), 0) / 1048576;
console.log(`local D1 file with WAL: ${fileMiB.toFixed(0)} MiB`);

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

/** The workerd process under this benchmark's wrangler dev, for its resident memory. */
function workerdPid() {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push({ pid: Number(entry), comm });
    } catch {
      // gone
    }
  }
  const stack = [dev.pid];
  while (stack.length) {
    for (const child of children.get(stack.pop()) ?? []) {
      if (child.comm.includes("workerd")) return child.pid;
      stack.push(child.pid);
    }
  }
  return null;
}
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

// ---------------------------------------------------------------- measuring
try {
  await waitForServer();
  const tokens = {};
  for (const store of Object.values(stores)) {
    tokens[store.id] = (await must("PUT", "/v1/Authorization", { ConsumerKey: keys[store.id] })).json.Token;
  }
  const whole = `fromDate=${new Date(START - DAY).toISOString()}&toDate=${new Date(END + 60 * DAY).toISOString()}`;
  const month = `fromDate=${new Date(END - 45 * DAY + 3_600_000).toISOString()}&toDate=${new Date(END - 15 * DAY - 7_200_000).toISOString()}`;
  const hour = `fromDate=${new Date(END - 3_600_000).toISOString()}&toDate=${new Date(END).toISOString()}`;
  const week = `fromDate=${new Date(END - 7 * DAY).toISOString()}&toDate=${new Date(END).toISOString()}`;
  const poll = `fromDate=${new Date(END - DAY + 3_600_000).toISOString()}&toDate=${new Date(END + 60 * DAY).toISOString()}&dateField=updated`;

  const shapes = [
    { kind: "count", name: "count, whole range", q: whole },
    { kind: "count", name: "count, status=NEW", q: `${whole}&status=NEW` },
    { kind: "count", name: "count, dateField=updated", q: `${whole}&dateField=updated` },
    { kind: "count", name: "count, 30 days, partial edge days", q: month },
    { kind: "count", name: "count, 30 days, status=SHIPPED, updated", q: `${month}&status=SHIPPED&dateField=updated` },
    { kind: "list", name: "poll: dateField=updated since a day ago, page 1", q: `${poll}&page=1&pageSize=100` },
  ];
  for (const dateField of ["created", "updated"]) {
    for (const status of [null, "NEW"]) {
      for (const sortBy of ["DateCreatedInOrderSource", "DateUpdated", "OrderId", "GrandTotal", "OrderStatus"]) {
        for (const dir of ["asc", "desc"]) {
          shapes.push({
            kind: "list",
            name: `page 1, dateField=${dateField}${status ? `, status=${status}` : ""}, ${sortBy} ${dir}`,
            q: `${whole}&dateField=${dateField}${status ? `&status=${status}` : ""}&sortBy=${sortBy}&sortDirection=${dir}&page=1&pageSize=100`,
          });
        }
      }
    }
  }
  for (const [label, range] of [
    ["last hour", hour],
    ["last 7 days", week],
    ["30 days", month],
  ]) {
    shapes.push({ kind: "list", name: `page 1, ${label}, GrandTotal desc`, q: `${range}&sortBy=GrandTotal&sortDirection=desc&page=1&pageSize=100` });
  }
  shapes.push({ kind: "list", name: "page=N offset, middle page (deep offsets cost more)", q: (n) => `${whole}&page=${Math.ceil(n / 200)}&pageSize=100` });
  shapes.push({ kind: "list", name: "page=N offset, last page", q: (n) => `${whole}&page=${Math.ceil(n / 100)}&pageSize=100` });

  const rows = [];
  for (const shape of shapes) {
    const path = (store) =>
      `/v1/${tokens[store.id]}/Orders${shape.kind === "count" ? "/count" : ""}?${typeof shape.q === "function" ? shape.q(store.orders) : shape.q}`;
    const times = { small: [], large: [] };
    const answered = {};
    for (const size of ["small", "large"]) {
      const res = await must("GET", path(stores[size])); // warm-up
      answered[size] = shape.kind === "count" ? res.json.Count : res.json.Orders.length;
    }
    for (let i = 0; i < REPEATS; i++) {
      for (const size of ["small", "large"]) times[size].push((await timed(() => must("GET", path(stores[size])))).ms);
    }
    const small = median(times.small);
    const large = median(times.large);
    rows.push({ shape: shape.name, kind: shape.kind, small, large, ratio: large / small, answered });
    console.log(
      `${shape.name.padEnd(72)} ${small.toFixed(1).padStart(8)} ${large.toFixed(1).padStart(8)} ${(large / small).toFixed(2).padStart(6)}  ` +
        `${JSON.stringify(answered)}`,
    );
  }

  // A cursor walk through the large store, default sort, 100 a page. Cursors do not expire, so
  // those of the first pages and of pages 5,000+ are timed again afterwards, interleaved, so that
  // both are measured under the same load.
  const walk = [];
  const seen = new Set();
  const kept = new Map();
  let next = null;
  const walkPath = (cursor) => `/v1/${tokens[stores.large.id]}/Orders?${whole}&pageSize=100&${cursor ? `cursor=${encodeURIComponent(cursor)}` : "page=1"}`;
  for (let page = 1; page <= WALK_PAGES; page++) {
    if (page <= 10 || page > WALK_PAGES - 10) kept.set(page, next);
    const { value, ms } = await timed(() => must("GET", walkPath(next)));
    for (const o of value.json.Orders) seen.add(o.OrderId);
    walk.push(ms);
    next = value.json.Paging.NextCursor;
    if (!next) break;
  }
  const early = [];
  const deep = [];
  for (let round = 0; round < 3; round++) {
    for (const [page, cursor] of kept) (page <= 10 ? early : deep).push((await timed(() => must("GET", walkPath(cursor)))).ms);
  }
  const walkStats = {
    pages: walk.length,
    distinctOrders: seen.size,
    first10: median(walk.slice(0, 10)),
    "1000-1010": median(walk.slice(999, 1010)),
    "5000-5100": median(walk.slice(4999, 5100)),
    last10: median(walk.slice(-10)),
    retimedFirst10: median(early),
    [`retimedPages${WALK_PAGES - 9}-${WALK_PAGES}`]: median(deep),
  };
  console.log(`cursor walk: ${JSON.stringify(walkStats)}`);

  // The largest page: 100 orders of 500 items. workerd's resident memory is sampled every 2 ms
  // from before the first request for that page (a warm-up would hide what it allocates).
  const pid = workerdPid();
  const bigPath = `/v1/${tokens[stores.big.id]}/Orders?${whole}&page=1&pageSize=100`;
  await new Promise((r) => setTimeout(r, 1000));
  const before = pid ? rssMiB(pid) : NaN;
  let peak = before;
  const sampler = setInterval(() => {
    if (pid) peak = Math.max(peak, rssMiB(pid));
  }, 2);
  const bigTimes = [];
  let bigBytes = 0;
  let bigItems = 0;
  let firstPeak = NaN;
  for (let i = 0; i < 5; i++) {
    const { value, ms } = await timed(() => must("GET", bigPath));
    if (i === 0) firstPeak = peak;
    bigTimes.push(ms);
    bigBytes = value.bytes;
    bigItems = value.json.Orders.reduce((n, o) => n + o.OrderItems.length, 0);
  }
  clearInterval(sampler);
  const memory = {
    pid,
    answerMiB: bigBytes / 1048576,
    items: bigItems,
    ms: median(bigTimes),
    rssBeforeMiB: before,
    growthFirstCallMiB: firstPeak - before,
    growthFiveCallsMiB: peak - before,
  };
  console.log(`largest page: ${JSON.stringify(memory)}`);

  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(
    path.join(root, "bench", "results", "orders.json"),
    JSON.stringify({ at: new Date().toISOString(), small: SMALL, large: LARGE, seedMs, fileMiB, rows, walk: walkStats, walkTimes: walk, memory }, null, 2),
  );
} catch (error) {
  console.error(error);
  console.error(devLog.slice(-3000));
  process.exitCode = 1;
} finally {
  stop();
}
