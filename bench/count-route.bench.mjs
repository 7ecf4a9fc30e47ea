#!/usr/bin/env node
// What the /v1 Orders/count route costs beyond the D1 count it runs, now and in the code before a
// change, in one run: `node bench/count-route.bench.mjs` (`npm run bench -- count-route`). Starts
// two `wrangler dev` servers from bench/throttle-worker.ts (the production Worker plus
// /bench/bare-count, the same D1 count with no routing, validation, auth or throttle, in the same
// workerd): A from this tree, and Z from the tree at COUNT_BENCH_BASE (a commit, default the one
// before the route's cuts), extracted with `git archive` into a temporary directory that borrows
// this tree's node_modules. Both get one key whose bucket never refuses, and 20 orders. Measured
// interleaved (harness interleaved(): one client round the targets call by call, then
// BENCH_CONCURRENCY clients in rotating rounds):
//   (1) A: GET /v1/{token}/Orders/count      (3db) A: /bench/bare-count, the same count
//   (1z) Z: the same route                    (3dbz) Z: its bare count
// and prints (1)/(3db) (the goal: at least 80 %), (1z)/(3dbz), and (1)/(1z).
// Environment: BENCH_SECONDS (per target and phase, default 8), BENCH_CONCURRENCY (default 16),
// BENCH_PORT (first of four ports, default 8821; each server's inspector on the next one),
// COUNT_BENCH_BASE (default below), COUNT_BENCH_STATE (a migrated --persist-to dir to copy instead of
// migrating), BENCH_STATE_DIR (where state dirs go; see harness memoryDir).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { applyMigrations, interleaved, main, memoryDir, pairedMedian, root, sampleOrder, startDev, writeResult } from "./harness.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PORT_BASE = Number(process.env.BENCH_PORT) || 8821;
/** The edge branch before the count route's cuts (a schema-free drizzle, cached secret and token checks). */
const BASE = process.env.COUNT_BENCH_BASE ?? "b9b6fc3";
const ENTRY = "bench/throttle-worker.ts";
const COUNT_QUERY = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";
const clientOptions = { maxSockets: 64 };

/** The tree at `ref`, with this tree's node_modules and vendored assets, in a temporary directory. */
function checkout(ref) {
  const dir = mkdtempSync(path.join(tmpdir(), "count-route-base-"));
  const archive = spawnSync("sh", ["-c", `git -C ${JSON.stringify(root)} archive ${ref} | tar -x -C ${JSON.stringify(dir)}`], { encoding: "utf8" });
  if (archive.status !== 0) throw new Error(`git archive ${ref}: ${archive.stderr}`);
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  if (existsSync(path.join(root, "public", "vendor")) && !existsSync(path.join(dir, "public", "vendor")))
    cpSync(path.join(root, "public", "vendor"), path.join(dir, "public", "vendor"), { recursive: true });
  return dir;
}

/** A tree's wrangler.toml with the bench entry and every path absolute, written into `dir`. */
function configOf(tree, dir) {
  let toml = readFileSync(path.join(tree, "wrangler.toml"), "utf8").replace(/^main = ".*"$/m, `main = ${JSON.stringify(ENTRY)}`);
  for (const key of ["main", "migrations_dir", "directory"]) {
    toml = toml.replace(new RegExp(`^${key} = "(.*)"$`, "gm"), (_, value) => `${key} = ${JSON.stringify(path.join(tree, value))}`);
  }
  const file = path.join(dir, "wrangler.toml");
  writeFileSync(file, toml);
  return file;
}

async function prepare(dev) {
  const store = (await dev.must("POST", "/admin/v1/stores", { Name: "Bench store" })).Store;
  const key = await dev.must("POST", `/admin/v1/stores/${store.StoreId}/consumer-keys`, {
    Name: "bench",
    Scopes: ["OrdersRead", "OrdersCreate"],
    Lifespan: "NeverExpires",
    BucketSize: 100_000,
    LeakRatePerSecond: 10_000,
  });
  const token = (await dev.must("PUT", "/v1/Authorization", { ConsumerKey: key.ConsumerKey.Key })).Token;
  for (let n = 0; n < 20; n++) await dev.must("PUT", `/v1/${token}/Orders/InsertOrder`, sampleOrder(`BENCH-${n}`));
  return { token, bare: `/bench/bare-count/${store.StoreId}~${store.Shard}${COUNT_QUERY.slice(COUNT_QUERY.indexOf("?"))}` };
}

const fmt = (n, digits = 2) => n.toFixed(digits);

await main(async () => {
  const base = checkout(BASE);
  const head = spawnSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim();
  console.log(
    `count route bench: this tree (HEAD ${head}${spawnSync("git", ["-C", root, "diff", "--quiet", "HEAD", "--", "src"]).status ? ", src/ changed" : ""}) ` +
      `against ${BASE}; ${SECONDS} s a target and phase, ${CONCURRENCY} clients; load average at start ${fmt(loadavg()[0])}`,
  );
  const dirA = memoryDir("count-a");
  const dirZ = memoryDir("count-z");
  // COUNT_BENCH_STATE: a --persist-to dir already migrated (a loaded machine takes minutes a database).
  if (process.env.COUNT_BENCH_STATE) cpSync(process.env.COUNT_BENCH_STATE, dirA, { recursive: true });
  else applyMigrations(dirA);
  cpSync(dirA, dirZ, { recursive: true });
  const [a, z] = await Promise.all([
    startDev({ port: PORT_BASE, persist: dirA, config: configOf(root, dirA), clientOptions }),
    startDev({ port: PORT_BASE + 2, persist: dirZ, config: configOf(base, dirZ), clientOptions }),
  ]);
  const [pa, pz] = [await prepare(a), await prepare(z)];
  const countsTwenty = (res) => {
    if (res.json?.Count !== 20) throw new Error(`counted ${res.text}`);
  };
  const results = await interleaved(
    [
      { name: "(1) Orders/count, this tree", call: () => a.request("GET", `/v1/${pa.token}${COUNT_QUERY}`), check: countsTwenty },
      { name: "(3db) bare count, this tree's workerd", call: () => a.request("GET", pa.bare), check: countsTwenty },
      { name: `(1z) Orders/count, ${BASE}`, call: () => z.request("GET", `/v1/${pz.token}${COUNT_QUERY}`), check: countsTwenty },
      { name: `(3dbz) bare count, ${BASE}'s workerd`, call: () => z.request("GET", pz.bare), check: countsTwenty },
    ],
    { seconds: SECONDS, clients: CONCURRENCY },
  );
  const [now, bareNow, before, bareBefore] = results;
  console.table(
    results.map((r) => ({
      run: r.name,
      "p50 ms (1 client)": fmt(r.single.p50),
      "p99 ms (1 client)": fmt(r.single.p99),
      [`req/s (${CONCURRENCY} clients)`]: fmt(r.loaded.rps, 0),
      [`p50 ms (${CONCURRENCY})`]: fmt(r.loaded.p50),
    })),
  );
  const ratio = now.loaded.rps / bareNow.loaded.rps;
  const ratioBefore = before.loaded.rps / bareBefore.loaded.rps;
  console.log(`machine: ${cpus().length} CPUs, load average ${fmt(loadavg()[0])} at the end`);
  console.log(
    `throughput (1)/(3db), this tree: ${fmt(ratio * 100, 1)} % (goal >= 80 %: ${ratio >= 0.8 ? "met" : "NOT met"}); (1z)/(3dbz), ${BASE}: ` +
      `${fmt(ratioBefore * 100, 1)} %; (1)/(1z): ${fmt((now.loaded.rps / before.loaded.rps) * 100, 1)} %`,
  );
  console.log(
    `route cost over the bare count at p50 (1 client), median of paired differences: this tree ${fmt(pairedMedian(now.samples, bareNow.samples))} ms, ` +
      `${BASE} ${fmt(pairedMedian(before.samples, bareBefore.samples))} ms`,
  );
  writeResult("count-route", {
    base: BASE,
    head,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
    loadAverage: loadavg()[0],
    results: results.map(({ samples, ...r }) => r),
    ratio,
    ratioBefore,
  });
});
