// How fast the connector may call each Selling Partner operation. Pure: the connector loads the
// state from the source's SourceStorage, calls these with its clock and stores the result, so
// the pace holds across cycles (Amazon's bucket does not refill because a cycle ended).
//
// Amazon meters every operation with a token bucket per seller and application (the usage plan
// in each operation's description: rate per second and burst). That is the leaky bucket of
// src/throttle/gcra.ts seen from the other side: a call spends one token; GCRA's "bucket full"
// is Amazon's "no token left". The models' plans are the defaults; an answer's
// x-amzn-RateLimit-Limit header says the rate Amazon actually applies to this seller, and a 429
// says the bucket is empty whatever this side believed.
import { decide, emissionIntervalUs, rebase, type BucketConfig } from "../../throttle/gcra";

export type AmazonOperation =
  | "searchOrders"
  | "confirmShipment"
  | "createFeedDocument"
  | "createFeed"
  | "getFeed"
  | "getFeedDocument"
  | "patchListingsItem"
  | "createReport"
  | "getReport"
  | "getReportDocument";

/** The usage plans the models state (rate per second, burst). */
export const USAGE_PLANS: Record<AmazonOperation, BucketConfig> = {
  searchOrders: { ratePerSecond: 0.0056, capacity: 20 },
  confirmShipment: { ratePerSecond: 2, capacity: 10 },
  createFeedDocument: { ratePerSecond: 0.5, capacity: 15 },
  createFeed: { ratePerSecond: 0.0083, capacity: 15 },
  getFeed: { ratePerSecond: 2, capacity: 15 },
  getFeedDocument: { ratePerSecond: 0.0222, capacity: 10 },
  patchListingsItem: { ratePerSecond: 5, capacity: 5 },
  createReport: { ratePerSecond: 0.0167, capacity: 15 },
  getReport: { ratePerSecond: 2, capacity: 15 },
  getReportDocument: { ratePerSecond: 0.0167, capacity: 15 },
};

export interface PaceState {
  /** GCRA's theoretical arrival time in µs: when this side believes Amazon's bucket is full again. */
  tat: number;
  /** The rate in force: the plan's, or the last x-amzn-RateLimit-Limit Amazon sent. */
  ratePerSecond: number;
}

export interface PaceDecision {
  allowed: boolean;
  /** What to store: the call taken when allowed, unchanged when not. */
  state: PaceState;
  /** When not allowed: how long until a call fits, in ms. */
  waitMs: number;
}

function configOf(state: PaceState | undefined, plan: BucketConfig): BucketConfig {
  return { capacity: plan.capacity, ratePerSecond: state?.ratePerSecond ?? plan.ratePerSecond };
}

/** Take one call of an operation at `now` (ms), or say how long until one fits. */
export function takeCall(state: PaceState | undefined, now: number, plan: BucketConfig): PaceDecision {
  const config = configOf(state, plan);
  const d = decide(state?.tat ?? 0, now, config);
  return { allowed: d.allowed, state: { tat: d.tat, ratePerSecond: config.ratePerSecond }, waitMs: d.retryAfterMs };
}

/** The rate an x-amzn-RateLimit-Limit header states, or null when absent or unreadable. */
export function rateFromHeader(header: string | null): number | null {
  if (header === null) return null;
  const rate = Number(header.trim());
  // At least the admin API's own floor of the limiter (one call in 1,000 s): anything smaller is garbage.
  return header.trim() !== "" && Number.isFinite(rate) && rate >= 0.001 && rate <= 1000 ? rate : null;
}

/**
 * The state after Amazon answered a call: the rate it states replaces the believed one (the
 * calls already spent are kept, see gcra.rebase), and a 429 empties the bucket.
 */
export function afterAnswer(state: PaceState, now: number, plan: BucketConfig, answer: { status: number; rateLimitHeader: string | null }): PaceState {
  let next = state;
  const stated = rateFromHeader(answer.rateLimitHeader);
  if (stated !== null && stated !== state.ratePerSecond) {
    const from = configOf(state, plan);
    const to = { capacity: plan.capacity, ratePerSecond: stated };
    next = { tat: rebase(state.tat, now, from, to), ratePerSecond: stated };
  }
  if (answer.status === 429) {
    const full = now * 1000 + plan.capacity * emissionIntervalUs(configOf(next, plan));
    next = { ...next, tat: Math.max(next.tat, full) };
  }
  return next;
}

/** How long after a 429 one token is back: one emission interval of the rate in force, in ms. */
export function refillMs(state: PaceState | undefined, plan: BucketConfig): number {
  return Math.ceil(emissionIntervalUs(configOf(state, plan)) / 1000);
}
