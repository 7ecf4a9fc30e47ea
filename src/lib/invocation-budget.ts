// What one invocation may spend, and a job's count of what it spent. Cloudflare allows a Worker
// invocation (a request, a cron run, a queue batch, one Durable Object call or alarm) at most
// 1,000 D1 queries and 10,000 subrequests on the paid plan (fetch, and calls to D1, R2, Durable
// Objects and Queues); past them every further call throws. Local workerd enforces neither, so a
// long job (a sync cycle, a webhook pass, a compile slice, the purge) counts here what it spends
// and hands the rest of its work to a further invocation (an alarm, the next cron run) before its
// share would run out. docs/performance.md gives each job's figures; the tests hold every
// invocation to the limits themselves (test/helpers/invocation-meter.ts). The limits themselves:
// CLOUDFLARE_LIMITS in src/lib/binding-tally.ts, whose D1 wrapper counts the statements here too.
import { talliedD1 } from "./binding-tally";

/** D1 queries (each statement, those of a batch included) and subrequests (each call out of the isolate). */
export interface Cost {
  d1Queries: number;
  subrequests: number;
}

/** One Durable Object invocation's share: all of it but a margin for what a job does not count (its own lookups, the object's closing writes). */
export const OBJECT_SHARE: Cost = { d1Queries: 900, subrequests: 9_000 };

/**
 * What a job may still spend of its share in the current invocation. Charged by hand
 * (`charge`), or by what goes through `d1()` and `fetch()`.
 */
export class InvocationBudget {
  private spentQueries = 0;
  private spentSubrequests = 0;

  constructor(readonly share: Cost = OBJECT_SHARE) {}

  charge(cost: Partial<Cost>): void {
    this.spentQueries += cost.d1Queries ?? 0;
    this.spentSubrequests += cost.subrequests ?? 0;
  }

  /** Whether work that costs at most `cost` still fits in the share. */
  fits(cost: Partial<Cost>): boolean {
    return this.spentQueries + (cost.d1Queries ?? 0) <= this.share.d1Queries && this.spentSubrequests + (cost.subrequests ?? 0) <= this.share.subrequests;
  }

  /** What is left of the share. */
  left(): Cost {
    return { d1Queries: this.share.d1Queries - this.spentQueries, subrequests: this.share.subrequests - this.spentSubrequests };
  }

  spent(): Cost {
    return { d1Queries: this.spentQueries, subrequests: this.spentSubrequests };
  }

  /**
   * The database, each statement prepared through it charged as one query and one subrequest
   * when prepared (every statement here is run once, alone or in a batch; a batch is one
   * subrequest, so this overcounts subrequests, never queries).
   */
  d1(database: D1Database): D1Database {
    return talliedD1(database, { sql: () => this.charge({ d1Queries: 1, subrequests: 1 }) });
  }

  /** `fetch`, each call charged as one subrequest. */
  fetch(fetcher: typeof fetch): typeof fetch {
    return ((input: RequestInfo | URL, init?: RequestInit) => {
      this.charge({ subrequests: 1 });
      return fetcher(input, init);
    }) as typeof fetch;
  }

  /**
   * Repeated units of work (an import page, a delivery, a push) whose cost is learnt as they run:
   * the next one is expected to cost as much as the dearest so far (`first` before any ran).
   */
  units(first: Cost): Units {
    return new Units(this, first);
  }
}

export class Units {
  private dearest: Cost;

  constructor(
    private readonly budget: InvocationBudget,
    first: Cost,
  ) {
    this.dearest = { ...first };
  }

  /** Whether one more unit (and `extra` with it) is expected to fit. */
  fits(extra: Partial<Cost> = {}): boolean {
    return this.budget.fits({ d1Queries: this.dearest.d1Queries + (extra.d1Queries ?? 0), subrequests: this.dearest.subrequests + (extra.subrequests ?? 0) });
  }

  /** Runs one unit, learning what it cost. */
  async measure<T>(work: () => Promise<T>): Promise<T> {
    const started = this.begin();
    try {
      return await work();
    } finally {
      this.end(started);
    }
  }

  /** The start of a unit whose work is not one function (end it with `end`). */
  begin(): Cost {
    return this.budget.spent();
  }

  end(started: Cost): void {
    const now = this.budget.spent();
    this.dearest = {
      d1Queries: Math.max(this.dearest.d1Queries, now.d1Queries - started.d1Queries),
      subrequests: Math.max(this.dearest.subrequests, now.subrequests - started.subrequests),
    };
  }
}
