#!/usr/bin/env node
// Sync benchmark: one cycle importing 10,000 simulated orders against a baseline that inserts the
// same orders with plain drizzle inserts in db.batch, the same window imported again (every order
// known: the upsert's conflict branch), then the delivery of 800 pending outbox rows. Then line-level
// changes at import (issue 29, decisions 12), in the same run: a second source of orders of exactly 3
// lines is imported (whole orders), imported again unchanged (the whole-order baseline), and imported
// again while the marketplace reports line-level changes of its own on every order (1-2 packages,
// 1-2 cancelled units). Every import goes through POST /admin/v1/sync: the SourceSync object's
// cycle, the one the cron runs. Runs `wrangler dev` (local D1, its own persist dir, ports 8821-8822)
// on bench/sync-worker.ts (the production Worker plus the bench-only admin routes of
// bench/sync-bench.routes.ts), with bench/lines-import/simulated.connector.ts aliased in place of
// the simulated connector: it plays the 3-line orders and their changes when a source's Settings
// ask for them, and is the simulated connector unchanged otherwise.
//
//   node bench/sync.bench.mjs [--orders 10000] [--deliveries 800] [--line-orders 5000] [--port 8821]
import { loadavg } from "node:os";
import { aliasedConfig, applyMigrations, arg, benchPort, freshDir, main, startDev, table, timed, writeResult } from "./harness.mjs";

const ORDERS = arg("orders", 10_000);
// 800: at about one statement a row, 1,000 rows no longer fit one invocation's share (900 D1
// queries): the cycle would deliver 850 and go on in the next invocation, which its summary does not count.
const DELIVERIES = arg("deliveries", 800);
// 5,000 by default: a page with line changes costs about 11 statements, so 50 pages fit one
// invocation's share of D1 queries (900) and the cycle's D1Statements counts all of them.
const LINE_ORDERS = arg("line-orders", 5_000);
const PORT = benchPort(8821);

await main(async () => {
  const persist = freshDir("sync");
  applyMigrations(persist);
  const config = aliasedConfig(persist, { "./simulated/simulated.connector": "bench/lines-import/simulated.connector.ts" }, { main: "bench/sync-worker.ts" });
  const { must } = await startDev({ port: PORT, persist, config });
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

  // Line-level changes at import: a store and source of their own, orders of exactly 3 lines.
  const lineStore = (await must("POST", "/admin/v1/stores", { Name: "bench lines" })).Store.StoreId;
  const lineSettings = {
    ordersPerHour: 10_000,
    startAt: new Date(end - (LINE_ORDERS - 1) * interval).toISOString(),
    endAt: new Date(end).toISOString(),
    lineChanges: { "bench:3-lines": {} },
  };
  const lineSource = (await must("POST", `/admin/v1/stores/${lineStore}/sources`, { Type: "simulated", Name: "BenchLines", Settings: lineSettings })).Source
    .SourceId;
  const cycleOf = async (what) => {
    const run = await timed(() => must("POST", `/admin/v1/sync?sourceId=${lineSource}`));
    const summary = run.value.Sync.Sources[0];
    if (summary.OrdersFetched !== LINE_ORDERS || summary.Continues || summary.Error) throw new Error(`${what}: ${JSON.stringify(summary)}`);
    return { ms: run.ms, summary };
  };
  const wholeFirst = await cycleOf("3-line orders, first import");
  if (wholeFirst.summary.OrdersImported !== LINE_ORDERS) throw new Error(`imported ${wholeFirst.summary.OrdersImported} of ${LINE_ORDERS}`);
  await must("PATCH", `/admin/v1/stores/${lineStore}/sources/${lineSource}`, { ImportFrom: lineSettings.startAt });
  const wholeAgain = await cycleOf("3-line orders again, unchanged");
  await must("PATCH", `/admin/v1/stores/${lineStore}/sources/${lineSource}`, {
    ImportFrom: lineSettings.startAt,
    Settings: { lineChanges: { "bench:3-lines": {}, "bench:moved": {} } },
  });
  const moved = await cycleOf("3-line orders again, line-level changes");
  if (moved.summary.OrdersImported !== 0) throw new Error(`the line-level import added ${moved.summary.OrdersImported} orders`);
  // What the hub now holds: every order with its marketplace packages and units (a page of the newest).
  const held = (await must("GET", `/admin/v1/stores/${lineStore}/orders?page=1&pageSize=100`)).Orders;
  const packages = held.reduce((n, o) => n + o.Shipments.length, 0);
  const units = held
    .flatMap((o) => o.OrderItems)
    .reduce((n, i) => ({ shipped: n.shipped + i.QuantityShipped, cancelled: n.cancelled + i.QuantityCancelled }), { shipped: 0, cancelled: 0 });
  if (held.length !== 100 || held.some((o) => o.OrderItems.length !== 3 || o.Shipments.length < 1 || o.Shipments.length > 2)) {
    throw new Error(`the line-level import left ${JSON.stringify(held.slice(0, 2))}`);
  }
  console.log(`line-level import, newest 100 orders: ${packages} packages, ${units.shipped} units shipped, ${units.cancelled} cancelled`);
  // One more unchanged window: what the same import costs once the changes are in.
  await must("PATCH", `/admin/v1/stores/${lineStore}/sources/${lineSource}`, { ImportFrom: lineSettings.startAt });
  const movedAgain = await cycleOf("3-line orders again, changes already in");

  const rows = [
    { what: `import cycle (${ORDERS} orders)`, items: ORDERS, ms: cycle.ms, statements: imported.D1Statements },
    { what: `the same window again (${ORDERS} known)`, items: ORDERS, ms: again.ms, statements: reimported.D1Statements },
    { what: `baseline db.batch (${ORDERS} orders)`, items: ORDERS, ms: baseline.ms, statements: baseline.value.D1Statements },
    { what: `delivery (${DELIVERIES} outbox rows)`, items: DELIVERIES, ms: delivery.ms, statements: delivered.D1Statements },
    { what: `3 lines: first import (${LINE_ORDERS})`, items: LINE_ORDERS, ms: wholeFirst.ms, statements: wholeFirst.summary.D1Statements },
    { what: `3 lines: again, unchanged (baseline)`, items: LINE_ORDERS, ms: wholeAgain.ms, statements: wholeAgain.summary.D1Statements },
    { what: `3 lines: again, line-level changes`, items: LINE_ORDERS, ms: moved.ms, statements: moved.summary.D1Statements },
    { what: `3 lines: again, changes already in`, items: LINE_ORDERS, ms: movedAgain.ms, statements: movedAgain.summary.D1Statements },
  ].map((r) => ({ ...r, perSecond: Math.round((r.items / r.ms) * 1000), perItem: r.statements / r.items }));

  console.log(`\nsync benchmark (wrangler dev, local D1, ${new Date().toISOString()})`);
  const printRow = table([
    ["case", 40],
    ["ms", 10],
    ["items/s", 10],
    ["D1 stmts", 10],
    ["stmts/item", 12],
  ]);
  for (const r of rows) printRow(r.what, r.ms.toFixed(0), r.perSecond, r.statements, r.perItem.toFixed(3));
  const ratio = (moved.ms / wholeAgain.ms).toFixed(2);
  const perOrder = (r) => (r.summary.D1Statements / LINE_ORDERS).toFixed(3);
  console.log(`line-level changes / unchanged: ${ratio}x the time, ${perOrder(moved)} against ${perOrder(wholeAgain)} D1 statements an order`);
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  writeResult("sync", { rows, lines: { packages, units, ratio: moved.ms / wholeAgain.ms }, loadavg: loadavg() });
});
