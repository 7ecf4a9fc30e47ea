#!/usr/bin/env node
// Returns benchmark (issue 30): a page of 100 returns against a page of 100 orders of the same
// store, at 10,000 and at 1,000,000 orders with one return per 20 orders, in one run against one
// `wrangler dev` (the orders' page is the baseline, timed interleaved with the returns' under the
// same load); and a Receive with Restock of 100 lines (one D1 batch in src/returns/returns.writes.ts)
// against one of 1 line.
//
// Seeding by the orders bench's seeder (bench/seed.mjs): migrations applied to a local D1 of its own,
// then the stores, keys and orders (2 items each) written straight into the directory database's
// SQLite file with node:sqlite, INSERT ... SELECT over a recursive series, the triggers running, the
// orders' and items' plain indexes dropped for the insert and built once afterwards (the
// 1,000,000-order store seeds in a few minutes on the shared 2-CPU machine instead of about 30);
// then, in the same file, the returns (one line each, statuses in turn) and products. Then
// `wrangler dev` (loopback, ports 8812-8813, or BENCH_PORT and the next) serves the Worker against
// that file. `--reuse` keeps the seeded database of the last run.
//
//   npm run bench -- returns      (10,000 and 1,000,000 orders)
//   npx node bench/returns.bench.mjs [--small 10000] [--large 1000000] [--repeats 9] [--port 8812] [--reuse]
//   (npx node: node:sqlite needs the project's Node 22, which npm scripts put first on the PATH)
import { loadavg } from "node:os";
import { arg, benchPort, main, median, startDev, timed, writeResult } from "./harness.mjs";
import { closeSeeded, DAY, seededOnce, seedOrderStores, seedYear } from "./seed.mjs";

const SMALL = arg("small", 10_000);
const LARGE = arg("large", 1_000_000);
const PORT = benchPort(8812);
const REPEATS = arg("repeats", 9);
const RETURN_EVERY = 20;

// ---------------------------------------------------------------- seeding
const stores = {
  small: { id: "st_rbench_small", orders: SMALL, items: 2 },
  large: { id: "st_rbench_large", orders: LARGE, items: 2 },
  // The restock store: order 1 with 100 lines, order 2 with 1, each fully returned; their Skus in stock.
  restock: { id: "st_rbench_restock", orders: 2, items: 100 },
};
/** One return per RETURN_EVERY orders (every order for the restock store), asked 3 days after its order, statuses in turn; one line each (all its order's lines for the restock store). */
function seedReturns(db, store) {
  const every = store === stores.restock ? 1 : RETURN_EVERY;
  db.prepare(
    `insert into returns (store_id, order_id, source_id, source_return_number, status, source_status, reason, date_requested, date_updated, created_at)
     select ?1, o.id, 'src_bench', 'RMA-' || o.id,
       case (o.id / ?2) % 4 when 0 then 'Requested' when 1 then 'Approved' when 2 then 'Received' else 'Refunded' end, 'x', 'Does not fit',
       o.date_created_in_order_source + 3 * ${DAY}, o.date_created_in_order_source + 4 * ${DAY}, ?3
     from orders o where o.store_id = ?1 and o.id % ?2 = 0 order by o.id`,
  ).run(store.id, every, Date.now());
  db.prepare(
    `insert into return_lines (return_id, order_item_id, source_return_line_id, quantity, reason)
     select r.id, i.id, 'L-' || i.id, i.quantity, 'Does not fit'
     from returns r join order_items i on i.order_id = r.order_id
     where r.store_id = ?1 and (?2 = 1 or i.id = (select min(id) from order_items where order_id = r.order_id)) order by r.id, i.id`,
  ).run(store.id, store === stores.restock ? 1 : 0);
}
const seconds = (since) => (performance.now() - since) / 1000;
const year = seedYear();
const seeded = seededOnce("returns", (file) => {
  const t0 = performance.now();
  const scopes = ["OrdersRead", "ReturnsRead", "ReturnsUpdate"];
  const { db, keys, seconds: seedSeconds } = seedOrderStores(file, Object.values(stores), { scopes, start: year.start });
  const t2 = performance.now();
  for (const store of Object.values(stores)) seedReturns(db, store);
  db.prepare(
    "delete from return_lines where return_id = (select max(id) from returns where store_id = ?) and id > (select min(id) from return_lines where " +
      "return_id = (select max(id) from returns where store_id = ?))",
  ).run(stores.restock.id, stores.restock.id);
  db.prepare(
    `insert or ignore into products (store_id, sku, title, price, quantity, updated_at)
     select distinct ?1, i.sku, 'Product ' || i.sku, 9.99, 10, ?2 from order_items i join orders o on o.id = i.order_id where o.store_id = ?1`,
  ).run(stores.restock.id, Date.now());
  seedSeconds.returns = seconds(t2);
  closeSeeded(db);
  seedSeconds.total = seconds(t0);
  return { ...year, keys, seedSeconds, loadavg: loadavg()[0] };
});
const { keys, seedSeconds, start: START, end: END } = seeded;
console.log(
  `${seeded.reused ? "reusing the database seeded before: " : ""}seeded ${SMALL} + ${LARGE} orders (2 items each), a return per ${RETURN_EVERY}, in ` +
    `${seedSeconds.total.toFixed(0)} s (rows ${seedSeconds.rows.toFixed(0)} s, indexes ${seedSeconds.indexes.toFixed(0)} s, returns ` +
    `${seedSeconds.returns.toFixed(0)} s; load average ${seeded.loadavg.toFixed(1)})`,
);

// ---------------------------------------------------------------- measuring
await main(async () => {
  const dev = await startDev({ port: PORT, persist: seeded.persist, clientOptions: { headers: { "cf-connecting-ip": "192.0.2.1" }, maxSockets: 4 } });
  const { must } = dev;
  const tokens = {};
  for (const store of Object.values(stores)) tokens[store.id] = (await must("PUT", "/v1/Authorization", { ConsumerKey: keys[store.id] })).Token;
  const whole = `fromDate=${new Date(START - DAY).toISOString()}&toDate=${new Date(END + 60 * DAY).toISOString()}`;
  const month = `fromDate=${new Date(END - 45 * DAY).toISOString()}&toDate=${new Date(END - 15 * DAY).toISOString()}`;
  // Each shape: the orders' query and the returns' query of the same meaning.
  const shapes = [
    { name: "page 1, whole range, default sort", orders: `${whole}&page=1&pageSize=100`, returns: `${whole}&page=1&pageSize=100` },
    {
      name: "page 1, whole range, newest first",
      orders: `${whole}&sortBy=DateCreatedInOrderSource&sortDirection=desc&page=1&pageSize=100`,
      returns: `${whole}&sortBy=DateRequested&sortDirection=desc&page=1&pageSize=100`,
    },
    { name: "page 1, dateField=updated", orders: `${whole}&dateField=updated&page=1&pageSize=100`, returns: `${whole}&dateField=updated&page=1&pageSize=100` },
    { name: "page 1, a status", orders: `${whole}&status=NEW&page=1&pageSize=100`, returns: `${whole}&status=REQUESTED&page=1&pageSize=100` },
    { name: "page 1, 30 days", orders: `${month}&page=1&pageSize=100`, returns: `${month}&page=1&pageSize=100` },
  ];
  const rows = [];
  console.log(`${"shape".padEnd(40)} ${"size".padStart(8)} ${"orders ms".padStart(10)} ${"returns ms".padStart(10)} ${"ratio".padStart(6)}`);
  for (const shape of shapes) {
    for (const size of ["small", "large"]) {
      const store = stores[size];
      const o = `/v1/${tokens[store.id]}/Orders?${shape.orders}`;
      const r = `/v1/${tokens[store.id]}/Returns?${shape.returns}`;
      const counts = { orders: (await must("GET", o)).Orders.length, returns: (await must("GET", r)).Returns.length };
      const times = { orders: [], returns: [] };
      for (let i = 0; i < REPEATS; i++) {
        times.orders.push((await timed(() => must("GET", o))).ms);
        times.returns.push((await timed(() => must("GET", r))).ms);
      }
      const row = { shape: shape.name, size: store.orders, orders: median(times.orders), returns: median(times.returns), counts };
      row.ratio = row.returns / row.orders;
      rows.push(row);
      console.log(
        `${shape.name.padEnd(40)} ${String(store.orders).padStart(8)} ${row.orders.toFixed(1).padStart(10)} ${row.returns.toFixed(1).padStart(10)} ` +
          `${row.ratio.toFixed(2).padStart(6)}  ${JSON.stringify(counts)}`,
      );
    }
  }

  // Receive with Restock: the return of 100 lines against the return of 1 line (one request each).
  const token = tokens[stores.restock.id];
  const list = (await must("GET", `/v1/${token}/Returns?${whole}&page=1&pageSize=100`)).Returns;
  const big = list.find((x) => x.Items.length === 100);
  const one = list.find((x) => x.Items.length === 1);
  const receive = (ret) =>
    timed(() =>
      must("PUT", `/v1/${token}/Returns/${ret.ReturnId}/Receive`, {
        Items: ret.Items.map((i) => ({ OrderItemId: i.OrderItemId, Quantity: i.Quantity })),
        Restock: true,
      }),
    );
  const restock = { lines100Ms: (await receive(big)).ms, lines1Ms: (await receive(one)).ms, repeat100Ms: (await receive(big)).ms };
  const after = (await must("GET", `/v1/${token}/Returns/${big.ReturnId}`)).Returns[0];
  restock.restocked = after.Items.reduce((n, i) => n + i.QuantityRestocked, 0);
  restock.returned = after.Items.reduce((n, i) => n + i.Quantity, 0);
  console.log(`restock: ${JSON.stringify(restock)}`);

  writeResult("returns", { small: SMALL, large: LARGE, seedSeconds, rows, restock, loadavg: loadavg() });
});
