// The one place where a feed row becomes the interface's PascalCase Feed (spec 2.5).
import type { FeedRow } from "../db/schema";
import { toWireDate } from "../lib/dates";
import { columnsOf } from "./feed-rows";

export function toWireFeed(f: FeedRow) {
  return {
    FeedId: f.id,
    Name: f.name,
    Status: f.status,
    StatusMessage: f.statusMessage,
    Format: f.format,
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
export function toAdminFeed(f: FeedRow) {
  return {
    ...toWireFeed(f),
    StoreId: f.storeId,
    Template: f.template,
    Columns: columnsOf(f).map((c) => ({ Header: c.header, Field: c.field })),
    CompileIntervalMinutes: f.compileIntervalMinutes,
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
