#!/usr/bin/env node
// npm start: local secrets, local D1 migrations (directory and shards), `wrangler dev` over HTTPS, and on an empty
// database a demo store, a demo consumer key (all scopes) and a handful of orders, made through
// the service's own admin and order APIs. Extra arguments go to `wrangler dev`.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";

const args = process.argv.slice(2);
const portArg = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
const port = portArg < 0 ? 8787 : Number(args[portArg].includes("=") ? args[portArg].split("=")[1] : args[portArg + 1]);
const base = `https://localhost:${port}`;

// The service refuses to serve with a secret under 32 bytes (docs/security.md): local ones are
// made here from 32 random bytes each, never copied from the example file.
const strong = {
  ADMIN_API_KEY: () => randomBytes(32).toString("base64url"),
  TOKEN_SIGNING_SECRET: () => randomBytes(32).toString("base64url"),
  SOURCE_SETTINGS_KEY: () => randomBytes(32).toString("base64"),
};
const secretBytes = (name, value) => (name === "SOURCE_SETTINGS_KEY" ? Buffer.from(value, "base64").length : Buffer.byteLength(value));
const readVars = () =>
  Object.fromEntries(
    (existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "")
      .split("\n")
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1).trim()]),
  );
const existing = readVars();
const weak = Object.keys(strong).filter((name) => !existing[name] || secretBytes(name, existing[name]) < 32);
if (weak.length > 0) {
  const kept = Object.entries(existing).filter(([name]) => !weak.includes(name));
  const made = weak.map((name) => [name, strong[name]()]);
  writeFileSync(".dev.vars", `${[...kept, ...made].map(([k, v]) => `${k}=${v}`).join("\n")}\n`);
  console.log(`Wrote ${weak.join(", ")} to .dev.vars (random local secrets; never commit it).`);
}
const vars = readVars();

// The directory and every shard (scripts/migrate.mjs).
const migrate = spawnSync(process.execPath, ["scripts/migrate.mjs", "--local"], { stdio: "inherit" });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const dev = spawn("npx", ["wrangler", "dev", "--local-protocol", "https", ...(portArg < 0 ? ["--port", String(port)] : []), ...args], {
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));

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
  for (let i = 0; i < 120; i++) {
    try {
      await request("GET", "/admin/v1/stores", undefined, adminHeaders);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error("wrangler dev did not start within 60 s");
}

const DEMO_FILE = ".wrangler/demo-key.json";

async function seed() {
  await waitForServer();
  const stores = await request("GET", "/admin/v1/stores", undefined, adminHeaders);
  if (stores.json?.Stores?.length > 0) {
    if (existsSync(DEMO_FILE)) return JSON.parse(readFileSync(DEMO_FILE, "utf8"));
    return null;
  }
  const store = await request("POST", "/admin/v1/stores", { Name: "Demo store" }, adminHeaders);
  const storeId = store.json.Store.StoreId;
  const key = await request(
    "POST",
    `/admin/v1/stores/${storeId}/consumer-keys`,
    { Name: "Demo key", Scopes: ["FeedsRead", "OrdersCreate", "OrdersRead", "OrdersUpdate"], Lifespan: "NeverExpires" },
    adminHeaders,
  );
  const demo = { storeId, key: key.json.ConsumerKey.Key, feedId: null };
  const token = (await request("PUT", "/v1/Authorization", { ConsumerKey: demo.key })).json.Token;
  for (const order of demoOrders()) await request("PUT", `/v1/${token}/Orders/InsertOrder`, order);
  // A simulated marketplace: the cron (or POST /admin/v1/sync) imports its orders.
  await request("POST", `/admin/v1/stores/${storeId}/sources`, { Type: "simulated", Name: "Demo Marketplace", Settings: { ordersPerHour: 1 } }, adminHeaders);
  await request("POST", "/admin/v1/sync", undefined, adminHeaders);
  // A small catalog and a Google Shopping feed compiled from it.
  await request("PUT", `/admin/v1/stores/${storeId}/products`, { Products: demoProducts() }, adminHeaders);
  const feed = await request("POST", `/admin/v1/stores/${storeId}/feeds`, { Name: "Google Shopping US", Format: "csv" }, adminHeaders);
  demo.feedId = feed.json?.Feed?.FeedId ?? null;
  if (demo.feedId) await request("POST", `/admin/v1/feeds/${demo.feedId}/compile`, undefined, adminHeaders);
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo));
  return demo;
}

function demoProducts() {
  const colours = ["Blue", "Grey", "Green", "Black", "White"];
  const kinds = [
    ["MUG", "ceramic mug, 12 oz", 12.5],
    ["TEE", "cotton T-shirt", 19],
    ["NB", "dotted A5 notebook", 8.75],
    ["CAP", "baseball cap", 15.9],
  ];
  return kinds.flatMap(([code, what, price]) =>
    colours.map((colour, i) => ({
      Sku: `${code}-${colour.slice(0, 3).toUpperCase()}`,
      Title: `${colour} ${what}`,
      Description: `A ${colour.toLowerCase()} ${what} from the demo store.`,
      Price: price,
      Currency: "USD",
      Link: `https://shop.example.com/p/${code.toLowerCase()}-${colour.toLowerCase()}`,
      ImageLink: `https://shop.example.com/img/${code.toLowerCase()}-${colour.toLowerCase()}.jpg`,
      Availability: i === 4 ? "out_of_stock" : "in_stock",
      Brand: "Demo Goods",
      Gtin: i === 3 ? "" : String(4006381333930 + i),
    })),
  );
}

function demoOrders() {
  const people = [
    ["Ada", "Lovelace", "London", "ENG", "GB", "NW1 6XE"],
    ["Grace", "Hopper", "Arlington", "VA", "US", "22201"],
    ["Alan", "Turing", "Manchester", "ENG", "GB", "M13 9PL"],
    ["Katherine", "Johnson", "Hampton", "VA", "US", "23666"],
    ["Edsger", "Dijkstra", "Austin", "TX", "US", "78712"],
  ];
  const items = [
    ["MUG-BLU-12", "Blue ceramic mug, 12 oz", 12.5],
    ["TEE-GRY-M", "Grey cotton T-shirt, M", 19.0],
    ["NB-A5-DOT", "Dotted A5 notebook", 8.75],
  ];
  return people.map(([first, last, city, state, country, postal], i) => {
    const lines = items.slice(0, 1 + (i % 3)).map(([sku, name, price]) => ({ Sku: sku, Name: name, Quantity: 1 + (i % 2), UnitPrice: price }));
    const sub = lines.reduce((s, l) => s + l.Quantity * l.UnitPrice, 0);
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

seed()
  .then((demo) => {
    const links = `
 Operator console:  ${base}/console  (sign in with ADMIN_API_KEY from .dev.vars: ${vars.ADMIN_API_KEY})
 API reference:     ${base}/docs     (OpenAPI document: ${base}/openapi.json)`;
    if (!demo) {
      console.log(`\nThe local database already has stores; no demo key was recorded in ${DEMO_FILE}.${links}\n`);
      return;
    }
    const today = new Date().toISOString().slice(0, 10);
    console.log(`
────────────────────────────────────────────────────────────────────────
 Order and feed hub running at ${base} (self-signed certificate: curl -k)
 Demo store:        ${demo.storeId}
 Demo consumer key: ${demo.key}
${links}

 TOKEN=$(curl -sk -X PUT ${base}/v1/Authorization -H 'content-type: application/json' \\
   -d '{"ConsumerKey":"${demo.key}"}' | sed -E 's/.*"Token":"([^"]+)".*/\\1/')
 curl -sk "${base}/v1/$TOKEN/Orders?page=1&pageSize=10&fromDate=2000-01-01&toDate=${today}T23:59:59Z&status=NEW"${demo.feedId ? `
 curl -sk "${base}/v1/$TOKEN/feeds/${demo.feedId}/download"` : ""}
────────────────────────────────────────────────────────────────────────
`);
  })
  .catch((error) => console.error("Seeding the demo data failed:", error.message));
