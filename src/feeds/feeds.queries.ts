// Every feed read and write. The compile's writes (start, commit, fail) are guarded by the feed
// id only: one Durable Object per feed is the only writer of a feed's compile state.
import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { feeds, type FeedIssue, type FeedRow } from "../db/schema";
import type { CompileJob } from "./feed-compiler";
import type { Counts } from "./feed-rows";
import type { FeedListQuery, FeedSortField } from "./feeds.schemas";

export const FEED_STATUS = { new: "New", compiling: "Compiling", completed: "Completed", failed: "Failed" } as const;

export async function insertFeed(db: Db, feed: FeedRow): Promise<void> {
  await db.insert(feeds).values(feed);
}

export async function findFeedById(db: Db, feedId: string): Promise<FeedRow | undefined> {
  return db.select().from(feeds).where(eq(feeds.id, feedId)).get();
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

const SORT_COLUMNS = { Name: feeds.nameKey, DateLastCompiled: feeds.dateLastCompiled } satisfies Record<FeedSortField, unknown>;

export function listFeeds(db: Db, storeId: string, query: FeedListQuery, pageSize: number): Promise<FeedRow[]> {
  const direction = query.sortDirection === "desc" ? desc : asc;
  // The tie-break by id makes the order total, so pages neither skip nor repeat.
  return db
    .select()
    .from(feeds)
    .where(filterOf(storeId, query.filterQuery))
    .orderBy(direction(SORT_COLUMNS[query.sortBy]), direction(feeds.id))
    .limit(pageSize)
    .offset((query.page - 1) * pageSize);
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

/** Points the feed at its new file; answers the key of the file it replaced. */
export async function commitCompile(
  db: Db,
  job: CompileJob,
  result: CompileResult,
): Promise<{ committed: boolean; oldKey: string | null; intervalMinutes: number | null }> {
  const { counts } = result;
  const [before, after] = await db.batch([
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
  ]);
  return { committed: after.length > 0, oldKey: before[0]?.fileKey ?? null, intervalMinutes: after[0]?.intervalMinutes ?? null };
}

/** Status Failed with its reason; the file and the counts of the last good compile stay. */
export async function failCompile(db: Db, feedId: string, reason: string, issues: FeedIssue[]): Promise<number | null> {
  const rows = await db
    .update(feeds)
    .set({ status: FEED_STATUS.failed, statusMessage: reason, issues })
    .where(eq(feeds.id, feedId))
    .returning({ intervalMinutes: feeds.compileIntervalMinutes });
  return rows[0]?.intervalMinutes ?? null;
}

export async function markPulled(db: Db, feedId: string, at: number): Promise<void> {
  await db.update(feeds).set({ dateLastPulled: at }).where(eq(feeds.id, feedId));
}
