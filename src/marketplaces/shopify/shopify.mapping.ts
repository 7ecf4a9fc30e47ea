// Shopify's orders to the service's vocabulary (with what Shopify's admin did to their lines:
// packages, shipped and cancelled units, refunds), and a shipment to the fulfillments it takes.
// Pure functions: no I/O, no clock.
import type { DeliveryOrder, EarlierDelivery, ImportWindow, ImportedOrder, ImportedOrderItem, ImportedRefund, ImportedShipment, Shipment } from "../connector";
import { minorUnits, splitName } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import { PROGRESS_FULFILLMENTS, PROGRESS_REFUNDS } from "./shopify.graphql";
import {
  FULFILLABLE_STATUSES,
  WAITING_STATUSES,
  type ShopifyFulfillment,
  type ShopifyLineItem,
  type ShopifyMoneyBag,
  type ShopifyOrder,
  type ShopifyOrderFulfillment,
  type ShopifyRefund,
  type ShopifyTaxLine,
  type ShopifyTrackingInput,
  type ShopifyUserError,
} from "./shopify.types";

/** The service keeps at most this many items an order. */
export const MAX_LINES_PER_ORDER = 500;

const ORDER_GID = "gid://shopify/Order/";

/**
 * The `query` filter of the orders search for one import window. Both bounds are whole seconds
 * (the filter table's examples carry none) rounded outwards, so the window only ever grows;
 * quoted like the schema's own example for `fulfillments(query:)`.
 */
export function ordersSearchQuery(window: ImportWindow): string {
  const since = new Date(Math.floor(window.since.getTime() / 1000) * 1000);
  const until = new Date(Math.ceil(window.until.getTime() / 1000) * 1000);
  const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
  return `updated_at:>='${iso(since)}' updated_at:<'${iso(until)}'`;
}

/** The order's number as the service keys it: the numeric id (legacyResourceId, the GID's tail). */
export function orderNumberOf(order: ShopifyOrder): string | null {
  const legacy = order.legacyResourceId;
  if (legacy !== null && legacy !== undefined && /^\d+$/.test(String(legacy))) return String(legacy);
  const tail = typeof order.id === "string" && order.id.startsWith(ORDER_GID) ? order.id.slice(ORDER_GID.length) : "";
  return /^\d+$/.test(tail) ? tail : null;
}

/** The order's GID for a delivery: what the import kept, else built from the numeric id. */
export function orderGidOf(order: DeliveryOrder): string | null {
  const kept = order.sourceData.orderId;
  if (typeof kept === "string" && kept.startsWith(ORDER_GID)) return kept;
  return /^\d+$/.test(order.sourceOrderNumber) ? `${ORDER_GID}${order.sourceOrderNumber}` : null;
}

// Sums run in thousandths, so that 0.1 + 0.2 stays 0.3 and three-decimal currencies (KWD, BHD)
// keep their last digit on the way to the database.
function mills(bag: ShopifyMoneyBag | null | undefined, where: string): number {
  const raw: unknown = record(record(bag)?.shopMoney ?? null)?.amount;
  return minorUnits(raw, 1000, () => `${where}: amount ${JSON.stringify(raw)} is not a number`);
}

const fromMills = (m: number): number => m / 1000;

function sumTaxes(lines: ShopifyTaxLine[] | null | undefined, where: string): number {
  return list(lines).reduce((sum, t, i) => sum + mills(record(t)?.priceSet, `${where} tax line ${i + 1}`), 0);
}

/** A decimal string as the interface's Discount field holds it: two places, three when needed. */
function decimalText(m: number): string {
  return (m / 1000).toFixed(m % 10 === 0 ? 2 : 3);
}

// An answer is read, never trusted: a field of another type than the schema's counts as absent.
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const list = <T>(value: T[] | null | undefined): T[] => (Array.isArray(value) ? value : []);
const record = <T extends object>(value: T | null | undefined): T | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;

function mapLine(raw: ShopifyLineItem, index: number, where: string): ImportedOrderItem {
  const line = record(raw) ?? {};
  const name = text(line.name);
  const lineWhere = `${where} line ${index + 1}${name ? ` (${name})` : ""}`;
  const id = text(line.id);
  if (!id) throw new Unmappable(`${lineWhere} has no id`);
  const sku = text(line.sku)?.trim() ?? "";
  // The interface requires a SKU on every item; Shopify's custom items and variants may lack one.
  if (sku === "") throw new Unmappable(`${lineWhere} has no SKU`);
  const quantity = line.quantity;
  if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity <= 0) {
    throw new Unmappable(`${lineWhere}: quantity ${JSON.stringify(quantity)} is not a positive integer`);
  }
  const discount = list(line.discountAllocations).reduce((sum, d, i) => sum + mills(record(d)?.allocatedAmountSet, `${lineWhere} discount ${i + 1}`), 0);
  return {
    sourceLineId: id,
    sku,
    name: name ?? "",
    quantity,
    unitPrice: fromMills(mills(line.originalUnitPriceSet, `${lineWhere} price`)),
    saleTaxCost: fromMills(sumTaxes(line.taxLines, lineWhere)),
    discount: decimalText(discount),
  };
}

/**
 * How a Shopify order (with every line item fetched) is read: as the service's order, or set aside
 * with the reason. Amounts are the shop currency's (MoneyBag.shopMoney) as the order was placed,
 * before returns and refunds: the service tracks orders, not money movements.
 */
export const shopifyOrderReader: OrderReader = {
  map(raw) {
    const order = record(raw as ShopifyOrder) ?? {};
    const number = orderNumberOf(order);
    if (number === null) throw new Unmappable("the order has no numeric id");
    return mapOrder(order, number);
  },
  numberOf(raw) {
    const order = record(raw as ShopifyOrder) ?? {};
    return orderNumberOf(order) ?? text(order.id) ?? text(order.name) ?? "unknown";
  },
  reason: (message) => message,
};

function mapOrder(order: ShopifyOrder, number: string): ImportedOrder {
  const name = text(order.name);
  const where = `order ${name ?? number}`;
  const createdAt = Date.parse(text(order.createdAt) ?? "");
  if (!Number.isFinite(createdAt)) throw new Unmappable(`${where}: createdAt ${JSON.stringify(order.createdAt)} is not a date`);
  const lineItems = record(order.lineItems);
  const nodes = list(lineItems?.nodes);
  if (record(lineItems?.pageInfo)?.hasNextPage === true) {
    throw new Unmappable(`${where} has more than ${MAX_LINES_PER_ORDER} line items`);
  }
  if (nodes.length === 0) throw new Unmappable(`${where} has no line items`);
  if (nodes.length > MAX_LINES_PER_ORDER) throw new Unmappable(`${where} has more than ${MAX_LINES_PER_ORDER} line items`);
  const items = nodes.map((line, i) => mapLine(line, i, where));

  const address = record(order.shippingAddress) ?? {};
  // Without approval for protected customer data Shopify answers null for these: kept as empty.
  const first = text(address.firstName);
  const last = text(address.lastName);
  const named = first || last ? { firstName: first ?? "", lastName: last ?? "" } : splitName(text(address.name) ?? "");
  const shipping = record(order.shippingLine);
  const method = text(shipping?.title) ?? "";
  const gateways = list(order.paymentGatewayNames).filter((g) => typeof g === "string" && g !== "");
  return {
    sourceOrderNumber: number,
    sourceCustomerOrderNumber: name,
    sourceOrderStatus: order.cancelledAt ? "CANCELLED" : (text(order.displayFulfillmentStatus) ?? "UNFULFILLED"),
    createdAt: new Date(createdAt),
    buyerEmail: text(order.email) ?? "",
    buyerPhone: text(order.phone) ?? text(address.phone) ?? "",
    // Order.customer is outside the schema extract, and the service has no use for its GID.
    buyerUserId: null,
    shipTo: {
      ...named,
      companyName: text(address.company) || null,
      street1: text(address.address1) ?? "",
      street2: text(address.address2) ?? "",
      city: text(address.city) ?? "",
      stateOrProvince: text(address.provinceCode) ?? text(address.province) ?? "",
      postalCode: text(address.zip) ?? "",
      country: text(address.countryCodeV2) ?? text(address.country) ?? "",
    },
    shippingMethod: method,
    shippingServiceName: method,
    shippingServiceValue: text(shipping?.code) ?? method,
    paymentType: gateways.length > 0 ? gateways.join(", ") : null,
    // Transactions (OrderTransaction) are outside the schema extract.
    paymentTransactionId: null,
    isPrime: false,
    subTotal: fromMills(mills(order.subtotalPriceSet, `${where} subtotal`)),
    shippingTotal: fromMills(mills(shipping?.discountedPriceSet, `${where} shipping`)),
    shippingTaxTotal: fromMills(sumTaxes(shipping?.taxLines, `${where} shipping`)),
    giftWrapTotal: 0,
    giftWrapTaxTotal: 0,
    grandTotal: fromMills(mills(order.totalPriceSet, `${where} total`)),
    sourceData: { orderId: text(order.id) ?? `${ORDER_GID}${number}` },
    ...progressOf(order, nodes, items),
  };
}

// ---- what Shopify's admin did to the lines (decisions 12 and 13) ----------------------------

const count = (value: unknown): number | null => (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null);

/**
 * Whether the order needs ShopifyOrderProgress: a line shows units fulfilled (`unfulfilledQuantity`
 * below `quantity`) or refunded or removed (`currentQuantity` below it), or Shopify shows money
 * refunded (an amount-only refund touches no line). Every line item must be read first. Such an
 * order is read only when it changed since its last read (shopify.progress.ts).
 */
export function needsProgress(order: ShopifyOrder): boolean {
  const status = text(order.displayFinancialStatus);
  if (status === "PARTIALLY_REFUNDED" || status === "REFUNDED") return true;
  return list(record(order.lineItems)?.nodes).some((raw) => {
    const line = record(raw) ?? {};
    const quantity = count(line.quantity);
    if (quantity === null) return false;
    const current = count(line.currentQuantity);
    const unfulfilled = count(line.unfulfilledQuantity);
    return (current !== null && current < quantity) || (unfulfilled !== null && unfulfilled < quantity);
  });
}

/**
 * The packages, counts and refunds of an order ShopifyOrderProgress was asked for (nothing when
 * it was not: the hub keeps what it knows). A package is a fulfillment Shopify counts done
 * (`SUCCESS`), its id the fulfillment's GID (what the hub's own deliveries are answered with, so
 * its own packages are known). A line's shipped units are what those packages hold of it; its
 * cancelled units are those no longer on the order (`quantity - currentQuantity`: refunded or
 * removed by an edit) less the refunded ones that had shipped. A refunded unit counts against the
 * shipped ones first (the hub's own refunds are NO_RESTOCK, and a refund usually follows a
 * delivery), except one with `restockType: CANCEL`, which the schema keeps for unfulfilled units.
 * The counts are left out when
 * a list was read only in part (more fulfillments or refunds than one query reads): packages and
 * refunds read are still reported, and the counts only ever grow in the hub.
 */
function progressOf(order: ShopifyOrder, lines: ShopifyLineItem[], items: ImportedOrderItem[]): Pick<ImportedOrder, "items" | "shipments" | "refunds"> {
  if (!Array.isArray(order.fulfillments) || !Array.isArray(order.refunds)) return { items };
  const fulfillments = list(order.fulfillments);
  const refundsRead = list(order.refunds);
  let complete = fulfillments.length < PROGRESS_FULFILLMENTS && refundsRead.length < PROGRESS_REFUNDS;
  const shipments: ImportedShipment[] = [];
  const shipped = new Map<string, number>();
  for (const raw of fulfillments) {
    const f = record(raw) ?? {};
    if (record(f.fulfillmentLineItems)?.pageInfo?.hasNextPage === true) complete = false;
    const shipment = shipmentOf(f);
    if (!shipment) continue;
    shipments.push(shipment);
    for (const l of shipment.lines) shipped.set(l.sourceLineId, (shipped.get(l.sourceLineId) ?? 0) + l.quantity);
  }
  const refundedAfter = new Map<string, number>();
  const refunds: ImportedRefund[] = [];
  for (const raw of refundsRead) {
    const r = record(raw) ?? {};
    const lineItems = record(r.refundLineItems);
    if (lineItems?.pageInfo?.hasNextPage === true) {
      // A refund is recorded once and never again, so one whose lines are not all read is not recorded in part.
      complete = false;
      continue;
    }
    for (const rawLine of list(lineItems?.nodes)) {
      const line = record(rawLine) ?? {};
      const id = text(record(line.lineItem)?.id);
      const n = count(line.quantity);
      // CANCEL is by its definition a unit never fulfilled; every other refunded unit counts against the fulfilled ones first.
      if (id && n !== null && line.restockType !== "CANCEL") refundedAfter.set(id, (refundedAfter.get(id) ?? 0) + n);
    }
    const refund = refundOf(r);
    if (refund) refunds.push(refund);
  }
  const byId = new Map(list(lines).map((raw) => [text(record(raw)?.id) ?? "", record(raw) ?? {}] as const));
  const counted = items.map((item) => {
    if (!complete) return item;
    const line = byId.get(item.sourceLineId) ?? {};
    const current = count(line.currentQuantity);
    const quantityShipped = Math.min(item.quantity, shipped.get(item.sourceLineId) ?? 0);
    const offShipped = Math.min(quantityShipped, refundedAfter.get(item.sourceLineId) ?? 0);
    const removed = current === null ? 0 : Math.max(0, item.quantity - current - offShipped);
    return { ...item, quantityShipped, quantityCancelled: Math.min(removed, item.quantity - quantityShipped) };
  });
  return { items: counted, shipments, ...(refunds.length > 0 ? { refunds } : {}) };
}

function shipmentOf(f: ShopifyOrderFulfillment): ImportedShipment | null {
  const id = text(f.id);
  if (!id || f.status !== "SUCCESS") return null;
  const lines: ImportedShipment["lines"] = [];
  for (const raw of list(record(f.fulfillmentLineItems)?.nodes)) {
    const line = record(raw) ?? {};
    const lineId = text(record(line.lineItem)?.id);
    const n = count(line.quantity);
    if (!lineId || !n) continue;
    const known = lines.find((l) => l.sourceLineId === lineId);
    if (known) known.quantity += n;
    else lines.push({ sourceLineId: lineId, quantity: n });
  }
  if (lines.length === 0) return null;
  const tracking = record(list(f.trackingInfo)[0]);
  const at = Date.parse(text(f.createdAt) ?? "");
  return {
    sourceShipmentId: id,
    trackingNumber: text(tracking?.number)?.trim() || null,
    carrier: text(tracking?.company)?.trim() || null,
    shippingMethod: null,
    shippedAt: Number.isFinite(at) ? new Date(at) : null,
    lines,
  };
}

/**
 * A refund in the hub's words: each line's amount is its subtotal plus its tax as Shopify
 * refunded them; what the refund holds beyond its lines (`totalRefundedSet` less them: shipping,
 * which the extract cannot name, RefundShippingLine being left out of it) is the shipping amount.
 * A refund without a date or with an amount that does not parse is left out.
 */
function refundOf(r: ShopifyRefund): ImportedRefund | null {
  const id = text(r.id);
  const at = Date.parse(text(r.createdAt) ?? text(r.processedAt) ?? "");
  if (!id || !Number.isFinite(at)) return null;
  try {
    const lines = list(record(r.refundLineItems)?.nodes).flatMap((raw, i) => {
      const line = record(raw) ?? {};
      const lineId = text(record(line.lineItem)?.id);
      const n = count(line.quantity);
      if (!lineId || n === null) return [];
      const amount = mills(line.subtotalSet, `refund ${id} line ${i + 1}`) + mills(line.totalTaxSet, `refund ${id} line ${i + 1} tax`);
      return [{ sourceLineId: lineId, quantity: n, amount }];
    });
    const total = mills(r.totalRefundedSet, `refund ${id}`);
    const onLines = lines.reduce((sum, l) => sum + l.amount, 0);
    return {
      sourceRefundId: id,
      createdAt: new Date(at),
      reason: text(r.note)?.trim() || null,
      lines: lines.map((l) => ({ ...l, amount: fromMills(l.amount) })),
      shippingAmount: fromMills(Math.max(0, total - onLines)),
      currency: text(record(record(r.totalRefundedSet)?.shopMoney)?.currencyCode),
    };
  } catch (error) {
    if (error instanceof Unmappable) return null;
    throw error;
  }
}

/** FulfillmentTrackingInput of a shipment; null when it carries neither number nor carrier. */
export function trackingInputOf(shipment: Shipment): ShopifyTrackingInput | null {
  const number = shipment.trackingNumber?.trim();
  const company = shipment.carrier?.trim();
  if (!number && !company) return null;
  return { ...(number ? { number } : {}), ...(company ? { company } : {}) };
}

/** A fulfillment order with all its line items, flattened from the paged answer. */
export interface FulfillmentOrderState {
  id: string;
  status: string;
  actions: string[];
  lines: { id: string; sku: string; remainingQuantity: number; lineItemId: string }[];
}

export interface FulfillmentPlan {
  /** One fulfillmentCreate per fulfillment order (each is at one location, as the mutation needs). */
  creates: { fulfillmentOrderId: string; lines: { id: string; quantity: number }[] }[];
  /** Units of the shipment Shopify cannot fulfil now but will (ON_HOLD, SCHEDULED). */
  waiting: { fulfillmentOrderId: string; status: string }[];
  /** Units in fulfillment orders this app cannot fulfil (another fulfillment service's). */
  refused: { fulfillmentOrderId: string; status: string }[];
  /** Units of the shipment no open fulfillment order holds any more (fulfilled already). */
  doneUnits: number;
  /** Lines of the shipment that are not line items of the Shopify order. */
  unknownLines: string[];
}

/**
 * Which fulfillment order lines a shipment takes. Lines are matched by line item id, or by SKU
 * for an order inserted by a client (its lines carry no Shopify id); quantities go to open
 * fulfillment orders first, capped at what Shopify says remains.
 */
export function planFulfillment(order: DeliveryOrder, shipment: Shipment, fulfillmentOrders: FulfillmentOrderState[]): FulfillmentPlan {
  const plan: FulfillmentPlan = { creates: [], waiting: [], refused: [], doneUnits: 0, unknownLines: [] };
  const wanted = shipmentLines(order, shipment);
  const remaining = new Map<string, number>();
  for (const fo of fulfillmentOrders) for (const l of fo.lines) remaining.set(l.id, l.remainingQuantity);
  const creates = new Map<string, Map<string, number>>();
  const fulfillable = (fo: FulfillmentOrderState) =>
    (FULFILLABLE_STATUSES as readonly string[]).includes(fo.status) && fo.actions.includes("CREATE_FULFILLMENT");

  for (const want of wanted) {
    const sku = want.sku;
    const byId = fulfillmentOrders.flatMap((fo) => fo.lines.filter((l) => l.lineItemId === want.sourceLineId).map((l) => ({ fo, l })));
    const matches = byId.length > 0 ? byId : fulfillmentOrders.flatMap((fo) => fo.lines.filter((l) => sku !== "" && l.sku === sku).map((l) => ({ fo, l })));
    if (matches.length === 0) {
      plan.unknownLines.push(want.sourceLineId || sku);
      continue;
    }
    let left = want.quantity;
    for (const { fo, l } of [...matches].sort((a, b) => Number(fulfillable(b.fo)) - Number(fulfillable(a.fo)))) {
      const open = remaining.get(l.id) ?? 0;
      if (left <= 0 || open <= 0) continue;
      const take = Math.min(open, left);
      if (fulfillable(fo)) {
        const lines = creates.get(fo.id) ?? new Map<string, number>();
        lines.set(l.id, (lines.get(l.id) ?? 0) + take);
        creates.set(fo.id, lines);
        remaining.set(l.id, open - take);
        left -= take;
      } else if ((WAITING_STATUSES as readonly string[]).includes(fo.status)) {
        if (!plan.waiting.some((w) => w.fulfillmentOrderId === fo.id)) plan.waiting.push({ fulfillmentOrderId: fo.id, status: fo.status });
        left -= take;
      } else if (fo.status !== "CLOSED" && fo.status !== "CANCELLED") {
        if (!plan.refused.some((w) => w.fulfillmentOrderId === fo.id)) plan.refused.push({ fulfillmentOrderId: fo.id, status: fo.status });
        left -= take;
      }
    }
    plan.doneUnits += Math.max(0, left);
  }
  plan.creates = [...creates].map(([fulfillmentOrderId, lines]) => ({
    fulfillmentOrderId,
    lines: [...lines].map(([id, quantity]) => ({ id, quantity })),
  }));
  return plan;
}

/**
 * The shipment's lines with their SKUs. A line id names its order line when it is unique; an
 * inserted order's lines may all carry the same empty id, so the shipment's i-th line is then
 * the order's i-th.
 */
function shipmentLines(order: DeliveryOrder, shipment: Shipment): { sourceLineId: string; sku: string; quantity: number }[] {
  if (shipment.lines.length === 0) return order.lines;
  return shipment.lines.map((line, i) => {
    const same = order.lines.filter((l) => l.sourceLineId === line.sourceLineId);
    const match = same.length === 1 ? same[0] : order.lines[i]?.sourceLineId === line.sourceLineId ? order.lines[i] : undefined;
    return { ...line, sku: match?.sku ?? "" };
  });
}

/** The fulfillment ids of the latest earlier shipment this service delivered, oldest first. */
export function earlierFulfillmentIds(earlier: EarlierDelivery[], shipmentId?: string | null): string[] {
  const ships = earlier.filter((e) => e.kind === "ship" && e.state === "delivered" && e.reference);
  // A package's own fulfillments (decisions 12): never another package's. Without a match, the
  // newest delivered before packages existed (no shipmentId); without a shipmentId, the newest.
  const last = shipmentId ? (ships.filter((e) => e.shipmentId === shipmentId).at(-1) ?? ships.filter((e) => !e.shipmentId).at(-1)) : ships.at(-1);
  return last?.reference ? last.reference.split(/\s+/).filter(Boolean) : [];
}

/** The fulfillments an earlier delivery of this very package made: set when the delivery is its correction. */
export function ownFulfillmentIds(earlier: EarlierDelivery[], shipmentId: string | null | undefined): string[] {
  if (!shipmentId) return [];
  const own = earlier.filter((e) => e.kind === "ship" && e.state === "delivered" && e.reference && e.shipmentId === shipmentId).at(-1);
  return own?.reference ? own.reference.split(/\s+/).filter(Boolean) : [];
}

/** Fulfillments that carry this tracking number: a create whose answer was lost, seen again. */
export function fulfillmentsWithTracking(fulfillments: ShopifyFulfillment[], number: string | undefined): string[] {
  if (!number) return [];
  return fulfillments
    .filter((f) => typeof f.id === "string" && f.status !== "CANCELLED" && list(f.trackingInfo).some((t) => t?.number === number))
    .map((f) => f.id!);
}

/** Whether a fulfillment already shows exactly this tracking. */
export function hasTracking(fulfillment: ShopifyFulfillment | undefined, tracking: ShopifyTrackingInput): boolean {
  const info = list(fulfillment?.trackingInfo);
  return info.length === 1 && (info[0]?.number ?? undefined) === tracking.number && (info[0]?.company ?? undefined) === tracking.company;
}

/** "message (field a.b); message" of a mutation's userErrors. */
export function describeUserErrors(errors: ShopifyUserError[]): string {
  return errors
    .map((e) => {
      const field = e.field?.length ? ` (${e.field.join(".")})` : "";
      const code = e.code ? `${e.code}: ` : "";
      return `${code}${e.message ?? "refused"}${field}`;
    })
    .join("; ");
}
