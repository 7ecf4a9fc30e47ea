// Walmart's order shapes to the service's vocabulary and back. Pure functions: no I/O, no clock.
import type { DeliveryOrder, ImportedOrder, ImportedOrderItem, ImportedShipment, LineQuantity, Shipment } from "../connector";
import { refusal } from "../kit/marketplace-http";
import { CARRIER_ALIASES, cents as centsOf, fromCents, nameTable, splitName } from "../kit/mapping";
import { Unmappable, type OrderReader } from "../kit/orders-page";
import {
  WALMART_CARRIERS,
  WALMART_METHOD_CODES,
  type WalmartCancellationReason,
  type WalmartCancellationRequest,
  type WalmartCharge,
  type WalmartMethodCode,
  type WalmartMoney,
  type WalmartOrder,
  type WalmartOrderLine,
  type WalmartOrderLineStatus,
  type WalmartShipmentRequest,
  type WalmartTrackingInfo,
} from "./walmart.types";

/** A record of the order list that cannot be an order: set aside. */
const unmappable = (message: string) => new Unmappable(message);
/** A delivery its own data makes impossible: the same on every retry. */
const invalid = (message: string) => refusal("Walmart", message);

const cents = (money: WalmartMoney | null | undefined, where: string): number => centsOf(money?.amount, where);

function isDiscount(charge: WalmartCharge): boolean {
  // The description names SubscriptionDiscount as a PRODUCT charge; any *Discount is read alike.
  return /discount/i.test(charge.chargeName ?? "");
}

interface LineMoney {
  itemCents: number;
  discountCents: number;
  productTaxCents: number;
  shippingCents: number;
  shippingTaxCents: number;
  otherCents: number;
}

function lineMoney(line: WalmartOrderLine, where: string): LineMoney {
  const m: LineMoney = {
    itemCents: 0,
    discountCents: 0,
    productTaxCents: 0,
    shippingCents: 0,
    shippingTaxCents: 0,
    otherCents: 0,
  };
  for (const charge of line.charges?.charge ?? []) {
    const amount = cents(charge.chargeAmount, `${where} charge ${charge.chargeName ?? ""}`);
    const tax = cents(charge.tax?.taxAmount, `${where} tax ${charge.tax?.taxName ?? ""}`);
    const type = (charge.chargeType ?? "").toUpperCase();
    if (type === "PRODUCT" && isDiscount(charge)) {
      // The sign of a discount is not documented; its size is what reduces the price.
      m.discountCents += Math.abs(amount);
      m.productTaxCents -= Math.abs(tax);
    } else if (type === "PRODUCT") {
      m.itemCents += amount;
      m.productTaxCents += tax;
    } else if (type === "SHIPPING") {
      m.shippingCents += amount;
      m.shippingTaxCents += tax;
    } else {
      // Not a documented charge type, but the buyer paid it: keep GrandTotal honest.
      m.otherCents += amount + tax;
    }
  }
  return m;
}

function quantityOf(line: WalmartOrderLine, where: string): number {
  const raw = line.orderLineQuantity?.amount;
  const n = typeof raw === "number" ? raw : Number(raw ?? "1");
  if (!Number.isInteger(n) || n <= 0) throw unmappable(`${where}: quantity ${JSON.stringify(raw)} is not a positive integer`);
  return n;
}

/** A status entry's quantity; a missing or unreadable amount counts as none. */
function statusAmount(status: WalmartOrderLineStatus): number {
  const n = Number(status.statusQuantity?.amount ?? "0");
  return Number.isInteger(n) && n > 0 ? n : 0;
}

const isShipped = (status: WalmartOrderLineStatus) => status.status === "Shipped" || status.status === "Delivered";

/**
 * What Walmart counts shipped and cancelled of a line: the sum of its Shipped (and Delivered)
 * entries and of its Cancelled entries, each entry carrying its own statusQuantity. Held to the
 * line's quantity, so a record that adds up to more never reads as more shipped than ordered.
 */
function lineProgress(line: WalmartOrderLine, quantity: number): { quantityShipped: number; quantityCancelled: number } {
  let shipped = 0;
  let cancelled = 0;
  for (const s of line.orderLineStatuses?.orderLineStatus ?? []) {
    if (isShipped(s)) shipped += statusAmount(s);
    else if (s.status === "Cancelled") cancelled += statusAmount(s);
  }
  const quantityCancelled = Math.min(cancelled, quantity);
  return { quantityShipped: Math.min(shipped, quantity - quantityCancelled), quantityCancelled };
}

/**
 * The packages Walmart reports: every Shipped (or Delivered) entry with a tracking number, the
 * entries of all lines that share one tracking number making one package. Walmart has no package
 * id of its own, so sourceShipmentId is null and the hub matches them by tracking number.
 */
function shipmentsOf(lines: WalmartOrderLine[]): ImportedShipment[] {
  const byTracking = new Map<string, ImportedShipment>();
  for (const line of lines) {
    if (!line.lineNumber) continue;
    for (const s of line.orderLineStatuses?.orderLineStatus ?? []) {
      const tracking = s.trackingInfo?.trackingNumber?.trim();
      const quantity = statusAmount(s);
      if (!isShipped(s) || !tracking || quantity === 0) continue;
      let shipment = byTracking.get(tracking);
      if (!shipment) {
        const info = s.trackingInfo!;
        const ms = typeof info.shipDateTime === "number" ? info.shipDateTime : Number(info.shipDateTime ?? Number.NaN);
        shipment = {
          sourceShipmentId: null,
          trackingNumber: tracking,
          carrier: info.carrierName?.carrier?.trim() || info.carrierName?.otherCarrier?.trim() || null,
          shippingMethod: info.methodCode?.trim() || null,
          shippedAt: Number.isFinite(ms) ? new Date(ms) : null,
          lines: [],
        };
        byTracking.set(tracking, shipment);
      }
      const known = shipment.lines.find((l) => l.sourceLineId === line.lineNumber);
      if (known) known.quantity += quantity;
      else shipment.lines.push({ sourceLineId: line.lineNumber, quantity });
    }
  }
  return [...byTracking.values()];
}

const STATUS_RANK: Record<string, number> = { Created: 0, Acknowledged: 1, Shipped: 2, Delivered: 3, Refund: 4 };

/**
 * Walmart keeps status per line (and per quantity within a line); the service keeps one word per
 * order. Cancelled lines are ignored unless every line is cancelled, and of the rest the least
 * advanced status wins, since that is the work the order still waits for.
 */
export function orderStatusOf(order: WalmartOrder): string {
  const statuses = (order.orderLines?.orderLine ?? []).flatMap((line) =>
    (line.orderLineStatuses?.orderLineStatus ?? []).map((s) => s.status ?? "").filter((s) => s !== ""),
  );
  const live = statuses.filter((s) => s !== "Cancelled");
  if (live.length === 0) return statuses.length > 0 ? "Cancelled" : "Created";
  return live.reduce((least, s) => ((STATUS_RANK[s] ?? 99) < (STATUS_RANK[least] ?? 99) ? s : least));
}

function orderDateOf(order: WalmartOrder, where: string): Date {
  const raw = order.orderDate;
  const ms = typeof raw === "number" ? raw : /^\d+$/.test(raw ?? "") ? Number(raw) : Date.parse(raw ?? "");
  if (!Number.isFinite(ms)) throw unmappable(`${where}: orderDate ${JSON.stringify(raw)} is not a date`);
  return new Date(ms);
}

/** How a record of GET /v3/orders is read: set aside under its purchaseOrderId when it cannot be mapped. */
export const walmartOrderReader: OrderReader = {
  map: (record) => mapWalmartOrder((typeof record === "object" && record !== null ? record : {}) as WalmartOrder),
  numberOf: (record) => {
    const id = (record as WalmartOrder | null)?.purchaseOrderId;
    return typeof id === "string" && id !== "" ? id : "(no purchaseOrderId)";
  },
  reason: (message) => `Walmart ${message}`,
};

export function mapWalmartOrder(order: WalmartOrder): ImportedOrder {
  const id = order.purchaseOrderId;
  if (!id) throw unmappable("sent an order without purchaseOrderId");
  const where = `order ${id}`;
  const lines = order.orderLines?.orderLine ?? [];
  if (lines.length === 0) throw unmappable(`${where} has no order lines`);

  let subCents = 0;
  let shippingCents = 0;
  let shippingTaxCents = 0;
  let productTaxCents = 0;
  let otherCents = 0;
  const items: ImportedOrderItem[] = lines.map((line, index) => {
    const lineWhere = `${where} line ${line.lineNumber ?? `#${index + 1}`}`;
    if (!line.lineNumber) throw unmappable(`${lineWhere} has no lineNumber`);
    const quantity = quantityOf(line, lineWhere);
    const m = lineMoney(line, lineWhere);
    subCents += m.itemCents - m.discountCents;
    productTaxCents += m.productTaxCents;
    shippingCents += m.shippingCents;
    shippingTaxCents += m.shippingTaxCents;
    otherCents += m.otherCents;
    return {
      sourceLineId: line.lineNumber,
      sku: line.item?.sku ?? "",
      name: line.item?.productName ?? "",
      quantity,
      // chargeAmount is the line's amount (every documented line has quantity 1, where both
      // readings agree); a per-unit price is what the service stores.
      unitPrice: Math.round(m.itemCents / quantity) / 100,
      saleTaxCost: fromCents(m.productTaxCents),
      discount: fromCents(m.discountCents).toFixed(2),
      ...lineProgress(line, quantity),
    };
  });

  const info = order.shippingInfo;
  const address = info?.postalAddress;
  const fulfillment = lines.find((l) => l.fulfillment)?.fulfillment;
  const methodCode = info?.methodCode ?? fulfillment?.shipMethod ?? "";
  return {
    sourceOrderNumber: id,
    sourceCustomerOrderNumber: order.customerOrderId ?? null,
    sourceOrderStatus: orderStatusOf(order),
    createdAt: orderDateOf(order, where),
    buyerEmail: order.customerEmailId ?? "",
    buyerPhone: info?.phone ?? "",
    buyerUserId: order.buyerId ?? null,
    shipTo: {
      ...splitName(address?.name ?? ""),
      companyName: null,
      street1: address?.address1 ?? "",
      street2: address?.address2 ?? "",
      city: address?.city ?? "",
      stateOrProvince: address?.state ?? "",
      postalCode: address?.postalCode ?? "",
      country: address?.country ?? "",
    },
    // methodCode is what TrackingInfoType.methodCode expects back when the order ships.
    shippingMethod: methodCode,
    shippingServiceName: methodCode,
    shippingServiceValue: fulfillment?.shipMethod ?? methodCode,
    paymentType: order.paymentTypes?.length ? order.paymentTypes.join(", ") : null,
    paymentTransactionId: null,
    // Walmart's premium delivery is its fast shipping programme (TWO_DAY; THREE_TO_FIVE_DAY is not).
    isPrime: lines.some((l) => /^(ONE|TWO)_DAY$/.test(l.fulfillment?.shippingProgramType ?? "")),
    subTotal: fromCents(subCents),
    shippingTotal: fromCents(shippingCents),
    shippingTaxTotal: fromCents(shippingTaxCents),
    giftWrapTotal: 0,
    giftWrapTaxTotal: 0,
    grandTotal: fromCents(subCents + productTaxCents + shippingCents + shippingTaxCents + otherCents),
    items,
    shipments: shipmentsOf(lines),
  };
}

/** Walmart's carrier names, and the names sellers' systems send for them. */
const walmartCarrier = nameTable(WALMART_CARRIERS, {
  ...CARRIER_ALIASES,
  fedexsmartpost: "FEDEXSP",
  lasership: "LS",
  upsmailinnovations: "UPSMI",
  dhlecommerce: "DHL Ecommerce - US",
});

export function carrierNameFor(carrier: string): WalmartTrackingInfo["carrierName"] {
  const known = walmartCarrier(carrier);
  return known ? { carrier: known } : { otherCarrier: carrier.trim() };
}

const walmartMethod = nameTable(WALMART_METHOD_CODES, { expedited: "Express", nextday: "OneDay", overnight: "OneDay", ground: "Standard" });

export function methodCodeFor(method: string | null): WalmartMethodCode {
  return (walmartMethod(method ?? "") as WalmartMethodCode | null) ?? "Standard";
}

function statusQuantity(quantity: number, where: string) {
  if (!Number.isInteger(quantity) || quantity <= 0) {
    throw invalid(`${where}: quantity ${quantity} is not a positive integer`);
  }
  return { unitOfMeasurement: "EACH" as const, amount: String(quantity) };
}

function requireLines(order: DeliveryOrder, what: string): void {
  if (order.lines.length === 0) throw invalid(`cannot ${what} order ${order.sourceOrderNumber}: it has no lines`);
}

export function shipmentRequest(order: DeliveryOrder, shipment: Shipment): WalmartShipmentRequest {
  if (shipment.lines.length === 0) throw invalid(`cannot ship order ${order.sourceOrderNumber}: it has no lines`);
  const where = `order ${order.sourceOrderNumber}`;
  const trackingNumber = shipment.trackingNumber?.trim();
  const carrier = shipment.carrier?.trim();
  // TrackingInfoType requires both; an empty string would only earn a 400 later.
  if (!trackingNumber) throw invalid(`needs a tracking number to ship ${where}`);
  if (!carrier) throw invalid(`needs a carrier to ship ${where}`);
  const trackingInfo: WalmartTrackingInfo = {
    shipDateTime: shipment.shippedAt.getTime(),
    carrierName: carrierNameFor(carrier),
    methodCode: methodCodeFor(shipment.shippingMethod),
    trackingNumber,
  };
  // ShippingLineType requires sellerOrderId (30 characters at most, printed on return labels).
  const sellerOrderId = (order.sellerOrderNumber?.trim() || order.sourceOrderNumber).slice(0, 30);
  // The lines and quantities of this package only: one Shipped entry per line with its own
  // statusQuantity and trackingInfo (a line can go out in several packages, one call each).
  return {
    orderShipment: {
      orderLines: {
        orderLine: shipment.lines.map((line) => ({
          lineNumber: line.sourceLineId,
          sellerOrderId,
          orderLineStatuses: {
            orderLineStatus: [
              {
                status: "Shipped",
                statusQuantity: statusQuantity(line.quantity, `${where} line ${line.sourceLineId}`),
                trackingInfo,
              },
            ],
          },
        })),
      },
    },
  };
}

/**
 * Cancels `lines` (a line cancellation: only those lines and units), or every line of the order
 * whole when null (a whole-order cancellation: nothing of it was shipped or cancelled before).
 */
export function cancellationRequest(order: DeliveryOrder, reason: WalmartCancellationReason, lines: LineQuantity[] | null = null): WalmartCancellationRequest {
  requireLines(order, "cancel");
  const where = `order ${order.sourceOrderNumber}`;
  const cancelled: LineQuantity[] = lines ?? order.lines.map((l) => ({ sourceLineId: l.sourceLineId, quantity: l.quantity }));
  if (cancelled.length === 0) throw invalid(`cannot cancel order ${order.sourceOrderNumber}: the cancellation names no lines`);
  return {
    orderCancellation: {
      orderLines: {
        orderLine: cancelled.map((line) => ({
          lineNumber: line.sourceLineId,
          orderLineStatuses: {
            orderLineStatus: [
              {
                status: "Cancelled",
                cancellationReason: reason,
                statusQuantity: statusQuantity(line.quantity, `${where} line ${line.sourceLineId}`),
              },
            ],
          },
        })),
      },
    },
  };
}
