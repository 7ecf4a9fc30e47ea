#!/usr/bin/env node
// Sync benchmark: one cycle importing 10,000 simulated orders against a baseline that inserts the
// same orders with plain drizzle inserts in db.batch, then the delivery of 1,000 pending outbox
// rows. Runs `wrangler dev bench/sync-worker.ts` (local D1, its own persist dir, ports 8821-8822):
// the production Worker plus the bench-only admin routes of bench/sync-bench.routes.ts.
//
//   node bench/sync.bench.mjs [--orders 10000] [--deliveries 1000] [--port 8821]
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
const ORDERS = arg("orders", 10_000);
const DELIVERIES = arg("deliveries", 1_000);
const PORT = arg("port", 8821);
const PERSIST = path.join(root, ".wrangler", "bench-sync");
const ADMIN_KEY = "bench-admin-key-0123456789abcdef-0123";
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
        headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(payload ? { "content-type": "application/json" } : {}) },
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
  // ORDERS orders at 10,000 an hour, all created between one and two hours ago.
  const interval = 360;
  const end = Math.floor((Date.now() - 3_600_000) / interval) * interval;
  const settings = {
    ordersPerHour: 10_000,
    startAt: new Date(end - (ORDERS - 1) * interval).toISOString(),
    endAt: new Date(end).toISOString(),
  };
  const source = (await must("POST", `/admin/v1/stores/${store}/sources`, { Type: "simulated", Name: "BenchMarket", Settings: settings })).Source.SourceId;

  const cycle = await timed(() => must("POST", `/admin/v1/sync?sourceId=${source}`));
  const imported = cycle.value.Sync.Sources[0];
  if (imported.OrdersImported !== ORDERS) throw new Error(`imported ${imported.OrdersImported} of ${ORDERS}: ${JSON.stringify(imported)}`);
  const baseline = await timed(() => must("POST", `/admin/v1/bench/baseline-import?sourceId=${source}`));
  if (baseline.value.Inserted !== ORDERS) throw new Error(`baseline inserted ${baseline.value.Inserted}`);

  const queued = await must("POST", `/admin/v1/bench/enqueue-acknowledgements?sourceId=${source}&count=${DELIVERIES}`);
  if (queued.Pending !== DELIVERIES) throw new Error(`queued ${queued.Pending} of ${DELIVERIES}`);
  const delivery = await timed(() => must("POST", `/admin/v1/sync?sourceId=${source}`));
  const delivered = delivery.value.Sync.Sources[0];
  if (delivered.Delivered !== DELIVERIES) throw new Error(`delivered ${delivered.Delivered} of ${DELIVERIES}: ${JSON.stringify(delivered)}`);

  const rows = [
    { what: `import cycle (${ORDERS} orders)`, items: ORDERS, ms: cycle.ms, statements: imported.D1Statements },
    { what: `baseline db.batch (${ORDERS} orders)`, items: ORDERS, ms: baseline.ms, statements: baseline.value.D1Statements },
    { what: `delivery (${DELIVERIES} outbox rows)`, items: DELIVERIES, ms: delivery.ms, statements: delivered.D1Statements },
  ].map((r) => ({ ...r, perSecond: Math.round((r.items / r.ms) * 1000), perItem: r.statements / r.items }));

  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  console.log(`\nsync benchmark (wrangler dev, local D1, ${new Date().toISOString()})`);
  console.log(`${pad("case", 36)}${lpad("ms", 10)}${lpad("items/s", 10)}${lpad("D1 stmts", 10)}${lpad("stmts/item", 12)}`);
  for (const r of rows) {
    console.log(`${pad(r.what, 36)}${lpad(r.ms.toFixed(0), 10)}${lpad(r.perSecond, 10)}${lpad(r.statements, 10)}${lpad(r.perItem.toFixed(3), 12)}`);
  }
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(path.join(root, "bench", "results", "sync.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
} catch (error) {
  console.error(error);
  console.error(devLog.slice(-3000));
  process.exitCode = 1;
} finally {
  stop();
}
