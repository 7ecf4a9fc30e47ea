// A store's move from one shard to another (decisions 10), as steps a Durable Object's alarm runs
// one after another (src/store-moves/store-mover.ts), each saved in the directory's store_moves row
// before the next, so a move cut off anywhere (a deploy, a crash, the service killed) goes on from
// its last saved step and copies nothing twice that matters (every write is an upsert by key).
//
//   capture   the old shard logs every change of the store's rows from now on (its triggers); the
//             new shard gets a fresh id epoch and a copy of the store's row
//   copy      the rows, in bounded batches, while the store is read and written as usual
//   catch-up  the changes logged meanwhile, replayed until few are left
//   fence     writes held: the old shard refuses every write of the store ('store_moved', a 503
//             with Retry-After to clients), the keys' limiters answer writes 503 at once
//   drain     the last logged changes replayed: the new copy is now exact
//   flip      the directory (and both copies of the store's row) name the new shard: reads and
//             writes go there from the next request
//   grants    every key's limiter learns the new shard; the hold ends
//   grace     requests that started before the flip finish against the old shard's fence
//   cleanup   the old copy removed in batches; completed when none of it is left
//
// A store deleted during a move abandons it: the new shard's partial copy is removed instead.
import { directoryDb, issueEpoch, isShard, shardD1, shardDb } from "../db/shards";
import { keysOfStore } from "../consumer-keys/consumer-keys.queries";
import { publishGrant } from "../throttle/rate-limiter";
import { copyStoreRow, findStore, setStoreShard } from "../stores/stores.queries";
import { applyChanges, COPY_START, copyBatch, REMOVE_START, removeBatch, type CopyCursor, type RemoveCursor } from "./move-copy";
import { captureChanges, fenceStore, findMove, releaseStore, saveMove, stopCapture, type MoveRow } from "./store-moves.queries";

export type MovePhase = "capture" | "copy" | "catch-up" | "fence" | "drain" | "flip" | "grants" | "grace" | "cleanup" | "abandon" | "done";

export interface MoveLimits {
  /** Orders (with their lines and outbox rows), or other rows, per copy batch. */
  rows: number;
  /** Logged changes replayed per batch. */
  changes: number;
  /** Catch-up ends (and writes are held) once one pass finds no more than this many changes. */
  fewChanges: number;
  /** How long requests that started before the flip may still be answered from the old shard. */
  graceMs: number;
  /** Rows removed per batch from the old shard. */
  removeRows: number;
}

export const MOVE_LIMITS: MoveLimits = { rows: 200, changes: 500, fewChanges: 500, graceMs: 30_000, removeRows: 1_000 };

/** What a step run answers its Durable Object: the move as saved, and when to run again (null: finished). */
export interface StepOutcome {
  move: MoveRow | undefined;
  nextAt: number | null;
}

/**
 * Runs the move's steps until `budgetMs` is spent, the move finishes, or it must wait (the grace).
 * Every step's result is saved before the next starts. A step that throws leaves the move as last
 * saved with the error noted; the object runs it again later.
 */
export async function runMove(env: Env, storeId: string, limits: MoveLimits, budgetMs: number, now: () => number = Date.now): Promise<StepOutcome> {
  const directory = directoryDb(env);
  const started = now();
  let move = await findMove(directory, storeId);
  let ran = false;
  while (move && (move.status === "copying" || move.status === "switching")) {
    // At least one step per run, so a run with no budget still moves on.
    if (now() - started >= budgetMs && ran) return { move, nextAt: now() };
    ran = true;
    try {
      const next = await step(env, move, limits, now);
      if (next === "wait") return { move, nextAt: waitUntil(move) };
      // A step that went through clears the last failure; a move given up keeps why.
      move = { ...next, updatedAt: now(), error: next.status === "failed" ? next.error : null };
    } catch (error) {
      move = { ...move, updatedAt: now(), error: String(error instanceof Error ? error.message : error).slice(0, 500) };
      await saveMove(directory, move);
      throw error;
    }
    await saveMove(directory, move);
    await yieldToOtherRequests();
  }
  return { move, nextAt: null };
}

/**
 * A 5 ms pause between steps. Locally (wrangler dev, npm start, the tests) D1 answers inside the
 * same workerd process, so a mover's unbroken run of awaited D1 calls left workerd no idle moment
 * to take connections or send answers: every request waited out the alarm's run (20 s), and with a
 * zero-delay timer between steps a streamed list page of the moving store still took the whole
 * run (bench/shards.bench.mjs measured both; docs/sharding.md#measured). In production D1 is remote
 * and this costs 5 ms a step: about 25 s over a million-order copy of 5,000 batches.
 */
const yieldToOtherRequests = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

const waitUntil = (move: MoveRow) => (move.cursor as { until: number }).until;

/** One step of the move: the row to save, or "wait" (the grace has not passed). */
async function step(env: Env, move: MoveRow, limits: MoveLimits, now: () => number): Promise<MoveRow | "wait"> {
  const { storeId, fromShard, toShard } = move;
  const phase = move.phase as MovePhase;
  const directory = directoryDb(env);
  const from = shardD1(env, fromShard);
  const to = shardD1(env, toShard);
  const store = await findStore(directory, storeId);
  if (!store && phase !== "abandon" && phase !== "grace" && phase !== "cleanup" && phase !== "grants") {
    // Deleted while moving, before the flip: it stays where it was, to be purged there.
    await shardDb(env, fromShard).batch(releaseStore(shardDb(env, fromShard), storeId));
    return { ...move, phase: "abandon", cursor: REMOVE_START };
  }
  switch (phase) {
    case "capture": {
      const old = shardDb(env, fromShard);
      await captureChanges(old, storeId, now());
      // Ids the new shard hands out from now on are above every id that exists, these included.
      await issueEpoch(env, toShard, now());
      await copyStoreRow(shardDb(env, toShard), { ...store!, shard: fromShard });
      return { ...move, phase: "copy", cursor: COPY_START };
    }
    case "copy": {
      const result = await copyBatch(from, to, storeId, move.cursor as CopyCursor, limits);
      const done = result.cursor.phase === "done";
      return { ...move, phase: done ? "catch-up" : "copy", cursor: done ? null : result.cursor, rowsCopied: move.rowsCopied + result.rows };
    }
    case "catch-up": {
      const result = await applyChanges(from, to, storeId, limits.changes);
      const few = result.applied <= limits.fewChanges && !result.more;
      return { ...move, phase: few ? "fence" : "catch-up", changesApplied: move.changesApplied + result.applied };
    }
    case "fence": {
      const heldAt = now();
      // Clients are told at once by their keys' limiters; the fence is what guarantees it.
      await publishToKeys(env, storeId, { deleted: false, shard: fromShard, writesHeldUntil: heldAt + limits.graceMs });
      await fenceStore(shardDb(env, fromShard), storeId, false);
      return { ...move, status: "switching", phase: "drain", writesHeldAt: heldAt };
    }
    case "drain": {
      const result = await applyChanges(from, to, storeId, limits.changes);
      return { ...move, phase: result.more ? "drain" : "flip", changesApplied: move.changesApplied + result.applied };
    }
    case "flip": {
      // The store's row as the directory has it now (limits changed meanwhile included).
      await copyStoreRow(shardDb(env, toShard), { ...store!, shard: toShard });
      await setStoreShard(shardDb(env, fromShard), storeId, toShard);
      await setStoreShard(directory, storeId, toShard);
      return { ...move, phase: "grants", switchedAt: now() };
    }
    case "grants": {
      await publishToKeys(env, storeId, { deleted: !store, shard: toShard });
      return { ...move, phase: "grace", writeHoldMs: now() - (move.writesHeldAt ?? now()), cursor: { until: now() + limits.graceMs } };
    }
    case "grace": {
      if (now() < waitUntil(move)) return "wait";
      const old = shardDb(env, fromShard);
      await old.batch([fenceStore(old, storeId, true), stopCapture(old, storeId)]);
      return { ...move, phase: "cleanup", cursor: REMOVE_START };
    }
    case "cleanup":
    case "abandon": {
      // Cleanup empties the old shard; abandoning empties the new one of its partial copy.
      const shard = phase === "cleanup" ? from : to;
      const result = await removeBatch(shard, storeId, move.cursor as RemoveCursor, limits.removeRows);
      const removed = move.rowsRemoved + result.rows;
      if (result.cursor) return { ...move, cursor: result.cursor, rowsRemoved: removed };
      return { ...move, status: phase === "cleanup" ? "completed" : "failed", phase: "done", cursor: null, rowsRemoved: removed, finishedAt: now(), ...(phase === "abandon" ? { error: "The store was deleted during its move." } : {}) };
    }
    case "done":
      return { ...move, status: "completed" };
  }
}

/** Every key of the store is told its store's shard (and any hold); one that cannot be reached fails the step, which runs again. */
async function publishToKeys(env: Env, storeId: string, store: { deleted: boolean; shard: string; writesHeldUntil?: number }): Promise<void> {
  const keys = await keysOfStore(directoryDb(env), storeId);
  await Promise.all(keys.map((key) => publishGrant(env, key, store)));
}

/** Why a move cannot start, or null. */
export function moveRefusal(env: Env, current: { shard: string }, to: string, draining: Set<string>, active: MoveRow | undefined): string | null {
  if (!isShard(env, to)) return `Shard '${to.slice(0, 60)}' is not one of this hub's shards.`;
  if (to === current.shard) return `The store already lives in shard '${to}'.`;
  if (draining.has(to)) return `Shard '${to}' is draining: no store is moved into it.`;
  if (active && (active.status === "copying" || active.status === "switching")) return `The store is already moving to '${active.toShard}' (${active.status}); wait for it to finish.`;
  return null;
}
