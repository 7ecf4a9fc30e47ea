// A return on the wire (decisions 13): the zod description the OpenAPI document shows and the
// one mapping of a return row with its lines to it, and the operator's view of a return's
// deliveries. An order line a marketplace lists on several return lines is one Item here (the
// quantities added up): Receive names lines by OrderItemId.
import { z } from "zod";
import { RETURN_STATUSES } from "../db/schema";
import { toWireDate, wireDate } from "../lib/dates";
import type { ReturnView } from "./returns.queries";

const wireDateOrNull = wireDate.nullable();

export const wireReturnItem = z.object({
  OrderItemId: z.string(),
  Sku: z.string(),
  Quantity: z.number().int().describe("How many of the line the buyer sends back."),
  QuantityReceived: z.number().int().describe("How many came back, as the seller recorded them (PUT .../Receive)."),
  QuantityRestocked: z.number().int().describe("Of those, how many went back in stock."),
  Reason: z.string().nullable(),
});

export const wireReturn = z
  .object({
    ReturnId: z.string(),
    OrderId: z.string(),
    OrderSource: z.string(),
    OrderSourceOrderNumber: z.string(),
    ReturnSourceNumber: z.string().describe("The marketplace's own id of the return."),
    Status: z.enum(RETURN_STATUSES),
    SourceStatus: z.string().describe("The marketplace's own word for the return's state."),
    DateRequested: wireDateOrNull,
    DateUpdated: wireDateOrNull,
    Reason: z.string().nullable(),
    Items: z.array(wireReturnItem),
    RefundTotal: z.number().describe("What the refunds naming this return add up to."),
  })
  .meta({ id: "Return" });
export type WireReturn = z.input<typeof wireReturn>;

/** The outbox rows of a return's order that concern the return (its receipts and decisions, refunds naming it). */
export const returnDelivery = z.object({
  DeliveryId: z.string(),
  Kind: z.string(),
  Status: z.string(),
  Attempts: z.number().int(),
  LastError: z.string().nullable(),
  Warning: z.string().nullable(),
  DateCreated: wireDateOrNull,
  DateDelivered: wireDateOrNull,
});

export function toWireReturn(ret: ReturnView, refundTotal: number): WireReturn {
  const items = new Map<number, WireReturn["Items"][number]>();
  for (const line of ret.lines) {
    const item = items.get(line.orderItemId);
    if (item) {
      item.Quantity += line.quantity;
      item.QuantityReceived += line.quantityReceived;
      item.QuantityRestocked += line.quantityRestocked;
      item.Reason ??= line.reason;
    } else {
      items.set(line.orderItemId, {
        OrderItemId: String(line.orderItemId),
        Sku: line.sku,
        Quantity: line.quantity,
        QuantityReceived: line.quantityReceived,
        QuantityRestocked: line.quantityRestocked,
        Reason: line.reason,
      });
    }
  }
  return {
    ReturnId: String(ret.id),
    OrderId: String(ret.orderId),
    OrderSource: ret.orderSource,
    OrderSourceOrderNumber: ret.orderSourceOrderNumber,
    ReturnSourceNumber: ret.sourceReturnNumber,
    Status: ret.status,
    SourceStatus: ret.sourceStatus,
    DateRequested: toWireDate(ret.dateRequested),
    DateUpdated: toWireDate(ret.dateUpdated),
    Reason: ret.reason,
    Items: [...items.values()],
    RefundTotal: refundTotal,
  };
}
