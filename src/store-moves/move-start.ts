// Starting a store's move (POST /admin/v1/stores/:storeId/move) and waking the movers of moves
// not yet finished (the cron), so a move whose object lost its alarm still finishes.
import { directoryDb, drainingShards } from "../db/shards";
import { ApiError } from "../http/errors";
import type { StoreRow } from "../stores/stores.queries";
import { moveRefusal } from "./move";
import { findMove, startMove, unfinishedMoves, type MoveRow } from "./store-moves.queries";

export async function startStoreMove(env: Env, store: StoreRow, toShard: string, now: number): Promise<MoveRow> {
  const directory = directoryDb(env);
  const active = await findMove(directory, store.id);
  const refusal = moveRefusal(env, store, toShard, drainingShards(env), active);
  if (refusal) throw new ApiError(active && refusal.includes("already moving") ? 409 : 400, refusal);
  const move = await startMove(directory, {
    storeId: store.id,
    fromShard: store.shard,
    toShard,
    status: "copying",
    phase: "capture",
    cursor: null,
    rowsCopied: 0,
    changesApplied: 0,
    rowsRemoved: 0,
    startedAt: now,
    updatedAt: now,
    writesHeldAt: null,
    writeHoldMs: null,
    switchedAt: null,
    finishedAt: null,
    error: null,
  });
  await env.STORE_MOVER.getByName(store.id).start(store.id);
  return move;
}

export async function resumeMoves(env: Env): Promise<void> {
  const storeIds = await unfinishedMoves(directoryDb(env));
  await Promise.all(storeIds.map((storeId) => env.STORE_MOVER.getByName(storeId).start(storeId)));
}
