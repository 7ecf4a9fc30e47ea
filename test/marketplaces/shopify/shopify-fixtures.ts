// Orders for the fake Shopify, in the shape of the GraphQL Admin API 2026-01 schema (field names,
// non-null fields, enum values, Decimal amounts as strings): the fake answers queries by running
// them over these objects with graphql-js, so a field the schema requires and a fixture lacks, or
// an enum value the schema does not have, fails the query like a bug would. Lists that the schema
// types as connections are plain arrays here; the fake pages them.

export type Json = Record<string, unknown>;

export interface LineSpec {
  sku: string | null;
  name: string;
  quantity: number;
  /** Unit price, a Decimal string. */
  price: string;
  /** Discount allocated to the whole line. */
  discount?: string;
  /** Tax of the whole line. */
  tax?: string;
}

export interface OrderSpec {
  /** Sequence number: id 5000000000 + n, name #1000 + n. */
  n: number;
  updatedAt: string;
  createdAt?: string;
  lines?: LineSpec[];
  /** null: no shipping address; "redacted": every protected field null (an app without approval). */
  address?: Json | null | "redacted";
  email?: string | null;
  phone?: string | null;
  shipping?: { title: string; code: string | null; price: string; tax: string } | null;
  currency?: string;
  /** Split the lines over two fulfillment orders (two locations). */
  twoLocations?: boolean;
  /** Status of every fulfillment order (OPEN by default). */
  fulfillmentOrderStatus?: string;
  gateways?: string[];
}

const SUPPORTED_ACTIONS: Record<string, string[]> = {
  OPEN: ["CREATE_FULFILLMENT", "REQUEST_FULFILLMENT", "HOLD", "MOVE"],
  IN_PROGRESS: ["CREATE_FULFILLMENT", "HOLD"],
  ON_HOLD: ["RELEASE_HOLD"],
  SCHEDULED: ["MARK_AS_OPEN"],
  // A fulfillment order assigned to another fulfillment service: the merchant's app can only ask.
  INCOMPLETE: [],
  CLOSED: [],
  CANCELLED: [],
};

export function supportedActions(status: string): Json[] {
  return (SUPPORTED_ACTIONS[status] ?? []).map((action) => ({ action, externalUrl: null }));
}

export function money(amount: string, currency = "USD"): Json {
  return {
    shopMoney: { amount, currencyCode: currency },
    // The buyer paid in EUR at 0.9: a connector reading presentmentMoney would get other numbers.
    presentmentMoney: { amount: (Number(amount) * 0.9).toFixed(2), currencyCode: "EUR" },
  };
}

function cents(amount: string): number {
  return Math.round(Number(amount) * 100);
}

const fromCents = (c: number) => (c / 100).toFixed(2);

export const DEFAULT_ADDRESS: Json = {
  firstName: "Ada",
  lastName: "Lovelace",
  name: "Ada Lovelace",
  company: "Analytical Engines Ltd",
  address1: "12 St James's Square",
  address2: "Flat 3",
  city: "London",
  province: "England",
  provinceCode: "ENG",
  zip: "SW1Y 4JH",
  country: "United Kingdom",
  countryCodeV2: "GB",
  phone: "+44 20 7946 0000",
};

const REDACTED_ADDRESS: Json = Object.fromEntries(Object.keys(DEFAULT_ADDRESS).map((k) => [k, null]));

export const DEFAULT_LINES: LineSpec[] = [
  { sku: "MUG-BLUE", name: "Mug - Blue", quantity: 2, price: "12.50", discount: "2.50", tax: "4.50" },
  { sku: "TEE-L", name: "T-shirt - L", quantity: 1, price: "20.00", tax: "4.00" },
];

export const orderGid = (n: number) => `gid://shopify/Order/${5000000000 + n}`;
export const lineGid = (n: number, i: number) => `gid://shopify/LineItem/${n * 100 + i + 1}`;

/** One order in the schema's shape, with its fulfillment orders, before any fulfillment. */
export function shopifyOrder(spec: OrderSpec): Json {
  const currency = spec.currency ?? "USD";
  const m = (amount: string) => money(amount, currency);
  const lines = spec.lines ?? DEFAULT_LINES;
  const lineItems = lines.map((l, i) => ({
    id: lineGid(spec.n, i),
    sku: l.sku,
    name: l.name,
    title: l.name.split(" - ")[0],
    variantTitle: l.name.split(" - ")[1] ?? null,
    quantity: l.quantity,
    currentQuantity: l.quantity,
    originalUnitPriceSet: m(l.price),
    discountedUnitPriceSet: m(fromCents(cents(l.price) - Math.round(cents(l.discount ?? "0") / l.quantity))),
    discountAllocations: l.discount ? [{ allocatedAmountSet: m(l.discount), discountApplication: "opaque" }] : [],
    taxLines: l.tax ? [{ title: "VAT", rate: 0.2, ratePercentage: 20, priceSet: m(l.tax), source: "Shopify", channelLiable: false }] : [],
    requiresShipping: true,
    isGiftCard: false,
    taxable: true,
    restockable: true,
    merchantEditable: true,
    nonFulfillableQuantity: 0,
    refundableQuantity: l.quantity,
    unfulfilledQuantity: l.quantity,
    customAttributes: [],
    duties: [],
    vendor: "Hub Test Vendor",
  }));
  const shipping = spec.shipping === undefined ? { title: "Standard", code: "STANDARD", price: "5.00", tax: "1.00" } : spec.shipping;
  const subCents = lines.reduce((s, l) => s + cents(l.price) * l.quantity - cents(l.discount ?? "0"), 0);
  const taxCents = lines.reduce((s, l) => s + cents(l.tax ?? "0"), 0) + (shipping ? cents(shipping.tax) : 0);
  const shippingCents = shipping ? cents(shipping.price) : 0;
  const foStatus = spec.fulfillmentOrderStatus ?? "OPEN";
  const groups = spec.twoLocations && lineItems.length > 1 ? [lineItems.slice(0, 1), lineItems.slice(1)] : [lineItems];
  const fulfillmentOrders = groups.map((group, g) => ({
    id: `gid://shopify/FulfillmentOrder/${spec.n * 10 + g + 1}`,
    orderId: orderGid(spec.n),
    orderName: `#${1000 + spec.n}`,
    status: foStatus,
    requestStatus: "UNSUBMITTED",
    createdAt: spec.createdAt ?? spec.updatedAt,
    updatedAt: spec.updatedAt,
    orderProcessedAt: spec.createdAt ?? spec.updatedAt,
    assignedLocation: { name: g === 0 ? "Warehouse A" : "Warehouse B", countryCode: "GB" },
    supportedActions: supportedActions(foStatus),
    fulfillmentHolds: [],
    lineItems: group.map((line) => ({
      id: line.id.replace("LineItem", "FulfillmentOrderLineItem"),
      sku: line.sku,
      productTitle: line.title,
      variantTitle: line.variantTitle,
      remainingQuantity: line.quantity,
      totalQuantity: line.quantity,
      requiresShipping: true,
      lineItem: line,
      warnings: [],
      financialSummaries: [],
    })),
  }));
  const address = spec.address === "redacted" ? REDACTED_ADDRESS : spec.address === undefined ? DEFAULT_ADDRESS : spec.address;
  const createdAt = spec.createdAt ?? spec.updatedAt;
  return {
    id: orderGid(spec.n),
    legacyResourceId: String(5000000000 + spec.n),
    name: `#${1000 + spec.n}`,
    number: 1000 + spec.n,
    confirmationNumber: `CONF${spec.n}`,
    createdAt,
    processedAt: createdAt,
    updatedAt: spec.updatedAt,
    cancelledAt: null,
    cancelReason: null,
    closed: false,
    confirmed: true,
    test: false,
    email: spec.email === undefined ? `buyer${spec.n}@example.com` : spec.email,
    phone: spec.phone === undefined ? "+44 7700 900123" : spec.phone,
    currencyCode: currency,
    presentmentCurrencyCode: "EUR",
    displayFinancialStatus: "PAID",
    displayFulfillmentStatus: "UNFULFILLED",
    paymentGatewayNames: spec.gateways ?? ["shopify_payments"],
    taxesIncluded: false,
    requiresShipping: true,
    subtotalPriceSet: m(fromCents(subCents)),
    totalPriceSet: m(fromCents(subCents + shippingCents + taxCents)),
    totalTaxSet: m(fromCents(taxCents)),
    totalDiscountsSet: m(fromCents(lines.reduce((s, l) => s + cents(l.discount ?? "0"), 0))),
    shippingAddress: address === null ? null : { id: `gid://shopify/MailingAddress/${spec.n}`, coordinatesValidated: false, formatted: [], ...address },
    billingAddress: null,
    shippingLine: shipping
      ? {
          id: `gid://shopify/ShippingLine/${spec.n}`,
          title: shipping.title,
          code: shipping.code,
          source: "shopify",
          custom: false,
          isRemoved: false,
          originalPriceSet: m(shipping.price),
          discountedPriceSet: m(shipping.price),
          currentDiscountedPriceSet: m(shipping.price),
          discountAllocations: [],
          taxLines: [{ title: "VAT", rate: 0.2, ratePercentage: 20, priceSet: m(shipping.tax), source: "Shopify", channelLiable: false }],
        }
      : null,
    lineItems,
    fulfillmentOrders,
    fulfillments: [],
    tags: [],
  };
}

/** `count` plain orders, numbered from `first`, updated a minute apart from `start`. */
export function ordersUpdatedFrom(start: string, count: number, first = 1): Json[] {
  const t0 = Date.parse(start);
  return Array.from({ length: count }, (_, i) => shopifyOrder({ n: first + i, updatedAt: new Date(t0 + i * 60_000).toISOString().replace(".000Z", "Z") }));
}
