import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FeedCompiler } from "../../src/feeds/feed-compiler";
import { admin, call, storeWithToken } from "../helpers/api";
import { compile, createFeed, product, putProducts, type AdminFeed } from "./feeds-helpers";

/**
 * Products whose rows differ in length and hold multi-byte characters, some with errors.
 * `padding` makes rows long, so that a few thousand fill several 5 MiB parts (R2's minimum,
 * which the local R2 enforces too).
 */
function catalog(n: number, padding = 0) {
  return Array.from({ length: n }, (_, i) =>
    product(`SKU-${String(i).padStart(4, "0")}`, {
      Title: `Produit n°${i} – ${"é日🎉".repeat(i % 7)}, "quoted"`,
      Description: `line one\nline two ${"x".repeat((i * 37) % 120)} ${"ü,".repeat(padding + ((i * 13) % 50))}`,
      Price: i % 11 === 0 ? 0 : 1 + i / 4,
      Brand: i % 5 === 0 ? null : "Marque",
    }),
  );
}

const stubOf = (feedId: string) => env.FEED_COMPILER.getByName(feedId);

async function adminFeed(feedId: string) {
  return (await admin("GET", `/feeds/${feedId}`)).json.Feed as AdminFeed;
}

async function download(token: string, feedId: string) {
  const res = await call("GET", `/v1/${token}/feeds/${feedId}/download`);
  expect(res.status).toBe(200);
  return res.text;
}

/** Runs alarms until the compile is over; answers how many ran. */
async function drain(feedId: string, evictEvery = 0): Promise<number> {
  let alarms = 0;
  for (;;) {
    const progress = await stubOf(feedId).progress();
    if (!progress?.running) return alarms;
    if (evictEvery && alarms % evictEvery === evictEvery - 1) await evictDurableObject(stubOf(feedId));
    expect(await runDurableObjectAlarm(stubOf(feedId))).toBe(true);
    alarms++;
    expect(alarms).toBeLessThan(500);
  }
}

describe("FeedCompiler", () => {
  // Three 5 MiB parts of rows take a while to write into the local R2: a generous timeout.
  it("a compile cut off half way, evicted and resumed by alarms writes the same file as one run", { timeout: 60_000 }, async () => {
    const { storeId, token } = await storeWithToken();
    await putProducts(storeId, catalog(3000, 1800));
    const whole = await createFeed(storeId, { Name: "Whole" });
    const sliced = await createFeed(storeId, { Name: "Sliced" });

    expect((await compile(whole.FeedId)).Status).toBe("Completed");
    const expected = await download(token, whole.FeedId);

    // One 150-row page per slice: about 20 slices for three parts.
    await stubOf(sliced.FeedId).configure({ pageRows: 150, pagesPerSlice: 1 });
    const first = await compile(sliced.FeedId);
    expect(first.Status).toBe("Compiling");
    // Until it completes there is no file to download.
    expect((await call("GET", `/v1/${token}/feeds/${sliced.FeedId}/download`)).status).toBe(404);
    expect(await stubOf(sliced.FeedId).progress()).toMatchObject({ running: true, slices: 1, parts: 0 });
    // Half way: a part is uploaded and rows after it are only in memory.
    while ((await stubOf(sliced.FeedId).progress())!.parts === 0) await runDurableObjectAlarm(stubOf(sliced.FeedId));
    const cut = await stubOf(sliced.FeedId).progress();
    expect(cut).toMatchObject({ running: true, parts: 1 });
    expect(cut!.afterSku! < "SKU-2000").toBe(true);

    // Eviction drops the rows buffered since the last part: they are read again.
    await evictDurableObject(stubOf(sliced.FeedId));
    const alarms = await drain(sliced.FeedId, 3);
    expect(alarms).toBeGreaterThan(1);
    expect((await stubOf(sliced.FeedId).progress())!.parts).toBeGreaterThanOrEqual(2);

    const done = await adminFeed(sliced.FeedId);
    expect(done).toMatchObject({ Status: "Completed", CompilationTotalCount: 3000 });
    const reference = await adminFeed(whole.FeedId);
    for (const field of ["CompilationValidCount", "CompilationWarningCount", "CompilationErrorCount", "Score"] as const) {
      expect(done[field]).toBe(reference[field]);
    }
    const text = await download(token, sliced.FeedId);
    expect(new TextEncoder().encode(text).length).toBeGreaterThan(10 * 1024 * 1024);
    expect(text).toBe(expected);
  });

  it("keeps the previous file downloadable while a new compile runs, then swaps and deletes it", async () => {
    const { storeId, token } = await storeWithToken();
    await putProducts(storeId, catalog(30));
    const feed = await createFeed(storeId);
    await compile(feed.FeedId);
    const oldText = await download(token, feed.FeedId);
    const oldKeys = (await env.FEEDS.list({ prefix: `feeds/${storeId}/${feed.FeedId}/` })).objects.map((o) => o.key);
    expect(oldKeys).toHaveLength(1);

    await putProducts(storeId, [product("SKU-ZZZZ", { Title: "Added later" })]);
    await stubOf(feed.FeedId).configure({ pageRows: 5, pagesPerSlice: 1 });
    const running = await compile(feed.FeedId);
    expect(running.Status).toBe("Compiling");
    // Further requests while it runs, even at the same moment, start nothing new.
    const again = await Promise.all([compile(feed.FeedId), compile(feed.FeedId)]);
    expect(again.map((f) => f.Status)).toEqual(["Compiling", "Compiling"]);
    expect(await download(token, feed.FeedId)).toBe(oldText);
    const before = (await stubOf(feed.FeedId).progress())!.slices;
    await drain(feed.FeedId);
    expect(before).toBe(1);

    const newText = await download(token, feed.FeedId);
    expect(newText).toContain("Added later");
    const keys = (await env.FEEDS.list({ prefix: `feeds/${storeId}/${feed.FeedId}/` })).objects.map((o) => o.key);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toBe(oldKeys[0]);
  });

  it("starts one job when two compile requests arrive together", async () => {
    const { storeId } = await storeWithToken();
    await putProducts(storeId, catalog(30));
    const feed = await createFeed(storeId);
    await stubOf(feed.FeedId).configure({ pageRows: 5, pagesPerSlice: 1 });
    const both = await Promise.all([compile(feed.FeedId), compile(feed.FeedId)]);
    expect(both.map((f) => f.Status)).toEqual(["Compiling", "Compiling"]);
    expect(await stubOf(feed.FeedId).progress()).toMatchObject({ running: true, slices: 1 });
    await drain(feed.FeedId);
    expect(await adminFeed(feed.FeedId)).toMatchObject({ Status: "Completed", CompilationTotalCount: 30 });
  });

  it("retries a slice that R2 refuses, then marks the compile Failed and keeps the previous file", async () => {
    const { storeId, token } = await storeWithToken();
    await putProducts(storeId, catalog(20));
    const feed = await createFeed(storeId);
    const good = await compile(feed.FeedId);
    const before = await download(token, feed.FeedId);

    const stub = stubOf(feed.FeedId);
    await runInDurableObject(stub, (instance: FeedCompiler) => {
      const real = (instance as unknown as { env: Env }).env.FEEDS;
      const failing = {
        createMultipartUpload: (key: string, options?: R2MultipartOptions) => real.createMultipartUpload(key, options),
        resumeMultipartUpload: () => {
          throw new Error("R2 is unavailable");
        },
      } as unknown as R2Bucket;
      (instance as unknown as { env: Env }).env = { ...(instance as unknown as { env: Env }).env, FEEDS: failing };
    });
    expect((await compile(feed.FeedId)).Status).toBe("Compiling");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await adminFeed(feed.FeedId)).Status).toBe("Compiling");
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const failed = await adminFeed(feed.FeedId);
    expect(failed.Status).toBe("Failed");
    expect(failed.StatusMessage).toBe("The compile stopped after 3 attempts: R2 is unavailable");
    expect(failed.DateLastCompiled).toBe(good.DateLastCompiled);
    expect(await stub.progress()).toMatchObject({ running: false });
    expect(await download(token, feed.FeedId)).toBe(before);
  });

  it("compiles on the feed's schedule and arms the next run", async () => {
    const { storeId } = await storeWithToken();
    await putProducts(storeId, catalog(5));
    const feed = await createFeed(storeId, { CompileIntervalMinutes: 60 });
    const stub = stubOf(feed.FeedId);
    const armed = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(armed).toBeGreaterThan(Date.now() + 59 * 60_000);

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const compiled = await adminFeed(feed.FeedId);
    expect(compiled).toMatchObject({ Status: "Completed", CompilationTotalCount: 5 });
    expect(compiled.DateLastSubmitted).toMatch(/Z$/);
    const next = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThan(Date.now() + 59 * 60_000);
  });

  it("follows a schedule changed or removed through PATCH", async () => {
    const { storeId } = await storeWithToken();
    const feed = await createFeed(storeId);
    const stub = stubOf(feed.FeedId);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();

    const every = await admin("PATCH", `/feeds/${feed.FeedId}`, { CompileIntervalMinutes: 30, Name: "Renamed feed" });
    expect(every.status).toBe(200);
    expect(every.json.Feed).toMatchObject({ CompileIntervalMinutes: 30, Name: "Renamed feed", FileName: "renamed-feed.csv" });
    const armed = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(armed).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(armed).toBeLessThanOrEqual(Date.now() + 30 * 60_000);

    expect((await admin("PATCH", `/feeds/${feed.FeedId}`, { CompileIntervalMinutes: null })).status).toBe(200);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
    const format = await admin("PATCH", `/feeds/${feed.FeedId}`, { Format: "tsv" });
    expect(format.status).toBe(400);
    expect(format.json.Message).toBe("'Format': cannot change: create a new feed for the other format");
  });
});
