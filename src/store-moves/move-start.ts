// Starting a store's move (POST /admin/v1/stores/:storeId/move), giving one up before it switches
// (DELETE of the same path), and waking the movers of moves not yet finished (the cron), so a move
// whose object lost its alarm still finishes. Starting and giving up are each one compare-and-set
// statement on the directory's store_moves row, so two requests at once never both win.
import { directoryDb, drainingShards } from "../db/shards";
import { ApiError } from "../http/errors";
import type { StoreRow } from "../stores/stores.queries";
import { moveRefusal } from "./move";
import { claimMove, findMove, giveUpMove, unfinishedMoves, type MoveRow } from "./store-moves.queries";

export async function startStoreMove(env: Env, store: StoreRow, toShard: string, now: number): Promise<MoveRow> {
  const directory = directoryDb(env);
  const active = await findMove(directory, store.id);
  const refusal = moveRefusal(env, store, toShard, drainingShards(env), active);
  if (refusal) throw new ApiError(active && refusal.includes("already moving") ? 409 : 400, refusal);
  const move = await claimMove(directory, {
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
  if (!move) {
    // Another request started one between our read and our claim.
    const other = await findMove(directory, store.id);
    throw new ApiError(409, `The store is already moving to '${other?.toShard ?? "another shard"}'; wait for it to finish, or give it up with DELETE.`);
  }
  await env.STORE_MOVER.getByName(store.id).start(store.id);
  return move;
}

export const GIVEN_UP = "The move was given up (DELETE /admin/v1/stores/{storeId}/move): the store stays where it was; the partial copy is removed.";

/**
 * Gives up the store's move if it has not switched: its mover releases the old shard (writes taken
 * again, nothing logged), tells the keys the store stays, and removes the partial copy; the move
 * ends `failed`. A move already being given up answers as it is; one that has switched, or none
 * under way, is a 409; a store never moved a 404.
 */
export async function giveUpStoreMove(env: Env, storeId: string, now: number): Promise<MoveRow> {
  const directory = directoryDb(env);
  const given = await giveUpMove(directory, storeId, now, GIVEN_UP);
  const move = given ?? (await findMove(directory, storeId));
  if (!move) throw new ApiError(404, `Store '${storeId.slice(0, 40)}' has never been moved.`);
  if (!given) {
    const active = move.status === "copying" || move.status === "switching";
    if (active && move.phase === "abandon") return move;
    if (active || (move.switchedAt !== null && move.status !== "failed")) {
      throw new ApiError(409, `The move to '${move.toShard}' has switched (${move.phase}): the store lives there now and the move finishes on its own.`);
    }
    throw new ApiError(409, `No move of this store is under way (the last one is ${move.status}).`);
  }
  await env.STORE_MOVER.getByName(storeId).start(storeId);
  return given;
}

export async function resumeMoves(env: Env): Promise<void> {
  const storeIds = await unfinishedMoves(directoryDb(env));
  await Promise.all(storeIds.map((storeId) => env.STORE_MOVER.getByName(storeId).start(storeId)));
}
