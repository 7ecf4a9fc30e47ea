#!/usr/bin/env node
// What the second RateLimiter RPC of a /v1 write costs. requireScope (src/auth/authorize.ts) makes
// one RPC to the key's RateLimiter to admit any call; a write then hands its D1 session's bookmark
// back to the same object (noteBookmark) before it is answered, so the key's next read starts at
// it (read replication, docs/read-replicas.md): two RPCs a write, one a read. Two `wrangler dev`
// servers, each with its own in-memory state (see memoryDir in bench/harness.mjs):
//   A  the service as deployed;
//   B  the same service built with bench/throttle-no-bookmark/authorize.ts in place of the
//      routers' src/auth/authorize.ts (an [alias] in B's own config): the real requireScope, with
//      the bookmark publish dropped. B's writes are checked to carry X-Bench-Bookmark-Skipped, so
//      the publish was due (a local D1 session returns bookmarks) and B skipped it.
// and measures, interleaved because the machine is shared:
//   (1) PUT /v1/{token}/Orders/InsertOrder on A (admission + bookmark publish),
//   (2) the same on B (admission only): (1) - (2) is the publish;
//   (3) GET /v1/{token}/Orders/count on A and (4) on B (one RPC each; B equal to A shows the
//       substitution adds nothing else);
// latency with one client (p50/p99) and calls per second with --clients clients.
//
//   node bench/throttle-write.bench.mjs [--seconds 8] [--clients 8] [--port 8861]   (ports N..N+3)
import { aliasedConfig, applyMigrations, arg, benchPort, interleaved, main, memoryDir, pairedMedian, sampleOrder, startDev, writeResult } from "./harness.mjs";
import { loadavg } from "node:os";

const SECONDS = arg("seconds", 8);
const CLIENTS = arg("clients", 8);
const PORT = benchPort(8861);
const COUNT = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";

let written = 0;
const order = () => sampleOrder(`TW-${(written += 1)}`);

/** A store and a token whose bucket never refuses during the run. */
async function tokenOn(dev) {
  const store = (await dev.must("POST", "/admin/v1/stores", { Name: "Bench store" })).Store.StoreId;
  const key = await dev.must("POST", `/admin/v1/stores/${store}/consumer-keys`, {
    Name: "bench",
    Scopes: ["OrdersRead", "OrdersCreate"],
    Lifespan: "NeverExpires",
    BucketSize: 100_000,
    LeakRatePerSecond: 10_000,
  });
  return (await dev.must("PUT", "/v1/Authorization", { ConsumerKey: key.ConsumerKey.Key })).Token;
}

await main(async () => {
  const fmt = (n, digits = 2) => n.toFixed(digits);
  console.log(`throttle-write bench: ${SECONDS} s a phase, ${CLIENTS} clients for calls/s; load average at start ${fmt(loadavg()[0])}`);
  const dirA = memoryDir("write-a");
  const dirB = memoryDir("write-b");
  applyMigrations(dirA);
  applyMigrations(dirB);
  const [a, b] = await Promise.all([
    startDev({ port: PORT, persist: dirA }),
    startDev({ port: PORT + 2, persist: dirB, config: aliasedConfig(dirB, { "../auth/authorize": "bench/throttle-no-bookmark/authorize.ts" }) }),
  ]);
  const [tokenA, tokenB] = await Promise.all([tokenOn(a), tokenOn(b)]);

  const published = (res) => {
    if (res.headers["x-bench-bookmark-skipped"] !== undefined) throw new Error("A skipped its bookmark publish: is it built with the bench module?");
  };
  const skipped = (res) => {
    if (res.headers["x-bench-bookmark-skipped"] !== "1")
      throw new Error("B's write had no bookmark publish to skip: the substitution did not happen, or no bookmark came back");
  };
  const results = await interleaved(
    [
      { name: "(1) write, 2 RPCs (admit + bookmark)", call: () => a.request("PUT", `/v1/${tokenA}/Orders/InsertOrder`, order()), check: published },
      { name: "(2) write, 1 RPC (bookmark skipped)", call: () => b.request("PUT", `/v1/${tokenB}/Orders/InsertOrder`, order()), check: skipped },
      { name: "(3) read, 1 RPC (A)", call: () => a.request("GET", `/v1/${tokenA}${COUNT}`) },
      { name: "(4) read, 1 RPC (B)", call: () => b.request("GET", `/v1/${tokenB}${COUNT}`) },
    ],
    { seconds: SECONDS, clients: CLIENTS },
  );
  for (const r of results) {
    const other = Object.keys(r.loaded.statuses).filter((s) => s !== "200");
    if (other.length > 0) throw new Error(`${r.name} answered ${JSON.stringify(r.loaded.statuses)}`);
  }

  const [withPublish, without, readA, readB] = results;
  console.table(
    results.map((r) => ({
      run: r.name,
      "p50 ms (1 client)": fmt(r.single.p50),
      "p99 ms (1 client)": fmt(r.single.p99),
      "samples (1 client)": r.single.n,
      [`calls/s (${CLIENTS} clients)`]: fmt(r.loaded.rps, 0),
      [`p50 ms (${CLIENTS})`]: fmt(r.loaded.p50),
      [`p99 ms (${CLIENTS})`]: fmt(r.loaded.p99),
    })),
  );
  const cost = {
    p50: withPublish.single.p50 - without.single.p50,
    pairedP50: pairedMedian(withPublish.samples, without.samples),
    p99: withPublish.single.p99 - without.single.p99,
    throughput: withPublish.loaded.rps / without.loaded.rps,
    readsBOverA: readB.loaded.rps / readA.loaded.rps,
  };
  console.log(`load average at the end ${fmt(loadavg()[0])}`);
  console.log(
    `bookmark publish, (1) - (2), 1 client: p50 ${fmt(cost.p50)} ms (median of paired differences ${fmt(cost.pairedP50)} ms), p99 ${fmt(cost.p99)} ms; ` +
      `calls/s with ${CLIENTS} clients (1)/(2): ${fmt(cost.throughput * 100, 1)}%; reads B/A: ${fmt(cost.readsBOverA * 100, 1)}%`,
  );
  writeResult("throttle-write", { seconds: SECONDS, clients: CLIENTS, results: results.map(({ samples, ...r }) => r), cost });
});
