// Query pieces every list shares, with no knowledge of any resource: enum words matched without
// regard to case, paging by `page` or by an opaque `cursor` with their defaults (decisions 3:
// page 1, pages of 100), sorting. Resources compose them in their own schema files.
import { z } from "zod";
import { truncate } from "../lib/dates";

/** Decisions 3: 100 for orders and for feeds. */
export const MAX_PAGE_SIZE = 100;
/** Decisions 3 (corrected): a list asked without pageSize answers pages of this many. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * A fixed set of words, matched without regard to case, mapped to their canonical value. The
 * document lists the words of `shown` (what a generated client offers); any case is accepted.
 */
export function caseInsensitiveEnum<T extends string>(allowed: Record<string, T>, shown: string) {
  return z
    .string()
    .meta({ enum: shown.split(", ") })
    .transform((value, ctx) => {
      // Own keys only: 'constructor' or '__proto__' must not find what every object inherits.
      const word = value.trim().toLowerCase();
      const hit = Object.hasOwn(allowed, word) ? allowed[word] : undefined;
      if (hit === undefined) {
        ctx.addIssue({ code: "custom", message: `'${truncate(value)}' is not allowed; use one of ${shown}` });
        return z.NEVER;
      }
      return hit;
    });
}

const given = (what: string) => (issue: { input?: unknown }) =>
  // A parameter given twice arrives as an array: say so rather than "is required".
  issue.input === undefined ? "is required" : `must be given once (${what})`;

/** A whole number of 1 or more in a query string: an integer in the document, as a client sends it. */
export function positiveInt(what: string, maximum?: number) {
  return z
    .string({ error: given(what) })
    .refine((v) => /^\s*\d{1,9}\s*$/.test(v) && Number(v) >= 1, {
      error: (issue) => `must be a whole number of 1 or more (${what}); got '${truncate(String(issue.input))}'`,
    })
    .transform(Number)
    .meta({ type: "integer", minimum: 1, ...(maximum === undefined ? {} : { maximum }) });
}

/** A cursor is the NextCursor of an earlier answer: short, URL-safe; its signature is checked later. */
const cursorParam = z
  .string({ error: given("the NextCursor of the previous page") })
  .max(1000, { error: "is not a cursor this service issued" })
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, { error: "is not a cursor this service issued" });

/**
 * page and pageSize, each optional with its default (decisions 3): page 1 unless a cursor says
 * which page it continues, pages of DEFAULT_PAGE_SIZE; a larger pageSize is clamped to
 * MAX_PAGE_SIZE here, so every list reads the size it answers. Present but zero, negative or not
 * a whole number is still a 400.
 */
export const pagingQuery = {
  page: positiveInt("pages start at 1").optional().describe("The page to answer, from 1; page 1 when neither page nor cursor is sent."),
  pageSize: positiveInt(`at most ${MAX_PAGE_SIZE}; larger sizes are clamped`)
    .optional()
    .transform((n) => Math.min(n ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE))
    .describe(`Orders or feeds a page, 1 to ${MAX_PAGE_SIZE} (larger sizes are clamped); ${DEFAULT_PAGE_SIZE} when left out.`),
  cursor: cursorParam.optional(),
};

/** `page` and `cursor` are not sent together: a cursor already says which page it continues. Neither is page 1. */
export function pageOrCursor(value: { page?: number; cursor?: string }, ctx: z.RefinementCtx) {
  if (value.page !== undefined && value.cursor !== undefined) {
    ctx.addIssue({ code: "custom", path: ["cursor"], message: "cannot be combined with page: send one or the other" });
  }
}

export function sortingQuery<T extends string>(fields: readonly T[]) {
  return {
    sortBy: caseInsensitiveEnum(Object.fromEntries(fields.map((f) => [f.toLowerCase(), f])) as Record<string, T>, fields.join(", ")).optional(),
    sortDirection: caseInsensitiveEnum({ asc: "asc", desc: "desc" } as const, "asc, desc")
      .optional()
      .transform((v) => v ?? "asc"),
  };
}

/** Paging and Sorting of a list answer (orders and feeds), as the OpenAPI document shows them. */
export const pagingAnswer = z.object({
  Page: z.number().int(),
  PageSize: z.number().int(),
  MaxPageSize: z.number().int(),
  NextCursor: z.string().nullable().describe("Send as `cursor` for the next page; null on the last page."),
});
export const sortingAnswer = z.object({ SortBy: z.string(), SortDirection: z.enum(["asc", "desc"]) });
