#!/usr/bin/env node
// Stock benchmark (decisions 11): 100,000 tracked Skus, every one changed by PUT /v1/{token}/Inventory,
// then one sync cycle of a simulated source sends them all (plan from the catalog's stock clock,
// batches of 1,000, one outcome statement per batch). Baseline in the same run: the same plan,
// due reads and connector on a second source, recording each Sku's outcome with its own statement
// (bench/stock-bench.routes.ts). Runs `wrangler dev bench/sync-worker.ts` (local D1, its own
// persist dir, ports 8831-8832).
//
//   node bench/stock.bench.mjs [--skus 100000] [--port 8831]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const SKUS = arg("skus", 100_000);
const PORT = arg("port", 8831);
const PERSIST = path.join(root, ".wrangler", "bench-stock");
const ADMIN_KEY = "bench-admin-key";
const VARS = {
  ADMIN_API_KEY: ADMIN_KEY,
  TOKEN_SIGNING_SECRET: "bench-token-signing-secret-0123456789",
  SOURCE_SETTINGS_KEY: "YmVuY2gtc291cmNlLXNldHRpbmdzLWtleS0zMmJ5dGU=",
};

/** wrangler's local certificate is self-signed: trust it for these loopback calls only. */
function request(method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: "localhost",
        port: PORT,
        method,
        path: urlPath,
        rejectUnauthorized: false,
        headers: { ...(urlPath.startsWith("/admin/") ? { authorization: `Bearer ${ADMIN_KEY}` } : {}), ...(payload ? { "content-type": "application/json" } : {}) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, json, text });
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
  return res.json;
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

async function waitForServer(dev) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (dev.exitCode !== null) throw new Error(`wrangler dev exited with ${dev.exitCode}`);
    try {
      const res = await request("GET", "/admin/v1/stores");
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("wrangler dev did not answer within 90 s");
}

rmSync(PERSIST, { recursive: true, force: true });
mkdirSync(PERSIST, { recursive: true });
const migrate = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", PERSIST], {
  cwd: root,
  env: { ...process.env, CI: "true" },
  encoding: "utf8",
});
if (migrate.status !== 0) {
  console.error(migrate.stdout, migrate.stderr);
  process.exit(1);
}

const devArgs = ["wrangler", "dev", "bench/sync-worker.ts", "--port", String(PORT), "--inspector-port", String(PORT + 1), "--local-protocol", "https", "--persist-to", PERSIST];
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

try {
  await waitForServer(dev);
  const store = (await must("POST", "/admin/v1/stores", { Name: "bench" })).Store.StoreId;
  const key = (await must("POST", `/admin/v1/stores/${store}/consumer-keys`, { Name: "bench", Scopes: ["InventoryUpdate"], Lifespan: "NeverExpires", BucketSize: 100000, LeakRatePerSecond: 10000 })).ConsumerKey.Key;
  const token = (await must("PUT", "/v1/Authorization", { ConsumerKey: key })).Token;
  const sku = (i) => `SKU-${String(i).padStart(6, "0")}`;
  for (let i = 0; i < SKUS; i += 20_000) {
    const products = [];
    for (let k = i; k < Math.min(SKUS, i + 20_000); k++) products.push({ Sku: sku(k), Title: `Product ${k}`, Price: 10, Quantity: 100 });
    await must("PUT", `/admin/v1/stores/${store}/products`, { Products: products });
  }
  // A simulated marketplace that sells nothing: only the stock calls.
  const settings = { startAt: new Date(Date.now() + 365 * 86_400_000).toISOString(), listingBatchSize: 1000 };
  const cycleSource = (await must("POST", `/admin/v1/stores/${store}/sources`, { Type: "simulated", Name: "Cycle", Settings: settings })).Source.SourceId;
  const baselineSource = (await must("POST", `/admin/v1/stores/${store}/sources`, { Type: "simulated", Name: "Baseline", Settings: settings })).Source.SourceId;

  // Warm-up: both marketplaces accept the first quantities.
  const first = await timed(() => must("POST", `/admin/v1/sync?sourceId=${cycleSource}`));
  await must("POST", `/admin/v1/bench/stock-baseline?sourceId=${baselineSource}`);

  // The seller's system changes every Sku, 1,000 a call.
  const changed = await timed(async () => {
    for (let i = 0; i < SKUS; i += 1000) {
      const items = [];
      for (let k = i; k < Math.min(SKUS, i + 1000); k++) items.push({ Sku: sku(k), Quantity: 99 });
      const res = await must("PUT", `/v1/${token}/Inventory`, { Items: items });
      if (res.UnknownSkus.length !== 0) throw new Error(`unknown Skus: ${JSON.stringify(res.UnknownSkus.slice(0, 3))}`);
    }
  });

  const cycle = await timed(() => must("POST", `/admin/v1/sync?sourceId=${cycleSource}`));
  const counts = (await must("GET", `/admin/v1/stores/${store}/sources/${cycleSource}/listings?limit=1`)).Counts;
  if (counts.Accepted !== SKUS || counts.Pending !== 0) throw new Error(`cycle left ${JSON.stringify(counts)}: ${JSON.stringify(cycle.value)}`);
  const baseline = await timed(() => must("POST", `/admin/v1/bench/stock-baseline?sourceId=${baselineSource}`));
  if (baseline.value.Sent !== SKUS) throw new Error(`baseline sent ${baseline.value.Sent}`);
  const baseCounts = (await must("GET", `/admin/v1/stores/${store}/sources/${baselineSource}/listings?limit=1`)).Counts;
  if (baseCounts.Accepted !== SKUS) throw new Error(`baseline left ${JSON.stringify(baseCounts)}`);

  const rows = [
    { what: `first cycle (${SKUS} Skus, all new)`, items: SKUS, ms: first.ms, statements: first.value.Sync.Sources[0].D1Statements },
    { what: `PUT Inventory (${SKUS} Skus, 1,000/call)`, items: SKUS, ms: changed.ms, statements: null },
    { what: `cycle (${SKUS} Skus changed)`, items: SKUS, ms: cycle.ms, statements: cycle.value.Sync.Sources[0].D1Statements },
    { what: `baseline, a statement per Sku`, items: SKUS, ms: baseline.ms, statements: baseline.value.D1Statements },
  ].map((r) => ({ ...r, perSecond: Math.round((r.items / r.ms) * 1000), perItem: r.statements === null ? null : r.statements / r.items }));

  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  console.log(`\nstock benchmark (wrangler dev, local D1, ${new Date().toISOString()})`);
  console.log(`${pad("case", 40)}${lpad("ms", 10)}${lpad("Skus/s", 10)}${lpad("D1 stmts", 10)}${lpad("stmts/Sku", 12)}`);
  for (const r of rows) {
    console.log(`${pad(r.what, 40)}${lpad(r.ms.toFixed(0), 10)}${lpad(r.perSecond, 10)}${lpad(r.statements ?? "-", 10)}${lpad(r.perItem === null ? "-" : r.perItem.toFixed(4), 12)}`);
  }
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(path.join(root, "bench", "results", "stock.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
} catch (error) {
  console.error(error);
  console.error(devLog.slice(-3000));
  process.exitCode = 1;
} finally {
  stop();
}
