// POST /admin/v1/sync[?sourceId=]: runs a cycle now, for every enabled source or for one, and
// answers its summary (decisions 8). The cron runs the same thing (src/sync/run-sync.ts); this
// route is the sources resource's way in to the engine, beside the sources routes.
import { z } from "zod";
import { storeOfRow } from "../stores/stores.queries";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { cycleAnswer } from "../sources/sources.schemas";
import { toWireDate, wireDateOrNull } from "../lib/dates";
import { runSync } from "./run-sync";
import { sourceById } from "../sources/sources.queries";
import { toWireCycle } from "../sources/sources.wire";

const syncQuery = z.object({ sourceId: z.string().min(1).optional() });

export const syncRoutes = createRouter().post(
  "/sync",
  documented("admin", {
    summary: "Run a sync cycle now (every enabled source, or one)",
    tags: ["Sync"],
    answer: envelope({
      Sync: z.object({
        DateStarted: wireDateOrNull,
        OrdersImported: z.number().int(),
        Delivered: z.number().int(),
        DeliveriesFailed: z.number().int(),
        Sources: z.array(cycleAnswer),
        /** A hub of over 100 enabled sources (and no sourceId) queues them: Sources is empty then. */
        Queued: z.number().int(),
      }),
    }),
  }),
  validate("query", syncQuery),
  async (c) => {
    const { sourceId } = c.req.valid("query");
    let only: { sourceId: string; storeId: string } | undefined;
    if (sourceId !== undefined) {
      // Known by its id alone: its store is found in the shards, then its row read where the store lives.
      const home = await storeOfRow(c.env, (db) => sourceById(db, sourceId));
      const source = home && (await sourceById(home.db, sourceId));
      if (!source) throw new ApiError(404, `No source with SourceId '${sourceId.slice(0, 40)}'.`);
      if (!source.enabled) throw new ApiError(400, `Source '${sourceId}' is disabled; enable it (PATCH Enabled: true) to sync it.`);
      only = { sourceId, storeId: source.storeId };
    }
    const summary = await runSync(c.env, Date.now(), only === undefined ? {} : { sources: [only] });
    const cycles = summary.sources.map(toWireCycle);
    return ok(c, {
      Sync: {
        DateStarted: toWireDate(summary.startedAt),
        OrdersImported: cycles.reduce((n, s) => n + s.OrdersImported, 0),
        Delivered: cycles.reduce((n, s) => n + s.Delivered, 0),
        DeliveriesFailed: cycles.reduce((n, s) => n + s.DeliveriesFailed, 0),
        Sources: cycles,
        Queued: summary.queued,
      },
    });
  },
);
