// The invocation meter: what Cloudflare limits per invocation and local workerd does not enforce,
// counted in the tests. Each invocation (a fetch, scheduled or queue handler call, a Durable
// Object's RPC call, fetch or alarm) gets its own count, carried through everything it awaits
// (AsyncLocalStorage); its bindings are wrapped (meterEnv) so that every D1 statement, D1 call,
// Durable Object call, R2 call and queue send it makes is charged to it, and every outbound fetch
// of the service (src/lib/outbound.ts's diagnostics channel) too.
//
// Limits, as Cloudflare documents them for Workers Paid: 1,000 D1 queries a Worker invocation; 10,000
// subrequests (fetch, and calls to other Cloudflare services: D1, R2, Durable Objects, Queues);
// 2,000,000 bytes a string or BLOB value; 100,000 bytes of SQL a statement. The documents do not
// say how a db.batch() counts against the query limit, only that each of its statements is held
// to the per-statement limits, so each statement of a batch counts as one query here (the
// stricter reading); a D1 call (one statement or one batch) is one subrequest. Going past a limit
// throws as production would (the invocation's work fails there) and is recorded: the test
// setup (test/setup/invocation-limits.ts) fails the test that caused it even if the code swallowed
// the error. The entry that installs it for the whole suite: test/setup/metered-entry.ts.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import { OUTBOUND_CHANNEL } from "../../src/lib/outbound";

export const LIMITS = {
  d1Queries: 1_000,
  subrequests: 10_000,
  valueBytes: 2_000_000,
  statementBytes: 100_000,
} as const;

/** What one invocation spent. */
export interface Invocation {
  /** "fetch POST /admin/v1/sync", "scheduled", "queue", "SourceSync.alarm", "WebhookSender.deliver", ... */
  label: string;
  seq: number;
  d1Queries: number;
  subrequests: number;
  /** Of the subrequests: */
  d1Calls: number;
  fetches: number;
  objectCalls: number;
  r2Calls: number;
  queueSends: number;
  /** The largest bound value, in bytes. */
  largestValue: number;
  /** The Durable Object instance whose invocation this is (nested calls within it stay in it). */
  owner: object | undefined;
}

export interface Violation {
  label: string;
  seq: number;
  what: string;
}

const scope = new AsyncLocalStorage<Invocation>();
const invocations: Invocation[] = [];
const violations: Violation[] = [];
let seq = 0;
/** Invocations kept for inspection: the oldest go first (tests look at what they just did). */
const KEEP = 20_000;

/**
 * Runs `work` as one invocation: everything it awaits is charged to it. A call made from within an
 * invocation of the same Durable Object instance (`owner`), such as an alarm calling the object's
 * own methods, stays in that invocation.
 */
export function invocation<T>(label: string, owner: object | undefined, work: () => T): T {
  const current = scope.getStore();
  if (owner !== undefined && current?.owner === owner) return work();
  const record: Invocation = { label, seq: ++seq, d1Queries: 0, subrequests: 0, d1Calls: 0, fetches: 0, objectCalls: 0, r2Calls: 0, queueSends: 0, largestValue: 0, owner };
  invocations.push(record);
  if (invocations.length > KEEP) invocations.splice(0, invocations.length - KEEP);
  return scope.run(record, work);
}

/** The current invocation's count, or undefined outside any (a test's own direct D1 reads). */
export function current(): Invocation | undefined {
  return scope.getStore();
}

/** A position in the record: pass it to `since` to see the invocations started after it. */
export function mark(): number {
  return seq;
}

/** Invocations started after `from` (a `mark()`), oldest first, optionally those whose label starts with `prefix`. */
export function since(from: number, prefix = ""): Invocation[] {
  return invocations.filter((i) => i.seq > from && i.label.startsWith(prefix));
}

/** Takes the violations recorded so far (the test setup fails the test with them). */
export function takeViolations(): Violation[] {
  return violations.splice(0, violations.length);
}

function violate(record: Invocation, what: string): never {
  violations.push({ label: record.label, seq: record.seq, what });
  throw new Error(`[invocation meter] ${record.label}: ${what}`);
}

type Kind = "d1Calls" | "fetches" | "objectCalls" | "r2Calls" | "queueSends";

/** Charges the current invocation: `queries` D1 queries and one subrequest of `kind`. */
function charge(kind: Kind, queries = 0): void {
  const record = scope.getStore();
  if (!record) return;
  record[kind] += 1;
  record.subrequests += 1;
  record.d1Queries += queries;
  if (record.d1Queries > LIMITS.d1Queries) violate(record, `D1 queries ${record.d1Queries} > ${LIMITS.d1Queries} in one invocation (Too many API requests by single Worker invocation)`);
  if (record.subrequests > LIMITS.subrequests) violate(record, `subrequests ${record.subrequests} > ${LIMITS.subrequests} in one invocation (Too many subrequests)`);
}

subscribe(OUTBOUND_CHANNEL, () => charge("fetches"));

const encoder = new TextEncoder();
function byteLength(value: unknown): number {
  if (typeof value === "string") return value.length * 3 <= LIMITS.valueBytes ? value.length : encoder.encode(value).length;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  return 0;
}

function checkValues(values: unknown[]): void {
  const record = scope.getStore();
  if (!record) return;
  for (const value of values) {
    const bytes = byteLength(value);
    record.largestValue = Math.max(record.largestValue, bytes);
    if (bytes > LIMITS.valueBytes) violate(record, `a bound value of ${bytes} bytes > ${LIMITS.valueBytes} (D1's largest string or BLOB)`);
  }
}

function checkSql(sql: string): void {
  const record = scope.getStore();
  if (record && sql.length > LIMITS.statementBytes / 3 && encoder.encode(sql).length > LIMITS.statementBytes) {
    violate(record, `a statement of ${encoder.encode(sql).length} bytes of SQL > ${LIMITS.statementBytes}`);
  }
}

// ------------------------------------------------------------------ the bindings, wrapped

const REAL = Symbol("real statement");

class MeteredStatement {
  readonly [REAL]: D1PreparedStatement;
  constructor(real: D1PreparedStatement) {
    this[REAL] = real;
  }
  bind(...values: unknown[]): MeteredStatement {
    checkValues(values);
    return new MeteredStatement(this[REAL].bind(...values));
  }
  first(column?: string) {
    charge("d1Calls", 1);
    return column === undefined ? this[REAL].first() : this[REAL].first(column);
  }
  all() {
    charge("d1Calls", 1);
    return this[REAL].all();
  }
  run() {
    charge("d1Calls", 1);
    return this[REAL].run();
  }
  raw(options?: { columnNames?: boolean }) {
    charge("d1Calls", 1);
    return this[REAL].raw(options as { columnNames: true });
  }
}

const unwrap = (statement: unknown) => (statement instanceof MeteredStatement ? statement[REAL] : statement) as D1PreparedStatement;

/** The statements of an exec() script: D1 runs each as its own query. */
function statementsIn(sql: string): number {
  return Math.max(1, sql.split(";").filter((part) => part.trim() !== "").length);
}

function meteredD1Like(target: D1Database | D1DatabaseSession): unknown {
  return new Proxy(target, {
    get(t, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          checkSql(sql);
          return new MeteredStatement(t.prepare(sql));
        };
      }
      if (prop === "batch") {
        return (statements: unknown[]) => {
          charge("d1Calls", statements.length);
          return t.batch(statements.map(unwrap));
        };
      }
      if (prop === "exec" && "exec" in t) {
        return (sql: string) => {
          charge("d1Calls", statementsIn(sql));
          return t.exec(sql);
        };
      }
      if (prop === "dump" && "dump" in t) {
        return () => {
          charge("d1Calls", 1);
          return (t as D1Database).dump();
        };
      }
      if (prop === "withSession" && "withSession" in t) {
        return (start?: D1SessionBookmark | D1SessionConstraint) => meteredD1Like(t.withSession(start));
      }
      const value = Reflect.get(t, prop, t) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** Every call on the object is one subrequest of `kind`; what `wrapResult` names is wrapped too. */
function meteredCalls<T extends object>(target: T, kind: Kind, free: Set<PropertyKey>, wrapResult: Partial<Record<PropertyKey, (value: unknown) => unknown>> = {}): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      const call = (value as (...a: unknown[]) => unknown).bind(t);
      const wrap = wrapResult[prop];
      if (free.has(prop)) return wrap ? (...args: unknown[]) => wrap(call(...args)) : call;
      return (...args: unknown[]) => {
        charge(kind);
        const result = call(...args);
        return wrap ? (result instanceof Promise ? result.then(wrap) : wrap(result)) : result;
      };
    },
  });
}

const meteredUpload = (upload: unknown) => meteredCalls(upload as R2MultipartUpload, "r2Calls", new Set());

function meteredR2(bucket: R2Bucket): R2Bucket {
  // resumeMultipartUpload only builds the object locally; its parts and completion are calls.
  return meteredCalls(bucket, "r2Calls", new Set(["resumeMultipartUpload"]), {
    createMultipartUpload: meteredUpload,
    resumeMultipartUpload: meteredUpload,
  });
}

/** A stub: each call of one of its methods (RPC or fetch) is a subrequest. */
function meteredStub(stub: unknown): unknown {
  return new Proxy(stub as object, {
    get(t, prop) {
      const value = Reflect.get(t, prop) as unknown;
      if (typeof value !== "function" || prop === "then") return value;
      return (...args: unknown[]) => {
        charge("objectCalls");
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
}

function meteredNamespace(namespace: DurableObjectNamespace): DurableObjectNamespace {
  return new Proxy(namespace, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      const call = (value as (...a: unknown[]) => unknown).bind(t);
      if (prop === "get" || prop === "getByName" || prop === "getExisting") return (...args: unknown[]) => meteredStub(call(...args));
      if (prop === "jurisdiction") return (...args: unknown[]) => meteredNamespace(call(...args) as DurableObjectNamespace);
      return call;
    },
  });
}

const has = (value: unknown, ...methods: string[]) =>
  typeof value === "object" && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function");

function meterBinding(value: unknown): unknown {
  if (has(value, "prepare", "batch", "withSession")) return meteredD1Like(value as D1Database);
  if (has(value, "idFromName", "get")) return meteredNamespace(value as DurableObjectNamespace);
  if (has(value, "createMultipartUpload", "resumeMultipartUpload", "head")) return meteredR2(value as R2Bucket);
  if (has(value, "send", "sendBatch")) return meteredCalls(value as Queue, "queueSends", new Set());
  return value;
}

const metered = new WeakMap<object, object>();

/** The env with every binding wrapped, so that what an invocation does with them is charged to it. */
export function meterEnv<E extends object>(env: E): E {
  const known = metered.get(env);
  if (known) return known as E;
  const cache = new Map<PropertyKey, unknown>();
  const proxy = new Proxy(env, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "object" || value === null) return value;
      if (!cache.has(prop) || (cache.get(prop) as { value: unknown }).value !== value) cache.set(prop, { value, wrapped: meterBinding(value) });
      return (cache.get(prop) as { wrapped: unknown }).wrapped;
    },
  });
  metered.set(env, proxy);
  return proxy;
}
