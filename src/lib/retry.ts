// The one retry policy of the hub: how long a wait may be, how Retry-After is read, and the two
// backoff schedules. Marketplace deliveries and listings back off exponentially (5 min doubling up
// to 6 h, decisions 6); webhook attempts follow the fixed schedule of decisions 9 (5 s ... 10 h).
// Whatever a marketplace or a receiver asks for, no wait is longer than an hour, and a header no
// one can read is a minute rather than no wait at all.

/** The longest wait any Retry-After, rate-limit reset or connector pacing buys (decisions 6 and 9). */
export const MAX_WAIT_MS = 60 * 60_000;
/** The wait of a Retry-After that is neither delta-seconds nor an HTTP date. */
export const UNREADABLE_RETRY_AFTER_MS = 60_000;

/** A wait asked for by someone else, held to 0..MAX_WAIT_MS (a Retry-After of 9e12 s is no date at all). */
export function cappedWait(ms: number | null): number {
  return ms === null || !(ms > 0) ? 0 : Math.min(ms, MAX_WAIT_MS);
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date, at most an hour; null when absent,
 * a minute when it cannot be read.
 */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null || header.trim() === "") return null;
  const value = header.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) ms = Number(value) * 1000;
  else {
    // An HTTP date starts with its day's name; anything else Date.parse might take ("-5") is not one.
    const at = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
    ms = Number.isNaN(at) ? UNREADABLE_RETRY_AFTER_MS : at - now.getTime();
  }
  if (Number.isNaN(ms)) ms = UNREADABLE_RETRY_AFTER_MS;
  return Math.round(Math.min(MAX_WAIT_MS, Math.max(0, ms)));
}

/** Marketplace deliveries and listings: 5, 10, 20 ... minutes after each failed attempt, at most 6 h. */
export const EXPONENTIAL_BACKOFF = { baseMs: 5 * 60_000, maxMs: 6 * 60 * 60_000 } as const;

/** The wait before attempt `attempts + 1` on the exponential schedule, never shorter than the wait asked for (itself at most an hour). */
export function exponentialDelay(attempts: number, askedMs: number | null): number {
  const backoff = Math.min(EXPONENTIAL_BACKOFF.maxMs, EXPONENTIAL_BACKOFF.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(backoff, cappedWait(askedMs));
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Webhook attempts (decisions 9): the wait after attempt n (1-based) before attempt n + 1; the eighth attempt is the last. */
export const WEBHOOK_SCHEDULE_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;

/** The wait before the next attempt after `attempts` failed ones on a fixed schedule, or a longer asked-for wait up to an hour. */
export function scheduledDelay(schedule: readonly number[], attempts: number, askedMs: number | null): number {
  const backoff = schedule[Math.min(Math.max(1, attempts), schedule.length) - 1]!;
  return Math.max(backoff, cappedWait(askedMs));
}
