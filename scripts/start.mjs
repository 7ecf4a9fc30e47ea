#!/usr/bin/env node
// npm start: random local secrets in .dev.vars (written when missing or short, never copied from
// .dev.vars.example), local D1 migrations (directory and shards; their output kept in
// .wrangler/migrations.log), `wrangler dev` over HTTPS, and on an empty database a demo store, a
// demo consumer key with every scope, a 20-product catalog with stock, five orders of catalog Skus,
// a simulated marketplace source and a compiled Google Shopping feed, made through the service's
// own admin and order APIs. The banner is the last thing printed at start-up; from then on
// wrangler's own lines follow it, with every /v1 token in a path replaced by <token> (on screen and
// in .wrangler/dev.log). Extra arguments go to `wrangler dev`.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";

const args = process.argv.slice(2);
const portArg = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
const port = portArg < 0 ? 8787 : Number(args[portArg].includes("=") ? args[portArg].split("=")[1] : args[portArg + 1]);
const base = `https://localhost:${port}`;
const MIGRATIONS_LOG = ".wrangler/migrations.log";
const DEV_LOG = ".wrangler/dev.log";
mkdirSync(".wrangler", { recursive: true });

// The service refuses to serve with a secret under 32 bytes (docs/security.md): local ones are
// made here from 32 random bytes each, never copied from the example file.
const strong = {
  ADMIN_API_KEY: () => randomBytes(32).toString("base64url"),
  TOKEN_SIGNING_SECRET: () => randomBytes(32).toString("base64url"),
  SOURCE_SETTINGS_KEY: () => randomBytes(32).toString("base64"),
};
// SOURCE_SETTINGS_KEY is an AES-256-GCM key: the base64 of exactly 32 bytes (src/lib/crypto.ts).
const usable = (name, value) =>
  !value.startsWith("REPLACE_ME") &&
  (name === "SOURCE_SETTINGS_KEY" ? /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, "base64").length === 32 : Buffer.byteLength(value) >= 32);
const readVars = () =>
  Object.fromEntries(
    (existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "")
      .split("\n")
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1).trim()]),
  );
const existing = readVars();
const weak = Object.keys(strong).filter((name) => !existing[name] || !usable(name, existing[name]));
if (weak.length > 0) {
  const kept = Object.entries(existing).filter(([name]) => !weak.includes(name));
  const made = weak.map((name) => [name, strong[name]()]);
  writeFileSync(".dev.vars", `${[...kept, ...made].map(([k, v]) => `${k}=${v}`).join("\n")}\n`);
  console.log(`Wrote random ${weak.join(", ")} to .dev.vars (local secrets; never commit it).`);
}
const vars = readVars();

/** A /v1 token in a logged path (`PUT /v1/<token>/Orders/...`) becomes `<token>`; /v1/Authorization stays. */
const redactTokens = (text) => text.replace(/(^|[\s"'(=])\/v1\/(?!authorization(?=[\s/?"')]|$))[^\s/?"')]+/gim, "$1/v1/<token>");

// The directory and every shard (scripts/migrate.mjs): a table per migration per database, so
// into a log file, with one line on the screen.
process.stdout.write("Applying migrations to the local databases... ");
const migrated = await new Promise((resolve) => {
  const log = createWriteStream(MIGRATIONS_LOG);
  const run = spawn(process.execPath, ["scripts/migrate.mjs", "--local"], { stdio: ["ignore", "pipe", "pipe"] });
  run.stdout.pipe(log, { end: false });
  run.stderr.pipe(log, { end: false });
  run.on("close", (code) => log.end(() => resolve(code ?? 1)));
});
if (migrated !== 0) {
  console.log(`failed.\n${readFileSync(MIGRATIONS_LOG, "utf8").split("\n").slice(-30).join("\n")}\nThe whole output: ${MIGRATIONS_LOG}`);
  process.exit(migrated);
}
console.log(`done (output in ${MIGRATIONS_LOG}).`);

// wrangler dev: its start-up lines and the seeding's access log go to the log file only, so the
// banner is the last thing on the screen; after it, its lines go to both.
process.stdout.write("Starting the local server (wrangler dev) and the demo data... ");
const devLog = createWriteStream(DEV_LOG);
let onScreen = false;
// wrangler writes a request's access line after the answer has gone out: the banner waits until
// every answered seeding call has its line, so none lands below the banner.
let answered = 0;
let logged = 0;
const dev = spawn("npx", ["wrangler", "dev", "--local-protocol", "https", ...(portArg < 0 ? ["--port", String(port)] : []), ...args], {
  stdio: ["inherit", "pipe", "pipe"],
});
for (const [from, to] of [
  [dev.stdout, process.stdout],
  [dev.stderr, process.stderr],
]) {
  from.setEncoding("utf8");
  from.on("data", (chunk) => {
    const text = redactTokens(chunk);
    logged += text.match(/\[wrangler:info\] [A-Z]+ \//g)?.length ?? 0;
    devLog.write(text);
    if (onScreen) to.write(text);
  });
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => {
  if (!onScreen) console.log(`\nwrangler dev stopped (exit ${code}); its output: ${DEV_LOG}`);
  process.exit(code ?? 0);
});

/** wrangler's local certificate is self-signed: trust it for these loopback calls only. */
function request(method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      `${base}${path}`,
      {
        method,
        rejectUnauthorized: false,
        headers: { accept: "application/json", ...(payload ? { "content-type": "application/json" } : {}), ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          answered++;
          try {
            resolve({ status: res.statusCode, json: JSON.parse(text) });
          } catch {
            resolve({ status: res.statusCode, json: null });
          }
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const adminHeaders = { authorization: `Bearer ${vars.ADMIN_API_KEY}` };

async function waitForServer() {
  for (let i = 0; i < 600; i++) {
    try {
      await request("GET", "/admin/v1/stores", undefined, adminHeaders);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`wrangler dev did not start within 5 minutes (its output: ${DEV_LOG})`);
}

/** A call the seeding needs: its JSON, or an error naming the call and the service's Message. */
async function must(method, path, body, headers = adminHeaders) {
  const res = await request(method, path, body, headers);
  if (res.status !== 200) throw new Error(`${method} ${path.replace(/^\/v1\/[^/]+/, "/v1/<token>")} answered ${res.status}: ${res.json?.Message ?? "no JSON"}`);
  return res.json;
}

const DEMO_FILE = ".wrangler/demo-key.json";

async function seed() {
  await waitForServer();
  const stores = await must("GET", "/admin/v1/stores");
  if (stores.Stores?.length > 0) {
    if (existsSync(DEMO_FILE)) return JSON.parse(readFileSync(DEMO_FILE, "utf8"));
    return null;
  }
  // Every scope the service has, as its own document lists them (new scopes included).
  const document = await must("GET", "/openapi.json", undefined, {});
  const scopes = document.paths["/admin/v1/stores/{storeId}/consumer-keys"].post.requestBody.content["application/json"].schema.properties.Scopes.items.enum;
  const storeId = (await must("POST", "/admin/v1/stores", { Name: "Demo store" })).Store.StoreId;
  const key = await must("POST", `/admin/v1/stores/${storeId}/consumer-keys`, { Name: "Demo key", Scopes: scopes, Lifespan: "NeverExpires" });
  const demo = { storeId, key: key.ConsumerKey.Key, feedId: null };
  // The catalog first, with stock: every order below lowers its lines' Skus.
  await must("PUT", `/admin/v1/stores/${storeId}/products`, { Products: demoProducts() });
  const token = (await must("PUT", "/v1/Authorization", { ConsumerKey: demo.key }, {})).Token;
  for (const order of demoOrders()) await must("PUT", `/v1/${token}/Orders/InsertOrder`, order, {});
  // A simulated marketplace selling the catalog's first 12 Skus: its first import runs now, the
  // cron's (or POST /admin/v1/sync) afterwards.
  await must("POST", `/admin/v1/stores/${storeId}/sources`, { Type: "simulated", Name: "Demo Marketplace", Settings: { ordersPerHour: 1 } });
  await must("POST", "/admin/v1/sync");
  // A Google Shopping feed compiled from the catalog.
  const feed = await must("POST", `/admin/v1/stores/${storeId}/feeds`, { Name: "Google Shopping US", Format: "csv" });
  demo.feedId = feed.Feed.FeedId;
  await must("POST", `/admin/v1/feeds/${demo.feedId}/compile`);
  writeFileSync(DEMO_FILE, JSON.stringify(demo));
  return demo;
}

/** The GS1 check digit of a GTIN's other digits (mod 10, weights 3 and 1 from the right). */
function withCheckDigit(digits) {
  const sum = [...digits].reverse().reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return digits + String((10 - (sum % 10)) % 10);
}

/**
 * 20 products: the 12 Skus the simulated marketplace sells (its catalog, so every imported order
 * meets one) and 8 more colours and sizes. GTIN-13s under GS1's example company prefix 0614141,
 * unique, each with its check digit; one product without a gtin and one out of stock, so the
 * feed shows a warning and the availability rule.
 */
function demoProducts() {
  const products = [
    ["MUG-BLU-12", "Stoneware mug, blue, 12 oz", 12.5],
    ["TEE-BLK-M", "Organic cotton T-shirt, black, M", 19.99],
    ["BTL-STL-750", "Insulated steel bottle, 750 ml", 24.95],
    ["LMP-DSK-LED", "LED desk lamp with dimmer", 39.0],
    ["BAG-CNV-TOTE", "Canvas tote bag", 14.0],
    ["NTB-A5-DOT", "A5 dotted notebook", 8.75],
    ["CBL-USBC-2M", "USB-C cable, 2 m", 11.49],
    ["SCK-WOOL-L", "Merino socks, L, 3 pairs", 22.0],
    ["CND-SOY-LAV", "Soy candle, lavender", 16.5],
    ["PLN-CER-S", "Ceramic planter, small", 18.25],
    ["HDP-BT-NC", "Bluetooth headphones, noise cancelling", 89.99],
    ["KTL-ELC-1L", "Electric kettle, 1 l", 34.9],
    ["MUG-GRN-12", "Stoneware mug, green, 12 oz", 12.5],
    ["MUG-GRY-12", "Stoneware mug, grey, 12 oz", 12.5],
    ["TEE-WHT-M", "Organic cotton T-shirt, white, M", 19.99],
    ["TEE-GRY-L", "Organic cotton T-shirt, grey, L", 19.99],
    ["BTL-STL-500", "Insulated steel bottle, 500 ml", 21.95],
    ["NTB-A5-LIN", "A5 lined notebook", 8.75],
    ["CND-SOY-CED", "Soy candle, cedar", 16.5],
    ["PLN-CER-L", "Ceramic planter, large", 29.0],
  ];
  return products.map(([sku, title, price], i) => {
    const slug = sku.toLowerCase();
    return {
      Sku: sku,
      Title: title,
      Description: `${title}, from the demo store.`,
      Price: price,
      Currency: "USD",
      Link: `https://shop.example.com/p/${slug}`,
      ImageLink: `https://shop.example.com/img/${slug}.jpg`,
      Availability: sku === "PLN-CER-L" ? "out_of_stock" : "in_stock",
      Brand: "Demo Goods",
      Gtin: sku === "NTB-A5-LIN" ? "" : withCheckDigit(`0614141${String(101 + i).padStart(5, "0")}`),
      Quantity: sku === "PLN-CER-L" ? 0 : 250 + 10 * i,
    };
  });
}

function demoOrders() {
  const people = [
    ["Ada", "Lovelace", "London", "ENG", "GB", "NW1 6XE"],
    ["Grace", "Hopper", "Arlington", "VA", "US", "22201"],
    ["Alan", "Turing", "Manchester", "ENG", "GB", "M13 9PL"],
    ["Katherine", "Johnson", "Hampton", "VA", "US", "23666"],
    ["Edsger", "Dijkstra", "Austin", "TX", "US", "78712"],
  ];
  const catalog = demoProducts();
  const items = ["MUG-GRN-12", "TEE-WHT-M", "NTB-A5-DOT"].map((sku) => catalog.find((p) => p.Sku === sku));
  return people.map(([first, last, city, state, country, postal], i) => {
    const lines = items.slice(0, 1 + (i % 3)).map((p) => ({ Sku: p.Sku, Name: p.Title, Quantity: 1 + (i % 2), UnitPrice: p.Price }));
    const sub = Math.round(lines.reduce((s, l) => s + l.Quantity * l.UnitPrice, 0) * 100) / 100;
    return {
      BuyerEmailAddress: `${first.toLowerCase()}@example.com`,
      BuyerPhoneNumber: `555-010-${1000 + i}`,
      OrderSource: "Demo Shop",
      OrderSourceOrderNumber: `DEMO-${1001 + i}`,
      DateCreatedInOrderSource: new Date(Date.now() - (i + 1) * 3_600_000).toISOString(),
      ShipToCompanyName: null,
      FirstName: first,
      LastName: last,
      Street1: `${10 + i} Example Street`,
      City: city,
      StateOrProvince: state,
      Country: country,
      PostalCode: postal,
      ShippingMethod: "Standard",
      GrandTotal: Math.round((sub + 4.99) * 100) / 100,
      SubTotal: sub,
      ShippingTotal: 4.99,
      OrderItems: lines,
    };
  });
}

/** Until wrangler has logged every answered call (at most 10 s: a missing line only costs a stray line on screen). */
async function accessLogsCaughtUp() {
  for (let waited = 0; logged < answered && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
}

seed()
  .then(async (demo) => {
    await accessLogsCaughtUp();
    const links = `
 Operator console:  ${base}/console  (sign in with ADMIN_API_KEY from .dev.vars: ${vars.ADMIN_API_KEY})
 API reference:     ${base}/docs     (OpenAPI document: ${base}/openapi.json)
 Sync now:          curl -sk -X POST ${base}/admin/v1/sync -H "Authorization: Bearer $(sed -n 's/^ADMIN_API_KEY=//p' .dev.vars)"
 Logs:              ${DEV_LOG} (the server's, tokens replaced by <token>), ${MIGRATIONS_LOG}`;
    console.log("done.");
    if (!demo) {
      console.log(`\nThe local database already has stores; no demo key was recorded in ${DEMO_FILE}.${links}\n`);
    } else {
      const today = new Date().toISOString().slice(0, 10);
      console.log(`
────────────────────────────────────────────────────────────────────────
 Order and feed hub running at ${base} (self-signed certificate: curl -k)
 Demo store:        ${demo.storeId}
 Demo consumer key: ${demo.key}  (every scope)
${links}

 TOKEN=$(curl -sk -X PUT ${base}/v1/Authorization -H 'content-type: application/json' \\
   -d '{"ConsumerKey":"${demo.key}"}' | sed -E 's/.*"Token":"([^"]+)".*/\\1/')
 curl -sk "${base}/v1/$TOKEN/Orders?fromDate=2000-01-01&toDate=${today}T23:59:59Z&status=NEW&pageSize=10"${
   demo.feedId
     ? `
 curl -sk "${base}/v1/$TOKEN/feeds/${demo.feedId}/download"`
     : ""
 }
────────────────────────────────────────────────────────────────────────`);
    }
  })
  .catch((error) => console.log(`\nSeeding the demo data failed: ${error.message}\nThe server's output: ${DEV_LOG}`))
  .finally(() => {
    onScreen = true;
  });
