// Durable scratch space of one source, kept by the source's SourceSync Durable Object. A
// connector may use it for what must outlive one cycle (the simulated marketplace keeps what it
// received there). Synchronous, like the SQLite-backed `ctx.storage.kv` it wraps.
export interface SourceStorage {
  get<T>(key: string): T | undefined;
  put(key: string, value: unknown): void;
  delete(key: string): void;
  list<T>(prefix: string): [string, T][];
}

/** An in-memory SourceStorage, for a cycle run outside a Durable Object (unit tests, benchmarks). */
export function memoryStorage(): SourceStorage {
  const map = new Map<string, unknown>();
  return {
    get: <T>(key: string) => map.get(key) as T | undefined,
    put: (key, value) => void map.set(key, structuredClone(value)),
    delete: (key) => void map.delete(key),
    list: <T>(prefix: string) => [...map.entries()].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)) as [string, T][],
  };
}

/** The SourceStorage of a Durable Object's synchronous KV API. */
export function kvStorage(kv: SyncKvStorage): SourceStorage {
  return {
    get: <T>(key: string) => kv.get<T>(key),
    put: (key, value) => kv.put(key, value),
    delete: (key) => void kv.delete(key),
    list: <T>(prefix: string) => [...kv.list<T>({ prefix })],
  };
}
