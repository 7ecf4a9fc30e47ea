// Retry-After read the one way the hub reads it, for marketplace answers and webhook receivers
// alike: a wait is never longer than an hour (decisions 6 and 9), and a header no one can read
// is a minute rather than no wait at all.

/** The longest wait any Retry-After (or rate-limit reset) buys. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** The wait of a Retry-After that is neither delta-seconds nor an HTTP date. */
export const UNREADABLE_RETRY_AFTER_MS = 60_000;

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
  return Math.round(Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms)));
}
