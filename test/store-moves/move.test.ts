// Moving a store between shards (decisions 10, issue 19): copied in batches while it is read and
// written, writes answered 503 with Retry-After only while it switches, every row in the new shard
// exactly once and none left in the old one, a cursor taken before the move still working after
// it, and a move cut off mid-copy finishing from where it stood.
import { createExecutionContext, createScheduledController, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { admin, call, insert, sampleOrder, storeWithToken } from "../helpers/api";

vi.setConfig({ testTimeout: 120_000 });

type Shard = "SHARD_1" | "SHARD_2" | "SHARD_3";
const d1 = (shard: string) => env[shard as Shard];

interface Move {
  Status: string;
  Phase: string;
  FromShard: string;
  ToShard: string;
  RowsCopied: number;
  ChangesApplied: number;
  RowsRemoved: number;
  WritesHeld: boolean;
  WriteHoldMs: number | null;
  Error: string | null;
}

async function shardOf(storeId: string): Promise<string> {
  const res = await admin("GET", `/stores/${storeId}`);
  return (JSON.parse(res.text) as { Store: { Shard: string } }).Store.Shard;
}

async function count(shard: string, sql: string, storeId: string): Promise<number> {
  const row = await d1(shard).prepare(`select count(*) as n from (${sql})`).bind(storeId).first<{ n: number }>();
  return row!.n;
}

/** What the store holds in one shard database, by table. */
async function holdings(shard: string, storeId: string) {
  return {
    orders: await count(shard, "select 1 from orders where store_id = ?1", storeId),
    items: await count(shard, "select 1 from order_items i join orders o on o.id = i.order_id where o.store_id = ?1", storeId),
    outbox: await count(shard, "select 1 from outbox where store_id = ?1", storeId),
    products: await count(shard, "select 1 from products where store_id = ?1", storeId),
    feeds: await count(shard, "select 1 from feeds where store_id = ?1", storeId),
    sources: await count(shard, "select 1 from sources where store_id = ?1", storeId),
    webhooks: await count(shard, "select 1 from webhooks where store_id = ?1", storeId),
    deliveries: await count(shard, "select 1 from webhook_deliveries where store_id = ?1", storeId),
    stores: await count(shard, "select 1 from stores where id = ?1", storeId),
  };
}

const mover = (storeId: string) => env.STORE_MOVER.getByName(storeId);

/** Runs one step of the move (a zero budget runs exactly one) and answers it as the API shows it. */
async function step(storeId: string): Promise<Move> {
  await mover(storeId).advance(storeId, 0);
  const res = await admin("GET", `/stores/${storeId}/move`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { Move: Move }).Move;
}

/** Every order id of the store, sorted, walking the pages with their cursors. */
async function listIds(token: string): Promise<string[]> {
  const ids: string[] = [];
  let query = "page=1";
  for (let pages = 0; pages < 20; pages++) {
    const res = await call("GET", `/v1/${token}/Orders?fromDate=2026-01-01&toDate=2026-12-31&pageSize=100&${query}`);
    expect(res.status, res.text).toBe(200);
    const body = JSON.parse(res.text) as { Orders: { OrderId: string }[]; Paging: { NextCursor: string | null } };
    ids.push(...body.Orders.map((o) => o.OrderId));
    if (!body.Paging.NextCursor) break;
    query = `cursor=${encodeURIComponent(body.Paging.NextCursor)}`;
  }
  return ids.sort();
}

/** A store with 12 orders, 3 products, a feed, a source and a webhook endpoint, and where it should go. */
async function seededStore() {
  const { storeId, token } = await storeWithToken();
  const ids: string[] = [];
  for (let i = 0; i < 12; i++)
    ids.push(
      await insert(token, {
        OrderItems: [
          { Sku: `S-${i}`, Name: "Mug", Quantity: 1, UnitPrice: 5 },
          { Sku: "S-X", Name: "Lid", Quantity: 2, UnitPrice: 1 },
        ],
      }),
    );
  const products = await admin("PUT", `/stores/${storeId}/products`, {
    Products: ["A", "B", "C"].map((sku) => ({
      Sku: sku,
      Title: `Product ${sku}`,
      Description: "d",
      Link: `https://shop.example/${sku}`,
      ImageLink: `https://shop.example/${sku}.jpg`,
      Price: 9.5,
      Currency: "USD",
      Availability: "in stock",
      Quantity: 4,
    })),
  });
  expect(products.status, products.text).toBe(200);
  expect((await admin("POST", `/stores/${storeId}/feeds`, { Name: "Main", Format: "csv" })).status).toBe(200);
  expect((await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Sim", Settings: {} })).status).toBe(200);
  // An endpoint, disabled (no test may call out), with three failed deliveries on record.
  const hook = await admin("POST", `/stores/${storeId}/webhooks`, { Url: "https://erp.example/hook", Events: ["*"] });
  const webhookId = (JSON.parse(hook.text) as { Webhook: { WebhookId: string } }).Webhook.WebhookId;
  expect((await admin("PATCH", `/stores/${storeId}/webhooks/${webhookId}`, { Enabled: false })).status).toBe(200);
  const from = await shardOf(storeId);
  for (let i = 0; i < 3; i++) {
    await d1(from)
      .prepare(
        "insert into webhook_deliveries (event_id, store_id, webhook_id, subject, type, payload, state, attempts, next_attempt_at, created_at) values (?1, " +
          "?2, ?3, 'o', 'order.created', '{}', 'failed', 8, 0, 0)",
      )
      .bind(`msg_${storeId}_${i}`, storeId, webhookId)
      .run();
  }
  const to = ["SHARD_1", "SHARD_2", "SHARD_3"].find((s) => s !== from)!;
  return { storeId, token, ids, from, to };
}

describe("moving a store to another shard", () => {
  it("copies in batches while reads and writes go on, holds writes only while switching, and leaves nothing behind", async () => {
    const { storeId, token, ids, from, to } = await seededStore();
    const before = await holdings(from, storeId);
    expect(before).toEqual({ orders: 12, items: 24, outbox: 0, products: 3, feeds: 1, sources: 1, webhooks: 1, deliveries: 3, stores: 1 });
    // A cursor taken before the move.
    const first = await call("GET", `/v1/${token}/Orders?fromDate=2026-01-01&toDate=2026-12-31&pageSize=5&page=1`);
    const cursor = (JSON.parse(first.text) as { Paging: { NextCursor: string } }).Paging.NextCursor;
    expect(cursor).toBeTruthy();

    await mover(storeId).configure({ rows: 4, changes: 8, fewChanges: 8, graceMs: 0, removeRows: 5 });
    const started = await admin("POST", `/stores/${storeId}/move`, { Shard: to });
    expect(started.status, started.text).toBe(200);
    expect((JSON.parse(started.text) as { Move: Move }).Move).toMatchObject({ Status: "copying", Phase: "capture", FromShard: from, ToShard: to });

    const seen: string[] = [];
    const written: string[] = [];
    let heldAnswers = 0;
    for (let i = 0; i < 200; i++) {
      const move = await step(storeId);
      seen.push(move.Phase);
      // Reads answer throughout, with every order written so far.
      expect(await listIds(token)).toEqual([...ids, ...written].sort());
      // A write now: accepted while copying, 503 with Retry-After while writes are held.
      const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ OrderSourceOrderNumber: `DURING-${i}` }) });
      if (res.status === 200) written.push(JSON.parse(res.text).OrderId as string);
      else {
        expect(res.status, res.text).toBe(503);
        expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(2);
        expect(move.Status).toBe("switching");
        heldAnswers++;
      }
      if (move.Status === "completed") break;
    }
    const done = (JSON.parse((await admin("GET", `/stores/${storeId}/move`)).text) as { Move: Move }).Move;
    expect(done.Status).toBe("completed");
    expect(done.Error).toBeNull();
    expect(done.WriteHoldMs).toBeGreaterThanOrEqual(0);
    expect(done.WritesHeld).toBe(false);
    // The copy took several batches, changes made during it were replayed, writes were held at least once.
    expect(seen.filter((p) => p === "copy").length).toBeGreaterThan(3);
    expect(done.ChangesApplied).toBeGreaterThan(0);
    expect(heldAnswers).toBeGreaterThanOrEqual(1);
    expect(written.length).toBeGreaterThan(3);

    // Everything in the new shard exactly once, nothing in the old one.
    const total = 12 + written.length;
    expect(await shardOf(storeId)).toBe(to);
    expect(await holdings(to, storeId)).toEqual({
      orders: total,
      items: 24 + written.length,
      outbox: 0,
      products: 3,
      feeds: 1,
      sources: 1,
      webhooks: 1,
      deliveries: 3,
      stores: 1,
    });
    expect(await holdings(from, storeId)).toEqual({ orders: 0, items: 0, outbox: 0, products: 0, feeds: 0, sources: 0, webhooks: 0, deliveries: 0, stores: 0 });
    expect(await count(to, "select id from orders where store_id = ?1 group by id having count(*) > 1", storeId)).toBe(0);
    // Nothing of the move is left in the old shard either: no log, no capture, no fence.
    for (const table of ["move_log", "move_capture", "store_fences", "store_usage", "order_day_counts"]) {
      expect(await count(from, `select 1 from ${table} where store_id = ?1`, storeId), table).toBe(0);
    }

    // The API reads the new shard: all orders, the cursor from before, the usage the triggers rebuilt.
    expect(await listIds(token)).toEqual([...ids, ...written].sort());
    const rest = await call("GET", `/v1/${token}/Orders?fromDate=2026-01-01&toDate=2026-12-31&pageSize=5&cursor=${encodeURIComponent(cursor)}`);
    expect(rest.status, rest.text).toBe(200);
    expect((JSON.parse(rest.text) as { Orders: unknown[] }).Orders).toHaveLength(5);
    const store = JSON.parse((await admin("GET", `/stores/${storeId}`)).text) as {
      Store: { Shard: string; Usage: { Orders: number; OrderItems: number; Products: number } };
    };
    expect(store.Store.Usage).toMatchObject({ Orders: total, OrderItems: 24 + written.length, Products: 3 });
    // Writes go on in the new shard.
    const after = await insert(token);
    expect(await count(to, "select 1 from orders where store_id = ?1", storeId)).toBe(total + 1);
    expect(after).toBeTruthy();
  });

  it("finishes a move cut off in the middle of its copy, from where it stood, with nothing lost", async () => {
    const { storeId, token, ids, from, to } = await seededStore();
    await mover(storeId).configure({ rows: 3, changes: 50, fewChanges: 0, graceMs: 0, removeRows: 50 });
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    let move = await step(storeId);
    while (move.Phase !== "copy" || move.RowsCopied < 6) move = await step(storeId);
    const partial = await holdings(to, storeId);
    expect(partial.orders).toBeGreaterThan(0);
    expect(partial.orders).toBeLessThan(12);
    // The service dies: the mover's object is gone, with anything it held in memory.
    await expect(runAbort(storeId)).rejects.toThrow();
    // An order written meanwhile, on the old shard (the store still lives there).
    const late = await insert(token, { OrderSourceOrderNumber: "LATE-1" });
    // The cron wakes unfinished moves; the object's alarm runs it to the end.
    await env.STORE_MOVER.getByName(storeId).advance(storeId, 60_000);
    move = (JSON.parse((await admin("GET", `/stores/${storeId}/move`)).text) as { Move: Move }).Move;
    expect(move.Status).toBe("completed");
    expect(await holdings(to, storeId)).toEqual({ orders: 13, items: 25, outbox: 0, products: 3, feeds: 1, sources: 1, webhooks: 1, deliveries: 3, stores: 1 });
    expect(await holdings(from, storeId)).toEqual({ orders: 0, items: 0, outbox: 0, products: 0, feeds: 0, sources: 0, webhooks: 0, deliveries: 0, stores: 0 });
    expect(await listIds(token)).toEqual([...ids, late].sort());
  });

  it("carries on the store's sync, compiles and limits in the new shard, and takes a name or order number reused during the copy", async () => {
    const { storeId, token, from, to } = await seededStore();
    await mover(storeId).configure({ rows: 2, changes: 50, fewChanges: 10, graceMs: 0, removeRows: 50 });
    const sources = JSON.parse((await admin("GET", `/stores/${storeId}/sources`)).text) as { Sources: { SourceId: string; Name: string }[] };
    const sim = sources.Sources[0]!;
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    let move = await step(storeId);
    while (move.Phase !== "copy" || move.RowsCopied < 4) move = await step(storeId);
    // After the sources were copied: the source renamed, and its old name given to a new one.
    expect((await admin("PATCH", `/stores/${storeId}/sources/${sim.SourceId}`, { Name: "Sim old" })).status).toBe(200);
    const second = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Sim", Settings: {} });
    expect(second.status, second.text).toBe(200);
    // A limit set meanwhile holds in the new shard: 13 orders at most.
    expect((await admin("PATCH", `/stores/${storeId}`, { Limits: { Orders: 13 } })).status).toBe(200);
    while (move.Status !== "completed") move = await step(storeId);
    expect(move.Error).toBeNull();
    const names = await d1(to).prepare("select name from sources where store_id = ?1 order by name").bind(storeId).all<{ name: string }>();
    expect(names.results.map((r) => r.name)).toEqual(["Sim", "Sim old"]);
    expect(await count(from, "select 1 from sources where store_id = ?1", storeId)).toBe(0);
    // The limit: one more order fits, the next is refused, in the new shard.
    await insert(token);
    const over = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder() });
    expect(over.status, over.text).toBe(400);
    expect(over.json.Message).toContain("13");
    // A sync cycle of the moved source runs where the store now lives (room made for its imports).
    expect((await admin("PATCH", `/stores/${storeId}`, { Limits: { Orders: 1_000_000 } })).status).toBe(200);
    const sync = await admin("POST", `/sync?sourceId=${sim.SourceId}`);
    expect(sync.status, sync.text).toBe(200);
    expect((JSON.parse(sync.text) as { Sync: { Sources: { Ran?: boolean; Error: string | null }[] } }).Sync.Sources[0]!.Error).toBeNull();
    expect(await count(to, "select 1 from sources where store_id = ?1 and last_cycle_ended_at is not null", storeId)).toBe(1);
    // A compile of its feed reads the products from the new shard.
    const feeds = JSON.parse((await admin("GET", `/stores/${storeId}/feeds`)).text) as { Feeds: { FeedId: string }[] };
    const compiled = await admin("POST", `/feeds/${feeds.Feeds[0]!.FeedId}/compile`);
    expect(compiled.status, compiled.text).toBe(200);
    expect((JSON.parse(compiled.text) as { Feed: { Status: string; CompilationTotalCount: number } }).Feed).toMatchObject({
      Status: "Completed",
      CompilationTotalCount: 3,
    });
  });

  it("is finished by the cron when its mover lost its alarm, and given up (the new copy removed) when the store is deleted", async () => {
    const a = await seededStore();
    await mover(a.storeId).configure({ rows: 500, changes: 500, fewChanges: 500, graceMs: 0, removeRows: 500 });
    expect((await admin("POST", `/stores/${a.storeId}/move`, { Shard: a.to })).status).toBe(200);
    await runInDurableObjectNoAlarm(a.storeId);
    // The cron's run wakes every unfinished move's mover; its alarm runs the move to the end.
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "*/15 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    for (let i = 0; i < 5 && (await moveOf(a.storeId)).Status !== "completed"; i++) await runDurableObjectAlarm(mover(a.storeId));
    expect((await moveOf(a.storeId)).Status).toBe("completed");
    // The same cron started the store's simulated source too: its imports may land while the move
    // runs (the mover pauses between steps), in the new shard with the 12 orders seeded.
    const usage = (JSON.parse((await admin("GET", `/stores/${a.storeId}`)).text) as { Store: { Usage: { Orders: number } } }).Store.Usage.Orders;
    expect(usage).toBeGreaterThanOrEqual(12);
    expect((await holdings(a.to, a.storeId)).orders).toBe(usage);
    expect((await holdings(a.from, a.storeId)).orders).toBe(0);

    const b = await seededStore();
    await mover(b.storeId).configure({ rows: 2, changes: 50, fewChanges: 10, graceMs: 0, removeRows: 50 });
    expect((await admin("POST", `/stores/${b.storeId}/move`, { Shard: b.to })).status).toBe(200);
    let move = await step(b.storeId);
    while (move.Phase !== "copy" || move.RowsCopied < 4) move = await step(b.storeId);
    expect((await admin("DELETE", `/stores/${b.storeId}`)).status).toBe(200);
    for (let i = 0; i < 50 && move.Status === "copying"; i++) move = await step(b.storeId);
    expect(move.Status).toBe("failed");
    expect(move.Error).toContain("deleted");
    expect(await holdings(b.to, b.storeId)).toEqual({
      orders: 0,
      items: 0,
      outbox: 0,
      products: 0,
      feeds: 0,
      sources: 0,
      webhooks: 0,
      deliveries: 0,
      stores: 0,
    });
    // Still whole where it lived, for the purge to take.
    expect((await holdings(b.from, b.storeId)).orders).toBe(12);
  });

  it("refuses a move to the shard the store lives in, to an unknown shard, and a second move while one runs", async () => {
    const { storeId, from, to } = await seededStore();
    const same = await admin("POST", `/stores/${storeId}/move`, { Shard: from });
    expect(same.status).toBe(400);
    expect(same.json.Message).toContain("already lives");
    const unknown = await admin("POST", `/stores/${storeId}/move`, { Shard: "SHARD_99" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.Message).toContain("SHARD_99");
    const bad = await admin("POST", `/stores/${storeId}/move`, { Shard: 7 });
    expect(bad.status).toBe(400);
    await mover(storeId).configure({ graceMs: 60_000 });
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    const again = await admin("POST", `/stores/${storeId}/move`, { Shard: to });
    expect(again.status).toBe(409);
    const never = await admin("GET", `/stores/st_never_moved/move`);
    expect(never.status).toBe(404);
  });
});

async function moveOf(storeId: string): Promise<Move> {
  return (JSON.parse((await admin("GET", `/stores/${storeId}/move`)).text) as { Move: Move }).Move;
}

/** A mover whose alarm was lost: its storage holds no alarm. */
async function runInDurableObjectNoAlarm(storeId: string): Promise<void> {
  const { runInDurableObject } = await import("cloudflare:test");
  await runInDurableObject(mover(storeId), async (_instance, state) => {
    await state.storage.deleteAlarm();
  });
}

/** Kills the mover's object (its in-memory state and any running call), as a crash or a deploy would. */
async function runAbort(storeId: string): Promise<void> {
  const { runInDurableObject } = await import("cloudflare:test");
  await runInDurableObject(mover(storeId), (_instance, state) => {
    state.abort("killed by the test");
  });
}
