// The purge of deleted stores (issue 20). Deleting a store stops its keys and feed schedules at
// once (src/stores/stores.routes.ts); what it held (orders with their buyer data, lines, returns and refunds,
// deliveries, set-aside marketplace records, products, feeds and their files in R2, sources with
// their encrypted credentials and per-source state, keys, webhook endpoints and their events)
// goes here, in bounded batches.
//
// Why the cron rather than a Durable Object alarm: the cron already runs every 15 minutes and
// each run is its own invocation, so a purge needs no new binding or object, cannot run twice at
// once per store in a way that matters (every step is idempotent: deleting what is gone deletes
// nothing), and a run spends a fixed budget of batches, so a store of millions of orders spreads
// over several runs instead of one invocation's limits. A deleted store is unreachable through
// the API from the moment of its deletion, so purging over hours loses nothing.
//
// A run also holds to its share of the cron invocation's limits (src/lib/invocation-budget.ts):
// each step is counted (its statements, its calls to R2 and to objects) before it is taken, so a
// store of 200 sources (six statements each) spreads over several runs like a store of many orders.
import type { Db } from "../db/client";
import { InvocationBudget, type Cost } from "../lib/invocation-budget";
import { directoryDb, storeDb } from "../db/shards";
import { deleteStockClockOf, purgeProducts } from "../products/products.queries";
import { deleteFeed, listStoreFeeds } from "../feeds/feeds.queries";
import { purgeOrdersStatements } from "../orders/orders.writes";
import { deleteKeysOfStore } from "../consumer-keys/consumer-keys.queries";
import { deletedStores, deleteStoreRow } from "../stores/stores.queries";
import { deleteSource, listSources } from "../sources/sources.queries";
import { purgeDeliveries } from "../webhooks/webhook-deliveries.queries";
import { deleteWebhooksOfStore } from "../webhooks/webhooks.queries";

/** Rows (orders, products, files) one batch deletes. */
const BATCH = 1_000;
/** Batches one cron run spends, over every deleted store. */
const BATCHES_PER_RUN = 50;
/** The purge's share of the cron's invocation (the sync fan-out, the webhook sweep and the moves have the rest). */
export const PURGE_SHARE: Cost = { d1Queries: 500, subrequests: 2_000 };

/** What each step costs in D1 queries and subrequests, taken from the share before the step. */
const COST = {
  list: { d1Queries: 1, subrequests: 1 },
  orders: { d1Queries: 3, subrequests: 1 },
  feed: { d1Queries: 1, subrequests: 2 },
  files: { d1Queries: 0, subrequests: 2 },
  source: { d1Queries: 6, subrequests: 2 },
  last: { d1Queries: 7, subrequests: 2 },
} satisfies Record<string, Cost>;

/** Purges deleted stores, oldest deletion first, until this run's budget is spent. */
export async function purgeDeletedStores(env: Env, share: Cost = PURGE_SHARE): Promise<void> {
  const budget = { left: BATCHES_PER_RUN, invocation: new InvocationBudget(share) };
  budget.invocation.charge(COST.list);
  for (const store of await deletedStores(directoryDb(env), 10)) {
    if (!(await purgeStore(env, storeDb(env, store), store.id, budget))) return;
  }
}

/**
 * One store's purge, as far as the budget goes; true once the store is gone. Its data in its
 * shard (`db`), then its keys and directory row last, so a purge cut off is found again.
 */
async function purgeStore(env: Env, db: Db, storeId: string, budget: { left: number; invocation: InvocationBudget }): Promise<boolean> {
  /** Takes a step of `cost` if it fits this run (and, for a batch, its count of batches). */
  const take = (cost: Cost, batch = false) => {
    if (!budget.invocation.fits(cost) || (batch && budget.left <= 0)) return false;
    budget.invocation.charge(cost);
    if (batch) budget.left -= 1;
    return true;
  };
  for (;;) {
    if (!take(COST.orders, true)) return false;
    const results = await db.batch(purgeOrdersStatements(db, storeId, BATCH));
    if ((results.at(-1) as { id: number }[]).length < BATCH) break;
  }
  for (;;) {
    if (!take(COST.list, true)) return false;
    if ((await purgeProducts(db, storeId, BATCH)) < BATCH) break;
  }
  if (!take(COST.list)) return false;
  for (const feed of await listStoreFeeds(db, storeId)) {
    if (!take(COST.feed)) return false;
    await env.FEED_COMPILER.getByName(feed.id).schedule(feed.id, null, storeId);
    await deleteFeed(db, storeId, feed.id);
  }
  // Every file of the store's feeds, the current ones and any a compile left (keys are per store).
  for (;;) {
    if (!take(COST.files, true)) return false;
    const listed = await env.FEEDS.list({ prefix: `feeds/${storeId}/`, limit: BATCH });
    if (listed.objects.length > 0) await env.FEEDS.delete(listed.objects.map((o) => o.key));
    if (!listed.truncated) break;
  }
  const now = Date.now();
  if (!take(COST.list)) return false;
  for (const source of await listSources(db, storeId)) {
    if (!take(COST.source)) return false;
    await deleteSource(db, source.id, now);
    await env.SOURCE_SYNC.getByName(source.id).forget();
  }
  for (;;) {
    if (!take(COST.list, true)) return false;
    if ((await purgeDeliveries(db, storeId, BATCH)) < BATCH) break;
  }
  if (!take(COST.last)) return false;
  await db.batch([deleteStockClockOf(db, storeId), deleteWebhooksOfStore(db, storeId), ...deleteStoreRow(db, storeId)]);
  const directory = directoryDb(env);
  await directory.batch([deleteKeysOfStore(directory, storeId), ...deleteStoreRow(directory, storeId)]);
  return true;
}
