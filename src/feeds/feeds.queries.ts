// Every feed read and write. The compile's writes (start, commit, fail) are guarded by the feed
// id only: one Durable Object per feed is the only writer of a feed's compile state. A commit
// and a failure carry their webhook event (feed.compiled, feed.failed) in the same batch.
import { and, asc, count, desc, eq, gt, isNotNull, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { feeds, stores, type FeedIssue, type FeedRow } from "../db/schema";
import type { PageStart } from "../lib/cursor";
import type { Counts } from "./feed-rows";
import type { FeedListQuery, FeedSortField } from "./feeds.schemas";
import { feedEvents, wokenBy } from "../webhooks/webhook-deliveries.queries";

export const FEED_STATUS = { new: "New", compiling: "Compiling", completed: "Completed", failed: "Failed" } as const;

export async function insertFeed(db: Db, feed: FeedRow): Promise<void> {
  await db.insert(feeds).values(feed);
}

/** A feed by id; a feed of a deleted store is gone already (its schedule and compiles stop). */
export async function findFeedById(db: Db, feedId: string): Promise<FeedRow | undefined> {
  const row = await db
    .select({ feed: feeds })
    .from(feeds)
    .innerJoin(stores, eq(stores.id, feeds.storeId))
    .where(and(eq(feeds.id, feedId), isNull(stores.deletedAt)))
    .get();
  return row?.feed;
}

/** A feed of this store, or undefined: another store's feed is as absent as an unknown one. */
export async function findFeed(db: Db, storeId: string, feedId: string): Promise<FeedRow | undefined> {
  return db
    .select()
    .from(feeds)
    .where(and(eq(feeds.id, feedId), eq(feeds.storeId, storeId)))
    .get();
}

function filterOf(storeId: string, filterQuery: string | undefined): SQL {
  const needle = filterQuery?.toLowerCase();
  return and(eq(feeds.storeId, storeId), needle ? sql`instr(${feeds.nameKey}, ${needle}) > 0` : undefined)!;
}

export async function countFeeds(db: Db, storeId: string, filterQuery: string | undefined): Promise<number> {
  const row = await db.select({ n: count() }).from(feeds).where(filterOf(storeId, filterQuery)).get();
  return row?.n ?? 0;
}

/** The row's field each sort orders by; the column is the table's. */
const SORT_KEYS = { Name: "nameKey", DateLastCompiled: "dateLastCompiled" } as const satisfies Record<FeedSortField, keyof FeedRow>;

/**
 * Rows after a position in (sort value, id) order. SQLite sorts NULL first ascending (and last
 * descending), and DateLastCompiled is NULL until a feed's first compile, so NULL is a position
 * of its own. A store holds at most its Feeds limit (200 by default), so no index is needed.
 */
function after(sortBy: FeedSortField, desc: boolean, value: string | number | null, id: string): SQL {
  const column = feeds[SORT_KEYS[sortBy]];
  const beyondId = desc ? lt(feeds.id, id) : gt(feeds.id, id);
  if (value === null) return desc ? and(isNull(column), beyondId)! : or(and(isNull(column), beyondId), isNotNull(column))!;
  const beyond = desc ? or(lt(column, value), isNull(column))! : gt(column, value);
  return or(beyond, and(eq(column, value), beyondId))!;
}

export interface FeedPage {
  rows: FeedRow[];
  next: { value: string | number | null; id: string } | null;
}

export async function listFeeds(db: Db, storeId: string, query: FeedListQuery, pageSize: number, start: PageStart): Promise<FeedPage> {
  const desc_ = query.sortDirection === "desc";
  const direction = desc_ ? desc : asc;
  const where =
    "after" in start
      ? and(filterOf(storeId, query.filterQuery), after(query.sortBy, desc_, start.after.value, String(start.after.id)))
      : filterOf(storeId, query.filterQuery);
  // The tie-break by id makes the order total, so pages neither skip nor repeat.
  const rows = await db
    .select()
    .from(feeds)
    .where(where)
    .orderBy(direction(feeds[SORT_KEYS[query.sortBy]]), direction(feeds.id))
    .limit(pageSize + 1)
    .offset("offset" in start ? start.offset : 0);
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return { rows: page, next: rows.length > pageSize && last ? { value: last[SORT_KEYS[query.sortBy]], id: last.id } : null };
}

export async function updateFeed(db: Db, feedId: string, changes: Partial<FeedRow>): Promise<FeedRow | undefined> {
  const rows = await db.update(feeds).set(changes).where(eq(feeds.id, feedId)).returning();
  return rows[0];
}

export function listStoreFeeds(db: Db, storeId: string): Promise<FeedRow[]> {
  return db.select().from(feeds).where(eq(feeds.storeId, storeId)).orderBy(asc(feeds.nameKey), asc(feeds.id));
}

export async function deleteFeed(db: Db, storeId: string, feedId: string): Promise<FeedRow | undefined> {
  const rows = await db
    .delete(feeds)
    .where(and(eq(feeds.id, feedId), eq(feeds.storeId, storeId)))
    .returning();
  return rows[0];
}

export async function startCompile(db: Db, feedId: string, now: number): Promise<void> {
  await db.update(feeds).set({ status: FEED_STATUS.compiling, statusMessage: "", dateLastSubmitted: now }).where(eq(feeds.id, feedId));
}

export interface CompileResult {
  counts: Counts;
  issues: FeedIssue[];
  fileSize: number;
  at: number;
}

/**
 * Points the feed at its new file (the job's object), with its feed.compiled webhook event;
 * answers the key of the file it replaced and the webhook endpoints to wake.
 */
export async function commitCompile(
  db: Db,
  job: { feedId: string; objectKey: string },
  result: CompileResult,
): Promise<{ committed: boolean; oldKey: string | null; intervalMinutes: number | null; webhooks: string[] }> {
  const { counts } = result;
  const [before, after, events] = await db.batch([
    db.select({ fileKey: feeds.fileKey }).from(feeds).where(eq(feeds.id, job.feedId)),
    db
      .update(feeds)
      .set({
        fileKey: job.objectKey,
        fileSize: result.fileSize,
        status: FEED_STATUS.completed,
        statusMessage: "",
        totalCount: counts.total,
        validCount: counts.valid,
        warningCount: counts.warning,
        errorCount: counts.error,
        score: counts.total === 0 ? 0 : Math.floor((counts.valid * 100) / counts.total),
        issues: result.issues,
        dateLastCompiled: result.at,
      })
      .where(eq(feeds.id, job.feedId))
      .returning({ intervalMinutes: feeds.compileIntervalMinutes }),
    feedEvents(db, "feed.compiled", job.feedId, result.at),
  ]);
  return { committed: after.length > 0, oldKey: before[0]?.fileKey ?? null, intervalMinutes: after[0]?.intervalMinutes ?? null, webhooks: wokenBy(events) };
}

/** Status Failed with its reason, and its feed.failed webhook event; the file and the counts of the last good compile stay. */
export async function failCompile(
  db: Db,
  feedId: string,
  reason: string,
  issues: FeedIssue[],
  at: number,
): Promise<{ intervalMinutes: number | null; webhooks: string[] }> {
  const [rows, events] = await db.batch([
    db
      .update(feeds)
      .set({ status: FEED_STATUS.failed, statusMessage: reason, issues })
      .where(eq(feeds.id, feedId))
      .returning({ intervalMinutes: feeds.compileIntervalMinutes }),
    feedEvents(db, "feed.failed", feedId, at),
  ]);
  return { intervalMinutes: rows[0]?.intervalMinutes ?? null, webhooks: wokenBy(events) };
}

export async function markPulled(db: Db, feedId: string, at: number): Promise<void> {
  await db.update(feeds).set({ dateLastPulled: at }).where(eq(feeds.id, feedId));
}

/** What an overview shows of feeds (no definition, no issues): of one store, or of every live store. */
export function feedsForOverview(db: Db, storeId: string | null) {
  return db
    .select({
      id: feeds.id,
      storeId: feeds.storeId,
      name: feeds.name,
      status: feeds.status,
      statusMessage: feeds.statusMessage,
      score: feeds.score,
      dateLastCompiled: feeds.dateLastCompiled,
      totalCount: feeds.totalCount,
      validCount: feeds.validCount,
      warningCount: feeds.warningCount,
      errorCount: feeds.errorCount,
    })
    .from(feeds)
    .innerJoin(stores, eq(stores.id, feeds.storeId))
    .where(and(storeId === null ? undefined : eq(feeds.storeId, storeId), isNull(stores.deletedAt)))
    .orderBy(asc(feeds.nameKey), asc(feeds.id));
}
