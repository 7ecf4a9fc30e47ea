// How events reach a receiver that fails: retries with the same webhook-id on decisions 9's
// backoff (driven by explicit clocks, not waited for), Retry-After, 410, redirects, an endpoint
// that fails five events in a row, a receiver down for a day, a crash between attempts, and the
// order of one order's events whatever happens to the others.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, insert, storeWithToken } from "../helpers/api";
import { d1, DATABASES } from "../helpers/shards";
import { fireCron } from "../helpers/sync";
import { createWebhook, deliverAt, deliveries, webhook, type Delivery } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified, type ReceivedWebhook } from "./webhook-receiver";

beforeAll(installReceiver);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The interface's own order events, without decisions 12's package and line events. */
const ORDER_EVENTS = ["order.created", "order.acknowledged", "order.shipped", "order.cancelled"];

const idOf = (r: ReceivedWebhook) => r.headers["webhook-id"]!;
const at = (d: Delivery) => Date.parse(d.NextAttemptAt!);

/** The store's endpoint and a receiver for it; the first attempt of what is inserted is made on the sender's own alarm. */
async function setup(events?: string[]) {
  const { storeId, token } = await storeWithToken();
  const hook = receiver();
  const created = await createWebhook(storeId, hook.url, events);
  return { storeId, token, hook, created, list: (status?: string) => deliveries(storeId, created.WebhookId, status) };
}

/** Waits until every pending event the list shows has had at least `n` attempts. */
async function attemptsReached(list: () => Promise<Delivery[]>, n: number, count: number) {
  await until(async () => (await list()).filter((d) => d.Attempts >= n).length >= count);
}

describe("retries", () => {
  it("retries a failed event with the same webhook-id on the backoff of decisions 9, honouring Retry-After up to an hour", async () => {
    const { token, hook, created, list } = await setup();
    const answers = [500, 500, 429, 503, 500, 200];
    hook.answer(
      (_, i) =>
        new Response("", { status: answers[i]!, headers: answers[i] === 429 ? { "retry-after": "600" } : answers[i] === 503 ? { "retry-after": "7200" } : {} }),
    );
    await insert(token);
    await attemptsReached(list, 1, 1);
    const first = (await list())[0]!;
    expect(first).toMatchObject({ Status: "pending", Attempts: 1, LastStatusCode: 500 });
    // About 5 seconds after the first attempt (made at a real time this test does not know exactly).
    expect(at(first) - Date.now()).toBeLessThanOrEqual(5 * SECOND);
    // Attempt 2 (the sender's own alarm may make it first; it is made once either way).
    await deliverAt(created.WebhookId, at(first));
    const second = (await list())[0]!;
    expect(second).toMatchObject({ Attempts: 2, LastStatusCode: 500 });
    expect(at(second) - at(first)).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(at(second) - at(first)).toBeLessThan(5 * MINUTE + 30 * SECOND);
    // From here on every attempt is made on the test's clock: the waits are exact.
    await deliverAt(created.WebhookId, at(second));
    const third = (await list())[0]!;
    // 429 with Retry-After 600 s, shorter than the 30-minute backoff: the backoff stands.
    expect(third).toMatchObject({ Attempts: 3, LastStatusCode: 429 });
    expect(at(third) - at(second)).toBe(30 * MINUTE);
    await deliverAt(created.WebhookId, at(third));
    const fourth = (await list())[0]!;
    // 503 with Retry-After two hours: capped at one hour, shorter than the 2-hour backoff.
    expect(fourth).toMatchObject({ Attempts: 4, LastStatusCode: 503 });
    expect(at(fourth) - at(third)).toBe(2 * HOUR);
    // Nothing is sent before it is due.
    await deliverAt(created.WebhookId, at(fourth) - SECOND);
    expect(hook.all).toHaveLength(4);
    await deliverAt(created.WebhookId, at(fourth));
    const fifth = (await list())[0]!;
    expect(at(fifth) - at(fourth)).toBe(5 * HOUR);
    await deliverAt(created.WebhookId, at(fifth));
    expect((await list())[0]).toMatchObject({ Status: "delivered", Attempts: 6, LastStatusCode: 200, LastError: null, NextAttemptAt: null });
    // Every attempt carried the same webhook-id, the EventId the list shows, and verifies.
    expect(new Set(hook.all.map(idOf))).toEqual(new Set([first.EventId]));
    for (const r of hook.all) expect(verified(created.Secret, r).type).toBe("order.created");
    expect(hook.accepted).toHaveLength(1);
  });

  it("a Retry-After longer than the backoff is waited out", async () => {
    const { token, hook, created, list } = await setup();
    hook.answer((_, i) => (i < 2 ? new Response("", { status: 429, headers: { "retry-after": i === 0 ? "1" : "900" } }) : new Response("")));
    await insert(token);
    await attemptsReached(list, 1, 1);
    const first = (await list())[0]!;
    await deliverAt(created.WebhookId, at(first));
    const second = (await list())[0]!;
    // 900 s asked, 5 minutes of backoff: 15 minutes after the attempt (made at at(first), or a
    // moment later by the sender's own alarm).
    expect(second).toMatchObject({ Attempts: 2, LastStatusCode: 429 });
    expect(at(second) - at(first)).toBeGreaterThanOrEqual(15 * MINUTE);
    expect(at(second) - at(first)).toBeLessThan(15 * MINUTE + 30 * SECOND);
    await deliverAt(created.WebhookId, at(second) - SECOND);
    expect(hook.all).toHaveLength(2);
    await deliverAt(created.WebhookId, at(second));
    expect((await list())[0]).toMatchObject({ Status: "delivered", Attempts: 3 });
  });

  it("fails an event after eight attempts; an endpoint whose last five events failed is disabled, and the operator's retry sends one again", async () => {
    const { storeId, token, hook, created, list } = await setup();
    hook.answer(500);
    for (let i = 0; i < 5; i++) await insert(token);
    await attemptsReached(list, 1, 5);
    for (let attempt = 2; attempt <= 8; attempt++) {
      const pending = await list("pending");
      expect(pending).toHaveLength(5);
      await deliverAt(created.WebhookId, Math.max(...pending.map(at)));
      expect((await list()).every((d) => d.Attempts === attempt)).toBe(true);
    }
    const failed = await list("failed");
    expect(failed).toHaveLength(5);
    for (const d of failed) expect(d).toMatchObject({ Attempts: 8, LastStatusCode: 500, LastError: "The receiver answered 500.", NextAttemptAt: null });
    expect(hook.all).toHaveLength(40);
    const disabled = await webhook(storeId, created.WebhookId);
    expect(disabled).toMatchObject({ Enabled: false, DisabledReason: "The last 5 events failed after 8 attempts each." });
    // Disabled: a new order records nothing for it, and a retry is refused until it is enabled.
    await insert(token);
    expect(await list()).toHaveLength(5);
    const retry = `/stores/${storeId}/webhooks/${created.WebhookId}/deliveries/${failed[0]!.EventId}/retry`;
    const refused = await admin("POST", retry);
    expect(refused.status).toBe(400);
    expect(refused.json.Message).toMatch(/disabled; enable it/);
    hook.answer(200);
    expect((await admin("PATCH", `/stores/${storeId}/webhooks/${created.WebhookId}`, { Enabled: true })).json.Webhook).toMatchObject({
      Enabled: true,
      DisabledReason: null,
    });
    const retried = await admin("POST", retry);
    expect(retried.status).toBe(200);
    expect(retried.json.Delivery).toMatchObject({ EventId: failed[0]!.EventId, Status: "pending", Attempts: 0 });
    await until(() => hook.accepted.length === 1);
    expect(idOf(hook.accepted[0]!)).toBe(failed[0]!.EventId);
    expect((await list("failed")).map((d) => d.EventId)).not.toContain(failed[0]!.EventId);
    // Only a failed event can be retried.
    await until(async () => (await list("delivered")).length === 1);
    const again = await admin("POST", retry);
    expect(again.status).toBe(400);
    expect(again.json.Message).toMatch(/is delivered; only a failed event can be retried/);
  });

  it("a 410 disables the endpoint at once; nothing after it is sent", async () => {
    const { storeId, token, hook, created, list } = await setup();
    hook.answer(410);
    const orderId = await insert(token);
    await until(() => hook.all.length === 1);
    await call("PUT", `/v1/${token}/Orders/${orderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } });
    await deliverAt(created.WebhookId, Date.now() + HOUR);
    expect(hook.all).toHaveLength(1);
    expect(await webhook(storeId, created.WebhookId)).toMatchObject({ Enabled: false, DisabledReason: "The receiver answered 410 Gone." });
    const rows = await list();
    expect(rows.find((d) => d.Type === "order.created")).toMatchObject({ Status: "failed", Attempts: 1, LastStatusCode: 410 });
  });

  // Real seconds on the sender's own 15-second timer. The retry is due at once after a cut-off
  // attempt (its 5 s count from the attempt's start, and the 15 s wait is past them), so the state
  // between the two attempts lasts milliseconds: a poll for it often saw 0 attempts, then 2. The
  // receiver holds the second attempt until the test has read the first one's outcome.
  it("an attempt without an answer within 15 seconds is cut off and retried", { timeout: 60_000 }, async () => {
    const { token, hook, list } = await setup();
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    hook.answer((_, i) => (i === 0 ? "hang" : held.then(() => new Response(""))));
    await insert(token);
    await until(() => hook.all.length === 1);
    const sent = Date.now();
    // Generous above (a loaded machine runs alarms late), strict below.
    await until(() => hook.all.length === 2, 50_000);
    const waited = Date.now() - sent;
    expect(waited).toBeGreaterThanOrEqual(14 * SECOND);
    expect(waited).toBeLessThan(50 * SECOND);
    // An attempt's outcome is written before the event's next attempt starts.
    expect((await list())[0]).toMatchObject({ Status: "pending", Attempts: 1, LastStatusCode: null, LastError: "No answer within 15 seconds." });
    expect(idOf(hook.all[1]!)).toBe(idOf(hook.all[0]!));
    answer();
    await until(async () => (await list())[0]?.Status === "delivered");
    expect((await list())[0]).toMatchObject({ Attempts: 2, LastStatusCode: 200, LastError: null });
  });

  it("a redirect is not followed: the attempt failed, naming the Location", async () => {
    const { token, hook, list } = await setup();
    hook.answer(() => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/hook" } }));
    await insert(token);
    await attemptsReached(list, 1, 1);
    expect(hook.all).toHaveLength(1);
    expect(hook.all[0]!.redirect).toBe("manual");
    expect((await list())[0]).toMatchObject({
      Status: "pending",
      LastStatusCode: 302,
      LastError: "Redirect to https://elsewhere.example/hook not followed: give the endpoint's final URL.",
    });
  });

  it("LastError keeps a short description: a redirect's Location without its query or credentials, no body, no request URL", async () => {
    const { token, hook, created: endpoint, list } = await setup();
    hook.answer((_, i) => {
      if (i === 0) return new Response(null, { status: 307, headers: { location: "https://sso:pw@login.example/callback?session=s3cr3t&token=abc#frag" } });
      if (i === 1) return new Response("stack trace with api_key=LEAKED", { status: 500 });
      // A failure whose message quotes a URL with its query, as some network errors do.
      throw new TypeError(`connect ECONNREFUSED for https://erp.example/hooks?api_key=LEAKED ${"x".repeat(400)}`);
    });
    await insert(token);
    await attemptsReached(list, 1, 1);
    expect((await list())[0]).toMatchObject({
      LastStatusCode: 307,
      LastError: "Redirect to https://login.example/callback not followed: give the endpoint's final URL.",
    });
    const created = (await list())[0]!;
    expect(created.LastError).not.toMatch(/s3cr3t|token=|sso|pw@|frag/);
    await deliverAt(endpoint.WebhookId, Date.now() + 10 * MINUTE);
    expect((await list())[0]).toMatchObject({ Attempts: 2, LastStatusCode: 500, LastError: "The receiver answered 500." });
    await deliverAt(endpoint.WebhookId, Date.now() + 2 * HOUR);
    const third = (await list())[0]!;
    expect(third.Attempts).toBe(3);
    expect(third.LastError!.length).toBeLessThanOrEqual(200);
    expect(third.LastError).not.toContain("LEAKED");
    expect(third.LastError).toContain("https://erp.example/hooks");
  });
});

describe("outages and order", () => {
  it("a receiver down for a day gets every event once it is back, each order's in order, nothing twice", async () => {
    // The interface's order events (a whole-order ship also records order.shipment_created, decisions 12).
    const { token, hook, created, list } = await setup(ORDER_EVENTS);
    const start = Date.now();
    let clock = start;
    // Down (503, then a refused connection) until a day has passed on the test's clock.
    hook.answer((_, i) => (clock - start < 24 * HOUR ? (i % 2 ? "network-error" : new Response("", { status: 503 })) : new Response("")));
    const a = await insert(token);
    const b = await insert(token);
    await call("PUT", `/v1/${token}/Orders/${a}/AcknowledgeOrder?orderDestinationOrderNumber=S-1`);
    await call("PUT", `/v1/${token}/Orders/${a}/UpdateStatus`, { body: { OrderStatus: "SHIPPED" } });
    await attemptsReached(list, 1, 2);
    for (let round = 0; round < 10 && (await list("pending")).length > 0; round++) {
      const heads = (await list("pending")).filter((d) => d.Attempts > 0);
      clock = Math.max(clock, ...heads.map(at));
      await deliverAt(created.WebhookId, clock);
    }
    expect(clock - start).toBeGreaterThan(27 * HOUR);
    const rows = await list();
    expect(rows.every((d) => d.Status === "delivered")).toBe(true);
    // The first event of each order took all eight attempts; the later ones of order a waited, then went at once.
    expect(rows.map((d) => d.Attempts).sort()).toEqual([1, 1, 8, 8]);
    const bodies = hook.accepted.map((r) => verified(created.Secret, r));
    expect(bodies.filter((x) => x.data.OrderId === a).map((x) => x.type)).toEqual(["order.created", "order.acknowledged", "order.shipped"]);
    expect(bodies.filter((x) => x.data.OrderId === b).map((x) => x.type)).toEqual(["order.created"]);
    expect(new Set(hook.accepted.map(idOf)).size).toBe(4);
    // Each failed attempt repeated the same id: 7 per first event, none for the ones that waited.
    const tries = new Map<string, number>();
    for (const r of hook.all) tries.set(idOf(r), (tries.get(idOf(r)) ?? 0) + 1);
    expect([...tries.values()].sort()).toEqual([1, 1, 8, 8]);
  });

  it("events of one order wait behind its failing event while other orders' go out", async () => {
    const { token, hook, created, list } = await setup(ORDER_EVENTS);
    const slow = await insert(token, { OrderSourceOrderNumber: "SLOW-1" });
    await until(() => hook.all.length === 1);
    hook.answer((r) =>
      JSON.parse(r.body).data.OrderId === slow && JSON.parse(r.body).type === "order.acknowledged" && hook.all.filter((x) => idOf(x) === idOf(r)).length === 1
        ? new Response("", { status: 500 })
        : new Response(""),
    );
    await call("PUT", `/v1/${token}/Orders/${slow}/AcknowledgeOrder?orderDestinationOrderNumber=S-1`);
    await call("PUT", `/v1/${token}/Orders/${slow}/UpdateStatus`, { body: { OrderStatus: "SHIPPED" } });
    const others = [await insert(token), await insert(token)];
    for (const o of others) await call("PUT", `/v1/${token}/Orders/${o}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } });
    await deliverAt(created.WebhookId);
    await until(async () => (await list("delivered")).length === 5);
    // The shipment of SLOW-1 has not been sent: its acknowledgement is still to go.
    const sent = () =>
      hook.all
        .map((r) => verified(created.Secret, r))
        .filter((x) => x.data.OrderId === slow)
        .map((x) => x.type);
    expect(sent()).toEqual(["order.created", "order.acknowledged"]);
    const retryAt = Math.max(...(await list("pending")).filter((d) => d.Attempts > 0).map(at));
    await deliverAt(created.WebhookId, retryAt);
    expect(sent()).toEqual(["order.created", "order.acknowledged", "order.acknowledged", "order.shipped"]);
    for (const o of others) {
      expect(
        hook.accepted
          .map((r) => verified(created.Secret, r))
          .filter((x) => x.data.OrderId === o)
          .map((x) => x.type),
      ).toEqual(["order.created", "order.cancelled"]);
    }
  });

  it("a sender cut off during an attempt sends that event again with the same webhook-id, and nothing else twice", async () => {
    const { token, hook, created, list } = await setup();
    await insert(token);
    await until(async () => (await list("delivered")).length === 1);
    let hang = true;
    hook.answer(() => (hang ? "hang" : new Response("")));
    await insert(token);
    await until(() => hook.all.length === 2);
    // The hub is cut off while the receiver has the second event and has not answered.
    await abortAllDurableObjects();
    hang = false;
    await deliverAt(created.WebhookId, Date.now() + MINUTE);
    await until(async () => (await list("delivered")).length === 2);
    const ids = hook.all.map(idOf);
    expect(ids).toHaveLength(3);
    expect(ids[2]).toBe(ids[1]);
    expect(ids[0]).not.toBe(ids[1]);
    expect(hook.accepted.map(idOf)).toEqual([ids[0], ids[1]]);
  });

  it("the cron wakes a sender whose wake-up was lost between the write and the wake", async () => {
    const { token, hook, created, list } = await setup();
    await insert(token);
    await until(async () => (await list("delivered")).length === 1);
    // As if a write had committed its event and the Worker had died before waking the sender:
    // the row is pending and due, and the sender has no alarm.
    for (const database of DATABASES)
      await d1(database)
        .prepare("update webhook_deliveries set state = 'pending', attempts = 0, finished_at = null where webhook_id = ?")
        .bind(created.WebhookId)
        .run();
    const sender = env.WEBHOOK_SENDER.getByName(created.WebhookId);
    expect(await runInDurableObject(sender, (_, state) => state.storage.getAlarm())).toBeNull();
    expect(hook.accepted).toHaveLength(1);
    await fireCron();
    await until(async () => (await list("delivered")).length === 1);
    expect(hook.accepted).toHaveLength(2);
    expect(new Set(hook.accepted.map(idOf)).size).toBe(1);
  });
});
