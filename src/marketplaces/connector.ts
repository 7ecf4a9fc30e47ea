// The one interface every marketplace connector implements, and the only vocabulary the sync
// core and a connector share. Everything marketplace-specific (URLs, auth, payload shapes,
// status names, pacing) stays inside src/marketplaces/<type>/.
import { MAX_WAIT_MS } from "../lib/retry";

/** An order as a connector hands it to the importer, in the service's own vocabulary. */
export interface ImportedOrder {
  /** The marketplace's own order number (OrderSourceOrderNumber). */
  sourceOrderNumber: string;
  /** The marketplace's customer-facing order number, when it has a second one. */
  sourceCustomerOrderNumber: string | null;
  /** The marketplace's status word, stored as SourceOrderStatus (e.g. "Created", "Acknowledged"). */
  sourceOrderStatus: string;
  createdAt: Date;
  buyerEmail: string;
  buyerPhone: string;
  buyerUserId: string | null;
  shipTo: {
    firstName: string;
    lastName: string;
    companyName: string | null;
    street1: string;
    street2: string;
    city: string;
    stateOrProvince: string;
    postalCode: string;
    country: string;
  };
  shippingMethod: string;
  shippingServiceName: string;
  shippingServiceValue: string;
  paymentType: string | null;
  paymentTransactionId: string | null;
  isPrime: boolean;
  subTotal: number;
  shippingTotal: number;
  shippingTaxTotal: number;
  giftWrapTotal: number;
  giftWrapTaxTotal: number;
  grandTotal: number;
  items: ImportedOrderItem[];
  /**
   * Optional (decisions 12): the packages the marketplace knows of this order, whoever made them
   * (a fulfilment made in its own admin, or its record of one the hub delivered). Left out, the
   * hub keeps the packages it knows. The importer adds a package it does not know yet (matched
   * by sourceShipmentId against the marketplace's id of each known package, else by tracking
   * number) when its lines fit what is left of them; it never queues anything back.
   */
  shipments?: ImportedShipment[];
  /**
   * Small facts of the marketplace's own that later deliveries of this order need (eBay's
   * legacyOrderId, Amazon's fulfillment channel, a GraphQL id). Kept with the order, never shown
   * to clients, handed back in DeliveryOrder.sourceData. At most a few hundred bytes.
   */
  sourceData?: Record<string, string>;
  /**
   * Refunds the marketplace reports on the order (decisions 13), made in the marketplace or by the
   * hub: one the hub sent is recognised by the reference its delivery was answered with.
   */
  refunds?: ImportedRefund[];
}

export interface ImportedOrderItem {
  /** The marketplace's line id (Walmart lineNumber, eBay lineItemId, Amazon orderItemId); needed to ship or cancel that line. */
  sourceLineId: string;
  sku: string;
  name: string;
  quantity: number;
  unitPrice: number;
  saleTaxCost: number;
  /** A decimal amount as a string, as the interface reports it. */
  discount: string;
  /**
   * Optional (decisions 12): units of this line the marketplace counts as shipped, in total and
   * whoever shipped them. Left out, the hub keeps what it knows (and, when `shipments` is given,
   * counts what those packages hold of the line). The hub's count only grows: a lower number
   * (a package of the hub's not delivered yet) changes nothing.
   */
  quantityShipped?: number;
  /**
   * Optional (decisions 12): units of this line the marketplace counts as cancelled, in total (a
   * buyer's cancellation granted, a line cancelled for non-payment or a stock-out). The units the
   * hub did not know cancelled are cancelled at the next import and give their stock back once.
   */
  quantityCancelled?: number;
}

/** A package as the marketplace reports it (ImportedOrder.shipments). */
export interface ImportedShipment {
  /** The marketplace's own id of the package (a fulfillment id), or null when it has none. */
  sourceShipmentId: string | null;
  trackingNumber: string | null;
  carrier: string | null;
  shippingMethod: string | null;
  shippedAt: Date | null;
  /** The lines (ImportedOrderItem.sourceLineId) and units the package holds. */
  lines: { sourceLineId: string; quantity: number }[];
}

/** An order the connector could not turn into an ImportedOrder: set aside, not retried forever. */
export interface SetAsideOrder {
  sourceOrderNumber: string;
  /** What is wrong, for the operator ("line 2 has no SKU"). */
  reason: string;
  /** The marketplace's own record as it came (the core keeps at most 64 KiB of its JSON). */
  record: unknown;
}

export interface OrderPage {
  orders: ImportedOrder[];
  /** Orders of this page that could not be mapped; the rest of the page is imported. */
  setAside: SetAsideOrder[];
  /** Opaque; pass back to fetch the next page. null when this was the last page. */
  nextCursor: string | null;
  /**
   * Optional: called by the import once the page is written, never when its write failed. A
   * connector that remembers what it read for the page so as to read less later (eBay's packages,
   * Shopify's follow-up query) remembers it here, so that a page whose write failed is read in
   * full again. `unapplied`: the page's orders (source order numbers) whose line report the hub
   * could not apply, other requests changing them meanwhile: not to be remembered, so that they
   * are read again.
   */
  written?: (unapplied: ReadonlySet<string>) => void;
}

/**
 * The window one import fetches: orders created or changed at or after `since` and before
 * `until`. `until` is fixed for the whole import (so offset pages stay stable while orders change)
 * and becomes the source's next cursor once every page is imported.
 */
export interface ImportWindow {
  since: Date;
  until: Date;
}

/** What a delivery needs to know of the order it concerns. */
export interface DeliveryOrder {
  sourceOrderNumber: string;
  sourceCustomerOrderNumber: string | null;
  sellerOrderNumber: string | null;
  /** ImportedOrder.sourceData as it was stored ({} for an inserted order). */
  sourceData: Record<string, string>;
  lines: DeliveryLine[];
}

export interface DeliveryLine {
  sourceLineId: string;
  sku: string;
  /** Units ordered. */
  quantity: number;
  /** Units shipped and cancelled so far as the hub knows them (decisions 12), this delivery's included. */
  quantityShipped?: number;
  quantityCancelled?: number;
  /**
   * On an acknowledgement the hub queued at import (Connector.acceptOnImport, decisions 14): the
   * units of stock the line took when the import stored it. The take serves a Sku's lines in
   * order (the page's earlier orders first, then this order's lines): a line takes its quantity
   * while the Sku has it and what is left when it has fewer, so a line that took less than its
   * quantity was short, the lines of its Sku after it in the order took nothing, and together
   * they took all the Sku had for the order. Null: the Sku was not tracked at import. Absent on
   * any other delivery (an integrator's AcknowledgeOrder).
   */
  stockTaken?: number | null;
}

/** A line and a number of its units, as a package or a line cancellation names them. */
export interface LineQuantity {
  sourceLineId: string;
  quantity: number;
}

/**
 * One package (decisions 12): what a ship delivery asks the marketplace to record. A package
 * that covers every unit of the order is the whole order's shipment; a marketplace without
 * `shipLines` is only handed those (the others are NotApplicable).
 */
export interface Shipment {
  /**
   * The hub's id of the package (the order's ShipmentId): the same on every delivery of this
   * package, its tracking corrections included, so a marketplace call can be keyed on it. The
   * hub always sets it; optional only so that deliveries built by hand (tests) need not.
   */
  shipmentId?: string;
  trackingNumber: string | null;
  carrier: string | null;
  shippingMethod: string | null;
  shippedAt: Date;
  /** The lines and units this package holds, and only those. */
  lines: LineQuantity[];
}

/** An earlier delivery of the same order, as its outcome left it (oldest first). */
export interface EarlierDelivery {
  kind: DeliveryKind | ReturnDeliveryKind;
  state: "delivered" | "notApplicable";
  /** The marketplace's reference of it (a fulfillment id, a feed id), when it gave one. */
  reference: string | null;
  /** For a ship delivery: the package it carried (Shipment.shipmentId), so a correction finds its own package's reference. */
  shipmentId?: string | null;
}

export type DeliveryKind = "acknowledge" | "ship" | "cancel";

interface DeliveryBase {
  /** The outbox row's id: unique and stable across retries. */
  id: number;
  /**
   * Derived from the delivery only (`<sourceId>-<id>`): the idempotency key or message id to send
   * wherever the marketplace takes one, so that a repeated call is harmless.
   */
  idempotencyKey: string;
  order: DeliveryOrder;
  earlier: EarlierDelivery[];
}

export type Delivery =
  | (DeliveryBase & { kind: "acknowledge"; sellerOrderNumber: string | null })
  | (DeliveryBase & { kind: "ship"; shipment: Shipment })
  | (DeliveryBase & {
      kind: "cancel";
      reason: string;
      /**
       * The lines and units to cancel (decisions 12), and only those; null or absent: the whole
       * order (nothing of it was shipped or cancelled before). A marketplace without
       * `cancelLines` is only handed whole-order cancellations (the others are NotApplicable).
       */
      lines?: LineQuantity[] | null;
    });

export type AcknowledgeDelivery = Extract<Delivery, { kind: "acknowledge" }>;
export type ShipDelivery = Extract<Delivery, { kind: "ship" }>;
export type CancelDelivery = Extract<Delivery, { kind: "cancel" }>;

/** What a marketplace made of one delivery. A failure is a thrown MarketplaceError instead. */
export type DeliveryOutcome =
  /** Taken. `reference` is kept (a fulfillment id); `warning` is shown with the delivery (an unknown carrier passed as given). */
  | { state: "delivered"; reference?: string | null; warning?: string | null }
  /** Accepted for later processing: later cycles ask checkSubmitted(reference); later rows of the order wait. */
  | { state: "submitted"; reference: string }
  /** The marketplace has no such operation for this order: completed, never failed or retried. */
  | { state: "notApplicable"; reason: string };

/** What the marketplace says of a submitted delivery when asked again. */
export type SubmissionStatus =
  | { state: "pending" }
  | { state: "delivered"; reference?: string | null; warning?: string | null }
  | { state: "rejected"; message: string };

/** The operations a marketplace has. A delivery needing one it lacks is NotApplicable. */
export interface Capabilities {
  acknowledge: boolean;
  ship: boolean;
  /**
   * Ship only some lines of an order (or some of a line's quantity): each package as its own
   * call naming only its lines. Without it, a package that does not cover the whole order is
   * NotApplicable, never sent as the whole order.
   */
  shipLines: boolean;
  cancel: boolean;
  /**
   * Cancel only some lines of an order (or some of a line's quantity). Without it, a line
   * cancellation is NotApplicable with the reason, never sent as the whole order's.
   */
  cancelLines: boolean;
}

export interface Connector {
  readonly capabilities: Capabilities;
  /**
   * How long after a change the marketplace's search reliably shows it (Amazon: 2 minutes). The
   * import window ends this long before the cycle's start. 0 when none.
   */
  readonly settleMs?: number;
  /**
   * One page of the window. `cursor` is null for the first page and then whatever the previous
   * page returned. Orders that cannot be mapped go to `setAside`, never thrown.
   */
  fetchOrders(window: ImportWindow, cursor: string | null): Promise<OrderPage>;
  /** Maps a set-aside record again (the operator's retry): the order, or a SetAsideOrder saying why not. */
  remap(record: unknown): ImportedOrder | SetAsideOrder;
  /**
   * Optional (decisions 14): whether an order the import inserts waits for the seller's
   * acceptance and the hub decides it. When true, the import queues an acknowledgement in the
   * same write, delivered at the next round with each line's take (DeliveryLine.stockTaken).
   */
  acceptOnImport?(order: ImportedOrder): boolean;
  /** A reason when this order cannot take this delivery at all (Amazon: an order Amazon fulfils), else null. */
  notApplicable?(delivery: Delivery): string | null;
  acknowledge(delivery: AcknowledgeDelivery): Promise<DeliveryOutcome>;
  ship(delivery: ShipDelivery): Promise<DeliveryOutcome>;
  cancel(delivery: CancelDelivery): Promise<DeliveryOutcome>;
  /**
   * Optional: several deliveries in one marketplace call (Amazon's feeds). The core hands over
   * at most `batchSize` due rows of one kind, at most one per order, and records every outcome
   * before the next call. A row missing from the answer is retried later.
   */
  readonly batch?: {
    kinds: DeliveryKind[];
    size: number;
    deliver(deliveries: Delivery[]): Promise<Map<number, DeliveryOutcome | MarketplaceError>>;
  };
  /** Asks for the result of a submitted delivery. Required when the connector answers `submitted`. */
  checkSubmitted?(delivery: Delivery | ReturnDelivery, reference: string): Promise<SubmissionStatus>;
  /** Optional: the marketplace takes each Sku's quantity and price (decisions 11; src/sync/listings-push.ts). */
  readonly listings?: ListingsPush;
  /**
   * Returns in (decisions 13): imported each cycle after the orders, on a cursor of their own. A
   * marketplace that reports none, or whose description does not say how, answers NotApplicable
   * with the reason; absent means the same, without one.
   */
  readonly returns?: ReturnsImport | NotApplicable;
  /** A refund out. Absent: refund deliveries are NotApplicable (the seller refunds in the marketplace). */
  refund?(delivery: RefundDelivery): Promise<DeliveryOutcome>;
  /** What came back of a return. Absent: NotApplicable. */
  receiveReturn?(delivery: ReceiveReturnDelivery): Promise<DeliveryOutcome>;
  /** The seller's approval or rejection of a requested return, where the seller decides. Absent: NotApplicable. */
  decideReturn?(delivery: ReturnDecisionDelivery): Promise<DeliveryOutcome>;
}

/**
 * One Sku's values to send. A null field has not changed since the marketplace last accepted it
 * and is not sent. The marketplace's SKU is the product's Sku.
 */
export interface ListingUpdate {
  sku: string;
  quantity: number | null;
  price: number | null;
  /** The product's Currency (USD when the catalog has none). */
  currency: string;
}

/** What the marketplace made of one Sku of a push. A whole-call failure is a thrown MarketplaceError instead. */
export type ListingOutcome =
  /** Both values sent are taken. */
  | { state: "accepted" }
  /** The marketplace has no listing with this SKU: reported, not sent again until the values change. */
  | { state: "unknownSku"; message: string }
  /** Refused for good (a value the marketplace cannot take); the parts it took are said. */
  | { state: "refused"; message: string; quantityAccepted?: boolean; priceAccepted?: boolean }
  /**
   * Failed for now: sent again in a later cycle, a few times at most. With `error` (a call that
   * failed after part of the Sku was taken), the cycle stops there as if the push had thrown it.
   */
  | { state: "retry"; message: string; quantityAccepted?: boolean; priceAccepted?: boolean; error?: MarketplaceError };

export interface ListingsPush {
  /** Most Skus one push takes: the marketplace's largest batch. */
  readonly batchSize: number;
  /** Most pushes one cycle makes: what the marketplace's rate limit allows in a cycle. */
  readonly pushesPerCycle: number;
  /**
   * Sends the batch and answers each Sku's outcome (one missing is retried). The core records
   * every outcome before the next push, so a cycle cut off repeats at most this push; values
   * are absolute, so a repeat is harmless.
   */
  push(updates: ListingUpdate[]): Promise<Map<string, ListingOutcome>>;
  /** Optional: a bulk route answered later (Walmart's feeds), for cycles with many Skus due. */
  readonly submission?: ListingsSubmission;
}

/**
 * A bulk route whose outcome the marketplace reports after processing. A cycle with more than
 * `threshold` Skus due sends up to `size` of them as one submission (one at most a cycle); the
 * core records them `submitted` with the reference before anything else, and later cycles ask
 * `check` until each Sku has an outcome. A submission unanswered for a day is sent again.
 */
export interface ListingsSubmission {
  readonly threshold: number;
  readonly size: number;
  /**
   * Sends the Skus. `sent` holds what went out (a value the route cannot take left out, or the
   * Sku left out with its outcome in `outcomes`). Throws a MarketplaceError when nothing was taken.
   */
  submit(updates: ListingUpdate[]): Promise<{ reference: string; sent: ListingUpdate[]; outcomes: Map<string, ListingOutcome> }>;
  /** The outcome of each of `skus` (still submitted under it) once processed; null while it still processes. */
  check(reference: string, skus: string[]): Promise<Map<string, ListingOutcome> | null>;
}

/**
 * A marketplace call that failed. `retryable` is false for answers that will not change on a
 * retry (400-class validation errors); `retryAfterMs` carries a 429's Retry-After (or the wait a
 * connector's own pacing asks for), held to 0..one hour whatever a marketplace sent, so that no
 * date built from it is out of range.
 */
export class MarketplaceError extends Error {
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "MarketplaceError";
    this.retryAfterMs = retryAfterMs === null ? null : Number.isNaN(retryAfterMs) ? MAX_WAIT_MS : Math.min(MAX_WAIT_MS, Math.max(0, Math.round(retryAfterMs)));
  }
}

/** What a connector factory receives: the source's decrypted settings and a fetch to use. */
export interface ConnectorContext {
  sourceId: string;
  settings: Record<string, unknown>;
  fetch: typeof fetch;
  now: () => Date;
  /**
   * Seals what a connector keeps of a secret in the source's storage (Etsy's rotating refresh
   * token) with the key the source's Settings are encrypted with.
   */
  secrets?: SecretSealer;
}

export interface SecretSealer {
  seal(value: string): Promise<string>;
  /** Throws when the value was not sealed with this key. */
  open(sealed: string): Promise<string>;
}

// ---------------------------------------------------------------------------------------------
// Returns and refunds (decisions 13). Additive and optional: a connector that has none of it
// compiles as before, and its deliveries of these kinds complete as NotApplicable.

/** Section 13's return states: a connector maps its marketplace's words to one of these. */
export const RETURN_STATES = ["Requested", "Approved", "Received", "Refunded", "Closed", "Rejected"] as const;
export type ReturnState = (typeof RETURN_STATES)[number];

/** A return as a connector hands it to the importer, in the service's own vocabulary. */
export interface ImportedReturn {
  /** The marketplace's own return id (ReturnSourceNumber). */
  sourceReturnNumber: string;
  /** The order it returns lines of: its OrderSourceOrderNumber at this marketplace. */
  sourceOrderNumber: string;
  state: ReturnState;
  /** The marketplace's own word for the return's state, kept beside it. */
  sourceStatus: string;
  requestedAt: Date;
  reason: string | null;
  lines: ImportedReturnLine[];
  /** Refunds the marketplace made against this return (the same shape as an order's). */
  refunds?: ImportedRefund[];
  /** Small facts of the marketplace's own that later deliveries of this return need; never shown. */
  sourceData?: Record<string, string>;
  /**
   * The marketplace's own record of the return, as `remap` reads it: kept if the return is set
   * aside after mapping (its order, or a line it names, is not held by the hub), so the
   * operator's retry maps it again once the order is there.
   */
  record: unknown;
}

export interface ImportedReturnLine {
  /** The marketplace's id of the return line, or the order line's when it has none: unique within the return. */
  sourceReturnLineId: string;
  /** The order line it returns (ImportedOrderItem.sourceLineId); "" when the marketplace names it by `sku` only. */
  sourceLineId: string;
  /**
   * The SKU of the order line it returns, for a marketplace that names the line only by SKU
   * (Amazon's returns report): with sourceLineId "", the importer takes the order's one line of
   * this SKU, and sets the return aside when the order has none or several.
   */
  sku?: string;
  quantity: number;
  reason: string | null;
}

/** A refund the marketplace reports (with an order, or with a return). */
export interface ImportedRefund {
  /** The marketplace's refund id; a refund the hub sent is recognised by its delivery's reference. */
  sourceRefundId: string;
  createdAt: Date;
  reason: string | null;
  /** Order lines by the marketplace's line id; quantity 0 for an amount-only refund of a line. */
  lines: { sourceLineId: string; quantity: number; amount: number }[];
  shippingAmount: number;
  currency: string | null;
}

/** A return the connector could not turn into an ImportedReturn, or whose order the hub does not hold. */
export interface SetAsideReturn {
  sourceReturnNumber: string;
  /** The order it names, when that much could be read. */
  sourceOrderNumber: string | null;
  reason: string;
  record: unknown;
}

export interface ReturnPage {
  returns: ImportedReturn[];
  setAside: SetAsideReturn[];
  nextCursor: string | null;
}

/** Returns in: the same paging and window rules as orders (ImportWindow: changed at or after since, before until). */
export interface ReturnsImport {
  fetchReturns(window: ImportWindow, cursor: string | null): Promise<ReturnPage>;
  /** Maps a set-aside record again (the operator's retry). A SetAsideReturn has no `lines`. */
  remap(record: unknown): ImportedReturn | SetAsideReturn;
}

/** An operation the marketplace lacks, and why (its published description has none, ...). */
export interface NotApplicable {
  notApplicable: string;
}

/**
 * The deliveries of returns and refunds: beside the order deliveries (`Delivery`), not in their
 * union, so a connector's batch and its order-delivery code see no new kind. They share the
 * order's sequence: an order's rows of every kind go out one after the other.
 */
export type ReturnDeliveryKind = "refund" | "receiveReturn" | "approveReturn" | "rejectReturn";

/** The return a delivery concerns, as the marketplace knows it. */
export interface DeliveryReturn {
  sourceReturnNumber: string;
  /** ImportedReturn.sourceData as it was stored. */
  sourceData: Record<string, string>;
}

export interface RefundLine {
  sourceLineId: string;
  sku: string;
  /** Units refunded; 0 for an amount-only refund of the line. */
  quantity: number;
  /** What is refunded for the line, in the order's currency. */
  amount: number;
}

export type ReturnDelivery =
  | (DeliveryBase & {
      kind: "refund";
      lines: RefundLine[];
      shippingAmount: number;
      /** Lines plus shipping. */
      total: number;
      /** The order's currency when the hub knows it (null: the marketplace's own). */
      currency: string | null;
      reason: string;
      /** The return it settles, when it names one the marketplace knows. */
      return: DeliveryReturn | null;
    })
  | (DeliveryBase & {
      kind: "receiveReturn";
      return: DeliveryReturn;
      /** What this receipt adds, per return line. */
      lines: { sourceReturnLineId: string; sourceLineId: string; quantity: number }[];
      /** The seller put the units back on the shelf. */
      restock: boolean;
    })
  | (DeliveryBase & { kind: "approveReturn" | "rejectReturn"; return: DeliveryReturn; reason: string | null });

export type RefundDelivery = Extract<ReturnDelivery, { kind: "refund" }>;
export type ReceiveReturnDelivery = Extract<ReturnDelivery, { kind: "receiveReturn" }>;
export type ReturnDecisionDelivery = Extract<ReturnDelivery, { kind: "approveReturn" | "rejectReturn" }>;
