// A stock push at the benchmark's size (bench/stock.bench.mjs), held to Cloudflare's
// per-invocation limits by the invocation meter: 100,000 tracked Skus to a marketplace that takes
// 100 a push. A push costs its due read and its record (two D1 queries), so its 1,000 pushes
// cannot fit one invocation: the cycle goes on in the source's next invocations within the
// marketplace's 1,000 pushes a cycle, and every Sku is sent once, within that one cycle.
import { describe, expect, it } from "vitest";
import { admin, storeWithToken } from "../helpers/api";
import { figures, LIMITS, mark, since } from "../helpers/invocation-meter";
import { storeD1 } from "../helpers/shards";
import { createSource, queuedCycleEnded, received } from "../helpers/sync";

describe("a push of 100,000 Skus", () => {
  it("goes out in one cycle over several invocations, each within the limits, every Sku once", { timeout: 300_000 }, async () => {
    const { storeId } = await storeWithToken();
    // The catalog written straight into the store's shard (its triggers run: usage, stock clock).
    await (await storeD1(storeId))
      .prepare(
        `with recursive r(i) as (select 1 union all select i + 1 from r where i < 100000)
         insert into products (store_id, sku, title, price, currency, quantity, updated_at)
         select ?1, 'SKU-' || substr('00000' || i, -6), 'Product ' || i, 10, 'USD', 100, ?2 from r`,
      )
      .bind(storeId, Date.now())
      .run();
    // A marketplace that sells nothing and takes 100 Skus a push.
    const settings = { startAt: new Date(Date.now() + 365 * 86_400_000).toISOString(), listingBatchSize: 100 };
    const sourceId = await createSource(storeId, { Name: "Stock", Settings: settings });

    const from = mark();
    const first = (await admin("POST", `/sync?sourceId=${sourceId}`)).json.Sync as { Sources: { Continues: boolean; Error: string | null }[] };
    expect(first.Sources[0]).toMatchObject({ Continues: true, Error: null });
    await queuedCycleEnded(sourceId);

    const parts = since(from, "SourceSync.");
    console.log(`[figures] stock push of 100,000 Skus: ${figures(parts)}`);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.d1Queries, part.label).toBeLessThanOrEqual(LIMITS.d1Queries);
      expect(part.subrequests, part.label).toBeLessThanOrEqual(LIMITS.subrequests);
    }
    const counts = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/listings?limit=1`)).json.Counts as Record<string, number>;
    expect(counts).toMatchObject({ Accepted: 100_000, Pending: 0 });
    const pushes = (await received(storeId, sourceId)).filter((r) => r.Operation === "pushListings");
    expect(pushes).toHaveLength(1_000);
    const skus = pushes.flatMap((p) => (p.Body as { items: { sku: string }[] }).items.map((i) => i.sku));
    expect(skus).toHaveLength(100_000);
    expect(new Set(skus).size).toBe(100_000);
  });
});
