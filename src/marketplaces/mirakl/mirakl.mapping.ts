// Mirakl's order shapes to the service's vocabulary and back. Pure functions: no I/O, no clock.
// An OR11 order becomes an ImportedOrder (or a set-aside reason); a shipment becomes OR23's
// tracking body; an error answer becomes words.
import type { DeliveryOrder, ImportedOrder, ImportedOrderItem, ImportedRefund, Shipment } from "../connector";
import { cents as centsOf, fromCents, nameTable, splitName } from "../kit/mapping";
import { refusal } from "../kit/marketplace-http";
import { type OrderReader, Unmappable } from "../kit/orders-page";
import type { MiraklAddress, MiraklOrder, MiraklOrderLine, MiraklShipmentTracking, MiraklTax, MiraklTrackingRequest } from "./mirakl.types";

const unmappable = (message: string) => new Unmappable(message);

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");
const taxCents = (taxes: MiraklTax[] | undefined, where: string) =>
  sum((taxes ?? []).map((t, i) => centsOf(t?.amount, `${where} tax ${t?.code ?? `#${i + 1}`}`)));

/** The order's state as the import stores it (SourceOrderStatus), and what later deliveries read back. */
export const WAITING_ACCEPTANCE = "WAITING_ACCEPTANCE";
/** States in which Mirakl has the order shipped or further. */
export const SHIPPED_STATES = new Set(["SHIPPED", "TO_COLLECT", "RECEIVED", "CLOSED"]);
/** States in which the order is over without a shipment. */
export const ENDED_STATES = new Set(["REFUSED", "CANCELED"]);
/** Accepted, waiting for the customer's payment before Mirakl moves it to SHIPPING. */
export const WAITING_PAYMENT_STATES = new Set(["WAITING_DEBIT", "WAITING_DEBIT_PAYMENT", "STAGING"]);

function dateOf(raw: unknown, where: string): Date {
  const ms = typeof raw === "string" ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw unmappable(`${where}: created_date ${JSON.stringify(raw)} is not a date`);
  return new Date(ms);
}

interface LineMoney {
  /** What the buyer pays for the line's items, before tax (promotions deducted). */
  netCents: number;
  promotionCents: number;
  taxCents: number;
  shippingCents: number;
  shippingTaxCents: number;
  feeCents: number;
}

/**
 * A line's money. The connector asks OR11 for TAX_EXCLUDED prices; an order that still comes
 * TAX_INCLUDED (an operator that ignores the parameter) has its taxes taken out of its prices.
 */
function lineMoney(line: MiraklOrderLine, taxIncluded: boolean, where: string): LineMoney {
  const tax = taxCents(line.taxes, where);
  const shippingTax = taxCents(line.shipping_taxes, `${where} shipping`);
  const price = centsOf(line.price, `${where} price`);
  const shipping = centsOf(line.shipping_price, `${where} shipping_price`);
  return {
    netCents: taxIncluded ? price - tax : price,
    promotionCents: sum((line.promotions ?? []).map((p, i) => Math.abs(centsOf(p?.deduced_amount, `${where} promotion ${p?.id ?? `#${i + 1}`}`)))),
    taxCents: tax,
    shippingCents: taxIncluded ? shipping - shippingTax : shipping,
    shippingTaxCents: shippingTax,
    feeCents: sum((line.fees ?? []).map((f, i) => centsOf(f?.amount, `${where} fee ${f?.code ?? `#${i + 1}`}`))),
  };
}

function quantityOf(line: MiraklOrderLine, where: string): number {
  const n = line.quantity;
  if (typeof n !== "number" || !Number.isInteger(n) || n <= 0) throw unmappable(`${where}: quantity ${JSON.stringify(n)} is not a positive integer`);
  return n;
}

/** How a record of OR11's `orders` is read: set aside under its order_id when it cannot be mapped. */
export const miraklOrderReader: OrderReader = {
  map: (record) => mapMiraklOrder((typeof record === "object" && record !== null ? record : {}) as MiraklOrder),
  numberOf: (record) => {
    const id = (record as MiraklOrder | null)?.order_id;
    return typeof id === "string" && id !== "" ? id : "(no order_id)";
  },
  reason: (message) => `Mirakl ${message}`,
};

function shipTo(address: MiraklAddress | null | undefined, customer: MiraklOrder["customer"]): ImportedOrder["shipTo"] {
  // Before acceptance (or shipping, by the operator's setting) Mirakl answers the address as
  // null: the order comes with blanks, and the import after acceptance fills them in.
  const name = address
    ? { firstName: text(address.firstname), lastName: text(address.lastname) }
    : splitName(`${text(customer?.firstname)} ${text(customer?.lastname)}`);
  return {
    ...name,
    companyName: text(address?.company) || null,
    street1: text(address?.street_1),
    street2: [text(address?.street_2), text(address?.additional_info)].filter(Boolean).join(", "),
    city: text(address?.city),
    stateOrProvince: text(address?.state),
    postalCode: text(address?.zip_code),
    // ISO 3166-1 alpha-3 as Mirakl sends it ("USA", "FRA").
    country: text(address?.country_iso_code) || text(address?.country),
  };
}

/**
 * What Mirakl counts of a line as cancelled and shipped (decisions 12). Cancelled: the units of
 * its `cancelations` (OR30's, the operator's, a customer's), or every unit of a line REFUSED or
 * CANCELED. Shipped: every unit not cancelled once the line is SHIPPED or further; OR11 names no
 * shipped count below that (a line in SHIPPING may have some of its units in a package: the
 * hub keeps what it knows). The line's `quantity` is read as the units ordered (UNCONFIRMED:
 * the description does not say whether a cancellation lowers it). Left out when there is nothing to say.
 */
function lineQuantities(line: MiraklOrderLine, quantity: number, where: string): Pick<ImportedOrderItem, "quantityShipped" | "quantityCancelled"> {
  const state = text(line.order_line_state);
  let cancelled = ENDED_STATES.has(state) ? quantity : 0;
  if (!ENDED_STATES.has(state)) {
    for (const [i, c] of (Array.isArray(line.cancelations) ? line.cancelations : []).entries()) {
      const n = c?.quantity;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw unmappable(`${where}: cancelation ${c?.id ?? `#${i + 1}`} has no whole quantity`);
      cancelled += n;
    }
  }
  if (cancelled > quantity) throw unmappable(`${where}: its cancelations count ${cancelled} units of ${quantity}`);
  const out: Pick<ImportedOrderItem, "quantityShipped" | "quantityCancelled"> = {};
  if (cancelled > 0) out.quantityCancelled = cancelled;
  if (SHIPPED_STATES.has(state)) out.quantityShipped = quantity - cancelled;
  return out;
}

/**
 * The refunds Mirakl reports on the order's lines, one per order_refund_id (OR28 makes one for
 * all the lines of a call: the reference its delivery was answered with), each line's amount and
 * the shipping with their taxes; a refund Mirakl refused is left out. Left out when there are none.
 */
function refundsOf(lines: MiraklOrderLine[], currency: string | null, where: string): { refunds?: ImportedRefund[] } {
  const byId = new Map<string, ImportedRefund>();
  for (const line of lines) {
    for (const [i, r] of (Array.isArray(line.refunds) ? line.refunds : []).entries()) {
      const state = text(r?.state) || text(r?.refund_state);
      if (state === "REFUSED") continue;
      const id = text(r?.order_refund_id) || text(r?.id);
      const rWhere = `${where} line ${text(line.order_line_id)} refund ${id || `#${i + 1}`}`;
      if (!id) throw unmappable(`${rWhere} has no id`);
      const at = typeof r.created_date === "string" ? Date.parse(r.created_date) : Number.NaN;
      if (!Number.isFinite(at)) throw unmappable(`${rWhere}: created_date ${JSON.stringify(r.created_date)} is not a date`);
      const quantity = typeof r.quantity === "number" && Number.isInteger(r.quantity) && r.quantity >= 0 ? r.quantity : 0;
      const refund = byId.get(id) ?? {
        sourceRefundId: id,
        createdAt: new Date(at),
        reason: text(r.reason_code) || null,
        lines: [],
        shippingAmount: 0,
        currency: text(r.currency_iso_code) || currency,
      };
      // What the buyer gets back: the amounts with their taxes (OR11 answers them apart in TAX_EXCLUDED).
      const amount = centsOf(r.amount, `${rWhere} amount`) + taxCents(r.taxes, rWhere);
      const shipping = centsOf(r.shipping_amount ?? 0, `${rWhere} shipping_amount`) + taxCents(r.shipping_taxes, `${rWhere} shipping`);
      refund.lines.push({ sourceLineId: text(line.order_line_id), quantity, amount: fromCents(amount) });
      refund.shippingAmount = fromCents(centsOf(refund.shippingAmount, rWhere) + shipping);
      byId.set(id, refund);
    }
  }
  return byId.size > 0 ? { refunds: [...byId.values()] } : {};
}

export function mapMiraklOrder(order: MiraklOrder): ImportedOrder {
  const id = text(order.order_id);
  if (!id) throw unmappable("sent an order without order_id");
  const where = `order ${id}`;
  const state = text(order.order_state);
  if (!state) throw unmappable(`${where} has no order_state`);
  const lines = order.order_lines;
  if (!Array.isArray(lines) || lines.length === 0) throw unmappable(`${where} has no order lines`);
  const taxIncluded = order.order_tax_mode === "TAX_INCLUDED";

  let netCents = 0;
  let taxTotal = 0;
  let shippingCents = 0;
  let shippingTaxCents = 0;
  let feeCents = 0;
  const seen = new Set<string>();
  const items: ImportedOrderItem[] = lines.map((line, index) => {
    const lineId = text(line?.order_line_id);
    const lineWhere = `${where} line ${lineId || `#${index + 1}`}`;
    if (!lineId) throw unmappable(`${lineWhere} has no order_line_id`);
    if (seen.has(lineId)) throw unmappable(`${where} names line ${lineId} twice`);
    seen.add(lineId);
    const sku = text(line.offer_sku);
    if (!sku) throw unmappable(`${lineWhere} has no offer_sku`);
    const quantity = quantityOf(line, lineWhere);
    const m = lineMoney(line, taxIncluded, lineWhere);
    netCents += m.netCents;
    taxTotal += m.taxCents;
    shippingCents += m.shippingCents;
    shippingTaxCents += m.shippingTaxCents;
    feeCents += m.feeCents;
    const done = lineQuantities(line, quantity, lineWhere);
    return {
      sourceLineId: lineId,
      sku,
      name: text(line.product_title),
      quantity,
      ...done,
      // The line's price has its promotions deducted (it is what the buyer pays); the unit price
      // is before them, so unit price x quantity - discount is the line's price.
      unitPrice: Math.round((m.netCents + m.promotionCents) / quantity) / 100,
      saleTaxCost: fromCents(m.taxCents),
      discount: fromCents(m.promotionCents).toFixed(2),
    };
  });
  // With the operator's order-level tax calculation, taxes come per order, not per line.
  const orderTaxCents =
    taxTotal === 0 && shippingTaxCents === 0
      ? taxCents(
          order.order_taxes?.map((t) => ({ amount: t?.total_amount, code: t?.code })),
          where,
        )
      : 0;

  const customer = order.customer ?? null;
  const address = customer?.shipping_address ?? null;
  const shippingType = text(order.shipping_type_code);
  return {
    sourceOrderNumber: id,
    sourceCustomerOrderNumber: text(order.commercial_id) || null,
    sourceOrderStatus: state,
    createdAt: dateOf(order.created_date, where),
    buyerEmail: text(order.customer_notification_email),
    buyerPhone: text(address?.phone) || text(customer?.billing_address?.phone),
    buyerUserId: text(customer?.customer_id) || null,
    shipTo: shipTo(address, customer),
    shippingMethod: shippingType,
    shippingServiceName: text(order.shipping_type_label) || shippingType,
    shippingServiceValue: text(order.shipping_type_standard_code) || shippingType,
    paymentType: text(order.payment_type) || text(order.paymentType) || null,
    paymentTransactionId: text(order.transaction_number) || null,
    isPrime: false,
    subTotal: fromCents(netCents),
    shippingTotal: fromCents(shippingCents),
    shippingTaxTotal: fromCents(shippingTaxCents),
    giftWrapTotal: 0,
    giftWrapTaxTotal: 0,
    grandTotal: fromCents(netCents + taxTotal + shippingCents + shippingTaxCents + feeCents + orderTaxCents),
    items,
    ...refundsOf(lines, text(order.currency_iso_code) || null, where),
    // Read back by deliveries: whether the order still waits for acceptance, was shipped, ended.
    sourceData: { state },
  };
}

/**
 * OR23's body for a shipment: a carrier the source's `carriers` maps (or a code already in the
 * map's values) goes as carrier_code, a shipment without a carrier as the default carrier code,
 * and any other carrier as carrier_name, which the description takes for an unregistered carrier.
 * Null when there is nothing to tell (no carrier, no tracking number, no default).
 */
export function trackingRequest(
  order: DeliveryOrder,
  shipment: Shipment,
  carriers: Record<string, string>,
  defaultCarrierCode: string | undefined,
): { body: MiraklTrackingRequest; warning: string | null } | null {
  const tracking = shipment.trackingNumber?.trim() ?? "";
  const carrier = shipment.carrier?.trim() ?? "";
  const known = nameTable(Object.keys(carriers));
  const codes = new Set(Object.values(carriers));
  const withTracking = (body: MiraklTrackingRequest) => (tracking ? { ...body, tracking_number: tracking } : body);
  if (carrier) {
    const name = known(carrier);
    if (name) return { body: withTracking({ carrier_code: carriers[name]! }), warning: null };
    if (codes.has(carrier)) return { body: withTracking({ carrier_code: carrier }), warning: null };
    return {
      body: withTracking({ carrier_name: carrier.slice(0, 100) }),
      warning: `carrier ${JSON.stringify(carrier)} is not in the source's carriers: sent to Mirakl as an unregistered carrier's name`,
    };
  }
  if (defaultCarrierCode) return { body: withTracking({ carrier_code: defaultCarrierCode }), warning: null };
  if (tracking) {
    throw refusal(
      "Mirakl",
      `cannot send tracking number ${tracking} of order ${order.sourceOrderNumber} without a carrier: name the carrier, or set the source's defaultCarrierCode`,
    );
  }
  return null;
}

/** The `tracking` of an ST01 shipment or an ST23 correction: OR23's body is the same shape. */
export function shipmentTracking(
  order: DeliveryOrder,
  shipment: Shipment,
  carriers: Record<string, string>,
  defaultCarrierCode: string | undefined,
): { tracking: MiraklShipmentTracking | undefined; warning: string | null } {
  const made = trackingRequest(order, shipment, carriers, defaultCarrierCode);
  return { tracking: made ? { ...made.body } : undefined, warning: made?.warning ?? null };
}

/** "CODE: message" of a Mirakl error answer; null when the body is none of the shapes seen. */
export function describeMiraklError(body: string): string | null {
  // The description defines no error body (UNCONFIRMED); Mirakl answers JSON with a message, and
  // some operations list codes. Whatever of these the body holds is the detail.
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const b = parsed as { message?: unknown; code?: unknown; error?: unknown; errors?: unknown };
  const parts: string[] = [];
  const one = (e: { code?: unknown; message?: unknown; field?: unknown } | null) => {
    if (!e || typeof e !== "object") return;
    const code = typeof e.code === "string" ? e.code : "";
    const message = typeof e.message === "string" ? e.message : "";
    const field = typeof e.field === "string" && e.field ? ` (${e.field})` : "";
    const said = [code, `${message}${field}`].filter(Boolean).join(": ");
    if (said) parts.push(said);
  };
  one(b as { code?: unknown; message?: unknown });
  if (Array.isArray(b.errors)) for (const e of b.errors.slice(0, 10)) one(e as { code?: unknown; message?: unknown; field?: unknown });
  if (parts.length === 0 && typeof b.error === "string") parts.push(b.error);
  return parts.length > 0 ? parts.join("; ").slice(0, 500) : null;
}
