// The single description of every order query and body. Field names are the wire's (PascalCase
// in bodies, camelCase in queries); src/http/validate.ts turns a failure into a 400 naming them.
import { z } from "zod";
import { caseInsensitiveEnum, pageOrCursor, pagingQuery, sortingQuery } from "../http/query-schemas";
import { isoDateField, truncate } from "../lib/dates";
import type { FULFILLMENT_STATUSES } from "../db/schema";

export const ORDER_STATUSES = ["New", "Processing", "Shipped", "Canceled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An OrderStatus in a query, in any case ("cancelled" too): the API's and the operator's filters. */
export const statusFilter = caseInsensitiveEnum<OrderStatus>(
  { new: "New", processing: "Processing", shipped: "Shipped", canceled: "Canceled", cancelled: "Canceled" },
  "NEW, PROCESSING, SHIPPED, CANCELED",
);

const dateField = caseInsensitiveEnum({ created: "created", updated: "updated" } as const, "created, updated");

/** A FulfillmentStatus in a query, in any case (decisions 12). */
export const fulfillmentFilter = caseInsensitiveEnum<(typeof FULFILLMENT_STATUSES)[number]>(
  { unshipped: "Unshipped", partiallyshipped: "PartiallyShipped", shipped: "Shipped", canceled: "Canceled", cancelled: "Canceled" },
  "UNSHIPPED, PARTIALLYSHIPPED, SHIPPED, CANCELED",
);

const dateRange = {
  fromDate: isoDateField,
  toDate: isoDateField,
  status: statusFilter.optional(),
  fulfillmentStatus: fulfillmentFilter.optional(),
  dateField: dateField.optional().transform((v) => v ?? "created"),
};

function fromNotAfterTo<T extends { fromDate: number; toDate: number }>(value: T, ctx: z.RefinementCtx) {
  if (value.fromDate > value.toDate) {
    ctx.addIssue({ code: "custom", path: ["fromDate"], message: "must not be after toDate" });
  }
}

export const ORDER_SORT_FIELDS = ["DateCreatedInOrderSource", "DateUpdated", "OrderId", "GrandTotal", "OrderStatus"] as const;
export type OrderSortField = (typeof ORDER_SORT_FIELDS)[number];

export const orderCountQuery = z.object(dateRange).superRefine(fromNotAfterTo);
export const orderListQuery = z
  .object({ ...dateRange, ...pagingQuery, ...sortingQuery(ORDER_SORT_FIELDS) })
  .superRefine(fromNotAfterTo)
  .superRefine(pageOrCursor)
  // Decisions 3: the default sort is the date the query filters on.
  .transform((q) => ({ ...q, sortBy: q.sortBy ?? (q.dateField === "updated" ? ("DateUpdated" as const) : ("DateCreatedInOrderSource" as const)) }));
export type OrderFilter = z.infer<typeof orderCountQuery>;
export type OrderListQuery = z.infer<typeof orderListQuery>;

export const orderIdParam = z.object({ orderId: z.string() });

export const acknowledgeQuery = z.object({
  orderDestinationOrderNumber: z
    .string({ error: "is required: the seller's own order number" })
    .trim()
    .min(1, { error: "must not be empty" })
    .max(100, { error: "must be at most 100 characters" }),
});

/** A UTF-16 half without its other half: JSON can carry it (\ud800), UTF-8 storage cannot. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const text = (max = 500) =>
  z
    .string()
    .max(max, { error: `must be at most ${max} characters` })
    .refine((v) => !LONE_SURROGATE.test(v), { error: "is not valid Unicode text (it holds an unpaired surrogate)" });
/**
 * A required field an order cannot be shipped without; kept verbatim but never blank. LastName,
 * StateOrProvince, PostalCode and the buyer's contact may be empty: mononyms, countries without
 * states or postal codes, marketplaces that withhold the buyer's contact.
 */
const nonBlank = (max = 500) => text(max).refine((v) => v.trim().length > 0, { error: "must not be empty" });
const optionalText = (max = 500) => text(max).nullish();
const money = z
  .number()
  .refine(Number.isFinite, { error: "must be a finite number" })
  .refine((n) => Math.abs(n) <= 1e12, { error: "is out of range" });
const nonNegativeMoney = money.refine((n) => n >= 0, { error: "must not be negative" });
const decimalString = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .refine((v) => /^-?\d{1,12}(\.\d{1,6})?$/.test(v), { error: 'must be a decimal amount such as "1.50"' });
const emptyId = (what: string) =>
  z
    .union([z.string(), z.number(), z.null()])
    .optional()
    .refine((v) => v === undefined || v === null || v === "" || v === 0, {
      error: `is assigned by the service; send it empty or leave it out (${what})`,
    });

const insertStatus = caseInsensitiveEnum<OrderStatus>(
  { new: "New", processing: "Processing", shipped: "Shipped", canceled: "Canceled", cancelled: "Canceled" },
  "NEW, PROCESSING, SHIPPED, CANCELED",
);

export const insertOrderItem = z.object({
  OrderItemId: emptyId("OrderItemId"),
  Sku: text(200).trim().min(1, { error: "must not be empty" }),
  Name: nonBlank(1000),
  Quantity: z.number().int().min(1).max(1_000_000),
  UnitPrice: nonNegativeMoney,
  SaleTaxCost: nonNegativeMoney.optional(),
  Discount: decimalString.optional(),
});

export const insertOrderBody = z.object({
  OrderId: emptyId("OrderId"),
  BuyerEmailAddress: text(320),
  BuyerPhoneNumber: text(50),
  BuyerUserId: optionalText(200),
  OrderSource: text(100).trim().min(1, { error: "must not be empty" }),
  OrderSourceOrderNumber: text(100).trim().min(1, { error: "must not be empty" }),
  OrderSourceCustomerOrderNumber: optionalText(100),
  OrderDestinationOrderNumber: optionalText(100),
  OrderStatus: insertStatus.optional(),
  DateCreatedInOrderSource: isoDateField,
  DateCreatedInDestination: isoDateField.nullish(),
  DateShipped: isoDateField.nullish(),
  ShipmentTrackingNumber: optionalText(100),
  ShipToCompanyName: text(200).nullable(),
  FirstName: nonBlank(200),
  LastName: text(200),
  Street1: nonBlank(300),
  Street2: optionalText(300),
  City: nonBlank(200),
  StateOrProvince: text(100),
  Country: nonBlank(100),
  PostalCode: text(40),
  ShippingMethod: nonBlank(200),
  ShippingServiceName: optionalText(200),
  ShippingServiceValue: optionalText(200),
  DestinationShippingCarrier: optionalText(200),
  PaymentType: optionalText(100),
  PaymentTransactionId: optionalText(200),
  SyncUserErrorMessage: optionalText(2000),
  IsMarketplacePrime: z.boolean().optional(),
  GrandTotal: nonNegativeMoney,
  SubTotal: nonNegativeMoney,
  ShippingTotal: nonNegativeMoney.optional(),
  ShippingTaxTotal: nonNegativeMoney.optional(),
  GiftWrapTotal: nonNegativeMoney.optional(),
  GiftWrapTaxTotal: nonNegativeMoney.optional(),
  OrderItems: z.array(insertOrderItem).min(1, { error: "must hold at least one item" }).max(500, { error: "must hold at most 500 items" }),
});
export type InsertOrderBody = z.infer<typeof insertOrderBody>;

/** An id the service assigned (OrderItemId, ShipmentId): a string of digits, or the number itself. */
const assignedId = z
  .union([z.string(), z.number()], { error: "must be a string holding the id the service gave" })
  .transform((v) => String(v).trim())
  .refine((v) => /^[1-9]\d{0,15}$/.test(v), { error: "is not an id the service gives" });

/** Decisions 12: the lines and units one package ships or one cancellation cancels. */
export const MAX_ITEMS_PER_MOVE = 500;
const moveItems = z
  .array(
    z.object({
      OrderItemId: assignedId,
      Quantity: z
        .number({ error: "must be a whole number of units, at least 1" })
        .int({ error: "must be a whole number of units, at least 1" })
        .min(1, { error: "must be at least 1" })
        .max(1_000_000, { error: "must be at most 1000000" }),
    }),
  )
  .min(1, { error: "must name at least one line; leave Items out to ship or cancel every unit left" })
  .max(MAX_ITEMS_PER_MOVE, { error: `must hold at most ${MAX_ITEMS_PER_MOVE} entries` })
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.OrderItemId))
        ctx.addIssue({ code: "custom", path: [i, "OrderItemId"], message: `names OrderItemId '${item.OrderItemId}' a second time; each line once` });
      seen.add(item.OrderItemId);
    });
  });

export const updateStatusBody = z
  .object({
    OrderStatus: z
      .string({ error: "is required: SHIPPED or CANCELLED" })
      .meta({ enum: ["SHIPPED", "CANCELED", "CANCELLED"] })
      .transform((value, ctx) => {
        const v = value.trim().toUpperCase();
        if (v === "SHIPPED") return "Shipped" as const;
        if (v === "CANCELED" || v === "CANCELLED") return "Canceled" as const;
        ctx.addIssue({
          code: "custom",
          message: `only CANCELLED or SHIPPED status updates are allowed; got '${truncate(value)}'`,
        });
        return z.NEVER;
      }),
    ShipmentTrackingNumber: optionalText(100),
    DateShipped: isoDateField.nullish(),
    DestinationShippingCarrier: optionalText(200),
    Items: moveItems
      .optional()
      .describe(
        "Decisions 12: SHIPPED ships exactly these units as one package; CANCELED cancels exactly these. Left out: every unit not yet shipped (or cancelled).",
      ),
    ShipmentId: assignedId
      .optional()
      .describe("SHIPPED without Items: correct this package's tracking, carrier and date (default: the newest package, when nothing is left to ship)."),
  })
  .superRefine((body, ctx) => {
    if (body.ShipmentId !== undefined && body.Items !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["Items"],
        message: "cannot go with ShipmentId: a correction changes a package's tracking, carrier and date, never its lines",
      });
    }
    if (body.ShipmentId !== undefined && body.OrderStatus === "Canceled") {
      ctx.addIssue({ code: "custom", path: ["ShipmentId"], message: "goes with SHIPPED only (a package's correction)" });
    }
  });
export type UpdateStatusBody = z.infer<typeof updateStatusBody>;
