// One delivery pass of one endpoint: the plain module the WebhookSender Durable Object calls.
// It sends the endpoint's due events (the first pending one of each order, so events of one
// order go out in the order they happened), records each attempt's outcome before that event's
// next attempt can start, and answers when the endpoint has work again.
//
// Retries follow decisions 9: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h between eight
// attempts; a longer Retry-After (up to an hour) is waited out; a 410 disables the endpoint at
// once; an event failed for good disables it when the endpoint's last 5 events all failed.
// Redirects are not followed (a 3xx is a failure) and an attempt is cut off after 15 seconds.
// LastError is a short description: a redirect's Location without its query or credentials, a
// failure's text with every URL in it cut the same way, never a body (receiver-url.ts).
//
// A pass stops and hands over to the next alarm after 30 seconds, and before it would go past its
// invocation's share of Cloudflare's limits (src/lib/invocation-budget.ts): each attempt is a
// subrequest, each group of outcomes one D1 query, so a pass sends up to about 8,900 events.
import type { Db } from "../db/client";
import { InvocationBudget, type Cost } from "../lib/invocation-budget";
import { retryAfterMs, scheduledDelay, WEBHOOK_SCHEDULE_MS } from "../lib/retry";
import { safeErrorText, safeUrl } from "./receiver-url";
import { signedHeaders, signingSecrets } from "./signing";
import { dueDeliveries, lastFinishedStates, nextDueAt, recordAttempts, type AttemptOutcome, type DeliveryRow } from "./webhook-deliveries.queries";
import { disableWebhook, webhookById } from "./webhooks.queries";

/** The eighth attempt is the last (src/lib/retry.ts: the schedule). */
const MAX_ATTEMPTS = WEBHOOK_SCHEDULE_MS.length + 1;
const TIMEOUT_MS = 15_000;
/** Consecutive failed events after which the endpoint is disabled. */
const FAILED_IN_A_ROW = 5;
/** Due rows read per round trip, and attempts in flight at once (each of a different order). */
const ROUND = 100;
const CONCURRENCY = 32;
/**
 * The most one attempt can cost, counted before it starts: its POST, a share of a group write
 * (at most one each), and when it failed for good the check of the last five and the disabling.
 */
const ATTEMPT_COST: Cost = { d1Queries: 3, subrequests: 4 };
/** A round's reads (the endpoint, its due rows) and the pass's last one (the next due time). */
const ROUND_COST: Cost = { d1Queries: 2, subrequests: 2 };

export interface PassDeps {
  db: Db;
  env: Pick<Env, "SOURCE_SETTINGS_KEY">;
  fetch: typeof fetch;
  /** The scheduling clock: what is due, and when the next attempt is. */
  now: number;
  /** Wall time of an attempt (its webhook-timestamp); the scheduling clock in production too. */
  wallClock: () => number;
  /** A pass stops after this much wall time and hands over to the next alarm. */
  budgetMs?: number;
  /** What the pass may spend of its invocation (an object's share unless given). */
  budget?: InvocationBudget;
}

export interface PassResult {
  attempted: number;
  delivered: number;
  /** When the endpoint next has a due event; null when nothing is pending (or it is disabled or gone). */
  nextAt: number | null;
}

export async function runPass(webhookId: string, deps: PassDeps): Promise<PassResult> {
  const { db, now } = deps;
  const started = deps.wallClock();
  const budget = deps.budget ?? new InvocationBudget();
  const send = budget.fetch(deps.fetch);
  /** Whether `n` more attempts, and the pass's closing read, still fit in the invocation. */
  const room = (n: number) => budget.fits({ d1Queries: ATTEMPT_COST.d1Queries * n + 1, subrequests: ATTEMPT_COST.subrequests * n + 1 });
  const result: PassResult = { attempted: 0, delivered: 0, nextAt: null };
  for (;;) {
    if (!budget.fits({ d1Queries: ROUND_COST.d1Queries + ATTEMPT_COST.d1Queries + 1, subrequests: ROUND_COST.subrequests + ATTEMPT_COST.subrequests + 1 })) {
      // The next round goes on in the next invocation (the object's alarm, set for now).
      result.nextAt = now;
      return result;
    }
    budget.charge(ROUND_COST);
    const endpoint = await webhookById(db, webhookId);
    if (!endpoint?.enabled) return result;
    const secrets = await signingSecrets(deps.env, endpoint, now);
    const due = await dueDeliveries(db, webhookId, now, ROUND);
    if (due.length === 0) break;
    let disabled = false;
    let outOfBudget = false;
    let inFlight = 0;
    const queue = [...due];
    const record = groupCommit(db, now, budget);
    const worker = async () => {
      for (;;) {
        if (disabled || queue.length === 0) return;
        // Counted with every attempt under way, whose writes are not charged yet.
        if (!room(inFlight + 1)) {
          outOfBudget = true;
          return;
        }
        const row = queue.shift()!;
        inFlight += 1;
        try {
          const outcome = await attempt(endpoint.url, secrets, row, { ...deps, fetch: send });
          result.attempted += 1;
          if (outcome.state === "delivered") result.delivered += 1;
          // Written before anything else happens to this event: a pass cut off here repeats at most
          // the attempts in flight (sent, their outcome not yet written).
          await record(row.id, outcome);
          if (outcome.state === "failed" && outcome.statusCode === 410) {
            disabled = true;
            budget.charge({ d1Queries: 1, subrequests: 1 });
            await disableWebhook(db, webhookId, "The receiver answered 410 Gone.", now);
          } else if (outcome.state === "failed") {
            budget.charge({ d1Queries: 1, subrequests: 1 });
            if ((await lastFinishedStates(db, webhookId, FAILED_IN_A_ROW)).filter((s) => s === "failed").length === FAILED_IN_A_ROW) {
              disabled = true;
              budget.charge({ d1Queries: 1, subrequests: 1 });
              await disableWebhook(db, webhookId, `The last ${FAILED_IN_A_ROW} events failed after ${MAX_ATTEMPTS} attempts each.`, now);
            }
          }
        } finally {
          inFlight -= 1;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
    if (disabled) return result;
    if (outOfBudget || deps.wallClock() - started > (deps.budgetMs ?? 30_000)) {
      result.nextAt = now;
      return result;
    }
  }
  budget.charge({ d1Queries: 1, subrequests: 1 });
  result.nextAt = await nextDueAt(db, webhookId);
  return result;
}

/**
 * Records attempts as they finish, each write (one statement) carrying every outcome that
 * finished while the previous write was under way: one D1 round trip per outcome capped delivery
 * at the database's pace (about 150 events a second locally), not the receiver's.
 */
function groupCommit(db: Db, now: number, budget: InvocationBudget) {
  let waiting: { id: number; outcome: AttemptOutcome; done: (error?: unknown) => void }[] = [];
  let writing: Promise<void> = Promise.resolve();
  return (id: number, outcome: AttemptOutcome): Promise<void> => {
    const recorded = new Promise<void>((resolve, reject) => waiting.push({ id, outcome, done: (error) => (error ? reject(error) : resolve()) }));
    writing = writing.then(async () => {
      const batch = waiting;
      waiting = [];
      if (batch.length === 0) return;
      try {
        budget.charge({ d1Queries: 1, subrequests: 1 });
        await db.run(recordAttempts(batch, now));
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.done(error);
      }
    });
    return recorded;
  };
}

/** One POST of one event: its outcome as the row will record it. Never throws. */
async function attempt(url: string, secrets: string[], row: DeliveryRow, deps: PassDeps): Promise<AttemptOutcome> {
  const body = row.payload!;
  const attempts = row.attempts + 1;
  const failure = (statusCode: number | null, error: string, retryAfterMs: number | null = null): AttemptOutcome =>
    statusCode === 410 || attempts >= MAX_ATTEMPTS
      ? { state: "failed", statusCode, error }
      : { state: "retry", statusCode, error, nextAttemptAt: deps.now + scheduledDelay(WEBHOOK_SCHEDULE_MS, attempts, retryAfterMs) };
  // A timer cleared once the answer is in, not AbortSignal.timeout: that one's timer stays armed
  // for the full 15 s after the answer, and workerd refuses a timer beyond 10,000 active ones, so
  // a pass sending more than 10,000 events within 15 s failed every further attempt at once (a
  // backlog of 10,001 waited 5 s + 5 min for its last event).
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException("The attempt timed out.", "TimeoutError")), TIMEOUT_MS);
  let response: Response;
  try {
    response = await deps.fetch(url, {
      method: "POST",
      headers: { ...signedHeaders(secrets, row.eventId, new Date(deps.wallClock()), body), "content-type": "application/json" },
      body,
      redirect: "manual",
      signal: timeout.signal,
    });
    // The answer's body is not read: only the status counts, and an unread body holds the connection.
    await response.body?.cancel().catch(() => undefined);
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return failure(
      null,
      timedOut ? `No answer within ${TIMEOUT_MS / 1000} seconds.` : `The request failed: ${safeErrorText(String((error as Error)?.message ?? error))}`,
    );
  } finally {
    clearTimeout(timer);
  }
  const status = response.status;
  if (status >= 200 && status < 300) return { state: "delivered", statusCode: status };
  if (status >= 300 && status < 400) {
    const location = response.headers.get("location");
    // The Location as scheme, host and path only: its query or credentials may hold a session or a token.
    const target = location === null ? "(no Location)" : (safeUrl(location, url) ?? "(an unreadable Location)");
    return failure(status, `Redirect to ${target} not followed: give the endpoint's final URL.`);
  }
  if (status === 410) return failure(status, "410 Gone: the endpoint is disabled.");
  return failure(status, `The receiver answered ${status}.`, retryAfterMs(response.headers.get("retry-after"), new Date(deps.wallClock())));
}
