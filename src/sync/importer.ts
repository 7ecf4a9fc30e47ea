// Import: one window of a source's orders (changed at or after `since`, before a fixed `until`),
// page by page; its returns (decisions 13) the same way, on their own cursor. Every page is written with one db.batch of a few statements, whatever its size:
// each statement takes the page as one JSON parameter (its orders, its lines or its numbers, as
// arrays) that SQLite's json_each unpacks (D1 binds at most 100 parameters a statement). The upsert on the unique index orders_store_source_number
// makes a page written twice (a re-run, a cycle cut off and started again) leave each order once.
// Orders the connector could not map are set aside with the page (src/sources/imported-page.ts) and the
// rest of the page goes in, and the connector is told the page is written (OrderPage.written);
// `until` becomes the source's cursor once every page is written.
import type { Db } from "../db/client";
import type { Units } from "../lib/invocation-budget";
import type { Connector, ImportWindow, OrderPage, ReturnPage, ReturnsImport } from "../marketplaces/connector";
import { writePage, type ImportSource } from "../sources/imported-page";
import { writeReturnsPage } from "../sources/imported-returns";

/** How far before the cursor each fetch starts: marketplaces index late and clocks differ. */
export const OVERLAP_MS = 10 * 60_000;
/** A source's first fetch looks back this far (Walmart's own default window is 7 days). */
export const FIRST_LOOKBACK_MS = 7 * 24 * 60 * 60_000;

/** Where an unfinished import stands: the window it fetches and the marketplace's next page. */
export interface ImportProgress {
  since: number;
  /** The window's fixed upper bound: the cursor the source takes once this import completes. */
  until: number;
  cursor: string;
  /** The source's cursor when this import began; an operator's ImportFrom since then drops it. */
  fromCursor: number | null;
}

export interface ImportResult {
  fetched: number;
  imported: number;
  /** Orders whose lines the marketplace's report moved (decisions 12). */
  linesMoved: number;
  setAside: number;
  pages: number;
  /** Set when the page budget or the invocation ran out first: the next cycle (or invocation) resumes from here. */
  unfinished: ImportProgress | null;
  /** The invocation's share ran out before the window's end: the next invocation of the slot goes on. */
  outOfBudget: boolean;
  /** Why the window ended before the marketplace's last page (the source's LastError), or null. */
  endedEarly: string | null;
  /** The new cursor once complete: the window's `until`. */
  cursorAt: number;
}

/**
 * Pages one run of a window reads (100 orders each by default) before it ends and waits for the
 * next cycle (decisions 6): a next-page token that never ends costs 200 calls a cycle, never a
 * source's object running back to back. A real backlog goes on from its last token next cycle.
 */
export const MAX_PAGES_PER_WINDOW = 200;

/** The window of a new import: from the cursor minus the overlap (or a week back) to `until`. */
export function importWindow(cursorAt: number | null, until: number): { since: number; until: number } {
  return { since: cursorAt === null ? until - FIRST_LOOKBACK_MS : cursorAt - OVERLAP_MS, until };
}

export interface ImportOptions {
  /** Continue an import an earlier invocation left unfinished. */
  resume?: ImportProgress | null;
  /** Called after each page is written, with where the next invocation would resume. */
  onProgress?: (progress: ImportProgress | null) => void;
  /** Called with each page's count of new orders (they count even if a later page fails). */
  onImported?: (count: number) => void;
  /** Called with each page's count of orders whose lines the marketplace's report moved (decisions 12). */
  onLinesMoved?: (count: number) => void;
  maxPages?: number;
  /** Pages of this window already read in earlier invocations of the same cycle (they count toward `maxPages`). */
  pagesRead?: number;
  /** The invocation's pages: the import stops before one that would not fit (src/lib/invocation-budget.ts). */
  units?: Units;
}

/**
 * Fetches and writes pages until the marketplace has no more, the page budget is spent (a
 * backlog larger than that then spreads over several cycles, each resuming where the last one
 * wrote its last page), a next-page token comes round again, or the next page would not fit in
 * the invocation (`units`: the cycle goes on from here in its next invocation, the pages read so
 * far counting toward the budget). `now` is the cycle's time; the window ends `settleMs` before it.
 */
export async function importOrders(db: Db, source: ImportSource, connector: Connector, now: number, options: ImportOptions = {}): Promise<ImportResult> {
  return importWindow$(source.cursorAt, now - (connector.settleMs ?? 0), options, async (window, cursor) => {
    const page: OrderPage = await connector.fetchOrders(window, cursor);
    const { imported, linesMoved, unapplied } = await writePage(db, source, page, now, connector.acceptOnImport?.bind(connector));
    page.written?.(new Set(unapplied));
    return { fetched: page.orders.length, setAside: page.setAside.length, imported, linesMoved, nextCursor: page.nextCursor };
  });
}

/**
 * The returns import (decisions 13): the same window rules as orders, on the source's own returns
 * cursor. Returns whose order the hub does not hold are set aside by the page's write.
 */
export async function importReturns(
  db: Db,
  source: ImportSource & { returnsCursorAt: number | null },
  reader: ReturnsImport,
  settleMs: number,
  now: number,
  options: ImportOptions = {},
): Promise<ImportResult> {
  return importWindow$(source.returnsCursorAt, now - settleMs, options, async (window, cursor) => {
    const page: ReturnPage = await reader.fetchReturns(window, cursor);
    const written = await writeReturnsPage(db, source, page, now);
    return { fetched: page.returns.length, setAside: written.setAside, imported: written.imported, linesMoved: 0, nextCursor: page.nextCursor };
  });
}

/** One page as the window loop sees it: what was read, set aside and new, and the next token. */
interface PageRead {
  fetched: number;
  setAside: number;
  imported: number;
  /** Orders whose lines the marketplace's report moved (decisions 12); none for returns. */
  linesMoved: number;
  nextCursor: string | null;
}

/** The window loop orders and returns share: pages, budget, progress, a token seen twice. */
async function importWindow$(
  cursorAt: number | null,
  until: number,
  options: ImportOptions,
  readPage: (window: ImportWindow, cursor: string | null) => Promise<PageRead>,
): Promise<ImportResult> {
  const resume = options.resume ?? null;
  const window = resume ? { since: resume.since, until: resume.until } : importWindow(cursorAt, until);
  const fromCursor = resume ? resume.fromCursor : cursorAt;
  const result: ImportResult = {
    fetched: 0,
    imported: 0,
    linesMoved: 0,
    setAside: 0,
    pages: 0,
    unfinished: null,
    outOfBudget: false,
    endedEarly: null,
    cursorAt: window.until,
  };
  let cursor: string | null = resume ? resume.cursor : null;
  // The tokens of this run (at most the page budget): one sent again would go round for ever.
  const seen = new Set<string>(cursor === null ? [] : [cursor]);
  const maxPages = options.maxPages ?? MAX_PAGES_PER_WINDOW;
  const pagesRead = options.pagesRead ?? 0;
  const units = options.units;
  do {
    if (pagesRead + result.pages >= maxPages) {
      result.unfinished = { ...window, cursor: cursor!, fromCursor };
      result.endedEarly = `the window ended after ${maxPages} pages (the most one window reads); the next cycle goes on from there.`;
      return result;
    }
    if (units && !units.fits()) {
      // Where the window stands is saved (onProgress, after every page): the next invocation goes on.
      result.unfinished = cursor === null ? null : { ...window, cursor, fromCursor };
      result.outOfBudget = true;
      return result;
    }
    const read = () => readPage({ since: new Date(window.since), until: new Date(window.until) }, cursor);
    const page = units ? await units.measure(read) : await read();
    result.pages += 1;
    result.fetched += page.fetched;
    result.setAside += page.setAside;
    result.imported += page.imported;
    result.linesMoved += page.linesMoved;
    if (page.imported > 0) options.onImported?.(page.imported);
    if (page.linesMoved > 0) options.onLinesMoved?.(page.linesMoved);
    cursor = page.nextCursor;
    if (cursor !== null && seen.has(cursor)) {
      // What was read stays; the window is read again from its start next cycle.
      options.onProgress?.(null);
      result.endedEarly = "the marketplace sent a next-page token it had already sent in this window; the window ended there and starts over next cycle.";
      return result;
    }
    if (cursor !== null) seen.add(cursor);
    options.onProgress?.(cursor === null ? null : { ...window, cursor, fromCursor });
  } while (cursor !== null);
  return result;
}
