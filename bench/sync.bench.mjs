#!/usr/bin/env node
// Sync benchmark: one cycle importing 10,000 simulated orders against a baseline that inserts the
// same orders with plain drizzle inserts in db.batch, the same window imported again (every order
// known: the upsert's conflict branch), then the delivery of 1,000 pending outbox rows. Runs `wrangler dev bench/sync-worker.ts` (local D1, its own persist
// dir, ports 8821-8822):
// the production Worker plus the bench-only admin routes of bench/sync-bench.routes.ts.
//
//   node bench/sync.bench.mjs [--orders 10000] [--deliveries 1000] [--port 8821]
import { applyMigrations, arg, freshDir, main, startDev, table, timed, writeResult } from "./harness.mjs";

const ORDERS = arg("orders", 10_000);
const DELIVERIES = arg("deliveries", 1_000);
const PORT = arg("port", 8821);

await main(async () => {
  const persist = freshDir("sync");
  applyMigrations(persist);
  const { must } = await startDev({ port: PORT, persist, entry: "bench/sync-worker.ts" });
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
  // The same window again: every order is known, so each goes through the upsert's conflict
  // branch (status word, source data, a blank address filled in) and changes nothing.
  await must("PATCH", `/admin/v1/stores/${store}/sources/${source}`, { ImportFrom: settings.startAt });
  const again = await timed(() => must("POST", `/admin/v1/sync?sourceId=${source}`));
  const reimported = again.value.Sync.Sources[0];
  if (reimported.OrdersImported !== 0) throw new Error(`the second import added ${reimported.OrdersImported} orders: ${JSON.stringify(reimported)}`);
  const baseline = await timed(() => must("POST", `/admin/v1/bench/baseline-import?sourceId=${source}`));
  if (baseline.value.Inserted !== ORDERS) throw new Error(`baseline inserted ${baseline.value.Inserted}`);

  const queued = await must("POST", `/admin/v1/bench/enqueue-acknowledgements?sourceId=${source}&count=${DELIVERIES}`);
  if (queued.Pending !== DELIVERIES) throw new Error(`queued ${queued.Pending} of ${DELIVERIES}`);
  const delivery = await timed(() => must("POST", `/admin/v1/sync?sourceId=${source}`));
  const delivered = delivery.value.Sync.Sources[0];
  if (delivered.Delivered !== DELIVERIES) throw new Error(`delivered ${delivered.Delivered} of ${DELIVERIES}: ${JSON.stringify(delivered)}`);

  const rows = [
    { what: `import cycle (${ORDERS} orders)`, items: ORDERS, ms: cycle.ms, statements: imported.D1Statements },
    { what: `the same window again (${ORDERS} known)`, items: ORDERS, ms: again.ms, statements: reimported.D1Statements },
    { what: `baseline db.batch (${ORDERS} orders)`, items: ORDERS, ms: baseline.ms, statements: baseline.value.D1Statements },
    { what: `delivery (${DELIVERIES} outbox rows)`, items: DELIVERIES, ms: delivery.ms, statements: delivered.D1Statements },
  ].map((r) => ({ ...r, perSecond: Math.round((r.items / r.ms) * 1000), perItem: r.statements / r.items }));

  console.log(`\nsync benchmark (wrangler dev, local D1, ${new Date().toISOString()})`);
  const printRow = table([
    ["case", 36],
    ["ms", 10],
    ["items/s", 10],
    ["D1 stmts", 10],
    ["stmts/item", 12],
  ]);
  for (const r of rows) printRow(r.what, r.ms.toFixed(0), r.perSecond, r.statements, r.perItem.toFixed(3));
  writeResult("sync", { rows });
});
