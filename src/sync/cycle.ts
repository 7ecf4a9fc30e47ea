// One sync cycle of one source: import what changed since the cursor, then deliver what is
// pending. Runs inside the source's SourceSync Durable Object, which keeps cycles of one source
// from overlapping; this module only needs a database, a clock and the source's storage.
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../db/schema";
import { countOpen } from "../outbox/outbox.queries";
import { toWireDate } from "../lib/dates";
import { MarketplaceError, } from "../marketplaces/connector";
import { cappedWait, MAX_WAIT_MS } from "../lib/retry";
import { buildConnector } from "../marketplaces/registry";
import { readCycles, type CycleSummary } from "../sources/cycle-summary";
import type { SourceStorage } from "../marketplaces/storage";
import { deliverPending } from "./delivery";
import { pushListings } from "./listings-push";
import { importOrders, type ImportProgress } from "./importer";
import { addImported, advanceCursor, markCycleStarted, recordCycleEnd, sourceById } from "../sources/sources.queries";
import { wakeStoreWebhooks } from "../webhooks/wake";
import { storeOfRow } from "../stores/stores.queries";

/** Where an import that did not fit one cycle stands. */
const IMPORT_PROGRESS = "sync:importProgress";
/**
 * Until when the marketplace asked not to be called (a 429's Retry-After), per source and per
 * stage: a throttled order list must not keep pending shipments from going out (decisions 6).
 */
const PAUSED_UNTIL = { import: "sync:importPausedUntil", delivery: "sync:deliveryPausedUntil", listings: "sync:listingsPausedUntil" } as const;
type Stage = keyof typeof PAUSED_UNTIL;
/** The last submitted delivery asked about, so the next cycle asks about the ones after it. */
const CHECKED_UP_TO = "sync:checkedUpTo";

export interface CycleDeps {
  env: Env;
  storage: SourceStorage;
  /** The cycle's clock: the cron's scheduled time, or now. */
  now: number;
  fetch?: typeof fetch;
}

/**
 * One cycle of the source, in the shard of its store (`storeId`, as the queue or the admin route
 * knows it; looked up in the shards when not given). The shard is asked of the directory at the
 * start of every cycle, so the cycle after a store's move runs where the store now lives.
 */
export async function runSourceCycle(sourceId: string, storeId: string | undefined, deps: CycleDeps): Promise<CycleSummary> {
  const { now, storage } = deps;
  const summary = emptySummary(sourceId, now);
  /** Orders whose lines the marketplace reported moved this cycle (decisions 12). */
  let linesMoved = 0;
  const home = (await storeOfRow(deps.env, (db) => sourceById(db, sourceId), storeId))?.db;
  if (!home) {
    summary.error = "The source no longer exists.";
    return summary;
  }
  const counted = countStatements(home.$client);
  const db = drizzle(counted.d1, { schema });
  const startedReal = Date.now();
  const clock = () => new Date(now + (Date.now() - startedReal));
  const source = await sourceById(db, sourceId);
  if (!source?.enabled) {
    summary.error = source ? "The source is disabled." : "The source no longer exists.";
    summary.statements = counted.count();
    return summary;
  }
  summary.name = source.name;
  summary.type = source.type;
  summary.ran = true;
  await markCycleStarted(db, sourceId, now);

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

  const connector = await buildConnector(deps.env, source, storage, clock, deps.fetch).catch((error: unknown) => {
    note("settings", error);
    return null;
  });
  if (connector && !paused("import")) {
    let resume = storage.get<ImportProgress>(IMPORT_PROGRESS) ?? null;
    // An operator moved the cursor (ImportFrom) since this import began: start the new window.
    if (resume && resume.fromCursor !== source.cursorAt) {
      storage.delete(IMPORT_PROGRESS);
      resume = null;
    }
    let imported = 0;
    try {
      const result = await importOrders(db, source, connector, now, {
        resume,
        // Saved after every page, so even an invocation killed mid-import resumes past it.
        onProgress: (progress) => (progress ? storage.put(IMPORT_PROGRESS, progress) : storage.delete(IMPORT_PROGRESS)),
        onImported: (n) => (imported += n),
        onLinesMoved: (n) => (linesMoved += n),
      });
      summary.fetched = result.fetched;
      summary.setAside = result.setAside;
      summary.more = result.unfinished !== null;
      if (result.endedEarly) errors.push(`import: ${result.endedEarly}`);
      else if (!result.unfinished) {
        // Only over the cursor this import started from: an operator's ImportFrom meanwhile wins.
        await advanceCursor(db, sourceId, resume ? resume.fromCursor : source.cursorAt, result.cursorAt);
      }
    } catch (error) {
      // Orders already written stay; the cursor does not move, so the next cycle fetches them
      // again and the upsert leaves each once. A resumed page cursor the marketplace refuses is
      // dropped: the next cycle starts the window over.
      if (resume && error instanceof MarketplaceError && !error.retryable) storage.delete(IMPORT_PROGRESS);
      note("import", error);
    }
    summary.imported = imported;
    if (imported > 0) {
      await addImported(db, sourceId, imported);
    }
  }
  // Delivery does not depend on the import: an acknowledgement goes out while listing fails or
  // waits, unless the marketplace asked the deliveries themselves to wait.
  if (connector && !paused("delivery")) {
    const delivered = await deliverPending(db, sourceId, connector, now, { checkAfter: storage.get<number>(CHECKED_UP_TO) ?? 0 });
    storage.put(CHECKED_UP_TO, delivered.checkedUpTo);
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
    try {
      const pushed = await pushListings(counted.d1, source, connector.listings, now);
      summary.listingsSent = pushed.sent;
      summary.listingsAccepted = pushed.accepted;
      if (pushed.stoppedBy) note("listings", pushed.stoppedBy);
    } catch (error) {
      // What was recorded stays; the cycle still ends and says why (the next one plans again).
      note("listings", error);
    }
  }

  const open = await countOpen(db, sourceId);
  summary.pendingDeliveries = open.find((r) => r.state === "pending")?.n ?? 0;
  summary.submittedDeliveries = open.find((r) => r.state === "submitted")?.n ?? 0;
  summary.failedDeliveries = open.find((r) => r.state === "failed")?.n ?? 0;
  summary.error = errors.length > 0 ? errors.join(" ") : null;
  summary.endedAt = clock().getTime();
  // Counted with the write that records it.
  summary.statements = counted.count() + 1;
  await recordCycleEnd(db, { id: sourceId, recentCycles: readCycles(source.recentCycles) }, summary);
  // New orders, lines the marketplace moved and failed deliveries may have recorded webhook events
  // (order.created, order.shipment_created, order.items_cancelled, order.sync_failed).
  if (summary.imported > 0 || linesMoved > 0 || summary.failed > 0) {
    // Missed wake-ups are the cron sweep's to catch; the cycle's summary stands either way.
    await wakeStoreWebhooks(deps.env, source.storeId).catch((error: unknown) => console.error("waking webhook senders failed", error));
  }
  return summary;
}

/** A D1Database that counts the statements prepared through it (what the benchmark reports). */
export function countStatements(d1: D1Database): { d1: D1Database; count: () => number } {
  let n = 0;
  const proxy = new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") {
        return (query: string) => {
          n += 1;
          return target.prepare(query);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { d1: proxy, count: () => n };
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
    statements: 0,
    error,
  };
}
