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
import { isNewSlot } from "./sync-queue";

const SOURCE_ID = "sync:sourceId";
/** The latest cron slot whose cycle ran to its end here (the queue's duplicate check). */
const LAST_SLOT = "sync:lastSlot";

export class SourceSync extends DurableObject<Env> {
  /** The cycle running now (or the last one); the next waits for it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** The slot a queued cycle waits or runs for; in memory, so a crash lets the retry run it. */
  private slotInFlight: number | undefined;

  /**
   * Runs one cycle after any cycle already running has ended. Input gates do not cover the
   * awaits on D1 and the marketplace, so without this chain two calls would interleave.
   */
  runCycle(sourceId: string, scheduledTime?: number): Promise<CycleSummary> {
    const next = this.tail.then(async () => {
      const summary = await runSourceCycle(sourceId, {
        env: this.env,
        storage: kvStorage(this.ctx.storage.kv),
        now: cycleTime(scheduledTime, Date.now()),
      });
      if (summary.more) {
        // The import did not fit this invocation: the next one continues it right away.
        this.ctx.storage.kv.put(SOURCE_ID, sourceId);
        await this.ctx.storage.setAlarm(Date.now());
      }
      return summary;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * The queue's way in (src/sync/sync-queue.ts): the cycle of cron slot `slot`, unless that slot
   * (or a later one) already ran or is under way here; null then. The slot is recorded only once
   * the cycle has ended, so a cycle that threw or was cut off runs again on the message's retry.
   */
  async runQueuedCycle(sourceId: string, slot: number): Promise<CycleSummary | null> {
    const kv = this.ctx.storage.kv;
    if (!isNewSlot(slot, kv.get<number>(LAST_SLOT), this.slotInFlight)) return null;
    this.slotInFlight = slot;
    try {
      const summary = await this.runCycle(sourceId, slot);
      if (slot > (kv.get<number>(LAST_SLOT) ?? -Infinity)) kv.put(LAST_SLOT, slot);
      return summary;
    } finally {
      if (this.slotInFlight === slot) this.slotInFlight = undefined;
    }
  }

  /** Continues an import that did not fit one invocation (an alarm is its own invocation). */
  override async alarm(): Promise<void> {
    const sourceId = this.ctx.storage.kv.get<string>(SOURCE_ID);
    if (sourceId) await this.runCycle(sourceId);
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
