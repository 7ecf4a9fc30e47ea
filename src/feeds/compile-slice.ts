// One slice of a compile: read the catalog in keyset pages after the cursor, turn each product
// into its row (feed-rows.ts) and append it to the upload (part-uploader.ts), until the slice's
// budget is spent or the catalog is exhausted. Plain: the Durable Object hands it the page
// reader, the upload and where checkpoints go, and keeps the Run in memory between slices.
import type { ProductRow } from "../db/schema";
import { copyTally, emptyTally, type FeedRows, type Tally } from "./feed-rows";
import { PartUploader, type UploadState } from "./part-uploader";

/** Stored after every part R2 confirms: an evicted compile resumes from the last one. */
export interface Checkpoint extends Tally, UploadState {
  /** The last product whose row is fully accounted for (written or counted). */
  afterSku: string | null;
}

/** What a compile carries in memory from one slice to the next. */
export interface Run {
  jobId: string;
  rows: FeedRows;
  uploader: PartUploader;
  tally: Tally;
  cursor: string | null;
  exhausted: boolean;
}

/** A new file's checkpoint: its header row, nothing counted, no parts. */
export function firstCheckpoint(header: string): Checkpoint {
  return { afterSku: null, tail: new TextEncoder().encode(header), ...emptyTally(), parts: [] };
}

/** A run rebuilt from a checkpoint (a new job's first one, or after an eviction). */
export function resumeRun(jobId: string, rows: FeedRows, checkpoint: Checkpoint, partBytes: number): Run {
  return {
    jobId,
    rows,
    uploader: new PartUploader(partBytes, checkpoint),
    tally: copyTally(checkpoint),
    cursor: checkpoint.afterSku,
    exhausted: false,
  };
}

export interface SliceIo {
  /** Up to `limit` products after `afterSku` (all from the first when null), in Sku order. */
  readPage(afterSku: string | null, limit: number): Promise<ProductRow[]>;
  upload: R2MultipartUpload;
  /** Called once R2 has a part, with the state at that part's boundary. */
  save(checkpoint: Checkpoint): void;
}

export interface SliceLimits {
  /** Products read per page. */
  pageRows: number;
  /** Stop after this many pages even within the budget. */
  pagesPerSlice: number;
  budgetMs: number;
  /**
   * Go on at least until a part is uploaded, whatever the budget: a run rebuilt from its checkpoint
   * must reach the next one, so that evictions, however frequent, cannot stop a compile's progress.
   */
  untilPart: boolean;
}

/** Reads and writes until the budget is spent; true once the catalog is exhausted. */
export async function runSlice(run: Run, io: SliceIo, limits: SliceLimits, now: () => number = Date.now): Promise<boolean> {
  const deadline = now() + limits.budgetMs;
  let pages = 0;
  let partsShipped = 0;
  const mayStop = () => !limits.untilPart || partsShipped > 0;
  const goOn = () => !run.exhausted && ((now() < deadline && pages < limits.pagesPerSlice) || !mayStop());
  // The next page is read while this one is written.
  let next = goOn() ? io.readPage(run.cursor, limits.pageRows) : null;
  try {
    while (next) {
      const page = await next;
      pages++;
      next = null;
      if (page.length < limits.pageRows) run.exhausted = true;
      else if (goOn()) next = io.readPage(page[page.length - 1]!.sku, limits.pageRows);
      for (const product of page) {
        const row = run.rows.row(product, run.tally);
        if (row !== null && run.uploader.append(row)) {
          partsShipped++;
          // The boundary falls inside this product's row: a run resumed here starts after it.
          const boundary = { afterSku: product.sku, ...copyTally(run.tally) };
          await run.uploader.ship(io.upload, (state) => io.save({ ...boundary, ...state }));
        }
        run.cursor = product.sku;
      }
      if (!next && goOn()) next = io.readPage(run.cursor, limits.pageRows);
    }
  } finally {
    // Nothing is left running when the slice ends; a read begun for a slice that stopped is dropped.
    next?.catch(() => {});
    await run.uploader.settle();
  }
  return run.exhausted;
}
