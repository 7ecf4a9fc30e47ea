// GET /admin/v1/shards: every shard with the stores living in it and what they hold, and whether
// new stores may be placed on it; POST and GET /admin/v1/stores/:storeId/move: a store's move to
// another shard and its progress, DELETE of it: the move given up before it switches (decisions 10;
// how a move runs: move.ts).
import { z } from "zod";
import { createRouter } from "../app-env";
import { ok } from "../http/envelope";
import { documented, envelope } from "../http/openapi";
import { validate } from "../http/validate";
import { toWireDate } from "../lib/dates";
import { ApiError } from "../http/errors";
import { directoryDb } from "../db/shards";
import { requireStore } from "../stores/stores.queries";
import { storeParam } from "../stores/stores.schemas";
import { shardViews } from "../stores/placement";
import { moveAnswer, moveBody, shardAnswer } from "./shards.schemas";
import { giveUpStoreMove, startStoreMove } from "./move-start";
import { findMove, type MoveRow } from "./store-moves.queries";

function wireMove(m: MoveRow): z.input<typeof moveAnswer> {
  return {
    StoreId: m.storeId,
    FromShard: m.fromShard,
    ToShard: m.toShard,
    Status: m.status,
    Phase: m.phase,
    RowsCopied: m.rowsCopied,
    ChangesApplied: m.changesApplied,
    RowsRemoved: m.rowsRemoved,
    WritesHeld: m.writesHeldAt !== null && m.writeHoldMs === null && m.status === "switching",
    WriteHoldMs: m.writeHoldMs,
    DateStarted: toWireDate(m.startedAt),
    DateSwitched: toWireDate(m.switchedAt),
    DateFinished: toWireDate(m.finishedAt),
    Error: m.error,
  };
}

export const shardsRoutes = createRouter()
  .post(
    "/stores/:storeId/move",
    documented("admin", {
      summary:
        "Move a store to another shard (answered at once; progress on GET). A store over its limits moves like any other; two requests at once start one " +
        "move, the other answers 409.",
      tags: ["Shards"],
      answer: envelope({ Move: moveAnswer }),
      errors: [409],
    }),
    validate("param", storeParam),
    validate("json", moveBody),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      return ok(c, { Move: wireMove(await startStoreMove(c.env, store, c.req.valid("json").Shard, Date.now())) });
    },
  )
  .delete(
    "/stores/:storeId/move",
    documented("admin", {
      summary:
        "Give up the store's move before it switches: the store stays where it was, the partial copy and the old shard's change log are removed (the move " +
        "ends failed, Phase abandon until then). 409 once the move has switched or when none is under way.",
      tags: ["Shards"],
      answer: envelope({ Move: moveAnswer }),
      errors: [404, 409],
    }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      return ok(c, { Move: wireMove(await giveUpStoreMove(c.env, store.id, Date.now())) });
    },
  )
  .get(
    "/stores/:storeId/move",
    documented("admin", { summary: "The store's latest move and its progress", tags: ["Shards"], answer: envelope({ Move: moveAnswer }) }),
    validate("param", storeParam),
    async (c) => {
      const { storeId } = c.req.valid("param");
      const move = await findMove(directoryDb(c.env), storeId);
      if (!move) throw new ApiError(404, `Store '${storeId.slice(0, 40)}' has never been moved.`);
      return ok(c, { Move: wireMove(move) });
    },
  )
  .get(
    "/shards",
    documented("admin", { summary: "List the shards and what each holds", tags: ["Shards"], answer: envelope({ Shards: z.array(shardAnswer) }) }),
    async (c) => {
      const views = await shardViews(c.env);
      return ok(c, {
        Shards: views.map((v) => ({
          Shard: v.shard,
          Stores: v.stores,
          Orders: v.orders,
          OrderItems: v.orderItems,
          Products: v.products,
          Draining: v.draining,
        })),
      });
    },
  );
