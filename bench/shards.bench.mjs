#!/usr/bin/env node
// Shards benchmark (issue 19, decisions 10), in one run:
//
// 1. Placement and reads. Two `wrangler dev` of bench/shards-worker.ts, side by side, each with its
//    own persist dir and the directory + 3 shards of wrangler.toml: "sharded", where 30 stores are
//    created through POST /admin/v1/stores and the hub places them (least-filled shard), and
//    "unsharded", the baseline, where the same 30 stores are all named onto SHARD_1. Each store gets
//    `--orders` orders with one line each, seeded straight into its shard by the bench-only
//    POST /admin/v1/bench/shards/seed (one INSERT ... SELECT over a recursive series per store, the
//    shard's triggers running as for any write). Then one store (the same one, the same data in
//    both) is read through the API, the two runs interleaved call by call: a first list page, a
//    cursor page, the count; p50/p99 of `--calls` calls each, and each of `--rounds` rounds' ratio.
// 2. A move. In the sharded run, a store of `--big` orders (seeded the same way, 50,000 a statement)
//    is moved to another shard with the production limits (MOVE_LIMITS), run by its StoreMover's
//    alarm as in production, while a reader pages through its orders and a writer inserts one order
//    every `--write-every` ms: rows copied per second, the write hold (the move's WriteHoldMs and
//    the writer's own view of its 503s), reads' p50/p99 before and during the move, the move's
//    total time, and a census of every shard at the end (every order in the new shard once, every
//    accepted write there, nothing left in the old one).
//
//   node bench/shards.bench.mjs [--stores 30] [--orders 30000] [--calls 500] [--rounds 5] [--big 1000000]
//     [--write-every 100] [--port 8870] [--skip-move] [--skip-reads]
// Ports: sharded run --port and +1, unsharded +2 and +3. Figures go to bench/results/shards.json.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------- shared bench plumbing
// (what bench/harness.mjs will hold: a local wrangler dev, requests to it, percentiles)
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const flag = (name) => process.argv.includes(`--${name}`);
const ADMIN_KEY = "bench-admin-key-0123456789abcdef-0123";
const VARS = {
  ADMIN_API_KEY: ADMIN_KEY,
  TOKEN_SIGNING_SECRET: "bench-token-signing-secret-0123456789",
  SOURCE_SETTINGS_KEY: "YmVuY2gtc291cmNlLXNldHRpbmdzLWtleS0zMmJ5dGU=",
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
const stats = (xs) => ({ n: xs.length, p50: round(percentile(xs, 50)), p99: round(percentile(xs, 99)), max: round(Math.max(...xs)) });
const round = (x) => Math.round(x * 10) / 10;

/** Migrates the directory and every shard of wrangler.toml into `persist`, then starts `wrangler dev` on it. */
function startDev({ name, port, entry, persist }) {
  rmSync(persist, { recursive: true, force: true });
  mkdirSync(persist, { recursive: true });
  for (const binding of ["DB", "SHARD_1", "SHARD_2", "SHARD_3"]) {
    const migrate = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", binding, "--local", "--persist-to", persist], {
      cwd: root,
      env: { ...process.env, CI: "true" },
      encoding: "utf8",
    });
    if (migrate.status !== 0) throw new Error(`${name}: migrating ${binding} failed\n${migrate.stdout}\n${migrate.stderr}`);
  }
  const args = ["wrangler", "dev", entry, "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(port + 1), "--local-protocol", "https", "--persist-to", persist];
  for (const [key, value] of Object.entries(VARS)) args.push("--var", `${key}:${value}`);
  const proc = spawn("npx", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const dev = { name, port, proc, log: "", agent: new https.Agent({ keepAlive: true, maxSockets: 8 }) };
  proc.stdout.on("data", (d) => (dev.log = (dev.log + d).slice(-20_000)));
  proc.stderr.on("data", (d) => (dev.log = (dev.log + d).slice(-20_000)));
  dev.stop = () => {
    try {
      process.kill(-proc.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  return dev;
}

/** wrangler's local certificate is self-signed: trusted for these loopback calls only. */
function request(dev, method, urlPath, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: "127.0.0.1",
        port: dev.port,
        method,
        path: urlPath,
        agent: dev.agent,
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "cf-connecting-ip": "192.0.2.1", ...(payload ? { "content-type": "application/json" } : {}), ...headers },
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
          resolve({ status: res.statusCode, json, text, headers: res.headers });
        });
      },
    );
    // A call that hangs (a connection cut by a reload) fails after a minute instead of stalling the run.
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${urlPath.slice(0, 80)}: no answer in 60 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** A loop's call: a failure to connect or answer is recorded (status 0), not thrown. */
async function attempt(dev, method, urlPath, body) {
  try {
    return await request(dev, method, urlPath, body);
  } catch (error) {
    return { status: 0, json: undefined, text: String(error), headers: {} };
  }
}

async function must(dev, method, urlPath, body) {
  const res = await request(dev, method, urlPath, body);
  if (res.status !== 200) throw new Error(`${dev.name}: ${method} ${urlPath.slice(0, 120)}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

async function waitForServer(dev) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (dev.proc.exitCode !== null) throw new Error(`${dev.name}: wrangler dev exited with ${dev.proc.exitCode}`);
    try {
      if ((await request(dev, "GET", "/admin/v1/shards")).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error(`${dev.name}: wrangler dev did not answer within 180 s`);
}

// ---------------------------------------------------------------- this benchmark
const STORES = arg("stores", 30);
const ORDERS = arg("orders", 30_000);
const CALLS = arg("calls", 500);
const ROUNDS = arg("rounds", 5);
const BIG = arg("big", 1_000_000);
const WRITE_EVERY = arg("write-every", 100);
const PORT = arg("port", 8870);
const DAY = 86_400_000;
const END = Math.floor(Date.now() / DAY) * DAY - DAY;
const START = END - 365 * DAY;
const WHOLE = `fromDate=${new Date(START - DAY).toISOString()}&toDate=${new Date(END + 60 * DAY).toISOString()}`;
const BIG_SEED_CHUNK = 50_000;

const devs = [];
const stopAll = () => devs.forEach((d) => d.stop());
process.on("exit", stopAll);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

/** A store made through the API (placed by the hub unless `shard` is named) with a key that reads and writes orders. */
async function makeStore(dev, name, shard) {
  const store = (await must(dev, "POST", "/admin/v1/stores", { Name: name, ...(shard ? { Shard: shard } : {}) })).Store;
  const key = (
    await must(dev, "POST", `/admin/v1/stores/${store.StoreId}/consumer-keys`, {
      Name: "bench",
      Scopes: ["OrdersRead", "OrdersCreate"],
      Lifespan: "NeverExpires",
      BucketSize: 100_000,
      LeakRatePerSecond: 10_000,
    })
  ).ConsumerKey;
  const token = (await must(dev, "PUT", "/v1/Authorization", { ConsumerKey: key.Key })).Token;
  return { id: store.StoreId, shard: store.Shard, token };
}

async function seed(dev, store, total, chunk = total) {
  let ms = 0;
  for (let first = 1; first <= total; first += chunk) {
    const last = Math.min(total, first + chunk - 1);
    const answer = await must(dev, "POST", `/admin/v1/bench/shards/seed?storeId=${store.id}&first=${first}&last=${last}&total=${total}&start=${START}`);
    ms += answer.Ms;
  }
  return ms;
}

const listPath = (store, cursor) => `/v1/${store.token}/Orders?${WHOLE}&pageSize=100&${cursor ? `cursor=${encodeURIComponent(cursor)}` : "page=1"}`;
const countPath = (store) => `/v1/${store.token}/Orders/count?${WHOLE}`;

const results = { at: new Date().toISOString(), stores: STORES, ordersPerStore: ORDERS, calls: CALLS };

async function placementAndReads(sharded, unsharded) {
  console.log(`\n-- 1. ${STORES} stores x ${ORDERS} orders (1 line each), sharded (placed by the hub) and unsharded (all named SHARD_1)`);
  const made = { sharded: [], unsharded: [] };
  const seedMs = { sharded: 0, unsharded: 0 };
  const t0 = performance.now();
  // The two runs are seeded at the same time; within a run, one store after another.
  await Promise.all(
    [
      [sharded, undefined],
      [unsharded, "SHARD_1"],
    ].map(async ([dev, shard]) => {
      for (let i = 0; i < STORES; i++) {
        const store = await makeStore(dev, `bench store ${i + 1}`, shard);
        seedMs[dev.name] += await seed(dev, store, ORDERS);
        made[dev.name].push(store);
      }
    }),
  );
  console.log(`seeded ${2 * STORES * ORDERS} orders in ${((performance.now() - t0) / 1000).toFixed(0)} s (D1 time: sharded ${(seedMs.sharded / 1000).toFixed(0)} s, unsharded ${(seedMs.unsharded / 1000).toFixed(0)} s)`);
  for (const dev of [sharded, unsharded]) {
    const shards = (await must(dev, "GET", "/admin/v1/shards")).Shards;
    results[`${dev.name}Shards`] = shards;
    console.log(`${dev.name.padEnd(10)} ${shards.map((s) => `${s.Shard}: ${s.Stores} stores, ${s.Orders} orders`).join(" | ")}`);
  }
  // Bytes an order (with its line, its share of the day counts and usage rows) takes in the
  // unsharded run's one shard, indexes included, as D1 reports the database's size.
  const sizes = (await must(unsharded, "GET", "/admin/v1/bench/shards/sizes")).Sizes;
  const one = sizes.find((x) => x.Shard === "SHARD_1").Bytes;
  results.bytesPerOrder = Math.round(one / (STORES * ORDERS));
  results.sizes = { sharded: (await must(sharded, "GET", "/admin/v1/bench/shards/sizes")).Sizes, unsharded: sizes };
  console.log(`unsharded SHARD_1: ${(one / 1048576).toFixed(0)} MiB for ${STORES * ORDERS} orders, ${results.bytesPerOrder} bytes an order with its line; directory ${(sizes[0].Bytes / 1024).toFixed(0)} KiB for ${STORES} stores and keys`);
  // The store measured: the middle one, the same data in both runs.
  const index = Math.floor(STORES / 2);
  const pair = { sharded: made.sharded[index], unsharded: made.unsharded[index] };
  console.log(`measured: store ${index + 1}, sharded in ${pair.sharded.shard}, unsharded in ${pair.unsharded.shard}`);
  const cursors = {};
  for (const dev of [sharded, unsharded]) {
    const first = await must(dev, "GET", listPath(pair[dev.name]));
    cursors[dev.name] = first.Paging.NextCursor;
    const count = (await must(dev, "GET", countPath(pair[dev.name]))).Count;
    if (count !== ORDERS || first.Orders.length !== 100) throw new Error(`${dev.name}: count ${count}, first page ${first.Orders.length}`);
    if (first.Orders.some((o) => o.OrderItems.length !== 1)) throw new Error(`${dev.name}: an order without its one line`);
  }
  const shapes = {
    "list, first page (100)": (dev) => listPath(pair[dev.name]),
    "list, cursor page (100)": (dev) => listPath(pair[dev.name], cursors[dev.name]),
    count: (dev) => countPath(pair[dev.name]),
  };
  const times = {};
  for (const shape of Object.keys(shapes)) times[shape] = { sharded: [], unsharded: [] };
  // Warm-up, then every shape on both runs call by call, which of the two goes first alternating;
  // in ROUNDS rounds, so that each round's ratio shows how far the machine's noise moves it.
  for (const dev of [sharded, unsharded]) for (const shape of Object.keys(shapes)) for (let i = 0; i < 5; i++) await must(dev, "GET", shapes[shape](dev));
  for (let i = 0; i < CALLS; i++) {
    const order = i % 2 ? [sharded, unsharded] : [unsharded, sharded];
    for (const shape of Object.keys(shapes)) {
      for (const dev of order) times[shape][dev.name].push((await timed(() => must(dev, "GET", shapes[shape](dev)))).ms);
    }
  }
  results.reads = {};
  const perRound = Math.floor(CALLS / ROUNDS);
  const fixed = (x) => x.toFixed(2);
  console.log(`\n${CALLS} calls per shape and run, in ${ROUNDS} rounds of ${perRound}; ms per call`);
  console.log(`${"".padEnd(26)}${"sharded p50".padStart(12)}${"p99".padStart(8)}${"unsharded p50".padStart(15)}${"p99".padStart(8)}${"ratio p50".padStart(11)}${"ratio p99".padStart(11)}   rounds' p50 ratios (min/median/max)`);
  for (const shape of Object.keys(shapes)) {
    const s = stats(times[shape].sharded);
    const u = stats(times[shape].unsharded);
    const rounds = Array.from({ length: ROUNDS }, (_, r) => {
      const slice = (xs) => xs.slice(r * perRound, (r + 1) * perRound);
      return percentile(slice(times[shape].sharded), 50) / percentile(slice(times[shape].unsharded), 50);
    }).sort((a, b) => a - b);
    const roundRatios = { min: round(rounds[0] * 100) / 100, median: round(percentile(rounds, 50) * 100) / 100, max: round(rounds.at(-1) * 100) / 100 };
    results.reads[shape] = { sharded: s, unsharded: u, ratioP50: round((s.p50 / u.p50) * 100) / 100, ratioP99: round((s.p99 / u.p99) * 100) / 100, roundRatios };
    console.log(
      `${shape.padEnd(26)}${String(s.p50).padStart(12)}${String(s.p99).padStart(8)}${String(u.p50).padStart(15)}${String(u.p99).padStart(8)}${fixed(s.p50 / u.p50).padStart(11)}${fixed(s.p99 / u.p99).padStart(11)}   ${fixed(roundRatios.min)} / ${fixed(roundRatios.median)} / ${fixed(roundRatios.max)}`,
    );
  }
}

/** An order the writer inserts: the least the API takes, numbered W-n. */
const writeBody = (n) => ({
  BuyerEmailAddress: `writer${n}@example.com`,
  BuyerPhoneNumber: "555-0100",
  OrderSource: "Writer",
  OrderSourceOrderNumber: `W-${n}`,
  DateCreatedInOrderSource: new Date(END - DAY).toISOString(),
  ShipToCompanyName: null,
  FirstName: "Jo",
  LastName: "Writer",
  Street1: "1 Main St",
  City: "Springfield",
  StateOrProvince: "IL",
  Country: "US",
  PostalCode: "62701",
  ShippingMethod: "Standard",
  GrandTotal: 10,
  SubTotal: 10,
  OrderItems: [{ Sku: "W-SKU", Name: "Written during the move", Quantity: 1, UnitPrice: 10 }],
});

async function move(dev) {
  console.log(`\n-- 2. a move of a store of ${BIG} orders (1 line each), production limits, run by the StoreMover's alarm`);
  const store = await makeStore(dev, "bench big store");
  const t0 = performance.now();
  const seedMs = await seed(dev, store, BIG, BIG_SEED_CHUNK);
  console.log(`seeded ${BIG} orders into ${store.shard} in ${((performance.now() - t0) / 1000).toFixed(0)} s (D1 time ${(seedMs / 1000).toFixed(0)} s)`);
  const shards = (await must(dev, "GET", "/admin/v1/shards")).Shards.filter((s) => !s.Draining && s.Shard !== store.shard);
  const to = shards.sort((a, b) => a.Orders - b.Orders)[0].Shard;

  // A reader paging through the store (a first page, then cursor pages from it, wrapping round) and
  // a writer inserting one order every WRITE_EVERY ms, from before the move until after it.
  const reads = [];
  const writes = [];
  let phase = "before";
  let running = true;
  const reader = (async () => {
    let cursor = null;
    let pages = 0;
    while (running) {
      const at = performance.now();
      const res = await attempt(dev, "GET", listPath(store, cursor));
      reads.push({ phase, at, ms: performance.now() - at, status: res.status, page: cursor ? "cursor" : "first" });
      cursor = res.status === 200 && pages++ < 50 ? res.json.Paging.NextCursor : null;
      if (!cursor) pages = 0;
    }
  })();
  // A probe answered with no I/O at all, and one reading only the directory and every shard.
  const probes = [];
  const probe = (kind, urlPath) =>
    (async () => {
      while (running) {
        const at = performance.now();
        const res = await attempt(dev, "GET", urlPath);
        probes.push({ kind, phase, at, ms: performance.now() - at, status: res.status });
        await sleep(50);
      }
    })();
  const probing = [probe("ping", "/admin/v1/bench/shards/ping"), probe("shards", "/admin/v1/shards")];
  let written = 0;
  const writer = (async () => {
    while (running) {
      const n = ++written;
      const at = performance.now();
      const res = await attempt(dev, "PUT", `/v1/${store.token}/Orders/insertorder`, writeBody(n));
      writes.push({ n, phase, at, ms: performance.now() - at, status: res.status, retryAfter: res.headers["retry-after"] });
      await sleep(Math.max(0, WRITE_EVERY - (performance.now() - at)));
    }
  })();
  await sleep(20_000);

  phase = "during";
  const started = performance.now();
  const startedAnswer = await must(dev, "POST", `/admin/v1/stores/${store.id}/move`, { Shard: to });
  console.log(`moving ${store.id} ${startedAnswer.Move.FromShard ?? store.shard} -> ${to}`);
  let moveRow;
  let copiedAt = null;
  let lastPrint = 0;
  for (;;) {
    moveRow = (await must(dev, "GET", `/admin/v1/stores/${store.id}/move`)).Move;
    const now = performance.now();
    if (copiedAt === null && moveRow.Phase !== "copy" && moveRow.Phase !== "capture") copiedAt = now;
    if (now - lastPrint > 30_000) {
      lastPrint = now;
      console.log(`  ${((now - started) / 1000).toFixed(0)} s: ${moveRow.Status} ${moveRow.Phase}, ${moveRow.RowsCopied} copied, ${moveRow.ChangesApplied} changes, ${moveRow.RowsRemoved} removed${moveRow.Error ? `, error: ${moveRow.Error}` : ""}`);
    }
    if (moveRow.Status === "completed" || moveRow.Status === "failed") break;
    if (now - started > 90 * 60_000) throw new Error(`the move did not finish in 90 min: ${JSON.stringify(moveRow)}`);
    await sleep(1000);
  }
  const finished = performance.now();
  phase = "after";
  await sleep(10_000);
  running = false;
  await Promise.all([reader, writer, ...probing]);
  if (moveRow.Status !== "completed") throw new Error(`move ${moveRow.Status}: ${JSON.stringify(moveRow)}`);

  const census = (await must(dev, "GET", `/admin/v1/bench/shards/census?storeId=${store.id}&prefix=W-`)).Shards;
  const accepted = writes.filter((w) => w.status === 200).map((w) => `W-${w.n}`);
  const refused = writes.filter((w) => w.status !== 200);
  const unexpected = refused.filter((w) => w.status !== 503);
  const held = writes.filter((w) => w.status === 503);
  const heldSpan = held.length ? held.at(-1).at + held.at(-1).ms - held[0].at : 0;
  const newShard = census.find((s) => s.Shard === to);
  const oldShard = census.find((s) => s.Shard === store.shard);
  const newNumbers = new Set(newShard.Written);
  const copyMs = Date.parse(moveRow.DateSwitched) - Date.parse(moveRow.DateStarted);
  const readStats = (p) => stats(reads.filter((r) => r.phase === p && r.status === 200).map((r) => r.ms));
  const summary = {
    store: store.id,
    from: store.shard,
    to,
    orders: BIG,
    move: moveRow,
    totalMoveS: round((finished - started) / 1000),
    copyPhaseS: copiedAt ? round((copiedAt - started) / 1000) : null,
    rowsCopiedPerSecond: copiedAt ? Math.round(moveRow.RowsCopied / ((copiedAt - started) / 1000)) : null,
    startToSwitchS: round(copyMs / 1000),
    writeHoldMs: moveRow.WriteHoldMs,
    writer: {
      every: WRITE_EVERY,
      sent: writes.length,
      accepted: accepted.length,
      answered503: held.length,
      other: unexpected.map((w) => w.status),
      clientHoldMs: round(heldSpan),
      retryAfter: [...new Set(held.map((w) => w.retryAfter))],
      writeP50: stats(writes.filter((w) => w.status === 200).map((w) => w.ms)),
    },
    probes: Object.fromEntries(["ping", "shards"].map((k) => [k, Object.fromEntries(["before", "during"].map((p) => [p, stats(probes.filter((x) => x.kind === k && x.phase === p).map((x) => x.ms))]))])),
    reads: {
      before: readStats("before"),
      during: readStats("during"),
      // The move's two halves: copying on the old shard (to the switch), cleanup of the old shard after it.
      duringCopy: stats(reads.filter((r) => r.phase === "during" && r.status === 200 && r.at - started < copyMs).map((r) => r.ms)),
      duringCleanup: stats(reads.filter((r) => r.phase === "during" && r.status === 200 && r.at - started >= copyMs).map((r) => r.ms)),
      after: readStats("after"),
      over1s: reads.filter((r) => r.phase === "during" && r.ms > 1000).length,
      failed: reads.filter((r) => r.status !== 200).map((r) => r.status),
    },
    census: census.map(({ Written, ...rest }) => ({ ...rest, writerOrders: Written.length })),
    checks: {
      everyOrderInNewShard: newShard.orders === BIG + accepted.length,
      onceEach: newShard.distinctNumbers === newShard.orders,
      everyOrderHasItsLine: newShard.withoutItems === 0 && newShard.items === newShard.orders,
      everyAcceptedWriteThere: accepted.every((n) => newNumbers.has(n)),
      noneLeftInOldShard: oldShard.orders === 0 && oldShard.items === 0 && oldShard.storeRows === 0 && oldShard.logged === 0,
      noneElsewhere: census.filter((s) => s.Shard !== to).every((s) => s.orders === 0),
    },
  };
  results.move = summary;
  // Every call's time, from the move's start (ms), for a look at where a slow one fell.
  const rel = (x) => ({ ...x, at: Math.round(x.at - started), ms: round(x.ms) });
  results.moveTimeline = { switchedAtMs: Date.parse(moveRow.DateSwitched) - Date.parse(moveRow.DateStarted), reads: reads.map(rel), writes: writes.map(rel) };
  const slow = [...reads.map((r) => ({ kind: "read", ...rel(r) })), ...writes.map((w) => ({ kind: "write", ...rel(w) })), ...probes.map(rel)].filter((x) => x.ms > 500);
  if (slow.length) console.log(`calls over 500 ms (at: ms from the move's start): ${JSON.stringify(slow.slice(0, 20))}`);
  console.log(JSON.stringify(summary, null, 2));
}

try {
  const sharded = startDev({ name: "sharded", port: PORT, entry: "bench/shards-worker.ts", persist: path.join(root, ".wrangler", "bench-shards-sharded") });
  devs.push(sharded);
  const unsharded = flag("skip-reads") ? null : startDev({ name: "unsharded", port: PORT + 2, entry: "bench/shards-worker.ts", persist: path.join(root, ".wrangler", "bench-shards-unsharded") });
  if (unsharded) devs.push(unsharded);
  await Promise.all(devs.map(waitForServer));
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  if (unsharded) await placementAndReads(sharded, unsharded);
  writeFileSync(path.join(root, "bench", "results", "shards.json"), JSON.stringify(results, null, 2));
  // The baseline's server is done: the move has the machine without it.
  unsharded?.stop();
  if (!flag("skip-move")) await move(sharded);
  writeFileSync(path.join(root, "bench", "results", "shards.json"), JSON.stringify(results, null, 2));
} catch (error) {
  console.error(error);
  for (const dev of devs) console.error(`--- ${dev.name} log:\n${dev.log.slice(-3000)}`);
  process.exitCode = 1;
} finally {
  stopAll();
}
