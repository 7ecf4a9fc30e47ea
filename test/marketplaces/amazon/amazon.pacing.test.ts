// The Amazon pacing as pure functions of (state, clock, plan): burst, refill, the rate Amazon
// states in x-amzn-RateLimit-Limit, and a 429 read as an empty bucket.
import { describe, expect, it } from "vitest";
import { afterAnswer, rateFromHeader, refillMs, takeCall, type PaceState } from "../../../src/marketplaces/amazon/amazon.pacing";

const SEARCH = { ratePerSecond: 0.0056, capacity: 20 };
const CONFIRM = { ratePerSecond: 2, capacity: 10 };
const T0 = Date.parse("2026-03-01T12:00:00Z");

function spend(state: PaceState | undefined, at: number, plan: { ratePerSecond: number; capacity: number }, calls: number) {
  let s = state;
  const allowed: boolean[] = [];
  for (let i = 0; i < calls; i++) {
    const d = takeCall(s, at, plan);
    allowed.push(d.allowed);
    s = d.state;
  }
  return { state: s!, allowed };
}

describe("Amazon pacing", () => {
  it("admits the burst at once, then one call per 1/rate", () => {
    const { state, allowed } = spend(undefined, T0, SEARCH, 21);
    expect(allowed.filter(Boolean)).toHaveLength(20);
    expect(allowed[20]).toBe(false);
    // 1 / 0.0056 s = 178.571 s, rounded up to the microsecond.
    expect(takeCall(state, T0, SEARCH).waitMs).toBe(178_572);
    expect(takeCall(state, T0 + 178_571, SEARCH).allowed).toBe(false);
    expect(takeCall(state, T0 + 178_572, SEARCH).allowed).toBe(true);
    // A refused call leaves the state as it was.
    expect(takeCall(state, T0 + 1000, SEARCH).state).toEqual(state);
  });

  it("refills the whole burst after burst/rate", () => {
    const { state } = spend(undefined, T0, CONFIRM, 10);
    expect(spend(state, T0 + 4_999, CONFIRM, 10).allowed.filter(Boolean)).toHaveLength(9);
    expect(spend(state, T0 + 5_000, CONFIRM, 11).allowed.filter(Boolean)).toHaveLength(10);
  });

  it("takes the rate Amazon states, keeping the calls already spent", () => {
    const { state } = spend(undefined, T0, CONFIRM, 4);
    const slower = afterAnswer(state, T0, CONFIRM, { status: 200, rateLimitHeader: "0.5" });
    expect(slower.ratePerSecond).toBe(0.5);
    // Four calls spent of ten: six more now, then one each 2 s.
    const { allowed, state: after } = spend(slower, T0, CONFIRM, 7);
    expect(allowed).toEqual([true, true, true, true, true, true, false]);
    expect(takeCall(after, T0, CONFIRM).waitMs).toBe(2000);
    // Unreadable or absurd headers change nothing.
    for (const header of [null, "", "fast", "-1", "0", "1e9"]) {
      expect(afterAnswer(state, T0, CONFIRM, { status: 200, rateLimitHeader: header })).toEqual(state);
    }
  });

  it("reads a 429 as an empty bucket whatever this side believed", () => {
    const fresh = takeCall(undefined, T0, CONFIRM).state;
    const empty = afterAnswer(fresh, T0, CONFIRM, { status: 429, rateLimitHeader: null });
    expect(takeCall(empty, T0, CONFIRM).allowed).toBe(false);
    expect(takeCall(empty, T0, CONFIRM).waitMs).toBe(500);
    expect(refillMs(empty, CONFIRM)).toBe(500);
    expect(refillMs(undefined, SEARCH)).toBe(178_572);
  });

  it("parses x-amzn-RateLimit-Limit as calls per second", () => {
    expect(rateFromHeader("0.0167")).toBe(0.0167);
    expect(rateFromHeader(" 2.0 ")).toBe(2);
    expect(rateFromHeader("2/s")).toBeNull();
    expect(rateFromHeader(null)).toBeNull();
  });
});
