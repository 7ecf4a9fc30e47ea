// The sync's fan-out through the queue (issue 19): the cron queues every enabled source, 100 to a
// sendBatch call, and returns; the consumer hands each source's cycle to its object, which runs it
// in its alarm; a failing source holds back no other; a message delivered twice runs one cycle; a
// hub of over 100 sources run from POST /admin/v1/sync goes through the real queue and consumer.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { enqueueSources } from "../../src/sync/sync-queue";
import { createSource, deliver, fireCron, patchSource, queuedCycleEnded, simulatedWindow } from "../helpers/sync";

interface CycleWire {
  OrdersImported: number;
  Error: string | null;
}
interface SourceWire {
  SourceId: string;
  Status: { RecentCycles: CycleWire[] };
}

async function sourcesOf(storeId: string): Promise<SourceWire[]> {
  const res = await admin("GET", `/stores/${storeId}/sources`);
  expect(res.status).toBe(200);
  return JSON.parse(res.text).Sources as SourceWire[];
}

async function orderCount(token: string): Promise<number> {
  const res = await call("GET", `/v1/${token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01`);
  expect(res.status).toBe(200);
  return JSON.parse(res.text).Count as number;
}

/** `count` simulated sources in one store, each selling exactly one order, named Sim1.. */
async function storeWithSources(count: number) {
  const { storeId, token } = await storeWithToken();
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) ids.push(await createSource(storeId, { Name: `Sim${i}`, Settings: simulatedWindow(1) }));
  return { storeId, token, ids };
}

describe("one source's queued cycles", () => {
  it("runs one cycle for a message delivered twice, at once or later, and drops an older slot's late retry", async () => {
    const { storeId, token, ids } = await storeWithSources(1);
    const sourceId = ids[0]!;
    // Slots of the past (an hour ago), so that the later tests' slots of now are newer.
    const slot = Date.now() - 3_600_000;
    // Twice in one batch, and a third time in a second consumer invocation at the same moment.
    const [first, second] = await Promise.all([
      deliver([
        { sourceId, slot },
        { sourceId, slot },
      ]),
      deliver([{ sourceId, slot }]),
    ]);
    expect(first.explicitAcks).toHaveLength(2);
    expect(second.explicitAcks).toHaveLength(1);
    expect(first.retryMessages.concat(second.retryMessages)).toEqual([]);
    await queuedCycleEnded(sourceId);
    expect((await sourcesOf(storeId))[0]!.Status.RecentCycles).toHaveLength(1);
    expect(await orderCount(token)).toBe(1);

    // Delivered again after it ran (at-least-once): still one cycle.
    await deliver([{ sourceId, slot }]);
    await queuedCycleEnded(sourceId);
    expect((await sourcesOf(storeId))[0]!.Status.RecentCycles).toHaveLength(1);

    // The next slot runs; after it, the earlier slot's late retry does not.
    await deliver([{ sourceId, slot: slot + 900_000 }]);
    await queuedCycleEnded(sourceId);
    await deliver([{ sourceId, slot: slot + 1 }]);
    await queuedCycleEnded(sourceId);
    expect((await sourcesOf(storeId))[0]!.Status.RecentCycles).toHaveLength(2);
  });

  it("runs a slot again when its cycle threw (the slot counts only once a cycle ended)", async () => {
    const { storeId, ids } = await storeWithSources(1);
    const sourceId = ids[0]!;
    const stub = env.SOURCE_SYNC.getByName(sourceId);
    const slot = Date.now();
    const outcome = await runInDurableObject(stub, async (instance, state) => {
      const accepted = await instance.queueCycle(sourceId, slot);
      // This test drives the alarm itself.
      await state.storage.deleteAlarm();
      // The alarm's cycle (one invocation's part of it) throws.
      const parts = instance as unknown as { cycle: () => Promise<unknown> };
      const original = parts.cycle.bind(instance);
      parts.cycle = () => Promise.reject(new Error("cut off"));
      const failed = await instance.alarm().then(
        () => "ran",
        (error: Error) => error.message,
      );
      parts.cycle = original;
      const duplicateWhileWaiting = await instance.queueCycle(sourceId, slot);
      await state.storage.deleteAlarm();
      await instance.alarm();
      return { accepted, failed, duplicateWhileWaiting, afterRun: await instance.queueCycle(sourceId, slot) };
    });
    expect(outcome).toEqual({ accepted: true, failed: "cut off", duplicateWhileWaiting: false, afterRun: false });
    expect((await sourcesOf(storeId))[0]!.Status.RecentCycles).toMatchObject([{ OrdersImported: 1 }]);
  });
});

describe("a failing source", () => {
  it("holds back no other: a marketplace down is acked with its error, an object unreachable is retried alone, an unreadable message dropped", async () => {
    const { storeId, token, ids } = await storeWithSources(4);
    await patchSource(storeId, ids[1]!, { Settings: { fault: { kind: "http500" } } });
    const slot = Date.now();
    const bodies = [...ids.map((sourceId) => ({ sourceId, slot })), { sourceId: 42 }, "not an object"];

    // ids[2]'s object cannot be reached (it crashed, or its colo is down).
    const unreachable = ids[2]!;
    const real = env.SOURCE_SYNC;
    const failing = {
      getByName: (name: string) => (name === unreachable ? { queueCycle: () => Promise.reject(new Error("object unreachable")) } : real.getByName(name)),
    } as unknown as typeof env.SOURCE_SYNC;
    const result = await deliver(bodies, { ...env, SOURCE_SYNC: failing });

    expect(result.retryMessages.map((m) => m.msgId)).toEqual([result.ids[2]]);
    expect(result.explicitAcks.sort()).toEqual([0, 1, 3, 4, 5].map((i) => result.ids[i]).sort());
    await Promise.all([ids[0]!, ids[1]!, ids[3]!].map(queuedCycleEnded));
    const sources = new Map((await sourcesOf(storeId)).map((s) => [s.SourceId, s.Status.RecentCycles]));
    expect(sources.get(ids[0]!)).toMatchObject([{ OrdersImported: 1, Error: null }]);
    expect(sources.get(ids[1]!)).toMatchObject([{ OrdersImported: 0, Error: expect.stringMatching(/^import: .*500/) }]);
    expect(sources.get(ids[2]!)).toEqual([]);
    expect(sources.get(ids[3]!)).toMatchObject([{ OrdersImported: 1, Error: null }]);
    expect(await orderCount(token)).toBe(2);

    // The retry (through the real binding this time) runs the one that was left.
    await deliver([{ sourceId: unreachable, slot }]);
    await queuedCycleEnded(unreachable);
    expect(await orderCount(token)).toBe(3);
  });
});

describe("the cron's sending", () => {
  it("sends 100 sources a sendBatch call, at most 40 calls a second (4,000 messages, under a queue's 5,000), and counts a refused call out", async () => {
    const calls: { at: number; size: number }[] = [];
    let n = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const queue = {
      sendBatch: async (messages: Iterable<MessageSendRequest>) => {
        const size = [...messages].length;
        n += 1;
        const number = n;
        calls.push({ at: Date.now(), size });
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Answers on a later turn, as the queue does: calls sent together are in flight together.
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        if (number === 42) throw new Error("Too Many Requests");
        return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date(0) } } };
      },
    } as unknown as Queue;
    const ids = Array.from({ length: 8_450 }, (_, i) => ({ sourceId: `src_${i}`, storeId: "st_many" }));
    const started = Date.now();
    const sent = await enqueueSources({ SYNC_QUEUE: queue }, ids, started);
    expect(sent).toBe(8_350);
    expect(calls.map((c) => c.size)).toEqual([...Array.from({ length: 84 }, () => 100), 50]);
    // Three waves: calls 1-40 at once, 41-80 at least a second later, 81-85 a second after that.
    const at = calls.map((c) => c.at);
    expect(at[40]! - at[0]!).toBeGreaterThanOrEqual(1000);
    expect(at[80]! - at[40]!).toBeGreaterThanOrEqual(1000);
    // Within a wave the calls go out together (not one after another): 40 in flight at once,
    // never more. (Timed by the clock, not by the load on the machine running the test.)
    expect(mostInFlight).toBe(40);
  });
});

describe("the cron at many sources", () => {
  it("queues every enabled source, 100 to a sendBatch call, and the consumer runs each one's cycle", async () => {
    // Two stores (a store holds at most 200 sources), 5 of the second's disabled.
    const first = await storeWithSources(110);
    const second = await storeWithSources(105);
    const disabled = second.ids.slice(100);
    for (const id of disabled) await patchSource(second.storeId, id, { Enabled: false });
    // Every enabled source in this file's database: the earlier tests' 6 and these 210.
    const results = await fireCron();
    expect(results.map((r) => r.explicitAcks.length)).toEqual([100, 100, 16]);
    expect(results.flatMap((r) => r.retryMessages)).toEqual([]);
    expect(await orderCount(first.token)).toBe(110);
    expect(await orderCount(second.token)).toBe(100);
    const sources = [...(await sourcesOf(first.storeId)), ...(await sourcesOf(second.storeId))];
    expect(sources.filter((s) => s.Status.RecentCycles.length === 1)).toHaveLength(210);
    expect(
      sources
        .filter((s) => s.Status.RecentCycles.length === 0)
        .map((s) => s.SourceId)
        .sort(),
    ).toEqual(disabled.sort());
    // 215 sources made and 210 cycles run: 130 s at a load average of 20 on 2 CPUs.
  }, 240_000);

  it("POST /admin/v1/sync over 100 sources answers what it queued, and the real queue's consumer runs them", async () => {
    const stores = JSON.parse((await admin("GET", "/stores")).text).Stores as { StoreId: string }[];
    const cycles = async () =>
      new Map((await Promise.all(stores.map((s) => sourcesOf(s.StoreId)))).flat().map((s) => [s.SourceId, s.Status.RecentCycles.length]));
    const before = await cycles();
    expect(before.size).toBe(221);

    const res = await admin("POST", "/sync");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).Sync).toMatchObject({ Queued: 216, Sources: [], OrdersImported: 0 });
    // Delivered by the runtime's queue (max_batch_timeout 1 s), not by this test: each enabled
    // source reports one cycle more, each disabled one none.
    await vi.waitUntil(async () => [...(await cycles())].filter(([id, n]) => n === before.get(id)! + 1).length === 216, { timeout: 150_000, interval: 1000 });
    const after = await cycles();
    expect([...after].filter(([id, n]) => n === before.get(id)).length).toBe(5);
  }, 180_000);
});
