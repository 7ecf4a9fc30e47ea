// Shopify GraphQL Admin API 2026-01 shapes: what the connector's own queries and mutations ask
// for (shopify.graphql.ts), as the schema extract (../shared/reference/shopify/) types them,
// plus the envelope every GraphQL answer comes in. Fields are optional or nullable beyond what
// the schema marks non-null: an answer is read, never trusted.

/** Decimal and UnsignedInt64 are strings on the wire; DateTime is ISO 8601. */
export interface ShopifyMoneyV2 {
  amount?: string | number | null;
  currencyCode?: string | null;
}

export interface ShopifyMoneyBag {
  shopMoney?: ShopifyMoneyV2 | null;
}

export interface ShopifyTaxLine {
  priceSet?: ShopifyMoneyBag | null;
}

export interface ShopifyDiscountAllocation {
  allocatedAmountSet?: ShopifyMoneyBag | null;
}

export interface ShopifyPageInfo {
  hasNextPage?: boolean | null;
  endCursor?: string | null;
}

export interface ShopifyConnection<T> {
  pageInfo?: ShopifyPageInfo | null;
  nodes?: T[] | null;
}

export interface ShopifyLineItem {
  id?: string | null;
  sku?: string | null;
  name?: string | null;
  quantity?: number | null;
  /** Units ordered, excluding refunded and removed units. */
  currentQuantity?: number | null;
  /** Units not yet fulfilled. */
  unfulfilledQuantity?: number | null;
  originalUnitPriceSet?: ShopifyMoneyBag | null;
  discountAllocations?: ShopifyDiscountAllocation[] | null;
  taxLines?: ShopifyTaxLine[] | null;
}

export interface ShopifyMailingAddress {
  firstName?: string | null;
  lastName?: string | null;
  name?: string | null;
  company?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  provinceCode?: string | null;
  zip?: string | null;
  country?: string | null;
  countryCodeV2?: string | null;
  phone?: string | null;
}

export interface ShopifyShippingLine {
  title?: string | null;
  code?: string | null;
  discountedPriceSet?: ShopifyMoneyBag | null;
  taxLines?: ShopifyTaxLine[] | null;
}

export interface ShopifyOrder {
  id?: string | null;
  legacyResourceId?: string | number | null;
  name?: string | null;
  createdAt?: string | null;
  /** When anything of the order last changed (whole seconds): what the follow-up's memory compares. */
  updatedAt?: string | null;
  cancelledAt?: string | null;
  email?: string | null;
  phone?: string | null;
  displayFulfillmentStatus?: string | null;
  displayFinancialStatus?: string | null;
  paymentGatewayNames?: string[] | null;
  subtotalPriceSet?: ShopifyMoneyBag | null;
  totalPriceSet?: ShopifyMoneyBag | null;
  shippingAddress?: ShopifyMailingAddress | null;
  shippingLine?: ShopifyShippingLine | null;
  lineItems?: ShopifyConnection<ShopifyLineItem> | null;
  /**
   * Not in the orders page: set from ShopifyOrderProgress (a follow-up of the orders that have
   * fulfilled, refunded or removed units and changed since their last read) before the order is
   * mapped; absent, nothing by line is read (the hub keeps what it knows).
   */
  fulfillments?: ShopifyOrderFulfillment[] | null;
  refunds?: ShopifyRefund[] | null;
}

/** A fulfillment as ShopifyOrderProgress reads it: a package, with its line items. */
export interface ShopifyOrderFulfillment {
  id?: string | null;
  status?: string | null;
  createdAt?: string | null;
  trackingInfo?: { number?: string | null; company?: string | null }[] | null;
  fulfillmentLineItems?: ShopifyConnection<{ quantity?: number | null; lineItem?: { id?: string | null } | null }> | null;
}

/** A refund as ShopifyOrderProgress reads it. */
export interface ShopifyRefund {
  id?: string | null;
  createdAt?: string | null;
  processedAt?: string | null;
  note?: string | null;
  totalRefundedSet?: ShopifyMoneyBag | null;
  refundLineItems?: ShopifyConnection<ShopifyRefundLineItem> | null;
}

export interface ShopifyRefundLineItem {
  quantity?: number | null;
  /** RefundLineItemRestockType: RETURN is a unit that was fulfilled and came back. */
  restockType?: string | null;
  lineItem?: { id?: string | null } | null;
  subtotalSet?: ShopifyMoneyBag | null;
  totalTaxSet?: ShopifyMoneyBag | null;
}

export interface ShopifyOrderProgressData {
  order?: { fulfillments?: ShopifyOrderFulfillment[] | null; refunds?: ShopifyRefund[] | null } | null;
}

export interface ShopifyOrdersData {
  orders?: ShopifyConnection<ShopifyOrder> | null;
}

export interface ShopifyOrderLinesData {
  order?: { lineItems?: ShopifyConnection<ShopifyLineItem> | null } | null;
}

export interface ShopifyFulfillmentOrderLineItem {
  id?: string | null;
  sku?: string | null;
  remainingQuantity?: number | null;
  lineItem?: { id?: string | null } | null;
}

export interface ShopifyFulfillmentOrder {
  id?: string | null;
  status?: string | null;
  supportedActions?: { action?: string | null }[] | null;
  lineItems?: ShopifyConnection<ShopifyFulfillmentOrderLineItem> | null;
}

export interface ShopifyFulfillment {
  id?: string | null;
  status?: string | null;
  trackingInfo?: { number?: string | null; company?: string | null }[] | null;
}

export interface ShopifyFulfillmentStateData {
  order?: {
    cancelledAt?: string | null;
    fulfillmentOrders?: ShopifyConnection<ShopifyFulfillmentOrder> | null;
    fulfillments?: ShopifyFulfillment[] | null;
  } | null;
}

export interface ShopifyFulfillmentOrderLinesData {
  fulfillmentOrder?: { lineItems?: ShopifyConnection<ShopifyFulfillmentOrderLineItem> | null } | null;
}

export interface ShopifyUserError {
  field?: string[] | null;
  message?: string | null;
  code?: string | null;
}

export interface ShopifyFulfillmentCreateData {
  fulfillmentCreate?: { fulfillment?: { id?: string | null } | null; userErrors?: ShopifyUserError[] | null } | null;
}

export interface ShopifyTrackingUpdateData {
  fulfillmentTrackingInfoUpdate?: { fulfillment?: { id?: string | null } | null; userErrors?: ShopifyUserError[] | null } | null;
}

export interface ShopifyOrderCancelData {
  orderCancel?: {
    job?: { id?: string | null } | null;
    orderCancelUserErrors?: ShopifyUserError[] | null;
  } | null;
}

export interface ShopifyOrderCancelledData {
  order?: { cancelledAt?: string | null } | null;
}

/** `extensions.cost` of every answer (the rate-limits guide; not part of the schema). */
export interface ShopifyThrottleStatus {
  maximumAvailable?: number | null;
  currentlyAvailable?: number | null;
  restoreRate?: number | null;
}

export interface ShopifyCost {
  requestedQueryCost?: number | null;
  actualQueryCost?: number | null;
  throttleStatus?: ShopifyThrottleStatus | null;
}

export interface ShopifyGraphqlError {
  message?: string | null;
  extensions?: { code?: string | null } | null;
}

/** A GraphQL answer. Auth failures come as `{errors: "<text>"}` with a 401 instead. */
export interface ShopifyAnswer<T> {
  data?: T | null;
  errors?: ShopifyGraphqlError[] | string | null;
  extensions?: { cost?: ShopifyCost | null } | null;
}

/** FulfillmentInput of fulfillmentCreate. */
export interface ShopifyFulfillmentInput {
  lineItemsByFulfillmentOrder: {
    fulfillmentOrderId: string;
    fulfillmentOrderLineItems: { id: string; quantity: number }[];
  }[];
  notifyCustomer: boolean;
  trackingInfo?: ShopifyTrackingInput;
}

/** FulfillmentTrackingInput. */
export interface ShopifyTrackingInput {
  number?: string;
  company?: string;
}

/** OrderCancelReason. */
export const SHOPIFY_CANCEL_REASONS = ["CUSTOMER", "DECLINED", "FRAUD", "INVENTORY", "OTHER", "STAFF"] as const;

/** FulfillmentOrderStatus values whose lines can still be fulfilled or will be later. */
export const FULFILLABLE_STATUSES = ["OPEN", "IN_PROGRESS"] as const;
export const WAITING_STATUSES = ["ON_HOLD", "SCHEDULED"] as const;
