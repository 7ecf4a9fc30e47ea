// The body of PUT /v1/{token}/Orders/{orderId}/Refund (decisions 13), the single description the
// route validates and the OpenAPI document shows; src/http/validate.ts turns a failure into a 400
// naming the field.
import { z } from "zod";
import { LONE_SURROGATE } from "../http/validate";

/** An id as the wire writes it (a string of digits); a number is taken too. */
const wireId = (what: string) =>
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine((v) => /^[1-9]\d{0,15}$/.test(v), { error: `must be ${what} (a whole number as the hub answered it)` });

/** An amount of money: finite, above 0, at most two decimals (a cent). */
export const amount = z
  .number()
  .refine(Number.isFinite, { error: "must be a finite number" })
  .refine((n) => n > 0, { error: "must be above 0" })
  .refine((n) => n <= 1e12, { error: "is out of range" })
  .refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, { error: "must have at most two decimals" });

export const refundItem = z
  .object({
    OrderItemId: wireId("an OrderItemId of the order"),
    Quantity: z.number().int().min(0).max(1_000_000),
    Amount: amount.optional(),
  })
  .superRefine((item, ctx) => {
    if (item.Quantity === 0 && item.Amount === undefined) {
      ctx.addIssue({ code: "custom", path: ["Amount"], message: "is required when Quantity is 0 (an amount-only refund of the line)" });
    }
  });

export const refundBody = z
  .object({
    Items: z
      .array(refundItem)
      .min(1, { error: "must name at least one line (or leave Items out)" })
      .max(500, { error: "must hold at most 500 lines" })
      .optional(),
    ShippingAmount: z
      .number()
      .refine(Number.isFinite, { error: "must be a finite number" })
      .refine((n) => n >= 0, { error: "must not be negative" })
      .refine((n) => n <= 1e12, { error: "is out of range" })
      .refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, { error: "must have at most two decimals" })
      .optional(),
    Reason: z
      .string({ error: "is required: why the money is paid back" })
      .trim()
      .min(1, { error: "must not be empty" })
      .max(500, { error: "must be at most 500 characters" })
      .refine((v) => !LONE_SURROGATE.test(v), { error: "is not valid Unicode text (it holds an unpaired surrogate)" }),
    ReturnId: wireId("a ReturnId of the order").optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Map<string, number>();
    body.Items?.forEach((item, i) => {
      if (seen.has(item.OrderItemId)) {
        ctx.addIssue({
          code: "custom",
          path: ["Items", i, "OrderItemId"],
          message: `names line ${item.OrderItemId} again (it is Items[${seen.get(item.OrderItemId)}]); name each line once`,
        });
      }
      seen.set(item.OrderItemId, i);
    });
  });
export type RefundBody = z.infer<typeof refundBody>;
