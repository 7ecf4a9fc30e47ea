// Walmart Marketplace (US) Orders API v3 wire shapes, from orders.openapi.json 0.6.3 and
// auth.openapi.json. Read-side fields are optional or nullable beyond what the description marks
// required: Walmart's live answers carry nulls (address2, carrierMethodName) and omit blocks.

export interface WalmartError {
  code?: string;
  field?: string;
  description?: string;
  info?: string;
  severity?: string;
  category?: string;
}

export interface WalmartErrorBody {
  errors?: WalmartError[] | { error?: WalmartError[] };
}

export interface WalmartMoney {
  currency?: string | null;
  amount?: number | string | null;
}

export interface WalmartCharge {
  chargeType?: string | null;
  chargeName?: string | null;
  chargeAmount?: WalmartMoney | null;
  tax?: { taxName?: string | null; taxAmount?: WalmartMoney | null } | null;
}

export interface WalmartQuantity {
  unitOfMeasurement?: string | null;
  amount?: string | number | null;
}

export interface WalmartOrderLineStatus {
  status?: string | null;
  statusQuantity?: WalmartQuantity | null;
  cancellationReason?: string | null;
  /** On a Shipped (or Delivered) entry: the package that quantity of the line went out in. */
  trackingInfo?: {
    shipDateTime?: number | string | null;
    carrierName?: { carrier?: string | null; otherCarrier?: string | null } | null;
    methodCode?: string | null;
    trackingNumber?: string | null;
    trackingURL?: string | null;
  } | null;
}

export interface WalmartOrderLine {
  lineNumber?: string | null;
  item?: { productName?: string | null; sku?: string | null } | null;
  charges?: { charge?: WalmartCharge[] | null } | null;
  orderLineQuantity?: WalmartQuantity | null;
  statusDate?: number | null;
  orderLineStatuses?: { orderLineStatus?: WalmartOrderLineStatus[] | null } | null;
  fulfillment?: {
    fulfillmentOption?: string | null;
    shipMethod?: string | null;
    shippingProgramType?: string | null;
  } | null;
  intentToCancel?: string | null;
}

export interface WalmartPostalAddress {
  name?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
  addressType?: string | null;
}

export interface WalmartOrder {
  purchaseOrderId?: string | null;
  customerOrderId?: string | null;
  customerEmailId?: string | null;
  orderType?: string | null;
  /** Epoch ms in every example; the `Order` schema alone calls it a date-time string. */
  orderDate?: number | string | null;
  buyerId?: string | null;
  paymentTypes?: string[] | null;
  shippingInfo?: {
    phone?: string | null;
    estimatedDeliveryDate?: number | null;
    estimatedShipDate?: number | null;
    methodCode?: string | null;
    postalAddress?: WalmartPostalAddress | null;
  } | null;
  orderLines?: { orderLine?: WalmartOrderLine[] | null } | null;
  // An object in GET /v3/orders/{id}, an empty array in the released-orders example.
  shipNode?: { type?: string | null; name?: string | null; id?: string | null } | unknown[] | null;
}

export interface WalmartOrderList {
  list?: {
    meta?: { totalCount?: number | null; limit?: number | null; nextCursor?: string | null } | null;
    elements?: { order?: WalmartOrder[] | null } | null;
  } | null;
}

export const WALMART_METHOD_CODES = ["Standard", "Express", "OneDay", "Freight", "WhiteGlove", "Value"] as const;
export type WalmartMethodCode = (typeof WALMART_METHOD_CODES)[number];

// CarrierNameType.carrier enum; anything else goes out as otherCarrier.
export const WALMART_CARRIERS = [
  "UPS",
  "USPS",
  "FedEx",
  "Airborne",
  "OnTrac",
  "DHL Ecommerce - US",
  "DHL",
  "LS",
  "UDS",
  "UPSMI",
  "FDX",
  "PILOT",
  "ESTES",
  "SAIA",
  "FDS Express",
  "Seko Worldwide",
  "HIT Delivery",
  "FEDEXSP",
  "RL Carriers",
  "Metropolitan Warehouse & Delivery",
  "China Post",
  "YunExpress",
  "Yellow Freight Sys",
  "AIT Worldwide Logistics",
  "Chukou1",
  "Sendle",
  "Landmark Global",
  "Sunyou",
  "Yanwen",
  "4PX",
  "GLS",
  "OSM Worldwide",
  "FIRST MILE",
  "AM Trucking",
  "CEVA",
  "India Post",
  "SF Express",
  "CNE",
  "TForce Freight",
  "AxleHire",
  "LSO",
  "Royal Mail",
  "ABF Freight System",
  "WanB",
  "Roadrunner Freight",
  "Meyer Distribution",
  "AAA Cooper",
  "Canada Post",
  "Southeastern Freight Lines",
  "Japan Post",
  "Correos de Mexico",
  "XPO Logistics",
  "JD Logistics",
  "YDH",
  "JCEX",
  "Flyt",
  "Deutsche Post",
] as const;

export const WALMART_CANCELLATION_REASONS = [
  "CUSTOMER_REQUESTED_SELLER_TO_CANCEL",
  "SELLER_CANCEL_PRICING_ERROR",
  "SELLER_CANCEL_OUT_OF_STOCK",
  "SELLER_CANCEL_FRAUD_STOP_SHIPMENT",
  "SELLER_CANCEL_ADDRESS_NOT_SERVICEABLE",
] as const;
export type WalmartCancellationReason = (typeof WALMART_CANCELLATION_REASONS)[number];

export interface WalmartStatusQuantity {
  unitOfMeasurement: "EACH" | "EA";
  amount: string;
}

export interface WalmartTrackingInfo {
  /** Epoch milliseconds (int64 in TrackingInfoType; the example sends 1580821866000). */
  shipDateTime: number;
  carrierName: { carrier: string } | { otherCarrier: string };
  methodCode: WalmartMethodCode;
  trackingNumber: string;
  trackingURL?: string;
}

export interface WalmartShipmentRequest {
  orderShipment: {
    orderLines: {
      orderLine: {
        lineNumber: string;
        sellerOrderId: string;
        orderLineStatuses: {
          orderLineStatus: {
            status: "Shipped";
            statusQuantity: WalmartStatusQuantity;
            trackingInfo: WalmartTrackingInfo;
          }[];
        };
      }[];
    };
  };
}

export interface WalmartCancellationRequest {
  orderCancellation: {
    orderLines: {
      orderLine: {
        lineNumber: string;
        orderLineStatuses: {
          orderLineStatus: {
            status: "Cancelled";
            cancellationReason: WalmartCancellationReason;
            statusQuantity: WalmartStatusQuantity;
          }[];
        };
      }[];
    };
  };
}

// Returns Management (returns.openapi.json): GET /v3/returns and POST /v3/returns/{id}/refund.

export interface WalmartCurrency {
  currencyAmount?: number | null;
  currencyUnit?: string | null;
}

export interface WalmartReturnCharge {
  chargeCategory?: string | null;
  chargeName?: string | null;
  chargePerUnit?: WalmartCurrency | null;
  isDiscount?: boolean | null;
  isBillable?: boolean | null;
  tax?: { taxName?: string | null; taxPerUnit?: WalmartCurrency | null }[] | null;
}

export interface WalmartReturnLine {
  returnOrderLineNumber?: number | null;
  purchaseOrderId?: string | null;
  purchaseOrderLineNumber?: number | null;
  returnReason?: string | null;
  item?: { sku?: string | null; productName?: string | null } | null;
  charges?: WalmartReturnCharge[] | null;
  quantity?: { unitOfMeasure?: string | null; measurementValue?: number | null } | null;
  refundedQty?: number | null;
  refundChannel?: string | null;
  /** INITIATED, DELIVERED or COMPLETED (the `status` filter's description). */
  status?: string | null;
  statusTime?: string | null;
  currentDeliveryStatus?: string | null;
  currentRefundStatus?: string | null;
}

export interface WalmartReturnOrder {
  returnOrderId?: string | null;
  customerOrderId?: string | null;
  returnType?: string | null;
  returnOrderDate?: string | null;
  totalRefundAmount?: WalmartCurrency | null;
  returnOrderLines?: WalmartReturnLine[] | null;
}

export interface WalmartReturnList {
  meta?: { totalCount?: number | null; limit?: number | null; nextCursor?: string | null } | null;
  returnOrders?: WalmartReturnOrder[] | null;
}

export interface WalmartRefundRequest {
  customerOrderId: string;
  refundLines: { returnOrderLineNumber: number }[];
}
