// A connector's memory of single orders from cycle to cycle, kept in the source's storage
// (SourceStorage): one small entry an order (what the connector last read of it, what it made
// itself), so that it reads an order again only when the order shows something new. Bounded:
// REMEMBERED_ORDERS orders in MEMORY_KEYS keys chosen by a hash of the order id, each key the
// last REMEMBERED_ORDERS / MEMORY_KEYS orders written to it, the oldest forgotten first. A write
// (one a page written, one a delivery) rewrites only the keys its orders fall in, each a few
// kilobytes, not the lot. Whatever
// a connector keeps here must be safe to forget: an order forgotten costs one read more, never
// what that read brings. Each key is read once per connector (one cycle): only that connector
// writes its keys.
import type { SourceStorage } from "../storage";

/** Orders remembered at most, per connector and memory; the oldest are forgotten first. */
export const REMEMBERED_ORDERS = 1_024;
/** Storage keys a memory is spread over (each holds REMEMBERED_ORDERS / MEMORY_KEYS orders). */
export const MEMORY_KEYS = 16;
const PER_KEY = REMEMBERED_ORDERS / MEMORY_KEYS;

export interface OrderMemory<T> {
  /** What is remembered of the order, or undefined (never remembered, or forgotten since). */
  get(orderId: string): T | undefined;
  /** Remembers these entries, each now the newest of its key: one storage write a key touched. */
  put(entries: Iterable<readonly [string, T]>): void;
}

/** The storage key that holds an order's entry in the memory named `name`: `<name>.<0..15>`. */
export function memoryKeyOf(name: string, orderId: string): string {
  let hash = 0;
  for (let i = 0; i < orderId.length; i++) hash = (hash * 31 + orderId.charCodeAt(i)) >>> 0;
  return `${name}.${hash % MEMORY_KEYS}`;
}

/** The memory named `name` in this storage (none: nothing outlives the connector). */
export function orderMemory<T>(storage: SourceStorage | undefined, name: string): OrderMemory<T> {
  const cache = new Map<string, [string, T][]>();
  const entriesOf = (key: string): [string, T][] => {
    let entries = cache.get(key);
    if (!entries) {
      const kept = storage?.get<[string, T][]>(key);
      entries = Array.isArray(kept) ? kept : [];
      cache.set(key, entries);
    }
    return entries;
  };
  return {
    get(orderId) {
      return entriesOf(memoryKeyOf(name, orderId)).find(([id]) => id === orderId)?.[1];
    },
    put(entries) {
      const touched = new Set<string>();
      for (const [orderId, entry] of entries) {
        const key = memoryKeyOf(name, orderId);
        const rest = entriesOf(key).filter(([id]) => id !== orderId);
        cache.set(key, [...rest, [orderId, entry] as [string, T]].slice(-PER_KEY));
        touched.add(key);
      }
      for (const key of touched) storage?.put(key, cache.get(key));
    },
  };
}
