// How fast the connector may call Etsy. Pure: the connector keeps the state, passes its clock
// and sleeps for what these answer.
//
// Etsy meters each application per second and per 24 hours (reference README: new apps get 10/s
// and 10,000/day) and says where it stands in every answer: x-limit-per-second,
// x-remaining-this-second, x-limit-per-day, x-remaining-today. The limit is the application's,
// shared by every shop (source) that uses the same keystring, so the answers, not a count of our
// own calls, are the truth. Two rules keep a cycle clear of 429s: calls are spaced evenly at the
// per-second limit, and when an answer says nothing is left this second the next call waits for
// the next second. Calls for the day are kept back for deliveries: an import stops while fewer
// than a reserve are left, so a shipment still goes out.

export interface EtsyPace {
  limitPerSecond: number;
  /** What the last answer said is left; null before any answer said. */
  remainingThisSecond: number | null;
  remainingToday: number | null;
  /** When that answer arrived (ms). */
  answeredAt: number;
  /** When the last call was sent (ms). */
  sentAt: number;
}

/** What a connector assumes before Etsy has said anything (the guides' figure for new apps). */
export function initialPace(): EtsyPace {
  return { limitPerSecond: 10, remainingThisSecond: null, remainingToday: null, answeredAt: Number.NEGATIVE_INFINITY, sentAt: Number.NEGATIVE_INFINITY };
}

export type PaceDecision = { waitMs: number } | { exhausted: true };

/**
 * How long to wait before the next call at `now` (ms); `exhausted` when the day's calls left are
 * at or below `reserve` (0 for a delivery: it may take the last one).
 */
export function waitBeforeCall(pace: EtsyPace, now: number, reserve: number): PaceDecision {
  if (pace.remainingToday !== null && pace.remainingToday <= reserve) return { exhausted: true };
  const spaced = pace.sentAt + 1000 / pace.limitPerSecond;
  const nextSecond = pace.remainingThisSecond !== null && pace.remainingThisSecond <= 0 ? pace.answeredAt + 1000 : Number.NEGATIVE_INFINITY;
  return { waitMs: Math.max(0, Math.ceil(Math.max(spaced, nextSecond) - now)) };
}

/** The state once a call is sent at `now`: what is left goes down by one until the answer says. */
export function callSent(pace: EtsyPace, now: number): EtsyPace {
  return {
    ...pace,
    sentAt: now,
    remainingThisSecond: pace.remainingThisSecond === null ? null : pace.remainingThisSecond - 1,
    remainingToday: pace.remainingToday === null ? null : pace.remainingToday - 1,
  };
}

/** A count header: a non-negative integer, else null (absent or unreadable). */
function count(header: string | null): number | null {
  if (header === null || !/^\s*\d{1,9}\s*$/.test(header)) return null;
  return Number(header.trim());
}

/** The state after an answer at `now`, from its rate-limit headers (those it lacks keep their value). */
export function answerReceived(pace: EtsyPace, now: number, headers: Headers): EtsyPace {
  const limit = count(headers.get("x-limit-per-second"));
  const second = count(headers.get("x-remaining-this-second"));
  const today = count(headers.get("x-remaining-today"));
  return {
    limitPerSecond: limit !== null && limit > 0 ? limit : pace.limitPerSecond,
    remainingThisSecond: second ?? pace.remainingThisSecond,
    remainingToday: today ?? pace.remainingToday,
    answeredAt: second !== null || today !== null ? now : pace.answeredAt,
    sentAt: pace.sentAt,
  };
}
