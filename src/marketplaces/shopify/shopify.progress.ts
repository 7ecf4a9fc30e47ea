// Which orders of an orders page are read again with ShopifyOrderProgress (decisions 12 and 13),
// and what the connector remembers of the last such read of each order, so that an order read
// once is not read again each time it comes back on a page (the windows' overlap, a note or a tag
// changed in the admin) while nothing it would read has changed. An order is read when it shows
// what Shopify's admin did to its lines (needsProgress) and it was never read, or was forgotten,
// or the page shows it changed since: its figures (each line's id, quantity, currentQuantity and
// unfulfilledQuantity, the order's financial and fulfilment statuses, cancelledAt) differ from
// those of the page its last read was for. A new package moves `unfulfilledQuantity`, a refunded
// or removed unit `currentQuantity`, and the first refund of money the financial status; what
// moves none of them is a further refund of money once some was refunded (the status stays
// PARTIALLY_REFUNDED), so for an order whose status shows money refunded (or partly paid, where
// the documents do not say) the order's `updatedAt` must also be the one of that page, and that
// read must have come a minute or more after it (Shopify dates in whole seconds and stamps a change
// before it commits: a change in the same second as the read would otherwise go unread). A
// package edited or replaced with the same units changes nothing the hub takes: a package is
// recorded once. A read counts once its page is written (OrderPage.written) and only for a later
// window, like eBay's packages. Kept in the source's storage by the kit's order memory (key
// `shopify.progressRead`: the last 1,024 orders, oldest forgotten first; forgotten costs a read).
import { orderMemory } from "../kit/order-memory";
import type { SourceStorage } from "../storage";
import type { ShopifyOrder } from "./shopify.types";

export const PROGRESS_MEMORY = "shopify.progressRead";
/** How long after an order's `updatedAt` a read must come for that stamp to date all it read. */
export const STAMP_SETTLE_MS = 60_000;
/**
 * Financial statuses an order leaves on any refund of money (the enum's own words: PAID has none
 * refunded; AUTHORIZED, PENDING, EXPIRED and VOIDED have nothing captured to refund).
 */
const NOTHING_REFUNDED = new Set(["PAID", "AUTHORIZED", "PENDING", "EXPIRED", "VOIDED"]);

/** What the orders page shows of an order, as compared with its last read. */
export interface ProgressSeen {
  /** The order's GID (what ShopifyOrderProgress asks for). */
  orderId: string;
  updatedAt: string;
  financialStatus: string;
  /** A digest of the figures that move when Shopify's admin fulfils, refunds or removes units. */
  figures: string;
}

/** The last read of an order: what its page showed, when it was read, for which window. */
interface ProgressRead {
  updatedAt: string;
  figures: string;
  readAt: number;
  /** The `until` of the window whose page, once written, remembered it. */
  readUntil: number;
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** What the page shows of this order (every line item read), or null when it has no GID. */
export async function progressSeen(order: ShopifyOrder): Promise<ProgressSeen | null> {
  if (typeof order.id !== "string" || order.id === "") return null;
  const lines = Array.isArray(order.lineItems?.nodes) ? order.lineItems.nodes : [];
  const figures = JSON.stringify([
    text(order.displayFinancialStatus),
    text(order.displayFulfillmentStatus),
    text(order.cancelledAt),
    lines.map((l) => [text(l?.id), l?.quantity ?? null, l?.currentQuantity ?? null, l?.unfulfilledQuantity ?? null]),
  ]);
  // A digest keeps an entry small whatever the order's size (up to 500 lines).
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(figures)));
  return {
    orderId: order.id,
    updatedAt: text(order.updatedAt),
    financialStatus: text(order.displayFinancialStatus),
    figures: [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join(""),
  };
}

/** The last reads of ShopifyOrderProgress, by order, kept in the source's storage. */
export interface ProgressReads {
  /** Whether the order, as the page of a window ending at `until` shows it, is as its last read found it. */
  unchanged(seen: ProgressSeen, until: number): boolean;
  /** These orders were read (each at `readAt`) for a page of the window ending at `until`, now written. */
  read(reads: (ProgressSeen & { readAt: number })[], until: number): void;
}

export function progressReads(storage: SourceStorage | undefined): ProgressReads {
  const memory = orderMemory<ProgressRead>(storage, PROGRESS_MEMORY);
  return {
    unchanged(seen, until) {
      const last = memory.get(seen.orderId);
      // Never a first read, nor a read again of the same window (its page may not be written).
      if (!last || last.readUntil >= until || last.figures !== seen.figures) return false;
      if (NOTHING_REFUNDED.has(seen.financialStatus)) return true;
      const stamped = Date.parse(seen.updatedAt);
      return last.updatedAt === seen.updatedAt && Number.isFinite(stamped) && last.readAt - stamped >= STAMP_SETTLE_MS;
    },
    read(reads, until) {
      memory.put(reads.map(({ orderId, updatedAt, figures, readAt }) => [orderId, { updatedAt, figures, readAt, readUntil: until }] as const));
    },
  };
}
