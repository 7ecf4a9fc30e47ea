// The one place where an order row becomes the interface's PascalCase Order (spec 2.3).
import type { OrderItemRow, OrderRow } from "../db/schema";
import { toWireDate } from "../lib/dates";

export interface WireOptions {
  maskBuyerPii: boolean;
  /** Whether the order's source is enabled; null when no source syncs it. */
  sourceEnabled: boolean | null;
}

export function toWireOrder(order: OrderRow, items: OrderItemRow[], options: WireOptions) {
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
    OrderStatus: order.status,
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
