// A deleted store (issue 20): its feeds stop compiling at once, and everything it held (orders
// and their buyer data, lines, deliveries, set-aside records, products, feeds and their files,
// sources, keys) is purged in the background by the cron, in bounded batches. And the feed
// delete/compile race leaves no file behind in R2.
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { admin, ADMIN_KEY, BASE, call, insert, storeWithToken } from "../helpers/api";
import { countEverywhere, shardOf, storeD1 } from "../helpers/shards";
import { insertSource } from "../helpers/db";
import { figures, LIMITS, mark, since } from "../helpers/invocation-meter";
import { createSource, cycleAt, fireCron, listOrders, simulatedWindow } from "../helpers/sync";
import { compile, createFeed, product, putProducts } from "../feeds/feeds-helpers";

/** Counted in the directory and every shard: a purge must leave nothing of the store anywhere. */
const count = (sql: string, ...params: unknown[]) => countEverywhere(sql, ...params);

async function heldBy(storeId: string) {
  return {
    orders: await count("select count(*) as n from orders where store_id = ?", storeId),
    items: await count("select count(*) as n from order_items where order_id in (select id from orders where store_id = ?)", storeId),
    outbox: await count("select count(*) as n from outbox where store_id = ?", storeId),
    setAside: await count("select count(*) as n from set_aside_orders where source_id in (select id from sources where store_id = ?)", storeId),
    products: await count("select count(*) as n from products where store_id = ?", storeId),
    feeds: await count("select count(*) as n from feeds where store_id = ?", storeId),
    sources: await count("select count(*) as n from sources where store_id = ?", storeId),
    keys: await count("select count(*) as n from consumer_keys where store_id = ?", storeId),
    stores: await count("select count(*) as n from stores where id = ?", storeId),
    files: (await env.FEEDS.list({ prefix: `feeds/${storeId}/` })).objects.length,
  };
}

describe("deleting a store", () => {
  it("stops its feeds' schedules at once, says the data is purged in the background, and the cron purges all of it", async () => {
    const { storeId, token } = await storeWithToken();
    for (let i = 0; i < 3; i++) await insert(token);
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(8), malformedEvery: 4 } });
    await cycleAt(sourceId, Date.now());
    const imported = (await listOrders(token)).find((o) => o.OrderSource === "SimMarket")!;
    expect((await call("PUT", `/v1/${token}/Orders/${imported.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-1`)).status).toBe(200);
    await putProducts(storeId, [product("P1"), product("P2")]);
    const feed = await createFeed(storeId, { CompileIntervalMinutes: 15 });
    expect((await compile(feed.FeedId)).Status).toBe("Completed");
    const before = await heldBy(storeId);
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    const compiler = env.FEED_COMPILER.getByName(feed.FeedId);
    expect(await runInDurableObject(compiler, (_o, state) => state.storage.getAlarm())).not.toBeNull();

    const res = await admin("DELETE", `/stores/${storeId}`);
    expect(res.status).toBe(200);
    expect(res.json.Message).toBe(
      "The store is deleted: its keys and feed schedules stopped now; its orders, buyer data, products, feeds and their files, and sources are purged in " +
        "the background (every 15 minutes, in batches).",
    );
    expect(await runInDurableObject(compiler, (_o, state) => state.storage.getAlarm())).toBeNull();

    await fireCron();
    expect(await heldBy(storeId)).toEqual({ orders: 0, items: 0, outbox: 0, setAside: 0, products: 0, feeds: 0, sources: 0, keys: 0, stores: 0, files: 0 });
  });

  it("a store whose data takes more than one batch is purged over several cron runs, the rest untouched until then", async () => {
    const { storeId } = await storeWithToken();
    const many = Array.from({ length: 2_500 }, (_, i) => product(`S${i}`));
    await putProducts(storeId, many);
    const other = await storeWithToken();
    await putProducts(other.storeId, [product("KEEP")]);
    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    for (let run = 0; run < 5 && (await heldBy(storeId)).stores > 0; run++) await fireCron();
    expect((await heldBy(storeId)).products).toBe(0);
    expect((await heldBy(storeId)).stores).toBe(0);
    expect((await heldBy(other.storeId)).products).toBe(1);
  });
});

describe("a large store's purge", () => {
  it("a store at its 200 sources with 5,000 orders and 3,000 products is purged over cron runs that each stay within the invocation's limits", {
    timeout: 300_000,
  }, async () => {
    const { storeId } = await storeWithToken();
    const d1 = await storeD1(storeId);
    const now = Date.now();
    // Written straight into the store's shard (its triggers run); 200 sources is the store's limit.
    await d1
      .prepare(
        `with recursive r(i) as (select 1 union all select i + 1 from r where i < 5000)
         insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address, buyer_phone_number,
           first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method, grand_total, sub_total,
           date_created_in_order_source, date_updated)
         select ?1, 'Web', 'W-' || i, 'New', 'New', 'b' || i || '@example.com', '555-010-0000', 'Jane', 'Doe', '1 Main St', 'Springfield', 'IL',
           '62701', 'US', 'Standard', 10, 10, ?2, ?2 from r`,
      )
      .bind(storeId, now)
      .run();
    await d1
      .prepare("insert into order_items (order_id, sku, name, quantity, unit_price) select id, 'SKU-1', 'Mug', 1, 10 from orders where store_id = ?")
      .bind(storeId)
      .run();
    await d1
      .prepare(
        `with recursive r(i) as (select 1 union all select i + 1 from r where i < 3000)
         insert into products (store_id, sku, title, description, link, image_link, availability, price, currency, updated_at)
         select ?1, 'P-' || i, 'Product ' || i, 'About ' || i, 'https://shop.example/p/' || i, 'https://cdn.example/i/' || i || '.jpg', 'in_stock',
           10, 'USD', ?2 from r`,
      )
      .bind(storeId, now)
      .run();
    for (let i = 0; i < 200; i++) await insertSource(storeId, `Market ${i}`);
    const feed = await createFeed(storeId);
    expect((await compile(feed.FeedId)).Status).toBe("Completed");
    const before = await heldBy(storeId);
    expect(before).toMatchObject({ orders: 5_000, items: 5_000, products: 3_000, sources: 200, feeds: 1, files: 1 });

    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    const from = mark();
    let runs = 0;
    while ((await heldBy(storeId)).stores > 0 && runs < 10) {
      await fireCron();
      runs += 1;
    }
    expect(await heldBy(storeId)).toEqual({ orders: 0, items: 0, outbox: 0, setAside: 0, products: 0, feeds: 0, sources: 0, keys: 0, stores: 0, files: 0 });
    const crons = since(from, "scheduled");
    expect(crons).toHaveLength(runs);
    console.log(`[figures] purge of a store of 200 sources, 5,000 orders, 3,000 products: ${figures(crons)}`);
    // Its 200 sources alone are 1,200 statements: more than one run's share of 500.
    expect(runs).toBeGreaterThanOrEqual(3);
    for (const run of crons) {
      expect(run.d1Queries).toBeLessThanOrEqual(LIMITS.d1Queries);
      expect(run.subrequests).toBeLessThanOrEqual(LIMITS.subrequests);
    }
  });
});

describe("the feed delete/compile race", () => {
  it("a compile that commits a new file between the delete's read and its delete leaves no file behind", async () => {
    const { storeId } = await storeWithToken();
    await putProducts(storeId, [product("R1")]);
    const feed = await createFeed(storeId);
    await compile(feed.FeedId);
    const raced = `feeds/${storeId}/${feed.FeedId}/job_raced.csv`;
    // The store's shard, whose delete of the feed row runs just after a compile committed `raced`.
    const shard = await shardOf(storeId);
    const racing = new Proxy(env[shard], {
      get(target, prop) {
        if (prop === "prepare") {
          return (query: string) => {
            const statement = target.prepare(query);
            if (!/^delete from "feeds"/i.test(query)) return statement;
            // What a compile's finish does: its file in, the row pointed at it, the old file out.
            const racer = async () => {
              const old = await env[shard].prepare("select file_key from feeds where id = ?").bind(feed.FeedId).first<{ file_key: string }>();
              await env.FEEDS.put(raced, "id\r\n");
              await env[shard].prepare("update feeds set file_key = ? where id = ?").bind(raced, feed.FeedId).run();
              await env.FEEDS.delete(old!.file_key);
            };
            return wrap(statement, racer);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}/admin/v1/feeds/${feed.FeedId}`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN_KEY}` } }) as Parameters<
        typeof worker.fetch
      >[0],
      { ...env, [shard]: racing },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect((await env.FEEDS.list({ prefix: `feeds/${storeId}/` })).objects.map((o) => o.key)).toEqual([]);
  });
});

/** A prepared statement that runs `before` once, just before it executes. */
function wrap(statement: D1PreparedStatement, before: () => Promise<void>): D1PreparedStatement {
  let ran = false;
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === "bind") return (...args: unknown[]) => wrap(target.bind(...args), before);
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (prop === "all" || prop === "raw" || prop === "run" || prop === "first") {
        return async (...args: unknown[]) => {
          if (!ran) {
            ran = true;
            await before();
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
