// The pure parts of the sync, driven with explicit clocks.
import { describe, expect, it } from "vitest";
import { indexOfOrderNumber, indexRange, makeOrder, orderNumberOf } from "../../src/marketplaces/simulated/simulated.mapping";
import { importWindow } from "../../src/sync/importer";
import { exponentialDelay as retryDelay } from "../../src/lib/retry";
import { cycleTime } from "../../src/sync/source-sync";

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

  it("fetches from the cursor minus 10 minutes of overlap, or 7 days back the first time, up to the window's end", () => {
    expect(importWindow(1_000_000_000, 2_000_000_000)).toEqual({ since: 1_000_000_000 - 600_000, until: 2_000_000_000 });
    expect(importWindow(null, 2_000_000_000)).toEqual({ since: 2_000_000_000 - 604_800_000, until: 2_000_000_000 });
  });

  it("backs off exponentially (5, 10, 20 … minutes) up to a cap of 6 hours, never below Retry-After (itself at most an hour)", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, null))).toEqual([5, 10, 20, 40, 80, 160, 320].map((m) => m * 60_000));
    expect(retryDelay(8, null)).toBe(21_600_000);
    expect(retryDelay(20, null)).toBe(21_600_000);
    expect(retryDelay(1, 30_000)).toBe(5 * 60_000);
    // A marketplace's wait counts for at most an hour (issue 20); the backoff's own cap is longer.
    expect(retryDelay(1, 24 * 3_600_000)).toBe(3_600_000);
    expect(retryDelay(1, 9_000_000_000_000_000)).toBe(3_600_000);
    expect(retryDelay(8, 24 * 3_600_000)).toBe(21_600_000);
  });

  it("runs a cycle at its scheduled time unless that is over a minute old", () => {
    expect(cycleTime(undefined, 1_000_000)).toBe(1_000_000);
    expect(cycleTime(990_000, 1_000_000)).toBe(990_000);
    expect(cycleTime(900_000, 1_000_000)).toBe(1_000_000);
    expect(cycleTime(5_000_000, 1_000_000)).toBe(5_000_000);
  });
});
