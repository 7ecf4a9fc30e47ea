// Benchmark-only routes (bench/fanout.bench.mjs), served only by the benchmark's own entry
// (bench/fanout-worker.ts): the production Worker (src/index.ts) never imports this file. Every
// statement goes through its table's owner module.
import { z } from "zod";
import { locateStore, shardDb, shardNames } from "../src/db/shards";
import { ApiError } from "../src/http/errors";
import { ok } from "../src/http/envelope";
import { createRouter } from "../src/app-env";
import { validate } from "../src/http/validate";
import { randomId } from "../src/lib/crypto";
import { readCycles } from "../src/sources/cycle-summary";
import { queueSync } from "../src/sync/run-sync";
import { enabledSources, insertSource, listSources, sourceById } from "../src/sources/sources.queries";
import { storeDbById } from "../src/stores/stores.queries";

const seedQuery = z.object({ sourceId: z.string(), count: z.coerce.number().int().min(1).max(100_000) });
const dispatchQuery = z.object({ mode: z.enum(["await", "queue", "alarms"]), at: z.coerce.number().int() });
const progressQuery = z.object({ storeId: z.string(), since: z.coerce.number().int() });

/** Source rows per db.batch while seeding. */
const SEED_BATCH = 100;

/** The shard database of a source's store (found by asking every shard). */
async function sourceDb(env: Env, sourceId: string) {
  const storeId = await locateStore(env, async (db) => (await sourceById(db, sourceId)) ?? undefined);
  return storeId === undefined ? undefined : storeDbById(env, storeId);
}

/** Every enabled source of every shard, as the cron lists them. */
async function allEnabled(env: Env) {
  return (await Promise.all(shardNames(env).map((shard) => enabledSources(shardDb(env, shard), shard)))).flat();
}

export const fanoutBenchRoutes = createRouter()
  // `count` enabled copies of one source (its encrypted Settings too), in its store.
  .post("/seed", validate("query", seedQuery), async (c) => {
    const { sourceId, count } = c.req.valid("query");
    const db = await sourceDb(c.env, sourceId);
    const source = db && (await sourceById(db, sourceId));
    if (!db || !source) throw new ApiError(404, `No source '${sourceId}'.`);
    for (let i = 0; i < count; i += SEED_BATCH) {
      const rows = Array.from({ length: Math.min(SEED_BATCH, count - i) }, (_, k) => ({
        ...source,
        id: randomId("src"),
        name: `${source.name} ${i + k + 1}`,
        enabled: true,
      }));
      const [first, ...rest] = rows.map((row) => insertSource(db, row));
      await db.batch([first!, ...rest]);
    }
    return ok(c, { Seeded: count });
  })
  // The cron's dispatch, timed: `queue` is src/index.ts's scheduled handler; `await` is the
  // baseline, the dispatch before the queue (one awaited SourceSync call per source, all at once,
  // in the cron's one invocation); `alarms` hands every object its slot at once without the queue
  // (what the consumer does, all in one invocation), to tell the queue's local delivery from the
  // objects' alarms.
  .post("/dispatch", validate("query", dispatchQuery), async (c) => {
    const { mode, at } = c.req.valid("query");
    const started = Date.now();
    let sources: number;
    if (mode === "queue") {
      sources = await queueSync(c.env, at);
    } else if (mode === "alarms") {
      const ids = await allEnabled(c.env);
      await Promise.all(ids.map(({ id, storeId }) => c.env.SOURCE_SYNC.getByName(id).queueCycle(id, at, storeId)));
      sources = ids.length;
    } else {
      const ids = await allEnabled(c.env);
      await Promise.allSettled(ids.map(({ id, storeId }) => c.env.SOURCE_SYNC.getByName(id).runCycle(id, at, storeId)));
      sources = ids.length;
    }
    return ok(c, { Sources: sources, Ms: Date.now() - started });
  })
  // The store's cycles started at or after `since` (ms): how many, the first and last start, the last end.
  .get("/progress", validate("query", progressQuery), async (c) => {
    const { storeId, since } = c.req.valid("query");
    const starts: number[] = [];
    let lastEnd = 0;
    const db = await storeDbById(c.env, storeId);
    if (!db) throw new ApiError(404, `No store '${storeId}'.`);
    for (const row of await listSources(db, storeId)) {
      const cycle = readCycles(row.recentCycles).find((y) => y.startedAt >= since);
      if (!cycle) continue;
      starts.push(cycle.startedAt);
      lastEnd = Math.max(lastEnd, cycle.endedAt);
    }
    return ok(c, { Started: starts.length, FirstStart: Math.min(...starts), LastStart: Math.max(...starts), LastEnd: lastEnd });
  });
