// The first ten minutes (issue 34), as a newcomer meets them: `npm start` (scripts/start.mjs) in a
// fresh copy of the repository, without .dev.vars and with an empty database. It writes random
// secrets, keeps the migrations' output in a log file, prints its banner last, and seeds a demo
// that holds together: 20 products with unique Skus and valid unique GTINs, every order's Skus in
// the catalog (so stock and feeds meet them), a key with every scope. Then the commands the banner
// and the docs print are run as printed (with this test's port for 8787), and the logs are read
// for tokens. The server's /favicon.ico answers.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { isValid as isValidGtin } from "gtin";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loopbackFetch, request } from "./server";

const REPO = path.resolve(".");
const PORT = Number(process.env.BROWSER_TEST_PORT ?? 8821);
const BASE = `https://localhost:${PORT}`;
const RULE = "─".repeat(72);

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field as the service documents them
type Json = any;

let dir: string;
let child: ChildProcess;
/** Everything `npm start` printed, stdout and stderr in order. */
let screen = "";
let atBanner = "";

const vars = () =>
  Object.fromEntries(
    readFileSync(path.join(dir, ".dev.vars"), "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
const adminCall = async (method: string, pathname: string, body?: unknown) => {
  const res = await request(BASE, method, `/admin/v1${pathname}`, { body, headers: { authorization: `Bearer ${vars().ADMIN_API_KEY}` } });
  expect(res.status, `${method} ${pathname}: ${res.text.slice(0, 300)}`).toBe(200);
  return res.json as Record<string, Json>;
};
/** A shell command run as printed, from the copy's folder (where .dev.vars is). */
const sh = (command: string) => {
  const run = spawnSync("bash", ["-c", command], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  expect(run.status, `${command}\n${run.stderr}`).toBe(0);
  return run.stdout;
};

beforeAll(async () => {
  // A fresh clone: the repository's files, its installed node_modules, no .dev.vars, no .wrangler.
  dir = mkdtempSync(path.join(os.tmpdir(), "hub-first-run-"));
  // Copies, so that edits to the working tree meanwhile do not reload this server; node_modules is linked.
  symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"));
  for (const name of ["src", "public", "migrations", "scripts"]) cpSync(path.join(REPO, name), path.join(dir, name), { recursive: true });
  for (const name of ["wrangler.toml", "package.json", "tsconfig.json", ".dev.vars.example"]) copyFileSync(path.join(REPO, name), path.join(dir, name));
  child = spawn("node", ["scripts/start.mjs", "--port", String(PORT), "--inspector-port", String(PORT + 1)], {
    cwd: dir,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (screen += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (screen += d));
  const deadline = Date.now() + 1_100_000;
  while (screen.split(RULE).length < 3) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${screen}`);
    if (/Seeding the demo data failed/.test(screen)) throw new Error(screen);
    if (Date.now() > deadline) throw new Error(`no banner within the time:\n${screen}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  atBanner = screen;
}, 1_200_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid, "SIGINT");
    } catch {
      // Gone already.
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Gone already.
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("writes random secrets, keeps the migrations in a log file and ends with the banner", async () => {
  // Nothing printed after the banner while nobody calls the server.
  await new Promise((r) => setTimeout(r, 3_000));
  expect(screen).toBe(atBanner);
  const lines = atBanner.trimEnd().split("\n");
  expect(lines.at(-1)).toBe(RULE);
  expect(lines.length, atBanner).toBeLessThan(30);
  expect(atBanner).not.toMatch(/[┌│└]/);
  expect(atBanner).toContain("Wrote random ADMIN_API_KEY, TOKEN_SIGNING_SECRET, SOURCE_SETTINGS_KEY to .dev.vars");
  expect(atBanner).toContain("done (output in .wrangler/migrations.log).");

  const secrets = vars();
  const example = readFileSync(path.join(REPO, ".dev.vars.example"), "utf8");
  expect(Object.keys(secrets).sort()).toEqual(["ADMIN_API_KEY", "SOURCE_SETTINGS_KEY", "TOKEN_SIGNING_SECRET"]);
  expect(Buffer.from(secrets.ADMIN_API_KEY!, "base64url")).toHaveLength(32);
  expect(Buffer.from(secrets.TOKEN_SIGNING_SECRET!, "base64url")).toHaveLength(32);
  expect(Buffer.from(secrets.SOURCE_SETTINGS_KEY!, "base64")).toHaveLength(32);
  for (const value of Object.values(secrets)) expect(example).not.toContain(value);

  const migrations = readFileSync(path.join(dir, ".wrangler/migrations.log"), "utf8");
  for (const database of ["DB", "SHARD_1", "SHARD_2", "SHARD_3"]) expect(migrations).toContain(`== ${database} (local)`);
  expect(migrations).toContain("0000_init.sql");
});

it("seeds a demo that holds together: 20 products, valid unique GTINs, orders of catalog Skus, a key with every scope", async () => {
  const demo = JSON.parse(readFileSync(path.join(dir, ".wrangler/demo-key.json"), "utf8")) as { storeId: string; key: string; feedId: string };
  expect(atBanner).toContain(`Demo consumer key: ${demo.key}`);

  // Every scope the document lists, InventoryUpdate among them.
  const document = (await request(BASE, "GET", "/openapi.json")).json as Json;
  const scopes = document.paths["/admin/v1/stores/{storeId}/consumer-keys"].post.requestBody.content["application/json"].schema.properties.Scopes.items
    .enum as string[];
  expect(scopes).toContain("InventoryUpdate");
  const keys = (await adminCall("GET", `/stores/${demo.storeId}/consumer-keys`)).ConsumerKeys as { Scopes: string[] }[];
  expect(keys).toHaveLength(1);
  expect([...keys[0]!.Scopes].sort()).toEqual([...scopes].sort());

  const products = (await adminCall("GET", `/stores/${demo.storeId}/products?limit=200`)).Products as {
    Sku: string;
    Gtin: string | null;
    Quantity: number | null;
  }[];
  expect(products).toHaveLength(20);
  const skus = products.map((p) => p.Sku);
  expect(new Set(skus).size).toBe(20);
  const gtins = products.map((p) => p.Gtin).filter((g): g is string => !!g);
  expect(gtins.length).toBeGreaterThanOrEqual(19);
  expect(new Set(gtins).size).toBe(gtins.length);
  for (const gtin of gtins) expect(isValidGtin(gtin), gtin).toBe(true);

  // Every order's every line names a catalog Sku: the inserted ones and the marketplace's.
  const orders: { OrderSource: string; OrderStatus: string; OrderItems: { Sku: string }[] }[] = [];
  for (let page = 1; ; page++) {
    const got = (await adminCall("GET", `/stores/${demo.storeId}/orders?page=${page}`)).Orders as typeof orders;
    orders.push(...got);
    if (got.length < 100) break;
  }
  expect(new Set(orders.map((o) => o.OrderSource))).toEqual(new Set(["Demo Shop", "Demo Marketplace"]));
  expect(orders.length).toBeGreaterThan(100);
  const missing = orders.flatMap((o) => o.OrderItems.map((i) => i.Sku)).filter((sku) => !skus.includes(sku));
  expect(missing).toEqual([]);

  // The feed: compiled from all 20, none refused, no GTIN complaint but the one left without.
  const feed = (await adminCall("GET", `/feeds/${demo.feedId}`)).Feed as {
    Status: string;
    CompilationValidCount: number;
    CompilationErrorCount: number;
    Issues: { Sku: string; Warnings: string[] }[];
  };
  expect(feed).toMatchObject({ Status: "Completed", CompilationValidCount: 20, CompilationErrorCount: 0 });
  expect(feed.Issues.map((i) => [i.Sku, i.Warnings])).toEqual([[products.find((p) => !p.Gtin)!.Sku, ["gtin is recommended"]]]);

  // The demo key may set stock, and an order of a catalog Sku lowers it.
  const token = (await request(BASE, "PUT", "/v1/Authorization", { body: { ConsumerKey: demo.key } })).json!.Token as string;
  const set = await request(BASE, "PUT", `/v1/${token}/Inventory`, { body: { Items: [{ Sku: skus[0], Quantity: 40 }] } });
  expect(set.status, set.text).toBe(200);
  const order = {
    BuyerEmailAddress: "new@example.com",
    BuyerPhoneNumber: "555-0100",
    OrderSource: "Demo Shop",
    OrderSourceOrderNumber: "FIRST-RUN-1",
    DateCreatedInOrderSource: new Date().toISOString(),
    ShipToCompanyName: null,
    FirstName: "Newcomer",
    LastName: "One",
    Street1: "1 Main St",
    City: "Springfield",
    StateOrProvince: "IL",
    Country: "US",
    PostalCode: "62701",
    ShippingMethod: "Standard",
    GrandTotal: 30,
    SubTotal: 30,
    OrderItems: [{ Sku: skus[0], Name: "First product", Quantity: 3, UnitPrice: 10 }],
  };
  expect((await request(BASE, "PUT", `/v1/${token}/Orders/InsertOrder`, { body: order })).status).toBe(200);
  expect(((await adminCall("GET", `/stores/${demo.storeId}/products/${encodeURIComponent(skus[0]!)}`)).Product as { Quantity: number }).Quantity).toBe(37);
});

it("runs the banner's and the docs' commands as printed, and no token reaches what the server logs", async () => {
  // The banner's curl lines: a token from the demo key, New orders, the feed's file.
  const banner = atBanner.slice(atBanner.indexOf(RULE));
  const tokenLines = banner.slice(banner.indexOf(" TOKEN=$(")).split("\n").slice(0, 2).join("\n");
  expect(tokenLines).toMatch(/^ TOKEN=\$\(curl .*\\\n {3}-d .*\)$/);
  const curls = banner.split("\n").filter((l) => l.startsWith(" curl "));
  expect(curls).toHaveLength(2);
  const token = sh(`${tokenLines}\nprintf %s "$TOKEN"`);
  expect(token).toMatch(/^[A-Za-z0-9._~-]{20,}$/);
  const list = JSON.parse(sh(`${tokenLines}\n${curls[0]}`)) as { Success: boolean; Orders: { OrderStatus: string }[]; Paging: { PageSize: number } };
  expect(list.Success).toBe(true);
  expect(list.Paging.PageSize).toBe(10);
  expect(list.Orders).toHaveLength(10);
  expect(new Set(list.Orders.map((o) => o.OrderStatus))).toEqual(new Set(["New"]));
  const file = parse(sh(`${tokenLines}\n${curls[1]}`), { columns: true }) as Record<string, string>[];
  expect(file).toHaveLength(20);
  expect(Object.keys(file[0]!)).toEqual(["id", "title", "description", "link", "image_link", "price", "availability", "brand", "gtin"]);

  // The sync line of the banner, and every local curl command of the docs, as printed.
  const docs = ["README.md", "docs/development.md"].flatMap((name) => {
    const text = readFileSync(path.join(REPO, name), "utf8");
    return [...text.matchAll(/^(curl [^\n]*localhost:8787[^\n]*)$/gm)].map((m) => m[1]!.replaceAll("localhost:8787", `localhost:${PORT}`));
  });
  expect(docs.length).toBeGreaterThanOrEqual(1);
  const syncLine = /^ Sync now: +(curl .*)$/m.exec(banner)![1]!;
  for (const command of [syncLine, ...docs]) {
    const answer = JSON.parse(sh(command)) as { Success: boolean };
    expect(answer.Success, command).toBe(true);
  }

  // The calls with a token went through wrangler's access log: on screen and in its log file the
  // token is <token>, the path is still there.
  await expect.poll(() => screen.slice(atBanner.length), { timeout: 20_000 }).toMatch(/GET \/v1\/<token>\/feeds\/[^/\s]+\/download/);
  expect(screen).not.toContain(token);
  expect(screen).not.toContain(`/v1/${token.slice(0, 12)}`);
  const devLog = readFileSync(path.join(dir, ".wrangler/dev.log"), "utf8");
  expect(devLog).toMatch(/PUT \/v1\/<token>\/Orders\/InsertOrder/);
  expect(devLog).not.toContain(token);
  expect(existsSync(path.join(dir, ".wrangler/migrations.log"))).toBe(true);
});

it("answers /favicon.ico (no 404 on any console page)", async () => {
  const icon = await loopbackFetch(new Request(`${BASE}/favicon.ico`, { headers: { accept: "image/*" } }));
  expect(icon.status).toBe(200);
  expect(icon.headers.get("content-type")).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
  // An ICO file: reserved 0, type 1 (icon), at least one image.
  expect([...new Uint8Array(await icon.arrayBuffer()).slice(0, 5)]).toEqual([0, 0, 1, 0, 1]);
});
