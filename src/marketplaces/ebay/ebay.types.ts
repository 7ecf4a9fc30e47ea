// eBay's shapes, as far as the connector reads or sends them. Fulfillment API types follow the
// schemas of eBay's published description (../shared/reference/ebay/sell_fulfillment_v1_oas3.json,
// v1.20.7) by name; every field is optional because the description marks none required. The
// Post-Order (cancellation) shapes are not in that description: they follow eBay's Post-Order
// reference pages (developer.ebay.com/Devzone/post-order/, types OrderEligibilityCheckInfo,
// CreateCancelRequest, CreateCancelResponse, OrderEligibilityResult, DateTime, ErrorResponse),
// as the connector's header says.

/** Amount: a decimal as a string, with its ISO 4217 currency. */
export interface EbayAmount {
  value?: string;
  currency?: string;
  convertedFromValue?: string;
  convertedFromCurrency?: string;
}

export interface EbayAddress {
  addressLine1?: string;
  addressLine2?: string;
  city?: string;
  countryCode?: string;
  county?: string;
  postalCode?: string;
  stateOrProvince?: string;
}

export interface EbayExtendedContact {
  companyName?: string;
  contactAddress?: EbayAddress;
  email?: string;
  fullName?: string;
  primaryPhone?: { phoneNumber?: string };
}

export interface EbayBuyer {
  username?: string;
  buyerRegistrationAddress?: EbayExtendedContact;
  taxAddress?: { city?: string; countryCode?: string; postalCode?: string; stateOrProvince?: string };
}

export interface EbayShippingStep {
  shippingCarrierCode?: string;
  shippingServiceCode?: string;
  shipTo?: EbayExtendedContact;
  shipToReferenceId?: string;
}

export interface EbayFulfillmentStartInstruction {
  ebaySupportedFulfillment?: boolean;
  finalDestinationAddress?: EbayAddress;
  fulfillmentInstructionsType?: string;
  maxEstimatedDeliveryDate?: string;
  minEstimatedDeliveryDate?: string;
  pickupStep?: { merchantLocationKey?: string };
  shippingStep?: EbayShippingStep;
}

export interface EbayLineItem {
  lineItemId?: string;
  legacyItemId?: string;
  legacyVariationId?: string;
  sku?: string;
  title?: string;
  quantity?: number;
  lineItemCost?: EbayAmount;
  discountedLineItemCost?: EbayAmount;
  total?: EbayAmount;
  appliedPromotions?: { description?: string; discountAmount?: EbayAmount; promotionId?: string }[];
  taxes?: { amount?: EbayAmount; taxType?: string }[];
  ebayCollectAndRemitTaxes?: { amount?: EbayAmount; taxType?: string; collectionMethod?: string }[];
  deliveryCost?: {
    shippingCost?: EbayAmount;
    discountAmount?: EbayAmount;
    handlingCost?: EbayAmount;
    importCharges?: EbayAmount;
    shippingIntermediationFee?: EbayAmount;
  };
  lineItemFulfillmentStatus?: string;
}

export interface EbayPricingSummary {
  adjustment?: EbayAmount;
  deliveryCost?: EbayAmount;
  deliveryDiscount?: EbayAmount;
  fee?: EbayAmount;
  priceDiscount?: EbayAmount;
  priceSubtotal?: EbayAmount;
  tax?: EbayAmount;
  total?: EbayAmount;
}

export interface EbayPayment {
  amount?: EbayAmount;
  paymentDate?: string;
  paymentMethod?: string;
  paymentReferenceId?: string;
  paymentStatus?: string;
}

export interface EbayOrder {
  orderId?: string;
  /**
   * Not in the stored description (v1.20.7 has no such field); older answers and third-party
   * clients carry it. Read when present, else the orderId stands for it (see the connector).
   */
  legacyOrderId?: string;
  buyer?: EbayBuyer;
  buyerCheckoutNotes?: string;
  cancelStatus?: { cancelState?: string; cancelledDate?: string; cancelRequests?: unknown[] };
  creationDate?: string;
  lastModifiedDate?: string;
  fulfillmentHrefs?: string[];
  fulfillmentStartInstructions?: EbayFulfillmentStartInstruction[];
  lineItems?: EbayLineItem[];
  orderFulfillmentStatus?: string;
  orderPaymentStatus?: string;
  paymentSummary?: { payments?: EbayPayment[]; refunds?: unknown[]; totalDueSeller?: EbayAmount };
  pricingSummary?: EbayPricingSummary;
  salesRecordReference?: string;
  sellerId?: string;
}

/** OrderSearchPagedCollection: one page of getOrders. */
export interface EbayOrderPage {
  href?: string;
  limit?: number;
  next?: string;
  offset?: number;
  orders?: EbayOrder[];
  prev?: string;
  total?: number;
  warnings?: EbayError[];
}

/** LineItemReference */
export interface EbayLineItemReference {
  lineItemId: string;
  quantity: number;
}

/** ShippingFulfillmentDetails: the createShippingFulfillment body. */
export interface EbayShippingFulfillmentDetails {
  lineItems: EbayLineItemReference[];
  shippedDate: string;
  shippingCarrierCode?: string;
  trackingNumber?: string;
}

/** ShippingFulfillment, as getShippingFulfillments lists them. */
export interface EbayShippingFulfillment {
  fulfillmentId?: string;
  lineItems?: { lineItemId?: string; quantity?: number }[];
  shipmentTrackingNumber?: string;
  shippedDate?: string;
  shippingCarrierCode?: string;
}

export interface EbayShippingFulfillmentPage {
  fulfillments?: EbayShippingFulfillment[];
  total?: number;
  warnings?: EbayError[];
}

/** Error: the Fulfillment API's error and warning shape, inside `{errors: [...]}`. */
export interface EbayError {
  errorId?: number;
  domain?: string;
  subdomain?: string;
  category?: string;
  message?: string;
  longMessage?: string;
  inputRefIds?: string[];
  outputRefIds?: string[];
  parameters?: { name?: string; value?: string }[];
}

/** The Post-Order API's error shape (ErrorResponse). */
export interface PostOrderErrorBody {
  errorMessage?: {
    error?: {
      errorId?: number;
      domain?: string;
      severity?: string;
      category?: string;
      message?: string;
      parameter?: { name?: string; value?: string }[];
      longMessage?: string;
      httpStatusCode?: string;
    }[];
  };
}

/** RFC 6749 section 5.2: what the token endpoint answers when it refuses. */
export interface OAuthErrorBody {
  error?: string;
  error_description?: string;
}

/** OrderEligibilityResult */
export interface PostOrderEligibilityResult {
  legacyOrderId?: string;
  eligible?: boolean;
  eligibleCancelReason?: string[];
  failureReason?: string[];
}

/** CreateCancelRequest, as a seller sends it. */
export interface PostOrderCancelRequest {
  legacyOrderId: string;
  cancelReason: EbaySellerCancelReason;
  buyerPaid: boolean;
  /** DateTime: `{value}` in ISO 8601 UTC; only when the buyer paid. */
  buyerPaidDate?: { value: string };
}

/** CreateCancelResponse */
export interface PostOrderCancelResponse {
  cancelId?: string;
  orderEligibilityResult?: PostOrderEligibilityResult;
}

/** The CancelReasonEnum values the Post-Order reference gives to sellers. */
export const EBAY_SELLER_CANCEL_REASONS = ["OUT_OF_STOCK_OR_CANNOT_FULFILL", "BUYER_ASKED_CANCEL", "ADDRESS_ISSUES"] as const;
export type EbaySellerCancelReason = (typeof EBAY_SELLER_CANCEL_REASONS)[number];

/**
 * The Post-Order spelling of the marketplaces it serves ("Currently, the marketplaces are limited
 * to: EBAY-US, EBAY-UK, and EBAY-DE"), by their Fulfillment API id. Sellers elsewhere import and
 * ship; their cancellations are NotApplicable.
 */
export const POST_ORDER_MARKETPLACES: Readonly<Record<string, string>> = {
  EBAY_US: "EBAY-US",
  EBAY_GB: "EBAY-UK",
  EBAY_DE: "EBAY-DE",
};
