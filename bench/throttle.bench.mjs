#!/usr/bin/env node
// What authentication plus throttling costs on the hot path, and whether the bucket stays exact
// under load. Run alone with `node bench/throttle.bench.mjs` (bench/run.mjs runs every
// bench/*.bench.mjs). Starts three `wrangler dev --local-protocol https` servers on ports 8801,
// 8803 and 8805 (each one's inspector on the next port; BENCH_PORT=N moves all six to N..N+5),
// each with its own in-memory state dir (memoryDir in bench/harness.mjs; migrations applied there first):
//   A  the service as deployed;
//   B  the same service built with bench/throttle-bypass/authorize.ts in place of the routers'
//      src/auth/authorize.ts (an [alias] in B's own config), so requireScope skips token, DO call and
//      throttle (the path carries the store id where the token would be; seeding orders through
//      it fails if the substitution did not happen). The deployed build has no such branch;
//   C  bench/bare-worker.mjs, which answers the same JSON and does nothing else.
// and measures:
//   (1) GET /v1/{token}/Orders/count on A with a key whose bucket never refuses,
//   (2) the same on B, (3) the same JSON from C: latency with one client (p50/p99) and
//       throughput with BENCH_CONCURRENCY clients;
//   (1b) a key without the scope: token check and one DO call that writes nothing (401);
//   (4) 200 concurrent clients on one key with the default bucket (50, 2/s) for 20 s on A:
//       admitted calls must be 50 + 2 x seconds, within 1, and inside the bounds that the
//       clients' own timing cannot blur (see exactness()).
// Environment: BENCH_SECONDS (per phase, default 8), BENCH_CONCURRENCY (default 16),
// BENCH_EXACT_SECONDS (default 20), BENCH_EXACT_CLIENTS (default 200), BENCH_STATE_DIR (where
// the state dirs go: in memory by default, see memoryDir), BENCH_PORT (first of six ports, default 8801).
// Exits 1 only when (4) breaks its bounds: the figures of (1)-(3) depend on the machine.
import { cpus, loadavg } from "node:os";
import { aliasedConfig, applyMigrations, interleaved, main, memoryDir, pairedMedian, sampleOrder, startDev, writeResult } from "./harness.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const EXACT_SECONDS = Number(process.env.BENCH_EXACT_SECONDS ?? 20);
const EXACT_CLIENTS = Number(process.env.BENCH_EXACT_CLIENTS ?? 200);
const PORT_BASE = Number(process.env.BENCH_PORT) || 8801;
const COUNT_QUERY = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";
// One agent per server with room for every exactness client's connection.
const clientOptions = { maxSockets: 1024 };

async function createStore(dev) {
  return (await dev.must("POST", "/admin/v1/stores", { Name: "Bench store" })).Store.StoreId;
}

async function createToken(dev, storeId, bucket, scopes = ["OrdersRead", "OrdersCreate"]) {
  const key = await dev.must("POST", `/admin/v1/stores/${storeId}/consumer-keys`, { Name: "bench", Scopes: scopes, Lifespan: "NeverExpires", ...bucket });
  return (await dev.must("PUT", "/v1/Authorization", { ConsumerKey: key.ConsumerKey.Key })).Token;
}

async function seedOrders(dev, pathToken) {
  for (let n = 0; n < 20; n++) await dev.must("PUT", `/v1/${pathToken}/Orders/InsertOrder`, sampleOrder(`BENCH-${n}`));
}

/** (4): every client calls as fast as it can; count what the bucket admitted. */
async function exactness(dev, token) {
  const urlPath = `/v1/${token}${COUNT_QUERY}`;
  // Open every client's connection first (a 404 takes nothing from any bucket), so that the TLS
  // handshakes of 200 new connections do not delay the first calls behind the clock's start.
  await Promise.all(Array.from({ length: EXACT_CLIENTS }, () => dev.request("GET", "/v1")));
  const statuses = new Map();
  let firstSent = Infinity;
  let firstAnswered = Infinity;
  let lastSent = 0;
  let lastAnswered = 0;
  let missingRetryAfter = 0;
  const deadline = performance.now() + EXACT_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: EXACT_CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        firstSent = Math.min(firstSent, sent);
        lastSent = Math.max(lastSent, sent);
        const res = await dev.request("GET", urlPath);
        const answered = performance.now();
        firstAnswered = Math.min(firstAnswered, answered);
        lastAnswered = Math.max(lastAnswered, answered);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 429 && !res.headers["retry-after"]) missingRetryAfter += 1;
      }
    }),
  );
  const seconds = (lastSent - firstSent) / 1000;
  const admitted = statuses.get(200) ?? 0;
  const expected = 50 + Math.floor(2 * seconds);
  // The object saw its first call before the first answer and its last after the last send, and
  // all of them between the first send and the last answer: bounds that no client-side delay
  // can fool. Above the upper one the bucket over-admitted; below the lower one it starved.
  const ceiling = 50 + 2 * ((lastAnswered - firstSent) / 1000);
  const floor = 50 + Math.floor(2 * Math.max(0, (lastSent - firstAnswered) / 1000));
  const withinOne = Math.abs(admitted - expected) <= 1;
  const ok = admitted <= ceiling && admitted >= floor - 1 && missingRetryAfter === 0;
  return { seconds, admitted, expected, withinOne, ceiling, floor, statuses: Object.fromEntries(statuses), missingRetryAfter, ok };
}

const fmt = (n, digits = 2) => n.toFixed(digits);

await main(async () => {
  console.log(`load average at start ${fmt(loadavg()[0])}`);
  console.log(`throttle bench: ${SECONDS} s per phase, ${CONCURRENCY} clients for throughput, exactness ${EXACT_CLIENTS} clients x ${EXACT_SECONDS} s`);
  const serviceDir = memoryDir("service");
  const bypassDir = memoryDir("bypass");
  applyMigrations(serviceDir);
  applyMigrations(bypassDir);
  // B: the routers' "../auth/authorize" is bench/throttle-bypass/authorize.ts.
  const bypassConfig = aliasedConfig(bypassDir, { "../auth/authorize": "bench/throttle-bypass/authorize.ts" });
  const [service, bypass, bareDev] = await Promise.all([
    startDev({ port: PORT_BASE, persist: serviceDir, clientOptions }),
    startDev({ port: PORT_BASE + 2, persist: bypassDir, config: bypassConfig, clientOptions }),
    startDev({ port: PORT_BASE + 4, persist: memoryDir("bare"), config: "bench/bare-worker.toml", clientOptions }),
  ]);

  const serviceStore = await createStore(service);
  const token = await createToken(service, serviceStore, { BucketSize: 100_000, LeakRatePerSecond: 10_000 });
  await seedOrders(service, token);
  // A key without OrdersRead: its calls cost the same Durable Object call but write nothing.
  const noScopeToken = await createToken(service, serviceStore, {}, ["FeedsRead"]);
  const bypassStore = await createStore(bypass);
  await seedOrders(bypass, bypassStore);

  // Interleaved, because the machine is shared and its load drifts (see interleaved()).
  const countsTwenty = (res) => {
    if (res.json?.Count !== 20) throw new Error(`counted ${res.text}`);
  };
  const results = await interleaved(
    [
      { name: "(1) auth + throttle", call: () => service.request("GET", `/v1/${token}${COUNT_QUERY}`), check: countsTwenty },
      { name: "(2) same route, bypassed", call: () => bypass.request("GET", `/v1/${bypassStore}${COUNT_QUERY}`), check: countsTwenty },
      { name: "(3) bare Worker", call: () => bareDev.request("GET", `/v1/x${COUNT_QUERY}`) },
      { name: "(1b) DO call, no write, no D1 (401)", call: () => service.request("GET", `/v1/${noScopeToken}${COUNT_QUERY}`), status: 401 },
    ],
    { seconds: SECONDS, clients: CONCURRENCY },
  );
  const pairedCostP50 = pairedMedian(results[0].samples, results[1].samples);
  for (const r of results.slice(0, 2)) {
    const other = Object.keys(r.loaded.statuses).filter((s) => s !== "200");
    if (other.length > 0) throw new Error(`${r.name} answered ${JSON.stringify(r.loaded.statuses)}`);
  }

  const exactToken = await createToken(service, serviceStore, {});
  const exact = await exactness(service, exactToken);

  const [full, bypassed, bare, noWrite] = results;
  const costP50 = full.single.p50 - bypassed.single.p50;
  const load1 = loadavg()[0];
  const ratio = full.loaded.rps / bypassed.loaded.rps;
  const rows = results.map((r) => ({
    run: r.name,
    "p50 ms (1 client)": fmt(r.single.p50),
    "p99 ms (1 client)": fmt(r.single.p99),
    "samples (1 client)": r.single.n,
    [`req/s (${CONCURRENCY} clients)`]: fmt(r.loaded.rps, 0),
    [`p50 ms (${CONCURRENCY})`]: fmt(r.loaded.p50),
    [`p99 ms (${CONCURRENCY})`]: fmt(r.loaded.p99),
  }));
  console.table(rows);
  console.log(`machine: ${cpus().length} CPUs, load average ${fmt(load1)} at the end of the runs`);
  console.log(
    `auth + throttle cost at p50 (1 client): ${fmt(costP50)} ms as (1) p50 - (2) p50, ${fmt(pairedCostP50)} ms as the median of paired differences  (goal < 1 ms: ${Math.min(costP50, pairedCostP50) < 1 ? "met" : "NOT met"})`,
  );
  console.log(`(1b) - (3) at p50 (1 client), routing + token check + one DO call that writes nothing: ${fmt(noWrite.single.p50 - bare.single.p50)} ms`);
  console.log(`throughput (1)/(2): ${fmt(ratio * 100, 1)}%  (goal >= 80%: ${ratio >= 0.8 ? "met" : "NOT met"});  (2)/(3): ${fmt((bypassed.loaded.rps / bare.loaded.rps) * 100, 1)}%;  (1)/(3): ${fmt((full.loaded.rps / bare.loaded.rps) * 100, 1)}%`);
  console.log(
    `(4) exactness: ${EXACT_CLIENTS} clients for ${fmt(exact.seconds, 3)} s on one key (50, 2/s): admitted ${exact.admitted}, expected 50 + floor(2 x ${fmt(exact.seconds, 3)}) = ${exact.expected}: ${exact.withinOne ? "within 1" : "NOT within 1"}; statuses ${JSON.stringify(exact.statuses)}`,
  );
  console.log(
    `    bounds from first send / first answer / last send / last answer: ${exact.floor} - 1 <= admitted <= ${fmt(exact.ceiling, 1)}  ${exact.ok ? "OK" : "FAILED"}`,
  );

  writeResult("throttle", { seconds: SECONDS, concurrency: CONCURRENCY, loadAverage: load1, results: results.map(({ samples, ...r }) => r), costP50, pairedCostP50, ratio, exact });
  if (!exact.ok) process.exitCode = 1;
});

