#!/usr/bin/env node
// Stock benchmark (decisions 11): 100,000 tracked Skus, every one changed by PUT /v1/{token}/Inventory,
// then one sync cycle of a simulated source sends them all (plan from the catalog's stock clock,
// batches of 1,000, one outcome statement per batch). Baseline in the same run: the same plan,
// due reads and connector on a second source, recording each Sku's outcome with its own statement
// (bench/stock-bench.routes.ts). Runs `wrangler dev bench/sync-worker.ts` (local D1, its own
// persist dir, ports 8831-8832).
//
//   node bench/stock.bench.mjs [--skus 100000] [--port 8831]
import { applyMigrations, arg, benchPort, freshDir, main, startDev, table, timed, writeResult } from "./harness.mjs";

const SKUS = arg("skus", 100_000);
const PORT = benchPort(8831);

await main(async () => {
  const persist = freshDir("stock");
  applyMigrations(persist);
  const { must } = await startDev({ port: PORT, persist, entry: "bench/sync-worker.ts" });
  const store = (await must("POST", "/admin/v1/stores", { Name: "bench" })).Store.StoreId;
  const key = (
    await must("POST", `/admin/v1/stores/${store}/consumer-keys`, {
      Name: "bench",
      Scopes: ["InventoryUpdate"],
      Lifespan: "NeverExpires",
      BucketSize: 100000,
      LeakRatePerSecond: 10000,
    })
  ).ConsumerKey.Key;
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

  console.log(`\nstock benchmark (wrangler dev, local D1, ${new Date().toISOString()})`);
  const printRow = table([
    ["case", 40],
    ["ms", 10],
    ["Skus/s", 10],
    ["D1 stmts", 10],
    ["stmts/Sku", 12],
  ]);
  for (const r of rows) printRow(r.what, r.ms.toFixed(0), r.perSecond, r.statements ?? "-", r.perItem === null ? "-" : r.perItem.toFixed(4));
  writeResult("stock", { rows });
});
