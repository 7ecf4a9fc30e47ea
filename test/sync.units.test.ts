// The pure parts of the sync, driven with explicit clocks.
import { describe, expect, it } from "vitest";
import { indexOfOrderNumber, indexRange, makeOrder, orderNumberOf } from "../src/sync/connectors/simulated/simulated.orders";
import { importSince, FIRST_LOOKBACK_MS, OVERLAP_MS } from "../src/sync/importer";
import { MAX_DELAY_MS, retryDelay } from "../src/sync/delivery";
import { cycleTime } from "../src/sync/source-sync";

describe("sync arithmetic", () => {
  it("maps a time window to the simulated orders created in it, both ends included", () => {
    const grid = { intervalMs: 1000, startAt: 5000, endAt: 9000 };
    expect(indexRange(grid, 0, 100_000)).toEqual({ first: 5, last: 9 });
    expect(indexRange(grid, 6500, 8000)).toEqual({ first: 7, last: 8 });
    expect(indexRange(grid, 9500, 100_000)).toBeNull();
    expect(indexRange({ ...grid, endAt: null }, 0, 12_345)).toEqual({ first: 5, last: 12 });
  });

  it("recognises its own order numbers only", () => {
    expect(indexOfOrderNumber("src_a", orderNumberOf("src_a", 42))).toBe(42);
    expect(indexOfOrderNumber("src_b", orderNumberOf("src_a", 42))).toBeNull();
    expect(indexOfOrderNumber("src_a", "WEB-1")).toBeNull();
    expect(makeOrder("src_a", 42, 1000).createdAt.getTime()).toBe(42_000);
  });

  it("fetches from the cursor minus the overlap, or a week back the first time", () => {
    expect(importSince(1_000_000_000, 2_000_000_000)).toBe(1_000_000_000 - OVERLAP_MS);
    expect(importSince(null, 2_000_000_000)).toBe(2_000_000_000 - FIRST_LOOKBACK_MS);
  });

  it("backs off exponentially up to a cap, never below Retry-After", () => {
    expect(retryDelay(20, null)).toBe(MAX_DELAY_MS);
    expect(retryDelay(1, 30_000)).toBe(5 * 60_000);
    expect(retryDelay(1, 24 * 3_600_000)).toBe(24 * 3_600_000);
  });

  it("runs a cycle at its scheduled time unless that is over a minute old", () => {
    expect(cycleTime(undefined, 1_000_000)).toBe(1_000_000);
    expect(cycleTime(990_000, 1_000_000)).toBe(990_000);
    expect(cycleTime(900_000, 1_000_000)).toBe(1_000_000);
    expect(cycleTime(5_000_000, 1_000_000)).toBe(5_000_000);
  });
});
