#!/usr/bin/env node
// Fan-out benchmark (issue 19): how many sources the cron starts per second, through the sync
// queue (src/sync/sync-queue.ts) against the dispatch it replaced (one awaited SourceSync call per
// source in the cron's one invocation), in one run against one `wrangler dev` (local D1, local
// queue, its own persist dir, ports 8851-8852). The sources are simulated ones selling nothing,
// so a cycle is its fixed cost (about 7 D1 statements) and the figure is the fan-out's.
// A warm-up round of the baseline runs first (every source's object made, its first cycle done);
// then the two alternate, `--rounds` times each, with a third case that hands every object its slot
// at once without the queue (what the consumer does), so the queue's share shows on its own.
//
//   node bench/fanout.bench.mjs [--sources 1000] [--rounds 2] [--port 8851]
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
const SOURCES = arg("sources", 1_000);
const ROUNDS = arg("rounds", 2);
const PORT = arg("port", 8851);
const PERSIST = path.join(root, ".wrangler", "bench-fanout");
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

const devArgs = ["wrangler", "dev", "bench/fanout-worker.ts", "--port", String(PORT), "--inspector-port", String(PORT + 1), "--local-protocol", "https", "--persist-to", PERSIST];
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Math.round(Number.isInteger(mid) ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)]);
};

try {
  await waitForServer(dev);
  const store = (await must("POST", "/admin/v1/stores", { Name: "fanout", Limits: { Sources: SOURCES + 1 } })).Store.StoreId;
  // A marketplace that sold its one order long before the source existed: every cycle imports nothing.
  const settings = { ordersPerHour: 1, startAt: "2001-01-01T00:00:00Z", endAt: "2001-01-01T00:00:00Z" };
  const template = (await must("POST", `/admin/v1/stores/${store}/sources`, { Type: "simulated", Name: "Fan", Settings: settings })).Source.SourceId;
  await must("PATCH", `/admin/v1/stores/${store}/sources/${template}`, { Enabled: false });
  const seeded = await must("POST", `/admin/v1/bench/fanout/seed?sourceId=${template}&count=${SOURCES}`);
  if (seeded.Seeded !== SOURCES) throw new Error(`seeded ${seeded.Seeded}`);

  const rows = [];
  const plan = ["await", ...Array.from({ length: ROUNDS }, () => ["queue", "await", "alarms"]).flat()];
  for (const [i, mode] of plan.entries()) {
    const t0 = Date.now();
    const answer = await must("POST", `/admin/v1/bench/fanout/dispatch?mode=${mode}&at=${t0 - 120_000}`);
    if (answer.Sources !== SOURCES) throw new Error(`${mode} dispatched ${answer.Sources} of ${SOURCES}`);
    let progress;
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      progress = await must("GET", `/admin/v1/bench/fanout/progress?storeId=${store}&since=${t0}`);
      if (progress.Started === SOURCES && progress.LastEnd > 0) break;
      if (Date.now() > deadline) throw new Error(`${mode}: ${progress.Started} of ${SOURCES} started in 30 min`);
      await sleep(1000);
    }
    const row = { mode, cronMs: answer.Ms, allStartedMs: progress.LastStart - t0, allEndedMs: progress.LastEnd - t0 };
    row.startsPerSecond = Math.round((SOURCES / Math.max(1, row.allStartedMs)) * 1000);
    console.log(`${i === 0 ? "warm-up " : ""}${mode}: ${JSON.stringify(row)}`);
    if (i > 0) rows.push(row);
  }

  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  console.log(`\nfan-out benchmark: ${SOURCES} sources, medians of ${ROUNDS} rounds each (wrangler dev, local D1 and queue, ${new Date().toISOString()})`);
  console.log(`${pad("dispatch", 34)}${lpad("cron ms", 10)}${lpad("all started ms", 16)}${lpad("starts/s", 10)}${lpad("all ended ms", 14)}`);
  const summary = [];
  for (const mode of ["queue", "await", "alarms"]) {
    const mine = rows.filter((r) => r.mode === mode);
    const s = {
      mode,
      cronMs: median(mine.map((r) => r.cronMs)),
      allStartedMs: median(mine.map((r) => r.allStartedMs)),
      startsPerSecond: median(mine.map((r) => r.startsPerSecond)),
      allEndedMs: median(mine.map((r) => r.allEndedMs)),
    };
    summary.push(s);
    const label = { queue: "queue (100 a sendBatch, consumer)", await: "baseline: one await per source", alarms: "no queue: every object's alarm" }[mode];
    console.log(`${pad(label, 34)}${lpad(s.cronMs, 10)}${lpad(s.allStartedMs, 16)}${lpad(s.startsPerSecond, 10)}${lpad(s.allEndedMs, 14)}`);
  }
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(path.join(root, "bench", "results", "fanout.json"), JSON.stringify({ at: new Date().toISOString(), sources: SOURCES, rows, summary }, null, 2));
} catch (error) {
  console.error(error);
  console.error(devLog.slice(-3000));
  process.exitCode = 1;
} finally {
  stop();
}
