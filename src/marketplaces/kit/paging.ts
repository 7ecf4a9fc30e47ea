// A guard for the pages a connector follows by itself inside one operation (more line items of
// one order, an order's fulfilment states): a marketplace whose next-page cursor never ends or
// comes round again would otherwise hold the call forever. The import's own pages are the
// engine's to count.
import { MarketplaceError } from "../connector";

/**
 * Call it with each next cursor before fetching that page: past `maxPages` pages, or a cursor
 * already followed, it throws a MarketplaceError naming `label` (no retry changes the answer).
 */
export function pageGuard(label: string, maxPages: number): (cursor: string) => void {
  const seen = new Set<string>();
  return (cursor) => {
    if (seen.has(cursor)) throw new MarketplaceError(`${label}: the marketplace named the same next page twice`, 200, false);
    if (seen.size + 1 >= maxPages) throw new MarketplaceError(`${label}: more than ${maxPages} pages, more than the hub reads`, 200, false);
    seen.add(cursor);
  };
}
