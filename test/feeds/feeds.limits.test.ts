// A feed compile at the benchmark's size (bench/feeds.bench.mjs), held to Cloudflare's
// per-invocation limits by the invocation meter (test/helpers/invocation-meter.ts): 100,000
// products read 100 a page are 1,000 pages, one D1 query each, more than one invocation may make
// whatever time a slice is given; a slice stops after 800 pages and the alarm goes on.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, storeWithToken } from "../helpers/api";
import { figures, LIMITS, mark, since } from "../helpers/invocation-meter";
import { storeD1 } from "../helpers/shards";
import { compile, createFeed, type AdminFeed } from "./feeds-helpers";

describe("a compile of 100,000 products", () => {
  it("read 100 rows a page with all the time it wants, spreads over slices that each stay within the limits, every product once", {
    timeout: 300_000,
  }, async () => {
    const { storeId } = await storeWithToken();
    await (await storeD1(storeId))
      .prepare(
        `with recursive r(i) as (select 1 union all select i + 1 from r where i < 100000)
         insert into products (store_id, sku, title, description, link, image_link, price, currency, availability, brand, gtin, updated_at)
         select ?1, 'SKU-' || substr('00000' || i, -6), 'Product ' || i, 'The description of ' || i, 'https://shop.example/p/' || i,
           'https://cdn.example/i/' || i || '.jpg', 12.5, 'USD', 'in_stock', 'Acme', '4006381333931', ?2 from r`,
      )
      .bind(storeId, Date.now())
      .run();
    const feed = await createFeed(storeId);
    const stub = env.FEED_COMPILER.getByName(feed.FeedId);
    // 1,000 pages, and time enough for all of them in the first slice.
    await stub.configure({ pageRows: 100, firstSliceMs: 600_000, sliceMs: 600_000 });

    const from = mark();
    const first = await compile(feed.FeedId);
    expect(first.Status).toBe("Compiling");
    expect(await stub.progress()).toMatchObject({ running: true, slices: 1 });
    let alarms = 0;
    while ((await stub.progress())?.running && alarms < 10) {
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      alarms += 1;
    }
    expect(alarms).toBe(1);

    const done = (await admin("GET", `/feeds/${feed.FeedId}`)).json.Feed as AdminFeed;
    expect(done).toMatchObject({ Status: "Completed", CompilationTotalCount: 100_000 });
    const parts = since(from, "FeedCompiler.").filter((i) => i.d1Queries > 0);
    console.log(`[figures] feed compile of 100,000 products, 100 a page: ${figures(parts)}`);
    expect(parts.map((p) => p.label)).toEqual(["FeedCompiler.compile", "FeedCompiler.alarm"]);
    // The first slice read its 800 pages (one query each), and stopped there.
    expect(parts[0]!.d1Queries).toBeGreaterThanOrEqual(800);
    for (const part of parts) {
      expect(part.d1Queries, part.label).toBeLessThanOrEqual(LIMITS.d1Queries);
      expect(part.subrequests, part.label).toBeLessThanOrEqual(LIMITS.subrequests);
    }
  });
});
