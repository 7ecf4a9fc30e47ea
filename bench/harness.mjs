// What the benches that run the Worker under a local `wrangler dev` share: flags and the port, the
// service's bench secrets, a fresh persist dir with every D1 binding's migrations applied, starting
// and stopping the server, an HTTPS client for it, its workerd processes' memory, timing and
// percentiles, and printing a table. (bench/seed.mjs: seeding a local D1's SQLite file directly.)
// A bench keeps only what it measures. Not a test helper: benches print figures, never pass or fail on them.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `--name N` from the command line as a number, or the fallback. */
export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

/** The first port of a bench's server: `--port N`, else BENCH_PORT, else the bench's own default. */
export function benchPort(fallback) {
  return arg("port", Number(process.env.BENCH_PORT) || fallback);
}

/** The service refuses to serve with any of these under 32 bytes (src/http/secrets.ts). */
export const SECRETS = {
  ADMIN_API_KEY: "bench-admin-key-0123456789abcdef-0123",
  TOKEN_SIGNING_SECRET: "bench-token-signing-secret-0123456789",
  SOURCE_SETTINGS_KEY: "YmVuY2gtc291cmNlLXNldHRpbmdzLWtleS0zMmJ5dGU=",
};

// Wrangler needs Node 22: the project's own `node` devDependency first on the PATH, so a bench
// also runs under an older system Node.
const toolEnv = {
  ...process.env,
  PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH}`,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
};

/** `.wrangler/bench-<name>`, emptied: where a bench's server keeps its D1, R2 and objects. */
export function freshDir(name) {
  const dir = path.join(root, ".wrangler", `bench-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

const memoryDirs = [];
/**
 * A fresh state dir in memory (/dev/shm where there is one), removed on exit, for a bench of
 * latencies: on disk every Durable Object write waits for this machine's fsync, which is not what
 * a deployed object pays. BENCH_STATE_DIR=/tmp measures the disk case.
 */
export function memoryDir(name) {
  const base = process.env.BENCH_STATE_DIR ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  const dir = mkdtempSync(path.join(base, `ofh-bench-${name}-`));
  memoryDirs.push(dir);
  return dir;
}

/**
 * The binding of every top-level [[d1_databases]] table of a wrangler config (not [env.*] ones):
 * enough TOML for the one shape wrangler.toml uses, so that a database added there (a shard) is
 * migrated by every bench without a change here.
 */
export function d1Bindings(config = path.join(root, "wrangler.toml")) {
  const bindings = [];
  let inD1 = false;
  for (const line of readFileSync(config, "utf8").split("\n")) {
    const header = line.match(/^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/);
    if (header) inD1 = header[1].trim() === "d1_databases" && line.trim().startsWith("[[");
    const binding = inD1 && line.match(/^\s*binding\s*=\s*"([^"]+)"/);
    if (binding) bindings.push(binding[1]);
  }
  if (bindings.length === 0) throw new Error(`${config} declares no [[d1_databases]]`);
  return bindings;
}

/** Applies its migrations to every D1 binding of the config (or to those named), locally, in `persist`. */
export function applyMigrations(persist, config = path.join(root, "wrangler.toml"), bindings = d1Bindings(config)) {
  for (const binding of bindings) {
    const run = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", binding, "--local", "--persist-to", persist, "--config", config], {
      cwd: root,
      env: toolEnv,
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`migrations of ${binding} failed:\n${run.stdout}\n${run.stderr}`);
  }
}

/**
 * The SQLite file of the local D1 database in `persist` (miniflare names it by a hash, not by
 * binding). A bench that writes straight into one asks for exactly one, so it stops with a clear
 * message the day wrangler.toml holds more, instead of seeding the wrong database.
 */
export function d1SqliteFile(persist) {
  const dir = path.join(persist, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1) throw new Error(`expected one local D1 database in ${dir}, found ${files.length}: seed through the Worker instead`);
  return path.join(dir, files[0]);
}

/**
 * wrangler.toml with its paths made absolute and `[alias]` entries added (and, given `main`, another
 * entry), written into `dir`: the service built with a bench-only module in place of one of its own (wrangler dev 4.155 ignores
 * its --alias flag). Nothing under src/ refers to the substitute, so no deployed build holds it.
 */
export function aliasedConfig(dir, aliases, { main } = {}) {
  let toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  // Another entry (a bench Worker, bench/*-worker.ts) in place of src/index.ts.
  if (main) toml = toml.replace(/^main = ".*"$/m, `main = ${JSON.stringify(main)}`);
  // Every path in it (the entry, each database's migrations, the assets) is relative to the config.
  for (const key of ["main", "migrations_dir", "directory"]) {
    const line = new RegExp(`^${key} = "(.*)"$`, "gm");
    if (!line.test(toml)) throw new Error(`wrangler.toml has no ${key} line to rebase`);
    toml = toml.replace(line, (_, value) => `${key} = ${JSON.stringify(path.join(root, value))}`);
  }
  toml += "\n[alias]\n";
  for (const [specifier, file] of Object.entries(aliases)) toml += `${JSON.stringify(specifier)} = ${JSON.stringify(path.join(root, file))}\n`;
  const file = path.join(dir, "wrangler.toml");
  writeFileSync(file, toml);
  return file;
}

/**
 * An HTTPS client for a local server (wrangler's certificate is self-signed: trusted for these
 * loopback calls only), on kept-alive connections. /admin/ paths carry the admin key.
 */
export function client(port, { host = "127.0.0.1", headers: always = {}, maxSockets = 64 } = {}) {
  const agent = new https.Agent({ keepAlive: true, maxSockets, rejectUnauthorized: false });
  function request(method, urlPath, body, headers = {}, timeoutMs = 0) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          host,
          port,
          method,
          path: urlPath,
          agent,
          headers: {
            accept: "application/json",
            ...(urlPath.startsWith("/admin/") ? { authorization: `Bearer ${SECRETS.ADMIN_API_KEY}` } : {}),
            ...(payload ? { "content-type": "application/json" } : {}),
            ...always,
            ...headers,
          },
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
            resolve({ status: res.statusCode, headers: res.headers, json, text });
          });
        },
      );
      req.on("error", reject);
      if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${urlPath}: no answer in ${timeoutMs} ms`)));
      req.end(payload);
    });
  }
  /** The answer's JSON, or an error naming the call when it is not a 200. */
  async function must(method, urlPath, body) {
    const res = await request(method, urlPath, body);
    if (res.status !== 200) throw new Error(`${method} ${urlPath}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.json;
  }
  return { request, must, agent };
}

const servers = [];
function stopAll() {
  for (const dev of servers.splice(0)) dev.stop();
  for (const dir of memoryDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on("exit", stopAll);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

/**
 * `wrangler dev` on 127.0.0.1:port over HTTPS (inspector on port + 1), its state in `persist`,
 * with the bench secrets; resolves once GET /admin/v1/stores answers 200. `entry` is a bench
 * Worker (bench/*-worker.ts), `config` another wrangler config (aliasedConfig). Stopped on exit.
 */
export async function startDev({ port, persist, entry, config, clientOptions, timeoutMs = 120_000 }) {
  const args = ["wrangler", "dev", ...(entry ? [entry] : []), ...(config ? ["--config", config] : [])];
  args.push("--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(port + 1), "--local-protocol", "https", "--persist-to", persist);
  args.push("--show-interactive-dev-session=false");
  for (const [name, value] of Object.entries(SECRETS)) args.push("--var", `${name}:${value}`);
  // Its own process group, so that stopping it also stops its workerd.
  const child = spawn("npx", args, { cwd: root, env: toolEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let log = "";
  const keep = (d) => (log = (log + d).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const dev = {
    ...client(port, clientOptions),
    port,
    /** wrangler's pid (workerdPids finds its workerd) and a promise of its exit. */
    pid: child.pid,
    exited,
    log: () => log.slice(-3000),
    stop() {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    },
  };
  servers.push(dev);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`wrangler dev exited (${child.exitCode ?? child.signalCode}):\n${dev.log()}`);
    // wrangler keeps running (watching for a fix) when the Worker does not build or start.
    const error = dev
      .log()
      .replace(/\x1b\[[0-9;]*m/g, "")
      .match(/✘ \[ERROR\].*/);
    if (error) throw new Error(`wrangler dev: ${error[0]}\n${dev.log()}`);
    try {
      if ((await dev.request("GET", "/admin/v1/stores", undefined, {}, 5000)).status === 200) return dev;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer within ${timeoutMs / 1000} s:\n${dev.log()}`);
    await sleep(500);
  }
}

/**
 * Runs a bench's body; on an error prints it with the servers' last log lines and exits 1.
 * Every server started is stopped either way.
 */
export async function main(body) {
  try {
    await body();
  } catch (error) {
    console.error(error);
    for (const dev of servers) console.error(dev.log());
    process.exitCode = 1;
  } finally {
    stopAll();
  }
}

/** The workerd processes under a process (a `wrangler dev`): the Worker, its objects and the local D1 and R2 run in them. */
export function workerdPids(rootPid) {
  const parent = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const under = (pid) => {
    for (let p = parent.get(pid); p && p !== 1; p = parent.get(p)) if (p === rootPid) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    try {
      return under(pid) && readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("workerd");
    } catch {
      return false;
    }
  });
}

/** The resident memory (MiB) of these processes together, at this moment; one gone counts 0. */
export function rssMiB(pids) {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kib / 1024;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What fn returns and how long it took (ms). */
export async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The q-quantile by rank (the sample below which q of them fall), 0 < q < 1. */
export function percentile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** An InsertOrder body a bench writes many of; `number` is its OrderSourceOrderNumber. */
export function sampleOrder(number) {
  return {
    BuyerEmailAddress: "jane.doe@example.com",
    BuyerPhoneNumber: "555-201-1234",
    OrderSource: "Web",
    OrderSourceOrderNumber: number,
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

/** Count, calls per second over `seconds`, p50 and p99 (ms) of a list of latencies. */
export function summarize(latencies, seconds) {
  return { n: latencies.length, rps: latencies.length / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/**
 * Closed loop: `clients` callers for `seconds`, each making its next call when its last one
 * answered. `call()` resolves to a response ({ status }); every status is counted.
 */
export async function closedLoop(call, clients, seconds) {
  const latencies = [];
  const statuses = {};
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const res = await call();
        latencies.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, statuses };
}

/**
 * Measures targets ({ name, call, status = 200, check?(res) }) interleaved, because the machine
 * is shared and its load drifts: latency with one client going round the targets call by call
 * (each round of samples sees the same moment's load), then throughput with `clients` callers in
 * short rounds in rotation. Throws on an unexpected status. Returns per target `single` and
 * `loaded` summaries and `samples` (the one-client latencies, in round order, for paired
 * differences).
 */
export async function interleaved(targets, { seconds, clients, rounds = 4 }) {
  const expect = (t, res) => {
    if (res.status !== (t.status ?? 200)) throw new Error(`${t.name}: ${res.status} ${res.text.slice(0, 300)}`);
    t.check?.(res);
  };
  for (const t of targets) {
    expect(t, await t.call());
    await closedLoop(t.call, clients, 1); // warm-up: JIT, connections, objects
  }
  const samples = targets.map(() => []);
  const deadline = performance.now() + seconds * 1000 * targets.length;
  while (performance.now() < deadline) {
    for (const [i, t] of targets.entries()) {
      const start = performance.now();
      const res = await t.call();
      samples[i].push(performance.now() - start);
      expect(t, res);
    }
  }
  const loaded = targets.map(() => ({ latencies: [], seconds: 0, statuses: {} }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const r = await closedLoop(t.call, clients, seconds / rounds);
      loaded[i].latencies.push(...r.latencies);
      loaded[i].seconds += r.seconds;
      for (const [status, n] of Object.entries(r.statuses)) loaded[i].statuses[status] = (loaded[i].statuses[status] ?? 0) + n;
    }
  }
  return targets.map((t, i) => ({
    name: t.name,
    samples: samples[i],
    single: summarize(samples[i], samples[i].reduce((a, b) => a + b, 0) / 1000),
    loaded: { ...summarize(loaded[i].latencies, loaded[i].seconds), statuses: loaded[i].statuses },
  }));
}

/** The median of a[k] - b[k]: steadier than the difference of the medians when the load drifts. */
export function pairedMedian(a, b) {
  return median(a.slice(0, b.length).map((v, k) => v - b[k]));
}

/**
 * A fixed-width text table: columns [label, width] (the first left-aligned, the others right).
 * Returns print(...cells) for a row; the header is printed at once.
 */
export function table(columns) {
  const line = (cells) => cells.map((cell, i) => (i === 0 ? String(cell).padEnd(columns[i][1]) : String(cell).padStart(columns[i][1]))).join("");
  console.log(line(columns.map(([label]) => label)));
  return (...cells) => console.log(line(cells));
}

/** bench/results/<name>.json: the run's figures, for comparing runs. */
export function writeResult(name, data) {
  mkdirSync(path.join(root, "bench", "results"), { recursive: true });
  writeFileSync(path.join(root, "bench", "results", `${name}.json`), JSON.stringify({ at: new Date().toISOString(), ...data }, null, 2));
}
