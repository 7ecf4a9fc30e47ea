// One Durable Object per source (named by its id) runs that source's cycles. Why a Durable
// Object: a single instance per name is exactly "cycles of one source never overlap", each cycle
// is its own invocation with its own CPU budget (the cron only queues the sources; the queue's
// consumer hands each slot to its object, which runs it in its alarm), it runs in workerd under
// vitest like everything else, and its storage is the natural home for per-source state that is
// not the service's data (Retry-After pauses, what a connector keeps, such as what the simulated
// marketplace received, and which cron slot ran last). A cycle whose work does not fit one
// invocation (src/sync/cycle.ts) goes on in the next alarm, set for now, with what is left of its
// allowance: the slot counts as run once its last invocation ended.
import { DurableObject } from "cloudflare:workers";
import { connectorEntry } from "../marketplaces/registry";
import { kvStorage } from "../marketplaces/storage";
import { runSourceCycle, type CycleAllowance } from "./cycle";
import type { CycleSummary } from "../sources/cycle-summary";
import { isNewSlot } from "./sync-queue";

const SOURCE_ID = "sync:sourceId";
/** The latest cron slot whose cycle ran to its end here (the queue's duplicate check). */
const LAST_SLOT = "sync:lastSlot";
/** The slot the queue handed over, waiting for (or running in) the alarm: { sourceId, slot }. */
const QUEUED = "sync:queued";
/** A cycle that goes on in the next alarm: its slot and what is left of its allowance. */
const CONTINUATION = "sync:continuation";

interface QueuedSlot {
  sourceId: string;
  storeId?: string;
  slot: number;
}

interface Continuation {
  slot: number;
  allowance: CycleAllowance;
}

export class SourceSync extends DurableObject<Env> {
  /** The cycle running now (or the last one); the next waits for it. */
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs one cycle after any cycle already running has ended. Input gates do not cover the
   * awaits on D1 and the marketplace, so without this chain two calls would interleave. A cycle
   * that did not fit this invocation answers its first part (Continues) and goes on in the alarm.
   */
  async runCycle(sourceId: string, scheduledTime?: number, storeId?: string): Promise<CycleSummary> {
    const slot = cycleTime(scheduledTime, Date.now());
    const { summary, continuation } = await this.cycle(sourceId, slot, storeId);
    if (continuation) await this.goOn({ sourceId, slot, ...(storeId ? { storeId } : {}) }, continuation);
    return summary;
  }

  /** One invocation's part of a cycle, chained behind any running one. */
  private cycle(sourceId: string, slot: number, storeId: string | undefined, allowance?: CycleAllowance) {
    const next = this.tail.then(async () => {
      // An import that did not fit one cycle goes on in the next one, never right away: a
      // marketplace whose pages never end must not keep this object running (decisions 6).
      return runSourceCycle(sourceId, storeId, {
        env: this.env,
        storage: kvStorage(this.ctx.storage.kv),
        now: cycleTime(slot, Date.now()),
        ...(allowance ? { allowance } : {}),
      });
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * The rest of the cycle of `queued.slot` runs in the next alarm, now. A later slot already
   * waiting takes it over instead: its own cycle does all there is to do.
   */
  private async goOn(queued: QueuedSlot, allowance: CycleAllowance): Promise<void> {
    const kv = this.ctx.storage.kv;
    const waiting = kv.get<QueuedSlot>(QUEUED);
    if (waiting && waiting.slot > queued.slot) {
      kv.delete(CONTINUATION);
      return;
    }
    kv.put(QUEUED, queued);
    kv.put(CONTINUATION, { slot: queued.slot, allowance } satisfies Continuation);
    await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * The queue's way in (src/sync/sync-queue.ts): takes the cycle of cron slot `slot` and starts it
   * in this object's alarm, answering at once, so one consumer invocation starts 100 sources in
   * milliseconds instead of waiting for its slowest cycle. False when that slot (or a later one)
   * already ran here or is waiting: a duplicate delivery starts nothing.
   */
  async queueCycle(sourceId: string, slot: number, storeId?: string): Promise<boolean> {
    const kv = this.ctx.storage.kv;
    if (!isNewSlot(slot, kv.get<number>(LAST_SLOT), kv.get<QueuedSlot>(QUEUED)?.slot)) return false;
    kv.put(QUEUED, { sourceId, slot, ...(storeId ? { storeId } : {}) } satisfies QueuedSlot);
    await this.ctx.storage.setAlarm(Date.now());
    return true;
  }

  /**
   * The queued cycle, or the next part of one (an alarm is its own invocation). The queued slot
   * counts as run only once its cycle ended: an alarm that threw is retried by the runtime, which
   * also runs again an alarm cut off mid-cycle (at least once). An alarm an earlier version set to
   * continue an import at once finds no slot: the next cycle does that now.
   */
  override async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    kv.delete(SOURCE_ID);
    const queued = kv.get<QueuedSlot>(QUEUED);
    if (!queued) return;
    const part = kv.get<Continuation>(CONTINUATION);
    const allowance = part?.slot === queued.slot ? part.allowance : undefined;
    const { continuation } = await this.cycle(queued.sourceId, queued.slot, queued.storeId, allowance);
    if (continuation) {
      await this.goOn(queued, continuation);
      return;
    }
    kv.delete(CONTINUATION);
    if (queued.slot > (kv.get<number>(LAST_SLOT) ?? -Infinity)) kv.put(LAST_SLOT, queued.slot);
    // A later slot queued while this one ran stays, with the alarm its queueing set.
    if (kv.get<QueuedSlot>(QUEUED)?.slot === queued.slot) kv.delete(QUEUED);
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
