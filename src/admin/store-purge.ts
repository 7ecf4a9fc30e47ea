// The purge of deleted stores (issue 20). Deleting a store stops its keys and feed schedules at
// once (src/stores/stores.routes.ts); what it held (orders with their buyer data and lines,
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
import type { Db } from "../db/client";
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

/** Purges deleted stores, oldest deletion first, until this run's budget is spent. */
export async function purgeDeletedStores(env: Env): Promise<void> {
  const budget = { left: BATCHES_PER_RUN };
  for (const store of await deletedStores(directoryDb(env), 10)) {
    if (!(await purgeStore(env, storeDb(env, store), store.id, budget))) return;
  }
}

/**
 * One store's purge, as far as the budget goes; true once the store is gone. Its data in its
 * shard (`db`), then its keys and directory row last, so a purge cut off is found again.
 */
async function purgeStore(env: Env, db: Db, storeId: string, budget: { left: number }): Promise<boolean> {
  const spend = () => budget.left-- > 0;
  for (;;) {
    if (!spend()) return false;
    const results = await db.batch(purgeOrdersStatements(db, storeId, BATCH));
    if (results[3].length < BATCH) break;
  }
  for (;;) {
    if (!spend()) return false;
    if ((await purgeProducts(db, storeId, BATCH)) < BATCH) break;
  }
  for (const feed of await listStoreFeeds(db, storeId)) {
    await env.FEED_COMPILER.getByName(feed.id).schedule(feed.id, null, storeId);
    await deleteFeed(db, storeId, feed.id);
  }
  // Every file of the store's feeds, the current ones and any a compile left (keys are per store).
  for (;;) {
    if (!spend()) return false;
    const listed = await env.FEEDS.list({ prefix: `feeds/${storeId}/`, limit: BATCH });
    if (listed.objects.length > 0) await env.FEEDS.delete(listed.objects.map((o) => o.key));
    if (!listed.truncated) break;
  }
  const now = Date.now();
  for (const source of await listSources(db, storeId)) {
    await deleteSource(db, source.id, now);
    await env.SOURCE_SYNC.getByName(source.id).forget();
  }
  for (;;) {
    if (!spend()) return false;
    if ((await purgeDeliveries(db, storeId, BATCH)) < BATCH) break;
  }
  await db.batch([deleteStockClockOf(db, storeId), deleteWebhooksOfStore(db, storeId), ...deleteStoreRow(db, storeId)]);
  const directory = directoryDb(env);
  await directory.batch([deleteKeysOfStore(directory, storeId), ...deleteStoreRow(directory, storeId)]);
  return true;
}
