// The leaky bucket as GCRA (virtual scheduling), in integer milliseconds. Pure: the Durable
// Object loads the state, calls this, and stores the result; tests drive it with explicit clocks.
//
// The state is one number, the theoretical arrival time (TAT): the moment the bucket would be
// empty again. Each admitted call moves it one emission interval T = 1000 / rate later. A call at
// `now` fits when the bucket, after it, holds at most `capacity` calls: TAT' - now <= capacity*T.

export interface BucketConfig {
  /** Calls the bucket holds (burst). */
  capacity: number;
  /** Calls drained per second. */
  ratePerSecond: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** The state to store (unchanged when refused: a refused call does not fill the bucket). */
  tat: number;
  /** Calls that could still be made at `now` without a refusal. */
  remaining: number;
  /** When refused: how long until this call would fit, in ms. */
  retryAfterMs: number;
}

export const DEFAULT_BUCKET: BucketConfig = { capacity: 50, ratePerSecond: 2 };

/** Rounded up, so that rounding can never admit more than the rate allows. */
export function emissionIntervalMs(config: BucketConfig): number {
  return Math.ceil(1000 / config.ratePerSecond);
}

export function decide(tat: number, now: number, config: BucketConfig): BucketDecision {
  const interval = emissionIntervalMs(config);
  const limit = config.capacity * interval;
  const start = Math.max(tat, now);
  const next = start + interval;
  if (next - now > limit) {
    return { allowed: false, tat, remaining: 0, retryAfterMs: next - now - limit };
  }
  return {
    allowed: true,
    tat: next,
    remaining: Math.floor((limit - (next - now)) / interval),
    retryAfterMs: 0,
  };
}
