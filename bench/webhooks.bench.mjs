#!/usr/bin/env node
// Webhooks benchmark (issue 23), in one run against one `wrangler dev`:
//  1. what an endpoint adds to an InsertOrder: InsertOrders alternating between a store with one
//     endpoint (subscribed to everything, its receiver answering at once) and a store with none;
//     and, for the store with none, what the event statement itself costs, timed in SQLite;
//  2. delivery throughput: 10,000 order events waiting for one endpoint, sent to a local
//     receiver that verifies every one with the standardwebhooks library and checks each order's
//     events arrive in order and no event twice: events per second from wake-up to the last one;
//     and, on the seeded file, what the sender's due reads alone cost while that backlog drains.
//
// Seeding: migrations applied to a local D1 (its own --persist-to directory), then stores, keys,
// endpoints (their secrets sealed as the Worker seals them), 10,000 orders and their 10,000
// order.created rows are written straight into that D1's SQLite file with node:sqlite, before
// `wrangler dev` (loopback, ports 8830-8831) serves the Worker against it. The receiver listens
// on 8832.
//
//   node bench/webhooks.bench.mjs [--events 10000] [--inserts 300] [--port 8830]
import { randomBytes, createHash, webcrypto } from "node:crypto";
import http from "node:http";
import { DatabaseSync } from "node:sqlite";
import { Webhook } from "standardwebhooks";
import { applyMigrations, arg, benchPort, d1SqliteFile, freshDir, main, median, percentile, sampleOrder, SECRETS, sleep, startDev } from "./harness.mjs";

const EVENTS = arg("events", 10_000);
const INSERTS = arg("inserts", 300);
const PORT = benchPort(8830);
const RECEIVER_PORT = PORT + 2;
const SETTINGS_KEY = SECRETS.SOURCE_SETTINGS_KEY;

// ---------------------------------------------------------------- seeding
const PERSIST = freshDir("webhooks");
applyMigrations(PERSIST);
const d1File = d1SqliteFile(PERSIST);

/** The Worker's encryptJson (src/lib/crypto.ts): base64url(iv).base64url(AES-GCM of the JSON). */
async function seal(value) {
  const key = await webcrypto.subtle.importKey("raw", Buffer.from(SETTINGS_KEY, "base64"), "AES-GCM", false, ["encrypt"]);
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  const data = await webcrypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(JSON.stringify(value)));
  return `${Buffer.from(iv).toString("base64url")}.${Buffer.from(data).toString("base64url")}`;
}

const stores = { with: "st_bench_with", without: "st_bench_without", bulk: "st_bench_bulk" };
const secrets = { with: `whsec_${randomBytes(32).toString("base64")}`, bulk: `whsec_${randomBytes(32).toString("base64")}` };
const db = new DatabaseSync(d1File);
const now = Date.now();
for (const [name, id] of Object.entries(stores)) {
  db.prepare("insert into stores (id, name, created_at) values (?, ?, ?)").run(id, id, now);
  db.prepare(
    "insert into consumer_keys (id, store_id, name, key_hash, scopes, lifespan, bucket_size, leak_rate_per_second, created_at) values (?, ?, 'bench', ?, " +
      "?, 'NeverExpires', 100000, 10000, ?)",
  ).run(`ck_${id}`, id, createHash("sha256").update(`ofh_bench_${id}`).digest("hex"), JSON.stringify(["OrdersCreate"]), now);
  if (secrets[name]) {
    db.prepare(
      "insert into webhooks (id, store_id, url, events, enabled, secret_ciphertext, created_at, updated_at) values (?, ?, ?, '[\"*\"]', 1, ?, ?, ?)",
    ).run(`wh_${name}`, id, `http://127.0.0.1:${RECEIVER_PORT}/${name}`, await seal(secrets[name]), now, now);
  }
}
// The backlog: EVENTS orders of the bulk store, each with its order.created row as InsertOrder writes it.
db.prepare(
  `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
   insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
     buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
     grand_total, sub_total, date_created_in_order_source, date_updated)
   select ?1, 'Bench', 'B-' || i, 'New', 'New', 'b' || i || '@example.com', '555-010-0000', 'Jane', 'Doe', '1 Main St', 'Springfield',
     'IL', '62701', 'US', 'Standard', 10, 10, ?3, ?3 from r`,
).run(stores.bulk, EVENTS, now);
db.prepare(
  `insert into webhook_deliveries (event_id, store_id, webhook_id, subject, type, payload, state, attempts, next_attempt_at, created_at)
   select 'msg_' || lower(hex(randomblob(12))), o.store_id, 'wh_bulk', 'order:' || o.id, 'order.created',
     json_object('type', 'order.created', 'timestamp', ?2, 'data', json_object('StoreId', o.store_id, 'OrderId', cast(o.id as text),
       'OrderSource', o.order_source, 'OrderSourceOrderNumber', o.order_source_order_number, 'OrderStatus', o.status)),
     'pending', 0, ?3, ?3
   from orders o where o.store_id = ?1 order by o.id`,
).run(stores.bulk, new Date(now).toISOString(), now);

// The sender's due reads alone while the backlog drains (SQLite on this file, no D1 round trip;
// inside a transaction rolled back): rounds of 100 read as sender's read does (due time then id,
// the walk of webhook_deliveries_due that stops after the round), against the same read sorted
// by id alone (what it was: every due row read and sorted on each round).
function drainReads(orderBy) {
  const read = db.prepare(
    `select id from webhook_deliveries where webhook_id = 'wh_bulk' and state = 'pending' and next_attempt_at <= ? and payload is not null
       and not exists (select 1 from webhook_deliveries as earlier where earlier.webhook_id = webhook_deliveries.webhook_id
         and earlier.subject = webhook_deliveries.subject and earlier.id < webhook_deliveries.id and earlier.state = 'pending')
     order by ${orderBy} limit 100`,
  );
  const done = db.prepare("update webhook_deliveries set state = 'delivered' where id = ?");
  db.exec("begin");
  let ms = 0;
  for (;;) {
    const start = performance.now();
    const rows = read.all(now);
    ms += performance.now() - start;
    if (rows.length === 0) break;
    for (const row of rows) done.run(row.id);
  }
  db.exec("rollback");
  return ms;
}
const dueReadMs = { walk: drainReads("next_attempt_at, id"), sorted: drainReads("id") };

// What the event statement costs a store without endpoints, on this file (SQLite alone, no D1 round trip).
const eventStatement = db.prepare(
  `insert into webhook_deliveries (id, event_id, store_id, webhook_id, subject, type, payload, state, attempts, next_attempt_at, last_status_code,
    last_error, created_at, finished_at)
   select null, 'msg_' || lower(hex(randomblob(12))), webhooks.store_id, webhooks.id, 'order:' || orders.id, 'order.created',
     json_object('type', 'order.created', 'timestamp', ?, 'data', json_object('StoreId', orders.store_id, 'OrderId', cast(orders.id as text))),
       'pending', 0, ?, null, null, ?, null
   from orders join webhooks on webhooks.store_id = orders.store_id and webhooks.enabled = 1
     and exists (select 1 from json_each(webhooks.events) where value in ('*', 'order.created'))
   where orders.store_id = ? and orders.order_source = 'Bench' and orders.order_source_order_number = ? returning webhook_id`,
);
db.prepare(
  "insert into orders (store_id, order_source, order_source_order_number, status, buyer_email_address, buyer_phone_number, first_name, last_name, street1, " +
    "city, state_or_province, postal_code, country, shipping_method, grand_total, sub_total, date_created_in_order_source, date_updated) values (?, " +
    "'Bench', 'N-1', 'New', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 1, 1, ?, ?)",
).run(stores.without, now, now);
const statementRuns = 20_000;
const t0 = performance.now();
for (let i = 0; i < statementRuns; i++) eventStatement.all(new Date(now).toISOString(), now, now, stores.without, "N-1");
const statementUs = ((performance.now() - t0) * 1000) / statementRuns;
db.close();

// ---------------------------------------------------------------- receiver
const received = { with: 0, bulk: 0 };
const lastOfOrder = new Map();
const seen = new Set();
const problems = [];
let firstAt = 0;
let lastAt = 0;
const verifiers = { with: new Webhook(secrets.with), bulk: new Webhook(secrets.bulk) };
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const name = req.url.slice(1);
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      const event = verifiers[name].verify(body, req.headers);
      const id = req.headers["webhook-id"];
      if (seen.has(id)) problems.push(`twice: ${id}`);
      seen.add(id);
      const seq = Number(event.data.OrderId);
      if (name === "bulk") {
        if (!firstAt) firstAt = performance.now();
        lastAt = performance.now();
      }
      if ((lastOfOrder.get(event.data.OrderId) ?? "") === event.type) problems.push(`repeated ${event.type} of ${seq}`);
      lastOfOrder.set(event.data.OrderId, event.type);
      received[name] += 1;
    } catch (error) {
      problems.push(`${name}: ${error.message}`);
    }
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(RECEIVER_PORT, "127.0.0.1", resolve));

// ---------------------------------------------------------------- server
const p95 = (xs) => percentile(xs, 0.95);

const order = (n) => sampleOrder(`W-${n}`);

await main(async () => {
  const { request, must } = await startDev({ port: PORT, persist: PERSIST, clientOptions: { headers: { "cf-connecting-ip": "192.0.2.1" }, maxSockets: 8 } });
  const tokens = {};
  for (const [name, id] of Object.entries(stores)) {
    tokens[name] = (await must("PUT", "/v1/Authorization", { ConsumerKey: `ofh_bench_${id}` })).Token;
  }
  const insert = async (name, n) => {
    const start = performance.now();
    const res = await request("PUT", `/v1/${tokens[name]}/Orders/InsertOrder`, order(n));
    if (res.status !== 200) throw new Error(`InsertOrder ${name}: ${res.status} ${res.text.slice(0, 200)}`);
    return performance.now() - start;
  };

  // 1. InsertOrder with and without an endpoint, alternating so both see the same machine.
  for (let i = 0; i < 20; i++) {
    await insert("with", -1 - i);
    await insert("without", -1 - i);
  }
  const ms = { with: [], without: [] };
  for (let i = 0; i < INSERTS; i++) {
    const first = i % 2 ? "with" : "without";
    const second = first === "with" ? "without" : "with";
    ms[first].push(await insert(first, i));
    ms[second].push(await insert(second, i));
  }
  const deadline = Date.now() + 60_000;
  while (received.with < INSERTS + 20 && Date.now() < deadline) await sleep(100);

  // 2. The backlog: one InsertOrder into the bulk store wakes its sender; time until the last event.
  const woke = performance.now();
  await insert("bulk", 0);
  const total = EVENTS + 1;
  const bulkDeadline = Date.now() + 600_000;
  while (received.bulk < total && Date.now() < bulkDeadline) await sleep(50);
  const seconds = (lastAt - woke) / 1000;

  const fmt = (x) => x.toFixed(2);
  console.log(`\nInsertOrder, ${INSERTS} each, alternating (ms: median / p95):`);
  console.log(`  store with no endpoint    ${fmt(median(ms.without))} / ${fmt(p95(ms.without))}`);
  console.log(`  store with one endpoint   ${fmt(median(ms.with))} / ${fmt(p95(ms.with))}   (its ${received.with} events received meanwhile)`);
  console.log(`  added by the endpoint     ${fmt(median(ms.with) - median(ms.without))} ms at the median`);
  console.log(`  the event statement alone, no endpoint (SQLite, ${statementRuns} runs): ${statementUs.toFixed(1)} µs`);
  console.log(
    `\nThe due reads alone while ${EVENTS} events drain (SQLite, rounds of 100): ${dueReadMs.walk.toFixed(0)} ms as the sender reads; ` +
      `${dueReadMs.sorted.toFixed(0)} ms sorted by id`,
  );
  console.log(`\nDelivery: ${received.bulk} of ${total} events in ${seconds.toFixed(1)} s from wake-up: ${(received.bulk / seconds).toFixed(0)} events/s`);
  console.log(
    `  every body verified by standardwebhooks; problems (twice, out of order, bad signature): ` +
      `${problems.length}${problems.length ? ` ${problems.slice(0, 5).join("; ")}` : ""}`,
  );
});
receiver.close();
