// What the Cron Trigger and POST /admin/v1/sync run: one cycle per enabled source, each in its
// source's own Durable Object (its own invocation). The cron only hands the sources to the sync
// queue (src/sync/sync-queue.ts), whatever their number; the admin route runs a small hub's
// cycles in its own request and answers their summaries, and queues a larger one's.
import { shardDb, shardNames } from "../db/shards";
import { emptySummary } from "./cycle";
import type { CycleSummary } from "../sources/cycle-summary";
import { enabledSources } from "../sources/sources.queries";
import { enqueueSources, SEND_BATCH, type SourceRef } from "./sync-queue";

export interface SyncSummary {
  startedAt: number;
  sources: CycleSummary[];
  /** Sources handed to the queue instead of run here: their cycles report in each source's status. */
  queued: number;
}

/**
 * The most cycles one admin request awaits: as many as one queue consumer invocation runs. Past
 * that the request would hold thousands of calls open for minutes.
 */
const IN_PROCESS_MAX = SEND_BATCH;

/**
 * Sources one cron run hands to the queue at most: one sendBatch call per 100, each a subrequest
 * of the cron's invocation (10,000 at most, shared with the purge and the webhook sweep: src/cron.ts).
 */
export const MAX_QUEUED_PER_RUN = 500_000;

/**
 * The cron: every enabled source to the queue, for this slot. Answers how many were queued. A hub
 * of more than MAX_QUEUED_PER_RUN sources queues that many, starting further on each slot, so that
 * every source still syncs, less often; the next step for such a hub is in docs/scale.md.
 */
export async function queueSync(env: Env, scheduledTime: number): Promise<number> {
  const sources = await allEnabledSources(env);
  if (sources.length <= MAX_QUEUED_PER_RUN) return enqueueSources(env, sources, scheduledTime);
  const start = (Math.floor(scheduledTime / 900_000) * MAX_QUEUED_PER_RUN) % sources.length;
  const turn = [...sources, ...sources].slice(start, start + MAX_QUEUED_PER_RUN);
  console.error(`sync: ${sources.length} enabled sources, ${MAX_QUEUED_PER_RUN} queued this slot (the most one cron run sends)`);
  return enqueueSources(env, turn, scheduledTime);
}

/** Every enabled source of every live store: each shard asked at once for the stores living in it, oldest source first. */
async function allEnabledSources(env: Env): Promise<SourceRef[]> {
  const perShard = await Promise.all(shardNames(env).map((shard) => enabledSources(shardDb(env, shard), shard)));
  return perShard
    .flat()
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    .map(({ id, storeId }) => ({ sourceId: id, storeId }));
}

export async function runSync(env: Env, scheduledTime: number, options: { sources?: SourceRef[] } = {}): Promise<SyncSummary> {
  const refs = options.sources ?? (await allEnabledSources(env));
  if (refs.length > IN_PROCESS_MAX) {
    return { startedAt: scheduledTime, sources: [], queued: await enqueueSources(env, refs, scheduledTime) };
  }
  const settled = await Promise.allSettled(refs.map(({ sourceId, storeId }) => env.SOURCE_SYNC.getByName(sourceId).runCycle(sourceId, scheduledTime, storeId)));
  return {
    startedAt: scheduledTime,
    sources: settled.map((outcome, i) =>
      outcome.status === "fulfilled" ? (outcome.value as CycleSummary) : failedCycle(refs[i]!.sourceId, scheduledTime, outcome.reason),
    ),
    queued: 0,
  };
}

/** A cycle that threw (its object crashed, D1 was unreachable): the others still report. */
function failedCycle(sourceId: string, at: number, reason: unknown): CycleSummary {
  console.error("sync cycle failed", sourceId, reason);
  return emptySummary(sourceId, at, "The cycle did not complete; it is retried on the next run.");
}
