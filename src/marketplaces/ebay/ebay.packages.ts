// eBay's packages read back at import (decisions 12). getOrders gives an order's line statuses
// and, in `fulfillmentHrefs`, the URI of each of its fulfillments, but not the fulfillments
// themselves: those cost one getShippingFulfillments call per order. So an order's packages are
// read only when it needs it: some line is FULFILLED or IN_PROGRESS and `fulfillmentHrefs` names
// a fulfillment this connector did not make itself (the ones it made are remembered in the
// source's storage when createShippingFulfillment answers, so an order shipped only through the
// hub costs nothing). An order only appears in a window when eBay changed it, so the read follows
// a change. At most PACKAGE_READS_PER_PAGE reads a getOrders page: the page is cut before the
// order that would need one more, and the next page starts at that order. Pure choices here
// (which records need a read, where the page is cut, a fulfillment list as packages) and the
// remembered fulfillments; the calls are the connector's.
import type { ImportedOrder, ImportedShipment } from "../connector";
import type { SourceStorage } from "../storage";
import { fulfillmentIdOf } from "./ebay.mapping";
import type { EbayOrder, EbayShippingFulfillmentPage } from "./ebay.types";

/** getShippingFulfillments calls one getOrders page may add (a page holds up to 200 orders). */
export const PACKAGE_READS_PER_PAGE = 50;
/** Orders whose connector-made fulfillments are remembered; the oldest are forgotten first. */
export const REMEMBERED_ORDERS = 2_000;
const MADE_KEY = "ebay.madeFulfillments";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/** The fulfillment ids an order's `fulfillmentHrefs` name (the URI's last segment). */
export function fulfillmentIdsOf(order: EbayOrder | null | undefined): string[] {
  const hrefs: unknown[] = Array.isArray(order?.fulfillmentHrefs) ? order.fulfillmentHrefs : [];
  return hrefs.map((h) => (typeof h === "string" ? fulfillmentIdOf(h) : null)).filter((id): id is string => id !== null && id !== "");
}

/** The fulfillments this connector made, by order, kept in the source's storage. */
export interface MadeFulfillments {
  of(orderId: string): ReadonlySet<string>;
  /**
   * The connector made `made` on an order whose fulfillments were `before` (its getOrder answer
   * just before): remembered only when every one of `before` was already known, so a fulfillment
   * made in Seller Hub is never taken for the connector's.
   */
  add(orderId: string, before: string[], made: string): void;
}

export function madeFulfillments(storage: SourceStorage | undefined): MadeFulfillments {
  const load = (): [string, string[]][] => {
    const kept = storage?.get<[string, string[]][]>(MADE_KEY);
    return Array.isArray(kept) ? kept : [];
  };
  return {
    of(orderId) {
      return new Set(load().find(([id]) => id === orderId)?.[1] ?? []);
    },
    add(orderId, before, made) {
      if (!storage) return;
      const entries = load();
      const known = new Set(entries.find(([id]) => id === orderId)?.[1] ?? []);
      if (!before.every((id) => known.has(id))) return;
      known.add(made);
      const rest = entries.filter(([id]) => id !== orderId);
      storage.put(MADE_KEY, [...rest, [orderId, [...known]]].slice(-REMEMBERED_ORDERS));
    },
  };
}

/** Whether a getOrders record's packages are to be read: something shipped, and a fulfillment the connector did not make. */
export function needsPackages(record: unknown, made: MadeFulfillments): boolean {
  if (!isRecord(record)) return false;
  const order = record as EbayOrder;
  const orderId = text(order.orderId);
  if (!orderId || !Array.isArray(order.lineItems)) return false;
  const shipped = order.lineItems.some((l) => isRecord(l) && ["FULFILLED", "IN_PROGRESS"].includes(text(l.lineItemFulfillmentStatus)));
  if (!shipped) return false;
  const known = made.of(orderId);
  return fulfillmentIdsOf(order).some((id) => !known.has(id));
}

/**
 * Where a page of getOrders records is cut so that it needs at most `limit` package reads: the
 * records kept (`cut`, all of them when it fits) and the ids of the orders among them to read.
 */
export function planPackageReads(records: unknown[], made: MadeFulfillments, limit = PACKAGE_READS_PER_PAGE): { cut: number; read: Set<string> } {
  const read = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    if (!needsPackages(records[i], made)) continue;
    if (read.size === limit) return { cut: i, read };
    read.add(text((records[i] as EbayOrder).orderId));
  }
  return { cut: records.length, read };
}

/**
 * The packages of a getShippingFulfillments answer, as the importer takes them. A fulfillment
 * without an id, naming a line the order does not have, or a quantity that is not a whole number
 * above 0 is left out (the rest of the order's packages still count); a missing quantity is 1,
 * the description's default. Null when the answer has no fulfillments list at all.
 */
export function packagesOf(answer: EbayShippingFulfillmentPage | null, order: ImportedOrder): ImportedShipment[] | null {
  if (!isRecord(answer) || !Array.isArray(answer.fulfillments)) return null;
  const lines = new Set(order.items.map((i) => i.sourceLineId));
  const packages: ImportedShipment[] = [];
  for (const f of answer.fulfillments) {
    if (!isRecord(f)) continue;
    const id = text(f.fulfillmentId);
    const items = Array.isArray(f.lineItems) ? f.lineItems : [];
    const read = items.map((l) => ({ sourceLineId: text(l?.lineItemId), quantity: l?.quantity === undefined ? 1 : l.quantity }));
    if (!id || read.length === 0 || read.some((l) => !lines.has(l.sourceLineId) || !Number.isSafeInteger(l.quantity) || l.quantity < 1)) continue;
    const shipped = Date.parse(text(f.shippedDate));
    packages.push({
      sourceShipmentId: id,
      trackingNumber: text(f.shipmentTrackingNumber) || null,
      carrier: text(f.shippingCarrierCode) || null,
      shippingMethod: null,
      shippedAt: Number.isFinite(shipped) ? new Date(shipped) : null,
      lines: read,
    });
  }
  return packages;
}
