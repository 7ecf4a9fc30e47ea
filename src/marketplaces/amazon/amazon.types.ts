// Amazon Selling Partner API wire shapes, from the models in ../shared/reference/amazon/:
// orders_2026-01-01.json (searchOrders), ordersV0.json (confirmShipment), feeds_2021-06-30.json
// (createFeedDocument, createFeed, getFeed, getFeedDocument). Read-side fields are optional
// beyond what the models mark required: Amazon leaves out whole datasets (no RECIPIENT for an
// order Amazon fulfils, no PROCEEDS while payment is pending), so the mapping checks each one.

/** LWA's error answer: `{error, error_description}` (OAuth 2.0). */
export interface LwaError {
  error?: string;
  error_description?: string;
}

/** `ErrorList` of every model (v0 wraps no `payload` around errors either). */
export interface AmazonErrorList {
  errors?: { code?: string; message?: string; details?: string }[];
}

export interface AmazonMoney {
  /** `Decimal`: a string, "with no loss of precision". */
  amount?: string | number | null;
  currencyCode?: string | null;
}

/** OrderProceedsBreakdown / ItemProceedsBreakdown `type` values the model lists. */
export type AmazonProceedsType = "ITEM" | "SHIPPING" | "GIFT_WRAP" | "COD_FEE" | "TAX" | "DISCOUNT" | "DELIVERY_TIP" | "OTHER";

export interface AmazonItemProceedsBreakdown {
  type?: string | null;
  subtotal?: AmazonMoney | null;
  detailedBreakdowns?: { subtype?: string | null; value?: AmazonMoney | null }[] | null;
}

export interface AmazonOrderItem {
  orderItemId?: string | null;
  quantityOrdered?: number | null;
  product?: {
    asin?: string | null;
    title?: string | null;
    sellerSku?: string | null;
    price?: { unitPrice?: AmazonMoney | null } | null;
  } | null;
  proceeds?: { proceedsTotal?: AmazonMoney | null; breakdowns?: AmazonItemProceedsBreakdown[] | null } | null;
  /** CANCELLATION data: set once Amazon, the buyer or the seller cancelled the item (no quantity given). */
  cancellation?: {
    cancellationRequest?: { requester?: string | null; cancelReason?: string | null } | null;
    cancellationExecution?: { cancelledBy?: string | null; cancelReason?: string | null } | null;
  } | null;
  fulfillment?: {
    quantityFulfilled?: number | null;
    quantityUnfulfilled?: number | null;
    packing?: { giftOption?: { giftMessage?: string | null; giftWrapLevel?: string | null } | null } | null;
  } | null;
}

export interface AmazonCustomerAddress {
  name?: string | null;
  companyName?: string | null;
  addressLine1?: string | null;
  addressLine2?: string | null;
  addressLine3?: string | null;
  city?: string | null;
  districtOrCounty?: string | null;
  stateOrRegion?: string | null;
  municipality?: string | null;
  postalCode?: string | null;
  countryCode?: string | null;
  phone?: string | null;
  addressType?: string | null;
}

/** `FulfillmentStatus` of orders_2026-01-01. */
export const AMAZON_FULFILLMENT_STATUSES = [
  "PENDING_AVAILABILITY",
  "PENDING",
  "UNSHIPPED",
  "PARTIALLY_SHIPPED",
  "SHIPPED",
  "CANCELLED",
  "UNFULFILLABLE",
] as const;
export type AmazonFulfillmentStatus = (typeof AMAZON_FULFILLMENT_STATUSES)[number];

/** `Order` of orders_2026-01-01 (required: orderId, createdTime, lastUpdatedTime, salesChannel, orderItems). */
export interface AmazonOrder {
  orderId?: string | null;
  orderAliases?: { aliasId?: string | null; aliasType?: string | null }[] | null;
  createdTime?: string | null;
  lastUpdatedTime?: string | null;
  programs?: string[] | null;
  salesChannel?: { channelName?: string | null; marketplaceId?: string | null; marketplaceName?: string | null } | null;
  buyer?: {
    buyerName?: string | null;
    buyerEmail?: string | null;
    buyerCompanyName?: string | null;
    buyerPurchaseOrderNumber?: string | null;
  } | null;
  recipient?: { deliveryAddress?: AmazonCustomerAddress | null } | null;
  proceeds?: { grandTotal?: AmazonMoney | null; breakdowns?: { type?: string | null; subtotal?: AmazonMoney | null }[] | null } | null;
  payment?: { paymentExecutions?: { paymentMethod?: string | null; paymentAmount?: AmazonMoney | null }[] | null } | null;
  fulfillment?: {
    fulfillmentStatus?: string | null;
    fulfilledBy?: string | null;
    fulfillmentServiceLevel?: string | null;
  } | null;
  orderItems?: AmazonOrderItem[] | null;
  /** PACKAGES data (merchant-fulfilled orders only): each package confirmed, with its items. */
  packages?: AmazonOrderPackage[] | null;
}

/** `OrderPackage` of orders_2026-01-01. */
export interface AmazonOrderPackage {
  packageReferenceId?: string | null;
  createdTime?: string | null;
  packageStatus?: { status?: string | null; detailedStatus?: string | null } | null;
  carrier?: string | null;
  shipTime?: string | null;
  shippingService?: string | null;
  trackingNumber?: string | null;
  packageItems?: { orderItemId?: string | null; quantity?: number | null }[] | null;
}

export interface AmazonSearchOrdersResponse {
  orders?: AmazonOrder[] | null;
  pagination?: { nextToken?: string | null } | null;
  lastUpdatedBefore?: string | null;
  createdBefore?: string | null;
}

/** `ConfirmShipmentRequest` of ordersV0 (204 No Content on success). */
export interface AmazonConfirmShipmentRequest {
  marketplaceId: string;
  packageDetail: {
    /** "A seller-supplied identifier ... Only positive numeric values are supported." */
    packageReferenceId: string;
    carrierCode: string;
    /** Required when carrierCode is "Other". */
    carrierName?: string;
    shippingMethod?: string;
    trackingNumber: string;
    shipDate: string;
    orderItems: { orderItemId: string; quantity: number }[];
  };
}

export interface AmazonCreateFeedDocumentResponse {
  feedDocumentId?: string;
  url?: string;
}

export interface AmazonCreateFeedResponse {
  feedId?: string;
}

/** `Feed.processingStatus` of feeds_2021-06-30. */
export type AmazonFeedProcessingStatus = "CANCELLED" | "DONE" | "FATAL" | "IN_PROGRESS" | "IN_QUEUE";

export interface AmazonFeed {
  feedId?: string;
  feedType?: string;
  processingStatus?: string;
  resultFeedDocumentId?: string | null;
}

export interface AmazonFeedDocument {
  feedDocumentId?: string;
  url?: string;
  compressionAlgorithm?: string | null;
}

/** The feed type of order acknowledgements and cancellations (see the README for the choice). */
export const ORDER_ACKNOWLEDGEMENT_FEED_TYPE = "POST_ORDER_ACKNOWLEDGEMENT_DATA";
export const ORDER_ACKNOWLEDGEMENT_CONTENT_TYPE = "text/xml; charset=UTF-8";

/** CancelReason values of the OrderAcknowledgement message (Amazon's XML guide, quoted in the README). */
export const AMAZON_CANCEL_REASONS = [
  "NoInventory",
  "ShippingAddressUndeliverable",
  "CustomerExchange",
  "BuyerCanceled",
  "GeneralAdjustment",
  "CarrierCreditDecision",
  "RiskAssessmentInformationNotValid",
  "CarrierCoverageFailure",
  "CustomerReturn",
  "MerchandiseNotReceived",
] as const;
export type AmazonCancelReason = (typeof AMAZON_CANCEL_REASONS)[number];

/** One Result of a feed processing report, by the MessageID it answers. */
export interface ProcessingResult {
  messageId: string;
  /** "Error" or "Warning" (a message without a Result was processed without either). */
  code: string;
  messageCode: string | null;
  description: string;
}

export interface ProcessingReport {
  /** ProcessingReport StatusCode ("Complete"). */
  statusCode: string | null;
  messagesProcessed: number | null;
  results: ProcessingResult[];
}

/** The regional hosts of docs/sp-api-endpoints. */
export const AMAZON_REGION_HOSTS = {
  na: "https://sellingpartnerapi-na.amazon.com",
  eu: "https://sellingpartnerapi-eu.amazon.com",
  fe: "https://sellingpartnerapi-fe.amazon.com",
} as const;
export type AmazonRegion = keyof typeof AMAZON_REGION_HOSTS;

export const LWA_TOKEN_URL = "https://api.amazon.com/auth/o2/token";
