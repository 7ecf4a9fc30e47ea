// The GraphQL documents the Shopify connector sends, written against the Admin API 2026-01 schema
// extract (../shared/reference/shopify/); the fake Shopify validates each against it. Page sizes
// keep the requested cost of each query well under Shopify's 1,000-point ceiling for a single
// query (the cost counts `first` of every nested connection, multiplied).

const ORDERS_PER_PAGE = 10;
const LINES_PER_ORDER = 5;
const MORE_LINES_PER_PAGE = 50;
const FULFILLMENT_ORDERS_PER_PAGE = 5;
const FULFILLMENT_ORDER_LINES = 50;
const FULFILLMENTS_PER_ORDER = 20;
/** What ShopifyOrderProgress reads of one order (Order.fulfillments and Order.refunds are plain lists, `first` only). */
export const PROGRESS_FULFILLMENTS = 10;
export const PROGRESS_FULFILLMENT_LINES = 10;
export const PROGRESS_REFUNDS = 5;
export const PROGRESS_REFUND_LINES = 10;

const MONEY = "shopMoney { amount }";
const LINE_FIELDS = `fragment ShopifyLine on LineItem {
  id sku name quantity currentQuantity unfulfilledQuantity
  originalUnitPriceSet { ${MONEY} }
  discountAllocations { allocatedAmountSet { ${MONEY} } }
  taxLines { priceSet { ${MONEY} } }
}`;

export const ORDERS_QUERY = `query ShopifyOrders($query: String!, $after: String) {
  orders(first: ${ORDERS_PER_PAGE}, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id legacyResourceId name createdAt updatedAt cancelledAt email phone
      displayFulfillmentStatus displayFinancialStatus paymentGatewayNames
      subtotalPriceSet { ${MONEY} }
      totalPriceSet { ${MONEY} }
      shippingAddress {
        firstName lastName name company address1 address2 city province provinceCode zip country countryCodeV2 phone
      }
      shippingLine { title code discountedPriceSet { ${MONEY} } taxLines { priceSet { ${MONEY} } } }
      lineItems(first: ${LINES_PER_ORDER}) { pageInfo { hasNextPage endCursor } nodes { ...ShopifyLine } }
    }
  }
}
${LINE_FIELDS}`;

export const ORDER_LINES_QUERY = `query ShopifyOrderLines($id: ID!, $after: String) {
  order(id: $id) {
    lineItems(first: ${MORE_LINES_PER_PAGE}, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...ShopifyLine } }
  }
}
${LINE_FIELDS}`;

/**
 * What Shopify's admin did to one order's lines: its fulfillments (packages, with their line items
 * and tracking) and its refunds (by line item). Asked only for an order of the page whose lines
 * show fulfilled, refunded or removed units, or that Shopify shows refunded, and that changed
 * since its last read (shopify.progress.ts) (about 580 points requested in the fake's model;
 * what exists is what is spent).
 */
export const ORDER_PROGRESS_QUERY = `query ShopifyOrderProgress($id: ID!) {
  order(id: $id) {
    fulfillments(first: ${PROGRESS_FULFILLMENTS}) {
      id status createdAt
      trackingInfo(first: 1) { number company }
      fulfillmentLineItems(first: ${PROGRESS_FULFILLMENT_LINES}) { pageInfo { hasNextPage } nodes { quantity lineItem { id } } }
    }
    refunds(first: ${PROGRESS_REFUNDS}) {
      id createdAt processedAt note
      totalRefundedSet { shopMoney { amount currencyCode } }
      refundLineItems(first: ${PROGRESS_REFUND_LINES}) {
        pageInfo { hasNextPage }
        nodes { quantity restockType lineItem { id } subtotalSet { ${MONEY} } totalTaxSet { ${MONEY} } }
      }
    }
  }
}`;

const FO_LINE_FIELDS = "id sku remainingQuantity lineItem { id }";

export const FULFILLMENT_STATE_QUERY = `query ShopifyFulfillmentState($id: ID!, $after: String) {
  order(id: $id) {
    cancelledAt
    fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_PAGE}, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id status supportedActions { action }
        lineItems(first: ${FULFILLMENT_ORDER_LINES}) { pageInfo { hasNextPage endCursor } nodes { ${FO_LINE_FIELDS} } }
      }
    }
    fulfillments(first: ${FULFILLMENTS_PER_ORDER}) { id status trackingInfo(first: 5) { number company } }
  }
}`;

export const FULFILLMENT_ORDER_LINES_QUERY = `query ShopifyFulfillmentOrderLines($id: ID!, $after: String) {
  fulfillmentOrder(id: $id) {
    lineItems(first: ${MORE_LINES_PER_PAGE}, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${FO_LINE_FIELDS} } }
  }
}`;

export const FULFILLMENT_CREATE_MUTATION = `mutation ShopifyFulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id }
    userErrors { field message }
  }
}`;

export const TRACKING_UPDATE_MUTATION = `mutation ShopifyTrackingUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!,
  $notifyCustomer: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
    fulfillment { id }
    userErrors { field message }
  }
}`;

export const ORDER_CANCEL_MUTATION = `mutation ShopifyOrderCancel($orderId: ID!, $reason: OrderCancelReason!, $restock: Boolean!, $refundMethod:
  OrderCancelRefundMethodInput, $notifyCustomer: Boolean, $staffNote: String) {
  orderCancel(orderId: $orderId, reason: $reason, restock: $restock, refundMethod: $refundMethod, notifyCustomer: $notifyCustomer, staffNote: $staffNote) {
    job { id }
    orderCancelUserErrors { field message code }
  }
}`;

export const ORDER_CANCELLED_QUERY = `query ShopifyOrderCancelled($id: ID!) {
  order(id: $id) { cancelledAt }
}`;
