// One Durable Object per feed (named by FeedId) compiles it in slices (the request that starts
// it, then one alarm per slice), so a catalog of any size stays inside an invocation's CPU limit
// and in a few MiB of memory. The work is plain modules: compile-slice.ts reads the catalog in
// keyset pages, feed-rows.ts checks, counts and serializes each product, part-uploader.ts writes
// the rows into an R2 multipart upload one fixed-size part at a time. This class loads the job,
// calls them, and stores the job, its checkpoints and its alarms.
//
// After each part the job's checkpoint goes to the object's storage: the upload's parts and the
// bytes already buffered for the next part, the Sku of the row that crossed into it, and the
// counts so far. An evicted or crashed object resumes from it and writes the same bytes; an
// object that stays in memory carries on from where its last slice stopped.
//
// The file is written under a new key. The feed row is switched to it only once the upload is
// complete, and the previous file is deleted after that, so downloads never see a partial file.
// The same object also keeps the feed's schedule: when idle, its alarm is the next compile.
//
// A slice ends after its time or after PAGES_PER_INVOCATION pages, whichever comes first: each
// page is a D1 query and an invocation may make 1,000 (src/lib/invocation-budget.ts); its parts
// (one R2 call each 5 MiB) and the job's start and end stay far inside the 10,000 subrequests.
import { DurableObject } from "cloudflare:workers";
import type { Db } from "../db/client";
import { storeDbById, storeOfRow } from "../stores/stores.queries";
import type { FeedRow } from "../db/schema";
import { randomId } from "../lib/crypto";
import { pageProducts } from "../products/products.queries";
import { firstCheckpoint, resumeRun, runSlice, type Checkpoint, type Run } from "./compile-slice";
import { columnsOf, FeedRows, headerRow } from "./feed-rows";
import { commitCompile, failCompile, findFeedById, startCompile } from "./feeds.queries";
import type { FeedColumn } from "../products/product-fields";
import { wakeWebhooks } from "../webhooks/wake";

export interface CompileLimits {
  /** Products read per D1 query. */
  pageRows: number;
  /** Wall time one slice may spend before it hands over to the next alarm. */
  sliceMs: number;
  /** Wall time of the slice run inside the request that starts a compile. */
  firstSliceMs: number;
  /** Stop a slice after this many pages even within its time (tests use it to cut a compile). */
  pagesPerSlice: number;
  /** Size of every multipart part but the last: R2 needs at least 5 MiB. */
  partBytes: number;
}

export const DEFAULT_LIMITS: CompileLimits = {
  pageRows: 1000,
  sliceMs: 10_000,
  firstSliceMs: 2_000,
  pagesPerSlice: Number.MAX_SAFE_INTEGER,
  partBytes: 5 * 1024 * 1024,
};

/**
 * Pages one slice reads at most, whatever its time allows: a page is one D1 query, an invocation
 * may make 1,000, and the slice's own start and end (the store's lookup, the compile's commit)
 * and a page read ahead need a few.
 */
export const PAGES_PER_INVOCATION = 800;

/** Retries of a slice that threw (R2 or D1 unavailable) before the compile is marked Failed. */
const MAX_ATTEMPTS = 3;
/** How long after a slice's budget its watchdog alarm fires, should the slice never finish. */
const WATCHDOG_MS = 60_000;

export interface CompileJob {
  jobId: string;
  feedId: string;
  storeId: string;
  objectKey: string;
  uploadId: string;
  format: "csv" | "tsv";
  template: string;
  columns: FeedColumn[];
  /** Absent in jobs stored before the option existed: off. */
  escapeFormulas?: boolean;
  attempts: number;
  /** Slices run so far (the benchmark reports it). */
  slices: number;
  checkpoint: Checkpoint;
}

const JOB = "job";
const FEED_ID = "feedId";
/** The feed's store, whose shard the compile reads and writes (src/db/shards.ts). */
const STORE_ID = "storeId";
const LIMITS = "limits";
const LAST_JOB = "lastJob";

export const fileKeyOf = (storeId: string, feedId: string, jobId: string, format: string) => `feeds/${storeId}/${feedId}/${jobId}.${format}`;

export const contentTypeOf = (format: string) => (format === "tsv" ? "text/tab-separated-values; charset=utf-8" : "text/csv; charset=utf-8");

export class FeedCompiler extends DurableObject<Env> {
  private run: Run | null = null;
  private sliceRunning = false;

  /** Starts a compile unless one is running, and runs its first slice before answering. */
  async compile(feedId: string, storeId: string): Promise<void> {
    this.ctx.storage.kv.put(FEED_ID, feedId);
    this.ctx.storage.kv.put(STORE_ID, storeId);
    if (await this.startIfIdle(feedId, false)) await this.slice(this.limits().firstSliceMs);
  }

  /** Arms the schedule of a feed that compiles every N minutes (no effect while a job runs). */
  async schedule(feedId: string, intervalMinutes: number | null, storeId: string): Promise<void> {
    this.ctx.storage.kv.put(FEED_ID, feedId);
    this.ctx.storage.kv.put(STORE_ID, storeId);
    if (this.job()) return;
    if (intervalMinutes) await this.ctx.storage.setAlarm(Date.now() + intervalMinutes * 60_000);
    else await this.ctx.storage.deleteAlarm();
  }

  /** Tuning for tests and benchmarks; kept in storage so that it outlives an eviction. */
  async configure(limits: Partial<CompileLimits>): Promise<void> {
    this.ctx.storage.kv.put(LIMITS, { ...this.limits(), ...limits });
  }

  /** The running job's progress, or the last finished job's, for tests and the benchmark. */
  async progress(): Promise<{ running: boolean; slices: number; parts: number; afterSku: string | null; rows: number } | null> {
    const job = this.job() ?? this.ctx.storage.kv.get<CompileJob>(LAST_JOB);
    if (!job) return null;
    return {
      running: !!this.job(),
      slices: job.slices,
      parts: job.checkpoint.parts.length,
      afterSku: job.checkpoint.afterSku,
      rows: job.checkpoint.counts.total,
    };
  }

  override async alarm(): Promise<void> {
    if (this.job()) {
      await this.slice(this.limits().sliceMs);
      return;
    }
    // Idle: this alarm is the feed's schedule.
    const feedId = this.ctx.storage.kv.get<string>(FEED_ID);
    if (feedId && (await this.startIfIdle(feedId, true))) await this.slice(this.limits().sliceMs);
  }

  /**
   * Starts a job unless one exists. Other calls wait meanwhile: without that, two compile
   * requests arriving together would both find no job while the feed is read and start two.
   */
  private startIfIdle(feedId: string, scheduled: boolean): Promise<boolean> {
    return this.ctx.blockConcurrencyWhile(async () => {
      if (this.job()) return false;
      // An object scheduled before stores had shards knows no store: found once in the shards.
      const home = await storeOfRow(this.env, (db) => findFeedById(db, feedId), this.ctx.storage.kv.get<string>(STORE_ID));
      if (home) this.ctx.storage.kv.put(STORE_ID, home.storeId);
      const feed = home && (await findFeedById(home.db, feedId));
      const db = home?.db;
      if (!db || !feed || (scheduled && !feed.compileIntervalMinutes)) return false;
      await this.start(db, feed);
      return true;
    });
  }

  /**
   * The database of the feed's store: its shard, asked of the directory at each step, so a compile
   * that outlives a move of its store writes where the store now lives; an error once the store
   * is gone.
   */
  private async requireDb(storeId: string): Promise<Db> {
    const db = await storeDbById(this.env, storeId);
    if (!db) throw new Error(`the store ${storeId} of this compile is gone`);
    return db;
  }

  private limits(): CompileLimits {
    return this.ctx.storage.kv.get<CompileLimits>(LIMITS) ?? DEFAULT_LIMITS;
  }

  private job(): CompileJob | undefined {
    return this.ctx.storage.kv.get<CompileJob>(JOB);
  }

  private async start(db: Db, feed: FeedRow): Promise<void> {
    const jobId = randomId("job", 9);
    const objectKey = fileKeyOf(feed.storeId, feed.id, jobId, feed.format);
    const upload = await this.env.FEEDS.createMultipartUpload(objectKey, {
      httpMetadata: { contentType: contentTypeOf(feed.format) },
      customMetadata: { feedId: feed.id, jobId },
    });
    const columns = columnsOf(feed);
    const job: CompileJob = {
      jobId,
      feedId: feed.id,
      storeId: feed.storeId,
      objectKey,
      uploadId: upload.uploadId,
      format: feed.format,
      template: feed.template,
      columns,
      escapeFormulas: feed.escapeFormulas,
      attempts: 0,
      slices: 0,
      checkpoint: firstCheckpoint(headerRow(feed.format, columns)),
    };
    this.ctx.storage.kv.put(JOB, job);
    this.run = null;
    await startCompile(db, feed.id, Date.now());
  }

  /** Runs one slice of the current job; the next is an alarm. Never throws. */
  private async slice(budgetMs: number): Promise<void> {
    const job = this.job();
    if (!job) return;
    if (this.sliceRunning) {
      // The watchdog fired while a long slice is still at work here: look again later.
      await this.ctx.storage.setAlarm(Date.now() + WATCHDOG_MS);
      return;
    }
    this.sliceRunning = true;
    job.slices++;
    this.ctx.storage.kv.put(JOB, job);
    try {
      // If this object dies mid-slice (eviction, crash, deploy), this alarm resumes the job from
      // its checkpoint; a slice that ends normally replaces it with the next one.
      await this.ctx.storage.setAlarm(Date.now() + budgetMs + WATCHDOG_MS);
      const done = await this.work(job, budgetMs);
      if (done) {
        await this.finish(job);
        return;
      }
      if (job.attempts > 0) {
        // A slice went through: the next failure starts a fresh count.
        job.attempts = 0;
        this.ctx.storage.kv.put(JOB, job);
      }
      await this.ctx.storage.setAlarm(Date.now());
    } catch (error) {
      this.run = null;
      job.attempts++;
      console.error("feed compile slice failed", job.feedId, job.attempts, error);
      if (job.attempts < MAX_ATTEMPTS) {
        this.ctx.storage.kv.put(JOB, job);
        await this.ctx.storage.setAlarm(Date.now() + 1000 * 2 ** job.attempts);
      } else {
        await this.fail(job, `The compile stopped after ${MAX_ATTEMPTS} attempts: ${String((error as Error)?.message ?? error).slice(0, 300)}`);
      }
    } finally {
      this.sliceRunning = false;
    }
  }

  /** Runs the job until the budget is spent; true once the catalog is exhausted. */
  private async work(job: CompileJob, budgetMs: number): Promise<boolean> {
    const limits = this.limits();
    const upload = this.env.FEEDS.resumeMultipartUpload(job.objectKey, job.uploadId);
    // Work of an earlier slice was lost (eviction, crash) if this one starts from the checkpoint.
    const fromCheckpoint = job.slices > 1 && this.run?.jobId !== job.jobId;
    const run =
      this.run?.jobId === job.jobId
        ? this.run
        : (this.run = resumeRun(job.jobId, new FeedRows(job.format, job.columns, job.template, job.escapeFormulas ?? false), job.checkpoint, limits.partBytes));
    const d1 = (await this.requireDb(job.storeId)).$client;
    const io = {
      readPage: (afterSku: string | null, limit: number) => pageProducts(d1, job.storeId, afterSku, limit),
      upload,
      save: (checkpoint: Checkpoint) => {
        job.checkpoint = checkpoint;
        this.ctx.storage.kv.put(JOB, job);
      },
    };
    const pagesPerSlice = Math.min(limits.pagesPerSlice, PAGES_PER_INVOCATION);
    return runSlice(run, io, { pageRows: limits.pageRows, pagesPerSlice, budgetMs, untilPart: fromCheckpoint });
  }

  private async finish(job: CompileJob): Promise<void> {
    const run = this.run!;
    const { counts, issues } = run.tally;
    if (counts.total === 0) {
      return this.fail(job, "The store's catalog is empty: nothing was compiled. The previous file is kept.");
    }
    if (counts.valid === 0) {
      const first = issues[0];
      return this.fail(
        job,
        `All ${counts.total} products have errors, so no file was written and the previous file is kept` +
          (first ? ` (first: Sku '${first.sku}': ${first.errors.join("; ")}).` : "."),
      );
    }
    const object = await run.uploader.complete(this.env.FEEDS.resumeMultipartUpload(job.objectKey, job.uploadId));
    const db = await this.requireDb(job.storeId);
    const previous = await commitCompile(db, job, {
      counts,
      issues,
      fileSize: object.size,
      at: Date.now(),
    });
    await wakeWebhooks(this.env, job.storeId, previous.webhooks);
    // Only now is the old file unreferenced; a feed deleted meanwhile leaves nothing behind.
    if (previous.committed) {
      if (previous.oldKey && previous.oldKey !== job.objectKey) await this.env.FEEDS.delete(previous.oldKey);
    } else {
      await this.env.FEEDS.delete(job.objectKey);
    }
    await this.close(job, previous.intervalMinutes);
  }

  private async fail(job: CompileJob, reason: string): Promise<void> {
    try {
      await this.env.FEEDS.resumeMultipartUpload(job.objectKey, job.uploadId).abort();
    } catch (error) {
      // An upload R2 no longer knows needs no abort; incomplete uploads also expire on their own.
      console.warn("abort of a failed compile's upload", job.feedId, error);
    }
    // A store deleted and purged meanwhile has no feed row to record the failure in: the job just ends.
    const db = await storeDbById(this.env, job.storeId);
    const failed = db
      ? await failCompile(db, job.feedId, reason, this.run?.tally.issues ?? job.checkpoint.issues, Date.now())
      : { webhooks: [], intervalMinutes: null };
    await wakeWebhooks(this.env, job.storeId, failed.webhooks);
    await this.close(job, failed.intervalMinutes);
  }

  private async close(job: CompileJob, intervalMinutes: number | null): Promise<void> {
    this.run = null;
    this.ctx.storage.kv.delete(JOB);
    this.ctx.storage.kv.put(LAST_JOB, { ...job, checkpoint: { ...job.checkpoint, tail: new Uint8Array(0) } });
    if (intervalMinutes) await this.ctx.storage.setAlarm(Date.now() + intervalMinutes * 60_000);
    else await this.ctx.storage.deleteAlarm();
  }
}
