// Benchmark-only route of bench/stock.bench.mjs (served by bench/sync-worker.ts, never by the
// production Worker): the baseline of the stock push. It runs the cycle's own plan and due
// reads (src/stock/listings.queries.ts) and the same simulated connector, but records each
// Sku's outcome with its own statement (a batch of 1,000 per push) instead of the cycle's one
// statement per push: what the listings design saves over the per-row way delivery records.
import { z } from "zod";
import { locateStore } from "../src/db/shards";
import { storeDbById } from "../src/stores/stores.queries";
import { ApiError } from "../src/http/errors";
import { ok } from "../src/http/envelope";
import { createRouter } from "../src/app-env";
import { validate } from "../src/http/validate";
import { decryptJson } from "../src/lib/crypto";
import { dueListings, planCursor, planListings, PLAN_ROWS, recordOutcomes } from "../src/stock/listings.queries";
import { sourceById } from "../src/sources/sources.queries";
import { createSimulatedConnector } from "../src/marketplaces/simulated/simulated.connector";
import { memoryStorage } from "../src/marketplaces/storage";
import { countStatements } from "../src/sync/cycle";

const query = z.object({ sourceId: z.string() });

export const stockBenchRoutes = createRouter().post("/stock-baseline", validate("query", query), async (c) => {
  const { sourceId } = c.req.valid("query");
  const storeId = await locateStore(c.env, async (db) => (await sourceById(db, sourceId)) ?? undefined);
  const home = storeId === undefined ? undefined : await storeDbById(c.env, storeId);
  const source = home && (await sourceById(home, sourceId));
  if (!home || !source || source.type !== "simulated") throw new ApiError(404, `No simulated source '${sourceId}'.`);
  const settings = await decryptJson<Record<string, unknown>>(c.env.SOURCE_SETTINGS_KEY, source.settingsCiphertext);
  const push = createSimulatedConnector({ sourceId, settings, fetch, now: () => new Date() }, memoryStorage()).listings!;
  const counted = countStatements(home.$client);
  const d1 = counted.d1;
  const now = Date.now();
  for (;;) {
    const planned = await planListings(d1, source, await planCursor(d1, sourceId), PLAN_ROWS, now);
    if (planned < PLAN_ROWS) break;
  }
  let sent = 0;
  for (;;) {
    const due = await dueListings(d1, sourceId, now, push.batchSize);
    if (due.length === 0) break;
    const updates = due.map((r) => ({
      sku: r.sku,
      quantity: r.pendingQuantity,
      price: r.pendingPrice === r.acceptedPrice ? null : r.pendingPrice,
      currency: r.currency ?? "USD",
    }));
    const outcomes = await push.push(updates);
    await d1.batch(
      updates.map((u) =>
        recordOutcomes(
          d1,
          sourceId,
          [{ sku: u.sku, state: outcomes.get(u.sku)?.state === "accepted" ? "accepted" : "retry", quantity: u.quantity, price: u.price, message: null }],
          now,
        ),
      ),
    );
    sent += updates.length;
  }
  return ok(c, { Sent: sent, D1Statements: counted.count() });
});
