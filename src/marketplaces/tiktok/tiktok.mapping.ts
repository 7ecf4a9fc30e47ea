// TikTok Shop orders to the service's orders (tiktokOrderReader), and a shipment to TikTok's
// fulfilment steps (shipmentPlan). Pure functions: no I/O, no clock. An order becomes one order;
// each of its line items one line of quantity 1 (TikTok's line items carry no quantity: a SKU
// bought twice is two line items, kept as two lines, each with its own line item id), counted
// shipped or cancelled as the line item's state says, and its shipped packages (line items
// grouped by package_id) the order's packages, whoever shipped them (decisions 12).
import type { ImportedOrder, ImportedOrderItem, ImportedShipment, Shipment } from "../connector";
import { CARRIER_ALIASES, cents, fromCents, nameTable, splitName } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import type { TiktokLineItem, TiktokOrder } from "./tiktok.types";

// Every TikTok time is unix seconds; anything before 2000-01-01 is not a date TikTok sends.
const EARLIEST_SECONDS = 946_684_800;

/** Orders that wait, as Etsy's unpaid ones do: not imported (no one ships them) until TikTok moves them on. */
export const WAITING_STATUSES = new Set(["UNPAID", "ON_HOLD"]);

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");
const asOrder = (record: unknown): TiktokOrder => (typeof record === "object" && record !== null && !Array.isArray(record) ? record : {}) as TiktokOrder;

/** An id TikTok sends as a string of digits (order, line item, package, SKU), or null. */
export function idOf(value: unknown): string | null {
  return typeof value === "string" && /^\d{1,40}$/.test(value) ? value : null;
}

/**
 * Whether an order is left out of the import: one that waits (UNPAID, ON_HOLD: the buyer may
 * still cancel without the seller, and its address is not complete), or one cancelled before it
 * was ever paid (it never was the seller's to ship). Its update_time moves when TikTok moves it on,
 * so it arrives in a later window.
 */
export function isLeftOut(record: unknown): boolean {
  const order = asOrder(record);
  const status = text(order.status);
  if (WAITING_STATUSES.has(status)) return true;
  return status === "CANCELLED" && !(typeof order.paid_time === "number" && order.paid_time > 0);
}

function dateOf(seconds: unknown, where: string): Date {
  if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < EARLIEST_SECONDS)
    throw new Unmappable(`${where} ${JSON.stringify(seconds)} is not a date`);
  return new Date(seconds * 1000);
}

interface Money {
  currency: string | null;
}

/** A decimal string of TikTok's in cents; the currency of every amount of one order must be one. */
function money(raw: unknown, where: string): number {
  if (raw !== undefined && raw !== null && typeof raw !== "string") throw new Unmappable(`${where}: amount ${JSON.stringify(raw)} is not a decimal string`);
  return cents(raw, where);
}

function sameCurrency(code: unknown, where: string, seen: Money): void {
  const c = text(code);
  if (c === "") return;
  if (seen.currency !== null && seen.currency !== c) throw new Unmappable(`${where} is in ${c}, the rest of the order in ${seen.currency}`);
  seen.currency = c;
}

function mapLine(line: TiktokLineItem, index: number, where: string, seen: Money): ImportedOrderItem {
  const id = idOf(line.id);
  const at = `${where} line item ${id ?? `#${index + 1}`}`;
  if (id === null) throw new Unmappable(`${at} has no id`);
  const sku = text(line.seller_sku);
  if (sku === "") throw new Unmappable(`${at} has no seller_sku`);
  sameCurrency(line.currency, `${at}`, seen);
  const original = line.original_price ?? line.sale_price;
  if (original === undefined || original === null || original === "") throw new Unmappable(`${at} has no price`);
  const unit = money(original, `${at} original_price`);
  const discount = money(line.seller_discount, `${at} seller_discount`) + money(line.platform_discount, `${at} platform_discount`);
  const taxes = Array.isArray(line.item_tax) ? line.item_tax : [];
  const tax = taxes.reduce((sum, t, i) => sum + money(t?.tax_amount, `${at} item_tax #${i + 1}`), 0);
  const product = text(line.product_name);
  const variant = text(line.sku_name);
  const state = lineState(line);
  return {
    sourceLineId: id,
    sku,
    name: variant !== "" && product !== "" ? `${product} (${variant})` : product || variant,
    quantity: 1,
    unitPrice: fromCents(unit),
    saleTaxCost: fromCents(tax),
    discount: fromCents(discount).toFixed(2),
    quantityShipped: state === "shipped" ? 1 : 0,
    quantityCancelled: state === "cancelled" ? 1 : 0,
  };
}

/**
 * The order's shipped packages: its shipped line items grouped by package_id (a shipped line item
 * without one is a package of its own tracking number), with the package's tracking number and
 * provider name, shipped at the line items' rts_time when TikTok gives one.
 */
export function shippedPackages(lines: TiktokLineItem[]): ImportedShipment[] {
  const packages = new Map<string, ImportedShipment>();
  for (const line of lines) {
    const id = idOf(line?.id);
    if (id === null || lineState(line) !== "shipped") continue;
    const packageId = idOf(line.package_id);
    const tracking = text(line.tracking_number);
    const key = packageId ?? `tracking:${tracking}`;
    let pkg = packages.get(key);
    if (!pkg) {
      const rts =
        typeof line.rts_time === "number" && Number.isSafeInteger(line.rts_time) && line.rts_time >= EARLIEST_SECONDS ? new Date(line.rts_time * 1000) : null;
      pkg = {
        sourceShipmentId: packageId,
        trackingNumber: tracking || null,
        carrier: text(line.shipping_provider_name) || null,
        shippingMethod: null,
        shippedAt: rts,
        lines: [],
      };
      packages.set(key, pkg);
    }
    pkg.lines.push({ sourceLineId: id, quantity: 1 });
  }
  return [...packages.values()];
}

/** The district names by level (L0 the country, L1 the state, then county, city, ...). */
function districts(order: TiktokOrder): Map<string, string> {
  const levels = new Map<string, string>();
  for (const d of Array.isArray(order.recipient_address?.district_info) ? order.recipient_address.district_info : []) {
    const level = text(d?.address_level);
    if (level !== "" && !levels.has(level)) levels.set(level, text(d?.address_name));
  }
  return levels;
}

/** An order as the service's order; throws Unmappable saying why when it cannot be one. */
export function mapTiktokOrder(order: TiktokOrder): ImportedOrder {
  const id = idOf(order.id);
  if (id === null) throw new Unmappable(`sent an order without a numeric id (${JSON.stringify(order.id ?? null)})`);
  const where = `order ${id}`;
  const status = text(order.status);
  if (status === "") throw new Unmappable(`${where} has no status`);
  const lineItems = order.line_items;
  if (!Array.isArray(lineItems) || lineItems.length === 0) throw new Unmappable(`${where} has no line items`);
  const seen: Money = { currency: null };
  sameCurrency(order.payment?.currency, `${where} payment`, seen);
  const items = lineItems.map((line, i) => mapLine(line ?? {}, i, where, seen));
  const ids = new Set<string>();
  for (const item of items) {
    if (ids.has(item.sourceLineId)) throw new Unmappable(`${where} line item ${item.sourceLineId} appears twice`);
    ids.add(item.sourceLineId);
  }

  const payment = order.payment ?? {};
  const lineCents = items.reduce((sum, i) => sum + Math.round(i.unitPrice * 100) - Math.round(Number(i.discount) * 100), 0);
  const taxCents = items.reduce((sum, i) => sum + Math.round(i.saleTaxCost * 100), 0);
  const subCents = payment.sub_total ? money(payment.sub_total, `${where} payment sub_total`) : lineCents;
  const shippingCents = money(payment.shipping_fee, `${where} payment shipping_fee`);
  const shippingTaxCents = money(payment.shipping_fee_tax, `${where} payment shipping_fee_tax`);
  const grandCents = payment.total_amount
    ? money(payment.total_amount, `${where} payment total_amount`)
    : subCents + shippingCents + taxCents + shippingTaxCents;

  const address = order.recipient_address ?? {};
  const levels = districts(order);
  const named =
    text(address.first_name) !== "" || text(address.last_name) !== ""
      ? { firstName: text(address.first_name), lastName: text(address.last_name) }
      : splitName(text(address.name));
  const extraLines = [address.address_line2, address.address_line3, address.address_line4].map(text).filter((l) => l !== "");
  const shippingType = text(order.shipping_type);
  const fulfillmentType = text(order.fulfillment_type);
  return {
    sourceOrderNumber: id,
    sourceCustomerOrderNumber: null,
    // TikTok's own word (AWAITING_SHIPMENT, IN_TRANSIT, CANCELLED, ...); OrderStatus stays the client's.
    sourceOrderStatus: status,
    createdAt: dateOf(order.create_time, `${where} create_time`),
    // TikTok sends an anonymised relay address; the README says so.
    buyerEmail: text(order.buyer_email),
    buyerPhone: text(address.phone_number),
    buyerUserId: text(order.user_id) || null,
    shipTo: {
      ...named,
      companyName: null,
      street1: text(address.address_line1) || text(address.address_detail),
      street2: extraLines.join(", "),
      city: text(address.post_town) || levels.get("L3") || levels.get("L2") || "",
      stateOrProvince: levels.get("L1") ?? "",
      postalCode: text(address.postal_code),
      country: text(address.region_code),
    },
    shippingMethod: text(order.delivery_option_name),
    shippingServiceName: text(order.delivery_option_name),
    shippingServiceValue: text(order.delivery_option_id) || text(order.delivery_option_name),
    paymentType: text(order.payment_method_name) || null,
    paymentTransactionId: null,
    isPrime: false,
    subTotal: fromCents(subCents),
    shippingTotal: fromCents(shippingCents),
    shippingTaxTotal: fromCents(shippingTaxCents),
    giftWrapTotal: 0,
    giftWrapTaxTotal: 0,
    grandTotal: fromCents(grandCents),
    items,
    shipments: shippedPackages(lineItems),
    // What later deliveries decide on without a call (README: who ships the order).
    sourceData: {
      ...(shippingType !== "" && { shippingType: shippingType.slice(0, 40) }),
      ...(fulfillmentType !== "" && { fulfillmentType: fulfillmentType.slice(0, 40) }),
    },
  };
}

/** How the kit reads one order of GetOrderDetail (or GetOrderList: the same shape). */
export const tiktokOrderReader: OrderReader = {
  map: (record) => mapTiktokOrder(asOrder(record)),
  numberOf: (record) => idOf(asOrder(record).id) ?? "(no id)",
  reason: (message) => `TikTok ${message}`,
};

/** Why an order's shipments are not the seller's to send (TikTok's carriers, TikTok's warehouses), or null. */
export function shippedByTiktok(sourceData: Record<string, string>): string | null {
  if (sourceData.fulfillmentType === "FULFILLMENT_BY_TIKTOK") {
    return "TikTok fulfils this order from its own warehouses (FULFILLMENT_BY_TIKTOK): there is nothing for the seller to ship";
  }
  if (sourceData.shippingType === "TIKTOK") {
    return (
      "TikTok ships this order with its own carrier (shipping_type TIKTOK): the seller arranges the handover in Seller Center and TikTok gives the " +
      "tracking number"
    );
  }
  return null;
}

/** Where a line item stands for shipping. */
export function lineState(line: TiktokLineItem): "cancelled" | "shipped" | "open" {
  const status = text(line.display_status);
  const pkg = text(line.package_status);
  if (status === "CANCELLED" || pkg === "CANCELLED") return "cancelled";
  if (
    text(line.tracking_number) !== "" ||
    ["AWAITING_COLLECTION", "IN_TRANSIT", "DELIVERED", "COMPLETED"].includes(status) ||
    ["PROCESSING", "FULFILLING", "COMPLETED"].includes(pkg)
  ) {
    return "shipped";
  }
  return "open";
}

/** A tracking number as carriers print it, without the spaces sellers paste in. */
export const trackingOf = (shipment: Pick<Shipment, "trackingNumber">): string => shipment.trackingNumber?.replace(/\s+/g, "") ?? "";

/**
 * TikTok's shipping_provider_id for the shipment's carrier: the Settings' shippingProviders entry
 * whose name matches (ignoring case, spaces and punctuation; "United Parcel Service" finds "UPS"),
 * else the default shippingProviderId; null when there is neither.
 */
export function providerFor(carrier: string | null, providers: Record<string, string>, fallback: string | null): string | null {
  const name = carrier?.trim() ?? "";
  if (name !== "") {
    const match = nameTable(Object.keys(providers), CARRIER_ALIASES)(name);
    if (match !== null) return providers[match]!;
  }
  return fallback;
}

/** What shipping some line items takes, from the order as TikTok has it now. */
export interface ShipmentPlan {
  /** Wanted line items TikTok does not know for this order. */
  unknown: string[];
  /** Wanted line items already shipped with this tracking number (an earlier attempt reached TikTok). */
  done: string[];
  /** Packages whose wanted line items TikTok shipped with another tracking number: a correction. */
  correct: string[];
  /** Packages holding exactly the wanted open line items (and nothing else still open): ship each. */
  ship: string[];
  /** Wanted open line items sharing a package with open line items not wanted: split them off first. */
  split: { packageId: string; lineIds: string[] }[];
  /** Wanted open line items in no package: MarkPackageAsShipped makes their package. */
  unpackaged: string[];
  /** Wanted line items TikTok cancelled. */
  cancelled: string[];
}

export function shipmentPlan(order: TiktokOrder, wanted: string[], tracking: string): ShipmentPlan {
  const lines = Array.isArray(order.line_items) ? order.line_items : [];
  const byId = new Map(lines.filter((l) => idOf(l?.id) !== null).map((l) => [l.id!, l] as const));
  const plan: ShipmentPlan = { unknown: [], done: [], correct: [], ship: [], split: [], unpackaged: [], cancelled: [] };
  const openWanted = new Map<string, string[]>();
  for (const id of new Set(wanted)) {
    const line = byId.get(id);
    if (!line) plan.unknown.push(id);
    else if (lineState(line) === "cancelled") plan.cancelled.push(id);
    else if (lineState(line) === "shipped") {
      if (text(line.tracking_number).replace(/\s+/g, "").toLowerCase() === tracking.toLowerCase()) plan.done.push(id);
      else if (idOf(line.package_id) !== null && !plan.correct.includes(line.package_id!)) plan.correct.push(line.package_id!);
    } else if (idOf(line.package_id) === null) plan.unpackaged.push(id);
    else openWanted.set(line.package_id!, [...(openWanted.get(line.package_id!) ?? []), id]);
  }
  for (const [packageId, ids] of openWanted) {
    const othersOpen = lines.some((l) => l?.package_id === packageId && lineState(l) === "open" && !ids.includes(l.id ?? ""));
    if (othersOpen) plan.split.push({ packageId, lineIds: ids });
    else plan.ship.push(packageId);
  }
  return plan;
}
