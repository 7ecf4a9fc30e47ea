#!/usr/bin/env node
// Feed compilation benchmark: generated catalogs of 100,000 and 1,000,000 products, compiled by
// the service running under `wrangler dev` (local D1, R2 and Durable Objects in workerd), against
// a bare Worker (bench/feeds-baseline/) that reads the same D1 pages and serializes them to CSV in
// memory, the same bare Worker also writing those bytes to R2 in 5 MiB parts, and writing them
// gzipped (the local R2's cost with fewer bytes): rounds of the four in turn on the same catalog,
// medians. Each run is timed by the server it runs on (the
// compile by the feed's DateLastSubmitted and DateLastCompiled), and the CPU time of each
// `wrangler dev`'s workerd is counted beside it. Also the catalog import (CSV upload), the
// download speed against reading the same file from disk, and a Node baseline that only
// serializes the rows.
//
//   node bench/feeds.bench.mjs                 # both sizes
//   FEEDS_BENCH_SIZES=20000 node bench/feeds.bench.mjs
//   FEEDS_BENCH_ROUNDS=5 ...                   # rounds per size (3)
//   BENCH_PORT=8840 node bench/feeds.bench.mjs   # listen on 8840-8847 only (see ports())
//   FEEDS_BENCH_PROFILE=1 ...                    # also the compile's isolate through wrangler's inspector
//   FEEDS_BENCH_PROFILE=heap ...                 # its heap only, no CPU profile
//   FEEDS_BENCH_BASE=<commit> ...                # also the compile of the code at <commit>, in turn
//   FEEDS_BENCH_STATE=<dir> ...                  # copy this migrated --persist-to dir instead of migrating
//   FEEDS_BENCH_SINK=1 ...                       # also the compile with its parts sent to no R2
//
// With FEEDS_BENCH_SINK another `wrangler dev` serves bench/feeds-sink-worker.ts on the same
// --persist-to: the service whose compiles keep only their parts' sizes, which compiles its own
// feed of the same store in the same rounds: the compile's work without the local R2's.
//
// With FEEDS_BENCH_BASE a third `wrangler dev` serves the service from the tree at that commit
// (`git archive` into a temporary directory borrowing this tree's node_modules), on the same
// --persist-to: it compiles a second feed of the same store, in the same rounds.
//
// With FEEDS_BENCH_PROFILE the compile's isolate (the Worker and its Durable Objects) is watched
// through wrangler's inspector (bench/inspector.mjs) during the first round: its live heap after a
// forced collection (a heap snapshot) before, every 2 s during and after the compile, its used JS
// heap and its ArrayBuffers sampled every 100 ms and their peaks reported, and (unless =heap) a CPU profile's
// hottest functions printed.
// wrangler needs Node 22: it is started with the `node` devDependency whatever runs this script.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdirSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { applyMigrations, median, rssMiB, SECRETS, sleep, workerdPids } from "./harness.mjs";
import { hotFunctions, inspect, liveHeap, sampleHeap } from "./inspector.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const NODE22 = path.join(ROOT, "node_modules/node/bin/node");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const SIZES = (process.env.FEEDS_BENCH_SIZES ?? "100000,1000000").split(",").map(Number);
const UPLOAD_ROWS = 50_000;
const ROUNDS = Number(process.env.FEEDS_BENCH_ROUNDS ?? 3);
/** FEEDS_BENCH_PROFILE=heap watches the compile isolate's heap without the CPU profiler's cost. */
const CPU_PROFILE = process.env.FEEDS_BENCH_PROFILE !== "heap";
// The benches' one set of local secrets: the service refuses a settings key that is not exactly 32 bytes.
const VARS = SECRETS;
const ADMIN_KEY = SECRETS.ADMIN_API_KEY;

const tmp = mkdtempSync(path.join(os.tmpdir(), "feeds-bench-"));
const persist = path.join(tmp, "state");
mkdirSync(persist);

// ---------------------------------------------------------------------------- the products
const HEADER = "Sku,Title,Description,Link,ImageLink,Price,Currency,Availability,Brand,Gtin";

/** Product i, the same in the upload and in the baseline. About 1 in 97 has an error, 1 in 10 a warning. */
function productOf(i) {
  const sku = `SKU-${String(i).padStart(7, "0")}`;
  return {
    sku,
    title: `Widget ${i} – "Deluxe", size ${i % 13}`,
    description: `A sturdy widget, model ${i}, made of recycled material; ships in 2-3 days. Fits most uses, including ${i % 7} others.`,
    link: `https://shop.example/products/${sku}`,
    imageLink: `https://cdn.shop.example/images/${sku}.jpg`,
    price: i % 97 === 0 ? 0 : 1 + (i % 5000) / 100,
    currency: "USD",
    availability: i % 3 === 0 ? "out_of_stock" : "in_stock",
    brand: i % 10 === 0 ? "" : "Acme",
    gtin: gtin13(400638100000 + (i % 99_999)),
  };
}

/** A GTIN-13: the 12 digits of `body` and their GS1 check digit (weights 1 and 3 from the left), so the compile's check passes. */
function gtin13(body) {
  const digits = String(body);
  let sum = 0;
  for (let k = 0; k < 12; k++) sum += Number(digits[k]) * (k % 2 === 0 ? 1 : 3);
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

const csvField = (v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csvRow = (values) => `${values.map(csvField).join(",")}\r\n`;

function uploadChunk(from, to) {
  let text = `${HEADER}\r\n`;
  for (let i = from; i < to; i++) {
    const p = productOf(i);
    text += csvRow([p.sku, p.title, p.description, p.link, p.imageLink, p.price.toFixed(2), p.currency, p.availability, p.brand, p.gtin]);
  }
  return Buffer.from(text);
}

/** The baseline: the same valid rows, serialized to CSV in memory (RFC 4180, as src/feeds/csv.ts). */
function baseline(n) {
  const start = performance.now();
  let bytes = 0;
  let chunk = "id,title,description,link,image_link,price,availability,brand,gtin\r\n";
  for (let i = 0; i < n; i++) {
    const p = productOf(i);
    if (!(p.price > 0)) continue;
    chunk += csvRow([p.sku, p.title, p.description, p.link, p.imageLink, `${p.price.toFixed(2)} ${p.currency}`, p.availability, p.brand, p.gtin]);
    if (chunk.length > 1 << 20) {
      bytes += Buffer.byteLength(chunk);
      chunk = "";
    }
  }
  bytes += Buffer.byteLength(chunk);
  const seconds = (performance.now() - start) / 1000;
  return { seconds, rowsPerSecond: n / seconds, bytes };
}

// ---------------------------------------------------------------------------- the server
async function isFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer().once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function freePort(from = 8811) {
  for (let port = from; port <= 8819; port++) if (await isFree(port)) return port;
  throw new Error("ports 8811-8819 are all taken");
}

/**
 * The ports of the service, the baseline Worker, the code before and the compile without R2, and
 * their inspectors'. BENCH_PORT=N pins all eight to N..N+7 (for a machine where each user has a
 * port range); otherwise the first free ports from 8811, with the inspectors 1000 above.
 */
async function ports() {
  const pinned = Number(process.env.BENCH_PORT);
  if (pinned) {
    for (let p = pinned; p < pinned + 8; p++) if (!(await isFree(p))) throw new Error(`BENCH_PORT: port ${p} is taken`);
    return {
      service: pinned,
      bare: pinned + 1,
      serviceInspector: pinned + 2,
      bareInspector: pinned + 3,
      before: pinned + 4,
      beforeInspector: pinned + 5,
      sink: pinned + 6,
      sinkInspector: pinned + 7,
    };
  }
  const service = await freePort();
  const bare = await freePort(service + 1);
  const before = await freePort(bare + 1);
  const sink = await freePort(before + 1);
  return {
    service,
    bare,
    serviceInspector: service + 1000,
    bareInspector: bare + 1000,
    before,
    beforeInspector: before + 1000,
    sink,
    sinkInspector: sink + 1000,
  };
}

const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
let base = "";

function request(method, urlPath, { body, headers = {}, sink, origin = base } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const req = https.request(
      origin + urlPath,
      {
        method,
        agent,
        headers: {
          ...(payload && !Buffer.isBuffer(body) ? { "content-type": "application/json" } : {}),
          ...(payload ? { "content-length": payload.length } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        let size = 0;
        res.on("data", (c) => {
          size += c.length;
          if (sink) sink.write(c);
          else chunks.push(c);
        });
        res.on("end", () => {
          if (sink) sink.end();
          const text = sink ? "" : Buffer.concat(chunks).toString();
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode, json, size, headers: res.headers });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const adminHeaders = { authorization: `Bearer ${ADMIN_KEY}` };
const adminCall = (method, p, body, headers = {}, origin = base) =>
  request(method, `/admin/v1${p}`, { body, headers: { ...adminHeaders, ...headers }, origin });

function must(res, what) {
  if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

/** The resident memory of the workerd processes under the wrangler we started: what "memory" is measured on. */
const workerdRssMiB = (rootPid) => rssMiB(workerdPids(rootPid));

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/**
 * CPU seconds (user + system) the workerd processes have used so far: the Worker, its Durable
 * Objects and the local D1 and R2 all run in them. On a shared machine the compile's CPU time
 * moves far less than its wall time, so rows per CPU-second compares two runs better.
 */
function workerdCpuSeconds(rootPid) {
  let ticks = 0;
  for (const pid of workerdPids(rootPid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / CLOCK_TICKS;
}

function sampleMemory(rootPid) {
  let peak = workerdRssMiB(rootPid);
  const timer = setInterval(() => (peak = Math.max(peak, workerdRssMiB(rootPid))), 200);
  return () => {
    clearInterval(timer);
    return Math.max(peak, workerdRssMiB(rootPid));
  };
}

// ---------------------------------------------------------------------------- the run
const fmt = (n, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  const { service: port, bare, serviceInspector, bareInspector, before, beforeInspector, sink, sinkInspector } = await ports();
  base = `https://127.0.0.1:${port}`;
  const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
  // Every database of wrangler.toml: the directory and the shards the stores live in.
  // FEEDS_BENCH_STATE: a --persist-to dir already migrated (a loaded machine takes minutes a database).
  if (process.env.FEEDS_BENCH_STATE) cpSync(process.env.FEEDS_BENCH_STATE, persist, { recursive: true });
  else applyMigrations(persist);

  const varArgs = Object.entries(VARS).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const dev = startDev(["--port", String(port), "--local-protocol", "https", ...varArgs], serviceInspector, env);
  const bareDev = startDev(["-c", "bench/feeds-baseline/wrangler.toml", "--port", String(bare)], bareInspector, env);
  const sinkDev = SINK ? startDev(["bench/feeds-sink-worker.ts", "--port", String(sink), "--local-protocol", "https", ...varArgs], sinkInspector, env) : null;
  if (sinkDev) sinkBase = `https://127.0.0.1:${sink}`;
  const beforeTree = BEFORE ? checkout(BEFORE) : null;
  const beforeDev = beforeTree ? startDev(["--port", String(before), "--local-protocol", "https", ...varArgs], beforeInspector, env, beforeTree) : null;
  if (beforeDev) beforeBase = `https://127.0.0.1:${before}`;
  bareBase = `http://127.0.0.1:${bare}`;
  const stop = () => {
    for (const child of [dev, bareDev, beforeDev, sinkDev].filter(Boolean)) {
      try {
        process.kill(child.pid, "SIGTERM");
      } catch {}
    }
  };
  process.on("exit", stop);
  try {
    for (let i = 0; ; i++) {
      if (dev.exitCode !== null) throw new Error(`wrangler dev exited:\n${dev.log()}`);
      if (bareDev.exitCode !== null) throw new Error(`wrangler dev (baseline Worker) exited:\n${bareDev.log()}`);
      if (beforeDev && beforeDev.exitCode !== null) throw new Error(`wrangler dev (the code before) exited:\n${beforeDev.log()}`);
      if (sinkDev && sinkDev.exitCode !== null) throw new Error(`wrangler dev (the compile without R2) exited:\n${sinkDev.log()}`);
      try {
        if (
          (await adminCall("GET", "/stores")).status === 200 &&
          (await fetch(`${bareBase}/?store=none`)).ok &&
          (!beforeDev || (await adminCall("GET", "/stores", undefined, {}, beforeBase)).status === 200) &&
          (!sinkDev || (await adminCall("GET", "/stores", undefined, {}, sinkBase)).status === 200)
        )
          break;
      } catch {}
      if (i > 240) throw new Error(`wrangler dev did not answer within 120 s:\n${dev.log()}\n${bareDev.log()}`);
      await sleep(500);
    }
    const results = await run(dev.pid, bareDev.pid, serviceInspector, beforeDev?.pid, sinkDev?.pid);
    report(results, port);
    if (process.env.FEEDS_BENCH_HOLD) {
      // Keeps the servers up for manual probing (curl -k the download URL printed above).
      console.log(`holding ${process.env.FEEDS_BENCH_HOLD} s: ${lastDownload}`);
      await sleep(Number(process.env.FEEDS_BENCH_HOLD) * 1000);
    }
  } finally {
    stop();
    await sleep(500);
    rmSync(tmp, { recursive: true, force: true });
  }
}

let bareBase = "";
let beforeBase = "";
const BEFORE = process.env.FEEDS_BENCH_BASE;
let sinkBase = "";
const SINK = process.env.FEEDS_BENCH_SINK === "1";

/** The tree at `ref` in a temporary directory, with this tree's node_modules and vendored assets. */
function checkout(ref) {
  const dir = path.join(tmp, "before");
  mkdirSync(dir);
  const archive = spawnSync("sh", ["-c", `git -C ${JSON.stringify(ROOT)} archive ${ref} | tar -x -C ${JSON.stringify(dir)}`], { encoding: "utf8" });
  if (archive.status !== 0) throw new Error(`git archive ${ref}: ${archive.stderr}`);
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  cpSync(path.join(ROOT, "public", "vendor"), path.join(dir, "public", "vendor"), { recursive: true });
  return dir;
}
let lastDownload = "";

function startDev(args, inspectorPort, env, cwd = ROOT) {
  const child = spawn(NODE22, [WRANGLER, "dev", "--ip", "127.0.0.1", "--persist-to", persist, "--inspector-port", String(inspectorPort), ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  child.log = () => log;
  return child;
}

async function run(devPid, bareDevPid, inspectorPort, beforeDevPid, sinkDevPid) {
  const created = must(await adminCall("POST", "/stores", { Name: "Bench store" }), "store").Store;
  const store = created.StoreId;
  // The isolate's heap and profile through wrangler's inspector, when asked (FEEDS_BENCH_PROFILE):
  // on a loaded machine its proxy did not always answer, and the figures above need none of it.
  const inspector = process.env.FEEDS_BENCH_PROFILE ? await inspect(inspectorPort) : null;
  const key = must(
    await adminCall("POST", `/stores/${store}/consumer-keys`, {
      Name: "bench",
      Scopes: ["FeedsRead"],
      Lifespan: "NeverExpires",
      BucketSize: 1000,
      LeakRatePerSecond: 100,
    }),
    "key",
  ).ConsumerKey.Key;
  const token = must(await request("PUT", "/v1/Authorization", { body: { ConsumerKey: key } }), "token").Token;
  const feedId = must(await adminCall("POST", `/stores/${store}/feeds`, { Name: "Bench Google", Format: "csv" }), "feed").Feed.FeedId;
  // The code before compiles its own feed of the same store (its Durable Object lives in its own server).
  const beforeFeedId = beforeDevPid
    ? must(await adminCall("POST", `/stores/${store}/feeds`, { Name: "Bench Google, code before", Format: "csv" }), "feed").Feed.FeedId
    : null;
  // The compile without R2 compiles its own feed of the same store, in its own server.
  const sinkFeedId = sinkDevPid
    ? must(await adminCall("POST", `/stores/${store}/feeds`, { Name: "Bench Google, no R2", Format: "csv" }), "feed").Feed.FeedId
    : null;

  const results = [];
  let loaded = 0;
  for (const size of SIZES.sort((a, b) => a - b)) {
    // Import: grow the catalog to `size` with CSV uploads of 50,000 rows.
    const importStart = performance.now();
    for (let from = loaded; from < size; from += UPLOAD_ROWS) {
      const to = Math.min(size, from + UPLOAD_ROWS);
      const res = must(await adminCall("PUT", `/stores/${store}/products`, uploadChunk(from, to), { "content-type": "text/csv" }), "upload");
      if (res.RowsUpserted !== to - from) throw new Error(`upload ${from}-${to}: ${JSON.stringify(res).slice(0, 500)}`);
      process.stderr.write(`\r  imported ${fmt(to)} / ${fmt(size)}   `);
    }
    const importSeconds = (performance.now() - importStart) / 1000;
    const imported = size - loaded;
    loaded = size;
    process.stderr.write("\n");

    // Rounds of the three runs on the same pages, in turn (the order reversed every other round,
    // so a load that drifts during a round favours none of them).
    const rounds = [];
    let first = null;
    for (let r = 0; r < ROUNDS; r++) {
      const runs = {
        compile: () => compileOnce(devPid, inspector && r === 0 ? inspector : null, feedId, size),
        ...(beforeFeedId ? { before: () => compileOnce(beforeDevPid, null, beforeFeedId, size, beforeBase) } : {}),
        ...(sinkFeedId ? { sink: () => compileOnce(sinkDevPid, null, sinkFeedId, size, sinkBase) } : {}),
        bare: () => bareOnce(bareDevPid, store, created.Shard, size, ""),
        bareR2: () => bareOnce(bareDevPid, store, created.Shard, size, "&r2=1"),
        bareGz: () => bareOnce(bareDevPid, store, created.Shard, size, "&r2=1&gz=1"),
      };
      const order = Object.keys(runs);
      if (r % 2 === 1) order.reverse();
      const round = {};
      for (const name of order) {
        await sleep(1000);
        round[name] = await runs[name]();
      }
      first ??= round.compile;
      rounds.push(round);
      process.stderr.write(
        `\n  round ${r + 1}: compile ${fmt(round.compile.seconds, 2)} s${round.before ? `, code before ${fmt(round.before.seconds, 2)} s` : ""}, bare ` +
          `${fmt(round.bare.seconds, 2)} s, bare + R2 ${fmt(round.bareR2.seconds, 2)} s, bare + gzip + R2 ${fmt(round.bareGz.seconds, 2)} s` +
          ` (compile / bare ${fmt((100 * round.bare.seconds) / round.compile.seconds, 1)} %)\n`,
      );
    }
    const feed = first.feed;

    // Download: streamed to a file, then the same file read back from disk.
    const file = path.join(tmp, `feed-${size}.csv`);
    lastDownload = `${base}/v1/${token}/feeds/${feedId}/download`;
    const dlStart = performance.now();
    const dl = await request("GET", `/v1/${token}/feeds/${feedId}/download`, { headers: { accept: "text/csv" }, sink: createWriteStream(file) });
    const dlSeconds = (performance.now() - dlStart) / 1000;
    if (dl.status !== 200 || dl.size !== feed.FileSize) throw new Error(`download: HTTP ${dl.status}, ${dl.size} of ${feed.FileSize} bytes`);
    const diskStart = performance.now();
    const disk = readFileSync(file).length;
    const diskSeconds = (performance.now() - diskStart) / 1000;
    rmSync(file);

    const serial = baseline(size);
    const med = (f) => median(rounds.map(f));
    results.push({
      size,
      rounds: rounds.map((r) => ({
        before: r.before?.seconds,
        sink: r.sink?.seconds,
        sinkCpu: r.sink?.cpuSeconds,
        beforeCpu: r.before?.cpuSeconds,
        compile: r.compile.seconds,
        compileClient: r.compile.clientSeconds,
        bare: r.bare.seconds,
        bareR2: r.bareR2.seconds,
        compileCpu: r.compile.cpuSeconds,
        bareCpu: r.bare.cpuSeconds,
        bareR2Cpu: r.bareR2.cpuSeconds,
        bareGz: r.bareGz.seconds,
        bareGzCpu: r.bareGz.cpuSeconds,
      })),
      importRowsPerSecond: imported / importSeconds,
      compileSeconds: med((r) => r.compile.seconds),
      compileClientSeconds: med((r) => r.compile.clientSeconds),
      compileRowsPerSecond: size / med((r) => r.compile.seconds),
      compileCpuSeconds: med((r) => r.compile.cpuSeconds),
      bareCpuSeconds: med((r) => r.bare.cpuSeconds),
      bareR2CpuSeconds: med((r) => r.bareR2.cpuSeconds),
      slices: first.slices,
      parts: first.parts,
      fileBytes: feed.FileSize,
      counts: `${feed.CompilationValidCount} valid (${feed.CompilationWarningCount} warned), ${feed.CompilationErrorCount} errors, Score ${feed.Score}`,
      rssBefore: first.rssBefore,
      rssPeak: first.rssPeak,
      heapBefore: first.heapBefore,
      heapPeakBytes: first.heapPeakBytes,
      heapPeakWithBuffers: first.heapPeakWithBuffers,
      heapAfter: first.heapAfter,
      liveDuring: first.liveDuring,
      baselineRowsPerSecond: serial.rowsPerSecond,
      baselineBytes: serial.bytes,
      bareRowsPerSecond: size / med((r) => r.bare.seconds),
      bareR2RowsPerSecond: size / med((r) => r.bareR2.seconds),
      bareGzRowsPerSecond: size / med((r) => r.bareGz.seconds),
      gzRatio: med((r) => r.bare.seconds / r.bareGz.seconds),
      gzBytes: rounds[0].bareGz.stored,
      ratio: med((r) => r.bare.seconds / r.compile.seconds),
      beforeRatio: BEFORE ? med((r) => r.bare.seconds / r.before.seconds) : NaN,
      beforeRatioToR2: BEFORE ? med((r) => r.bareR2.seconds / r.before.seconds) : NaN,
      speedup: BEFORE ? med((r) => r.before.seconds / r.compile.seconds) : NaN,
      beforeCpuSeconds: BEFORE ? med((r) => r.before.cpuSeconds) : NaN,
      sinkRowsPerSecond: SINK ? size / med((r) => r.sink.seconds) : NaN,
      sinkRatio: SINK ? med((r) => r.bare.seconds / r.sink.seconds) : NaN,
      sinkCpuSeconds: SINK ? med((r) => r.sink.cpuSeconds) : NaN,
      ratioToR2: med((r) => r.bareR2.seconds / r.compile.seconds),
      r2Ratio: med((r) => r.bare.seconds / r.bareR2.seconds),
      cpuRatio: med((r) => r.bare.cpuSeconds / r.compile.cpuSeconds),
      downloadMiBps: dl.size / 1048576 / dlSeconds,
      diskMiBps: disk / 1048576 / diskSeconds,
    });
  }
  inspector?.close();
  return results;
}

/**
 * One compile through the admin API, timed by the service itself: from the moment the feed was
 * marked Compiling to the moment its new file was committed (DateLastSubmitted and
 * DateLastCompiled, written by the compile), as the bare Worker times its own loop. The client
 * polls once a second, and its own time (request to seeing Completed) is kept beside it.
 */
async function compileOnce(devPid, inspector, feedId, size, origin = base) {
  const rssBefore = workerdRssMiB(devPid);
  const peak = sampleMemory(devPid);
  const cpuBefore = workerdCpuSeconds(devPid);
  // What the isolate holds live before the compile; the peak below counts garbage not yet collected too.
  const heapBefore = inspector ? (await liveHeap(inspector)).usedSize : NaN;
  const heapPeak = inspector ? sampleHeap(inspector) : async () => ({ used: NaN, withBuffers: NaN });
  if (inspector && CPU_PROFILE) {
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: 1000 });
    await inspector.send("Profiler.start");
  }
  const start = performance.now();
  must(await adminCall("POST", `/feeds/${feedId}/compile`, undefined, {}, origin), "compile");
  let progress;
  // With the inspector, what the compile holds live mid-way: a collection every 2 s while it runs
  // (each pauses the isolate for seconds: round 1's time is longer, the medians keep the others').
  let liveDuring = 0;
  let compiling = true;
  const liveLoop = (async () => {
    while (inspector && compiling) {
      await sleep(2000);
      if (!compiling) break;
      const live = await liveHeap(inspector);
      liveDuring = Math.max(liveDuring, live.usedSize + (live.backingStorageSize ?? 0));
    }
  })();
  for (;;) {
    progress = must(await adminCall("GET", `/feeds/${feedId}/compile`, undefined, {}, origin), "progress").Compile;
    if (!progress.Running) break;
    process.stderr.write(`\r  compiling ${fmt(size)}: after ${progress.AfterSku}, ${progress.Slices} slices, ${progress.Parts} parts   `);
    await sleep(1000);
  }
  compiling = false;
  await liveLoop;
  const clientSeconds = (performance.now() - start) / 1000;
  const cpuSeconds = workerdCpuSeconds(devPid) - cpuBefore;
  const rssPeak = peak();
  const { used: heapPeakBytes, withBuffers: heapPeakWithBuffers } = await heapPeak();
  if (inspector && CPU_PROFILE) {
    const { profile } = await inspector.send("Profiler.stop", {}, 60_000);
    console.log(`\nCPU profile of the compile's isolate at ${fmt(size)} products (self time, sampled every 1 ms):`);
    for (const [name, ms, share] of hotFunctions(profile, 30)) console.log(`  ${fmt(ms).padStart(8)} ms  ${fmt(share * 100, 1).padStart(5)} %  ${name}`);
  }
  // What stays live once the compile is over (its parts and pages gone).
  const heapAfter = inspector ? (await liveHeap(inspector)).usedSize : NaN;
  const feed = must(await adminCall("GET", `/feeds/${feedId}`, undefined, {}, origin), "feed").Feed;
  if (feed.Status !== "Completed") throw new Error(`compile ended ${feed.Status}: ${feed.StatusMessage}`);
  if (feed.CompilationTotalCount !== size) throw new Error(`compile counted ${feed.CompilationTotalCount} products of ${size}`);
  const seconds = (Date.parse(feed.DateLastCompiled) - Date.parse(feed.DateLastSubmitted)) / 1000;
  return {
    seconds,
    clientSeconds,
    cpuSeconds,
    slices: progress.Slices,
    parts: progress.Parts,
    feed,
    rssBefore,
    rssPeak,
    heapBefore,
    heapPeakBytes,
    heapPeakWithBuffers,
    heapAfter,
    liveDuring,
  };
}

/**
 * The bare Worker over the same pages, timed by itself; `options` adds its query: `&r2=1` also
 * writes the bytes to R2, `&r2=1&gz=1` writes them gzipped (the bytes it stored are kept).
 */
async function bareOnce(bareDevPid, store, shard, size, options) {
  const cpuBefore = workerdCpuSeconds(bareDevPid);
  const bare = await (await fetch(`${bareBase}/?store=${store}&db=${shard}&pageRows=1000${options}`)).json();
  if (bare.rows !== size) throw new Error(`baseline Worker read ${bare.rows} rows`);
  return { seconds: bare.totalMs / 1000, cpuSeconds: workerdCpuSeconds(bareDevPid) - cpuBefore, stored: bare.stored };
}

function report(results, port) {
  const pct = (x) => `${fmt(100 * x, 1)} %`;
  const rows = [
    ["products", ...results.map((r) => fmt(r.size))],
    ["import, rows/s (CSV upload)", ...results.map((r) => fmt(r.importRowsPerSecond))],
    [`medians of ${ROUNDS} rounds:`, ...results.map(() => "")],
    ["compile, s (as the service timed it)", ...results.map((r) => fmt(r.compileSeconds, 2))],
    ["compile, s (client: request to Completed seen)", ...results.map((r) => fmt(r.compileClientSeconds, 2))],
    ["compile, rows/s", ...results.map((r) => fmt(r.compileRowsPerSecond))],
    ["bare Worker: D1 pages + CSV in memory, rows/s", ...results.map((r) => fmt(r.bareRowsPerSecond))],
    ["bare Worker + the bytes to R2 as 5 MiB parts, rows/s", ...results.map((r) => fmt(r.bareR2RowsPerSecond))],
    ["compile / bare Worker (median of rounds)", ...results.map((r) => pct(r.ratio))],
    ["compile / bare Worker + R2", ...results.map((r) => pct(r.ratioToR2))],
    ...(SINK
      ? [
          ["compile, its parts to no R2 (FEEDS_BENCH_SINK), rows/s", ...results.map((r) => fmt(r.sinkRowsPerSecond))],
          ["compile to no R2 / bare Worker", ...results.map((r) => pct(r.sinkRatio))],
          ["workerd CPU s: compile to no R2", ...results.map((r) => fmt(r.sinkCpuSeconds, 1))],
        ]
      : []),
    ...(BEFORE
      ? [
          [`code before (${BEFORE}) / bare Worker`, ...results.map((r) => pct(r.beforeRatio))],
          [`code before (${BEFORE}) / bare Worker + R2`, ...results.map((r) => pct(r.beforeRatioToR2))],
          ["code before time / compile time", ...results.map((r) => pct(r.speedup))],
          ["workerd CPU s: code before", ...results.map((r) => fmt(r.beforeCpuSeconds, 1))],
        ]
      : []),
    ["bare Worker + R2 / bare Worker", ...results.map((r) => pct(r.r2Ratio))],
    ["bare Worker + the bytes gzipped to R2, rows/s", ...results.map((r) => fmt(r.bareGzRowsPerSecond))],
    ["bare Worker + gzip to R2 / bare Worker", ...results.map((r) => pct(r.gzRatio))],
    ["gzipped file, MiB", ...results.map((r) => fmt(r.gzBytes / 1048576, 1))],
    [
      "workerd CPU s: compile / bare / bare + R2",
      ...results.map((r) => `${fmt(r.compileCpuSeconds, 1)} / ${fmt(r.bareCpuSeconds, 1)} / ${fmt(r.bareR2CpuSeconds, 1)}`),
    ],
    ["bare CPU / compile CPU", ...results.map((r) => pct(r.cpuRatio))],
    ["baseline (Node, serialize only), rows/s", ...results.map((r) => fmt(r.baselineRowsPerSecond))],
    ["invocations (request + alarms)", ...results.map((r) => fmt(r.slices))],
    ["multipart parts", ...results.map((r) => fmt(r.parts))],
    ["file, MiB", ...results.map((r) => fmt(r.fileBytes / 1048576, 1))],
    ["workerd RSS before -> peak, MiB (round 1)", ...results.map((r) => `${fmt(r.rssBefore)} -> ${fmt(r.rssPeak)}`)],
    [
      "isolate heap, MiB: live before -> peak JS (with ArrayBuffers) -> live after (round 1)",
      ...results.map(
        (r) =>
          `${fmt(r.heapBefore / 1048576, 1)} -> ${fmt(r.heapPeakBytes / 1048576, 1)} (${fmt(r.heapPeakWithBuffers / 1048576, 1)}) -> ${fmt(r.heapAfter / 1048576, 1)}`,
      ),
    ],
    ["isolate live during the compile, JS heap + ArrayBuffers after a collection, peak MiB", ...results.map((r) => fmt(r.liveDuring / 1048576, 1))],
    ["download, MiB/s", ...results.map((r) => fmt(r.downloadMiBps))],
    ["same file read from disk, MiB/s", ...results.map((r) => fmt(r.diskMiBps))],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log(
    `\nFeeds benchmark (wrangler dev on port ${port}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}, Node ${process.version} for the baseline)`,
  );
  for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
  for (const r of results) {
    console.log(`${fmt(r.size)}: ${r.counts}`);
    for (const [i, x] of r.rounds.entries()) {
      console.log(
        `  round ${i + 1}: ${x.before === undefined ? "" : `code before ${fmt(x.before, 2)} s (CPU ${fmt(x.beforeCpu, 1)} s), `}compile ` +
          `${fmt(x.compile, 2)} s (client ${fmt(x.compileClient, 2)} s, CPU ${fmt(x.compileCpu, 1)} s), bare ${fmt(x.bare, 2)} s (CPU ${fmt(x.bareCpu, 1)} ` +
          `s), ` +
          `bare + R2 ${fmt(x.bareR2, 2)} s (CPU ${fmt(x.bareR2Cpu, 1)} s), bare + gzip + R2 ${fmt(x.bareGz, 2)} s (CPU ${fmt(x.bareGzCpu, 1)} s): compile / bare ${pct(x.bare / x.compile)}, / bare + R2 ${pct(x.bareR2 / x.compile)}`,
      );
    }
  }
  writeFileSync(path.join(ROOT, "bench", "results", "feeds.json"), JSON.stringify(results, null, 2), { flag: "w" });
}

mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
