// A consumer key's read-your-writes position: the latest D1 session bookmark of its writes,
// kept by the key's RateLimiter beside its bucket and handed out with each admission, so that
// the key's next read starts its D1 session there (docs/read-replicas.md).
// Pure: the object loads, calls this, stores.

/**
 * The later of two bookmarks. D1 bookmarks are ordered as strings (a fixed-width hex position),
 * so an older one arriving late, from a slow write, never moves the key's position back.
 */
export function laterBookmark(held: string | undefined, offered: string): string {
  return held !== undefined && held >= offered ? held : offered;
}
