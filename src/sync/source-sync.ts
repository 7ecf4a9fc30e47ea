// One Durable Object per source (named by its id) runs that source's cycles. Why a Durable
// Object rather than Queues or Workflows: a single instance per name is exactly "cycles of one
// source never overlap", each cycle is its own invocation with its own CPU budget (the cron only
// dispatches), it runs in workerd under vitest like everything else, and its storage is the
// natural home for per-source state that is not the service's data (Retry-After pauses, what a
// connector keeps, such as what the simulated marketplace received).
import { DurableObject } from "cloudflare:workers";
import { connectorEntry } from "./connectors";
import { kvStorage } from "./connectors/storage";
import { runSourceCycle } from "./cycle";
import type { CycleSummary } from "./cycle-summary";

const SOURCE_ID = "sync:sourceId";

export class SourceSync extends DurableObject<Env> {
  /** The cycle running now (or the last one); the next waits for it. */
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs one cycle after any cycle already running has ended. Input gates do not cover the
   * awaits on D1 and the marketplace, so without this chain two calls would interleave.
   */
  runCycle(sourceId: string, scheduledTime?: number): Promise<CycleSummary> {
    const next = this.tail.then(async () => {
      // An import that did not fit one cycle goes on in the next one, never right away: a
      // marketplace whose pages never end must not keep this object running (decisions 6).
      return runSourceCycle(sourceId, {
        env: this.env,
        storage: kvStorage(this.ctx.storage.kv),
        now: cycleTime(scheduledTime, Date.now()),
      });
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** An alarm an earlier version set to continue an import at once: the next cycle does that now. */
  override async alarm(): Promise<void> {
    this.ctx.storage.kv.delete(SOURCE_ID);
  }

  /**
   * What the marketplace of this source received, oldest first, as JSON (a plain string crosses
   * RPC with its type intact); null when the source's connector keeps no such record.
   */
  received(type: string): string | null {
    const entry = connectorEntry(type);
    return entry?.received ? JSON.stringify(entry.received(kvStorage(this.ctx.storage.kv))) : null;
  }

  /** The source was deleted: drop its per-source state once no cycle runs. */
  async forget(): Promise<void> {
    await this.tail;
    await this.ctx.storage.deleteAll();
  }
}

/**
 * The cycle's clock: the time the cron was scheduled for (so a test, or a replay, can run a cycle
 * "at" a given time), unless that is long past because the cycle waited behind another.
 */
export function cycleTime(scheduledTime: number | undefined, now: number): number {
  return scheduledTime !== undefined && scheduledTime > now - 60_000 ? scheduledTime : now;
}
