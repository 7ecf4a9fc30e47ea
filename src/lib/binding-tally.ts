// Bindings that report what they are asked, for counting against Cloudflare's per-invocation
// limits (local workerd enforces none). tallyBindings wraps an env's D1 databases, Durable Object
// namespaces, R2 buckets and queues; each D1 call reports its queries (one per statement, each
// statement of a batch or of an exec() script counted, as Cloudflare counts them), each prepared
// statement its SQL and each bound value its size, and each call to an object, a bucket or a queue
// reports itself. What is done with that is the caller's: a job can count its own invocation's
// spending, the tests' invocation meter charges the current invocation and fails a test past a
// limit (test/helpers/invocation-meter.ts). Nothing is changed in what the bindings do or answer.

/** Cloudflare's documented limits per invocation on the paid plan, and D1's per value and per statement. */
export const CLOUDFLARE_LIMITS = { d1Queries: 1_000, subrequests: 10_000, d1ValueBytes: 2_000_000, d1StatementBytes: 100_000 } as const;

/** A call out of the isolate that is not D1's: a Durable Object's method or fetch, an R2 call, a queue send. */
export type CallKind = "objectCalls" | "r2Calls" | "queueSends";

/** What the wrapped bindings report; each hook is optional. */
export interface Tally {
  /** One D1 call (a statement run, a batch, an exec() script, a dump) of `queries` queries. */
  d1?(queries: number): void;
  /** A statement prepared, with its SQL text. */
  sql?(sql: string): void;
  /** A value bound to a statement, and its size in bytes (UTF-8 for text; 8 for a number). */
  value?(bytes: number): void;
  /** One call to a Durable Object, an R2 bucket or a queue. */
  call?(kind: CallKind): void;
}

const encoder = new TextEncoder();

/** A bound value's size in bytes. */
export function valueBytes(value: unknown): number {
  if (typeof value === "string") return encoder.encode(value).byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  return 8;
}

const REAL = Symbol("real statement");

class TalliedStatement {
  readonly [REAL]: D1PreparedStatement;
  constructor(
    real: D1PreparedStatement,
    private readonly tally: Tally,
  ) {
    this[REAL] = real;
  }
  bind(...values: unknown[]): TalliedStatement {
    if (this.tally.value) for (const value of values) this.tally.value(valueBytes(value));
    return new TalliedStatement(this[REAL].bind(...values), this.tally);
  }
  first(column?: string) {
    this.tally.d1?.(1);
    return column === undefined ? this[REAL].first() : this[REAL].first(column);
  }
  all() {
    this.tally.d1?.(1);
    return this[REAL].all();
  }
  run() {
    this.tally.d1?.(1);
    return this[REAL].run();
  }
  raw(options?: { columnNames?: boolean }) {
    this.tally.d1?.(1);
    return this[REAL].raw(options as { columnNames: true });
  }
}

const unwrap = (statement: unknown) => (statement instanceof TalliedStatement ? statement[REAL] : statement) as D1PreparedStatement;

/** The statements of an exec() script: D1 runs each as its own query. */
function statementsIn(sql: string): number {
  return Math.max(1, sql.split(";").filter((part) => part.trim() !== "").length);
}

/** A D1 database (or one of its sessions) that reports to `tally`. */
export function talliedD1<D extends D1Database | D1DatabaseSession>(database: D, tally: Tally): D {
  return new Proxy(database, {
    get(t, prop) {
      if (prop === "prepare") {
        return (sql: string) => {
          tally.sql?.(sql);
          return new TalliedStatement(t.prepare(sql), tally);
        };
      }
      if (prop === "batch") {
        return (statements: unknown[]) => {
          tally.d1?.(statements.length);
          return t.batch(statements.map(unwrap));
        };
      }
      if (prop === "exec" && "exec" in t) {
        return (sql: string) => {
          tally.d1?.(statementsIn(sql));
          return t.exec(sql);
        };
      }
      if (prop === "dump" && "dump" in t) {
        return () => {
          tally.d1?.(1);
          return (t as D1Database).dump();
        };
      }
      if (prop === "withSession" && "withSession" in t) {
        return (start?: D1SessionBookmark | D1SessionConstraint) => talliedD1(t.withSession(start), tally);
      }
      const value = Reflect.get(t, prop, t) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  }) as D;
}

/** Every call on the object reports one call of `kind`; what `wrapResult` names is wrapped too. */
function talliedCalls<T extends object>(
  target: T,
  kind: CallKind,
  tally: Tally,
  free: Set<PropertyKey>,
  wrapResult: Partial<Record<PropertyKey, (value: unknown) => unknown>> = {},
): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      const call = (value as (...a: unknown[]) => unknown).bind(t);
      const wrap = wrapResult[prop];
      if (free.has(prop)) return wrap ? (...args: unknown[]) => wrap(call(...args)) : call;
      return (...args: unknown[]) => {
        tally.call?.(kind);
        const result = call(...args);
        return wrap ? (result instanceof Promise ? result.then(wrap) : wrap(result)) : result;
      };
    },
  });
}

function talliedR2(bucket: R2Bucket, tally: Tally): R2Bucket {
  const upload = (u: unknown) => talliedCalls(u as R2MultipartUpload, "r2Calls", tally, new Set());
  // resumeMultipartUpload only builds the object locally; its parts and completion are calls.
  return talliedCalls(bucket, "r2Calls", tally, new Set(["resumeMultipartUpload"]), { createMultipartUpload: upload, resumeMultipartUpload: upload });
}

/** A stub: each call of one of its methods (RPC or fetch) is one call. */
function talliedStub(stub: unknown, tally: Tally): unknown {
  return new Proxy(stub as object, {
    get(t, prop) {
      const value = Reflect.get(t, prop) as unknown;
      if (typeof value !== "function" || prop === "then") return value;
      return (...args: unknown[]) => {
        tally.call?.("objectCalls");
        // Reflect.apply: an RPC stub's members answer any property name, `apply` included.
        return Reflect.apply(value as (...a: unknown[]) => unknown, t, args);
      };
    },
  });
}

function talliedNamespace(namespace: DurableObjectNamespace, tally: Tally): DurableObjectNamespace {
  return new Proxy(namespace, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      const call = (value as (...a: unknown[]) => unknown).bind(t);
      if (prop === "get" || prop === "getByName" || prop === "getExisting") return (...args: unknown[]) => talliedStub(call(...args), tally);
      if (prop === "jurisdiction") return (...args: unknown[]) => talliedNamespace(call(...args) as DurableObjectNamespace, tally);
      return call;
    },
  });
}

const has = (value: unknown, ...methods: string[]) =>
  typeof value === "object" && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === "function");

/** One binding, wrapped if it is a D1 database, a namespace, a bucket or a queue; anything else as it is. */
export function tallyBinding(value: unknown, tally: Tally): unknown {
  if (has(value, "prepare", "batch")) return talliedD1(value as D1Database, tally);
  if (has(value, "idFromName", "get")) return talliedNamespace(value as DurableObjectNamespace, tally);
  if (has(value, "createMultipartUpload", "resumeMultipartUpload", "head")) return talliedR2(value as R2Bucket, tally);
  if (has(value, "send", "sendBatch")) return talliedCalls(value as Queue, "queueSends", tally, new Set());
  return value;
}

/** The env with every binding reporting to `tally` (each wrapped once, when first read). */
export function tallyBindings<E extends object>(env: E, tally: Tally): E {
  const cache = new Map<PropertyKey, { value: unknown; wrapped: unknown }>();
  return new Proxy(env, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "object" || value === null) return value;
      const known = cache.get(prop);
      if (known && known.value === value) return known.wrapped;
      const wrapped = tallyBinding(value, tally);
      cache.set(prop, { value, wrapped });
      return wrapped;
    },
  });
}
