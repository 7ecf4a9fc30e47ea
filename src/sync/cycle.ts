// One sync cycle of one source: import what changed since the cursor (orders, then returns), then
// deliver what is pending, then push stock and price. Runs inside the source's SourceSync Durable Object, which
// keeps cycles of one source from overlapping; this module only needs a database, a clock and the
// source's storage.
//
// A cycle's work may not fit one invocation: Cloudflare allows an invocation 1,000 D1 queries
// and 10,000 subrequests (src/lib/invocation-budget.ts), and a delivery costs at least its one
// write. Each stage stops before a unit of work (a page, a delivery, a push) that would not fit;
// the cycle then ends this invocation with what is left of its allowance (the per-cycle rules of
// decisions 6: 200 pages, 5,000 deliveries, 100 checks, the marketplace's pushes), and the
// source's object goes on in its next invocation at once (src/sync/source-sync.ts). Every
// invocation records its own summary, the last of a cycle with Continues false.
import { dbOf } from "../db/client";
import { countOpen } from "../outbox/outbox.queries";
import { toWireDate } from "../lib/dates";
import { talliedD1 } from "../lib/binding-tally";
import { InvocationBudget, OBJECT_SHARE, type Cost } from "../lib/invocation-budget";
import { outboundFetch } from "../lib/outbound";
import { MarketplaceError } from "../marketplaces/connector";
import { cappedWait, MAX_WAIT_MS } from "../lib/retry";
import { buildConnector } from "../marketplaces/registry";
import { readCycles, type CycleSummary } from "../sources/cycle-summary";
import type { SourceStorage } from "../marketplaces/storage";
import { CHECKS_PER_CYCLE, DELIVERIES_PER_CYCLE, deliverPending } from "./delivery";
import { MAX_PLAN_STATEMENTS, pushListings } from "./listings-push";
import { importOrders, importReturns, MAX_PAGES_PER_WINDOW, type ImportOptions, type ImportProgress, type ImportResult } from "./importer";
import { addImported, advanceCursor, advanceReturnsCursor, markCycleStarted, recordCycleEnd, sourceById } from "../sources/sources.queries";
import { wakeStoreWebhooks } from "../webhooks/wake";
import { storeOfRow } from "../stores/stores.queries";

/** Where an import that did not fit one cycle stands. */
const IMPORT_PROGRESS = "sync:importProgress";
/** The same for the returns import (decisions 13), which has its own cursor. */
const RETURNS_PROGRESS = "sync:returnsProgress";
/**
 * Until when the marketplace asked not to be called (a 429's Retry-After), per source and per
 * stage: a throttled order list must not keep pending shipments from going out (decisions 6).
 */
const PAUSED_UNTIL = {
  import: "sync:importPausedUntil",
  // The returns' own wait: a marketplace that asks the returns call to wait (Mirakl paces RT11 to
  // every 15 minutes) holds back the returns import only, never the orders'.
  returns: "sync:returnsPausedUntil",
  delivery: "sync:deliveryPausedUntil",
  listings: "sync:listingsPausedUntil",
} as const;
type Stage = keyof typeof PAUSED_UNTIL;
/** The last submitted delivery asked about, so the next cycle asks about the ones after it. */
const CHECKED_UP_TO = "sync:checkedUpTo";
/**
 * What a cycle may still do (decisions 6's per-cycle rules), carried from one invocation of the
 * source's object to the next when the cycle's work did not fit one.
 */
export interface CycleAllowance {
  /** Import pages still to read; 0 once the import has ended (read to its end, or stopped by a rule, a pause or an error). */
  importPages: number;
  /** Delivery attempts, and submitted deliveries to ask about. */
  deliveries: number;
  checks: number;
  /** Listing plan statements, and pushes (null: as many as the marketplace allows a cycle). */
  plans: number;
  pushes: number | null;
}

export const FULL_ALLOWANCE: CycleAllowance = {
  importPages: MAX_PAGES_PER_WINDOW,
  deliveries: DELIVERIES_PER_CYCLE,
  checks: CHECKS_PER_CYCLE,
  plans: MAX_PLAN_STATEMENTS,
  pushes: null,
};

/**
 * What the stages leave for the cycle's end: its reads and its summary's write, and the wake-up of
 * the store's webhook senders (one call each). The share's own margin covers the source's lookup
 * before the cycle starts counting.
 */
const CLOSING: Cost = { d1Queries: 8, subrequests: 60 };

export interface CycleDeps {
  env: Env;
  storage: SourceStorage;
  /** The cycle's clock: the cron's scheduled time, or now. */
  now: number;
  fetch?: typeof fetch;
  /** An invocation going on with a cycle: what is left of its allowance. */
  allowance?: CycleAllowance;
  /** What this invocation may spend on the cycle (the object's share unless given). */
  share?: Cost;
}

export interface CycleRun {
  summary: CycleSummary;
  /** Set when the cycle's work did not fit this invocation: what the next invocation may still do. */
  continuation: CycleAllowance | null;
}

/**
 * One cycle of the source (or, with `deps.allowance`, the rest of one), in the shard of its store
 * (`storeId`, as the queue or the admin route knows it; looked up in the shards when not given).
 * The shard is asked of the directory at the start of every invocation, so a cycle after a store's
 * move runs where the store now lives.
 */
export async function runSourceCycle(sourceId: string, storeId: string | undefined, deps: CycleDeps): Promise<CycleRun> {
  const { now, storage } = deps;
  const allowance = deps.allowance ?? FULL_ALLOWANCE;
  const summary = emptySummary(sourceId, now);
  /** Orders whose lines the marketplace reported moved this cycle (decisions 12). */
  let linesMoved = 0;
  const home = (await storeOfRow(deps.env, (db) => sourceById(db, sourceId), storeId))?.db;
  if (!home) {
    summary.error = "The source no longer exists.";
    return { summary, continuation: null };
  }
  const share = deps.share ?? OBJECT_SHARE;
  const budget = new InvocationBudget({ d1Queries: share.d1Queries - CLOSING.d1Queries, subrequests: share.subrequests - CLOSING.subrequests });
  const d1 = budget.d1(home.$client);
  const db = dbOf(d1);
  const startedReal = Date.now();
  const clock = () => new Date(now + (Date.now() - startedReal));
  const source = await sourceById(db, sourceId);
  if (!source?.enabled) {
    summary.error = source ? "The source is disabled." : "The source no longer exists.";
    summary.statements = budget.spent().d1Queries;
    return { summary, continuation: null };
  }
  summary.name = source.name;
  summary.type = source.type;
  summary.ran = true;
  await markCycleStarted(db, sourceId, now);

  const left: CycleAllowance = { ...allowance, importPages: 0 };
  let outOfBudget = false;
  let progress = 0;
  const errors: string[] = [];
  const note = (stage: Stage | "settings", error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    errors.push(`${stage}: ${message}`);
    if (stage !== "settings" && error instanceof MarketplaceError && error.retryAfterMs) {
      storage.put(PAUSED_UNTIL[stage], clock().getTime() + cappedWait(error.retryAfterMs));
    }
  };
  /** Whether the marketplace asked this stage to wait; says so in the summary if it did. */
  const paused = (stage: Stage): boolean => {
    // A pause stored before waits were capped can be no date at all: held to the cap too.
    const until = Math.min(storage.get<number>(PAUSED_UNTIL[stage]) ?? 0, now + MAX_WAIT_MS);
    if (until <= now) return false;
    errors.push(`${stage}: the marketplace asked to wait until ${toWireDate(until)} (Retry-After); nothing was sent.`);
    return true;
  };

  const connector = await buildConnector(deps.env, source, storage, clock, budget.fetch(deps.fetch ?? (outboundFetch as typeof fetch))).catch(
    (error: unknown) => {
      note("settings", error);
      return null;
    },
  );
  /**
   * One import (orders or returns), each on its own cursor, saved page and pause: resumes the page
   * an earlier invocation saved, unless an operator moved the cursor (ImportFrom) since it began;
   * moves the cursor once the window is read; a refusal (said once if the orders' import just had
   * it) goes in the cycle's error and a Retry-After pauses this import alone. Null when it failed.
   */
  const runImport = async (
    stage: "import" | "returns",
    progressKey: string,
    cursorAt: number | null,
    advance: typeof advanceCursor,
    read: (options: ImportOptions) => Promise<ImportResult>,
  ): Promise<ImportResult | null> => {
    const label = stage === "import" ? "import" : "returns import";
    let resume = storage.get<ImportProgress>(progressKey) ?? null;
    if (resume && resume.fromCursor !== cursorAt) {
      storage.delete(progressKey);
      resume = null;
    }
    try {
      const result = await read({
        resume,
        // Saved after every page, so even an invocation killed mid-import resumes past it.
        onProgress: (p) => (p ? storage.put(progressKey, p) : storage.delete(progressKey)),
        units: budget.units({ d1Queries: 6, subrequests: 8 }),
      });
      progress += result.pages;
      summary.more ||= result.unfinished !== null || result.outOfBudget;
      if (result.outOfBudget) outOfBudget = true;
      else if (result.endedEarly) errors.push(`${label}: ${result.endedEarly}`);
      // Only over the cursor this import started from: an operator's ImportFrom meanwhile wins.
      else if (!result.unfinished) await advance(db, sourceId, resume ? resume.fromCursor : cursorAt, result.cursorAt);
      return result;
    } catch (error) {
      // What was already written stays; the cursor does not move, so the next cycle fetches it
      // again and the upsert leaves each once. A resumed page cursor the marketplace refuses is
      // dropped: the next cycle starts the window over.
      if (resume && error instanceof MarketplaceError && !error.retryable) storage.delete(progressKey);
      const message = error instanceof Error ? error.message : String(error);
      // The same refusal the orders' import just had (the source's access refused, say) is said once.
      if (!errors.includes(`import: ${message}`)) errors.push(`${label}: ${message}`);
      if (error instanceof MarketplaceError && error.retryAfterMs) storage.put(PAUSED_UNTIL[stage], clock().getTime() + cappedWait(error.retryAfterMs));
      return null;
    }
  };

  if (connector && allowance.importPages > 0 && !paused("import")) {
    const result = await runImport("import", IMPORT_PROGRESS, source.cursorAt, advanceCursor, (options) =>
      importOrders(db, source, connector, now, {
        ...options,
        // Counted page by page: they count even if a later page fails.
        onImported: (n) => (summary.imported += n),
        onLinesMoved: (n) => (linesMoved += n),
        pagesRead: MAX_PAGES_PER_WINDOW - allowance.importPages,
      }),
    );
    if (result) {
      summary.fetched = result.fetched;
      summary.setAside = result.setAside;
      if (result.outOfBudget) left.importPages = allowance.importPages - result.pages;
    }
    if (summary.imported > 0) await addImported(db, sourceId, summary.imported);
  }
  // Returns after the orders (decisions 13), so a return of an order imported this cycle finds
  // it. Same rules as the orders' import, paused on their own: a wait the returns call asked for
  // (Mirakl's RT11 pace, a 429) keeps the order import going, and while the order import waits
  // the returns are not asked for either (its message says so once). Out of the invocation's
  // share, it goes on from its saved page in the cycle's next invocation.
  const returnsReader = connector?.returns && "fetchReturns" in connector.returns ? connector.returns : null;
  // Paused quietly: a wait the returns call asked for is its pace, not news for the source's LastError.
  const returnsWait = Math.min(storage.get<number>(PAUSED_UNTIL.returns) ?? 0, now + MAX_WAIT_MS);
  if (connector && returnsReader && !outOfBudget && returnsWait <= now && (storage.get<number>(PAUSED_UNTIL.import) ?? 0) <= now) {
    const result = await runImport("returns", RETURNS_PROGRESS, source.returnsCursorAt, advanceReturnsCursor, (options) =>
      importReturns(db, source, returnsReader, connector.settleMs ?? 0, now, { ...options, onImported: (n) => (summary.returnsImported += n) }),
    );
    if (result) {
      summary.returnsFetched = result.fetched;
      summary.returnsSetAside = result.setAside;
    }
  }
  // Delivery does not depend on the import: an acknowledgement goes out while listing fails or
  // waits, unless the marketplace asked the deliveries themselves to wait.
  if (connector && (allowance.deliveries > 0 || allowance.checks > 0) && !paused("delivery")) {
    const delivered = await deliverPending(db, sourceId, connector, now, {
      checkAfter: storage.get<number>(CHECKED_UP_TO) ?? 0,
      limit: allowance.deliveries,
      checks: allowance.checks,
      budget,
    });
    storage.put(CHECKED_UP_TO, delivered.checkedUpTo);
    progress += delivered.attempted + delivered.checked;
    left.deliveries = allowance.deliveries - delivered.attempted;
    left.checks = allowance.checks - delivered.checked;
    if (delivered.outOfBudget) outOfBudget = true;
    summary.delivered = delivered.delivered;
    summary.submitted = delivered.submitted;
    summary.notApplicable = delivered.notApplicable;
    summary.retrying = delivered.retrying;
    summary.failed = delivered.failed;
    if (delivered.stoppedBy) note("delivery", delivered.stoppedBy);
    // Not a pause: asking about a submission is its own operation (Amazon's getFeed has its own quota).
    if (delivered.checksStoppedBy) errors.push(`delivery check: ${delivered.checksStoppedBy.message}`);
  }
  // Stock and price out (decisions 11), after the import so this cycle's orders count; paused
  // on its own, as import and delivery are.
  if (connector?.listings && !paused("listings")) {
    // A marketplace that takes stock only as submissions (Mirakl: pushesPerCycle 0) still has its one submission a cycle.
    const pushes = allowance.pushes ?? Math.max(connector.listings.pushesPerCycle, connector.listings.submission ? 1 : 0);
    try {
      const pushed = await pushListings(d1, source, connector.listings, now, { budget, plans: allowance.plans, pushes });
      progress += pushed.plans + pushed.pushes;
      left.plans = allowance.plans - pushed.plans;
      left.pushes = pushes - pushed.pushes;
      if (pushed.outOfBudget) outOfBudget = true;
      summary.listingsSent = pushed.sent;
      summary.listingsAccepted = pushed.accepted;
      if (pushed.stoppedBy) note("listings", pushed.stoppedBy);
    } catch (error) {
      // What was recorded stays; the cycle still ends and says why (the next one plans again).
      note("listings", error);
    }
  }

  // A cycle goes on in the next invocation only from where this one got: one that could not do a
  // single unit of work would only start over and over.
  const continuation = outOfBudget && progress > 0 ? left : null;
  if (outOfBudget && !continuation)
    errors.push("cycle: not one page, delivery or push fitted in an invocation's share of Cloudflare's limits; the next cycle tries again.");
  summary.continues = continuation !== null;
  const open = await countOpen(db, sourceId);
  summary.pendingDeliveries = open.find((r) => r.state === "pending")?.n ?? 0;
  summary.submittedDeliveries = open.find((r) => r.state === "submitted")?.n ?? 0;
  summary.failedDeliveries = open.find((r) => r.state === "failed")?.n ?? 0;
  summary.error = errors.length > 0 ? errors.join(" ") : null;
  summary.endedAt = clock().getTime();
  // Counted with the write that records it.
  summary.statements = budget.spent().d1Queries + 1;
  await recordCycleEnd(db, { id: sourceId, recentCycles: readCycles(source.recentCycles) }, summary);
  // New orders, lines the marketplace moved, returns and failed deliveries may have recorded webhook
  // events (order.created, order.shipment_created, order.items_cancelled, return.created,
  // order.sync_failed; a changed return or an imported refund too).
  if (summary.imported > 0 || linesMoved > 0 || summary.failed > 0 || summary.returnsFetched > 0) {
    // Missed wake-ups are the cron sweep's to catch; the cycle's summary stands either way.
    await wakeStoreWebhooks(deps.env, source.storeId).catch((error: unknown) => console.error("waking webhook senders failed", error));
  }
  return { summary, continuation };
}

/** A D1Database that counts the statements prepared through it (what the benchmark reports). */
export function countStatements(d1: D1Database): { d1: D1Database; count: () => number } {
  let n = 0;
  return { d1: talliedD1(d1, { sql: () => (n += 1) }), count: () => n };
}

/** A summary of a cycle that has done nothing yet (or never ran). */
export function emptySummary(sourceId: string, at: number, error: string | null = null): CycleSummary {
  return {
    sourceId,
    name: "",
    type: "",
    startedAt: at,
    endedAt: at,
    ran: false,
    more: false,
    fetched: 0,
    imported: 0,
    setAside: 0,
    delivered: 0,
    submitted: 0,
    notApplicable: 0,
    retrying: 0,
    failed: 0,
    pendingDeliveries: 0,
    submittedDeliveries: 0,
    failedDeliveries: 0,
    listingsSent: 0,
    listingsAccepted: 0,
    returnsFetched: 0,
    returnsImported: 0,
    returnsSetAside: 0,
    statements: 0,
    continues: false,
    error,
  };
}
