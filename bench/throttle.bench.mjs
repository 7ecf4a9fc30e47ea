#!/usr/bin/env node
// What authentication plus throttling costs on the hot path, how many round trips to the keys'
// RateLimiter objects it makes, and whether the bucket stays exact under load. Run alone with
// `node bench/throttle.bench.mjs` (bench/run.mjs runs every bench/*.bench.mjs). Starts four
// `wrangler dev --local-protocol https` servers on ports 8801, 8803, 8805 and 8807 (each one's
// inspector on the next port; BENCH_PORT=N moves all eight to N..N+7), each with its own
// in-memory state dir (memoryDir in bench/harness.mjs; migrations applied there first):
//   A  the service (leases), built from bench/throttle-worker.ts: the production Worker with a
//      RateLimiter that counts its round trips, and /bench/bare-count, the same D1 count as
//      Orders/count with nothing in front of it, in the same workerd;
//   D  the code before leases: the same entry with bench/throttle-baseline/authorize.ts in place
//      of the routers' src/auth/authorize.ts (an [alias] in D's own config): one RPC per call;
//   B  the service with bench/throttle-bypass/authorize.ts in place of it, so requireScope skips
//      token, DO call and throttle (the path carries the store id where the token would be);
//   C  bench/bare-worker.mjs, which answers the same JSON and does nothing else.
// and measures:
//   (1) GET /v1/{token}/Orders/count on A with a key whose bucket never refuses, (1old) the same
//       on D, (2) the same on B, (3) the same JSON from C, (3db) /bench/bare-count on A: latency
//       with one client (p50/p99) and throughput with BENCH_CONCURRENCY clients on one key;
//   (4) 200 concurrent clients on one key with the default bucket (50, 2/s) for 20 s on A:
//       admitted calls must be 50 + 2 x seconds, within 1, and inside the bounds that the
//       clients' own timing cannot blur (see exactness());
//   (5) round trips to RateLimiter objects per 100 admitted calls, on A and on D, for one client
//       calling every 500 ms and one calling as fast as the bucket allows (default buckets), at
//       steady state (after BENCH_TRIPS_WARMUP seconds).
// Environment: BENCH_SECONDS (per phase, default 8), BENCH_CONCURRENCY (default 16),
// BENCH_EXACT_SECONDS (default 20), BENCH_EXACT_CLIENTS (default 200), BENCH_TRIPS_SECONDS
// (default 60), BENCH_TRIPS_WARMUP (default 15), BENCH_STATE_DIR (where the state dirs go: in
// memory by default, see memoryDir), BENCH_PORT (first of eight ports, default 8801).
// Exits 1 only when (4) breaks its bounds: the other figures depend on the machine.
import { cpSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { aliasedConfig, applyMigrations, interleaved, main, memoryDir, pairedMedian, sampleOrder, sleep, startDev, writeResult } from "./harness.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const EXACT_SECONDS = Number(process.env.BENCH_EXACT_SECONDS ?? 20);
const EXACT_CLIENTS = Number(process.env.BENCH_EXACT_CLIENTS ?? 200);
const TRIPS_SECONDS = Number(process.env.BENCH_TRIPS_SECONDS ?? 60);
const TRIPS_WARMUP = Number(process.env.BENCH_TRIPS_WARMUP ?? 15);
const ENTRY = "bench/throttle-worker.ts";
const PORT_BASE = Number(process.env.BENCH_PORT) || 8801;
const COUNT_QUERY = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";
// One agent per server with room for every exactness client's connection.
const clientOptions = { maxSockets: 1024 };

async function createStore(dev) {
  return (await dev.must("POST", "/admin/v1/stores", { Name: "Bench store" })).Store;
}

async function createToken(dev, storeId, bucket, scopes = ["OrdersRead", "OrdersCreate"]) {
  return (await createKey(dev, storeId, bucket, scopes)).token;
}

async function createKey(dev, storeId, bucket, scopes = ["OrdersRead", "OrdersCreate"]) {
  const key = await dev.must("POST", `/admin/v1/stores/${storeId}/consumer-keys`, { Name: "bench", Scopes: scopes, Lifespan: "NeverExpires", ...bucket });
  const token = (await dev.must("PUT", "/v1/Authorization", { ConsumerKey: key.ConsumerKey.Key })).Token;
  return { id: key.ConsumerKey.ConsumerKeyId, token };
}

/** Round trips the key's object has answered (bench/throttle-worker.ts counts them). */
async function tripsOf(dev, keyId) {
  return (await dev.must("GET", `/bench/trips/${encodeURIComponent(keyId)}`)).trips;
}

/**
 * (5): one client of a default key calling every `everyMs` (0: as fast as the bucket allows, the
 * next call when the last is answered, Retry-After ignored) for TRIPS_SECONDS; round trips and
 * admitted calls counted from TRIPS_WARMUP on, when the burst of the full bucket is spent.
 */
async function tripsPer100(dev, storeId, everyMs) {
  const key = await createKey(dev, storeId, {});
  const path = `/v1/${key.token}${COUNT_QUERY}`;
  const start = performance.now();
  let admitted = 0;
  let refused = 0;
  let mark = null;
  while (performance.now() - start < TRIPS_SECONDS * 1000) {
    if (mark === null && performance.now() - start >= TRIPS_WARMUP * 1000) mark = { trips: await tripsOf(dev, key.id), admitted, refused };
    const sent = performance.now();
    const res = await dev.request("GET", path);
    if (res.status === 200) admitted += 1;
    else if (res.status === 429) refused += 1;
    else throw new Error(`(5) answered ${res.status} ${res.text.slice(0, 200)}`);
    if (everyMs > 0) await sleep(Math.max(0, everyMs - (performance.now() - sent)));
  }
  const trips = await tripsOf(dev, key.id);
  const steadyAdmitted = admitted - mark.admitted;
  return { admitted, refused, trips, steadyTrips: trips - mark.trips, steadyAdmitted, per100: ((trips - mark.trips) / steadyAdmitted) * 100 };
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
  console.log(
    `throttle bench: ${SECONDS} s per phase, ${CONCURRENCY} clients for throughput, exactness ${EXACT_CLIENTS} clients x ${EXACT_SECONDS} s, round trips ` +
      `over ${TRIPS_SECONDS} s`,
  );
  const serviceDir = memoryDir("service");
  const baselineDir = memoryDir("baseline");
  const bypassDir = memoryDir("bypass");
  // Migrated once, then copied: each `wrangler d1 migrations apply` takes up to a minute on a loaded machine.
  applyMigrations(serviceDir);
  for (const dir of [baselineDir, bypassDir]) cpSync(serviceDir, dir, { recursive: true });
  const serviceConfig = aliasedConfig(serviceDir, {}, { main: ENTRY });
  // D: the routers' "../auth/authorize" is the code before leases.
  const baselineConfig = aliasedConfig(baselineDir, { "../auth/authorize": "bench/throttle-baseline/authorize.ts" }, { main: ENTRY });
  // B: the routers' "../auth/authorize" is bench/throttle-bypass/authorize.ts.
  const bypassConfig = aliasedConfig(bypassDir, { "../auth/authorize": "bench/throttle-bypass/authorize.ts" });
  const [service, baseline, bypass, bareDev] = await Promise.all([
    startDev({ port: PORT_BASE, persist: serviceDir, config: serviceConfig, clientOptions }),
    startDev({ port: PORT_BASE + 6, persist: baselineDir, config: baselineConfig, clientOptions }),
    startDev({ port: PORT_BASE + 2, persist: bypassDir, config: bypassConfig, clientOptions }),
    startDev({ port: PORT_BASE + 4, persist: memoryDir("bare"), config: "bench/bare-worker.toml", clientOptions }),
  ]);

  const serviceCreated = await createStore(service);
  const serviceStore = serviceCreated.StoreId;
  const token = await createToken(service, serviceStore, { BucketSize: 100_000, LeakRatePerSecond: 10_000 });
  await seedOrders(service, token);
  const baselineStore = (await createStore(baseline)).StoreId;
  const baselineToken = await createToken(baseline, baselineStore, { BucketSize: 100_000, LeakRatePerSecond: 10_000 });
  await seedOrders(baseline, baselineToken);
  const bypassCreated = await createStore(bypass);
  // The bypassed path names the store and its shard where the token would be (no limiter to ask).
  const bypassPath = `${bypassCreated.StoreId}~${bypassCreated.Shard}`;
  await seedOrders(bypass, bypassPath);
  const bareCountPath = `/bench/bare-count/${serviceStore}~${serviceCreated.Shard}${COUNT_QUERY.slice(COUNT_QUERY.indexOf("?"))}`;

  // Interleaved, because the machine is shared and its load drifts (see interleaved()).
  const countsTwenty = (res) => {
    if (res.json?.Count !== 20) throw new Error(`counted ${res.text}`);
  };
  const results = await interleaved(
    [
      { name: "(1) auth + throttle, leases", call: () => service.request("GET", `/v1/${token}${COUNT_QUERY}`), check: countsTwenty },
      { name: "(1old) auth + throttle, before leases", call: () => baseline.request("GET", `/v1/${baselineToken}${COUNT_QUERY}`), check: countsTwenty },
      { name: "(2) same route, bypassed", call: () => bypass.request("GET", `/v1/${bypassPath}${COUNT_QUERY}`), check: countsTwenty },
      { name: "(3) bare Worker, fixed JSON", call: () => bareDev.request("GET", `/v1/x${COUNT_QUERY}`) },
      { name: "(3db) bare Worker route, same D1 count (A)", call: () => service.request("GET", bareCountPath), check: countsTwenty },
    ],
    { seconds: SECONDS, clients: CONCURRENCY },
  );
  for (const r of results) {
    const other = Object.keys(r.loaded.statuses).filter((s) => s !== "200");
    if (other.length > 0) throw new Error(`${r.name} answered ${JSON.stringify(r.loaded.statuses)}`);
  }

  // (5) on A and D at once: four slow clients, each on its own default key.
  const [leasedSequential, leasedFast, oldSequential, oldFast] = await Promise.all([
    tripsPer100(service, serviceStore, 500),
    tripsPer100(service, serviceStore, 0),
    tripsPer100(baseline, baselineStore, 500),
    tripsPer100(baseline, baselineStore, 0),
  ]);

  const exactToken = await createToken(service, serviceStore, {});
  const exact = await exactness(service, exactToken);

  const [full, old, bypassed, bare, bareCount] = results;
  const load1 = loadavg()[0];
  const ratio = full.loaded.rps / bypassed.loaded.rps;
  const oldRatio = old.loaded.rps / bypassed.loaded.rps;
  const endToEnd = full.loaded.rps / bareCount.loaded.rps;
  const oldEndToEnd = old.loaded.rps / bareCount.loaded.rps;
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
    `auth + throttle cost at p50 (1 client), median of paired differences: leases ${fmt(pairedMedian(full.samples, bypassed.samples))} ms, before leases ` +
      `${fmt(pairedMedian(old.samples, bypassed.samples))} ms`,
  );
  console.log(
    `throughput (1)/(2): ${fmt(ratio * 100, 1)}% (goal >= 90%: ${ratio >= 0.9 ? "met" : "NOT met"}); before leases (1old)/(2): ${fmt(oldRatio * 100, 1)}%; ` +
      ` (2)/(3): ${fmt((bypassed.loaded.rps / bare.loaded.rps) * 100, 1)}%`,
  );
  console.log(
    `end to end, one key's Orders/count against the same D1 count bare (1)/(3db): ${fmt(endToEnd * 100, 1)}% (goal >= 80%: ` +
      `${endToEnd >= 0.8 ? "met" : "NOT met"}); before leases (1old)/(3db): ${fmt(oldEndToEnd * 100, 1)}%`,
  );
  const tripLine = (name, r) =>
    `${name}: ${fmt(r.per100, 1)} round trips per 100 admitted at steady state (${r.steadyTrips} for ${r.steadyAdmitted}; whole run ${r.trips} for ` +
    `${r.admitted} admitted, ${r.refused} refused)`;
  console.log(`(5) ${tripLine("leases, every 500 ms", leasedSequential)}  (goal <= 10: ${leasedSequential.per100 <= 10 ? "met" : "NOT met"})`);
  console.log(`    ${tripLine("leases, as fast as allowed", leasedFast)}  (goal <= 10: ${leasedFast.per100 <= 10 ? "met" : "NOT met"})`);
  console.log(`    ${tripLine("before leases, every 500 ms", oldSequential)}`);
  console.log(`    ${tripLine("before leases, as fast as allowed", oldFast)}`);
  console.log(
    `(4) exactness: ${EXACT_CLIENTS} clients for ${fmt(exact.seconds, 3)} s on one key (50, 2/s): admitted ${exact.admitted}, expected 50 + floor(2 x ` +
      `${fmt(exact.seconds, 3)}) = ${exact.expected}: ${exact.withinOne ? "within 1" : "NOT within 1"}; statuses ${JSON.stringify(exact.statuses)}`,
  );
  console.log(
    `    bounds from first send / first answer / last send / last answer: ${exact.floor} - 1 <= admitted <= ${fmt(exact.ceiling, 1)}  ` +
      `${exact.ok ? "OK" : "FAILED"}`,
  );

  writeResult("throttle", {
    seconds: SECONDS,
    concurrency: CONCURRENCY,
    loadAverage: load1,
    results: results.map(({ samples, ...r }) => r),
    ratio,
    oldRatio,
    endToEnd,
    oldEndToEnd,
    trips: { leasedSequential, leasedFast, oldSequential, oldFast },
    exact,
  });
  if (!exact.ok) process.exitCode = 1;
});
