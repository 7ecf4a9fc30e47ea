// What a key's limiter keeps when grants built from different reads arrive in any order
// (src/throttle/grants.ts): revocation always wins, and the store part of a grant read at an
// older revision of the store's directory row never replaces a newer one.
import { describe, expect, it } from "vitest";
import { mergeGrant } from "../../src/throttle/grants";
import type { KeyGrant } from "../../src/throttle/rate-limiter";

const base = { storeId: "st_1", scopes: ["OrdersRead"], bucket: { capacity: 50, ratePerSecond: 2 } };
const merge = (previous: KeyGrant | undefined, next: KeyGrant) => mergeGrant(previous, next);

describe("mergeGrant", () => {
  it("never makes a revoked key live again, whatever arrives after", () => {
    const revoked = { ...base, revoked: true, shard: "SHARD_1", storeRevision: 3 };
    expect(merge(revoked, { ...base, revoked: false, shard: "SHARD_2", storeRevision: 4 })).toEqual({
      ...base,
      revoked: true,
      shard: "SHARD_2",
      storeRevision: 4,
    });
    expect(merge(revoked, { ...base, revoked: false, shard: "SHARD_1", storeRevision: 1 }).revoked).toBe(true);
  });

  it("keeps the newer store part: an older grant does not send the key back to the shard the store left, nor put a hold back", () => {
    const switched = { ...base, revoked: false, shard: "SHARD_2", storeRevision: 7 };
    const stale = { ...base, revoked: false, shard: "SHARD_1", writesHeldUntil: 9_999, storeRevision: 6 };
    expect(merge(switched, stale)).toEqual({ ...base, revoked: false, shard: "SHARD_2", storeRevision: 7 });
    // The same or a later revision replaces it (a hold lifted at the same revision, a later switch).
    const held = { ...base, revoked: false, shard: "SHARD_1", writesHeldUntil: 9_999, storeRevision: 6 };
    expect(merge(held, { ...base, revoked: false, shard: "SHARD_1", storeRevision: 6 })).toEqual({
      ...base,
      revoked: false,
      shard: "SHARD_1",
      storeRevision: 6,
    });
    expect(merge(held, switched)).toEqual(switched);
  });

  it("takes a grant stored before revisions as the oldest, and the first grant as it is", () => {
    const legacy: KeyGrant = { ...base, revoked: false, shard: "DB" };
    expect(merge(legacy, { ...base, revoked: false, shard: "SHARD_3", storeRevision: 0 })).toEqual({
      ...base,
      revoked: false,
      shard: "SHARD_3",
      storeRevision: 0,
    });
    expect(merge(undefined, legacy)).toEqual(legacy);
  });
});
