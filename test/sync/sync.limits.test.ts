// The sync at the sizes of the benchmarks, held to Cloudflare's per-invocation limits by the
// invocation meter (test/helpers/invocation-meter.ts): a cycle importing 10,000 orders, and a
// delivery round of 1,000 acknowledgements, each row costing at least its own write, so it cannot
// fit one invocation's 1,000 D1 queries: the cycle goes on in the source's next invocations, and
// every row is sent once, recorded before the next call, exactly as in one invocation.
import { describe, expect, it } from "vitest";
import { enqueueAcknowledgementsOf } from "../../src/outbox/outbox.queries";
import { markProcessingForBench } from "../../src/orders/orders.writes";
import { admin, storeWithToken } from "../helpers/api";
import { countRows } from "../helpers/db";
import { figures, LIMITS, mark, since, type Invocation } from "../helpers/invocation-meter";
import { storeD1, storeDrizzle } from "../helpers/shards";
import { createSource, queuedCycleEnded, received } from "../helpers/sync";

interface WireCycle {
  OrdersImported: number;
  Delivered: number;
  DeliveriesPending: number;
  D1Statements: number;
  Continues: boolean;
  Error: string | null;
}

async function recentCycles(storeId: string, sourceId: string): Promise<WireCycle[]> {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}`);
  return (res.json.Source as { Status: { RecentCycles: WireCycle[] } }).Status.RecentCycles;
}

function withinLimits(parts: Invocation[]) {
  for (const part of parts) {
    expect(part.d1Queries, part.label).toBeLessThanOrEqual(LIMITS.d1Queries);
    expect(part.subrequests, part.label).toBeLessThanOrEqual(LIMITS.subrequests);
  }
}

describe("a source at the benchmark's sizes", () => {
  it("imports 10,000 orders in one cycle whose invocations each stay within the limits, then delivers 1,000 acknowledgements over as many invocations as " +
    "they need, each once", {
    timeout: 300_000,
  }, async () => {
    const { storeId } = await storeWithToken();
    // 10,000 orders at 10,000 an hour, all between one and two hours ago (bench/sync.bench.mjs).
    const interval = 360;
    const end = Math.floor((Date.now() - 3_600_000) / interval) * interval;
    const settings = { ordersPerHour: 10_000, startAt: new Date(end - 9_999 * interval).toISOString(), endAt: new Date(end).toISOString() };
    const sourceId = await createSource(storeId, { Name: "BenchMarket", Settings: settings });

    let from = mark();
    const sync = await admin("POST", `/sync?sourceId=${sourceId}`);
    expect(sync.status).toBe(200);
    await queuedCycleEnded(sourceId);
    const importing = since(from, "SourceSync.");
    withinLimits(importing);
    console.log(`[figures] sync cycle importing 10,000 orders: ${figures(importing)}`);
    const imported = await recentCycles(storeId, sourceId);
    expect(imported).toHaveLength(importing.length);
    expect(imported.reduce((n, c) => n + c.OrdersImported, 0)).toBe(10_000);
    expect(imported[0]).toMatchObject({ Continues: false, Error: null });
    expect(await countRows("orders", storeId)).toBe(10_000);

    // 1,000 of them acknowledged, as 1,000 AcknowledgeOrder calls would leave them.
    const db = await storeDrizzle(storeId);
    const now = Date.now();
    await db.$client.batch([markProcessingForBench(db, sourceId, 1_000, now), enqueueAcknowledgementsOf(db, sourceId, now)]);
    expect(await countRows("outbox", storeId)).toBe(1_000);

    from = mark();
    const first = (await admin("POST", `/sync?sourceId=${sourceId}`)).json.Sync as { Sources: WireCycle[] };
    expect(first.Sources[0]).toMatchObject({ Continues: true, Error: null });
    expect(first.Sources[0]!.Delivered).toBeLessThan(1_000);
    await queuedCycleEnded(sourceId);
    const delivering = since(from, "SourceSync.");
    expect(delivering.length).toBeGreaterThanOrEqual(2);
    withinLimits(delivering);
    console.log(`[figures] delivery of 1,000 outbox rows: ${figures(delivering)}`);
    const parts = (await recentCycles(storeId, sourceId)).slice(0, delivering.length);
    expect(parts.reduce((n, c) => n + c.Delivered, 0)).toBe(1_000);
    expect(parts.map((c) => c.Continues)).toEqual([false, ...parts.slice(1).map(() => true)]);
    expect(parts[0]).toMatchObject({ DeliveriesPending: 0, Error: null });

    // The marketplace got each acknowledgement once, and every row says delivered.
    const calls = (await received(storeId, sourceId)).filter((c) => c.Operation === "acknowledge");
    expect(calls).toHaveLength(1_000);
    expect(new Set(calls.map((c) => c.OrderSourceOrderNumber)).size).toBe(1_000);
    const states = await (await storeD1(storeId))
      .prepare("select state, attempts, count(*) as n from outbox where source_id = ? group by state, attempts")
      .bind(sourceId)
      .all();
    expect(states.results).toEqual([{ state: "delivered", attempts: 1, n: 1_000 }]);
  });
});
