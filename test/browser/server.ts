// A real local server for the tests that run in Node (browser, OpenAPI validity, typed client
// freshness, a generated client's calls through loopbackFetch): `wrangler dev --local-protocol
// https` on its own port and its own state directory, migrations applied, started once per file,
// ready when it answers, killed (its whole process group) at the end. Ports come from BROWSER_TEST_PORT (default 8821; the inspector uses the next).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";

export const ADMIN_KEY = "browser-test-admin-key-0123456789abcdef";
const SECRETS = {
  ADMIN_API_KEY: ADMIN_KEY,
  TOKEN_SIGNING_SECRET: "browser-test-token-signing-secret-0123456789",
  SOURCE_SETTINGS_KEY: "YnJvd3Nlci10ZXN0LXNvdXJjZS1zZXR0aW5ncy1rZXk=",
};

export interface Server {
  base: string;
  stop(): Promise<void>;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown> | null;
}

/** A request to the local server (its certificate is wrangler's own, trusted for loopback only). */
export function request(base: string, method: string, pathname: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = https.request(
      `${base}${pathname}`,
      {
        method,
        rejectUnauthorized: false,
        timeout: 30_000,
        headers: { accept: "application/json", ...(payload ? { "content-type": "application/json" } : {}), ...init.headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          let json: Record<string, unknown> | null = null;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${pathname}: no answer within 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * fetch() for a generated client: the same request, sent to the local server with its own
 * certificate trusted (loopback only), answered as a standard Response.
 */
export async function loopbackFetch(input: Request): Promise<Response> {
  const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
  return new Promise((resolve, reject) => {
    const req = https.request(
      input.url,
      { method: input.method, headers: Object.fromEntries(input.headers), rejectUnauthorized: false, timeout: 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) headers.append(name, v);
          const status = res.statusCode ?? 0;
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${input.method} ${input.url}: no answer within 30 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

export async function startServer(): Promise<Server> {
  const port = Number(process.env.BROWSER_TEST_PORT ?? 8821);
  const base = `https://localhost:${port}`;
  const state = mkdtempSync(path.join(os.tmpdir(), "hub-browser-"));
  const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
  // One schema in the directory and in every shard wrangler.toml declares.
  for (const database of ["DB", "SHARD_1", "SHARD_2", "SHARD_3"]) {
    const migrate = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", database, "--local", "--persist-to", state], { env, encoding: "utf8" });
    if (migrate.status !== 0) throw new Error(`migrations of ${database} failed: ${migrate.stderr || migrate.stdout}`);
  }
  const vars = Object.entries(SECRETS).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child: ChildProcess = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--local-protocol",
      "https",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(port + 1),
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      ...vars,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout?.on("data", (d) => (log = (log + d).slice(-20_000)));
  child.stderr?.on("data", (d) => (log = (log + d).slice(-20_000)));
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // Already gone.
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(state, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`wrangler dev exited with ${child.exitCode}:\n${log}`);
    }
    try {
      const res = await request(base, "GET", "/admin/v1/maintenance", { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      if (res.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer within 120 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { base, stop };
}
