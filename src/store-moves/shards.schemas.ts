// A shard and a store's move on the wire: the zod descriptions the OpenAPI document shows, which
// shards.routes.ts answers and the console reads.
import { z } from "zod";
import { wireDateOrNull } from "../lib/dates";
import { STORE_MOVE_STATES } from "../db/schema";

export const shardAnswer = z
  .object({
    Shard: z.string().describe("The D1 binding's name (SHARD_1, ...); DB is the directory, home of stores made before sharding."),
    Stores: z.number().int(),
    Orders: z.number().int(),
    OrderItems: z.number().int(),
    Products: z.number().int(),
    Draining: z.boolean().describe("No new store is placed on a draining shard (DRAINING_SHARDS; the directory always)."),
  })
  .meta({ id: "Shard" });

export const moveAnswer = z
  .object({
    StoreId: z.string(),
    FromShard: z.string(),
    ToShard: z.string(),
    Status: z.enum(STORE_MOVE_STATES),
    Phase: z.string().describe("The step: capture, copy, catch-up, fence, drain, flip, grants, grace, cleanup, abandon, done (docs/sharding.md)."),
    RowsCopied: z.number().int(),
    ChangesApplied: z.number().int().describe("Changes made during the copy, replayed on the new shard."),
    RowsRemoved: z.number().int().describe("Rows removed from the old shard once switched (or of the new one's copy, if abandoned)."),
    WritesHeld: z.boolean().describe("Writes answer 503 with Retry-After now (the switch)."),
    WriteHoldMs: z.number().int().nullable().describe("How long writes were held, once the switch is over."),
    DateStarted: wireDateOrNull,
    DateSwitched: wireDateOrNull,
    DateFinished: wireDateOrNull,
    Error: z.string().nullable().describe("The last step's failure (it is tried again), or why the move was given up."),
  })
  .meta({ id: "StoreMove" });

export const moveBody = z.object({ Shard: z.string().min(1).max(64) });
