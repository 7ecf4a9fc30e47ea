// One Durable Object per webhook endpoint (named by WebhookId) sends its events. It only loads,
// calls sender.ts's pass, and keeps the alarm: the next due attempt, or now when woken by a
// write that recorded events for this endpoint. Passes of one endpoint never overlap (one
// object, one chain), which is what keeps two attempts of one event or of one order apart.
// docs/webhooks.md says why this and not a Queue.
import { DurableObject } from "cloudflare:workers";
import { storeOfRow } from "../stores/stores.queries";
import { webhookById } from "./webhooks.queries";
import { runPass, type PassResult } from "./sender";
import { outboundFetch } from "../lib/outbound";

const WEBHOOK_ID = "webhookId";
/** The endpoint's store, whose shard holds its events (src/db/shards.ts). */
const STORE_ID = "storeId";

export class WebhookSender extends DurableObject<Env> {
  /** The pass running now (or the last one); the next waits for it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Wake-ups so far: one that comes while a pass runs must not be undone by that pass's alarm. */
  private wakes = 0;

  /** Events were recorded for this endpoint: send them now (an earlier alarm is moved up). */
  async wake(webhookId: string, storeId: string): Promise<void> {
    this.ctx.storage.kv.put(WEBHOOK_ID, webhookId);
    this.ctx.storage.kv.put(STORE_ID, storeId);
    this.wakes += 1;
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * Runs one pass after any pass already running, as of `at` (a test's or a replay's clock; the
   * alarm passes none), and sets the alarm for the endpoint's next due event.
   */
  deliver(webhookId: string, at?: number, storeId?: string): Promise<PassResult> {
    this.ctx.storage.kv.put(WEBHOOK_ID, webhookId);
    if (storeId) this.ctx.storage.kv.put(STORE_ID, storeId);
    const next = this.tail.then(async () => {
      const wakes = this.wakes;
      const db = await this.db(webhookId);
      // A store deleted and purged has no endpoint left to send for: the pass ends as for a deleted endpoint.
      const result = db
        ? await runPass(webhookId, { db, env: this.env, fetch: outboundFetch as typeof fetch, now: at ?? Date.now(), wallClock: Date.now })
        : { attempted: 0, delivered: 0, nextAt: null };
      // Events recorded after the pass last looked: it may not have seen them, so look again now.
      if (this.wakes !== wakes) await this.ctx.storage.setAlarm(Date.now());
      else if (result.nextAt === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(Math.max(result.nextAt, Date.now()));
      return result;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * The database of the endpoint's store, asked of the directory at each pass, so a pass after a
   * move reads where the store now lives. An object woken before shards knows no store: found once.
   * Undefined once the store (or the endpoint, for such an object) is gone; an unreachable D1 throws.
   */
  private async db(webhookId: string) {
    const kv = this.ctx.storage.kv;
    const home = await storeOfRow(this.env, (db) => webhookById(db, webhookId), kv.get<string>(STORE_ID));
    if (home) kv.put(STORE_ID, home.storeId);
    return home?.db;
  }

  override async alarm(): Promise<void> {
    const webhookId = this.ctx.storage.kv.get<string>(WEBHOOK_ID);
    // A pass that throws (D1 unreachable) is retried by the runtime's own alarm retries.
    if (webhookId) await this.deliver(webhookId);
  }
}
