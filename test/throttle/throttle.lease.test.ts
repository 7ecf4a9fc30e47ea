// Leases alone (src/throttle/lease.ts, the object's arithmetic, and src/throttle/lease-book.ts,
// an isolate's), with explicit clocks (ms): several books play several isolates against one
// bucket state, each call admitted from its book's lease or by a trip that runs the object's step.
import { describe, expect, it } from "vitest";
import { type BucketConfig, decide } from "../../src/throttle/gcra";
import { type BucketState, LEASE_MS, RETURN_GRACE_MS, leaseShape, peek, trip } from "../../src/throttle/lease";
import { LeaseBook, type LeaseGrant, reportAt } from "../../src/throttle/lease-book";
import { prng } from "../../src/lib/prng";

const T0 = 1_800_000_000_000;
const SPEC_BUCKET: BucketConfig = { capacity: 50, ratePerSecond: 2 };
const KEY = "ck_sim";

function grantOf(config: BucketConfig): LeaseGrant {
  return {
    storeId: "st",
    shard: "DB",
    scopes: ["OrdersRead"],
    bookmark: null,
    capacity: config.capacity,
    windowSeconds: Math.ceil(config.capacity / config.ratePerSecond),
  };
}

/** One object's bucket and the isolates' books, with every admission and trip recorded. */
function world(config: BucketConfig, holders: number, latencyMs = 0) {
  let state: BucketState = { tat: 0, leases: [] };
  let ids = 0;
  const books = Array.from({ length: holders }, (_, i) => new LeaseBook(`holder-${i}`));
  const admitted: number[] = [];
  let trips = 0;
  /** A call of holder `h` sent at `now`; a trip reaches the object `latencyMs` later and its answer arrives as much later again. */
  function call(h: number, now: number): { allowed: boolean; remaining: number; retryAfterMs: number; via: "lease" | "object" } {
    const book = books[h]!;
    const local = book.admit(KEY, "OrdersRead", now);
    if (local.kind === "admit") {
      admitted.push(now);
      return { allowed: true, remaining: local.remaining, retryAfterMs: 0, via: "lease" };
    }
    if (local.kind === "refuse") return { allowed: false, remaining: local.remaining, retryAfterMs: local.retryAfterMs, via: "lease" };
    trips += 1;
    const report = book.release(KEY, now);
    const at = now + latencyMs;
    const step = trip(state, at, config, {
      admit: true,
      lease: true,
      holder: book.holder,
      want: book.want(KEY, LEASE_MS),
      leaseId: `lease-${++ids}`,
      ...(report ? { report: reportAt(report, at * 1000) } : {}),
    });
    state = step.state;
    if (step.terms) book.accept(KEY, step.terms, grantOf(config), now, at + latencyMs);
    // The object took the call at `at`: that is when it counts.
    if (step.direct!.allowed) admitted.push(at);
    return { allowed: step.direct!.allowed, remaining: step.direct!.remaining, retryAfterMs: step.direct!.retryAfterMs, via: "object" };
  }
  return { call, books, admitted, trips: () => trips, state: () => state };
}

/** The most admitted in any window [a, b] over the allowance capacity + rate x (b - a): <= 0 means exact. */
function worstExcess(times: number[], config: BucketConfig): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = -Infinity;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      worst = Math.max(worst, j - i + 1 - (config.capacity + (config.ratePerSecond * (sorted[j]! - sorted[i]!)) / 1000));
    }
  }
  return worst;
}

/** What the exact bucket, asked on every call, admits of the same calls. */
function exactCount(times: number[], config: BucketConfig): number {
  let tat = 0;
  let admitted = 0;
  for (const now of [...times].sort((a, b) => a - b)) {
    const d = decide(tat, now, config);
    if (d.allowed) {
      tat = d.tat;
      admitted += 1;
    }
  }
  return admitted;
}

describe("lease shape", () => {
  it("gives the default bucket leases of 6 s and 12 admissions, and none to a bucket too small to share", () => {
    expect(leaseShape(SPEC_BUCKET)).toEqual({ ms: 6_000, cap: 12 });
    expect(leaseShape({ capacity: 10_000, ratePerSecond: 1_000 })).toEqual({ ms: 5_000, cap: 5_000 });
    expect(leaseShape({ capacity: 1, ratePerSecond: 1 }).cap).toBe(0);
    expect(leaseShape({ capacity: 2, ratePerSecond: 0.001 }).cap).toBe(0);
  });
});

describe("one isolate", () => {
  it("a client calling as fast as it can is admitted at the exact bucket's moments, with at most 10 trips per 100 admitted once the burst is spent", () => {
    const w = world(SPEC_BUCKET, 1);
    const calls: number[] = [];
    const outcomes = [];
    for (let t = T0; t < T0 + 120_000; t += 10) {
      calls.push(t);
      outcomes.push({ t, ...w.call(0, t) });
    }
    // Same count as the exact bucket on the same calls: 50 + 2 x 120 s (the last call is 10 ms short of 120 s).
    expect(exactCount(calls, SPEC_BUCKET)).toBe(289);
    expect(w.admitted).toHaveLength(289);
    expect(worstExcess(w.admitted, SPEC_BUCKET)).toBeLessThanOrEqual(0);
    // After the burst: one admission every 500 ms, on the dot.
    const steady = w.admitted.filter((t) => t >= T0 + 1_000);
    expect(steady.every((t, i) => i === 0 || t - steady[i - 1]! === 500)).toBe(true);
    const after = world(SPEC_BUCKET, 1);
    for (let t = T0; t < T0 + 20_000; t += 10) after.call(0, t);
    const [tripsAt20, admittedAt20] = [after.trips(), after.admitted.length];
    for (let t = T0 + 20_000; t < T0 + 120_000; t += 10) after.call(0, t);
    const steadyTrips = after.trips() - tripsAt20;
    const steadyAdmitted = after.admitted.length - admittedAt20;
    expect(steadyAdmitted).toBe(200);
    expect((steadyTrips / steadyAdmitted) * 100).toBeLessThanOrEqual(10);
    // A refusal from the lease names the wait the exact bucket would: the next admission's moment.
    const refused = outcomes.find((o) => !o.allowed && o.t > T0 + 30_000)!;
    const nextAdmitted = w.admitted.find((t) => t > refused.t)!;
    expect(refused.retryAfterMs).toBe(nextAdmitted - refused.t);
  });

  it("a client calling twice a second is never refused and makes at most 10 trips per 100 calls", () => {
    const w = world(SPEC_BUCKET, 1);
    const results = [];
    for (let i = 0; i < 400; i++) results.push(w.call(0, T0 + i * 500));
    expect(results.every((r) => r.allowed)).toBe(true);
    expect(w.trips()).toBeLessThanOrEqual(40);
    // Headers from a lease are the exact bucket's: one in, one drained, 49 left each time.
    expect(results.slice(1).every((r) => r.remaining === 49)).toBe(true);
  });

  it("counts a lease's unused admissions back when it is reported", () => {
    const w = world(SPEC_BUCKET, 1);
    w.call(0, T0); // trip: one taken, a lease of 12 held
    w.call(0, T0);
    w.call(0, T0); // two from the lease
    // While it is out, the lease's 12 count as used at its expiry, 6 s ahead (the call taken at T0
    // drains before then): a backlog of 6 + 12 x 0.5 = 12 s, 24 calls' worth.
    expect(peek(w.state(), T0, SPEC_BUCKET).remaining).toBe(26);
    const report = w.books[0]!.release(KEY, T0)!;
    expect(report.used).toBe(2);
    const step = trip(w.state(), T0, SPEC_BUCKET, {
      admit: false,
      lease: false,
      holder: "holder-0",
      want: 0,
      leaseId: "x",
      report: reportAt(report, T0 * 1000),
    });
    // Three calls in all: 47 left, as if each had been asked of the object.
    expect(peek(step.state, T0, SPEC_BUCKET).remaining).toBe(47);
  });

  it("counts a lease never reported as fully used at its expiry, once the grace has passed", () => {
    const w = world(SPEC_BUCKET, 1);
    w.call(0, T0);
    const held = w.state();
    expect(held.leases).toHaveLength(1);
    // Before the grace ends the lease is still outstanding, counted at its expiry (T0 + 6 s).
    expect(peek(held, T0, SPEC_BUCKET).remaining).toBe(26);
    const later = T0 + LEASE_MS + RETURN_GRACE_MS;
    const step = trip(held, later, SPEC_BUCKET, { admit: false, lease: false, holder: "other", want: 0, leaseId: "x" });
    expect(step.state.leases).toHaveLength(0);
    // Settled as 12 calls at T0 + 6 s after the one at T0: the bucket empties at T0 + 12 s.
    expect(step.state.tat).toBe((T0 + 12_000) * 1000);
    // A report that arrives after that changes nothing.
    const late = trip(step.state, later, SPEC_BUCKET, {
      admit: false,
      lease: false,
      holder: "holder-0",
      want: 0,
      leaseId: "x",
      report: { leaseId: held.leases[0]!.id, used: 0, foldUs: null },
    });
    expect(late.state).toEqual(step.state);
  });

  it("never admits past the lease's expiry on the isolate's clock, counted from when the request was sent", () => {
    const book = new LeaseBook("h");
    const state: BucketState = { tat: 0, leases: [] };
    const step = trip(state, T0 + 40, SPEC_BUCKET, { admit: true, lease: true, holder: "h", want: 100, leaseId: "l" });
    // Sent at T0, answered at T0 + 80: the lease lasts until T0 + 6 s here (the object's runs to T0 + 6.04 s).
    book.accept(KEY, step.terms!, grantOf(SPEC_BUCKET), T0, T0 + 80);
    expect(book.admit(KEY, "OrdersRead", T0 + 5_999).kind).toBe("admit");
    expect(book.admit(KEY, "OrdersRead", T0 + 6_000).kind).toBe("trip");
    // A scope the grant lacks is refused from the lease without taking anything.
    expect(book.admit(KEY, "OrdersCreate", T0 + 100)).toMatchObject({ kind: "refuse", reason: "scope" });
  });
});

describe("several isolates on one bucket", () => {
  it.each([2, 3, 5])(
    "%i isolates calling at random never exceed capacity + rate x elapsed over any window, and are refused within a lease each of the exact bucket",
    (holders) => {
      const random = prng(holders * 7919);
      const w = world(SPEC_BUCKET, holders, 3);
      const calls: number[] = [];
      let t = T0;
      for (let i = 0; i < 3_000; i++) {
        // Bursts and pauses: a client of each isolate at its own pace.
        t += random() < 0.1 ? Math.floor(random() * 4_000) : Math.floor(random() * 60);
        const h = Math.floor(random() * holders);
        calls.push(t + 3);
        w.call(h, t);
      }
      expect(worstExcess(w.admitted, SPEC_BUCKET)).toBeLessThanOrEqual(1e-9);
      const exact = exactCount(calls, SPEC_BUCKET);
      expect(w.admitted.length).toBeLessThanOrEqual(exact);
      // What leases held elsewhere (at most one per other isolate, 12 each) or waited on their expiry may withhold, per burst.
      expect(w.admitted.length).toBeGreaterThan(exact * 0.8);
    },
  );

  it("two isolates, each with its lease, admit 50 at once between them and then one per 500 ms, no more", () => {
    const w = world(SPEC_BUCKET, 2);
    let admittedAtOnce = 0;
    for (let i = 0; i < 200; i++) if (w.call(i % 2, T0).allowed) admittedAtOnce += 1;
    // Leases outstanding count as spent at their expiry: the two isolates together never pass 50.
    expect(admittedAtOnce).toBeLessThanOrEqual(50);
    expect(admittedAtOnce).toBeGreaterThanOrEqual(50 - 2 * 12);
    for (let t = T0 + 10; t <= T0 + 60_000; t += 10) {
      w.call(0, t);
      w.call(1, t);
    }
    expect(worstExcess(w.admitted, SPEC_BUCKET)).toBeLessThanOrEqual(1e-9);
    // 50 + 2 x 60 s at most; at least that less one lease per isolate.
    expect(w.admitted.length).toBeLessThanOrEqual(170);
    expect(w.admitted.length).toBeGreaterThanOrEqual(170 - 2 * 12);
  });
});
