// DELETE /admin/v1/stores/:storeId: the one operator action that reaches every resource of a
// store at once, so it lives here, above them all. What must stop now stops in this request (every
// token of the store's keys, its feeds' schedules); the rest of what it held is purged by the cron
// in bounded batches (store-purge.ts).
import { directoryDb, storeDb } from "../db/shards";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { publishGrant } from "../throttle/rate-limiter";
import { keysOfStore } from "../consumer-keys/consumer-keys.queries";
import { markStoreDeleted, requireStore } from "../stores/stores.queries";
import { storeParam } from "../stores/stores.schemas";
import { listStoreFeeds } from "../feeds/feeds.queries";

const STORE_DELETED =
  "The store is deleted: its keys and feed schedules stopped now; its orders, buyer data, products, feeds and their files, and sources are purged in the " +
  "background (every 15 minutes, in batches).";

export const storeDeletionRoutes = createRouter().delete(
  "/stores/:storeId",
  documented("admin", {
    summary: "Delete a store (every token of its keys stops; its data is purged in the background)",
    tags: ["Stores"],
    answer: envelope({}),
  }),
  validate("param", storeParam),
  async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    // Every token of the store's keys stops working on its next call. The limiters are told
    // first: if one cannot be reached the store is not yet marked deleted, so a retry of this
    // DELETE finds it and finishes the job (revocation is idempotent).
    const keys = await keysOfStore(directoryDb(c.env), store.id);
    await Promise.all(keys.map((key) => publishGrant(c.env, key, { deleted: true, shard: store.shard, revision: store.revision })));
    await markStoreDeleted(c.env, store, Date.now());
    // Its feeds stop compiling now (a compile or alarm already under way finds no feed).
    await Promise.all(
      (await listStoreFeeds(storeDb(c.env, store), store.id)).map((feed) => c.env.FEED_COMPILER.getByName(feed.id).schedule(feed.id, null, store.id)),
    );
    return ok(c, { Message: STORE_DELETED });
  },
);
