// Etsy receipts to the service's orders (etsyReceiptReader), and a shipment to
// createReceiptShipment's form. Pure functions: no I/O, no clock. A receipt becomes one order,
// its transactions the order's lines.
import type { ImportedOrder, ImportedOrderItem, Shipment } from "../../connector";
import { CARRIER_ALIASES, fromCents, splitName, squash } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import type { EtsyMoney, EtsyReceipt, EtsyShipment, EtsyShipmentForm, EtsyTransaction } from "./etsy.types";

/** A record of the receipt list that cannot be an order: set aside. */
const invalid = (message: string) => new Unmappable(message);

// The description's floor for every timestamp (2000-01-01): anything earlier is not a date it sends.
const EARLIEST_SECONDS = 946_684_800;

/** A positive integer id as text, or null. */
function idText(value: unknown): string | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? String(value) : null;
}

/** Money in whole cents of its currency (`amount / divisor`); absent money is 0 unless `required`. */
export function moneyCents(money: EtsyMoney | null | undefined, where: string, currency: { code: string | null }, required = false): number {
  if (money === null || money === undefined) {
    if (required) throw invalid(`${where} is missing`);
    return 0;
  }
  const { amount, divisor } = money;
  if (typeof amount !== "number" || !Number.isSafeInteger(amount) || typeof divisor !== "number" || !Number.isSafeInteger(divisor) || divisor <= 0) {
    throw invalid(`${where} is not readable money (amount ${JSON.stringify(amount)}, divisor ${JSON.stringify(divisor)})`);
  }
  const code = typeof money.currency_code === "string" && money.currency_code !== "" ? money.currency_code : null;
  // The service keeps no currency: amounts of two currencies in one receipt cannot be added up.
  if (code !== null) {
    if (currency.code !== null && currency.code !== code) throw invalid(`${where} is in ${code}, the rest of the receipt in ${currency.code}`);
    currency.code = code;
  }
  return Math.round((amount * 100) / divisor);
}

/** A coupon float (shop_coupon, buyer_coupon) in cents; absent is 0. */
function couponCents(value: unknown, where: string): number {
  if (value === null || value === undefined) return 0;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw invalid(`${where} ${JSON.stringify(value)} is not an amount`);
  return Math.round(value * 100);
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

function createdAt(receipt: EtsyReceipt, where: string): Date {
  const seconds = receipt.created_timestamp ?? receipt.create_timestamp;
  if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < EARLIEST_SECONDS) {
    throw invalid(`${where}: created_timestamp ${JSON.stringify(seconds)} is not a date`);
  }
  return new Date(seconds * 1000);
}

const asReceipt = (record: unknown): EtsyReceipt => (typeof record === "object" && record !== null && !Array.isArray(record) ? record : {}) as EtsyReceipt;

/**
 * A receipt nobody has paid for yet ("open", "payment processing"): not imported, so that no
 * one ships it. Its payment changes update_timestamp, so it arrives in a later window.
 */
export function isAwaitingPayment(record: unknown): boolean {
  const receipt = asReceipt(record);
  return receipt.is_paid !== true && receipt.is_shipped !== true && (receipt.status === "open" || receipt.status === "payment processing");
}

/**
 * Spreads the receipt's tax over its lines by their value, in cents (Etsy taxes the receipt, the
 * service keeps tax per line): each line gets its share rounded down, the cents left over go to
 * the first lines, so the lines add up to the receipt's tax exactly.
 */
export function spreadTax(taxCents: number, lineCents: number[]): number[] {
  const total = lineCents.reduce((a, b) => a + b, 0);
  if (lineCents.length === 0) return [];
  if (total <= 0) return lineCents.map((_, i) => (i === 0 ? taxCents : 0));
  const shares = lineCents.map((c) => Math.floor((taxCents * c) / total));
  let left = taxCents - shares.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % shares.length, left--) shares[i]! += 1;
  return shares;
}

interface Line {
  item: Omit<ImportedOrderItem, "saleTaxCost">;
  valueCents: number;
}

function mapTransaction(transaction: EtsyTransaction, index: number, where: string, currency: { code: string | null }): Line {
  const id = idText(transaction.transaction_id);
  const lineWhere = `${where} transaction ${id ?? `#${index + 1}`}`;
  if (id === null) throw invalid(`${lineWhere} has no transaction_id`);
  const sku = text(transaction.sku);
  if (sku === "") throw invalid(`${lineWhere} has no SKU`);
  const quantity = transaction.quantity;
  if (typeof quantity !== "number" || !Number.isSafeInteger(quantity) || quantity <= 0) {
    throw invalid(`${lineWhere}: quantity ${JSON.stringify(quantity)} is not a positive integer`);
  }
  const unitCents = moneyCents(transaction.price, `${lineWhere} price`, currency, true);
  const discount = couponCents(transaction.shop_coupon, `${lineWhere} shop_coupon`) + couponCents(transaction.buyer_coupon, `${lineWhere} buyer_coupon`);
  return {
    item: { sourceLineId: id, sku, name: text(transaction.title), quantity, unitPrice: fromCents(unitCents), discount: fromCents(discount).toFixed(2) },
    valueCents: unitCents * quantity,
  };
}

/** A receipt as an order; throws a MarketplaceError saying why when it cannot be one. */
export function mapEtsyReceipt(receipt: EtsyReceipt): ImportedOrder {
  const id = idText(receipt.receipt_id);
  if (id === null) throw invalid("sent a receipt without a receipt_id");
  const where = `receipt ${id}`;
  const status = text(receipt.status);
  if (status === "") throw invalid(`${where} has no status`);
  const transactions = receipt.transactions ?? [];
  if (!Array.isArray(transactions) || transactions.length === 0) throw invalid(`${where} has no transactions`);

  const currency = { code: null as string | null };
  const lines = transactions.map((t, i) => mapTransaction(t ?? {}, i, where, currency));
  const totalPrice = lines.reduce((sum, l) => sum + l.valueCents, 0);
  const discountCents = moneyCents(receipt.discount_amt, `${where} discount_amt`, currency);
  const subCents = receipt.subtotal ? moneyCents(receipt.subtotal, `${where} subtotal`, currency) : totalPrice - discountCents;
  const shippingCents = moneyCents(receipt.total_shipping_cost, `${where} total_shipping_cost`, currency);
  const taxCents = moneyCents(receipt.total_tax_cost, `${where} total_tax_cost`, currency) + moneyCents(receipt.total_vat_cost, `${where} total_vat_cost`, currency);
  const giftWrapCents = moneyCents(receipt.gift_wrap_price, `${where} gift_wrap_price`, currency);
  const grandCents = receipt.grandtotal
    ? moneyCents(receipt.grandtotal, `${where} grandtotal`, currency)
    : subCents + shippingCents + taxCents + giftWrapCents;
  const taxes = spreadTax(taxCents, lines.map((l) => l.valueCents));

  // Etsy names the shipping per transaction; the first one named stands for the order.
  const method = transactions.map((t) => text(t?.shipping_method)).find((m) => m !== "") ?? "";
  const upgrade = transactions.map((t) => text(t?.shipping_upgrade)).find((m) => m !== "") ?? "";
  const buyerUserId = idText(receipt.buyer_user_id);
  return {
    sourceOrderNumber: id,
    sourceCustomerOrderNumber: null,
    sourceOrderStatus: status,
    createdAt: createdAt(receipt, where),
    // Withheld for some regions and apps (README): an order imports with what Etsy sends.
    buyerEmail: text(receipt.buyer_email),
    // ShopReceipt has no phone number.
    buyerPhone: "",
    buyerUserId,
    shipTo: {
      ...splitName(text(receipt.name)),
      companyName: null,
      street1: text(receipt.first_line),
      street2: text(receipt.second_line),
      city: text(receipt.city),
      stateOrProvince: text(receipt.state),
      postalCode: text(receipt.zip),
      country: text(receipt.country_iso),
    },
    shippingMethod: upgrade || method,
    shippingServiceName: method,
    shippingServiceValue: upgrade || method,
    paymentType: text(receipt.payment_method) || null,
    paymentTransactionId: null,
    isPrime: false,
    subTotal: fromCents(subCents),
    shippingTotal: fromCents(shippingCents),
    shippingTaxTotal: 0,
    giftWrapTotal: fromCents(giftWrapCents),
    giftWrapTaxTotal: 0,
    grandTotal: fromCents(grandCents),
    items: lines.map((l, i) => ({ ...l.item, saleTaxCost: fromCents(taxes[i]!) })),
  };
}

/** How the kit reads one record of getShopReceipts' results. */
export const etsyReceiptReader: OrderReader = {
  map: (record) => mapEtsyReceipt(asReceipt(record)),
  numberOf: (record) => idText(asReceipt(record).receipt_id) ?? "(no receipt_id)",
  reason: (message) => `Etsy ${message}`,
};

/** What createReceiptShipment is sent for a shipment, and what the delivery should say of it. */
export interface PreparedShipment {
  form: EtsyShipmentForm;
  warnings: string[];
}

/**
 * The form for a shipment. Etsy takes tracking_code and carrier_name together or neither (then
 * the receipt is only marked shipped); a carrier it does not support goes as `other`, which the
 * description offers for that, so a tracking number without a carrier goes with `other` too.
 */
export function shipmentForm(shipment: Pick<Shipment, "trackingNumber" | "carrier">): PreparedShipment {
  // Sellers paste tracking numbers as printed, in groups; no carrier's number has spaces.
  const tracking = shipment.trackingNumber?.replace(/\s+/g, "") ?? "";
  const carrier = shipment.carrier?.trim() ?? "";
  const warnings: string[] = [];
  if (tracking === "") {
    if (carrier !== "") warnings.push(`carrier ${carrier} without a tracking number: the receipt was only marked shipped`);
    return { form: {}, warnings };
  }
  if (carrier === "") warnings.push("no carrier given: sent as `other`");
  // The long names sellers' systems send for the big carriers go as their short ones.
  return { form: { tracking_code: tracking, carrier_name: CARRIER_ALIASES[squash(carrier)] ?? (carrier || "other") }, warnings };
}

/** The shipment of a receipt that carries this tracking code already (an earlier attempt that reached Etsy). */
export function sameShipment(shipments: EtsyShipment[] | null | undefined, trackingCode: string): EtsyShipment | null {
  const wanted = trackingCode.replace(/\s+/g, "").toLowerCase();
  return (shipments ?? []).find((s) => typeof s?.tracking_code === "string" && s.tracking_code.replace(/\s+/g, "").toLowerCase() === wanted) ?? null;
}
