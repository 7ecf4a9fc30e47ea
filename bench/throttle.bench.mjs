#!/usr/bin/env node
// What authentication plus throttling costs on the hot path, and whether the bucket stays exact
// under load. Run alone with `node bench/throttle.bench.mjs` (bench/run.mjs runs every
// bench/*.bench.mjs). Starts three `wrangler dev --local-protocol https` servers on ports
// 8801-8803 (inspectors 8804-8806; BENCH_PORT=N moves all six to N..N+5), each with its own
// --persist-to temp dir (migrations applied there first):
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
// the --persist-to dirs go; see STATE_ROOT below), BENCH_PORT (first of six ports, default 8801).
// Exits 1 only when (4) breaks its bounds: the figures of (1)-(3) depend on the machine.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const EXACT_SECONDS = Number(process.env.BENCH_EXACT_SECONDS ?? 20);
const EXACT_CLIENTS = Number(process.env.BENCH_EXACT_CLIENTS ?? 200);
// Where the three servers keep their state (D1 and Durable Object SQLite files). In memory by
// default: on disk every admitted call waits for the local SQLite fsync of the bucket's write,
// which measures this machine's disk, not what a deployed object pays (there the write is
// confirmed by replication). BENCH_STATE_DIR=/tmp measures the disk case.
const STATE_ROOT = process.env.BENCH_STATE_DIR ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
const PORT_BASE = Number(process.env.BENCH_PORT) || 8801;
const PORTS = { service: PORT_BASE, bypass: PORT_BASE + 1, bare: PORT_BASE + 2 };
const INSPECTOR_PORTS = { service: PORT_BASE + 3, bypass: PORT_BASE + 4, bare: PORT_BASE + 5 };
const COUNT_QUERY = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";

// Wrangler needs Node 22: put the project's own `node` devDependency first on the PATH, so this
// file also runs under an older system Node.
const toolEnv = {
  ...process.env,
  PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH}`,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
};

const secrets = {
  ADMIN_API_KEY: "bench-admin-key-0123456789abcdef-0123",
  TOKEN_SIGNING_SECRET: "bench-token-signing-secret-0123456789abcdef",
  SOURCE_SETTINGS_KEY: "YmVuY2gtc291cmNlLXNldHRpbmdzLWtleS0zMmJ5dGVzIQ==",
};

const agent = new https.Agent({ keepAlive: true, maxSockets: 1024, rejectUnauthorized: false });

function request(port, method, urlPath, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      { host: "localhost", port, path: urlPath, method, agent, headers: { accept: "application/json", ...(payload ? { "content-type": "application/json" } : {}), ...headers } },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode, headers: res.headers, json, text });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const children = [];

function startServer(name, args) {
  const child = spawn("npx", ["wrangler", "dev", "--local-protocol", "https", "--port", String(PORTS[name]), "--inspector-port", String(INSPECTOR_PORTS[name]), "--ip", "localhost", "--show-interactive-dev-session=false", "--log-level", "warn", ...args], {
    cwd: root,
    env: toolEnv,
    detached: true, // its own process group, so that stopping it also stops its workerd
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  children.push(child);
  child.on("exit", (code) => {
    if (code && !stopping) console.error(`wrangler dev (${name}) exited with ${code}:\n${stderr}`);
  });
  return child;
}

const stateDirs = [];
let stopping = false;
function stopServers() {
  stopping = true;
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
  for (const dir of stateDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on("exit", stopServers);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

async function waitFor(port, urlPath, headers) {
  for (let i = 0; i < 240; i++) {
    try {
      const res = await request(port, "GET", urlPath, undefined, headers);
      if (res.status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no answer on port ${port} after 120 s`);
}

function prepareState(name) {
  const dir = mkdtempSync(path.join(STATE_ROOT, `ofh-bench-${name}-`));
  stateDirs.push(dir);
  const envFile = path.join(dir, "bench.env");
  writeFileSync(envFile, Object.entries(secrets).map(([k, v]) => `${k}=${v}`).join("\n") + "\n");
  const migrate = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", dir], { cwd: root, env: toolEnv, encoding: "utf8" });
  if (migrate.status !== 0) throw new Error(`migrations for ${name} failed:\n${migrate.stdout}\n${migrate.stderr}`);
  return { dir, envFile };
}

/**
 * Server B's config: wrangler.toml with its paths made absolute (it is written to B's state dir)
 * and an [alias] that builds bench/throttle-bypass/authorize.ts wherever the source imports
 * "../auth/authorize" (the routers). The config's alias, because wrangler dev 4.155 ignores its
 * --alias flag.
 */
function bypassConfig(dir) {
  let toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  for (const key of ["main", "migrations_dir"]) {
    const line = new RegExp(`^${key} = "(.*)"$`, "m");
    if (!line.test(toml)) throw new Error(`wrangler.toml has no ${key} line to rebase`);
    toml = toml.replace(line, (_, value) => `${key} = ${JSON.stringify(path.join(root, value))}`);
  }
  toml += `\n[alias]\n"../auth/authorize" = ${JSON.stringify(path.join(root, "bench/throttle-bypass/authorize.ts"))}\n`;
  const file = path.join(dir, "wrangler.toml");
  writeFileSync(file, toml);
  return file;
}

const adminHeaders = { authorization: `Bearer ${secrets.ADMIN_API_KEY}` };

function sampleOrder(n) {
  return {
    BuyerEmailAddress: "jane.doe@example.com",
    BuyerPhoneNumber: "555-201-1234",
    OrderSource: "Web",
    OrderSourceOrderNumber: `BENCH-${n}`,
    DateCreatedInOrderSource: "2026-03-01T10:15:00Z",
    ShipToCompanyName: null,
    FirstName: "Jane",
    LastName: "Doe",
    Street1: "1 Main St",
    City: "Springfield",
    StateOrProvince: "IL",
    Country: "US",
    PostalCode: "62701",
    ShippingMethod: "Standard",
    GrandTotal: 27.5,
    SubTotal: 25,
    ShippingTotal: 2.5,
    OrderItems: [{ Sku: "SKU-1", Name: "Blue mug", Quantity: 2, UnitPrice: 12.5 }],
  };
}

async function expectOk(promise, what) {
  const res = await promise;
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.json;
}

async function createStore(port) {
  return (await expectOk(request(port, "POST", "/admin/v1/stores", { Name: "Bench store" }, adminHeaders), "create store")).Store.StoreId;
}

async function createToken(port, storeId, bucket, scopes = ["OrdersRead", "OrdersCreate"]) {
  const key = await expectOk(
    request(port, "POST", `/admin/v1/stores/${storeId}/consumer-keys`, { Name: "bench", Scopes: scopes, Lifespan: "NeverExpires", ...bucket }, adminHeaders),
    "create key",
  );
  return (await expectOk(request(port, "PUT", "/v1/Authorization", { ConsumerKey: key.ConsumerKey.Key }), "token")).Token;
}

async function seedOrders(port, pathToken) {
  for (let n = 0; n < 20; n++) await expectOk(request(port, "PUT", `/v1/${pathToken}/Orders/InsertOrder`, sampleOrder(n)), "insert order");
}

function summarize(latencies, seconds, statuses = {}) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, rps: sorted.length / seconds, p50: at(0.5), p99: at(0.99), statuses };
}

/** Closed loop: `clients` callers, each sending its next request when the last one answered. */
async function load(port, urlPath, clients, seconds) {
  const latencies = [];
  const statuses = {};
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const res = await request(port, "GET", urlPath);
        latencies.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, statuses };
}

let pairedCostP50 = NaN;

/**
 * The machine is shared and its load drifts, so the targets are measured interleaved rather
 * than one after the other: latency with one client going round the targets request by request
 * (each pair of samples sees the same load), throughput in short rounds in rotation.
 */
async function measureAll(targets) {
  for (const t of targets) {
    const first = await request(t.port, "GET", t.path);
    if (first.status !== (t.status ?? 200)) throw new Error(`${t.name}: ${first.status} ${first.text}`);
    t.body = first.text;
    await load(t.port, t.path, CONCURRENCY, 1); // warm-up: JIT, connections, objects
  }
  const single = targets.map(() => []);
  const deadline = performance.now() + SECONDS * 1000 * targets.length;
  while (performance.now() < deadline) {
    for (const [i, t] of targets.entries()) {
      const start = performance.now();
      const res = await request(t.port, "GET", t.path);
      single[i].push(performance.now() - start);
      if (res.status !== (t.status ?? 200)) throw new Error(`${t.name}: ${res.status} ${res.text}`);
    }
  }
  const ROUNDS = 4;
  const loaded = targets.map(() => ({ latencies: [], seconds: 0, statuses: {} }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await load(t.port, t.path, CONCURRENCY, SECONDS / ROUNDS);
      loaded[i].latencies.push(...r.latencies);
      loaded[i].seconds += r.seconds;
      for (const [status, n] of Object.entries(r.statuses)) loaded[i].statuses[status] = (loaded[i].statuses[status] ?? 0) + n;
    }
  }
  // Consecutive samples of (1) and (2) saw the same moment's load: the median of their
  // differences is steadier than the difference of the medians.
  const paired = single[0].map((v, k) => v - single[1][k]).sort((a, b) => a - b);
  pairedCostP50 = paired[Math.floor(paired.length / 2)];
  return targets.map((t, i) => ({
    name: t.name,
    body: t.body,
    single: summarize(single[i], single[i].reduce((a, b) => a + b, 0) / 1000),
    loaded: summarize(loaded[i].latencies, loaded[i].seconds, loaded[i].statuses),
  }));
}

/** (4): every client calls as fast as it can; count what the bucket admitted. */
async function exactness(port, token) {
  const urlPath = `/v1/${token}${COUNT_QUERY}`;
  // Open every client's connection first (a 404 takes nothing from any bucket), so that the TLS
  // handshakes of 200 new connections do not delay the first calls behind the clock's start.
  await Promise.all(Array.from({ length: EXACT_CLIENTS }, () => request(port, "GET", "/v1")));
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
        const res = await request(port, "GET", urlPath);
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

async function main() {
  console.log(`state in ${STATE_ROOT}; load average at start ${fmt((await import("node:os")).loadavg()[0])}`);
  console.log(`throttle bench: ${SECONDS} s per phase, ${CONCURRENCY} clients for throughput, exactness ${EXACT_CLIENTS} clients x ${EXACT_SECONDS} s`);
  const service = prepareState("service");
  const bypass = prepareState("bypass");
  const bareDir = mkdtempSync(path.join(STATE_ROOT, "ofh-bench-bare-"));
  stateDirs.push(bareDir);
  startServer("service", ["--persist-to", service.dir, "--env-file", service.envFile]);
  startServer("bypass", ["--persist-to", bypass.dir, "--env-file", bypass.envFile, "--config", bypassConfig(bypass.dir)]);
  startServer("bare", ["--config", "bench/bare-worker.toml", "--persist-to", bareDir]);
  await Promise.all([waitFor(PORTS.service, "/admin/v1/stores", adminHeaders), waitFor(PORTS.bypass, "/admin/v1/stores", adminHeaders), waitFor(PORTS.bare, "/", {})]);

  const serviceStore = await createStore(PORTS.service);
  const token = await createToken(PORTS.service, serviceStore, { BucketSize: 100_000, LeakRatePerSecond: 10_000 });
  await seedOrders(PORTS.service, token);
  // A key without OrdersRead: its calls cost the same Durable Object call but write nothing.
  const noScopeToken = await createToken(PORTS.service, serviceStore, {}, ["FeedsRead"]);
  const bypassStore = await createStore(PORTS.bypass);
  await seedOrders(PORTS.bypass, bypassStore);

  const results = await measureAll([
    { name: "(1) auth + throttle", port: PORTS.service, path: `/v1/${token}${COUNT_QUERY}` },
    { name: "(2) same route, bypassed", port: PORTS.bypass, path: `/v1/${bypassStore}${COUNT_QUERY}` },
    { name: "(3) bare Worker", port: PORTS.bare, path: `/v1/x${COUNT_QUERY}` },
    { name: "(1b) DO call, no write, no D1 (401)", port: PORTS.service, path: `/v1/${noScopeToken}${COUNT_QUERY}`, status: 401 },
  ]);
  for (const r of results.slice(0, 2)) {
    if (JSON.parse(r.body).Count !== 20) throw new Error(`${r.name} counted ${r.body}`);
    const other = Object.keys(r.loaded.statuses).filter((s) => s !== "200");
    if (other.length > 0) throw new Error(`${r.name} answered ${JSON.stringify(r.loaded.statuses)}`);
  }

  const exactToken = await createToken(PORTS.service, serviceStore, {});
  const exact = await exactness(PORTS.service, exactToken);

  const [full, bypassed, bare, noWrite] = results;
  const costP50 = full.single.p50 - bypassed.single.p50;
  const load1 = (await import("node:os")).loadavg()[0];
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
  console.log(`machine: ${(await import("node:os")).cpus().length} CPUs, load average ${fmt(load1)} at the end of the runs`);
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

  mkdirSync(path.join(root, "bench/results"), { recursive: true });
  writeFileSync(
    path.join(root, "bench/results/throttle.json"),
    JSON.stringify({ at: new Date().toISOString(), seconds: SECONDS, concurrency: CONCURRENCY, loadAverage: load1, results, costP50, pairedCostP50, ratio, exact }, null, 2),
  );
  stopServers();
  process.exit(exact.ok ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
