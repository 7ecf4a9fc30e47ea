// Amazon's shapes to the service's vocabulary and back, with no I/O and no clock: an Order of
// searchOrders to an ImportedOrder (or the reason it cannot be one), a shipment to a
// confirmShipment body, acknowledgements and cancellations to one POST_ORDER_ACKNOWLEDGEMENT_DATA
// XML document, a feed processing report to its results, Amazon's error bodies to one line.
import { XMLBuilder, XMLParser, XMLValidator } from "fast-xml-parser";
import type { CancelDelivery, Delivery, ImportedOrder, ImportedOrderItem, ImportedShipment, ShipDelivery } from "../connector";
import { refusal } from "../kit/marketplace-http";
import { cents as centsOf, fromCents, splitName, squash } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import type {
  AmazonCancelReason,
  AmazonConfirmShipmentRequest,
  AmazonCustomerAddress,
  AmazonErrorList,
  AmazonMoney,
  AmazonOrder,
  AmazonOrderItem,
  AmazonOrderPackage,
  LwaError,
  ProcessingReport,
  ProcessingResult,
} from "./amazon.types";

function unmappable(message: string): Unmappable {
  return new Unmappable(message);
}

/** A delivery its own data makes impossible (no tracking number): the same on every retry. */
const impossible = (message: string) => refusal("Amazon", message);

const cents = (money: AmazonMoney | null | undefined, where: string): number => centsOf(money?.amount, where);
const text = (s: string | null | undefined): string => (typeof s === "string" ? s.trim() : "");

interface Money {
  item: number;
  discount: number;
  itemTax: number;
  shipping: number;
  shippingTax: number;
  giftWrap: number;
  giftWrapTax: number;
  other: number;
}

const zero = (): Money => ({ item: 0, discount: 0, itemTax: 0, shipping: 0, shippingTax: 0, giftWrap: 0, giftWrapTax: 0, other: 0 });

/**
 * One proceeds breakdown into the service's buckets. TAX is split by its detailed breakdowns'
 * subtypes (ITEM, SHIPPING, GIFT_WRAP, ...) when Amazon gives them; a TAX without them is the
 * item's. DISCOUNT's sign is not documented: its size is what reduces the price.
 */
function addBreakdown(
  m: Money,
  b: { type?: string | null; subtotal?: AmazonMoney | null; detailedBreakdowns?: { subtype?: string | null; value?: AmazonMoney | null }[] | null },
  where: string,
): void {
  const type = text(b.type).toUpperCase();
  const amount = cents(b.subtotal, `${where} ${type || "breakdown"}`);
  if (type === "ITEM") m.item += amount;
  else if (type === "SHIPPING") m.shipping += amount;
  else if (type === "GIFT_WRAP") m.giftWrap += amount;
  else if (type === "DISCOUNT") m.discount += Math.abs(amount);
  else if (type === "TAX") {
    const details = b.detailedBreakdowns ?? [];
    if (details.length === 0) m.itemTax += amount;
    for (const d of details) {
      const subtype = text(d.subtype).toUpperCase();
      const value = cents(d.value, `${where} TAX ${subtype}`);
      if (subtype === "SHIPPING") m.shippingTax += value;
      else if (subtype === "GIFT_WRAP") m.giftWrapTax += value;
      else m.itemTax += value;
    }
  }
  // COD_FEE, OTHER and any later category: the buyer paid it, so GrandTotal keeps it.
  else m.other += amount;
}

function quantityOf(item: AmazonOrderItem, where: string): number {
  const n = item.quantityOrdered;
  if (typeof n !== "number" || !Number.isInteger(n) || n <= 0) {
    throw unmappable(`${where}: quantityOrdered ${JSON.stringify(n ?? null)} is not a positive integer`);
  }
  return n;
}

function dateOf(raw: string | null | undefined, field: string, where: string): Date {
  const ms = typeof raw === "string" && /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw unmappable(`${where}: ${field} ${JSON.stringify(raw ?? null)} is not an ISO 8601 date-time`);
  return new Date(ms);
}

function shipToOf(address: AmazonCustomerAddress | null | undefined): ImportedOrder["shipTo"] {
  const a = address ?? {};
  return {
    ...splitName(text(a.name)),
    companyName: text(a.companyName) || null,
    street1: text(a.addressLine1),
    street2: [text(a.addressLine2), text(a.addressLine3)].filter(Boolean).join(", "),
    // Some countries' addresses name the municipality or district rather than a city.
    city: text(a.city) || text(a.municipality) || text(a.districtOrCounty),
    stateOrProvince: text(a.stateOrRegion),
    postalCode: text(a.postalCode),
    country: text(a.countryCode),
  };
}

/**
 * An Order of searchOrders as the service's order. Throws Unmappable with the reason when a
 * field the service cannot do without is missing or unreadable.
 */
export function mapAmazonOrder(order: AmazonOrder): ImportedOrder {
  const id = text(order.orderId);
  if (!id) throw unmappable("the order has no orderId");
  const where = `order ${id}`;
  const createdAt = dateOf(order.createdTime, "createdTime", where);
  const rawItems = order.orderItems ?? [];
  if (!Array.isArray(rawItems) || rawItems.length === 0) throw unmappable(`${where} has no orderItems`);

  const total = zero();
  const hasProceeds = (i: AmazonOrderItem): boolean => (i.proceeds?.breakdowns?.length ?? 0) > 0;
  const itemProceedsKnown = rawItems.some(hasProceeds);
  const items: ImportedOrderItem[] = rawItems.map((item, index) => {
    const lineId = text(item.orderItemId);
    const lineWhere = `${where} item ${lineId || `#${index + 1}`}`;
    if (!lineId) throw unmappable(`${lineWhere} has no orderItemId`);
    const sku = text(item.product?.sellerSku);
    if (!sku) throw unmappable(`${lineWhere} has no sellerSku`);
    const quantity = quantityOf(item, lineWhere);
    const m = zero();
    for (const b of item.proceeds?.breakdowns ?? []) addBreakdown(m, b, lineWhere);
    const unitCents = item.product?.price?.unitPrice ? cents(item.product.price.unitPrice, `${lineWhere} unitPrice`) : null;
    // No proceeds yet (Amazon fills them once payment is authorised): the price is what is known.
    if (!hasProceeds(item) && unitCents !== null) m.item = unitCents * quantity;
    for (const key of Object.keys(total) as (keyof Money)[]) total[key] += m[key];
    return {
      sourceLineId: lineId,
      sku,
      name: text(item.product?.title) || text(item.product?.asin) || sku,
      quantity,
      unitPrice: unitCents !== null ? fromCents(unitCents) : Math.round(m.item / quantity) / 100,
      saleTaxCost: fromCents(m.itemTax),
      discount: fromCents(m.discount).toFixed(2),
      ...itemProgress(item, quantity, order),
    };
  });
  // Items without proceeds but an order with them (a partial answer): the order's own breakdowns.
  if (!itemProceedsKnown && (order.proceeds?.breakdowns?.length ?? 0) > 0) {
    const itemCents = total.item;
    Object.assign(total, zero());
    for (const b of order.proceeds?.breakdowns ?? []) {
      if (text(b.type).toUpperCase() !== "DELIVERY_TIP") addBreakdown(total, b, where);
    }
    if (total.item === 0) total.item = itemCents;
  }

  const subCents = total.item - total.discount;
  const computedGrand = subCents + total.itemTax + total.shipping + total.shippingTax + total.giftWrap + total.giftWrapTax + total.other;
  const grand = order.proceeds?.grandTotal ? cents(order.proceeds.grandTotal, `${where} grandTotal`) : computedGrand;

  const address = order.recipient?.deliveryAddress;
  const serviceLevel = text(order.fulfillment?.fulfillmentServiceLevel);
  const payments = (order.payment?.paymentExecutions ?? []).map((p) => text(p.paymentMethod)).filter(Boolean);
  const sourceData: Record<string, string> = {};
  const fulfilledBy = text(order.fulfillment?.fulfilledBy);
  const marketplaceId = text(order.salesChannel?.marketplaceId);
  if (fulfilledBy) sourceData.fulfilledBy = fulfilledBy;
  if (marketplaceId) sourceData.marketplaceId = marketplaceId;

  return {
    sourceOrderNumber: id,
    // Amazon has one order number, the one the buyer sees.
    sourceCustomerOrderNumber: null,
    sourceOrderStatus: text(order.fulfillment?.fulfillmentStatus) || "UNKNOWN",
    createdAt,
    // The anonymised relay address Amazon gives for merchant-fulfilled orders; none for AFN.
    buyerEmail: text(order.buyer?.buyerEmail),
    buyerPhone: text(address?.phone),
    buyerUserId: null,
    shipTo: shipToOf(address),
    shippingMethod: serviceLevel,
    shippingServiceName: serviceLevel,
    shippingServiceValue: serviceLevel,
    paymentType: payments.length > 0 ? [...new Set(payments)].join(", ") : null,
    paymentTransactionId: null,
    isPrime: (order.programs ?? []).includes("PRIME"),
    subTotal: fromCents(subCents),
    shippingTotal: fromCents(total.shipping),
    shippingTaxTotal: fromCents(total.shippingTax),
    giftWrapTotal: fromCents(total.giftWrap),
    giftWrapTaxTotal: fromCents(total.giftWrapTax),
    grandTotal: fromCents(grand),
    items,
    ...(Array.isArray(order.packages) ? { shipments: shipmentsOf(order.packages) } : {}),
    sourceData,
  };
}

/**
 * What Amazon counts shipped and cancelled of an item. `fulfillment.quantityFulfilled` is "the
 * number of units of this item that have been successfully processed and shipped". A
 * cancellation carries no quantity: an item with a `cancellationExecution`, or any item of a
 * CANCELLED order, counts every unit not shipped as cancelled. quantityShipped is left out when
 * Amazon sent no FULFILLMENT data.
 */
function itemProgress(item: AmazonOrderItem, quantity: number, order: AmazonOrder): Pick<ImportedOrderItem, "quantityShipped" | "quantityCancelled"> {
  const fulfilled = item.fulfillment?.quantityFulfilled;
  const shipped = typeof fulfilled === "number" && Number.isInteger(fulfilled) && fulfilled > 0 ? Math.min(fulfilled, quantity) : 0;
  const cancelled = !!item.cancellation?.cancellationExecution || text(order.fulfillment?.fulfillmentStatus) === "CANCELLED";
  return {
    ...(typeof fulfilled === "number" ? { quantityShipped: shipped } : {}),
    quantityCancelled: cancelled ? quantity - shipped : 0,
  };
}

/** The packages Amazon reports (PACKAGES data), keyed by their packageReferenceId. */
function shipmentsOf(packages: AmazonOrderPackage[]): ImportedShipment[] {
  return packages
    .filter((p) => text(p.packageReferenceId) !== "")
    .map((p) => {
      const shipTime = Date.parse(text(p.shipTime) || text(p.createdTime));
      return {
        sourceShipmentId: text(p.packageReferenceId),
        trackingNumber: text(p.trackingNumber) || null,
        carrier: text(p.carrier) || null,
        shippingMethod: text(p.shippingService) || null,
        shippedAt: Number.isFinite(shipTime) ? new Date(shipTime) : null,
        lines: (p.packageItems ?? [])
          .filter((i) => text(i.orderItemId) !== "" && Number.isInteger(i.quantity) && (i.quantity ?? 0) > 0)
          .map((i) => ({ sourceLineId: text(i.orderItemId), quantity: i.quantity! })),
      };
    })
    .filter((s) => s.lines.length > 0);
}

/** How a record of searchOrders is read: set aside under its orderId when it cannot be mapped. */
export const amazonOrderReader: OrderReader = {
  map(record) {
    if (typeof record !== "object" || record === null || Array.isArray(record)) throw unmappable("the record is not an Order object");
    return mapAmazonOrder(record as AmazonOrder);
  },
  numberOf: (record) => text((record as AmazonOrder | null)?.orderId),
  reason: (message) => `Amazon ${message}`,
};

/** Whether Amazon fulfils this order itself (FBA): then the seller neither ships nor cancels it. */
export function fulfilledByAmazon(delivery: Delivery): boolean {
  return delivery.order.sourceData.fulfilledBy === "AMAZON";
}

/**
 * The carrier as confirmShipment wants it. A carrier that matches one of Amazon's carrier codes
 * (the seller's list, plus those the models show) goes as `carrierCode`; any other goes as
 * `carrierCode: "Other"` with the name, which Amazon's CarrierCode announcement allows for
 * unlisted carriers.
 */
export function carrierFor(carrier: string, knownCodes: readonly string[]): { carrierCode: string; carrierName?: string } {
  const wanted = squash(carrier);
  const code = knownCodes.find((c) => squash(c) === wanted);
  return code ? { carrierCode: code, carrierName: code } : { carrierCode: "Other", carrierName: carrier.trim() };
}

/**
 * The packageReferenceId of a delivery's package ("a seller-supplied identifier that uniquely
 * identifies a package within the scope of an order. Only positive numeric values are
 * supported"). Amazon's guide: "If you need to make an edit to the shipment, submit another
 * confirmShipment operation with the same packageReferenceID". So a correction sends the id its
 * package was first confirmed under (the earlier delivery of the same shipmentId, whose
 * reference it is; one delivered before packages existed was sent as 1), and a new package the
 * next number after every id the order's earlier packages used. The first package of an order,
 * the whole order's included, is 1, as every shipment was before packages; a package of every
 * unit after a shipment delivered without a shipmentId (one from before packages) corrects it.
 */
export function packageReferenceIdOf(delivery: ShipDelivery): string {
  const ships = delivery.earlier.filter((e) => e.kind === "ship" && e.state === "delivered");
  const referenceOf = (e: (typeof ships)[number]) => (e.reference && /^[1-9]\d{0,8}$/.test(e.reference) ? e.reference : "1");
  const own = delivery.shipment.shipmentId ? ships.filter((e) => e.shipmentId === delivery.shipment.shipmentId) : [];
  if (own.length > 0) return referenceOf(own[0]!);
  const legacy = ships.find((e) => !e.shipmentId);
  const wholeOrder = delivery.order.lines.every((l) => delivery.shipment.lines.some((s) => s.sourceLineId === l.sourceLineId && s.quantity === l.quantity));
  if (legacy && wholeOrder) return referenceOf(legacy);
  const used = ships.map((e) => Number(referenceOf(e)));
  return String(used.length === 0 ? 1 : Math.max(...used) + 1);
}

export function confirmShipmentRequest(delivery: ShipDelivery, marketplaceId: string, knownCarrierCodes: readonly string[]): AmazonConfirmShipmentRequest {
  const where = `order ${delivery.order.sourceOrderNumber}`;
  const shipment = delivery.shipment;
  const trackingNumber = shipment.trackingNumber?.trim();
  const carrier = shipment.carrier?.trim();
  // PackageDetail requires both; an empty string would only earn a 400 later.
  if (!trackingNumber) throw impossible(`cannot ship ${where}: confirmShipment needs a tracking number`);
  if (!carrier) throw impossible(`cannot ship ${where}: confirmShipment needs a carrier`);
  const lines = shipment.lines.length > 0 ? shipment.lines : delivery.order.lines;
  if (lines.length === 0) throw impossible(`cannot ship ${where}: it has no items`);
  for (const line of lines) {
    if (!Number.isInteger(line.quantity) || line.quantity <= 0) {
      throw impossible(`cannot ship ${where}: item ${line.sourceLineId} has quantity ${line.quantity}`);
    }
  }
  const method = shipment.shippingMethod?.trim();
  return {
    marketplaceId,
    packageDetail: {
      packageReferenceId: packageReferenceIdOf(delivery),
      ...carrierFor(carrier, knownCarrierCodes),
      ...(method ? { shippingMethod: method } : {}),
      trackingNumber,
      shipDate: shipment.shippedAt.toISOString(),
      orderItems: lines.map((l) => ({ orderItemId: l.sourceLineId, quantity: l.quantity })),
    },
  };
}

/** MerchantOrderID is at most 64 characters (Amazon's OrderAcknowledgement XSD, quoted in the README). */
const MERCHANT_ORDER_ID_MAX = 64;

// Characters XML 1.0 cannot carry at all, even escaped: dropped rather than sent to a 400.
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const xmlText = (s: string): string => s.replace(XML_INVALID, "");

/** The MessageID of a delivery in a feed: its outbox id, unique per source and stable across retries. */
export function messageIdOf(delivery: Delivery): string {
  return String(delivery.id);
}

export type FeedDelivery = Extract<Delivery, { kind: "acknowledge" | "cancel" }>;

/**
 * The POST_ORDER_ACKNOWLEDGEMENT_DATA document for acknowledgements (StatusCode Success, with
 * the seller's order number as MerchantOrderID) and cancellations (StatusCode Failure, each
 * item with its CancelReason). One Message per delivery; MessageID is the delivery's outbox id,
 * so the processing report's Results lead back to the deliveries, and a document sent twice
 * carries the same ids.
 */
export function orderAcknowledgementFeed(deliveries: FeedDelivery[], merchantIdentifier: string, cancelReason: AmazonCancelReason): string {
  const messages = deliveries.map((d) => {
    const ack: Record<string, unknown> = { AmazonOrderID: xmlText(d.order.sourceOrderNumber) };
    if (d.kind === "acknowledge") {
      const seller = xmlText((d.sellerOrderNumber ?? d.order.sellerOrderNumber ?? "").trim());
      // A longer number would be refused whole; the acknowledgement itself matters more.
      if (seller && seller.length <= MERCHANT_ORDER_ID_MAX) ack.MerchantOrderID = seller;
      ack.StatusCode = "Success";
    } else {
      ack.StatusCode = "Failure";
      ack.Item = cancelItems(d).map((lineId) => ({ AmazonOrderItemCode: xmlText(lineId), CancelReason: cancelReason }));
    }
    return { MessageID: messageIdOf(d), OrderAcknowledgement: ack };
  });
  return new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@_", format: true }).build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    AmazonEnvelope: {
      "@_xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance",
      "@_xsi:noNamespaceSchemaLocation": "amzn-envelope.xsd",
      Header: { DocumentVersion: "1.01", MerchantIdentifier: xmlText(merchantIdentifier) },
      MessageType: "OrderAcknowledgement",
      Message: messages,
    },
  }) as string;
}

function cancelItems(d: CancelDelivery): string[] {
  return [...new Set(d.order.lines.map((l) => l.sourceLineId))];
}

const reportParser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
  isArray: (name) => name === "Message" || name === "Result",
});

function field(node: unknown, name: string): string | null {
  if (typeof node !== "object" || node === null) return null;
  const value = (node as Record<string, unknown>)[name];
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return null;
}

/**
 * The Results of an XML feed processing report (AmazonEnvelope / Message / ProcessingReport /
 * Result {MessageID, ResultCode, ResultMessageCode, ResultDescription}), or null when the text is
 * not one (a cut-off download, an HTML error page).
 */
export function readProcessingReport(xml: string): ProcessingReport | null {
  if (XMLValidator.validate(xml) !== true) return null;
  const parsed = reportParser.parse(xml) as { AmazonEnvelope?: { Message?: unknown[] } };
  const report = (parsed.AmazonEnvelope?.Message ?? [])
    .map((m) => (typeof m === "object" && m !== null ? (m as Record<string, unknown>).ProcessingReport : undefined))
    .find((r) => typeof r === "object" && r !== null) as Record<string, unknown> | undefined;
  if (!report) return null;
  const processed = Number(field(report.ProcessingSummary, "MessagesProcessed"));
  const results: ProcessingResult[] = ((report.Result as unknown[] | undefined) ?? []).flatMap((r) => {
    const messageId = field(r, "MessageID");
    const code = field(r, "ResultCode");
    if (messageId === null || code === null) return [];
    return [{ messageId, code, messageCode: field(r, "ResultMessageCode"), description: field(r, "ResultDescription") ?? "" }];
  });
  return { statusCode: field(report, "StatusCode"), messagesProcessed: Number.isFinite(processed) ? processed : null, results };
}

/** "code: message (details)" for each error of Amazon's ErrorList; null when the body is not one. */
export function describeAmazonErrors(body: string): string | null {
  let parsed: AmazonErrorList & LwaError;
  try {
    parsed = JSON.parse(body) as AmazonErrorList & LwaError;
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  if (Array.isArray(parsed.errors)) {
    const parts = parsed.errors
      .map((e) => {
        const head = [text(e?.code), text(e?.message)].filter(Boolean).join(": ");
        const details = text(e?.details);
        return details && details !== text(e?.message) ? `${head} (${details})` : head;
      })
      .filter(Boolean);
    return parts.length > 0 ? parts.join("; ") : null;
  }
  // Login with Amazon answers OAuth's {error, error_description}.
  if (typeof parsed.error === "string") return [parsed.error, text(parsed.error_description)].filter(Boolean).join(": ");
  return null;
}
