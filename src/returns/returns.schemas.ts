// The single description of every returns query and body (decisions 13): the list's filters,
// paging and sorting (the pieces orders use, src/http/query-schemas.ts), Receive, and the seller's
// decision on a requested return. src/http/validate.ts turns a failure into a 400 naming the field.
import { z } from "zod";
import { RETURN_STATUSES } from "../db/schema";
import { caseInsensitiveEnum, pageOrCursor, pagingQuery, sortingQuery } from "../http/query-schemas";
import { LONE_SURROGATE } from "../http/validate";
import { isoDateField } from "../lib/dates";

export type ReturnStatus = (typeof RETURN_STATUSES)[number];

/** A Status in a query, in any case (REQUESTED, received, ...). */
export const returnStatusFilter = caseInsensitiveEnum<ReturnStatus>(
  Object.fromEntries(RETURN_STATUSES.map((s) => [s.toLowerCase(), s])) as Record<string, ReturnStatus>,
  RETURN_STATUSES.map((s) => s.toUpperCase()).join(", "),
);

/** `requested` (DateRequested, the default) or `updated`; `created` reads as requested, as a client written for orders sends it. */
const dateField = caseInsensitiveEnum({ requested: "requested", created: "requested", updated: "updated" } as const, "requested, updated");

const dateRange = {
  fromDate: isoDateField,
  toDate: isoDateField,
  status: returnStatusFilter.optional(),
  dateField: dateField.optional().transform((v) => v ?? "requested"),
};

function fromNotAfterTo<T extends { fromDate: number; toDate: number }>(value: T, ctx: z.RefinementCtx) {
  if (value.fromDate > value.toDate) ctx.addIssue({ code: "custom", path: ["fromDate"], message: "must not be after toDate" });
}

export const RETURN_SORT_FIELDS = ["DateRequested", "DateUpdated", "ReturnId", "Status"] as const;
export type ReturnSortField = (typeof RETURN_SORT_FIELDS)[number];

export const returnCountQuery = z.object(dateRange).superRefine(fromNotAfterTo);
export const returnListQuery = z
  .object({ ...dateRange, ...pagingQuery, ...sortingQuery(RETURN_SORT_FIELDS) })
  .superRefine(fromNotAfterTo)
  .superRefine(pageOrCursor)
  // As orders: the default sort is the date the query filters on.
  .transform((q) => ({ ...q, sortBy: q.sortBy ?? (q.dateField === "updated" ? ("DateUpdated" as const) : ("DateRequested" as const)) }));
export type ReturnFilter = z.infer<typeof returnCountQuery>;
export type ReturnListQuery = z.infer<typeof returnListQuery>;

export const returnIdParam = z.object({ returnId: z.string() });

const wireId = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .refine((v) => /^[1-9]\d{0,15}$/.test(v), { error: "must be an OrderItemId of the return (a whole number as the hub answered it)" });

/** Every OrderItemId of a list once. */
function eachLineOnce(items: { OrderItemId: string }[] | undefined, ctx: z.RefinementCtx) {
  const seen = new Map<string, number>();
  items?.forEach((item, i) => {
    if (seen.has(item.OrderItemId)) {
      ctx.addIssue({
        code: "custom",
        path: ["Items", i, "OrderItemId"],
        message: `names line ${item.OrderItemId} again (it is Items[${seen.get(item.OrderItemId)}]); name each line once`,
      });
    }
    seen.set(item.OrderItemId, i);
  });
}

export const receiveBody = z
  .object({
    Items: z
      .array(
        z.object({
          OrderItemId: wireId,
          Quantity: z
            .number()
            .int()
            .min(0)
            .max(1_000_000)
            .describe("How many of the line have come back so far, in all (not this delivery's count): a repeated call changes nothing."),
        }),
      )
      .min(1, { error: "must name at least one line of the return" })
      .max(500, { error: "must hold at most 500 lines" }),
    Restock: z.boolean().optional().describe("true: the units this call adds to what was received go back in stock (once each)."),
  })
  .superRefine((body, ctx) => eachLineOnce(body.Items, ctx));
export type ReceiveBody = z.infer<typeof receiveBody>;

export const decisionBody = z.object({
  Reason: z
    .string()
    .trim()
    .min(1, { error: "must not be empty (or leave it out)" })
    .max(500, { error: "must be at most 500 characters" })
    .refine((v) => !LONE_SURROGATE.test(v), { error: "is not valid Unicode text (it holds an unpaired surrogate)" })
    .optional(),
});
export type DecisionBody = z.infer<typeof decisionBody>;
