// GET /admin/v1/shards: every shard with the stores living in it and what they hold, and whether
// new stores may be placed on it (decisions 10).
import { z } from "zod";
import { createRouter } from "../http/create-router";
import { ok } from "../http/envelope";
import { documented, envelope } from "../http/openapi";
import { shardViews } from "./placement";

const shardAnswer = z
  .object({
    Shard: z.string().describe("The D1 binding's name (SHARD_1, ...); DB is the directory, home of stores made before sharding."),
    Stores: z.number().int(),
    Orders: z.number().int(),
    OrderItems: z.number().int(),
    Products: z.number().int(),
    Draining: z.boolean().describe("No new store is placed on a draining shard (DRAINING_SHARDS; the directory always)."),
  })
  .meta({ id: "Shard" });

export const shardsRoutes = createRouter().get(
  "/shards",
  documented("admin", { summary: "List the shards and what each holds", tags: ["Shards"], answer: envelope({ Shards: z.array(shardAnswer) }) }),
  async (c) => {
    const views = await shardViews(c.env);
    return ok(c, {
      Shards: views.map((v) => ({ Shard: v.shard, Stores: v.stores, Orders: v.orders, OrderItems: v.orderItems, Products: v.products, Draining: v.draining })),
    });
  },
);
