// The sync's fan-out through a Cloudflare Queue: the cron hands every enabled source over in
// batches of 100 messages (one sendBatch call each, paced under the queue's throughput) and
// returns; the queue's consumer (this same Worker) hands each source's cycle to its SourceSync
// object, which runs it in its alarm. Why a queue in front of the alarms: docs/sync-fanout.md.
import { z } from "zod";

/**
 * One source's cycle for one cron slot (the cron's scheduled time, ms), with the source's store,
 * whose shard the cycle reads (a message queued before shards has none: the cycle finds it).
 */
const syncMessage = z.object({ sourceId: z.string().min(1), storeId: z.string().min(1).optional(), slot: z.number().int() });
export type SyncMessage = z.infer<typeof syncMessage>;

/** What one sendBatch call may carry (the Queues limit) and what one consumer invocation gets. */
export const SEND_BATCH = 100;
/**
 * sendBatch calls sent together, once a second at most: 4,000 messages a second, under a queue's
 * 5,000 (past it sendBatch throws "Too Many Requests" and those sources would miss the slot).
 */
const BATCHES_PER_SECOND = 40;

/** A source to sync and the store it belongs to. */
export interface SourceRef {
  sourceId: string;
  storeId: string;
}

/** Hands `sources` to the queue for the cycle of `slot`; answers how many were sent. */
export async function enqueueSources(env: Pick<Env, "SYNC_QUEUE">, sources: SourceRef[], slot: number): Promise<number> {
  const batches: SyncMessage[][] = [];
  for (let i = 0; i < sources.length; i += SEND_BATCH) {
    batches.push(sources.slice(i, i + SEND_BATCH).map(({ sourceId, storeId }) => ({ sourceId, storeId, slot })));
  }
  let sent = 0;
  for (let wave = 0; wave < batches.length; wave += BATCHES_PER_SECOND) {
    const started = Date.now();
    const group = batches.slice(wave, wave + BATCHES_PER_SECOND);
    // A failed call does not keep the others from going out; the next cron sends its sources again.
    const settled = await Promise.allSettled(group.map((batch) => env.SYNC_QUEUE.sendBatch(batch.map((body) => ({ body })))));
    settled.forEach((outcome, i) => {
      if (outcome.status === "fulfilled") sent += group[i]!.length;
      else console.error("sync: a batch of sources was not queued", group[i]![0]!.sourceId, outcome.reason);
    });
    const rest = 1000 - (Date.now() - started);
    if (wave + BATCHES_PER_SECOND < batches.length && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  return sent;
}

/**
 * The consumer: hands every message's cycle to its source's object at once (each object runs it
 * in its own alarm), then acks or retries each message on its own, so one source that fails does
 * not hold back or repeat the others.
 */
export async function consumeSyncBatch(batch: MessageBatch<unknown>, env: Pick<Env, "SOURCE_SYNC">): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const parsed = syncMessage.safeParse(message.body);
      if (!parsed.success) {
        // Retrying cannot make it readable; the next cron sends the source's own message.
        console.error("sync: unreadable queue message dropped", message.id);
        message.ack();
        return;
      }
      const { sourceId, storeId, slot } = parsed.data;
      try {
        // Answers once the object has stored the slot and set its alarm, not when the cycle ends.
        await env.SOURCE_SYNC.getByName(sourceId).queueCycle(sourceId, slot, storeId);
        message.ack();
      } catch (error) {
        // The object could not be reached or could not store the slot: tried again after a pause.
        console.error("sync: a source's cycle could not be queued", sourceId, error);
        message.retry({ delaySeconds: 30 });
      }
    }),
  );
}

/**
 * A duplicate delivery of a slot's message (Queues deliver at least once) runs nothing: only a
 * slot later than the last one run, and than the one waiting or running now, starts a cycle.
 * A later slot's cycle also makes an earlier slot's late retry pointless, so it is dropped too.
 */
export function isNewSlot(slot: number, lastRun: number | undefined, inFlight: number | undefined): boolean {
  return slot > (lastRun ?? -Infinity) && slot > (inFlight ?? -Infinity);
}
