// One Durable Object per moving store (named by its id) runs the move's steps (src/store-moves/move.ts)
// in its alarm, a budget of time per alarm, until the move is completed. It holds nothing the move
// needs to go on: every step's result is in the directory's store_moves row, so an object (or a
// whole service) restarted mid-move continues from there, and the cron wakes movers whose alarm
// was lost. The class only loads, calls and stores (and keeps what each run asked of the
// per-invocation limits, src/store-moves/invocation.ts).
import { DurableObject } from "cloudflare:workers";
import type { InvocationCount } from "./invocation";
import { MOVE_LIMITS, runMove, type MoveLimits, type StepOutcome } from "./move";
import type { MoveRow } from "./store-moves.queries";

const STORE_ID = "storeId";
const LIMITS = "limits";
const FAILURES = "failures";
/** Tests that drive a move step by step themselves: no alarm runs it meanwhile. */
const MANUAL = "manual";
/** What the latest runs asked of D1 and of other objects (the last RUNS_KEPT), for tests and the benchmark. */
const RUNS = "runs";
const RUNS_KEPT = 100;
/** Wall time one alarm spends on steps before handing over to the next alarm. */
const ALARM_BUDGET_MS = 20_000;

export class StoreMover extends DurableObject<Env> {
  /** The move's row is saved: run its steps from the next alarm (now). */
  async start(storeId: string): Promise<void> {
    this.ctx.storage.kv.put(STORE_ID, storeId);
    this.ctx.storage.kv.delete(FAILURES);
    if (this.ctx.storage.kv.get<boolean>(MANUAL)) return;
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * Smaller batches, a shorter grace, for tests and the benchmark; kept in storage. `manual`: the
   * move runs only when advance() is called (a test holding a step must be the only runner).
   */
  async configure(limits: Partial<MoveLimits> & { manual?: boolean }): Promise<void> {
    const { manual, ...rest } = limits;
    this.ctx.storage.kv.put(LIMITS, { ...this.limits(), ...rest });
    if (manual !== undefined) this.ctx.storage.kv.put(MANUAL, manual);
  }

  /**
   * Runs steps for `budgetMs` now, in this call (tests and the benchmark drive a move step by step
   * with it); answers the move as saved. The alarm, if any, goes on from there.
   */
  async advance(storeId: string, budgetMs: number): Promise<MoveRow | undefined> {
    this.ctx.storage.kv.put(STORE_ID, storeId);
    return this.noted(await runMove(this.env, storeId, this.limits(), budgetMs)).move;
  }

  /** What each of the latest runs (an alarm, an advance) asked: D1 queries, subrequests, the largest value bound. */
  async runs(): Promise<InvocationCount[]> {
    return this.ctx.storage.kv.get<InvocationCount[]>(RUNS) ?? [];
  }

  private noted(outcome: StepOutcome): StepOutcome {
    const runs = this.ctx.storage.kv.get<InvocationCount[]>(RUNS) ?? [];
    this.ctx.storage.kv.put(RUNS, [...runs, outcome.spent].slice(-RUNS_KEPT));
    return outcome;
  }

  override async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const storeId = kv.get<string>(STORE_ID);
    if (!storeId) return;
    try {
      const outcome = this.noted(await runMove(this.env, storeId, this.limits(), ALARM_BUDGET_MS));
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
    return { ...MOVE_LIMITS, ...this.ctx.storage.kv.get<Partial<MoveLimits>>(LIMITS) };
  }
}
