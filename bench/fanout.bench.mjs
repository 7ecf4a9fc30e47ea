#!/usr/bin/env node
// Fan-out benchmark (issue 19): how many sources the cron starts per second, through the sync
// queue (src/sync/sync-queue.ts) against the dispatch it replaced (one awaited SourceSync call per
// source in the cron's one invocation), in one run against one `wrangler dev` (local D1, local
// queue, its own persist dir, ports 8851-8852). The sources are simulated ones selling nothing,
// so a cycle is its fixed cost (about 7 D1 statements) and the figure is the fan-out's.
// A warm-up round of the baseline runs first (every source's object made, its first cycle done);
// then the two alternate, `--rounds` times each, with a third case that hands every object its slot
// at once without the queue (what the consumer does), so the queue's share shows on its own.
//
//   node bench/fanout.bench.mjs [--sources 1000] [--rounds 2] [--port 8851]
import { applyMigrations, arg, benchPort, freshDir, main, median, sleep, startDev, table, writeResult } from "./harness.mjs";

const SOURCES = arg("sources", 1_000);
const ROUNDS = arg("rounds", 2);
const PORT = benchPort(8851);

await main(async () => {
  const persist = freshDir("fanout");
  applyMigrations(persist);
  const { must } = await startDev({ port: PORT, persist, entry: "bench/fanout-worker.ts" });
  const store = (await must("POST", "/admin/v1/stores", { Name: "fanout", Limits: { Sources: SOURCES + 1 } })).Store.StoreId;
  // A marketplace that sold its one order long before the source existed: every cycle imports nothing.
  const settings = { ordersPerHour: 1, startAt: "2001-01-01T00:00:00Z", endAt: "2001-01-01T00:00:00Z" };
  const template = (await must("POST", `/admin/v1/stores/${store}/sources`, { Type: "simulated", Name: "Fan", Settings: settings })).Source.SourceId;
  await must("PATCH", `/admin/v1/stores/${store}/sources/${template}`, { Enabled: false });
  const seeded = await must("POST", `/admin/v1/bench/fanout/seed?sourceId=${template}&count=${SOURCES}`);
  if (seeded.Seeded !== SOURCES) throw new Error(`seeded ${seeded.Seeded}`);

  const rows = [];
  const plan = ["await", ...Array.from({ length: ROUNDS }, () => ["queue", "await", "alarms"]).flat()];
  for (const [i, mode] of plan.entries()) {
    const t0 = Date.now();
    const answer = await must("POST", `/admin/v1/bench/fanout/dispatch?mode=${mode}&at=${t0 - 120_000}`);
    if (answer.Sources !== SOURCES) throw new Error(`${mode} dispatched ${answer.Sources} of ${SOURCES}`);
    let progress;
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      progress = await must("GET", `/admin/v1/bench/fanout/progress?storeId=${store}&since=${t0}`);
      if (progress.Started === SOURCES && progress.LastEnd > 0) break;
      if (Date.now() > deadline) throw new Error(`${mode}: ${progress.Started} of ${SOURCES} started in 30 min`);
      await sleep(1000);
    }
    const row = { mode, cronMs: answer.Ms, allStartedMs: progress.LastStart - t0, allEndedMs: progress.LastEnd - t0 };
    row.startsPerSecond = Math.round((SOURCES / Math.max(1, row.allStartedMs)) * 1000);
    console.log(`${i === 0 ? "warm-up " : ""}${mode}: ${JSON.stringify(row)}`);
    if (i > 0) rows.push(row);
  }

  console.log(`\nfan-out benchmark: ${SOURCES} sources, medians of ${ROUNDS} rounds each (wrangler dev, local D1 and queue, ${new Date().toISOString()})`);
  const printRow = table([
    ["dispatch", 34],
    ["cron ms", 10],
    ["all started ms", 16],
    ["starts/s", 10],
    ["all ended ms", 14],
  ]);
  const summary = [];
  for (const mode of ["queue", "await", "alarms"]) {
    const mine = rows.filter((r) => r.mode === mode);
    const s = {
      mode,
      cronMs: Math.round(median(mine.map((r) => r.cronMs))),
      allStartedMs: Math.round(median(mine.map((r) => r.allStartedMs))),
      startsPerSecond: Math.round(median(mine.map((r) => r.startsPerSecond))),
      allEndedMs: Math.round(median(mine.map((r) => r.allEndedMs))),
    };
    summary.push(s);
    const label = { queue: "queue (100 a sendBatch, consumer)", await: "baseline: one await per source", alarms: "no queue: every object's alarm" }[mode];
    printRow(label, s.cronMs, s.allStartedMs, s.startsPerSecond, s.allEndedMs);
  }
  writeResult("fanout", { sources: SOURCES, rows, summary });
});
