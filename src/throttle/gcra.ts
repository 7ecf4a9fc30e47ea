// The leaky bucket as GCRA (virtual scheduling). Pure: the Durable Object loads the state, calls
// this, and stores the result; tests drive it with explicit clocks.
//
// The state is one integer, the theoretical arrival time (TAT): the moment the bucket would be
// empty again. Each admitted call moves it one emission interval T = 1 / rate later. A call at
// `now` fits when the bucket, after it, holds at most `capacity` calls: TAT' - now <= capacity*T.
//
// Clocks are integer milliseconds (Date.now()); the TAT and T are integer MICROseconds. With T in
// whole milliseconds a rate of 3/s would drain 2.994/s and any rate above 1000/s would be capped
// at 1000/s; in microseconds the error is below one call per 10^6. T is rounded UP, so rounding
// can only ever admit fewer calls than capacity + rate x elapsed, never more. All values stay
// far below 2^53 for the rates the admin API accepts (>= 0.001/s), so the arithmetic is exact.

export interface BucketConfig {
  /** Calls the bucket holds (burst). */
  capacity: number;
  /** Calls drained per second. */
  ratePerSecond: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** The state to store, in µs (unchanged when refused: a refused call does not fill the bucket). */
  tat: number;
  /** Calls that could still be made at `now` without a refusal. */
  remaining: number;
  /** When refused: how long until this call would fit, in ms (rounded up). */
  retryAfterMs: number;
}

export const DEFAULT_BUCKET: BucketConfig = { capacity: 50, ratePerSecond: 2 };

const US_PER_MS = 1000;

/** T in µs, rounded up, so that rounding can never admit more than the rate allows. */
export function emissionIntervalUs(config: BucketConfig): number {
  return Math.ceil(1_000_000 / config.ratePerSecond);
}

/** Take one call from the bucket at `now` (ms), or refuse it and leave the state as it was. */
export function decide(tat: number, now: number, config: BucketConfig): BucketDecision {
  const interval = emissionIntervalUs(config);
  const limit = config.capacity * interval;
  const nowUs = now * US_PER_MS;
  const next = Math.max(tat, nowUs) + interval;
  if (next - nowUs > limit) {
    return { allowed: false, tat, remaining: 0, retryAfterMs: Math.ceil((next - nowUs - limit) / US_PER_MS) };
  }
  return { allowed: true, tat: next, remaining: Math.floor((limit - (next - nowUs)) / interval), retryAfterMs: 0 };
}

/** Calls that would be admitted at `now` without taking any (for headers of refused requests). */
export function remainingAt(tat: number, now: number, config: BucketConfig): number {
  const interval = emissionIntervalUs(config);
  const backlog = Math.max(0, tat - now * US_PER_MS);
  return Math.max(0, Math.floor((config.capacity * interval - backlog) / interval));
}

/**
 * The state under a new bucket configuration: the bucket keeps the number of calls it holds
 * (what a client has already spent), not its time-to-empty, and spills what no longer fits.
 * Without this a raised rate would lengthen the wait of a full bucket (a shorter T makes the
 * same backlog count as more calls) and a lowered one would hand out free calls.
 */
export function rebase(tat: number, now: number, from: BucketConfig, to: BucketConfig): number {
  const nowUs = now * US_PER_MS;
  if (tat <= nowUs) return tat;
  const held = Math.min((tat - nowUs) / emissionIntervalUs(from), to.capacity);
  return nowUs + Math.ceil(held * emissionIntervalUs(to));
}

export function sameBucket(a: BucketConfig, b: BucketConfig): boolean {
  return a.capacity === b.capacity && a.ratePerSecond === b.ratePerSecond;
}
