// What one isolate holds of its keys' buckets: at most one lease per key (src/throttle/lease.ts),
// with the grant it was issued under, so that a key's calls are admitted here without a round
// trip to its RateLimiter until the lease is spent or expires. Plain state and arithmetic: the
// clock is passed in, and src/auth/authorize.ts makes the trips. A test can hold two books to play
// two isolates against one object.
//
// Conversions between clocks are conservative: a lease expires `ttlMs` after the request for it
// was SENT (never later than the object's expiry) and its admissions fall due counted from when
// the answer was RECEIVED (never earlier than the object's due times); a report gives the uses'
// fold relative to the moment the report is sent, which the object reads against its own clock
// (never earlier than the real uses).
import type { LeaseReport, LeaseTerms } from "./lease";

const US_PER_MS = 1000;

/** What a lease was issued under: the key's grant as the object held it, and its bucket. */
export interface LeaseGrant {
  storeId: string;
  shard: string;
  scopes: string[];
  writesHeldUntil?: number;
  /** The key's latest write's D1 bookmark on `shard` when the lease was issued (null: none). */
  bookmark: string | null;
  capacity: number;
  /** Seconds a full bucket takes to drain (RateLimit-Policy's w). */
  windowSeconds: number;
}

/** A lease report on the wire: the fold relative to when it is sent (µs), so the object can place it on its own clock. */
export interface WireReport {
  leaseId: string;
  used: number;
  foldRelUs: number | null;
}

export type LocalDecision =
  | { kind: "trip" }
  | {
      kind: "admit";
      grant: LeaseGrant;
      remaining: number;
      resetMs: number;
    }
  | {
      kind: "refuse";
      reason: "throttled" | "scope";
      grant: LeaseGrant;
      remaining: number;
      resetMs: number;
      retryAfterMs: number;
    };

interface Held {
  terms: LeaseTerms;
  grant: LeaseGrant;
  /** Local ms: when the request for it was sent (its life counts from then). */
  sentAt: number;
  /** Local µs: when its answer arrived (due times count from then). */
  receivedUs: number;
  used: number;
  /** GCRA fold of the uses from nothing, local µs (null: none yet). */
  foldUs: number | null;
  /** The bucket as this isolate judges it for headers: the object's judged TAT at issue plus the uses here, local µs. */
  shadowUs: number;
}

export class LeaseBook {
  readonly holder: string;
  private readonly held = new Map<string, Held>();
  /** The last lease's pace per key (admissions per ms), for the size of the next one. */
  private readonly pace = new Map<string, number>();

  constructor(holder: string = crypto.randomUUID()) {
    this.holder = holder;
  }

  /** Admit (or refuse) a call of `keyId` for `scope` at `now` (ms) from the lease held, or say a trip is needed. */
  admit(keyId: string, scope: string, now: number): LocalDecision {
    const held = this.held.get(keyId);
    if (!held || now >= held.sentAt + held.terms.ttlMs) return { kind: "trip" };
    const nowUs = now * US_PER_MS;
    const limitUs = held.grant.capacity * held.terms.intervalUs;
    const view = () => {
      const backlog = Math.max(0, held.shadowUs - nowUs);
      return { remaining: Math.max(0, Math.floor((limitUs - backlog) / held.terms.intervalUs)), resetMs: Math.ceil(backlog / US_PER_MS) };
    };
    // A missing scope is refused before the bucket, as the object does: it takes nothing.
    if (!held.grant.scopes.includes(scope)) return { kind: "refuse", reason: "scope", grant: held.grant, ...view(), retryAfterMs: 0 };
    if (held.used >= held.terms.count) return { kind: "trip" };
    const due = held.receivedUs + Math.max(0, held.terms.dueBaseUs + (held.used + 1) * held.terms.intervalUs);
    if (nowUs < due) {
      return {
        kind: "refuse",
        reason: "throttled",
        grant: held.grant,
        remaining: 0,
        resetMs: view().resetMs,
        retryAfterMs: Math.ceil((due - nowUs) / US_PER_MS),
      };
    }
    held.used += 1;
    held.foldUs = Math.max(held.foldUs ?? nowUs, nowUs) + held.terms.intervalUs;
    held.shadowUs = Math.max(held.shadowUs, nowUs) + held.terms.intervalUs;
    return { kind: "admit", grant: held.grant, ...view() };
  }

  /** Takes the key's lease out of the book and reports what it admitted, as of `now` (ms). */
  release(keyId: string, now: number): WireReport | undefined {
    const held = this.held.get(keyId);
    if (!held) return undefined;
    this.held.delete(keyId);
    const life = Math.max(1, Math.min(now, held.sentAt + held.terms.ttlMs) - held.sentAt);
    this.pace.set(keyId, held.used / life);
    return { leaseId: held.terms.id, used: held.used, foldRelUs: held.foldUs === null ? null : held.foldUs - now * US_PER_MS };
  }

  /** How many admissions to ask for: twice the last lease's pace over a lease's life, or as many as the object gives for a key not seen yet. */
  want(keyId: string, ttlMs: number): number {
    const pace = this.pace.get(keyId);
    if (pace === undefined) return Number.MAX_SAFE_INTEGER;
    return Math.max(2, Math.ceil(2 * pace * ttlMs));
  }

  /** Holds a lease the object issued, replacing any other of the key. */
  accept(keyId: string, terms: LeaseTerms, grant: LeaseGrant, sentAt: number, receivedAt: number): void {
    this.held.set(keyId, {
      terms,
      grant,
      sentAt,
      receivedUs: receivedAt * US_PER_MS,
      used: 0,
      foldUs: null,
      shadowUs: receivedAt * US_PER_MS + terms.shadowUs,
    });
  }

  /** After this isolate's write of the key: its reads here start at least there (the object is told on the same trip). */
  noteBookmark(keyId: string, shard: string, bookmark: string): void {
    const held = this.held.get(keyId);
    if (held && held.grant.shard === shard && (held.grant.bookmark === null || held.grant.bookmark < bookmark)) held.grant = { ...held.grant, bookmark };
  }

  /** The keys this book holds a lease of (tests and the benchmark). */
  keys(): string[] {
    return [...this.held.keys()];
  }
}

/** Report type the object settles with, from a wire report read against the object's clock (µs). */
export function reportAt(wire: WireReport, objectNowUs: number): LeaseReport {
  return { leaseId: wire.leaseId, used: wire.used, foldUs: wire.foldRelUs === null ? null : objectNowUs + wire.foldRelUs };
}

/**
 * This isolate's books, one per RateLimiter namespace (a lease is good only with the objects that
 * issued it; tests bind other namespaces). Weakly held, so a namespace object that goes away
 * takes its book with it.
 */
const books = new WeakMap<object, LeaseBook>();
const everyBook = new Set<WeakRef<LeaseBook>>();

export function bookFor(namespace: object): LeaseBook {
  let book = books.get(namespace);
  if (!book) {
    book = new LeaseBook();
    books.set(namespace, book);
    everyBook.add(new WeakRef(book));
  }
  return book;
}

/** Takes the key's lease out of every book of this isolate (a grant change made here hands them back with it). */
export function releaseEverywhere(keyId: string, now: number): WireReport[] {
  const reports: WireReport[] = [];
  for (const ref of everyBook) {
    const book = ref.deref();
    if (!book) {
      everyBook.delete(ref);
      continue;
    }
    const report = book.release(keyId, now);
    if (report) reports.push(report);
  }
  return reports;
}
