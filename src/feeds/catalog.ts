// The catalog's two import paths: a JSON array, or a CSV upload streamed record by record so
// that a million rows never sit in memory at once. Every statement on products is in
// products.queries.ts (upserts by (store, Sku), deletes, keyset pages for the compiler).
import { z } from "zod";
import type { Db } from "../db/client";
import { ApiError } from "../http/errors";
import { limitError, limitReached } from "../stores/limits";
import { findStore, shardUsageOf } from "../stores/stores.queries";
import { CsvRecordReader, CsvRecordTooLarge } from "./csv";
import { parseProduct, type ProductInput } from "../products/product-fields";
import { countUnknownSkus, ROWS_PER_BATCH, upsertProducts } from "../products/products.queries";

/** What an import answers (also its description in the OpenAPI document). */
export const importSummary = z.object({
  RowsReceived: z.number().int(),
  RowsUpserted: z.number().int(),
  RowsRejected: z.number().int(),
  Rejections: z
    .array(z.object({ Row: z.number().int(), Sku: z.string().nullable(), Message: z.string() }))
    .describe("The first rejections, by row number; RowsRejected says how many there were in all."),
});
export type ImportSummary = z.infer<typeof importSummary>;
export type Rejection = ImportSummary["Rejections"][number];

const MAX_LISTED_REJECTIONS = 100;

class ImportBatch {
  readonly summary: ImportSummary = { RowsReceived: 0, RowsUpserted: 0, RowsRejected: 0, Rejections: [] };
  pending: ProductInput[] = [];

  constructor(
    private readonly db: Db,
    private readonly storeId: string,
    private readonly now: number,
  ) {}

  add(row: number, record: Record<string, unknown>): void {
    this.summary.RowsReceived++;
    const parsed = parseProduct(record);
    if (parsed.ok) this.pending.push(parsed.product);
    else this.reject(row, record.Sku ?? findSku(record), parsed.message);
  }

  reject(row: number, sku: unknown, message: string): void {
    this.summary.RowsRejected++;
    if (this.summary.Rejections.length < MAX_LISTED_REJECTIONS) {
      this.summary.Rejections.push({ Row: row, Sku: typeof sku === "string" || typeof sku === "number" ? String(sku).slice(0, 100) : null, Message: message });
    }
  }

  async flush(force: boolean): Promise<void> {
    while (this.pending.length >= ROWS_PER_BATCH || (force && this.pending.length > 0)) {
      const rows = this.pending.splice(0, ROWS_PER_BATCH);
      try {
        await upsertProducts(this.db, this.storeId, rows, this.now);
      } catch (error) {
        if (limitReached(error) !== "Products") throw error;
        // A streamed upload cannot be counted before it is read: the batch that would cross the
        // limit is refused whole (one transaction) and the upload stops there. Said as it is.
        throw limitError("Products", (await findStore(this.db, this.storeId))?.maxProducts, {
          stored: `. The upload stopped there: the first ${this.summary.RowsUpserted} valid rows were stored, none after them.`,
          wayOut: (patch) => `Remove products, or have an operator raise the limit (${patch}), then send the rest.`,
        });
      }
      this.summary.RowsUpserted += rows.length;
    }
  }
}

function findSku(record: Record<string, unknown>): unknown {
  for (const [name, value] of Object.entries(record)) if (name.toLowerCase() === "sku") return value;
  return null;
}

/**
 * `{Products: [...]}`: Row is the product's position in the array, from 1. The request is whole
 * in memory, so it is checked against the store's Products limit before anything is written: an
 * upload that would cross it stores nothing.
 */
export async function importJson(db: Db, storeId: string, items: unknown[], now: number): Promise<ImportSummary> {
  const batch = new ImportBatch(db, storeId, now);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      batch.summary.RowsReceived++;
      batch.reject(i + 1, null, "must be a JSON object");
    } else {
      batch.add(i + 1, item as Record<string, unknown>);
    }
  }
  await requireRoomFor(db, storeId, batch.pending);
  await batch.flush(true);
  return batch.summary;
}

/** Refuses, before any write, rows whose new Skus would take the store over its Products limit. */
async function requireRoomFor(db: Db, storeId: string, rows: ProductInput[]): Promise<void> {
  const store = await findStore(db, storeId);
  if (!store) return;
  const room = store.maxProducts - (await shardUsageOf(db, storeId)).Products;
  const skus = [...new Set(rows.map((r) => r.sku))];
  if (skus.length <= room) return;
  let fresh = 0;
  // Known Skus are updates, not new products; asked 1,000 at a time as one JSON parameter.
  for (let i = 0; i < skus.length && fresh <= room; i += 1000) {
    fresh += await countUnknownSkus(db, storeId, skus.slice(i, i + 1000));
  }
  if (fresh > room) throw limitError("Products", store.maxProducts);
}

/**
 * A CSV upload with a header row naming the fields. Row numbers are what a spreadsheet shows:
 * the header is row 1, the first product row 2 (a quoted field spanning lines is one row).
 */
export async function importCsv(db: Db, storeId: string, body: ReadableStream<Uint8Array>, now: number): Promise<ImportSummary> {
  const batch = new ImportBatch(db, storeId, now);
  const parser = new CsvRecordReader();
  let header: string[] | null = null;
  const onRecord = (record: string[]) => {
    const row = parser.recordCount;
    if (!header) {
      header = record.map((h) => h.trim());
      if (!header.some((h) => h.toLowerCase() === "sku")) {
        throw new ApiError(
          400,
          "The CSV header row must name a Sku column (and any of Title, Description, Link, ImageLink, Price, Currency, Availability, Brand, Gtin, Quantity).",
        );
      }
      return;
    }
    if (record.length !== header.length) {
      batch.summary.RowsReceived++;
      batch.reject(row, record[header.findIndex((h) => h.toLowerCase() === "sku")] ?? null, `has ${record.length} fields; the header has ${header.length}`);
      return;
    }
    // fromEntries defines own properties: a column named '__proto__' is kept, not swallowed.
    const object: Record<string, string> = Object.fromEntries(header.map((name, i) => [name, record[i]!]));
    batch.add(row, object);
  };
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(value, onRecord);
      await batch.flush(false);
    }
    parser.end(onRecord);
  } catch (error) {
    if (!(error instanceof CsvRecordTooLarge)) throw error;
    // What was read before is kept; the rest cannot be split into rows reliably.
    await reader.cancel().catch(() => {});
    batch.reject(error.record, null, `${error.message}; the upload was not read past this row`);
  }
  if (!header) throw new ApiError(400, "The CSV upload is empty: send a header row and one row per product.");
  await batch.flush(true);
  return batch.summary;
}
