// A large backlog for one endpoint: more than 10,000 events go out in one pass, each on its first
// attempt (workerd refuses a timer beyond 10,000 active ones, and each attempt used to leave its 15-second
// timer armed: the 10,001st attempt of a pass failed at once, and the event came 5 min 5 s late);
// and the sender's reads walk the due index instead of sorting every pending row on each round.
import { beforeAll, describe, expect, it } from "vitest";
import { dueDeliveries, nextDue } from "../../src/webhooks/webhook-deliveries.queries";
import { storeWithToken } from "../helpers/api";
import { storeD1, storeDrizzle } from "../helpers/shards";
import { createWebhook, deliverAt, deliveries } from "../helpers/webhooks";
import { installReceiver, receiver, verified } from "./webhook-receiver";

beforeAll(installReceiver);

/** `count` pending order.created rows of the endpoint, due at `at`, written straight into D1 (as a backlog the sender has not seen). */
async function seedBacklog(storeId: string, webhookId: string, count: number, at: number) {
  await (await storeD1(storeId)).prepare(
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
  it("of 10,001 events goes out in one pass, every event on its first attempt", { timeout: 120_000 }, async () => {
    const { storeId } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url);
    const at = Date.now();
    await seedBacklog(storeId, created.WebhookId, 10_001, at);

    const pass = await deliverAt(created.WebhookId, at);

    expect(pass).toEqual({ attempted: 10_001, delivered: 10_001, nextAt: null });
    expect(hook.all).toHaveLength(10_001);
    expect(hook.accepted).toHaveLength(10_001);
    expect(new Set(hook.all.map((r) => r.headers["webhook-id"])).size).toBe(10_001);
    expect(verified(created.Secret, hook.all.at(-1)!).data.OrderId).toBeTypeOf("string");
    expect(await deliveries(storeId, created.WebhookId, "pending")).toEqual([]);
    const failedOrRetried = await (await storeD1(storeId)).prepare("select count(*) as n from webhook_deliveries where webhook_id = ? and (state <> 'delivered' or attempts <> 1)")
      .bind(created.WebhookId)
      .first<{ n: number }>();
    expect(failedOrRetried?.n).toBe(0);
  });
});

describe("query plans of the sender's reads", () => {
  async function planOf(query: { sql: string; params: unknown[] }): Promise<string> {
    const { results } = await (await storeD1(storeId)).prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
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
});
