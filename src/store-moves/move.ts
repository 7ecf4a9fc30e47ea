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
// A store deleted during a move, or a move given up by its operator (DELETE .../move) before the
// switch, abandons it: the old shard's fence, capture and log are removed, the keys are told the
// store stays (no hold), and the new shard's partial copy is removed.
//
// Nothing done during a move is undone by it (decisions 10): the flip switches the directory in
// one statement conditioned on the move being at its switch (a give-up and the switch exclude
// each other), then writes the directory's row as switched into the copies, which keep only the
// newest revision of a store's row; keys are told grants their limiters merge so that revocation
// always wins and an older store part never replaces a newer one (src/throttle/grants.ts); a key
// created during the move reads the directory after it exists (src/stores/stores.routes.ts).
// While copying, the new shard's copy of the store row holds no limits (a move's copy is never
// refused by them); the flip writes the store's own limits there.
//
// Every run counts what it asks of D1 and of other objects (src/store-moves/invocation.ts) and
// stops before the next step could cross Cloudflare's per-invocation limits; the next alarm goes on.
import { directoryDb, DIRECTORY, issueEpoch, isShard, shardD1, shardDb } from "../db/shards";
import { keysOfStorePage } from "../consumer-keys/consumer-keys.queries";
import { publishGrant } from "../throttle/rate-limiter";
import { LIMITS } from "../stores/limits";
import { directoryRow, findStore, switchStoreShard, upsertStoreCopy, type StoreRow } from "../stores/stores.queries";
import { applyChanges, COPY_START, copyBatch, REMOVE_START, removeBatch, type CopyCursor, type RemoveCursor } from "./move-copy";
import { CLOUDFLARE_LIMITS } from "../lib/binding-tally";
import { countedEnv, type InvocationCount } from "./invocation";
import {
  BEFORE_SWITCH,
  captureChanges,
  clearMoveLog,
  fenceStore,
  findMove,
  releaseStore,
  saveMove,
  stillAtSwitch,
  stopCapture,
  type MoveRow,
} from "./store-moves.queries";

export type MovePhase = "capture" | "copy" | "catch-up" | "fence" | "drain" | "flip" | "grants" | "grace" | "cleanup" | "abandon" | "done";

export interface MoveLimits {
  /** Orders (with their lines and outbox rows), or other rows, per copy batch. */
  rows: number;
  /** Bytes a copy batch, or a replay of changes, reads and writes at most (besides one row that is larger alone). */
  bytes: number;
  /** Logged changes replayed per batch. */
  changes: number;
  /** Catch-up ends (and writes are held) once one pass finds no more than this many changes. */
  fewChanges: number;
  /** How long requests that started before the flip may still be answered from the old shard. */
  graceMs: number;
  /** Rows removed per batch from the old shard (an order's lines count). */
  removeRows: number;
  /** Keys told of a hold or a switch per step. */
  keys: number;
}

export const MOVE_LIMITS: MoveLimits = { rows: 200, bytes: 1_000_000, changes: 500, fewChanges: 500, graceMs: 30_000, removeRows: 1_000, keys: 500 };

/**
 * What one step may ask of D1 at most, so a run stops before the next step could cross the limit:
 * the largest step is a replay of changes (a read of the log, a size read and a read per table,
 * one batch of a few statements per table, the log trimmed). A step of keys asks one call each.
 */
const STEP_D1_AT_MOST = 150;

/** A move step's limiter grants and the store they are built from. */
interface GrantedStore {
  deleted: boolean;
  shard: string;
  writesHeldUntil?: number;
  revision: number;
}

/**
 * Test-only: called by a step between what it read and what it writes from that read, so a test
 * can act in that window (revoke a key, delete or change the store) and show the step does not
 * undo it. Unset in production.
 */
export const moveTestHooks: { between?: (phase: MovePhase, storeId: string) => Promise<void> } = {};

/** What a step run answers its Durable Object: the move as saved, when to run again (null: finished), and what the run asked. */
export interface StepOutcome {
  move: MoveRow | undefined;
  nextAt: number | null;
  spent: InvocationCount;
}

/**
 * Runs the move's steps until `budgetMs` is spent, the move finishes, it must wait (the grace),
 * or the next step could cross a per-invocation limit. Every step's result is saved before the
 * next starts, by compare-and-set: a move given up meanwhile is read again and goes on as given up.
 * A step that throws leaves the move as last saved with the error noted; the object runs it again later.
 */
export async function runMove(plainEnv: Env, storeId: string, limits: MoveLimits, budgetMs: number, now: () => number = Date.now): Promise<StepOutcome> {
  const spent: InvocationCount = { d1Queries: 0, subrequests: 0, largestValueBytes: 0 };
  const env = countedEnv(plainEnv, spent);
  const directory = directoryDb(env);
  const started = now();
  let move = await findMove(directory, storeId);
  let ran = false;
  const room = () => spent.d1Queries + STEP_D1_AT_MOST <= CLOUDFLARE_LIMITS.d1Queries && spent.subrequests + limits.keys + 50 <= CLOUDFLARE_LIMITS.subrequests;
  while (move && (move.status === "copying" || move.status === "switching")) {
    // At least one step per run, so a run with no budget still moves on.
    if ((now() - started >= budgetMs || !room()) && ran) return { move, nextAt: now(), spent };
    ran = true;
    const read = { phase: move.phase, updatedAt: move.updatedAt };
    let next: MoveRow | "wait" | "reload";
    try {
      next = await step(env, move, limits, now);
    } catch (error) {
      const failed = { ...move, updatedAt: now(), error: String(error instanceof Error ? error.message : error).slice(0, 500) };
      await saveMove(directory, failed, read);
      throw error;
    }
    if (next === "wait") return { move, nextAt: waitUntil(move), spent };
    if (next !== "reload") {
      // A step that went through clears the last failure; a move given up keeps why.
      const saved = { ...next, updatedAt: Math.max(now(), move.updatedAt + 1), error: next.status === "failed" ? next.error : null };
      if (await saveMove(directory, saved, read)) {
        move = saved;
        await yieldToOtherRequests();
        continue;
      }
    }
    // The row changed under the step (given up), or the step found it must: read it again.
    move = await findMove(directory, storeId);
  }
  return { move, nextAt: null, spent };
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

/** The store row the new shard holds while the move copies: its limits lifted, so no limit refuses the copy. */
function withoutLimits(store: StoreRow): StoreRow {
  const lifted: Record<string, number> = {};
  for (const { column } of Object.values(LIMITS)) lifted[column] = Number.MAX_SAFE_INTEGER;
  return { ...store, ...lifted } as StoreRow;
}

/** The abandon step's cursor: the old shard released yet, the keys told up to, then the partial copy's removal. */
type AbandonCursor = RemoveCursor & { released?: boolean; keysAfter?: string; reason?: string };
/** The fence's and the grants' cursor: the last key told. */
type KeysCursor = { keysAfter: string } | null;

const DELETED = "The store was deleted during its move.";

/** One step of the move: the row to save, "wait" (the grace has not passed), or "reload" (the row is not what the step read). */
async function step(env: Env, move: MoveRow, limits: MoveLimits, now: () => number): Promise<MoveRow | "wait" | "reload"> {
  const { storeId, fromShard, toShard } = move;
  const phase = move.phase as MovePhase;
  const directory = directoryDb(env);
  const from = shardD1(env, fromShard);
  const to = shardD1(env, toShard);
  const store = await findStore(directory, storeId);
  if (!store && (BEFORE_SWITCH as readonly string[]).includes(phase)) {
    // Deleted while moving, before the flip: it stays where it was, to be purged there.
    return { ...move, phase: "abandon", cursor: { ...REMOVE_START, released: false, reason: DELETED } satisfies AbandonCursor };
  }
  switch (phase) {
    case "capture": {
      const old = shardDb(env, fromShard);
      await captureChanges(old, storeId, now());
      // Ids the new shard hands out from now on are above every id that exists, these included.
      await issueEpoch(env, toShard, now());
      await upsertStoreCopy(shardDb(env, toShard), withoutLimits({ ...store!, shard: fromShard }));
      return { ...move, phase: "copy", cursor: COPY_START };
    }
    case "copy": {
      const result = await copyBatch(from, to, storeId, move.cursor as CopyCursor, limits);
      const done = result.cursor.phase === "done";
      return { ...move, phase: done ? "catch-up" : "copy", cursor: done ? null : result.cursor, rowsCopied: move.rowsCopied + result.rows };
    }
    case "catch-up": {
      const result = await applyChanges(from, to, storeId, limits);
      const few = result.applied <= limits.fewChanges && !result.more;
      return { ...move, phase: few ? "fence" : "catch-up", changesApplied: move.changesApplied + result.applied };
    }
    case "fence": {
      const heldAt = move.writesHeldAt ?? now();
      // Clients are told at once by their keys' limiters (a page of keys a step); the fence in the
      // database is what guarantees it.
      const told = await tellKeys(env, storeId, move.cursor as KeysCursor, limits, "fence", {
        deleted: false,
        shard: fromShard,
        writesHeldUntil: heldAt + limits.graceMs,
        revision: store!.revision,
      });
      if (told) return { ...move, cursor: told, writesHeldAt: heldAt };
      await fenceStore(shardDb(env, fromShard), storeId, false);
      return { ...move, status: "switching", phase: "drain", cursor: null, writesHeldAt: heldAt };
    }
    case "drain": {
      const result = await applyChanges(from, to, storeId, limits);
      return { ...move, phase: result.more ? "drain" : "flip", changesApplied: move.changesApplied + result.applied };
    }
    case "flip": {
      // The directory names the new shard in one statement, only while this move is still at its
      // switch; the row it answers carries every change made before it (settings, limits).
      let row = await switchStoreShard(directory, storeId, fromShard, toShard, stillAtSwitch(storeId));
      if (!row) {
        // Switched by an earlier run of this step cut off before it was saved; else given up.
        const current = await directoryRow(directory, storeId);
        if (current?.shard !== toShard) return "reload";
        row = current;
      }
      await moveTestHooks.between?.("flip", storeId);
      // The copies take it only if newer: a change made after the switch has already written a newer one.
      await upsertStoreCopy(shardDb(env, toShard), row);
      if (fromShard !== DIRECTORY) await upsertStoreCopy(shardDb(env, fromShard), row);
      return { ...move, phase: "grants", cursor: null, switchedAt: now() };
    }
    case "grants": {
      const current = await directoryRow(directory, storeId);
      const told = await tellKeys(env, storeId, move.cursor as KeysCursor, limits, "grants", {
        deleted: !store,
        shard: toShard,
        revision: current?.revision ?? 0,
      });
      if (told) return { ...move, cursor: told };
      return { ...move, phase: "grace", writeHoldMs: now() - (move.writesHeldAt ?? now()), cursor: { until: now() + limits.graceMs } };
    }
    case "grace": {
      if (now() < waitUntil(move)) return "wait";
      const old = shardDb(env, fromShard);
      await old.batch([fenceStore(old, storeId, true), stopCapture(old, storeId)]);
      return { ...move, phase: "cleanup", cursor: REMOVE_START };
    }
    case "abandon": {
      const cursor = move.cursor as AbandonCursor;
      if (!cursor.released) {
        // The old shard first: writes taken again, nothing more logged, the log removed.
        const old = shardDb(env, fromShard);
        await old.batch(releaseStore(old, storeId));
        const removed = await clearMoveLog(old, storeId, limits.removeRows);
        if (removed >= limits.removeRows) return { ...move, cursor };
        // Then every key learns the store stays, with no hold on its writes.
        const current = await directoryRow(directory, storeId);
        const keys = cursor.keysAfter ? { keysAfter: cursor.keysAfter } : null;
        const told = await tellKeys(env, storeId, keys, limits, "abandon", { deleted: !store, shard: fromShard, revision: current?.revision ?? 0 });
        if (told) return { ...move, cursor: { ...cursor, keysAfter: told.keysAfter } };
        return { ...move, cursor: { ...REMOVE_START, released: true, reason: cursor.reason } satisfies AbandonCursor };
      }
      const result = await removeBatch(to, storeId, cursor, limits.removeRows, false);
      const removed = move.rowsRemoved + result.rows;
      if (result.cursor) return { ...move, cursor: { ...cursor, ...result.cursor }, rowsRemoved: removed };
      return { ...move, status: "failed", phase: "done", cursor: null, rowsRemoved: removed, finishedAt: now(), error: cursor.reason ?? DELETED };
    }
    case "cleanup": {
      // The old shard emptied; when it is the directory (a store from before sharding), the
      // store's row and usage there stay: they are the directory's.
      const result = await removeBatch(from, storeId, move.cursor as RemoveCursor, limits.removeRows, fromShard === DIRECTORY);
      const removed = move.rowsRemoved + result.rows;
      if (result.cursor) return { ...move, cursor: result.cursor, rowsRemoved: removed };
      return { ...move, status: "completed", phase: "done", cursor: null, rowsRemoved: removed, finishedAt: now() };
    }
    case "done":
      return { ...move, status: "completed" };
  }
}

/**
 * Tells the next page of the store's keys what their limiters hold of the store (one that cannot
 * be reached fails the step, which runs again). Answers where the next page starts, or null when
 * every key was told.
 */
async function tellKeys(env: Env, storeId: string, cursor: KeysCursor, limits: MoveLimits, phase: MovePhase, store: GrantedStore): Promise<KeysCursor> {
  const keys = await keysOfStorePage(directoryDb(env), storeId, cursor?.keysAfter ?? "", limits.keys);
  await moveTestHooks.between?.(phase, storeId);
  await Promise.all(keys.map((key) => publishGrant(env, key, store)));
  return keys.length < limits.keys ? null : { keysAfter: keys.at(-1)!.id };
}

/** Why a move cannot start, or null. */
export function moveRefusal(env: Env, current: { shard: string }, to: string, draining: Set<string>, active: MoveRow | undefined): string | null {
  if (!isShard(env, to)) return `Shard '${to.slice(0, 60)}' is not one of this hub's shards.`;
  if (to === current.shard) return `The store already lives in shard '${to}'.`;
  if (draining.has(to)) return `Shard '${to}' is draining: no store is moved into it.`;
  if (active && (active.status === "copying" || active.status === "switching"))
    return `The store is already moving to '${active.toShard}' (${active.status}); wait for it to finish.`;
  return null;
}
