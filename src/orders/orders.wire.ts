// The one place where an order row becomes the interface's PascalCase Order (spec 2.3), the zod
// description of that Order, which the OpenAPI document shows and toWireOrder is typed by, and a
// page of them with their items, read a slice of items at a time, and their refunds (decisions 13).
import { z } from "zod";
import type { Db } from "../db/client";
import { OUTBOX_STATES, type OrderItemRow, type OrderRow } from "../db/schema";
import { DELIVERY_KINDS } from "../outbox/outbox.queries";
import { toWireDate } from "../lib/dates";
import { orderItemsOf, type OrderListPage } from "./orders.queries";
import { refundsOfOrders, type RefundView } from "../refunds/refunds.queries";
import { refundTotal, toWireRefund, wireRefund } from "../refunds/refunds.wire";
import { ORDER_STATUSES } from "./orders.schemas";

/** An ISO 8601 instant in UTC (`...Z`), or null when the event has not happened. */
const wireDate = z.string().nullable();

export const wireOrderItem = z.object({
  OrderItemId: z.string(),
  Sku: z.string(),
  Name: z.string(),
  Quantity: z.number().int(),
  UnitPrice: z.number(),
  SaleTaxCost: z.number(),
  Discount: z.string().describe("A decimal amount, e.g. \"1.50\"."),
});

export const wireOrder = z
  .object({
    OrderId: z.string(),
    BuyerEmailAddress: z.string().describe("Masked (j***@example.com) when the store masks buyer PII."),
    BuyerPhoneNumber: z.string(),
    BuyerUserId: z.string().nullable(),
    DateCreatedInDestination: wireDate,
    DateCreatedInOrderSource: wireDate,
    DateShipped: wireDate,
    DateUpdated: wireDate,
    GrandTotal: z.number(),
    SubTotal: z.number(),
    ShippingTotal: z.number(),
    ShippingTaxTotal: z.number(),
    GiftWrapTotal: z.number(),
    GiftWrapTaxTotal: z.number(),
    OrderDestinationOrderNumber: z.string().nullable(),
    OrderSource: z.string(),
    OrderSourceOrderNumber: z.string(),
    OrderSourceCustomerOrderNumber: z.string().nullable(),
    PaymentTransactionId: z.string().nullable(),
    PaymentType: z.string().nullable(),
    ShipmentTrackingNumber: z.string().nullable(),
    FirstName: z.string(),
    LastName: z.string(),
    ShipToCompanyName: z.string().nullable(),
    Street1: z.string(),
    Street2: z.string(),
    City: z.string(),
    StateOrProvince: z.string(),
    PostalCode: z.string(),
    Country: z.string(),
    ShippingMethod: z.string(),
    ShippingServiceName: z.string(),
    ShippingServiceValue: z.string(),
    DestinationShippingCarrier: z.string(),
    SyncUserErrorMessage: z.string().nullable(),
    OrderStatus: z.enum(ORDER_STATUSES),
    SourceOrderStatus: z.string(),
    SyncStatus: z.enum(["Enabled", "Disabled"]),
    IsMarketplacePrime: z.boolean(),
    OrderItems: z.array(wireOrderItem),
    Refunds: z.array(wireRefund).describe("Money paid back on the order, oldest first: through PUT .../Refund, or in the marketplace (decisions 13)."),
    RefundTotal: z.number().describe("What the Refunds add up to."),
  })
  .meta({ id: "Order" });
export type WireOrder = z.input<typeof wireOrder>;

/** A delivery of an order to its marketplace, as the operator's order view answers it. */
export const orderDelivery = z.object({
  DeliveryId: z.string(),
  SourceId: z.string(),
  Kind: z.enum(DELIVERY_KINDS),
  Status: z.enum(OUTBOX_STATES),
  Attempts: z.number().int(),
  LastError: z.string().nullable(),
  DateCreated: z.string().nullable(),
  DateDelivered: z.string().nullable(),
});

export interface WireOptions {
  maskBuyerPii: boolean;
  /** Whether the order's source is enabled; null when no source syncs it. */
  sourceEnabled: boolean | null;
  /** The order's refunds with their lines (refundsOfOrders). */
  refunds: RefundView[];
}

export function toWireOrder(order: OrderRow, items: OrderItemRow[], options: WireOptions): WireOrder {
  return {
    OrderId: String(order.id),
    BuyerEmailAddress: options.maskBuyerPii ? maskEmail(order.buyerEmailAddress) : order.buyerEmailAddress,
    BuyerPhoneNumber: options.maskBuyerPii ? maskPhone(order.buyerPhoneNumber) : order.buyerPhoneNumber,
    BuyerUserId: order.buyerUserId,
    DateCreatedInDestination: toWireDate(order.dateCreatedInDestination),
    DateCreatedInOrderSource: toWireDate(order.dateCreatedInOrderSource),
    DateShipped: toWireDate(order.dateShipped),
    DateUpdated: toWireDate(order.dateUpdated),
    GrandTotal: order.grandTotal,
    SubTotal: order.subTotal,
    ShippingTotal: order.shippingTotal,
    ShippingTaxTotal: order.shippingTaxTotal,
    GiftWrapTotal: order.giftWrapTotal,
    GiftWrapTaxTotal: order.giftWrapTaxTotal,
    OrderDestinationOrderNumber: order.orderDestinationOrderNumber,
    OrderSource: order.orderSource,
    OrderSourceOrderNumber: order.orderSourceOrderNumber,
    OrderSourceCustomerOrderNumber: order.orderSourceCustomerOrderNumber,
    PaymentTransactionId: order.paymentTransactionId,
    PaymentType: order.paymentType,
    ShipmentTrackingNumber: order.shipmentTrackingNumber,
    FirstName: order.firstName,
    LastName: order.lastName,
    ShipToCompanyName: order.shipToCompanyName,
    Street1: order.street1,
    Street2: order.street2,
    City: order.city,
    StateOrProvince: order.stateOrProvince,
    PostalCode: order.postalCode,
    Country: order.country,
    ShippingMethod: order.shippingMethod,
    ShippingServiceName: order.shippingServiceName,
    ShippingServiceValue: order.shippingServiceValue,
    DestinationShippingCarrier: order.destinationShippingCarrier,
    SyncUserErrorMessage: order.syncUserErrorMessage,
    OrderStatus: order.status as WireOrder["OrderStatus"],
    SourceOrderStatus: order.sourceOrderStatus,
    SyncStatus: options.sourceEnabled ? "Enabled" : "Disabled",
    IsMarketplacePrime: order.isMarketplacePrime,
    OrderItems: items.map((item) => ({
      OrderItemId: String(item.id),
      Sku: item.sku,
      Name: item.name,
      Quantity: item.quantity,
      UnitPrice: item.unitPrice,
      SaleTaxCost: item.saleTaxCost,
      Discount: item.discount,
    })),
    Refunds: options.refunds.map(toWireRefund),
    RefundTotal: refundTotal(options.refunds),
  };
}

/** j***@example.com: enough to recognise, not enough to contact. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return email ? "***" : "";
  return `${email[0]}***${email.slice(at)}`;
}

/** ***-***-1234 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  return digits.length < 4 ? (phone ? "***" : "") : `***-***-${digits.slice(-4)}`;
}

/** Items are read a slice at a time (about 2 MB of items), so no answer holds a whole page of them. */
const ITEMS_PER_READ = 5_000;

/** A page's orders as wire Orders with their items, in page order. */
export async function* wireOrders(db: Db, page: OrderListPage): AsyncGenerator<WireOrder> {
  const byId = new Map(page.rows.map((r) => [r.order.id, r]));
  const refunds = await refundsOfOrders(db, [...byId.keys()]);
  for await (const slice of orderItemsOf(db, [...byId.keys()], ITEMS_PER_READ)) {
    for (const id of slice.ids) {
      const { order, sourceEnabled } = byId.get(id)!;
      yield toWireOrder(order, slice.items.get(id) ?? [], { maskBuyerPii: page.maskBuyerPii, sourceEnabled, refunds: refunds.get(id) ?? [] });
    }
  }
}
