// OR11's offset pages as the import's opaque cursor. Pure: no I/O.
//
// The description says only that OR11 "supports offset pagination" and links to a section it
// does not hold; Mirakl's published reference page for OR11 sends `max` and `offset` (and `sort`,
// `order`) and Mirakl's own PHP SDK defaults to 10 orders a page. Pages are read by creation
// date (the default sort), within a window whose both ends are fixed, so an order can only
// leave the result while it is read (it changes again, and its new update date is after the
// window's end; the next window takes it). Each order that leaves from before the current offset
// moves the later ones one place forward, so reading on at offset + page would skip them. The
// cursor carries the total the last page reported: when the next page reports fewer, the read
// goes back by the difference (re-reading a few orders costs nothing, the import is an upsert).
// The total only shrinks on such a step back, so the steps back end.
import { MarketplaceError } from "../connector";

/** Orders a page asks for: the most Mirakl's `max` takes (UNCONFIRMED in the description). */
export const ORDERS_PAGE_SIZE = 100;

export interface OffsetCursor {
  offset: number;
  /** total_count as the page before reported it. */
  total: number;
}

const CURSOR = /^offset=(\d{1,9});total=(\d{1,9})$/;

export function encodeCursor(cursor: OffsetCursor): string {
  return `offset=${cursor.offset};total=${cursor.total}`;
}

/** The cursor the import kept; one that is not this connector's ends the window (no retry can read it). */
export function decodeCursor(text: string): OffsetCursor {
  const m = CURSOR.exec(text);
  if (!m) throw new MarketplaceError(`Mirakl OR11: the page cursor ${JSON.stringify(text.slice(0, 60))} is not one this connector made`, null, false);
  return { offset: Number(m[1]), total: Number(m[2]) };
}

/**
 * The next page after one read at `at` (null for the first page, offset 0) that held `received`
 * orders of a reported `total`; null when the window is read.
 */
export function nextCursor(at: OffsetCursor | null, received: number, total: number): OffsetCursor | null {
  const offset = at?.offset ?? 0;
  const left = at === null ? 0 : Math.max(0, at.total - total);
  // Orders left the result before this offset: the ones that moved forward were never read.
  if (left > 0) return { offset: Math.max(0, offset - left), total };
  // An empty page ends the window even if the total says more (it would ask for the same page for ever).
  if (received === 0 || offset + received >= total) return null;
  return { offset: offset + received, total };
}
