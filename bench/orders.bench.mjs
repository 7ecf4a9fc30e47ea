#!/usr/bin/env node
// Orders benchmark (issue 12): every list and count shape on a store of 10,000 orders and on one
// of 1,000,000, in one run against one `wrangler dev`; a cursor walk's time per page from the
// first pages to pages 5,000 and beyond; workerd's memory while it answers the largest page
// (100 orders of 500 items).
//
// Seeding (bench/seed.mjs, shared with the returns bench): the migrations are applied to a local
// D1 of its own; then, with no server running, the stores, a consumer key each and the orders and
// items are written straight into the directory database's SQLite file with node:sqlite, as
// INSERT ... SELECT over a recursive series, the orders' and items' plain indexes dropped for it
// and built once afterwards. The database's triggers run as for any write, so usage and day counts
// are kept as in production. Then `wrangler dev` (loopback, ports 8810-8811, or BENCH_PORT and the
// next) serves the Worker against that file.
//
//   npm run bench -- orders      (10,000 and 1,000,000 orders)
//   npx node bench/orders.bench.mjs [--small 10000] [--large 1000000] [--walk 5100] [--repeats 7] [--port 8810] [--reuse]
// --reuse keeps the database a previous run seeded (the seed takes minutes at a million).
// (npx node: node:sqlite needs the project's Node 22, which npm scripts put first on the PATH.)
import { existsSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { arg, benchPort, main, median, rssMiB, sleep, startDev, timed, workerdPids, writeResult } from "./harness.mjs";
import { closeSeeded, DAY, seededOnce, seedOrderStores, seedYear } from "./seed.mjs";

const SMALL = arg("small", 10_000);
const LARGE = arg("large", 1_000_000);
const WALK_PAGES = arg("walk", 5_100);
const PORT = benchPort(8810);
const REPEATS = arg("repeats", 7);

// ---------------------------------------------------------------- seeding
const stores = {
  small: { id: "st_bench_small", orders: SMALL, items: 2 },
  large: { id: "st_bench_large", orders: LARGE, items: 2 },
  big: { id: "st_bench_big", orders: 100, items: 500 },
};
const year = seedYear();
const seeded = seededOnce("orders", (file) => {
  const { db, keys, seconds } = seedOrderStores(file, Object.values(stores), { scopes: ["OrdersRead"], start: year.start });
  const usage = { ...db.prepare("select * from store_usage where store_id = ?").get(stores.large.id) };
  closeSeeded(db);
  return { ...year, keys, seedSeconds: { ...seconds, total: seconds.rows + seconds.indexes }, loadavg: loadavg()[0], usage };
});
const { keys, seedSeconds, usage, start: START, end: END } = seeded;
console.log(
  `${seeded.reused ? "reusing the database seeded before: " : ""}seeded ${SMALL} + ${LARGE} orders (2 items each) + 100 x 500 in ` +
    `${seedSeconds.total.toFixed(0)} s (rows ${seedSeconds.rows.toFixed(0)} s, indexes ${seedSeconds.indexes.toFixed(0)} s; load average ` +
    `${seeded.loadavg.toFixed(1)}); large store usage ${JSON.stringify(usage)}`,
);
const fileMiB = ["", "-wal"].reduce((n, suffix) => n + (existsSync(seeded.file + suffix) ? statSync(seeded.file + suffix).size : 0), 0) / 1048576;
console.log(`local D1 file with WAL: ${fileMiB.toFixed(0)} MiB`);

// ---------------------------------------------------------------- measuring
await main(async () => {
  const dev = await startDev({ port: PORT, persist: seeded.persist, clientOptions: { headers: { "cf-connecting-ip": "192.0.2.1" }, maxSockets: 4 } });
  const { must } = dev;
  const tokens = {};
  for (const store of Object.values(stores)) tokens[store.id] = (await must("PUT", "/v1/Authorization", { ConsumerKey: keys[store.id] })).Token;
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
      answered[size] = shape.kind === "count" ? res.Count : res.Orders.length;
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
    for (const o of value.Orders) seen.add(o.OrderId);
    walk.push(ms);
    next = value.Paging.NextCursor;
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

  // The largest page: 100 orders of 500 items. The resident memory of each workerd process under
  // this wrangler dev (its proxy on PORT, and the one running the Worker with the local D1) is
  // sampled every 2 ms from before the first request for that page (a warm-up would hide what it
  // allocates); the memory figures are their sum, and each process's growth beside it.
  const pids = workerdPids(dev.pid);
  const bigPath = `/v1/${tokens[stores.big.id]}/Orders?${whole}&page=1&pageSize=100`;
  await sleep(1000);
  const before = pids.map((pid) => rssMiB([pid]));
  const peak = [...before];
  const sampler = setInterval(() => pids.forEach((pid, k) => (peak[k] = Math.max(peak[k], rssMiB([pid])))), 2);
  const bigTimes = [];
  let bigBytes = 0;
  let bigItems = 0;
  let firstPeak = [];
  for (let i = 0; i < 5; i++) {
    const { value, ms } = await timed(() => dev.request("GET", bigPath));
    if (value.status !== 200) throw new Error(`GET ${bigPath}: ${value.status} ${value.text.slice(0, 300)}`);
    if (i === 0) firstPeak = [...peak];
    bigTimes.push(ms);
    bigBytes = value.text.length;
    bigItems = value.json.Orders.reduce((n, o) => n + o.OrderItems.length, 0);
  }
  clearInterval(sampler);
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const byProcess = pids.map((pid, k) => ({
    pid,
    rssBeforeMiB: before[k],
    growthFirstCallMiB: firstPeak[k] - before[k],
    growthFiveCallsMiB: peak[k] - before[k],
  }));
  const memory = {
    answerMiB: bigBytes / 1048576,
    items: bigItems,
    ms: median(bigTimes),
    rssBeforeMiB: sum(before),
    growthFirstCallMiB: sum(byProcess.map((p) => p.growthFirstCallMiB)),
    growthFiveCallsMiB: sum(byProcess.map((p) => p.growthFiveCallsMiB)),
    byProcess,
  };
  console.log(`largest page: ${JSON.stringify(memory)}`);

  writeResult("orders", { small: SMALL, large: LARGE, seedSeconds, fileMiB, rows, walk: walkStats, walkTimes: walk, memory });
});
