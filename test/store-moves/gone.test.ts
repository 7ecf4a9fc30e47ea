// What a store's Durable Objects do once the store is deleted and purged (issue 19): they ask the
// directory where the store lives at each step, and the answer is "nowhere". An endpoint's sender
// then ends as it did before shards, quietly and with no alarm left, rather than throwing on
// every retry of its alarm; a feed's compile under way ends, its upload aborted, leaving no job.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, createKey, insert, tokenFor } from "../helpers/api";
import { countEverywhere, storeOn } from "../helpers/shards";
import { fireCron } from "../helpers/sync";
import { createWebhook, deliverAt } from "../helpers/webhooks";
import { compile, createFeed, product, putProducts } from "../feeds/feeds-helpers";
import { installReceiver, receiver, until } from "../webhooks/webhook-receiver";

beforeAll(installReceiver);

describe("a purged store's webhook sender", () => {
  it("ends its next pass with nothing to send and no alarm, sending nothing more", async () => {
    const storeId = await storeOn("SHARD_2", "Gone soon");
    const token = await tokenFor((await createKey(storeId)).Key);
    const hook = receiver();
    hook.answer(500);
    const { WebhookId } = await createWebhook(storeId, hook.url);
    await insert(token);
    // The first attempt failed: the event waits for its retry, on the sender's alarm.
    await until(() => hook.all.length === 1);
    const sender = env.WEBHOOK_SENDER.getByName(WebhookId);
    await until(async () => (await runInDurableObject(sender, (_o, state) => state.storage.getAlarm())) !== null);

    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    for (let run = 0; run < 3 && (await countEverywhere("select count(*) as n from stores where id = ?", storeId)) > 0; run++) await fireCron();
    expect(await countEverywhere("select count(*) as n from stores where id = ?", storeId)).toBe(0);

    // The retry comes due: the pass finds no endpoint.
    expect(await deliverAt(WebhookId, Date.now() + 86_400_000)).toEqual({ attempted: 0, delivered: 0, nextAt: null });
    expect(await runInDurableObject(sender, (_o, state) => state.storage.getAlarm())).toBeNull();
    expect(await runDurableObjectAlarm(sender)).toBe(false);
    expect(hook.all).toHaveLength(1);
  });
});

describe("a purged store's feed compile under way", () => {
  it("ends within its retries with its upload aborted, no job and no alarm left, and no file", async () => {
    const storeId = await storeOn("SHARD_3", "Gone while compiling");
    await putProducts(
      storeId,
      Array.from({ length: 400 }, (_, i) => product(`SKU-${String(i).padStart(4, "0")}`)),
    );
    const feed = await createFeed(storeId, { Name: "Sliced" });
    const compiler = env.FEED_COMPILER.getByName(feed.FeedId);
    // One 20-row page per slice: the compile is still running when the store goes.
    await compiler.configure({ pageRows: 20, pagesPerSlice: 1 });
    expect((await compile(feed.FeedId)).Status).toBe("Compiling");
    expect(await compiler.progress()).toMatchObject({ running: true });

    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    for (let run = 0; run < 3 && (await countEverywhere("select count(*) as n from stores where id = ?", storeId)) > 0; run++) await fireCron();
    expect(await countEverywhere("select count(*) as n from stores where id = ?", storeId)).toBe(0);

    // Its slices come due (each alarm at once here): at most three tries, then the job is closed.
    for (let i = 0; i < 5 && (await compiler.progress())?.running; i++) await runDurableObjectAlarm(compiler);
    expect(await compiler.progress()).toMatchObject({ running: false });
    expect(await runInDurableObject(compiler, (_o, state) => state.storage.getAlarm())).toBeNull();
    expect((await env.FEEDS.list({ prefix: `feeds/${storeId}/` })).objects).toEqual([]);
  });
});
