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
// the error. The entry that installs it for the whole suite: test/setup/metered-entry.ts. The
// bindings report through src/lib/binding-tally.ts, a wrapper production code can count with too.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import { CLOUDFLARE_LIMITS, tallyBindings, type Tally } from "../../src/lib/binding-tally";
import { OUTBOUND_CHANNEL } from "../../src/lib/outbound";

export const LIMITS = {
  d1Queries: CLOUDFLARE_LIMITS.d1Queries,
  subrequests: CLOUDFLARE_LIMITS.subrequests,
  valueBytes: CLOUDFLARE_LIMITS.d1ValueBytes,
  statementBytes: CLOUDFLARE_LIMITS.d1StatementBytes,
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
  const record: Invocation = {
    label,
    seq: ++seq,
    d1Queries: 0,
    subrequests: 0,
    d1Calls: 0,
    fetches: 0,
    objectCalls: 0,
    r2Calls: 0,
    queueSends: 0,
    largestValue: 0,
    owner,
  };
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

/**
 * A line of figures for invocations (a job's parts): how many, the most D1 queries and
 * subrequests one of them spent, and the totals. Large scenarios log it for docs/performance.md.
 */
export function figures(parts: Invocation[]): string {
  const most = (key: "d1Queries" | "subrequests") => Math.max(0, ...parts.map((p) => p[key]));
  const total = (key: "d1Queries" | "subrequests") => parts.reduce((n, p) => n + p[key], 0);
  return (
    `${parts.length} invocations; per invocation at most ${most("d1Queries")} D1 queries, ${most("subrequests")} subrequests; in all ` +
    `${total("d1Queries")} D1 queries, ${total("subrequests")} subrequests`
  );
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
  if (record.d1Queries > LIMITS.d1Queries)
    violate(record, `D1 queries ${record.d1Queries} > ${LIMITS.d1Queries} in one invocation (Too many API requests by single Worker invocation)`);
  if (record.subrequests > LIMITS.subrequests)
    violate(record, `subrequests ${record.subrequests} > ${LIMITS.subrequests} in one invocation (Too many subrequests)`);
}

subscribe(OUTBOUND_CHANNEL, () => charge("fetches"));

/** A bound value's size: over D1's largest, the invocation fails as production's would. */
function checkValue(bytes: number): void {
  const record = scope.getStore();
  if (!record) return;
  record.largestValue = Math.max(record.largestValue, bytes);
  if (bytes > LIMITS.valueBytes) violate(record, `a bound value of ${bytes} bytes > ${LIMITS.valueBytes} (D1's largest string or BLOB)`);
}

const encoder = new TextEncoder();
function checkSql(sql: string): void {
  const record = scope.getStore();
  if (record && sql.length > LIMITS.statementBytes / 3 && encoder.encode(sql).length > LIMITS.statementBytes) {
    violate(record, `a statement of ${encoder.encode(sql).length} bytes of SQL > ${LIMITS.statementBytes}`);
  }
}

/** What the bindings report (src/lib/binding-tally.ts), charged to the current invocation. */
const TALLY: Tally = {
  d1: (queries) => charge("d1Calls", queries),
  sql: checkSql,
  value: checkValue,
  call: (kind) => charge(kind),
};

const metered = new WeakMap<object, object>();

/** The env with every binding wrapped, so that what an invocation does with them is charged to it. */
export function meterEnv<E extends object>(env: E): E {
  const known = metered.get(env);
  if (known) return known as E;
  const proxy = tallyBindings(env, TALLY);
  metered.set(env, proxy);
  return proxy;
}
