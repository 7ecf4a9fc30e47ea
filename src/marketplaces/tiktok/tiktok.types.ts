// TikTok Shop's wire shapes (Partner API version 202309), as TikTok's official generated Node SDK
// describes them (its model classes; see README.md beside this file): only the fields the
// connector reads or sends. Every answer is the envelope {code, message, request_id, data}, code 0
// meaning success. Ids are strings, times unix seconds, money decimal strings. Every field is
// optional in the SDK, so the mapping checks what it reads.

export interface TiktokEnvelope<T = unknown> {
  code?: number;
  message?: string;
  request_id?: string;
  data?: T | null;
}

/** The token endpoints' answer data (client/token.ts): both `*_expire_in` are unix timestamps, not durations. */
export interface TiktokTokenData {
  access_token?: string;
  access_token_expire_in?: number;
  refresh_token?: string;
  refresh_token_expire_in?: number;
  open_id?: string;
  seller_name?: string;
  seller_base_region?: string;
  user_type?: number;
}

/** GetAuthorizedShops: one shop the seller authorised the app for. */
export interface TiktokShop {
  id?: string;
  code?: string;
  name?: string;
  region?: string;
  seller_type?: string;
  /** The `shop_cipher` shop-scoped calls carry in their query. */
  cipher?: string;
}

/** GetOrderList's and GetOrderDetail's order status (order_status, status). */
export const TIKTOK_ORDER_STATUSES = [
  "UNPAID",
  "ON_HOLD",
  "AWAITING_SHIPMENT",
  "PARTIALLY_SHIPPING",
  "AWAITING_COLLECTION",
  "IN_TRANSIT",
  "DELIVERED",
  "COMPLETED",
  "CANCELLED",
] as const;
export type TiktokOrderStatus = (typeof TIKTOK_ORDER_STATUSES)[number];

export interface TiktokLineItem {
  id?: string;
  sku_id?: string;
  seller_sku?: string;
  product_id?: string;
  product_name?: string;
  sku_name?: string;
  /** Line item status; also the order statuses' words (UNPAID, AWAITING_SHIPMENT, ..., CANCELLED). */
  display_status?: string;
  package_id?: string;
  /** TO_FULFILL, PROCESSING, FULFILLING, COMPLETED, CANCELLED. */
  package_status?: string;
  tracking_number?: string;
  shipping_provider_id?: string;
  shipping_provider_name?: string;
  rts_time?: number;
  currency?: string;
  original_price?: string;
  sale_price?: string;
  seller_discount?: string;
  platform_discount?: string;
  item_tax?: { tax_amount?: string; tax_rate?: string; tax_type?: string }[];
  cancel_user?: string;
  cancel_reason?: string;
  is_gift?: boolean;
}

export interface TiktokRecipientAddress {
  name?: string;
  first_name?: string;
  last_name?: string;
  phone_number?: string;
  address_line1?: string;
  address_line2?: string;
  address_line3?: string;
  address_line4?: string;
  address_detail?: string;
  full_address?: string;
  postal_code?: string;
  region_code?: string;
  post_town?: string;
  /** Administrative levels: L0 the country, L1 the state, then county, city, ... */
  district_info?: { address_level?: string; address_level_name?: string; address_name?: string }[];
}

export interface TiktokPayment {
  currency?: string;
  sub_total?: string;
  shipping_fee?: string;
  shipping_fee_tax?: string;
  product_tax?: string;
  tax?: string;
  seller_discount?: string;
  platform_discount?: string;
  total_amount?: string;
  original_total_product_price?: string;
  retail_delivery_fee?: string;
}

export interface TiktokOrder {
  id?: string;
  status?: string;
  create_time?: number;
  update_time?: number;
  paid_time?: number;
  buyer_email?: string;
  user_id?: string;
  buyer_message?: string;
  /** TIKTOK (TikTok's own carriers: the seller cannot give tracking) or SELLER. */
  shipping_type?: string;
  /** FULFILLMENT_BY_SELLER, FULFILLMENT_BY_TIKTOK, ... */
  fulfillment_type?: string;
  delivery_option_name?: string;
  delivery_option_id?: string;
  payment_method_name?: string;
  is_cod?: boolean;
  is_on_hold_order?: boolean;
  tracking_number?: string;
  shipping_provider?: string;
  shipping_provider_id?: string;
  warehouse_id?: string;
  cancel_reason?: string;
  cancel_time?: number;
  cancellation_initiator?: string;
  line_items?: TiktokLineItem[];
  packages?: { id?: string }[];
  payment?: TiktokPayment;
  recipient_address?: TiktokRecipientAddress;
}

export interface TiktokOrderList {
  orders?: TiktokOrder[];
  next_page_token?: string;
  total_count?: number;
}

export interface TiktokOrderDetail {
  orders?: TiktokOrder[];
}

/** SearchProducts: a product with its SKUs (the SKU ids the stock and price calls need). */
export interface TiktokProduct {
  id?: string;
  title?: string;
  /** DRAFT, PENDING, FAILED, ACTIVATE, SELLER_DEACTIVATED, PLATFORM_DEACTIVATED, FREEZE, DELETED. */
  status?: string;
  skus?: {
    id?: string;
    seller_sku?: string;
    price?: { currency?: string; tax_exclusive_price?: string; sale_price?: string };
    inventory?: { warehouse_id?: string; quantity?: number }[];
  }[];
}

export interface TiktokProductPage {
  products?: TiktokProduct[];
  next_page_token?: string;
  total_count?: number;
}

/** InventorySearch: each SKU's quantity per warehouse. */
export interface TiktokInventoryAnswer {
  inventory?: {
    product_id?: string;
    skus?: { id?: string; seller_sku?: string; warehouse_inventory?: { warehouse_id?: string; available_quantity?: number; committed_quantity?: number }[] }[];
  }[];
}

/** UpdateInventory's body: every SKU of one product, each warehouse of a SKU listed. */
export interface TiktokInventoryUpdate {
  skus: { id: string; inventory: { warehouse_id: string; quantity: number }[] }[];
}

/** UpdateInventory's answer data: SKUs (and warehouses) TikTok did not take. */
export interface TiktokInventoryUpdateAnswer {
  errors?: { code?: number; message?: string; detail?: { sku_id?: string; extra_errors?: { code?: number; message?: string; warehouse_id?: string }[] } }[];
}

/** UpdatePrice's body: SKUs of one product. */
export interface TiktokPriceUpdate {
  skus: { id: string; price: { amount: string; currency: string } }[];
}

/** ShipPackage's body for a package the seller ships with its own carrier (SEND_BY_SELLER). */
export interface TiktokShipPackage {
  self_shipment: { tracking_number: string; shipping_provider_id: string };
}

/** UpdatePackageShippingInfo's body: a shipped package's corrected tracking number and carrier. */
export interface TiktokShippingInfoUpdate {
  tracking_number: string;
  shipping_provider_id: string;
}

/** CancelOrder's body (seller cancellation); without line item ids it cancels the whole order. */
export interface TiktokCancelOrder {
  order_id: string;
  cancel_reason: string;
  order_line_item_ids?: string[];
}

export interface TiktokCancelAnswer {
  cancel_id?: string;
  cancel_status?: string;
}

/** SearchReturns' money of a return or of one of its line items (decimal strings). */
export interface TiktokRefundAmount {
  currency?: string;
  refund_subtotal?: string;
  refund_shipping_fee?: string;
  refund_tax?: string;
  refund_total?: string;
}

/** SearchReturns: one return (or refund, or replacement) request. */
export interface TiktokReturn {
  return_id?: string;
  order_id?: string;
  /** REFUND (no goods back), RETURN_AND_REFUND, REPLACEMENT. */
  return_type?: string;
  /** RETURN_OR_REFUND_REQUEST_PENDING, AWAITING_BUYER_SHIP, BUYER_SHIPPED_ITEM, ... (tiktok.returns-mapping.ts). */
  return_status?: string;
  /** BUYER, SELLER, OPERATOR, SYSTEM. */
  role?: string;
  create_time?: number;
  update_time?: number;
  return_reason?: string;
  return_reason_text?: string;
  return_tracking_number?: string;
  refund_amount?: TiktokRefundAmount;
  return_line_items?: { return_line_item_id?: string; order_line_item_id?: string; seller_sku?: string; sku_id?: string; refund_amount?: TiktokRefundAmount }[];
}

export interface TiktokReturnList {
  return_orders?: TiktokReturn[];
  next_page_token?: string;
  total_count?: number;
}

/** ApproveReturn's body: the seller's decision (APPROVE_REFUND, APPROVE_RETURN, APPROVE_RECEIVED_PACKAGE, APPROVE_REPLACEMENT, ...). */
export interface TiktokApproveReturn {
  decision: string;
}

/** RejectReturn's body: the decision (REJECT_REFUND, REJECT_RETURN, REJECT_RECEIVED_PACKAGE, REJECT_REPLACEMENT), a reason GetRejectReasons lists, a comment.
 * */
export interface TiktokRejectReturn {
  decision: string;
  reject_reason: string;
  comment?: string;
}

/** CreateReturn's body for a seller's refund without a return (return_type REFUND). */
export interface TiktokCreateReturn {
  order_id: string;
  order_line_item_ids: string[];
  return_type: "REFUND";
  refund_total: string;
  currency?: string;
  return_reason: string;
}
