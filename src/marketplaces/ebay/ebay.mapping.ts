// eBay's shapes to the service's vocabulary and back. Pure functions: no I/O, no clock.
import type { ImportedOrder, ImportedOrderItem, ImportWindow, Shipment } from "../connector";
import { refusal } from "../kit/marketplace-http";
import { CARRIER_ALIASES, fromCents, minorUnits, nameTable, splitName } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import type {
  EbayError,
  EbayExtendedContact,
  EbayLineItem,
  EbayLineItemReference,
  EbayOrder,
  EbayPricingSummary,
  EbayShippingFulfillmentDetails,
  EbaySellerCancelReason,
  OAuthErrorBody,
  PostOrderCancelRequest,
  PostOrderErrorBody,
} from "./ebay.types";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/** A list eBay sends, or none: a record that is not what the schema says is read as absent. */
const list = <T>(value: T[] | undefined | null): T[] => (Array.isArray(value) ? value.filter(isRecord) : []) as T[];

/** An Amount's value in cents (0 when absent); Unmappable when it is not an amount. */
function cents(amount: unknown, where: string): number {
  const raw: unknown = isRecord(amount) ? amount.value : undefined;
  return minorUnits(raw, 100, () => `${where} ${JSON.stringify(raw)} is not an amount`);
}

function dateOf(raw: unknown, where: string): Date {
  const ms = typeof raw === "string" ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) throw new Unmappable(`${where} ${JSON.stringify(raw ?? null)} is not a date`);
  return new Date(ms);
}

function mapLine(raw: unknown, index: number): ImportedOrderItem {
  if (!isRecord(raw)) throw new Unmappable(`line #${index + 1} is not an object`);
  const line = raw as EbayLineItem;
  const id = text(line.lineItemId);
  const where = `line ${id || `#${index + 1}`}`;
  if (!id) throw new Unmappable(`${where} has no lineItemId`);
  const quantity = line.quantity;
  if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity <= 0) {
    throw new Unmappable(`${where} has quantity ${JSON.stringify(quantity ?? null)}, not a positive integer`);
  }
  // SKUs are optional on listings made outside the Inventory API; the listing's item id is then
  // what names the product.
  const sku = text(line.sku) || text(line.legacyItemId);
  if (!sku) throw new Unmappable(`${where} has neither a sku nor a legacyItemId`);
  const costCents = cents(line.lineItemCost, `${where} lineItemCost`);
  let discountCents = 0;
  for (const promotion of list(line.appliedPromotions)) {
    // The sign of discountAmount is not documented; its size is what comes off the price.
    discountCents += Math.abs(cents(promotion.discountAmount, `${where} appliedPromotions.discountAmount`));
  }
  if (discountCents === 0 && isRecord(line.discountedLineItemCost) && line.discountedLineItemCost.value !== undefined) {
    discountCents = Math.max(0, costCents - cents(line.discountedLineItemCost, `${where} discountedLineItemCost`));
  }
  // taxes is the seller-side list; when it is empty, eBay's collect-and-remit taxes are what the
  // buyer paid on the line. Both appear together when both apply, so only one list is summed.
  const taxes = list(line.taxes).length > 0 ? list(line.taxes) : list(line.ebayCollectAndRemitTaxes);
  const taxCents = taxes.reduce((sum, tax) => sum + cents(tax.amount, `${where} tax`), 0);
  return {
    sourceLineId: id,
    sku,
    name: text(line.title) || sku,
    quantity,
    // lineItemCost is the unit price times the quantity (the description's words).
    unitPrice: Math.round(costCents / quantity) / 100,
    saleTaxCost: fromCents(taxCents),
    discount: fromCents(discountCents).toFixed(2),
    ...shippedOf(line, quantity),
  };
}

/**
 * What eBay says shipped of a line: `lineItemFulfillmentStatus` FULFILLED is every unit, NOT_STARTED
 * none; IN_PROGRESS (some units in a fulfillment) says no number, so the hub keeps what it knows.
 */
function shippedOf(line: EbayLineItem, quantity: number): Pick<ImportedOrderItem, "quantityShipped"> {
  const status = text(line.lineItemFulfillmentStatus);
  if (status === "FULFILLED") return { quantityShipped: quantity };
  if (status === "NOT_STARTED") return { quantityShipped: 0 };
  return {};
}

function shipToOf(order: EbayOrder): { contact: EbayExtendedContact; method: string; carrier: string } {
  for (const instruction of list(order.fulfillmentStartInstructions)) {
    const step = isRecord(instruction.shippingStep) ? instruction.shippingStep : null;
    if (step && isRecord(step.shipTo)) {
      return {
        contact: step.shipTo,
        method: text(step.shippingServiceCode) || text(instruction.fulfillmentInstructionsType),
        carrier: text(step.shippingCarrierCode),
      };
    }
  }
  const kinds = list(order.fulfillmentStartInstructions)
    .map((i) => text(i.fulfillmentInstructionsType))
    .filter(Boolean);
  throw new Unmappable(`it has no shippingStep.shipTo${kinds.length ? ` (fulfillment ${kinds.join(", ")})` : ""}: nothing for the seller to ship`);
}

const phoneOf = (contact: EbayExtendedContact): unknown => (isRecord(contact.primaryPhone) ? contact.primaryPhone.phoneNumber : undefined);

/** The status word kept as SourceOrderStatus: eBay's own, the cancellation first. */
export function orderStatusOf(order: EbayOrder): string {
  if (isRecord(order.cancelStatus) && text(order.cancelStatus.cancelState) === "CANCELED") return "CANCELED";
  return text(order.orderFulfillmentStatus) || "NOT_STARTED";
}

function paidAtOf(order: EbayOrder): string | null {
  const dates = list(isRecord(order.paymentSummary) ? order.paymentSummary.payments : [])
    .map((p) => text(p.paymentDate))
    .filter((d) => d !== "" && Number.isFinite(Date.parse(d)))
    .sort((a, b) => Date.parse(a) - Date.parse(b));
  return dates.at(-1) ?? null;
}

function mapOrder(order: EbayOrder, id: string): ImportedOrder {
  const lines: unknown[] = Array.isArray(order.lineItems) ? order.lineItems : [];
  if (lines.length === 0) throw new Unmappable("it has no lineItems");
  // eBay cancels whole orders only (cancelStatus.cancelState CANCELED): every unit not shipped.
  const cancelled = isRecord(order.cancelStatus) && text(order.cancelStatus.cancelState) === "CANCELED";
  const items = lines.map(mapLine).map((item) => (cancelled ? { ...item, quantityCancelled: item.quantity - (item.quantityShipped ?? 0) } : item));
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.sourceLineId)) throw new Unmappable(`line ${item.sourceLineId} appears twice`);
    seen.add(item.sourceLineId);
  }

  const { contact, method, carrier } = shipToOf(order);
  const address = isRecord(contact.contactAddress) ? contact.contactAddress : {};
  const name = splitName(text(contact.fullName));
  const missing = [
    ["fullName", name.firstName],
    ["addressLine1", text(address.addressLine1)],
    ["city", text(address.city)],
    ["countryCode", text(address.countryCode)],
  ].filter(([, v]) => v === "");
  if (missing.length > 0) {
    // eBay stops returning names and street lines 90 days after the sale.
    throw new Unmappable(`its shipTo has no ${missing.map(([k]) => k).join(", ")} (eBay withholds them on orders over 90 days old)`);
  }
  if (!method) throw new Unmappable("its shippingStep has no shippingServiceCode");

  const pricing: EbayPricingSummary = isRecord(order.pricingSummary) ? order.pricingSummary : {};
  // Discounts "should be a negative real number"; their size is what comes off.
  const subCents =
    cents(pricing.priceSubtotal, "pricingSummary.priceSubtotal") -
    Math.abs(cents(pricing.priceDiscount, "pricingSummary.priceDiscount")) +
    cents(pricing.adjustment, "pricingSummary.adjustment");
  const shippingCents =
    cents(pricing.deliveryCost, "pricingSummary.deliveryCost") - Math.abs(cents(pricing.deliveryDiscount, "pricingSummary.deliveryDiscount"));
  const taxCents = cents(pricing.tax, "pricingSummary.tax");
  const feeCents = cents(pricing.fee, "pricingSummary.fee");
  const grandCents =
    isRecord(pricing.total) && pricing.total.value !== undefined
      ? cents(pricing.total, "pricingSummary.total")
      : subCents + shippingCents + taxCents + feeCents;

  const buyer = isRecord(order.buyer) ? order.buyer : {};
  const registration = isRecord(buyer.buyerRegistrationAddress) ? buyer.buyerRegistrationAddress : {};
  const payments = list(isRecord(order.paymentSummary) ? order.paymentSummary.payments : []);
  const methods = [...new Set(payments.map((p) => text(p.paymentMethod)).filter(Boolean))];
  const paidAt = paidAtOf(order);
  const sourceData: Record<string, string> = {
    legacyOrderId: text(order.legacyOrderId) || id,
    buyerPaid: String(paidAt !== null || text(order.orderPaymentStatus) === "PAID"),
  };
  if (paidAt) sourceData.buyerPaidDate = new Date(Date.parse(paidAt)).toISOString();

  return {
    sourceOrderNumber: id,
    // The number Seller Hub shows the seller on its orders grid.
    sourceCustomerOrderNumber: text(order.salesRecordReference) || null,
    sourceOrderStatus: orderStatusOf(order),
    createdAt: dateOf(order.creationDate, "creationDate"),
    buyerEmail: text(registration.email) || text(contact.email),
    buyerPhone: text(phoneOf(contact)) || text(phoneOf(registration)),
    buyerUserId: text(buyer.username) || null,
    shipTo: {
      ...name,
      companyName: text(contact.companyName) || null,
      street1: text(address.addressLine1),
      street2: text(address.addressLine2),
      city: text(address.city),
      stateOrProvince: text(address.stateOrProvince),
      postalCode: text(address.postalCode),
      country: text(address.countryCode),
    },
    shippingMethod: method,
    shippingServiceName: method,
    shippingServiceValue: carrier || method,
    paymentType: methods.length > 0 ? methods.join(", ") : null,
    paymentTransactionId: payments.map((p) => text(p.paymentReferenceId)).find(Boolean) ?? null,
    isPrime: false,
    subTotal: fromCents(subCents),
    shippingTotal: fromCents(shippingCents),
    // eBay reports one tax figure per order (per line with TAX_BREAKDOWN); it is kept on the lines.
    shippingTaxTotal: 0,
    giftWrapTotal: 0,
    giftWrapTaxTotal: 0,
    grandTotal: fromCents(grandCents),
    items,
    sourceData,
  };
}

/** How a record of getOrders is read: set aside under its orderId when it cannot be mapped. */
export const ebayOrderReader: OrderReader = {
  map(record) {
    if (!isRecord(record)) throw new Unmappable("it is not a JSON object");
    const id = text(record.orderId);
    if (!id) throw new Unmappable("it has no orderId");
    return mapOrder(record as EbayOrder, id);
  },
  numberOf: (record) => (isRecord(record) ? text(record.orderId) : ""),
  reason: (message, orderNumber) => `eBay order ${orderNumber || "(no orderId)"}: ${message}`,
};

/**
 * The getOrders filter, percent-encoded as the description asks ([ ] as %5B %5D; the colon and
 * the dots stay). Both bounds are inclusive on eBay's side.
 */
export function lastModifiedFilter(window: ImportWindow): string {
  return `lastmodifieddate:%5B${window.since.toISOString()}..${window.until.toISOString()}%5D`;
}

/** Where the next getOrders page starts: the offset eBay's `next` URI names, or null. */
export function offsetOfNext(next: unknown): number | null {
  if (typeof next !== "string" || next.trim() === "") return null;
  let offset: string | null;
  try {
    offset = new URL(next, "https://api.ebay.com").searchParams.get("offset");
  } catch {
    return null;
  }
  return offset !== null && /^\d+$/.test(offset) ? Number(offset) : null;
}

// ShippingCarrierCodeType values (GeteBayDetails ShippingCarrierDetails, Trading API reference),
// and the names a seller's system tends to send for them.
const CARRIER_CODES = [
  "UPS",
  "USPS",
  "FedEx",
  "DHL",
  "DeutschePost",
  "Hermes",
  "iLoxx",
  "RoyalMail",
  "Parcelforce",
  "AustraliaPost",
  "CanPar",
  "ChinaPost",
  "AnPost",
  "APC",
  "ARAMEX",
  "Bartolini",
  "BPost",
  "Chronopost",
  "ColiposteDomestic",
  "ColiposteInternational",
  "Correos",
  "Seur",
  "Other",
];
const ebayCarrier = nameTable(CARRIER_CODES, {
  ...CARRIER_ALIASES,
  federalexpress: "FedEx",
  belgianpost: "BPost",
  brtbartolini: "Bartolini",
  canparcourier: "CanPar",
});

/** eBay's carrier code for a carrier name, or null when the table does not know it. */
export function carrierCodeFor(carrier: string): string | null {
  return ebayCarrier(carrier);
}

/**
 * Tracking numbers as eBay takes them: "Only alphanumeric characters ... Do not include a space
 * ... even if a space appears in the tracking number on the shipping label." Spaces and hyphens
 * are printing, not part of the number; anything else is refused here rather than by eBay.
 */
export function ebayTrackingNumber(tracking: string): string {
  const compact = tracking.replace(/[\s-]+/g, "");
  if (!/^[A-Za-z0-9]+$/.test(compact)) {
    throw refusal("eBay", `takes tracking numbers of letters and digits only; ${JSON.stringify(tracking)} has other characters`);
  }
  return compact;
}

export interface PreparedShipment {
  trackingNumber: string | null;
  carrierCode: string | null;
  warnings: string[];
}

/** Tracking and carrier as createShippingFulfillment takes them: both or neither. */
export function prepareShipment(shipment: Shipment): PreparedShipment {
  const tracking = shipment.trackingNumber?.trim() ?? "";
  const carrier = shipment.carrier?.trim() ?? "";
  if (tracking === "") {
    return {
      trackingNumber: null,
      carrierCode: null,
      warnings: carrier ? [`carrier "${carrier}" not sent: eBay takes a carrier only with a tracking number`] : [],
    };
  }
  if (carrier === "") {
    throw refusal("eBay", "needs the carrier with a tracking number (shippingCarrierCode and trackingNumber go together)");
  }
  const code = carrierCodeFor(carrier);
  return {
    trackingNumber: ebayTrackingNumber(tracking),
    carrierCode: code ?? carrier,
    warnings: code ? [] : [`carrier "${carrier}" is not in the connector's table of eBay carrier codes; sent as given`],
  };
}

export function shippingFulfillmentDetails(lines: EbayLineItemReference[], prepared: PreparedShipment, shippedAt: Date): EbayShippingFulfillmentDetails {
  const body: EbayShippingFulfillmentDetails = {
    lineItems: lines.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity })),
    shippedDate: shippedAt.toISOString(),
  };
  if (prepared.trackingNumber && prepared.carrierCode) {
    body.shippingCarrierCode = prepared.carrierCode;
    body.trackingNumber = prepared.trackingNumber;
  }
  return body;
}

/** The fulfillment id at the end of createShippingFulfillment's Location header. */
export function fulfillmentIdOf(location: string | null): string | null {
  if (!location) return null;
  const path = location.split("?")[0] ?? "";
  const match = /\/shipping_fulfillment\/([^/]+)\/?$/.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return match[1]!;
  }
}

export function cancelRequest(sourceData: Record<string, string>, fallbackOrderId: string, reason: EbaySellerCancelReason): PostOrderCancelRequest {
  const body: PostOrderCancelRequest = {
    legacyOrderId: sourceData.legacyOrderId || fallbackOrderId,
    cancelReason: reason,
    buyerPaid: sourceData.buyerPaid === "true",
  };
  if (body.buyerPaid && sourceData.buyerPaidDate) body.buyerPaidDate = { value: sourceData.buyerPaidDate };
  return body;
}

function describeOne(e: EbayError | NonNullable<NonNullable<PostOrderErrorBody["errorMessage"]>["error"]>[number]): string {
  const message = text(e.message);
  const long = text(e.longMessage);
  const detail = long && long !== message ? `${message ? `${message} ` : ""}(${long})` : message;
  return [e.errorId !== undefined ? String(e.errorId) : "", detail].filter(Boolean).join(" ");
}

/**
 * eBay's words from an error body of either API (Fulfillment `{errors}`, Post-Order
 * `{errorMessage: {error}}`) or of the token endpoint (RFC 6749 `{error, error_description}`);
 * null when the body is none of them.
 */
export function describeEbayError(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const fulfillment = (body as { errors?: unknown }).errors;
  const postOrder = (body as PostOrderErrorBody).errorMessage?.error;
  const list = Array.isArray(fulfillment) ? fulfillment : Array.isArray(postOrder) ? postOrder : null;
  if (list) {
    const parts = list
      .filter(isRecord)
      .map((e) => describeOne(e))
      .filter(Boolean);
    return parts.length > 0 ? parts.join("; ") : null;
  }
  const oauth = body as OAuthErrorBody;
  if (typeof oauth.error === "string" && oauth.error !== "") {
    return oauth.error_description ? `${oauth.error}: ${oauth.error_description}` : oauth.error;
  }
  return null;
}
