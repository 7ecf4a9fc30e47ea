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
//    alarm as in production, while a reader pages through its orders (or counts them), a writer
//    inserts one order every `--write-every` ms, and two probes call a no-I/O bench route and
//    GET /admin/v1/shards: rows copied per second, the write hold (the move's WriteHoldMs and
//    the writer's own view of its 503s), reads' p50/p99 before and during the move, the move's
//    total time, and a census of every shard at the end (every order in the new shard once, every
//    accepted write there, nothing left in the old one).
//
//   node bench/shards.bench.mjs [--stores 30] [--orders 30000] [--calls 500] [--rounds 5] [--big 1000000]
//     [--write-every 100 (0: no writer)] [--reader list|count] [--port 8870] [--skip-move] [--skip-reads]
// Ports: sharded run --port and +1, unsharded +2 and +3. Figures go to bench/results/shards.json.
// Servers, client and percentiles: bench/harness.mjs. Figures and how they were made: docs/sharding.md#measured.
import { applyMigrations, arg, benchPort, freshDir, main, percentile as quantile, sleep, startDev, timed, writeResult } from "./harness.mjs";

const flag = (name) => process.argv.includes(`--${name}`);
const round = (x) => Math.round(x * 10) / 10;
const percentile = (xs, p) => (xs.length ? quantile(xs, p / 100) : NaN);
const stats = (xs) => ({ n: xs.length, p50: round(percentile(xs, 50)), p99: round(percentile(xs, 99)), max: round(Math.max(...xs)) });

/** The harness's client call, a failure to connect or answer in a minute recorded as status 0 (a loop's call). */
async function attempt(dev, method, urlPath, body) {
  try {
    return await dev.request(method, urlPath, body, {}, 60_000);
  } catch (error) {
    return { status: 0, json: undefined, text: String(error), headers: {} };
  }
}
const must = (dev, method, urlPath, body) => dev.must(method, urlPath, body);

const STORES = arg("stores", 30);
const ORDERS = arg("orders", 30_000);
const CALLS = arg("calls", 500);
const ROUNDS = arg("rounds", 5);
const BIG = arg("big", 1_000_000);
const WRITE_EVERY = arg("write-every", 100);
/** What the reader during the move reads: list pages (default) or `--reader count`. */
const READER = process.argv.includes("--reader") ? process.argv[process.argv.indexOf("--reader") + 1] : "list";
const PORT = benchPort(8870);
const DAY = 86_400_000;
const END = Math.floor(Date.now() / DAY) * DAY - DAY;
const START = END - 365 * DAY;
const WHOLE = `fromDate=${new Date(START - DAY).toISOString()}&toDate=${new Date(END + 60 * DAY).toISOString()}`;
const BIG_SEED_CHUNK = 50_000;

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

const results = { stores: STORES, ordersPerStore: ORDERS, calls: CALLS };

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
  console.log(
    `seeded ${2 * STORES * ORDERS} orders in ${((performance.now() - t0) / 1000).toFixed(0)} s (D1 time: sharded ${(seedMs.sharded / 1000).toFixed(0)} s, ` +
      `unsharded ${(seedMs.unsharded / 1000).toFixed(0)} s)`,
  );
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
  console.log(
    `unsharded SHARD_1: ${(one / 1048576).toFixed(0)} MiB for ${STORES * ORDERS} orders, ${results.bytesPerOrder} bytes an order with its line; directory ` +
      `${(sizes[0].Bytes / 1024).toFixed(0)} KiB for ${STORES} stores and keys`,
  );
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
  console.log(
    "".padEnd(26) +
      ["sharded p50".padStart(12), "p99".padStart(8), "unsharded p50".padStart(15), "p99".padStart(8), "ratio p50".padStart(11), "ratio p99".padStart(11)].join(
        "",
      ) +
      "   rounds' p50 ratios (min/median/max)",
  );
  for (const shape of Object.keys(shapes)) {
    const s = stats(times[shape].sharded);
    const u = stats(times[shape].unsharded);
    const rounds = Array.from({ length: ROUNDS }, (_, r) => {
      const slice = (xs) => xs.slice(r * perRound, (r + 1) * perRound);
      return percentile(slice(times[shape].sharded), 50) / percentile(slice(times[shape].unsharded), 50);
    }).sort((a, b) => a - b);
    const roundRatios = { min: round(rounds[0] * 100) / 100, median: round(percentile(rounds, 50) * 100) / 100, max: round(rounds.at(-1) * 100) / 100 };
    results.reads[shape] = {
      sharded: s,
      unsharded: u,
      ratioP50: round((s.p50 / u.p50) * 100) / 100,
      ratioP99: round((s.p99 / u.p99) * 100) / 100,
      roundRatios,
    };
    console.log(
      shape.padEnd(26) +
        [String(s.p50).padStart(12), String(s.p99).padStart(8), String(u.p50).padStart(15), String(u.p99).padStart(8)].join("") +
        `${fixed(s.p50 / u.p50).padStart(11)}${fixed(s.p99 / u.p99).padStart(11)}   ` +
        `${fixed(roundRatios.min)} / ${fixed(roundRatios.median)} / ${fixed(roundRatios.max)}`,
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
      const res = await attempt(dev, "GET", READER === "count" ? countPath(store) : listPath(store, cursor));
      reads.push({ phase, at, ms: performance.now() - at, status: res.status, page: cursor ? "cursor" : "first" });
      cursor = res.status === 200 && READER !== "count" && pages++ < 50 ? res.json.Paging.NextCursor : null;
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
    while (running && WRITE_EVERY > 0) {
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
      console.log(
        `  ${((now - started) / 1000).toFixed(0)} s: ${moveRow.Status} ${moveRow.Phase}, ${moveRow.RowsCopied} copied, ${moveRow.ChangesApplied} changes, ` +
          `${moveRow.RowsRemoved} removed${moveRow.Error ? `, error: ${moveRow.Error}` : ""}`,
      );
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
    probes: Object.fromEntries(
      ["ping", "shards"].map((k) => [
        k,
        Object.fromEntries(["before", "during"].map((p) => [p, stats(probes.filter((x) => x.kind === k && x.phase === p).map((x) => x.ms))])),
      ]),
    ),
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
  const slow = [...reads.map((r) => ({ kind: "read", ...rel(r) })), ...writes.map((w) => ({ kind: "write", ...rel(w) })), ...probes.map(rel)].filter(
    (x) => x.ms > 500,
  );
  if (slow.length) console.log(`calls over 500 ms (at: ms from the move's start): ${JSON.stringify(slow.slice(0, 20))}`);
  // Not a figure but what the move promises: a row lost, doubled or left behind stops the run.
  const failed = Object.entries(summary.checks)
    .filter(([, held]) => !held)
    .map(([name]) => name);
  if (failed.length) throw new Error(`the move broke: ${failed.join(", ")}`);
  console.log(JSON.stringify(summary, null, 2));
}

await main(async () => {
  // One server per layout, each with the directory and every shard of wrangler.toml migrated in its own dir.
  const layouts = [["sharded", PORT], ...(flag("skip-reads") ? [] : [["unsharded", PORT + 2]])];
  const [sharded, unsharded] = await Promise.all(
    layouts.map(async ([name, port]) => {
      const persist = freshDir(`shards-${name}`);
      applyMigrations(persist);
      return {
        name,
        ...(await startDev({
          port,
          persist,
          entry: "bench/shards-worker.ts",
          clientOptions: { headers: { "cf-connecting-ip": "192.0.2.1" } },
          timeoutMs: 180_000,
        })),
      };
    }),
  );
  if (unsharded) await placementAndReads(sharded, unsharded);
  writeResult("shards", results);
  // The baseline's server is done: the move has the machine without it.
  unsharded?.stop();
  if (!flag("skip-move")) await move(sharded);
  writeResult("shards", results);
});
