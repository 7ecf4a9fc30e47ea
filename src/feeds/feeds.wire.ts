// The one place where a feed row becomes the interface's PascalCase Feed (spec 2.5), and the zod
// description of it that the OpenAPI document shows and the functions here are typed by.
import { z } from "zod";
import type { FeedRow } from "../db/schema";
import { toWireDate, wireDateOrNull as wireDate } from "../lib/dates";
import { columnsOf } from "./feed-rows";

export const wireFeed = z
  .object({
    FeedId: z.string(),
    Name: z.string(),
    Status: z.enum(["New", "Compiling", "Completed", "Failed"]),
    StatusMessage: z.string(),
    Format: z.enum(["csv", "tsv"]),
    FileName: z.string(),
    DateLastCompiled: wireDate,
    DateLastSubmitted: wireDate,
    DateLastPulled: wireDate,
    CompilationTotalCount: z.number().int(),
    CompilationValidCount: z.number().int(),
    CompilationWarningCount: z.number().int(),
    CompilationErrorCount: z.number().int(),
    Score: z.number().int(),
  })
  .meta({ id: "Feed" });

export const adminFeed = wireFeed
  .extend({
    StoreId: z.string(),
    Template: z.string(),
    Columns: z.array(z.object({ Header: z.string(), Field: z.string() })),
    CompileIntervalMinutes: z.number().int().nullable(),
    EscapeFormulas: z.boolean().describe("Cells starting with = + - @ are written with a leading ' (for spreadsheets)."),
    FileSize: z.number().int().nullable(),
    Issues: z.array(z.object({ Sku: z.string(), Errors: z.array(z.string()), Warnings: z.array(z.string()) })),
  })
  .meta({ id: "AdminFeed" });

/** How far the running (or last) compile has read. */
export const compileProgressAnswer = z
  .object({
    Running: z.boolean(),
    Slices: z.number().int(),
    Parts: z.number().int(),
    AfterSku: z.string().nullable(),
    RowsCompiled: z.number().int().describe("Products read so far (counted at each 5 MiB part)."),
  })
  .nullable()
  .describe("null before the first compile.");

export function toWireFeed(f: FeedRow): z.input<typeof wireFeed> {
  return {
    FeedId: f.id,
    Name: f.name,
    Status: f.status as z.input<typeof wireFeed>["Status"],
    StatusMessage: f.statusMessage,
    Format: f.format as z.input<typeof wireFeed>["Format"],
    FileName: f.fileName,
    DateLastCompiled: toWireDate(f.dateLastCompiled),
    DateLastSubmitted: toWireDate(f.dateLastSubmitted),
    DateLastPulled: toWireDate(f.dateLastPulled),
    CompilationTotalCount: f.totalCount,
    CompilationValidCount: f.validCount,
    CompilationWarningCount: f.warningCount,
    CompilationErrorCount: f.errorCount,
    Score: f.score,
  };
}

/** What an operator sees: the definition and a sample of the last compile's problems too. */
export function toAdminFeed(f: FeedRow): z.input<typeof adminFeed> {
  return {
    ...toWireFeed(f),
    StoreId: f.storeId,
    Template: f.template,
    Columns: columnsOf(f).map((c) => ({ Header: c.header, Field: c.field })),
    CompileIntervalMinutes: f.compileIntervalMinutes,
    EscapeFormulas: f.escapeFormulas,
    FileSize: f.fileSize,
    Issues: (f.issues ?? []).map((i) => ({ Sku: i.sku, Errors: i.errors, Warnings: i.warnings })),
  };
}

/** "Google Shopping (US)" -> "google-shopping-us.csv": safe in a header and on any disk. */
export function fileNameOf(name: string, format: string, feedId: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100);
  return `${slug || feedId}.${format}`;
}
