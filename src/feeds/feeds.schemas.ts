// The single description of every feed query and body (wire names), as for orders.
import { z } from "zod";
import { caseInsensitiveEnum, pageOrCursor, pagingQuery, positiveInt, sortingQuery } from "../http/query-schemas";
import { adminProduct, knownField } from "../products/product-fields";
import { DEFAULT_TEMPLATE, TEMPLATES } from "./templates";

export const FEED_SORT_FIELDS = ["Name", "DateLastCompiled"] as const;
export type FeedSortField = (typeof FEED_SORT_FIELDS)[number];

const filterQuery = z.string().max(200, { error: "must be at most 200 characters" }).optional();

/**
 * filterQuery is optional on the list too: the interface lists it as required, but a client
 * that wants every feed sends none, and an empty filter would match every name anyway.
 */
export const feedCountQuery = z.object({ filterQuery });
export const feedListQuery = z
  .object({ filterQuery, ...pagingQuery, ...sortingQuery(FEED_SORT_FIELDS) })
  .superRefine(pageOrCursor)
  .transform((q) => ({ ...q, sortBy: q.sortBy ?? ("Name" as const) }));
export type FeedListQuery = z.infer<typeof feedListQuery>;

export const feedIdParam = z.object({ feedId: z.string() });

const column = z.object({
  Header: z.string().min(1, { error: "must not be empty" }).max(200),
  // A catalog field (Sku, Title, ImageLink, ...) in any case, or the name of an extra column.
  Field: z
    .string()
    .trim()
    .min(1, { error: "must not be empty" })
    .max(100)
    .transform((f) => knownField(f) ?? f),
});

export const createFeedBody = z.object({
  Name: z.string().trim().min(1, { error: "must not be empty" }).max(200),
  Format: caseInsensitiveEnum({ csv: "csv", tsv: "tsv" } as const, "csv, tsv"),
  Columns: z.array(column).min(1, { error: "must name at least one column" }).max(100).optional(),
  Template: caseInsensitiveEnum(Object.fromEntries(Object.keys(TEMPLATES).map((t) => [t, t])) as Record<string, string>, Object.keys(TEMPLATES).join(", "))
    .optional()
    .describe(
      `The channel whose columns and rules the feed follows: ${Object.keys(TEMPLATES).join(", ")} (any case). ` +
        `Default ${DEFAULT_TEMPLATE}. Columns, when given, replace the template's columns; its rules still decide which products are written.`,
    ),
  CompileIntervalMinutes: z.number().int().min(15, { error: "must be at least 15" }).max(10_080).nullish(),
  EscapeFormulas: z
    .boolean()
    .optional()
    .describe(
      "For channels that open the file in a spreadsheet: every cell starting with =, +, -, @ (or a tab or carriage return) is written with a leading ' so " +
        "that it is shown, never run as a formula. Off by default: the file holds the catalog's values exactly.",
    ),
});
export type CreateFeedBody = z.infer<typeof createFeedBody>;

/** Format stays: a file already compiled as CSV must not be served as TSV. */
export const updateFeedBody = createFeedBody
  .omit({ Format: true })
  .partial()
  .extend({
    Columns: createFeedBody.shape.Columns.nullable(),
    Format: z.undefined({ error: "cannot change: create a new feed for the other format" }).optional(),
  });

export const productsBody = z.object({
  Products: z.array(z.unknown()).max(100_000, { error: "must hold at most 100000 products a request; use a CSV upload for more" }),
});

/** A parameter given twice arrives as an array: say so rather than what a string must be. */
const once = (issue: { input?: unknown }) => (Array.isArray(issue.input) ? "must be given once" : "must be a string");

/** GET .../products: a page of the catalog in Sku order, continued after the previous page's last Sku. */
export const productListQuery = z.object({
  afterSku: z
    .string({ error: once })
    .min(1, { error: "must not be empty: leave it out for the first page" })
    .max(100, { error: "must be at most 100 characters (a Sku is)" })
    .optional()
    .describe("Skus after this one, in Sku order: the NextAfterSku of the previous page. Left out: from the first Sku."),
  limit: positiveInt("1 to 200", 200)
    .pipe(z.number().max(200, { error: "must be at most 200" }))
    .optional()
    .transform((n) => n ?? 50)
    .describe("Products a page, 1 to 200; 50 when left out."),
});

export const productListAnswer = {
  Products: z.array(adminProduct),
  NextAfterSku: z.string().nullable().describe("Send as afterSku for the next page; null on the last page."),
};
