// What the Cron Trigger and POST /admin/v1/sync run: one cycle per enabled source, each in its
// source's own Durable Object (its own invocation), all at once. This function only dispatches
// and collects the summaries.
import { getDb } from "../db/client";
import { emptySummary } from "./cycle";
import type { CycleSummary } from "./cycle-summary";
import { enabledSourceIds } from "../sources/sources.queries";

export interface SyncSummary {
  startedAt: number;
  sources: CycleSummary[];
}

export async function runSync(env: Env, scheduledTime: number, options: { sourceIds?: string[] } = {}): Promise<SyncSummary> {
  const ids = options.sourceIds ?? (await enabledSourceIds(getDb(env)));
  const settled = await Promise.allSettled(ids.map((id) => env.SOURCE_SYNC.getByName(id).runCycle(id, scheduledTime)));
  return {
    startedAt: scheduledTime,
    sources: settled.map((outcome, i) =>
      outcome.status === "fulfilled" ? (outcome.value as CycleSummary) : failedCycle(ids[i]!, scheduledTime, outcome.reason),
    ),
  };
}

/** A cycle that threw (its object crashed, D1 was unreachable): the others still report. */
function failedCycle(sourceId: string, at: number, reason: unknown): CycleSummary {
  console.error("sync cycle failed", sourceId, reason);
  return emptySummary(sourceId, at, "The cycle did not complete; it is retried on the next run.");
}
