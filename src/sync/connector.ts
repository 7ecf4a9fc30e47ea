// The one interface every marketplace connector implements. Everything marketplace-specific
// (URLs, auth, payload shapes, status names) stays inside src/sync/connectors/<type>/.

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
}

export interface ImportedOrderItem {
  /** The marketplace's line id (Walmart: lineNumber); needed to ship or cancel that line. */
  sourceLineId: string;
  sku: string;
  name: string;
  quantity: number;
  unitPrice: number;
  saleTaxCost: number;
  /** A decimal amount as a string, as the interface reports it. */
  discount: string;
}

export interface OrderPage {
  orders: ImportedOrder[];
  /** Opaque; pass back to fetch the next page. null when this was the last page. */
  nextCursor: string | null;
}

/** What a delivery needs to know of the order it concerns. */
export interface DeliveryOrder {
  sourceOrderNumber: string;
  sellerOrderNumber: string | null;
  lines: { sourceLineId: string; sku: string; quantity: number }[];
}

export interface Shipment {
  trackingNumber: string | null;
  carrier: string | null;
  shippingMethod: string | null;
  shippedAt: Date;
}

export interface Connector {
  /**
   * One page of orders created or changed at or after `since`. `cursor` is null for the first
   * page and then whatever the previous page returned.
   */
  fetchOrders(since: Date, cursor: string | null): Promise<OrderPage>;
  acknowledge(order: DeliveryOrder): Promise<void>;
  ship(order: DeliveryOrder, shipment: Shipment): Promise<void>;
  cancel(order: DeliveryOrder): Promise<void>;
}

/**
 * A marketplace call that failed. `retryable` is false for answers that will not change on a
 * retry (400-class validation errors); `retryAfterMs` carries a 429's Retry-After.
 */
export class MarketplaceError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "MarketplaceError";
  }
}

/** What a connector factory receives: the source's decrypted settings and a fetch to use. */
export interface ConnectorContext {
  sourceId: string;
  settings: Record<string, unknown>;
  fetch: typeof fetch;
  now: () => Date;
}
