// One Durable Object per moving store (named by its id) runs the move's steps (src/store-moves/move.ts)
// in its alarm, a budget of time per alarm, until the move is completed. It holds nothing the move
// needs to go on: every step's result is in the directory's store_moves row, so an object (or a
// whole service) restarted mid-move continues from there, and the cron wakes movers whose alarm
// was lost. The class only loads, calls and stores.
import { DurableObject } from "cloudflare:workers";
import { MOVE_LIMITS, runMove, type MoveLimits } from "./move";
import type { MoveRow } from "./store-moves.queries";

const STORE_ID = "storeId";
const LIMITS = "limits";
const FAILURES = "failures";
/** Wall time one alarm spends on steps before handing over to the next alarm. */
const ALARM_BUDGET_MS = 20_000;

export class StoreMover extends DurableObject<Env> {
  /** The move's row is saved: run its steps from the next alarm (now). */
  async start(storeId: string): Promise<void> {
    this.ctx.storage.kv.put(STORE_ID, storeId);
    this.ctx.storage.kv.delete(FAILURES);
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Smaller batches, a shorter grace, for tests and the benchmark; kept in storage. */
  async configure(limits: Partial<MoveLimits>): Promise<void> {
    this.ctx.storage.kv.put(LIMITS, { ...this.limits(), ...limits });
  }

  /**
   * Runs steps for `budgetMs` now, in this call (tests and the benchmark drive a move step by step
   * with it); answers the move as saved. The alarm, if any, goes on from there.
   */
  async advance(storeId: string, budgetMs: number): Promise<MoveRow | undefined> {
    this.ctx.storage.kv.put(STORE_ID, storeId);
    return (await runMove(this.env, storeId, this.limits(), budgetMs)).move;
  }

  override async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const storeId = kv.get<string>(STORE_ID);
    if (!storeId) return;
    try {
      const outcome = await runMove(this.env, storeId, this.limits(), ALARM_BUDGET_MS);
      kv.delete(FAILURES);
      if (outcome.nextAt !== null) await this.ctx.storage.setAlarm(outcome.nextAt);
    } catch (error) {
      // The error is in the move's row; tried again later, longer after each failure (up to 5 minutes).
      const failures = (kv.get<number>(FAILURES) ?? 0) + 1;
      kv.put(FAILURES, failures);
      console.error("store move step failed", storeId, failures, error);
      await this.ctx.storage.setAlarm(Date.now() + Math.min(300_000, 1000 * 2 ** failures));
    }
  }

  private limits(): MoveLimits {
    return this.ctx.storage.kv.get<MoveLimits>(LIMITS) ?? MOVE_LIMITS;
  }
}
