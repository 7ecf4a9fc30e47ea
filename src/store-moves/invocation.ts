// What one invocation of the mover (an alarm, or an advance() call) spends of Cloudflare's
// per-invocation limits, counted as it goes: a Proxy over the Worker's env that counts each D1
// statement (each statement of a batch counts as one query, as Cloudflare counts them), each call
// to a Durable Object (a subrequest), and the largest value bound to a statement (production D1
// takes at most 2 MB a value). runMove stops starting steps before the next could cross a limit
// and hands over to the next alarm. Local workerd enforces none of these; this is how a move stays
// inside them in production (docs/sharding.md, "Bounded work").

/** Cloudflare's documented limits per invocation on the paid plan, and D1's per value. */
export const CLOUDFLARE_LIMITS = { d1Queries: 1_000, subrequests: 10_000, d1ValueBytes: 2_000_000 } as const;

export interface InvocationCount {
  d1Queries: number;
  subrequests: number;
  /** The largest value bound to any statement, in UTF-8 bytes. */
  largestValueBytes: number;
}

const encoder = new TextEncoder();

function valueBytes(value: unknown): number {
  if (typeof value === "string") return encoder.encode(value).byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  return 8;
}

const isD1 = (value: unknown): value is D1Database =>
  typeof value === "object" && value !== null && typeof (value as D1Database).prepare === "function" && typeof (value as D1Database).batch === "function";
const isNamespace = (value: unknown): value is DurableObjectNamespace =>
  typeof value === "object" && value !== null && typeof (value as DurableObjectNamespace).idFromName === "function";

/** An env whose D1 databases and Durable Object namespaces count what they are asked into `count`. */
export function countedEnv(env: Env, count: InvocationCount): Env {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(env, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (wrapped.has(name)) return wrapped.get(name);
      const made = isD1(value) ? countedD1(value, count) : isNamespace(value) ? countedNamespace(value, count) : undefined;
      if (made === undefined) return value;
      wrapped.set(name, made);
      return made;
    },
  });
}

function countedD1(d1: D1Database, count: InvocationCount): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>();
  const statement = (inner: D1PreparedStatement): D1PreparedStatement => {
    const outer: D1PreparedStatement = {
      bind: (...values: unknown[]) => {
        for (const value of values) count.largestValueBytes = Math.max(count.largestValueBytes, valueBytes(value));
        return statement(inner.bind(...values));
      },
      first: ((column?: string) => {
        count.d1Queries++;
        return column === undefined ? inner.first() : inner.first(column);
      }) as D1PreparedStatement["first"],
      run: (() => {
        count.d1Queries++;
        return inner.run();
      }) as D1PreparedStatement["run"],
      all: (() => {
        count.d1Queries++;
        return inner.all();
      }) as D1PreparedStatement["all"],
      raw: ((options?: { columnNames?: boolean }) => {
        count.d1Queries++;
        return inner.raw(options as { columnNames: true });
      }) as D1PreparedStatement["raw"],
    } as D1PreparedStatement;
    real.set(outer, inner);
    return outer;
  };
  return {
    prepare: (query: string) => statement(d1.prepare(query)),
    batch: ((statements: D1PreparedStatement[]) => {
      count.d1Queries += statements.length;
      return d1.batch(statements.map((s) => real.get(s) ?? s));
    }) as D1Database["batch"],
    exec: (query: string) => {
      count.d1Queries++;
      return d1.exec(query);
    },
    withSession: d1.withSession?.bind(d1),
    dump: d1.dump?.bind(d1),
  } as D1Database;
}

function countedNamespace(namespace: DurableObjectNamespace, count: InvocationCount): DurableObjectNamespace {
  const stub = (inner: DurableObjectStub): DurableObjectStub =>
    new Proxy(inner, {
      get(target, name) {
        const member = Reflect.get(target, name) as unknown;
        if (typeof member !== "function") return member;
        return (...args: unknown[]) => {
          count.subrequests++;
          // Reflect.apply: an RPC stub's members answer any property name, `apply` included.
          return Reflect.apply(member as (...a: unknown[]) => unknown, target, args);
        };
      },
    });
  return new Proxy(namespace, {
    get(target, name) {
      const member = Reflect.get(target, name) as unknown;
      if (name === "getByName" || name === "get") return (...args: unknown[]) => stub(Reflect.apply(member as (...a: unknown[]) => DurableObjectStub, target, args));
      return typeof member === "function" ? (...args: unknown[]) => Reflect.apply(member as (...a: unknown[]) => unknown, target, args) : member;
    },
  });
}
