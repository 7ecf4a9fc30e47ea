// A key's bucket as its RateLimiter object keeps it once isolates hold leases: the settled GCRA
// state, the leases outstanding, and the decisions that read or change them. Pure: the object
// loads the state, calls these with its clock, and stores the result; tests drive them with
// explicit clocks (docs/throttle-leases.md explains the design and its bounds).
//
// A lease is `count` admissions an isolate may make without asking the object, none after the
// lease's expiry, the i-th not before its due time. While outstanding it counts as if every one of
// its admissions had been made at its expiry (the latest moment the holder may use one), and it is
// granted only where that keeps the bucket exact:
//   - the state an admission is judged against is the settled TAT with each outstanding lease
//     folded in at its expiry (virtualTat): never below the true TAT of the calls really made;
//   - a lease's i-th admission is due once the bucket, judged so, holds it (dueTimes): a client
//     calling as fast as the bucket allows is admitted at the same moments as by the object;
//   - a returned lease is replaced by the fold of the uses it really made (settle), so unused
//     admissions go back to the bucket; a lease never returned is counted fully used at its
//     expiry once RETURN_GRACE_MS has passed (expireUnreturned).
// GCRA's fold over calls at times t_1..t_k from a state S has the closed form
// max(S + k·T, F) with F the same fold started from nothing; a holder keeps F as it admits, so a
// lease of any size is settled with two numbers.
import { type BucketConfig, emissionIntervalUs } from "./gcra";

const US_PER_MS = 1000;

/** The longest lease (ms): also the longest a grant change or another isolate's write waits for leases held elsewhere. */
export const LEASE_MS = 6_000;
/** How long after its expiry a lease's record waits for its holder's report before it counts as fully used. */
export const RETURN_GRACE_MS = 6_000;

export interface LeaseRecord {
  id: string;
  /** The isolate (lease book) holding it. */
  holder: string;
  count: number;
  /** Object clock, ms: no admission from it at or after this moment. */
  expiresAt: number;
  /** Set when a grant change (or another isolate's write) must wait for this lease to end. */
  revoked?: boolean;
}

export interface BucketState {
  /** Settled GCRA theoretical arrival time, µs: direct admissions and returned leases' real uses. */
  tat: number;
  leases: LeaseRecord[];
}

/** How long a lease of this bucket lasts and how many admissions it may hold at most. */
export function leaseShape(config: BucketConfig): { ms: number; cap: number } {
  const interval = emissionIntervalUs(config);
  // Never longer than half the time a full bucket takes to drain, so the lease's wait for its
  // expiry (see grantLease) costs at most half the bucket.
  const ms = Math.min(LEASE_MS, Math.floor((config.capacity * interval) / 2 / US_PER_MS));
  const cap = Math.min(Math.floor((ms * US_PER_MS) / interval), Math.floor(config.capacity / 2));
  return { ms, cap: Math.max(0, cap) };
}

/** The TAT an admission is judged against: settled, with every outstanding lease counted fully used at its expiry. */
export function virtualTat(state: BucketState, config: BucketConfig): number {
  const interval = emissionIntervalUs(config);
  let tat = state.tat;
  for (const lease of [...state.leases].sort((a, b) => a.expiresAt - b.expiresAt)) {
    tat = Math.max(tat, lease.expiresAt * US_PER_MS) + lease.count * interval;
  }
  return tat;
}

/** A lease's holder reports it: `used` admissions whose own fold (from nothing) ended at `foldUs` on the object's clock (null: none used). */
export interface LeaseReport {
  leaseId: string;
  used: number;
  foldUs: number | null;
}

/**
 * The lease replaced by what it really admitted. A report of a lease already settled or counted
 * (a late or repeated one) changes nothing. A report never claims more than the lease held.
 */
export function settle(state: BucketState, report: LeaseReport, config: BucketConfig): BucketState {
  const lease = state.leases.find((l) => l.id === report.leaseId);
  if (!lease) return state;
  const leases = state.leases.filter((l) => l !== lease);
  const used = Math.min(Math.max(0, Math.floor(report.used)), lease.count);
  if (used === 0 || report.foldUs === null) return { tat: state.tat, leases };
  const interval = emissionIntervalUs(config);
  // The holder's fold is bounded by the expiry's: max(S, e) + used·T (no use at or after e).
  const fold = Math.min(report.foldUs, lease.expiresAt * US_PER_MS + used * interval);
  return { tat: Math.max(state.tat + used * interval, fold), leases };
}

/** Leases whose holder did not report within RETURN_GRACE_MS of their expiry count as fully used at their expiry. */
export function expireUnreturned(state: BucketState, now: number, config: BucketConfig): BucketState {
  const stale = state.leases.filter((l) => l.expiresAt + RETURN_GRACE_MS <= now);
  if (stale.length === 0) return state;
  const interval = emissionIntervalUs(config);
  let tat = state.tat;
  for (const lease of stale.sort((a, b) => a.expiresAt - b.expiresAt)) tat = Math.max(tat, lease.expiresAt * US_PER_MS) + lease.count * interval;
  return { tat, leases: state.leases.filter((l) => !stale.includes(l)) };
}

export interface Direct {
  allowed: boolean;
  state: BucketState;
  /** Calls that could still be made now (the judged state). */
  remaining: number;
  /** µs until the judged bucket is empty again. */
  resetUs: number;
  retryAfterMs: number;
}

/** One call admitted by the object itself at `now` (ms), judged with every outstanding lease counted. */
export function admitDirect(state: BucketState, now: number, config: BucketConfig): Direct {
  const interval = emissionIntervalUs(config);
  const limit = config.capacity * interval;
  const nowUs = now * US_PER_MS;
  const judged = virtualTat(state, config);
  const next = Math.max(judged, nowUs) + interval;
  if (next - nowUs > limit) {
    const backlog = Math.max(0, judged - nowUs);
    return {
      allowed: false,
      state,
      remaining: Math.max(0, Math.floor((limit - backlog) / interval)),
      resetUs: backlog,
      retryAfterMs: Math.ceil((next - nowUs - limit) / US_PER_MS),
    };
  }
  return {
    allowed: true,
    state: { tat: Math.max(state.tat, nowUs) + interval, leases: state.leases },
    remaining: Math.floor((limit - (next - nowUs)) / interval),
    resetUs: next - nowUs,
    retryAfterMs: 0,
  };
}

/** The bucket as judged at `now`, without taking from it: what headers of a call that took nothing show. */
export function peek(state: BucketState, now: number, config: BucketConfig): { remaining: number; resetUs: number } {
  const interval = emissionIntervalUs(config);
  const backlog = Math.max(0, virtualTat(state, config) - now * US_PER_MS);
  return { remaining: Math.max(0, Math.floor((config.capacity * interval - backlog) / interval)), resetUs: backlog };
}

export interface LeaseTerms {
  id: string;
  count: number;
  /** How long it lasts, from the moment the holder sent its request. */
  ttlMs: number;
  /** The i-th admission (1-based) is due at receipt + max(0, dueBaseUs + i·intervalUs). */
  dueBaseUs: number;
  intervalUs: number;
  /** The judged TAT without this lease, relative to now (µs): the holder's starting point for exact headers. */
  shadowUs: number;
}

/**
 * A lease of at most `want` admissions for `holder` at `now`, or null when none fits before it
 * would expire. Its admissions are booked at its expiry; the i-th is due when the bucket so judged
 * holds it, so no window sees more than capacity + rate × elapsed, whatever the holders do.
 */
export function grantLease(
  state: BucketState,
  now: number,
  config: BucketConfig,
  holder: string,
  want: number,
  id: string,
): { state: BucketState; terms: LeaseTerms } | null {
  const shape = leaseShape(config);
  if (shape.cap < 1 || want < 1) return null;
  const interval = emissionIntervalUs(config);
  const limit = config.capacity * interval;
  const nowUs = now * US_PER_MS;
  const expiresAt = now + shape.ms;
  const judged = virtualTat(state, config);
  const base = Math.max(judged, expiresAt * US_PER_MS);
  // The n-th is due at base + n·T - limit, which must come before the expiry.
  const fits = Math.floor((expiresAt * US_PER_MS - 1 - base + limit) / interval);
  const count = Math.min(Math.floor(want), shape.cap, fits);
  if (count < 1) return null;
  const lease: LeaseRecord = { id, holder, count, expiresAt };
  return {
    state: { tat: state.tat, leases: [...state.leases, lease] },
    terms: { id, count, ttlMs: shape.ms, dueBaseUs: base - limit - nowUs, intervalUs: interval, shadowUs: judged - nowUs },
  };
}

/** Marks the leases that `which` selects as revoked: a change then waits until each is reported or expired. */
export function revoke(state: BucketState, which: (lease: LeaseRecord) => boolean): BucketState {
  return { tat: state.tat, leases: state.leases.map((l) => (which(l) ? { ...l, revoked: true } : l)) };
}

/** When the last revoked lease still able to admit expires (ms), or null when none is. */
export function revokedUntil(state: BucketState, now: number): number | null {
  let until: number | null = null;
  for (const lease of state.leases) {
    if (lease.revoked && lease.expiresAt > now) until = Math.max(until ?? 0, lease.expiresAt);
  }
  return until;
}

export interface TripStep {
  /** Take one call now. */
  admit: boolean;
  /** Issue a lease if one fits (false: the key may not have one now). */
  lease: boolean;
  holder: string;
  want: number;
  leaseId: string;
  report?: LeaseReport;
}

/**
 * One round trip as the object runs it, in order: leases long expired and never reported counted
 * as used, the holder's report settled, the call taken, a new lease issued.
 */
export function trip(
  state: BucketState,
  now: number,
  config: BucketConfig,
  step: TripStep,
): { state: BucketState; direct: Direct | null; terms: LeaseTerms | null } {
  let next = expireUnreturned(state, now, config);
  if (step.report) next = settle(next, step.report, config);
  let direct: Direct | null = null;
  if (step.admit) {
    direct = admitDirect(next, now, config);
    next = direct.state;
  }
  let terms: LeaseTerms | null = null;
  if (step.lease) {
    const issued = grantLease(next, now, config, step.holder, step.want, step.leaseId);
    if (issued) {
      next = issued.state;
      terms = issued.terms;
    }
  }
  return { state: next, direct, terms };
}
