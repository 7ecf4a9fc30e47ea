// What a key's limiter keeps when it is told a new grant (pure; src/throttle/rate-limiter.ts
// stores the result). Grants are published by several writers that race: the admin routes (a key
// created or revoked, a store deleted) and a store's move (its fence, its switch, a move given up),
// each building the grant from what it read a moment before. Two rules keep the newest truth:
//   - revocation always wins: a key revoked, or its store deleted, is never live again (neither
//     can be undone through the API), whatever grant arrives after;
//   - the store's part (its shard, a hold on its writes) is taken only from a grant read at the
//     same or a later revision of the store's directory row (stores.revision), so a grant built
//     before a move's switch never sends the key back to the shard the store left.
// The key's own part (scopes, bucket) is the key's row, which no route changes after creation.

export interface MergeableGrant {
  revoked: boolean;
  shard?: string;
  writesHeldUntil?: number;
  /** The revision of the store's directory row this grant's store part was read at (absent: before revisions, oldest). */
  storeRevision?: number;
}

export function mergeGrant<G extends MergeableGrant>(previous: G | undefined, next: G): G {
  if (!previous) return next;
  const revoked = previous.revoked || next.revoked;
  if ((previous.storeRevision ?? -1) <= (next.storeRevision ?? -1)) return { ...next, revoked };
  // The store part of the grant held is newer: keep it, take the rest.
  const { shard, writesHeldUntil, storeRevision } = previous;
  const { writesHeldUntil: _, ...rest } = next;
  return { ...rest, revoked, shard, storeRevision, ...(writesHeldUntil !== undefined ? { writesHeldUntil } : {}) } as G;
}
