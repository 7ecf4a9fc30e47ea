// How often the connector calls Mirakl. Pure: the connector keeps the times in the source's
// storage and asks these with its clock, so the pace holds across cycles.
//
// Mirakl states each operation's call frequency in its description ("Call Frequency":
// recommended and maximum usage) rather than as a rate limit; integrators' copies of Mirakl's
// notes add that calls over the limit answer 429 with Retry-After. The connector keeps to the
// recommended pace where the brief asks it (stock and price imports and their status checks:
// every 5 minutes) and to the maximum for the order list (once a minute: a new order should not
// wait 5 minutes for the hub when the seller syncs by hand).

/** The shortest time between two calls, per paced operation (ms). */
export const MIRAKL_PACES = {
  /** OR11 polls (a new import window): "Maximum usage: Asynchronous: once per minute". */
  OR11: 60_000,
  /** STO01 stock imports: "Recommended usage: Every 5 minutes when stock needs updating". */
  STO01: 5 * 60_000,
  /** OF24 offer updates: "Recommended usage: Every 5 minutes". */
  OF24: 5 * 60_000,
  /** STO02 / OF02 status of one import: "After each STO01 [OF01] call, every 5 minutes". */
  importStatus: 5 * 60_000,
} as const;

/**
 * How long until the next call may go (0: now), given when the last one went. A last call in
 * the future (a clock set back) counts as made now, so no wait is longer than the interval.
 */
export function paceWait(lastAt: number | undefined, now: number, intervalMs: number): number {
  if (lastAt === undefined || !Number.isFinite(lastAt)) return 0;
  return Math.max(0, Math.min(intervalMs, lastAt + intervalMs - now));
}
