// The one place where an order crosses between the interface's PascalCase Order (spec 2.3) and a
// row, both ways: orderWriteOf builds the row of a new order (a client's InsertOrder, and a
// marketplace's order once src/sources/imported-page.ts has put it in the interface's words),
// toWireOrder answers a row. Also the zod description of the Order, which the OpenAPI document
// shows and toWireOrder is typed by, and a page of them with their items, read a slice at a time,
// and their refunds (decisions 13).
import { z } from "zod";
import type { Db } from "../db/client";
import { FULFILLMENT_STATUSES, OUTBOX_STATES, type LineChangeRow, type OrderItemRow, type OrderRow } from "../db/schema";
import { DELIVERY_KINDS } from "../outbox/outbox.queries";
import { toWireDate, wireDateOrNull as wireDate } from "../lib/dates";
import { orderItemsOf, type OrderListPage } from "./orders.queries";
import { refundsOfOrders, type RefundView } from "../refunds/refunds.queries";
import { refundTotal, toWireRefund, wireRefund } from "../refunds/refunds.wire";
import { ORDER_STATUSES, type InsertOrderBody } from "./orders.schemas";

/** An ISO 8601 instant in UTC (`...Z`), or null when the event has not happened. */

export const wireOrderItem = z.object({
  OrderItemId: z.string(),
  Sku: z.string(),
  Name: z.string(),
  Quantity: z.number().int(),
  UnitPrice: z.number(),
  SaleTaxCost: z.number(),
  Discount: z.string().describe('A decimal amount, e.g. "1.50".'),
  QuantityShipped: z.number().int().describe("Units of the line shipped so far, in any package (decisions 12)."),
  QuantityCancelled: z.number().int().describe("Units of the line cancelled so far, by the seller or the marketplace."),
});

/** Lines and units of a package or a cancellation. */
export const wireLineUnits = z.object({ OrderItemId: z.string(), Quantity: z.number().int() });

export const wireShipment = z
  .object({
    ShipmentId: z.string().describe("The package's id: UpdateStatus SHIPPED with this ShipmentId corrects its tracking."),
    ShipmentTrackingNumber: z.string().nullable(),
    DestinationShippingCarrier: z.string().nullable(),
    ShippingMethod: z.string().nullable(),
    DateShipped: wireDate,
    Items: z.array(wireLineUnits),
  })
  .meta({ id: "Shipment" });

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
    Shipments: z.array(wireShipment).describe("The order's packages, in the order they were made (decisions 12)."),
    FulfillmentStatus: z.enum(FULFILLMENT_STATUSES),
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
  DateCreated: wireDate,
  DateDelivered: wireDate,
});

export interface WireOptions {
  maskBuyerPii: boolean;
  /** Whether the order's source is enabled; null when no source syncs it. */
  sourceEnabled: boolean | null;
  /** The order's refunds with their lines (refundsOfOrders). */
  refunds: RefundView[];
}

export function toWireOrder(order: OrderRow, items: OrderItemRow[], packages: LineChangeRow[], options: WireOptions): WireOrder {
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
      QuantityShipped: item.quantityShipped,
      QuantityCancelled: item.quantityCancelled,
    })),
    Shipments: packages.map((p) => ({
      ShipmentId: String(p.id),
      ShipmentTrackingNumber: p.trackingNumber,
      DestinationShippingCarrier: p.carrier,
      ShippingMethod: p.shippingMethod,
      DateShipped: toWireDate(p.dateShipped),
      Items: p.lines.map(([id, n]) => ({ OrderItemId: String(id), Quantity: n })),
    })),
    FulfillmentStatus: order.fulfillmentStatus,
    Refunds: options.refunds.map(toWireRefund),
    RefundTotal: refundTotal(options.refunds),
  };
}

/** A new order's row as the order write statements take it (orders.writes.ts): what it is not given is the statement's (ids, store, source, times). */
export type OrderValues = Omit<OrderRow, "id" | "storeId" | "sourceId" | "orderSource" | "cancelReason" | "dateUpdated">;
/** A line's values as a client or a marketplace gives them; the stock it took is the write's to set (orders.writes.ts). */
export type ItemValues = Omit<OrderItemRow, "id" | "orderId" | "stockTaken">;
/** One new order: its values and its lines. */
export type OrderWrite = OrderValues & { items: ItemValues[] };

/** A new order in the interface's words; its OrderSource is written beside the row (a marketplace's is its source's name). */
export type NewWireOrder = Omit<InsertOrderBody, "OrderSource">;

/** What a marketplace adds to a new order beyond the interface's fields. */
export interface MarketplaceFacts {
  /** The marketplace's status word (SourceOrderStatus); an inserted order's is its OrderStatus. */
  sourceOrderStatus: string;
  /** ImportedOrder.sourceData as JSON, or null. */
  sourceData: string | null;
  /** The marketplace's id of each line, in OrderItems' order. */
  lineIds: string[];
}

/**
 * The one builder of a new order's row (and its lines) from the interface's Order: what a field
 * left out becomes is decided here, for InsertOrder and for the import alike. `marketplace` is
 * given for an imported order.
 */
export function orderWriteOf(order: NewWireOrder, now: number, marketplace?: MarketplaceFacts): OrderWrite {
  const status = order.OrderStatus ?? "New";
  return {
    orderSourceOrderNumber: order.OrderSourceOrderNumber,
    orderSourceCustomerOrderNumber: order.OrderSourceCustomerOrderNumber ?? null,
    orderDestinationOrderNumber: order.OrderDestinationOrderNumber ?? null,
    status,
    sourceOrderStatus: marketplace?.sourceOrderStatus ?? status,
    buyerEmailAddress: order.BuyerEmailAddress,
    buyerPhoneNumber: order.BuyerPhoneNumber,
    buyerUserId: order.BuyerUserId ?? null,
    firstName: order.FirstName,
    lastName: order.LastName,
    shipToCompanyName: order.ShipToCompanyName,
    street1: order.Street1,
    street2: order.Street2 ?? "",
    city: order.City,
    stateOrProvince: order.StateOrProvince,
    postalCode: order.PostalCode,
    country: order.Country,
    shippingMethod: order.ShippingMethod,
    shippingServiceName: order.ShippingServiceName ?? "",
    shippingServiceValue: order.ShippingServiceValue ?? "",
    destinationShippingCarrier: order.DestinationShippingCarrier ?? "",
    paymentType: order.PaymentType ?? null,
    paymentTransactionId: order.PaymentTransactionId ?? null,
    isMarketplacePrime: order.IsMarketplacePrime ?? false,
    grandTotal: order.GrandTotal,
    subTotal: order.SubTotal,
    shippingTotal: order.ShippingTotal ?? 0,
    shippingTaxTotal: order.ShippingTaxTotal ?? 0,
    giftWrapTotal: order.GiftWrapTotal ?? 0,
    giftWrapTaxTotal: order.GiftWrapTaxTotal ?? 0,
    shipmentTrackingNumber: order.ShipmentTrackingNumber ?? null,
    syncUserErrorMessage: order.SyncUserErrorMessage ?? null,
    sourceData: marketplace?.sourceData ?? null,
    dateCreatedInOrderSource: order.DateCreatedInOrderSource,
    // The seller's system has the order once it carries the seller's number.
    dateCreatedInDestination: order.DateCreatedInDestination ?? (order.OrderDestinationOrderNumber ? now : null),
    dateShipped: order.DateShipped ?? null,
    // An order inserted Shipped or Canceled is so by its lines too (decisions 12): shipped in
    // full as one package (written beside it), or cancelled in full.
    fulfillmentStatus: status === "Shipped" || status === "Canceled" ? status : "Unshipped",
    items: order.OrderItems.map((item, i) => ({
      sourceLineId: marketplace?.lineIds[i] ?? null,
      sku: item.Sku,
      name: item.Name,
      quantity: item.Quantity,
      unitPrice: item.UnitPrice,
      saleTaxCost: item.SaleTaxCost ?? 0,
      discount: item.Discount ?? "0",
      quantityShipped: status === "Shipped" ? item.Quantity : 0,
      quantityCancelled: status === "Canceled" ? item.Quantity : 0,
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

/** Items are read a slice at a time (about 2 MB of items), so no answer holds a whole page of them. */
const ITEMS_PER_READ = 5_000;

/** A page's orders as wire Orders with their items, in page order. */
export async function* wireOrders(db: Db, page: OrderListPage): AsyncGenerator<WireOrder> {
  const byId = new Map(page.rows.map((r) => [r.order.id, r]));
  const refunds = await refundsOfOrders(db, [...byId.keys()]);
  for await (const slice of orderItemsOf(db, [...byId.keys()], ITEMS_PER_READ)) {
    for (const id of slice.ids) {
      const { order, sourceEnabled } = byId.get(id)!;
      yield toWireOrder(order, slice.items.get(id) ?? [], slice.packages.get(id) ?? [], {
        maskBuyerPii: page.maskBuyerPii,
        sourceEnabled,
        refunds: refunds.get(id) ?? [],
      });
    }
  }
}
