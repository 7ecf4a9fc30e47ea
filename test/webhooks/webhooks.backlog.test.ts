// A large backlog for one endpoint: more than 10,000 events go out, each on its first attempt
// (workerd refuses a timer beyond 10,000 active ones, and each attempt used to leave its 15-second
// timer armed: the 10,001st attempt of a pass failed at once, and the event came 5 min 5 s late),
// in passes that each stay within one invocation's 10,000 subrequests and 1,000 D1 queries (the
// first pass hands over to the sender's alarm); and the sender's reads walk the due index
// instead of sorting every pending row on each round.
import { env } from "cloudflare:workers";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { dueDeliveries, nextDue, recordAttempts } from "../../src/webhooks/webhook-deliveries.queries";
import { storeWithToken } from "../helpers/api";
import { drizzleOf, shardOf, storeD1, storeDrizzle } from "../helpers/shards";
import { figures, invocation, LIMITS, mark, meterEnv, since } from "../helpers/invocation-meter";
import { outboundFetch } from "../../src/lib/outbound";
import { runPass } from "../../src/webhooks/sender";
import { createWebhook, deliverAt, deliveries } from "../helpers/webhooks";
import { installReceiver, receiver, verified } from "./webhook-receiver";

beforeAll(installReceiver);

/** `count` pending order.created rows of the endpoint, due at `at`, written straight into D1 (as a backlog the sender has not seen). */
async function seedBacklog(storeId: string, webhookId: string, count: number, at: number) {
  await (await storeD1(storeId))
    .prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?3)
     insert into webhook_deliveries (event_id, store_id, webhook_id, subject, type, payload, state, attempts, next_attempt_at, created_at)
     select 'msg_backlog_' || ?2 || '_' || i, ?1, ?2, 'order:' || i, 'order.created',
       json_object('type', 'order.created', 'timestamp', '2026-01-01T00:00:00.000Z', 'data', json_object('StoreId', ?1, 'OrderId', cast(i as text))),
       'pending', 0, ?4, ?4
     from r`,
    )
    .bind(storeId, webhookId, count, at)
    .run();
}

describe("a backlog", () => {
  it("of 10,001 events goes out in passes of its sender that each fit one invocation, every event once, on its first attempt", {
    timeout: 180_000,
  }, async () => {
    const { storeId } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url);
    const at = Date.now();
    await seedBacklog(storeId, created.WebhookId, 10_001, at);
    const from = mark();

    const pass = await deliverAt(created.WebhookId, at);

    // The first pass sends what fits in its invocation (or its 30 seconds) and hands the rest to
    // the alarm, now.
    expect(pass.attempted).toBeLessThan(10_001);
    expect(pass).toMatchObject({ delivered: pass.attempted, nextAt: at });
    await vi.waitUntil(() => hook.all.length === 10_001, { timeout: 120_000, interval: 100 });
    await vi.waitUntil(async () => (await env.WEBHOOK_SENDER.getByName(created.WebhookId).deliver(created.WebhookId, at)).attempted === 0, { timeout: 10_000 });

    const passes = since(from, "WebhookSender.").filter((i) => i.fetches > 0);
    console.log(`[figures] webhook backlog of 10,001 events: ${figures(passes)}`);
    expect(passes[0]!.fetches).toBe(pass.attempted);
    expect(passes.reduce((n, i) => n + i.fetches, 0)).toBe(10_001);
    for (const i of passes) {
      expect(i.subrequests).toBeLessThanOrEqual(LIMITS.subrequests);
      expect(i.d1Queries).toBeLessThanOrEqual(LIMITS.d1Queries);
    }
    expect(hook.all).toHaveLength(10_001);
    expect(hook.accepted).toHaveLength(10_001);
    expect(new Set(hook.all.map((r) => r.headers["webhook-id"])).size).toBe(10_001);
    expect(verified(created.Secret, hook.all.at(-1)!).data.OrderId).toBeTypeOf("string");
    expect(await deliveries(storeId, created.WebhookId, "pending")).toEqual([]);
    const failedOrRetried = await (await storeD1(storeId))
      .prepare("select count(*) as n from webhook_deliveries where webhook_id = ? and (state <> 'delivered' or attempts <> 1)")
      .bind(created.WebhookId)
      .first<{ n: number }>();
    expect(failedOrRetried?.n).toBe(0);
  });
});

describe("one pass given all the time it wants", () => {
  it("stops before its invocation's 1,000 D1 queries or 10,000 subrequests and asks to go on now", { timeout: 180_000 }, async () => {
    const { storeId } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url);
    const at = Date.now();
    await seedBacklog(storeId, created.WebhookId, 10_001, at);
    const db = drizzleOf(meterEnv(env)[await shardOf(storeId)]);
    const from = mark();

    const pass = await invocation("one pass", undefined, () =>
      runPass(created.WebhookId, { db, env, fetch: (input, init) => outboundFetch(input, init), now: at, wallClock: Date.now, budgetMs: 600_000 }),
    );

    const [spent] = since(from, "one pass");
    expect(spent!.fetches).toBe(pass.attempted);
    expect(pass.attempted).toBeGreaterThan(1_000);
    expect(pass).toMatchObject({ delivered: pass.attempted, nextAt: at });
    // It stopped at its share (900 queries, 9,000 subrequests, less what the attempts under way may still cost).
    expect(spent!.d1Queries > 800 || spent!.subrequests > 8_800, JSON.stringify(spent)).toBe(true);
    expect(spent!.d1Queries).toBeLessThanOrEqual(900);
    expect(spent!.subrequests).toBeLessThanOrEqual(9_000);
    expect(hook.all).toHaveLength(pass.attempted);
    const delivered = await (await storeD1(storeId))
      .prepare("select count(*) as n from webhook_deliveries where webhook_id = ? and state = 'delivered' and attempts = 1")
      .bind(created.WebhookId)
      .first<{ n: number }>();
    expect(delivered?.n).toBe(pass.attempted);
  });
});

describe("query plans of the sender's reads", () => {
  async function planOf(query: { sql: string; params: unknown[] }): Promise<string> {
    const { results } = await (await storeD1(storeId))
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    return results.map((r) => r.detail).join("\n");
  }

  let webhookId: string;
  let storeId: string;
  beforeAll(async () => {
    ({ storeId } = await storeWithToken());
    webhookId = (await createWebhook(storeId, receiver().url)).WebhookId;
    await seedBacklog(storeId, webhookId, 50, Date.now());
  });

  it("a round's due rows: a walk of webhook_deliveries_due in its order, with no sort of the due rows", async () => {
    const plan = await planOf(dueDeliveries(await storeDrizzle(storeId), webhookId, Date.now(), 100).toSQL());
    expect(plan, plan).toMatch(/SEARCH webhook_deliveries USING INDEX webhook_deliveries_due \(webhook_id=\? AND state=\? AND next_attempt_at<\?\)/);
    // The same order's earlier pending event: an index probe of the subject.
    expect(plan, plan).toMatch(/SEARCH earlier USING INDEX webhook_deliveries_subject \(webhook_id=\? AND subject=\? AND id<\?\)/);
    expect(plan, plan).not.toMatch(/TEMP B-TREE/);
    expect(plan, plan).not.toMatch(/\bSCAN\b/);
  });

  it("the next due time: a search of webhook_deliveries_due in its order, no scan and no sort", async () => {
    const plan = await planOf(nextDue(await storeDrizzle(storeId), webhookId).toSQL());
    expect(plan, plan).toMatch(/SEARCH webhook_deliveries USING INDEX webhook_deliveries_due \(webhook_id=\? AND state=\?\)/);
    expect(plan, plan).not.toMatch(/TEMP B-TREE/);
    expect(plan, plan).not.toMatch(/\bSCAN\b/);
  });

  it("a group's outcomes, one statement: a primary-key probe per outcome, no scan of the endpoint's rows", async () => {
    const attempts = [1, 2, 3].map((id) => ({ id, outcome: { state: "delivered" as const, statusCode: 200 } }));
    const plan = await planOf(new SQLiteAsyncDialect().sqlToQuery(recordAttempts(attempts, Date.now())));
    expect(plan, plan).toMatch(/SEARCH webhook_deliveries USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan, plan).not.toMatch(/SCAN webhook_deliveries/);
  });
});
