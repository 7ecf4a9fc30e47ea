// Where a new store goes, and what each shard holds (decisions 10): the shard with the fewest
// orders that is not draining, unless the operator names one. The totals are read from every
// shard at once (one small aggregate of store_usage each), never joined across databases.
import { drainingShards, shardDb, shardNames } from "../db/shards";
import { ApiError } from "../http/errors";
import { shardTotals } from "./stores.queries";

export interface ShardView {
  shard: string;
  stores: number;
  orders: number;
  orderItems: number;
  products: number;
  draining: boolean;
}

/** Every shard with what it holds, in shardNames order (the directory first). */
export async function shardViews(env: Env): Promise<ShardView[]> {
  const draining = drainingShards(env);
  return Promise.all(shardNames(env).map(async (shard) => ({ shard, ...(await shardTotals(shardDb(env, shard), shard)), draining: draining.has(shard) })));
}

/** The shard a new store is placed on; ties go to the first in name order. */
export function leastFilled(views: ShardView[]): string | undefined {
  return views.filter((v) => !v.draining).sort((a, b) => a.orders - b.orders || a.stores - b.stores)[0]?.shard;
}

/** The shard for a new store: the one named (if it may take stores) or the least filled. */
export async function placeStore(env: Env, named: string | undefined): Promise<string> {
  const names = shardNames(env);
  if (named !== undefined) {
    if (!names.includes(named)) throw new ApiError(400, `Shard '${named.slice(0, 60)}' is not one of this hub's shards: ${names.join(", ")}.`);
    if (drainingShards(env).has(named)) throw new ApiError(400, `Shard '${named}' is draining: no new store is placed on it.`);
    return named;
  }
  const shard = leastFilled(await shardViews(env));
  if (!shard) throw new ApiError(503, "Every shard is draining: add a shard (docs/sharding.md) before creating stores.", { "Retry-After": "60" });
  return shard;
}
