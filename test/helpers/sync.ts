// Sources and cycles for the sync tests, through the admin API and the Worker's own handlers.
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  runInDurableObject,
  waitOnExecutionContext,
  type QueueResult,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
// The Worker as the tests run it: each handler call one metered invocation (test/setup/metered-entry.ts).
import worker from "../setup/metered-entry";
import { admin, call } from "./api";
import type { z } from "zod";
import type { WireOrder } from "../../src/orders/orders.wire";
import type { deliveryAnswer } from "../../src/sources/sources.schemas";

export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** A window of exactly `count` simulated orders at 12 an hour, ending a little before now. */
export function simulatedWindow(count: number, endsBefore = HOUR) {
  const interval = 5 * MINUTE;
  const end = Math.floor((Date.now() - endsBefore) / interval) * interval;
  const start = end - (count - 1) * interval;
  return { ordersPerHour: 12, startAt: new Date(start).toISOString(), endAt: new Date(end).toISOString() };
}

export async function createSource(storeId: string, body: { Type?: string; Name?: string; Settings?: Record<string, unknown> } = {}) {
  const res = await admin("POST", `/stores/${storeId}/sources`, {
    Type: body.Type ?? "simulated",
    Name: body.Name ?? "SimMarket",
    Settings: body.Settings ?? simulatedWindow(5),
  });
  if (res.status !== 200) throw new Error(`createSource: ${res.status} ${res.text}`);
  return (res.json.Source as { SourceId: string }).SourceId;
}

export async function patchSource(storeId: string, sourceId: string, body: Record<string, unknown>) {
  const res = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, body);
  if (res.status !== 200) throw new Error(`patchSource: ${res.status} ${res.text}`);
  return res.json.Source as Record<string, unknown>;
}

/**
 * Fires the Cron Trigger as the runtime would, then delivers what it queued to the queue's
 * consumer, one message batch per sendBatch call (as the consumer's max_batch_size of 100 gets
 * them), and waits for every cycle the consumer handed over. Answers each batch's acks and retries.
 */
export async function fireCron(scheduledTime = Date.now()): Promise<(QueueResult & { ids: string[] })[]> {
  const sent: MessageSendRequest[][] = [];
  const spy = vi.spyOn(env.SYNC_QUEUE, "sendBatch").mockImplementation(async (messages) => {
    sent.push([...messages]);
    return { metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date(0) } } };
  });
  try {
    const controller = createScheduledController({ scheduledTime: new Date(scheduledTime), cron: "*/15 * * * *" });
    const ctx = createExecutionContext();
    worker.scheduled(controller, env, ctx);
    await waitOnExecutionContext(ctx);
  } finally {
    spy.mockRestore();
  }
  const results = await Promise.all(sent.map((messages) => deliver(messages.map((m) => m.body))));
  await Promise.all(sent.flat().map((m) => queuedCycleEnded((m.body as { sourceId: string }).sourceId)));
  return results;
}

/** Waits until the cycle the queue handed to a source's object (run in its alarm) has ended. */
export async function queuedCycleEnded(sourceId: string): Promise<void> {
  const stub = env.SOURCE_SYNC.getByName(sourceId);
  await vi.waitUntil(() => runInDurableObject(stub, (_instance, state) => state.storage.kv.get("sync:queued") === undefined), {
    timeout: 120_000,
    interval: 20,
  });
}

let delivered = 0;
/** One message batch of the sync queue, delivered to the Worker's consumer (a duplicate is sent twice). */
export async function deliver(bodies: unknown[], workerEnv: Env = env): Promise<QueueResult & { ids: string[] }> {
  const ids = bodies.map(() => `msg-${(delivered += 1)}`);
  const batch = createMessageBatch(
    "order-feed-hub-sync",
    bodies.map((body, i) => ({ id: ids[i]!, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, workerEnv);
  return { ...(await getQueueResult(batch, ctx)), ids };
}

/** One cycle of one source at a chosen time, through its Durable Object (what the cron dispatches). */
export function cycleAt(sourceId: string, at: number) {
  return env.SOURCE_SYNC.getByName(sourceId).runCycle(sourceId, at);
}

export interface Received {
  Seq: number;
  Operation: string;
  OrderSourceOrderNumber: string | null;
  Body: Record<string, unknown>;
  Answer: number | string;
}

export async function received(storeId: string, sourceId: string): Promise<Received[]> {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}/received`);
  if (res.status !== 200) throw new Error(`received: ${res.status} ${res.text}`);
  return res.json.Received as Received[];
}

export type Delivery = z.input<typeof deliveryAnswer>;

export async function deliveries(storeId: string, sourceId: string): Promise<Delivery[]> {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}/deliveries`);
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
  return res.json.Deliveries as Delivery[];
}

export type { WireOrder };

/** Every order of the token's store (all pages), or the one page `query` asks for. */
export async function listOrders(token: string, query?: string): Promise<WireOrder[]> {
  const all: WireOrder[] = [];
  for (let page = 1; ; page++) {
    const res = await call("GET", `/v1/${token}/Orders?${query ?? `page=${page}&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`}`);
    if (res.status !== 200) throw new Error(`listOrders: ${res.status} ${res.text}`);
    const orders = res.json.Orders as WireOrder[];
    all.push(...orders);
    if (query !== undefined || orders.length < 100) return all;
  }
}
