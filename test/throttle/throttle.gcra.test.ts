// The bucket arithmetic alone, with explicit clocks (ms).
import { describe, expect, it } from "vitest";
import { type BucketConfig, decide, rebase, remainingAt } from "../../src/throttle/gcra";
import { prng } from "../../src/lib/prng";

const T0 = 1_800_000_000_000;

/**
 * The interface's bucket (spec 8, decisions 5), written out rather than read from the code: the
 * arithmetic is tested against the numbers the documents give. That a key without overrides gets
 * it is test/throttle/throttle.default-bucket.test.ts.
 */
const SPEC_BUCKET: BucketConfig = { capacity: 50, ratePerSecond: 2 };

/** Feeds calls at the given times through `decide`; returns each decision. */
function run(times: number[], config: BucketConfig, tat = 0) {
  return times.map((now) => {
    const decision = decide(tat, now, config);
    tat = decision.tat;
    return decision;
  });
}

describe("GCRA leaky bucket", () => {
  it("admits a burst of 50, refuses the 51st with 500 ms to wait, and counts down what remains", () => {
    const decisions = run(Array(51).fill(T0), SPEC_BUCKET);
    expect(decisions.slice(0, 50).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 50).map((d) => d.remaining)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
    expect(decisions[50]).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 500 });
  });

  it("after the burst admits exactly one call per 500 ms", () => {
    let tat = run(Array(50).fill(T0), SPEC_BUCKET).at(-1)!.tat;
    for (let step = 1; step <= 20; step++) {
      const early = decide(tat, T0 + step * 500 - 1, SPEC_BUCKET);
      expect(early).toMatchObject({ allowed: false, retryAfterMs: 1 });
      const onTime = decide(tat, T0 + step * 500, SPEC_BUCKET);
      expect(onTime).toMatchObject({ allowed: true, remaining: 0 });
      expect(decide(onTime.tat, T0 + step * 500, SPEC_BUCKET).allowed).toBe(false);
      tat = onTime.tat;
    }
  });

  it("refused calls do not fill the bucket", () => {
    const full = run(Array(50).fill(T0), SPEC_BUCKET).at(-1)!.tat;
    const refused = run(Array(1000).fill(T0 + 100), SPEC_BUCKET, full);
    expect(refused.every((d) => !d.allowed && d.tat === full)).toBe(true);
    expect(decide(full, T0 + 500, SPEC_BUCKET).allowed).toBe(true);
  });

  it("drains an empty bucket back to full capacity", () => {
    const full = run(Array(50).fill(T0), SPEC_BUCKET).at(-1)!.tat;
    expect(remainingAt(full, T0, SPEC_BUCKET)).toBe(0);
    expect(remainingAt(full, T0 + 10_000, SPEC_BUCKET)).toBe(20);
    expect(remainingAt(full, T0 + 25_000, SPEC_BUCKET)).toBe(50);
    expect(remainingAt(full, T0 + 999_999, SPEC_BUCKET)).toBe(50);
  });

  it("drains a fractional interval: 3 calls per second is one per 333⅓ ms", () => {
    const config = { capacity: 3, ratePerSecond: 3 };
    const tat = run([T0, T0, T0], config).at(-1)!.tat;
    expect(decide(tat, T0, config)).toMatchObject({ allowed: false, retryAfterMs: 334 });
    expect(decide(tat, T0 + 333, config).allowed).toBe(false);
    expect(decide(tat, T0 + 334, config).allowed).toBe(true);
    // Calls every 300 ms for 300 s: 900 more fit (whole-ms intervals of 334 would allow 898).
    const times = Array.from({ length: 1000 }, (_, i) => T0 + (i + 1) * 300);
    const admitted = run([...times, T0 + 300_001], config, tat).filter((d) => d.allowed).length;
    expect(admitted).toBe(900);
  });

  it("drains slower than one per second: 0.5 per second is one per 2 s", () => {
    const config = { capacity: 2, ratePerSecond: 0.5 };
    const tat = run([T0, T0], config).at(-1)!.tat;
    expect(decide(tat, T0 + 1_999, config)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(decide(tat, T0, config).retryAfterMs).toBe(2_000);
    expect(decide(tat, T0 + 2_000, config).allowed).toBe(true);
  });

  it("follows a key's own BucketSize and LeakRatePerSecond", () => {
    const config = { capacity: 5, ratePerSecond: 10 };
    const decisions = run(Array(6).fill(T0), config);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions[0]!.remaining).toBe(4);
    expect(decisions[5]!.retryAfterMs).toBe(100);
    // Rates above 1000/s are not capped by a whole-millisecond interval: 10 calls per ms for
    // 200 ms at 5000/s admit the burst of 10, then 5 per ms.
    const fast = { capacity: 10, ratePerSecond: 5_000 };
    const admitted = run(
      Array.from({ length: 2000 }, (_, i) => T0 + Math.floor(i / 10)),
      fast,
    ).filter((d) => d.allowed);
    expect(admitted.length).toBe(10 + 5 * 199);
  });

  it("keeps the calls a bucket holds when its size or rate changes, and spills what no longer fits", () => {
    const from = SPEC_BUCKET;
    const half = run(Array(25).fill(T0), from).at(-1)!.tat;
    // 25 calls held under 2/s; under 10/s the same 25 calls drain in 2.5 s, not 12.5 s.
    const faster = { capacity: 50, ratePerSecond: 10 };
    const rebased = rebase(half, T0, from, faster);
    expect(remainingAt(rebased, T0, faster)).toBe(25);
    expect(remainingAt(rebased, T0 + 2_500, faster)).toBe(50);
    // Shrinking the bucket to 10 keeps it full (no free calls), and it drains at the new rate.
    const smaller = { capacity: 10, ratePerSecond: 2 };
    const shrunk = rebase(half, T0, from, smaller);
    expect(decide(shrunk, T0, smaller).allowed).toBe(false);
    expect(decide(shrunk, T0 + 500, smaller).allowed).toBe(true);
    // An empty bucket stays empty.
    expect(rebase(0, T0, from, smaller)).toBe(0);
  });

  it("never admits more than capacity + rate x elapsed over any window of random arrivals", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = prng(seed);
      const config = {
        capacity: 1 + Math.floor(random() * 60),
        ratePerSecond: [0.5, 1, 2, 3, 7, 50, 333.3, 1500][Math.floor(random() * 8)]!,
      };
      // Bursts and lulls: gaps of 0 ms (bursts) up to a few seconds.
      const times: number[] = [];
      let now = T0 + Math.floor(random() * 1_000_000);
      for (let i = 0; i < 400; i++) {
        now += random() < 0.5 ? 0 : Math.floor(random() ** 3 * 3_000);
        times.push(now);
      }
      const admittedAt = run(times, config)
        .map((d, i) => (d.allowed ? times[i]! : null))
        .filter((t): t is number => t !== null);
      for (let i = 0; i < admittedAt.length; i++) {
        for (let j = i; j < admittedAt.length; j++) {
          const elapsedSeconds = (admittedAt[j]! - admittedAt[i]!) / 1000;
          const bound = config.capacity + config.ratePerSecond * elapsedSeconds;
          if (j - i + 1 > bound) {
            throw new Error(`seed ${seed}: ${j - i + 1} calls admitted in ${elapsedSeconds}s, bound ${bound} (${JSON.stringify(config)})`);
          }
        }
      }
      // And the bucket is not stingier than it must be: the first `capacity` calls all pass.
      expect(admittedAt.length).toBeGreaterThanOrEqual(Math.min(config.capacity, times.length));
    }
  });
});
