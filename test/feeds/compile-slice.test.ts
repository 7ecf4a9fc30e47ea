// A compile's slices called directly, with the catalog served from memory and the file going to
// the local R2: cut into slices, kept in memory or rebuilt from a checkpoint after an eviction,
// a compile writes the same bytes and counts the same products as one uninterrupted run.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ProductRow } from "../../src/db/schema";
import { firstCheckpoint, resumeRun, runSlice, type Checkpoint, type Run, type SliceLimits } from "../../src/feeds/compile-slice";
import { FeedRows } from "../../src/feeds/feed-rows";
import { productRow } from "./feeds-helpers";

const PART = 5_242_880;
const COLUMNS = [
  { header: "id", field: "Sku" },
  { header: "title", field: "Title" },
  { header: "description", field: "Description" },
  { header: "link", field: "Link" },
  { header: "image_link", field: "ImageLink" },
  { header: "price", field: "Price" },
  { header: "availability", field: "Availability" },
  { header: "brand", field: "Brand" },
  { header: "gtin", field: "Gtin" },
];
const rowsOf = () => new FeedRows("csv", COLUMNS, "google-shopping");

/**
 * 6,000 products of about 2 KiB (three parts): every 397th has an error (price 0), four have a
 * 13-character gtin that is not digits (a warning that keeps the row's length).
 */
function catalog(): ProductRow[] {
  return Array.from({ length: 6000 }, (_, i) =>
    productRow(`SKU-${String(i).padStart(5, "0")}`, {
      title: `Tasse n°${i}, "grande"`,
      description: `${"ü".repeat(800 + ((i * 13) % 300))} ${"日".repeat(i % 9)}`,
      price: i % 397 === 0 ? 0 : 1 + i / 8,
      gtin: i % 1500 === 700 ? "400638133393X" : "4006381333931",
    }),
  );
}

function reader(products: ProductRow[]) {
  const calls: (string | null)[] = [];
  return {
    calls,
    readPage: async (afterSku: string | null, limit: number) => {
      calls.push(afterSku);
      const from = afterSku === null ? 0 : products.findIndex((p) => p.sku > afterSku);
      return from < 0 ? [] : products.slice(from, from + limit);
    },
  };
}

async function sha256(bytes: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const WHOLE: SliceLimits = { pageRows: 250, pagesPerSlice: Number.MAX_SAFE_INTEGER, budgetMs: 600_000, untilPart: false };
const ONE_PAGE: SliceLimits = { ...WHOLE, pagesPerSlice: 1 };

/** A new job's upload and run, and the checkpoints it stores. */
async function newJob(key: string) {
  const upload = await env.FEEDS.createMultipartUpload(key);
  const rows = rowsOf();
  const saved: Checkpoint[] = [];
  const run = resumeRun(key, rows, firstCheckpoint(rows.header()), PART);
  return { upload, run, saved, save: (c: Checkpoint) => saved.push(c) };
}

async function finish(run: Run, upload: R2MultipartUpload, key: string) {
  const object = await run.uploader.complete(upload);
  const bytes = await (await env.FEEDS.get(key))!.arrayBuffer();
  return { size: object.size, sha: await sha256(bytes), tally: run.tally };
}

/** One uninterrupted run: the reference. */
async function whole(products: ProductRow[], key: string) {
  const job = await newJob(key);
  expect(await runSlice(job.run, { ...reader(products), upload: job.upload, save: job.save }, WHOLE)).toBe(true);
  return { ...(await finish(job.run, job.upload, key)), saved: job.saved };
}

describe("runSlice", () => {
  it("one-page slices kept in memory write the same file and counts as one run", { timeout: 60_000 }, async () => {
    const products = catalog();
    const reference = await whole(products, "test/slice/whole.csv");
    expect(reference.saved.map((c) => c.parts.length)).toEqual([1, 2]);
    expect(reference.size).toBeGreaterThan(2 * PART);
    expect(reference.tally.counts).toEqual({ total: 6000, valid: 5984, warning: 4, error: 16 });
    expect(reference.tally.issues.map((i) => i.sku).slice(0, 4)).toEqual(["SKU-00000", "SKU-00397", "SKU-00700", "SKU-00794"]);

    const key = "test/slice/sliced.csv";
    const job = await newJob(key);
    const io = { ...reader(products), upload: job.upload, save: job.save };
    let slices = 1;
    while (!(await runSlice(job.run, io, ONE_PAGE))) slices++;
    // 24 full pages, then an empty one that ends the catalog.
    expect(slices).toBe(25);
    expect(io.calls).toHaveLength(25);
    const sliced = await finish(job.run, job.upload, key);
    expect(sliced.sha).toBe(reference.sha);
    expect(sliced.size).toBe(reference.size);
    expect(sliced.tally).toEqual(reference.tally);
    expect(job.saved).toEqual(reference.saved.map((c) => ({ ...c, parts: expect.any(Array) })));
  });

  it("a run rebuilt from its checkpoint after an eviction writes the same bytes, counts and issues", { timeout: 90_000 }, async () => {
    // The product whose row crosses the first part boundary gets a warning (same row length, so
    // the boundaries stay): the resumed run must still report it.
    const plain = await whole(catalog(), "test/slice/plain.csv");
    const crossing = plain.saved[0]!.afterSku!;
    const products = catalog().map((p) => (p.sku === crossing ? { ...p, gtin: "400638133393X" } : p));
    const reference = await whole(products, "test/slice/marked.csv");
    expect(reference.saved[0]!.afterSku).toBe(crossing);
    expect(reference.tally.counts).toEqual({ total: 6000, valid: 5984, warning: 5, error: 16 });
    expect(reference.tally.issues.map((i) => i.sku)).toContain(crossing);

    const key = "test/slice/evicted.csv";
    const job = await newJob(key);
    const io = { ...reader(products), upload: job.upload, save: job.save };
    while (job.saved.length === 0) await runSlice(job.run, io, ONE_PAGE);
    // One more slice's rows are buffered in memory only, then the object is evicted.
    await runSlice(job.run, io, ONE_PAGE);
    const lost = job.run.cursor!;
    expect(lost > crossing).toBe(true);
    expect(job.saved[0]!.issues.map((i) => i.sku)).toContain(crossing);

    const upload = env.FEEDS.resumeMultipartUpload(key, job.upload.uploadId);
    const run = resumeRun(key, rowsOf(), job.saved[0]!, PART);
    expect(run.cursor).toBe(crossing);
    const again = { ...reader(products), upload, save: job.save };
    // Even with no budget, a rebuilt run goes on until it has stored its next part.
    expect(await runSlice(run, again, { ...ONE_PAGE, budgetMs: 0, untilPart: true })).toBe(false);
    expect(job.saved).toHaveLength(2);
    expect(run.cursor! >= job.saved[1]!.afterSku!).toBe(true);
    expect(again.calls[0]).toBe(crossing);
    while (!(await runSlice(run, again, ONE_PAGE)));

    const resumed = await finish(run, upload, key);
    expect(resumed.sha).toBe(reference.sha);
    expect(resumed.tally).toEqual(reference.tally);
    expect(job.saved.map((c) => c.afterSku)).toEqual(reference.saved.map((c) => c.afterSku));
  });

  it("with no budget a slice reads nothing; a page that cannot be read fails the slice", async () => {
    const job = await newJob("test/slice/idle.csv");
    const idle = reader(catalog());
    expect(await runSlice(job.run, { ...idle, upload: job.upload, save: job.save }, { ...WHOLE, budgetMs: 0 })).toBe(false);
    expect(idle.calls).toEqual([]);
    expect(job.run.cursor).toBeNull();

    const products = catalog();
    let reads = 0;
    const failing = async (afterSku: string | null, limit: number) => {
      if (++reads === 3) throw new Error("D1 is unavailable");
      return reader(products).readPage(afterSku, limit);
    };
    await expect(runSlice(job.run, { readPage: failing, upload: job.upload, save: job.save }, WHOLE)).rejects.toThrow("D1 is unavailable");
    expect(job.run.tally.counts.total).toBeLessThanOrEqual(500);
  });
});
