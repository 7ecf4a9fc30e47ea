// The page a /v1 list request asks for (decisions 3), for every list that pages by cursor
// (orders, feeds, returns): where it starts, by `page` or by `cursor` (a 400 when the cursor does
// not open), and the answer's Paging and Sorting once the page's last row is known. Knows no
// resource: each list gives what its cursors are bound to (store, filters, sort, size, in a fixed
// order) and names those query parameters for the 400.
import { nextCursor, pageStart, type CursorPosition } from "../lib/cursor";
import { ApiError } from "./errors";
import { MAX_PAGE_SIZE } from "./query-schemas";

/** A cursor that does not open: `sentWith` names what it must come back with (the list's filters, sort and size). */
export const invalidCursor = (sentWith: string) =>
  new ApiError(
    400,
    `'cursor' is not valid for this request: send the NextCursor of the previous page unaltered, with the same ${sentWith} as the request that returned it.`,
  );

/** A list query as pagingQuery and sortingQuery parsed it. */
export interface ListRequest<S extends string> {
  page?: number;
  cursor?: string;
  pageSize: number;
  sortBy: S;
  sortDirection: "asc" | "desc";
}

/**
 * The page asked for: where it starts, and `answer(next)`, the answer's Paging and Sorting (`next`
 * is the page's last row when another page follows, else null). `binding` is everything a cursor
 * of this list is valid only with (lib/cursor.ts), pageSize included.
 */
export async function askedPage<S extends string>(secret: string, binding: unknown[], query: ListRequest<S>, sentWith: string) {
  const asked = await pageStart(secret, binding, query, query.pageSize);
  if (!asked) throw invalidCursor(sentWith);
  return {
    start: asked.start,
    answer: async (next: Omit<CursorPosition, "page"> | null) => ({
      Paging: { Page: asked.page, PageSize: query.pageSize, MaxPageSize: MAX_PAGE_SIZE, NextCursor: await nextCursor(secret, binding, asked.page, next) },
      Sorting: { SortBy: query.sortBy, SortDirection: query.sortDirection },
    }),
  };
}
