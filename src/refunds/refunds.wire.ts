// A refund on the wire (decisions 13): the zod description the OpenAPI document shows (an
// Order's Refunds, the Refund call's answer) and the one mapping of a refund row to it.
import { z } from "zod";
import { REFUND_STATUSES } from "../db/schema";
import { toWireDate, wireDate } from "../lib/dates";
import type { RefundView } from "./refunds.queries";

export const wireRefund = z
  .object({
    RefundId: z.string(),
    Status: z
      .enum(REFUND_STATUSES)
      .describe(
        "Pending until the marketplace takes it; NotApplicable when there is no marketplace to tell or it takes no refunds (the seller refunds there).",
      ),
    Origin: z.enum(["Hub", "Marketplace"]).describe("Hub: made through PUT .../Refund. Marketplace: made in the marketplace and imported."),
    Reason: z.string(),
    ReturnId: z.string().nullable().describe("The return the refund settles, if any."),
    SourceRefundId: z.string().nullable().describe("The marketplace's id of the refund, once it has one."),
    Items: z.array(z.object({ OrderItemId: z.string(), Quantity: z.number().int(), Amount: z.number() })),
    ShippingAmount: z.number(),
    Total: z.number().describe("Items' amounts plus ShippingAmount."),
    Currency: z.string().nullable().describe("The marketplace's currency when it said one; null: the order's."),
    DateCreated: wireDate.nullable(),
  })
  .meta({ id: "Refund" });
export type WireRefund = z.input<typeof wireRefund>;

export function toWireRefund(refund: RefundView): WireRefund {
  return {
    RefundId: String(refund.id),
    Status: refund.status,
    Origin: refund.origin === "hub" ? "Hub" : "Marketplace",
    Reason: refund.reason,
    ReturnId: refund.returnId === null ? null : String(refund.returnId),
    SourceRefundId: refund.sourceRefundId,
    Items: refund.lines.map((l) => ({ OrderItemId: String(l.orderItemId), Quantity: l.quantity, Amount: l.amount })),
    ShippingAmount: refund.shippingAmount,
    Total: refund.total,
    Currency: refund.currency,
    DateCreated: toWireDate(refund.dateCreated),
  };
}

/** What an order's refunds add up to, to the cent. */
export function refundTotal(refunds: readonly { total: number }[]): number {
  return Math.round(refunds.reduce((n, r) => n + r.total, 0) * 100) / 100;
}
