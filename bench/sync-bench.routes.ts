// Benchmark-only routes (bench/sync.bench.mjs), served only by the benchmark's own entry
// (bench/sync-worker.ts): the production Worker (src/index.ts) never imports this file. Every
// statement goes through its table's owner module, like the service's own.
import { z } from "zod";
import { locateStore, shardDb } from "../src/db/shards";
import { ApiError } from "../src/http/errors";
import { ok } from "../src/http/envelope";
import { createRouter } from "../src/app-env";
import { validate } from "../src/http/validate";
import { decryptJson, randomId } from "../src/lib/crypto";
import type { ImportedOrder } from "../src/marketplaces/connector";
import { createSimulatedConnector } from "../src/marketplaces/simulated/simulated.connector";
import { memoryStorage } from "../src/marketplaces/storage";
import { countStatements } from "../src/sync/cycle";
import { importWindow } from "../src/sync/importer";
import { toWrite } from "../src/sources/imported-page";
import { markProcessingForBench, plainInsertStatements } from "../src/orders/orders.writes";
import { countsBySource, enqueueAcknowledgementsOf } from "../src/outbox/outbox.queries";
import { sourceById } from "../src/sources/sources.queries";
import { insertStore, requireStore, storeDbById } from "../src/stores/stores.queries";

const sourceQuery = z.object({ sourceId: z.string(), count: z.coerce.number().int().min(1).max(100_000).optional() });

/** Orders per db.batch in the baseline: two statements each (the order, then its lines). */
const BASELINE_BATCH = 50;

export const benchRoutes = createRouter()
  // The baseline: the same simulated orders as one import cycle of the source, with the values
  // the import writes, inserted into a fresh store with plain drizzle inserts in db.batch (no
  // upsert, no JSON packing).
  .post("/baseline-import", validate("query", sourceQuery), async (c) => {
    const { sourceId } = c.req.valid("query");
    // The baseline store goes in the source's store's shard, so both write to the same database.
    const owner = await locateStore(c.env, async (db) => (await sourceById(db, sourceId)) ?? undefined);
    const home = owner === undefined ? undefined : await requireStore(c.env, owner);
    const source = home && (await sourceById(shardDb(c.env, home.shard), sourceId));
    if (!home || !source || source.type !== "simulated") throw new ApiError(404, `No simulated source '${sourceId}'.`);
    const settings = await decryptJson<Record<string, unknown>>(c.env.SOURCE_SETTINGS_KEY, source.settingsCiphertext);
    const connector = createSimulatedConnector({ sourceId, settings, fetch, now: () => new Date() }, memoryStorage());
    const counted = countStatements(shardDb(c.env, home.shard).$client);
    const countedEnv = { ...c.env, [home.shard]: counted.d1 } as Env;
    const db = shardDb(countedEnv, home.shard);
    const storeId = randomId("st");
    await insertStore(countedEnv, { id: storeId, name: "bench baseline", maskBuyerPii: false, createdAt: Date.now(), shard: home.shard });
    const window = importWindow(null, Date.now());
    let cursor: string | null = null;
    let inserted = 0;
    do {
      const page: { orders: ImportedOrder[]; nextCursor: string | null } = await connector.fetchOrders(
        { since: new Date(window.since), until: new Date(window.until) },
        cursor,
      );
      for (let i = 0; i < page.orders.length; i += BASELINE_BATCH) {
        const part = page.orders.slice(i, i + BASELINE_BATCH);
        const now = Date.now();
        const statements = part.flatMap((o) => plainInsertStatements(db, storeId, source.name, toWrite(o, now), now));
        await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
        inserted += part.length;
      }
      cursor = page.nextCursor;
    } while (cursor !== null);
    return ok(c, { Inserted: inserted, D1Statements: counted.count() });
  })
  // Puts `count` imported orders of the source in Processing with a pending acknowledgement each,
  // as `count` AcknowledgeOrder calls would, without paying for the calls.
  .post("/enqueue-acknowledgements", validate("query", sourceQuery), async (c) => {
    const { sourceId, count = 1000 } = c.req.valid("query");
    const now = Date.now();
    const owner = await locateStore(c.env, async (db) => (await sourceById(db, sourceId)) ?? undefined);
    const db = owner === undefined ? undefined : await storeDbById(c.env, owner);
    if (!db) throw new ApiError(404, `No source '${sourceId}'.`);
    await db.$client.batch([markProcessingForBench(db, sourceId, count, now), enqueueAcknowledgementsOf(db, sourceId, now)]);
    const pending = (await countsBySource(db, [sourceId])).get(sourceId)?.pending ?? 0;
    return ok(c, { Pending: pending });
  });
