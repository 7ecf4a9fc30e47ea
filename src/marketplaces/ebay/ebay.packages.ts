// eBay's packages read back at import (decisions 12). getOrders gives an order's line statuses
// and, in `fulfillmentHrefs`, the URI of each of its fulfillments, but not the fulfillments
// themselves: those cost one getShippingFulfillments call per order. So an order's packages are
// read only when it needs it: some line is FULFILLED or IN_PROGRESS and `fulfillmentHrefs` names
// a fulfillment the hub may not hold: neither made by this connector (remembered when
// createShippingFulfillment answers, so an order shipped only through the hub costs nothing) nor
// read for a page written in an earlier window (so the overlap of windows, or a later change of
// the order that adds no fulfillment, costs nothing either). An order only appears in a window
// when eBay changed it, so a read follows a change. At most PACKAGE_READS_PER_PAGE reads a
// getOrders page: the page is cut before the order that would need one more, and the next page
// starts at that order. Pure choices here (which records need a read, where the page is cut, a
// fulfillment list as packages) and the known fulfillments, kept in the source's storage by the
// kit's order memory (kit/order-memory.ts: the last 1,024 orders, oldest forgotten first); the
// calls are the connector's.
import type { ImportedOrder, ImportedShipment } from "../connector";
import { orderMemory } from "../kit/order-memory";
import type { SourceStorage } from "../storage";
import { fulfillmentIdOf } from "./ebay.mapping";
import type { EbayOrder, EbayShippingFulfillmentPage } from "./ebay.types";

/** getShippingFulfillments calls one getOrders page may add (a page holds up to 200 orders). */
export const PACKAGE_READS_PER_PAGE = 50;
const KNOWN_KEY = "ebay.knownFulfillments";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/** The fulfillment ids an order's `fulfillmentHrefs` name (the URI's last segment). */
export function fulfillmentIdsOf(order: EbayOrder | null | undefined): string[] {
  const hrefs: unknown[] = Array.isArray(order?.fulfillmentHrefs) ? order.fulfillmentHrefs : [];
  return hrefs.map((h) => (typeof h === "string" ? fulfillmentIdOf(h) : null)).filter((id): id is string => id !== null && id !== "");
}

/** What the connector knows of an order's fulfillments: those it made, those it read for a page written in an earlier window. */
interface KnownEntry {
  made: string[];
  read: string[];
  /** The `until` of the window whose page, once written, remembered them. */
  readUntil: number;
}

/** The fulfillments the connector knows, by order, kept in the source's storage. */
export interface KnownFulfillments {
  /**
   * Whether every one of `ids` is known to the hub already for a window ending at `until`: made
   * by the connector, or read for a page written in an earlier window (a page read again in the
   * same window, or whose write failed, reads its packages again).
   */
  knows(orderId: string, ids: string[], until: number): boolean;
  /**
   * The connector made `made` on an order whose fulfillments were `before` (its getOrder answer
   * just before): remembered only when every one of `before` was already known, so a fulfillment
   * made in Seller Hub is never taken for the connector's.
   */
  made(orderId: string, before: string[], made: string): void;
  /** The fulfillments of these orders were read for a page of the window ending at `until`, now written. */
  read(orders: { orderId: string; ids: string[] }[], until: number): void;
}

export function knownFulfillments(storage: SourceStorage | undefined): KnownFulfillments {
  const memory = orderMemory<KnownEntry>(storage, KNOWN_KEY);
  const entryOf = (orderId: string): KnownEntry => memory.get(orderId) ?? { made: [], read: [], readUntil: 0 };
  return {
    knows(orderId, ids, until) {
      const entry = entryOf(orderId);
      const known = new Set([...entry.made, ...(entry.readUntil < until ? entry.read : [])]);
      return ids.every((id) => known.has(id));
    },
    made(orderId, before, made) {
      const entry = entryOf(orderId);
      const known = new Set([...entry.made, ...entry.read]);
      if (!before.every((id) => known.has(id))) return;
      memory.put([[orderId, { ...entry, made: [...new Set([...entry.made, made])] }]]);
    },
    read(orders, until) {
      memory.put(orders.map(({ orderId, ids }) => [orderId, { ...entryOf(orderId), read: ids, readUntil: until }] as const));
    },
  };
}

/** Whether a getOrders record's packages are to be read: something shipped, and a fulfillment the hub may not hold. */
export function needsPackages(record: unknown, known: KnownFulfillments, until: number): boolean {
  if (!isRecord(record)) return false;
  const order = record as EbayOrder;
  const orderId = text(order.orderId);
  if (!orderId || !Array.isArray(order.lineItems)) return false;
  const shipped = order.lineItems.some((l) => isRecord(l) && ["FULFILLED", "IN_PROGRESS"].includes(text(l.lineItemFulfillmentStatus)));
  return shipped && !known.knows(orderId, fulfillmentIdsOf(order), until);
}

/**
 * Where a page of getOrders records is cut so that it needs at most `limit` package reads: the
 * records kept (`cut`, all of them when it fits) and the ids of the orders among them to read.
 */
export function planPackageReads(
  records: unknown[],
  known: KnownFulfillments,
  until: number,
  limit = PACKAGE_READS_PER_PAGE,
): { cut: number; read: Set<string> } {
  const read = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    if (!needsPackages(records[i], known, until)) continue;
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
