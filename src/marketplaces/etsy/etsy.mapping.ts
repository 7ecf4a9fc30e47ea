// Etsy receipts to the service's orders (etsyReceiptReader), a shipment to
// createReceiptShipment's form, and a listing's inventory with new quantities and prices to
// updateListingInventory's body (inventoryUpdate). Pure functions: no I/O, no clock. A receipt
// becomes one order, its transactions the order's lines.
import type { ImportedOrder, ImportedOrderItem, ImportedRefund, Shipment } from "../connector";
import { CARRIER_ALIASES, fromCents, splitName, squash } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import type {
  EtsyInventoryUpdate,
  EtsyListingInventory,
  EtsyMoney,
  EtsyReceipt,
  EtsyShipment,
  EtsyShipmentForm,
  EtsyShopListing,
  EtsyTransaction,
} from "./etsy.types";

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
  const taxCents =
    moneyCents(receipt.total_tax_cost, `${where} total_tax_cost`, currency) + moneyCents(receipt.total_vat_cost, `${where} total_vat_cost`, currency);
  const giftWrapCents = moneyCents(receipt.gift_wrap_price, `${where} gift_wrap_price`, currency);
  const grandCents = receipt.grandtotal ? moneyCents(receipt.grandtotal, `${where} grandtotal`, currency) : subCents + shippingCents + taxCents + giftWrapCents;
  const taxes = spreadTax(
    taxCents,
    lines.map((l) => l.valueCents),
  );

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
    // Etsy cancels whole receipts: a canceled receipt never shipped has every unit cancelled
    // (decisions 12). Nothing else line-level is in the description.
    items: lines.map((l, i) => ({
      ...l.item,
      saleTaxCost: fromCents(taxes[i]!),
      ...(status === "canceled" && receipt.is_shipped !== true ? { quantityCancelled: l.item.quantity } : {}),
    })),
    ...withRefunds(
      refundsOf(
        receipt,
        id,
        lines.map((l, i) => ({ sourceLineId: l.item.sourceLineId, paidCents: l.valueCents + taxes[i]! })),
        currency,
        where,
      ),
    ),
  };
}

/** Left out when there are none: an order without refunds reads as before. */
const withRefunds = (refunds: ImportedRefund[]) => (refunds.length > 0 ? { refunds } : {});

/**
 * A receipt's refunds (ShopRefund: an amount, a date, a reason; no id and no lines). The id is
 * made of the receipt, the date and the amount, so the same refund reads the same at every
 * import. The amount goes to the lines in order, each up to what was paid for it (quantity 0: an
 * amount), the rest to shipping: Etsy does not say which lines a refund concerns.
 */
function refundsOf(
  receipt: EtsyReceipt,
  id: string,
  lines: { sourceLineId: string; paidCents: number }[],
  currency: { code: string | null },
  where: string,
): ImportedRefund[] {
  const refunds = Array.isArray(receipt.refunds) ? receipt.refunds : [];
  return refunds.map((r, i) => {
    const refundWhere = `${where} refund ${i + 1}`;
    const cents = moneyCents(r?.amount, `${refundWhere} amount`, currency, true);
    const seconds = r?.created_timestamp;
    if (typeof seconds !== "number" || !Number.isFinite(seconds)) throw invalid(`${refundWhere} has no created_timestamp`);
    let left = cents;
    const refundLines: ImportedRefund["lines"] = [];
    for (const line of lines) {
      const take = Math.min(left, Math.max(0, line.paidCents));
      if (take > 0) refundLines.push({ sourceLineId: line.sourceLineId, quantity: 0, amount: fromCents(take) });
      left -= take;
    }
    return {
      sourceRefundId: `${id}:${seconds}:${cents}`,
      createdAt: new Date(seconds * 1000),
      reason: text(r?.reason) || text(r?.note_from_issuer) || null,
      lines: refundLines,
      shippingAmount: fromCents(left),
      currency: r?.amount?.currency_code ?? currency.code,
    };
  });
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

/** The SKUs of a getListingsByShop listing (Inventory included): its live products' SKUs, else its `skus`. */
export function listingSkus(listing: EtsyShopListing): string[] {
  const products = Array.isArray(listing.inventory?.products) ? listing.inventory.products : [];
  const fromProducts = products.filter((p) => p?.is_deleted !== true).map((p) => (typeof p?.sku === "string" ? p.sku : ""));
  const fromListing = Array.isArray(listing.skus) ? listing.skus.filter((s): s is string => typeof s === "string") : [];
  return [...new Set([...fromProducts, ...fromListing].filter((sku) => sku !== ""))];
}

/** Money as the float updateListingInventory takes ("a float equal to amount divided by divisor"); null when unreadable. */
export function moneyFloat(money: EtsyMoney | null | undefined): number | null {
  const amount = money?.amount;
  const divisor = money?.divisor;
  if (typeof amount !== "number" || !Number.isSafeInteger(amount) || typeof divisor !== "number" || !Number.isSafeInteger(divisor) || divisor <= 0) return null;
  return amount / divisor;
}

/** One Sku's new values (null: unchanged) for a listing. */
export interface SkuChange {
  sku: string;
  quantity: number | null;
  price: number | null;
  currency: string;
}

/** What inventoryUpdate made of a listing's changes. */
export interface InventoryPlan {
  /** The body to send, or null when nothing is left to change. */
  body: EtsyInventoryUpdate | null;
  /** Per Sku sent: whether its quantity and its price are in the body. */
  sent: Map<string, { quantity: boolean; price: boolean }>;
  /** Per Sku: why a part of it is not sent (for good: it will not change on a retry). */
  refused: Map<string, string[]>;
  /** Skus no live product of this listing has (the index that pointed here is out of date). */
  missing: string[];
}

/** The listing's inventory cannot be sent back as read: nothing is sent. */
export class UnreadableInventory extends Error {}

type UpdateProduct = EtsyInventoryUpdate["products"][number];

function integers(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((v) => Number.isSafeInteger(v)) ? (value as number[]) : null;
}

/**
 * updateListingInventory's body for `changes` to the listing whose inventory was just read. Etsy
 * replaces the whole inventory with what is sent, so every live product goes back as it was
 * (read-only fields left out: product_id, offering_id, is_deleted, scale_name; Money as a float)
 * with the changed Skus' offerings set. A quantity or price that does not vary by property
 * (`quantity_on_property` / `price_on_property` empty) is one for all products: it is set only
 * when every product has the Sku (or already has that value), and refused otherwise, as Etsy would
 * refuse it.
 */
export function inventoryUpdate(listingId: number, inventory: EtsyListingInventory, changes: SkuChange[]): InventoryPlan {
  const where = `Etsy listing ${listingId}`;
  if (!Array.isArray(inventory.products)) throw new UnreadableInventory(`${where}: the inventory has no products list`);
  const live = inventory.products.filter((p) => p?.is_deleted !== true);
  const onProperty = {
    price: integers(inventory.price_on_property ?? []),
    quantity: integers(inventory.quantity_on_property ?? []),
    sku: integers(inventory.sku_on_property ?? []),
  };
  if (!onProperty.price || !onProperty.quantity || !onProperty.sku) throw new UnreadableInventory(`${where}: an *_on_property list is not a list of ids`);
  let currency: string | null = null;
  const products: UpdateProduct[] = live.map((product, i) => {
    const at = `${where} product ${product?.product_id ?? `#${i + 1}`}`;
    if (!Array.isArray(product?.offerings)) throw new UnreadableInventory(`${at} has no offerings list`);
    const propertyValues = (product.property_values ?? []).map((v) => {
      const valueIds = integers(v?.value_ids);
      if (!Number.isSafeInteger(v?.property_id) || !valueIds || !Array.isArray(v?.values) || !v.values.every((x) => typeof x === "string")) {
        throw new UnreadableInventory(`${at} has a property value without property_id, value_ids or values`);
      }
      return {
        property_id: v.property_id!,
        value_ids: valueIds,
        ...(v.scale_id !== undefined && { scale_id: v.scale_id }),
        ...(typeof v.property_name === "string" && { property_name: v.property_name }),
        values: v.values,
      };
    });
    const offerings = product.offerings
      .filter((o) => o?.is_deleted !== true)
      .map((o) => {
        const price = moneyFloat(o?.price);
        if (price === null || !Number.isSafeInteger(o?.quantity) || o!.quantity! < 0 || typeof o?.is_enabled !== "boolean") {
          throw new UnreadableInventory(`${at} has an offering without a readable price, quantity or is_enabled`);
        }
        currency ??= typeof o.price?.currency_code === "string" ? o.price.currency_code : null;
        return { price, quantity: o.quantity!, is_enabled: o.is_enabled };
      });
    return { sku: typeof product.sku === "string" ? product.sku : null, property_values: propertyValues, offerings };
  });

  const sent = new Map<string, { quantity: boolean; price: boolean }>();
  const refused = new Map<string, string[]>();
  const missing: string[] = [];
  const refuse = (sku: string, why: string) => refused.set(sku, [...(refused.get(sku) ?? []), why]);
  // A value shared by all products that already is the new one changes nothing Etsy could refuse.
  const allOfferings = () => products.flatMap((p) => p.offerings);
  for (const change of changes) {
    const mine = products.filter((p) => p.sku === change.sku);
    if (mine.length === 0) {
      missing.push(change.sku);
      continue;
    }
    const wholeListing = mine.length === products.length;
    const parts = { quantity: false, price: false };
    if (change.quantity !== null) {
      if (onProperty.quantity.length === 0 && !wholeListing && !allOfferings().every((o) => o.quantity === change.quantity)) {
        refuse(
          change.sku,
          `${where} has one quantity for all its products (quantity_on_property is empty) and they have other SKUs than ${change.sku}: make the quantity ` +
            `vary by property on Etsy`,
        );
      } else {
        for (const o of (onProperty.quantity.length === 0 ? products : mine).flatMap((p) => p.offerings)) o.quantity = change.quantity;
        parts.quantity = true;
      }
    }
    if (change.price !== null) {
      if (!(change.price > 0)) refuse(change.sku, `Etsy takes a positive non-zero price, not ${change.price}`);
      else if (currency !== null && currency !== change.currency)
        refuse(change.sku, `${where} is priced in ${currency}, the product in ${change.currency}: the price is not sent`);
      else if (onProperty.price.length === 0 && !wholeListing && !allOfferings().every((o) => o.price === change.price)) {
        refuse(
          change.sku,
          `${where} has one price for all its products (price_on_property is empty) and they have other SKUs than ${change.sku}: make the price vary by ` +
            `property on Etsy`,
        );
      } else {
        for (const o of (onProperty.price.length === 0 ? products : mine).flatMap((p) => p.offerings)) o.price = change.price;
        parts.price = true;
      }
    }
    if (parts.quantity || parts.price) sent.set(change.sku, parts);
  }
  const body =
    sent.size === 0 ? null : { products, price_on_property: onProperty.price, quantity_on_property: onProperty.quantity, sku_on_property: onProperty.sku };
  return { body, sent, refused, missing };
}
