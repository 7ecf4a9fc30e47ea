// The invocation meter itself (test/helpers/invocation-meter.ts): what it counts, that it counts
// per invocation (a handler call, a Durable Object call or alarm), and that it stops and reports
// an invocation at Cloudflare's documented limits, as production would.
import { runDurableObjectAlarm } from "cloudflare:test";
import { DurableObject, env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as service from "../../src/index";
import * as entry from "../setup/metered-entry";
import { outboundFetch } from "../../src/lib/outbound";
import { admin, storeWithToken } from "../helpers/api";
import { invocation, mark, meterEnv, since, takeViolations } from "../helpers/invocation-meter";
import { createSource, simulatedWindow } from "../helpers/sync";

afterEach(() => vi.restoreAllMocks());

/** Runs `work` as one invocation with metered bindings, answering what it spent and what it violated. */
async function probe(work: (metered: Env) => Promise<unknown>) {
  const from = mark();
  const error = await invocation("probe", undefined, () => work(meterEnv(env))).then(
    () => null,
    (e: unknown) => e as Error,
  );
  return { spent: since(from, "probe")[0]!, error, violations: takeViolations() };
}

describe("what one invocation is charged", () => {
  it("a D1 statement is one query and one subrequest; a batch is one query per statement and one subrequest", async () => {
    const { spent, violations } = await probe(async (m) => {
      await m.DB.prepare("select 1").first();
      await m.DB.prepare("select ?1").bind(2).all();
      await m.DB.batch([m.DB.prepare("select 1"), m.DB.prepare("select 2"), m.DB.prepare("select 3")]);
      await m.SHARD_1.withSession("first-primary").prepare("select 1").run();
    });
    expect(violations).toEqual([]);
    expect(spent).toMatchObject({ d1Queries: 6, d1Calls: 4, subrequests: 4 });
  });

  it("each R2 call, queue send, Durable Object call and outbound fetch is one subrequest", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("ok"));
    vi.spyOn(env.SYNC_QUEUE, "send").mockImplementation(async () => ({
      metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date(0) } },
    }));
    const { spent, violations } = await probe(async (m) => {
      await m.FEEDS.put("meter/probe.txt", "x");
      await m.FEEDS.head("meter/probe.txt");
      const upload = await m.FEEDS.createMultipartUpload("meter/parts.txt");
      const resumed = m.FEEDS.resumeMultipartUpload("meter/parts.txt", upload.uploadId);
      await resumed.abort();
      await m.FEEDS.delete("meter/probe.txt");
      await m.SYNC_QUEUE.send({ probe: true });
      await m.SOURCE_SYNC.getByName("meter-probe").received("simulated");
      await outboundFetch("https://marketplace.example/orders");
      await outboundFetch("https://marketplace.example/orders?page=2");
    });
    expect(violations).toEqual([]);
    expect(spent).toMatchObject({ r2Calls: 5, queueSends: 1, objectCalls: 1, fetches: 2, d1Calls: 0, subrequests: 9 });
  });

  it("a request is one invocation; a Durable Object it calls runs its own, and an alarm calling the object's own methods stays one", async () => {
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(5) });
    const from = mark();
    const res = await admin("POST", `/sync?sourceId=${sourceId}`);
    expect(res.status).toBe(200);
    const request = since(from, "fetch POST /admin/v1/sync");
    expect(request).toHaveLength(1);
    expect(request[0]!.objectCalls).toBe(1);
    const cycle = since(from, "SourceSync.runCycle");
    expect(cycle).toHaveLength(1);
    // The cycle's statements are its own, not the request's: what the cycle reports it issued.
    const reported = (res.json.Sync as { Sources: { D1Statements: number }[] }).Sources[0]!.D1Statements;
    expect(cycle[0]!.d1Queries).toBeGreaterThanOrEqual(reported);
    expect(request[0]!.d1Queries).toBeLessThan(reported);

    const queued = await env.SOURCE_SYNC.getByName(sourceId).queueCycle(sourceId, Date.now() + 1, storeId);
    expect(queued).toBe(true);
    const beforeAlarm = mark();
    expect(await runDurableObjectAlarm(env.SOURCE_SYNC.getByName(sourceId))).toBe(true);
    expect(since(beforeAlarm, "SourceSync.").map((i) => i.label)).toEqual(["SourceSync.alarm"]);
  });
});

describe("at the limits", () => {
  it("the 1,001st D1 query of an invocation fails it, and is reported", async () => {
    const { spent, error, violations } = await probe(async (m) => {
      await m.DB.batch(Array.from({ length: 1_000 }, () => m.DB.prepare("select 1")));
      await m.DB.prepare("select 1").first();
    });
    expect(error?.message).toMatch(/D1 queries 1001 > 1000/);
    expect(spent.d1Queries).toBe(1_001);
    expect(violations).toHaveLength(1);
  });

  it("a batch that takes an invocation past 1,000 queries fails it: 999 + a batch of 2", async () => {
    const { error, violations } = await probe(async (m) => {
      for (let i = 0; i < 9; i++) await m.DB.batch(Array.from({ length: 111 }, () => m.DB.prepare("select 1")));
      await m.DB.batch([m.DB.prepare("select 1"), m.DB.prepare("select 2")]);
    });
    expect(error?.message).toMatch(/D1 queries 1001 > 1000/);
    expect(violations).toHaveLength(1);
  });

  it("exactly 1,000 queries and 10,000 subrequests pass; the 10,001st subrequest fails", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response(null, { status: 204 }));
    const within = await probe(async (m) => {
      await m.DB.batch(Array.from({ length: 1_000 }, () => m.DB.prepare("select 1")));
      for (let i = 0; i < 9_999; i++) await outboundFetch("https://receiver.example/");
    });
    expect(within.violations).toEqual([]);
    expect(within.spent).toMatchObject({ d1Queries: 1_000, subrequests: 10_000 });

    const over = await probe(async () => {
      for (let i = 0; i < 10_001; i++) await outboundFetch("https://receiver.example/");
    });
    expect(over.error?.message).toMatch(/subrequests 10001 > 10000/);
    expect(over.violations).toHaveLength(1);
  });

  it("a bound value over 2,000,000 bytes is refused (D1's largest string or BLOB); 2,000,000 passes", async () => {
    const { error, violations } = await probe(async (m) => {
      await m.DB.prepare("select length(?1)").bind("é".repeat(1_000_000)).first();
      await m.DB.prepare("select length(?1)").bind("x".repeat(2_000_001)).first();
    });
    expect(error?.message).toMatch(/bound value of 2000001 bytes/);
    expect(violations).toHaveLength(1);
  });

  it("counts nothing outside an invocation (a test's own reads of D1)", async () => {
    const from = mark();
    const m = meterEnv(env);
    await m.DB.batch(Array.from({ length: 1_001 }, () => m.DB.prepare("select 1")));
    await m.DB.prepare("select 1").first();
    expect(since(from)).toEqual([]);
    expect(takeViolations()).toEqual([]);
  });
});

describe("the metered entry", () => {
  it("meters every Durable Object class the service exports", () => {
    const classes = Object.entries(service).filter(([, value]) => typeof value === "function" && value.prototype instanceof DurableObject);
    expect(classes.length).toBeGreaterThanOrEqual(5);
    for (const [name, value] of classes) {
      const replaced = (entry as Record<string, unknown>)[name];
      expect(replaced, name).toBeTypeOf("function");
      expect(replaced, `${name} is exported unmetered by test/setup/metered-entry.ts`).not.toBe(value);
      expect(Object.getPrototypeOf(replaced), name).toBe(value);
    }
  });
});
