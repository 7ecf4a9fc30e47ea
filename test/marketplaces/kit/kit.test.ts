// The connector kit's pure parts (src/marketplaces/kit/): what a wait a marketplace names
// becomes, whatever it writes, the guard of a connector's own paging, and the bound of a
// connector's memory of orders (over an in-memory storage). The kit's calls are
// tested through each connector and its fake (<x>.connector.test.ts, <x>.sync.test.ts).
import { describe, expect, it } from "vitest";
import { MarketplaceError } from "../../../src/marketplaces/connector";
import { retryAfterMs } from "../../../src/marketplaces/kit/marketplace-http";
import { MEMORY_KEYS, memoryKeyOf, orderMemory, REMEMBERED_ORDERS } from "../../../src/marketplaces/kit/order-memory";
import { pageGuard } from "../../../src/marketplaces/kit/paging";
import { memoryStorage, type SourceStorage } from "../../../src/marketplaces/storage";

const NOW = new Date("2026-03-01T12:00:00Z");

describe("Retry-After", () => {
  it("reads seconds and HTTP dates, holds any wait to one hour, and takes what it cannot read as a minute", () => {
    const cases: [string | null, number | null][] = [
      [null, null],
      ["  ", null],
      ["7", 7_000],
      ["2.5", 2_500],
      ["3600", 3_600_000],
      ["9000000000000", 3_600_000],
      ["9".repeat(400), 3_600_000],
      ["Sun, 01 Mar 2026 12:00:30 GMT", 30_000],
      ["Sun, 01 Mar 2026 11:00:00 GMT", 0],
      ["Fri, 31 Dec 9999 23:59:59 GMT", 3_600_000],
      ["-5", 60_000],
      ["soon", 60_000],
    ];
    for (const [header, wait] of cases) expect([header, retryAfterMs(header, NOW)]).toEqual([header, wait]);
  });

  it("holds the wait of any MarketplaceError to 0..one hour, so no date built from it is out of range", () => {
    const waits = [Infinity, 9e15, -5, Number.NaN, 1234.4].map((ms) => new MarketplaceError("x", 429, true, ms).retryAfterMs);
    expect(waits).toEqual([3_600_000, 3_600_000, 0, 3_600_000, 1234]);
    expect(new MarketplaceError("x", 429, true).retryAfterMs).toBeNull();
  });
});

describe("a connector's own paging", () => {
  it("stops at a cursor seen before, and past the pages it allows", () => {
    const repeat = pageGuard("Shop order 1's lines", 10);
    repeat("a");
    repeat("b");
    expect(() => repeat("a")).toThrow("Shop order 1's lines: the marketplace named the same next page twice");
    const endless = pageGuard("Shop order 2's lines", 3);
    endless("a");
    endless("b");
    expect(() => endless("c")).toThrow("Shop order 2's lines: more than 3 pages, more than the hub reads");
  });
});

describe("a connector's memory of orders", () => {
  it("keeps 64 orders a key, forgets the oldest first, counts one put again as the newest, and survives the connector", () => {
    expect([REMEMBERED_ORDERS, MEMORY_KEYS]).toEqual([1024, 16]);
    const key = memoryKeyOf("test.memory", "order-0");
    const ids: string[] = [];
    for (let n = 0; ids.length < 66; n++) if (memoryKeyOf("test.memory", `order-${n}`) === key) ids.push(`order-${n}`);
    const kept = memoryStorage();
    const writes: string[] = [];
    const storage: SourceStorage = {
      ...kept,
      put: (k, v) => {
        writes.push(k);
        kept.put(k, v);
      },
    };
    const memory = orderMemory<number>(storage, "test.memory");
    memory.put(ids.slice(0, 64).map((id, i) => [id, i] as const));
    expect(writes).toEqual([key]);
    // The first is put again (now the newest): the 65th then forgets the second, the 66th the third.
    memory.put([[ids[0]!, 100]]);
    memory.put([[ids[64]!, 64]]);
    memory.put([[ids[65]!, 65]]);
    const again = orderMemory<number>(kept, "test.memory");
    expect(ids.map((id) => again.get(id)).filter((v) => v === undefined)).toHaveLength(2);
    expect([again.get(ids[0]!), again.get(ids[1]!), again.get(ids[2]!), again.get(ids[3]!), again.get(ids[65]!)]).toEqual([100, undefined, undefined, 3, 65]);
    // Another key is not touched by this one's bound.
    const other = Array.from({ length: 40 }, (_, n) => `order-${n}`).find((id) => memoryKeyOf("test.memory", id) !== key)!;
    again.put([[other, 7]]);
    expect([again.get(other), again.get(ids[3]!)]).toEqual([7, 3]);
    expect(kept.list("test.memory.").length).toBe(2);
  });
});
