// The push of one source's cycle (decisions 11): plan what changed in the catalog since the source
// last planned, then send the pending Skus in the marketplace's largest batches, at most as many
// pushes as its rate limit allows in a cycle. As in delivery (src/sync/delivery.ts), each push's
// outcome is written before the next push is made: a cycle cut off at any point repeats at most
// the push in flight, and its values are absolute, so the repeat is harmless. A value the
// marketplace accepted is never sent again unless it changes. A marketplace with a bulk route
// answered later (Walmart's feeds) takes a cycle's many due Skus as one submission: they are
// recorded submitted with its reference, and later cycles ask for the outcome (checkSubmissions).
// Every plan statement, check and push is first held against the invocation's share of
// Cloudflare's limits (src/lib/invocation-budget.ts); what does not fit goes on in the source's
// next invocation, within the same cycle's allowance of plans and pushes.
import type { Cost, InvocationBudget } from "../lib/invocation-budget";
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingsSubmission, type ListingUpdate } from "../marketplaces/connector";
import {
  dueListings,
  openSubmissions,
  planCursor,
  planListings,
  PLAN_ROWS,
  recordOutcomes,
  recordSubmitted,
  submittedListings,
  type DueListing,
  type RecordedOutcome,
} from "../stock/listings.queries";

/** Plan statements one cycle runs at most (the rest is planned by the next cycle). */
export const MAX_PLAN_STATEMENTS = 40;
/** A plan step (the plan statement, then where it stands) and a push before any was measured (its due read, the call, its record). */
const PLAN_COST: Cost = { d1Queries: 2, subrequests: 2 };
const FIRST_PUSH_COST: Cost = { d1Queries: 2, subrequests: 3 };
/** Open submissions a cycle asks about (oldest first); Walmart processes a feed in 15-30 minutes. */
const CHECKS_PER_CYCLE = 5;
/** A submission unanswered this long is sent again, as delivery does with a submitted row. */
const SUBMISSION_TIMEOUT_MS = 24 * 60 * 60_000;

export interface PushResult {
  /** Catalog changes copied into the source's listings. */
  planned: number;
  /** Skus sent, and what became of them. */
  sent: number;
  accepted: number;
  unknownSku: number;
  refused: number;
  retrying: number;
  /** Skus sent in a submission whose outcome comes later. */
  submitted: number;
  pushes: number;
  /** Plan statements run. */
  plans: number;
  /** The invocation's share ran out first: the rest goes on in the next invocation. */
  outOfBudget: boolean;
  /** Set when a whole push failed (the marketplace down, throttling, refusing the credentials): the cycle stopped there. */
  stoppedBy: MarketplaceError | null;
}

const DEFAULT_CURRENCY = "USD";

export interface PushOptions {
  budget?: InvocationBudget;
  /** What is left of the cycle's allowance (an invocation that goes on with a cycle has less). */
  plans?: number;
  pushes?: number;
}

export async function pushListings(
  d1: D1Database,
  source: { id: string; storeId: string },
  push: ListingsPush,
  now: number,
  options: PushOptions = {},
): Promise<PushResult> {
  const result: PushResult = {
    planned: 0,
    sent: 0,
    accepted: 0,
    unknownSku: 0,
    refused: 0,
    retrying: 0,
    submitted: 0,
    pushes: 0,
    plans: 0,
    outOfBudget: false,
    stoppedBy: null,
  };
  const budget = options.budget;
  /** Whether work of `cost` still fits in the invocation; says so in the result when not. */
  const room = (cost: Cost) => {
    if (!budget || budget.fits(cost)) return true;
    result.outOfBudget = true;
    return false;
  };
  const plans = options.plans ?? MAX_PLAN_STATEMENTS;
  if (plans > 0 && room(PLAN_COST)) {
    let cursor = await planCursor(d1, source.id);
    while (result.plans < plans && room(PLAN_COST)) {
      result.plans += 1;
      const planned = await planListings(d1, source, cursor, PLAN_ROWS, now);
      result.planned += planned;
      if (planned < PLAN_ROWS) break;
      cursor = await planCursor(d1, source.id);
    }
  }
  if (result.outOfBudget) return result;

  const pushes = options.pushes ?? push.pushesPerCycle;
  if (push.submission) {
    if (!room({ d1Queries: 2 * CHECKS_PER_CYCLE + 3, subrequests: 4 * CHECKS_PER_CYCLE + 6 })) return result;
    await checkSubmissions(d1, source.id, push.submission, now, result);
    if (result.stoppedBy) return result;
    if (pushes < 1) return result;
    const due = await dueListings(d1, source.id, now, push.submission.size);
    if (due.length > push.submission.threshold) {
      await submit(d1, source.id, push.submission, due, now, result);
      return result;
    }
    // Submissions only (no push call at all): nothing more this cycle.
    if (push.pushesPerCycle === 0) return result;
  }

  const units = budget?.units(FIRST_PUSH_COST);
  while (result.pushes < pushes) {
    if (units && !units.fits()) {
      result.outOfBudget = true;
      break;
    }
    const started = units?.begin();
    try {
      const due = await dueListings(d1, source.id, now, push.batchSize);
      if (due.length === 0) break;
      const updates: ListingUpdate[] = [];
      const nothingToSend: RecordedOutcome[] = [];
      for (const row of due) {
        const update = toUpdate(row);
        if (update) updates.push(update);
        // Pending but equal to what was accepted (a plan raced a record): settled without a call.
        else nothingToSend.push({ sku: row.sku, state: "accepted", quantity: null, price: null, message: null });
      }
      if (updates.length === 0) {
        await recordOutcomes(d1, source.id, nothingToSend, now).run();
        continue;
      }
      result.pushes += 1;
      let outcomes: Map<string, ListingOutcome>;
      try {
        outcomes = await push.push(updates);
      } catch (error) {
        const failure = error instanceof MarketplaceError ? error : new MarketplaceError(error instanceof Error ? error.message : String(error), null, true);
        // Not the Skus' fault: each is tried again later, and the cycle stops asking.
        const retry = updates.map(
          (u): RecordedOutcome => ({ sku: u.sku, state: "retry", quantity: null, price: null, message: failure.message.slice(0, 500) }),
        );
        await recordOutcomes(d1, source.id, [...retry, ...nothingToSend], now).run();
        result.retrying += updates.length;
        result.stoppedBy = failure;
        break;
      }
      const recorded = updates.map((u) => recorded$(u, outcomes.get(u.sku)));
      await recordOutcomes(d1, source.id, [...recorded, ...nothingToSend], now).run();
      result.sent += updates.length;
      for (const r of recorded) {
        if (r.state === "retry") result.retrying += 1;
        else result[r.state] += 1;
      }
      const failure = [...outcomes.values()].find((o) => o.state === "retry" && o.error);
      if (failure?.state === "retry" && failure.error) {
        result.stoppedBy = failure.error;
        break;
      }
    } finally {
      if (started) units!.end(started);
    }
  }
  return result;
}

/**
 * Asks about the open submissions, oldest first, and records each Sku's outcome once the
 * marketplace has one. One still processing after a day (or unanswerable that long) is sent
 * again. A failed check stops the cycle's push: the marketplace is down or throttling.
 */
async function checkSubmissions(d1: D1Database, sourceId: string, submission: ListingsSubmission, now: number, result: PushResult): Promise<void> {
  for (const open of await openSubmissions(d1, sourceId, CHECKS_PER_CYCLE)) {
    const stale = now - open.submittedAt >= SUBMISSION_TIMEOUT_MS;
    const rows = await submittedListings(d1, sourceId, open.reference);
    let outcomes: Map<string, ListingOutcome> | null = null;
    let failure: MarketplaceError | null = null;
    try {
      outcomes = await submission.check(
        open.reference,
        rows.map((r) => r.sku),
      );
    } catch (error) {
      failure = error instanceof MarketplaceError ? error : new MarketplaceError(error instanceof Error ? error.message : String(error), null, true);
    }
    if (!outcomes && !stale) {
      if (failure) {
        result.stoppedBy = failure;
        return;
      }
      continue;
    }
    const recorded = outcomes
      ? rows.map((r) => recorded$({ sku: r.sku, quantity: r.quantity, price: r.price, currency: "" }, outcomes.get(r.sku)))
      : rows.map(
          (r): RecordedOutcome => ({
            sku: r.sku,
            state: "retry",
            quantity: null,
            price: null,
            message: `No outcome for submission ${open.reference} within a day${failure ? ` (${failure.message})` : ""}: sent again.`.slice(0, 500),
          }),
        );
    await recordOutcomes(d1, sourceId, recorded, now).run();
    for (const r of recorded) {
      if (r.state === "retry") result.retrying += 1;
      else result[r.state] += 1;
    }
    if (failure) {
      result.stoppedBy = failure;
      return;
    }
  }
}

/** Sends up to `submission.size` due Skus as one submission and records them submitted before anything else. */
async function submit(d1: D1Database, sourceId: string, submission: ListingsSubmission, due: DueListing[], now: number, result: PushResult): Promise<void> {
  const updates: ListingUpdate[] = [];
  const settled: RecordedOutcome[] = [];
  for (const row of due) {
    const update = toUpdate(row);
    if (update) updates.push(update);
    else settled.push({ sku: row.sku, state: "accepted", quantity: null, price: null, message: null });
  }
  if (updates.length === 0) {
    await recordOutcomes(d1, sourceId, settled, now).run();
    return;
  }
  result.pushes += 1;
  let answer: Awaited<ReturnType<ListingsSubmission["submit"]>>;
  try {
    answer = await submission.submit(updates);
  } catch (error) {
    const failure = error instanceof MarketplaceError ? error : new MarketplaceError(error instanceof Error ? error.message : String(error), null, true);
    const retry = updates.map((u): RecordedOutcome => ({ sku: u.sku, state: "retry", quantity: null, price: null, message: failure.message.slice(0, 500) }));
    await recordOutcomes(d1, sourceId, [...retry, ...settled], now).run();
    result.retrying += updates.length;
    result.stoppedBy = failure;
    return;
  }
  const decided = updates.filter((u) => answer.outcomes.has(u.sku)).map((u) => recorded$(u, answer.outcomes.get(u.sku)));
  const statements = [recordOutcomes(d1, sourceId, [...decided, ...settled], now)];
  if (answer.sent.length > 0) {
    statements.push(
      recordSubmitted(
        d1,
        sourceId,
        answer.sent.map((u) => ({ sku: u.sku, quantity: u.quantity, price: u.price })),
        answer.reference,
        now,
      ),
    );
  }
  await d1.batch(statements);
  result.sent += answer.sent.length + decided.length;
  result.submitted += answer.sent.length;
  for (const r of decided) {
    if (r.state === "retry") result.retrying += 1;
    else result[r.state] += 1;
  }
}

/** What to send for a due row: only the values that differ from what the marketplace accepted. */
function toUpdate(row: DueListing): ListingUpdate | null {
  const quantity = row.pendingQuantity !== null && row.pendingQuantity !== row.acceptedQuantity ? row.pendingQuantity : null;
  const price = row.pendingPrice !== null && row.pendingPrice !== row.acceptedPrice ? row.pendingPrice : null;
  if (quantity === null && price === null) return null;
  return { sku: row.sku, quantity, price, currency: row.currency ?? DEFAULT_CURRENCY };
}

function recorded$(update: ListingUpdate, outcome: ListingOutcome | undefined): RecordedOutcome {
  if (!outcome) return { sku: update.sku, state: "retry", quantity: null, price: null, message: "The marketplace's answer did not mention this SKU." };
  if (outcome.state === "accepted") return { sku: update.sku, state: "accepted", quantity: update.quantity, price: update.price, message: null };
  const partial: { quantityAccepted?: boolean; priceAccepted?: boolean } = outcome.state === "unknownSku" ? {} : outcome;
  return {
    sku: update.sku,
    state: outcome.state,
    quantity: partial.quantityAccepted ? update.quantity : null,
    price: partial.priceAccepted ? update.price : null,
    message: outcome.message.slice(0, 500),
  };
}
