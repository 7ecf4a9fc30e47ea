// Etsy Open API v3 shapes the connector reads and sends, as the published description
// (../shared/reference/etsy/openapi-3.0.0.json) has them: ShopReceipts, ShopReceipt,
// ShopReceiptTransaction, ShopReceiptShipment, Money, ErrorSchema, the OAuth token answer of
// Etsy's authentication guide, and for stock and price ShopListingsWithAssociations (with the
// Inventory include), ListingInventory and updateListingInventory's request body. The description marks no field required and many nullable, and
// some regions and apps get the address fields withheld, so every field is optional here and the
// mapping checks what it needs.

/** Money: `amount / divisor` in `currency_code` (amount and divisor are integers). */
export interface EtsyMoney {
  amount?: number | null;
  divisor?: number | null;
  currency_code?: string | null;
}

export interface EtsyTransactionVariation {
  property_id?: number | null;
  value_id?: number | null;
  formatted_name?: string | null;
  formatted_value?: string | null;
}

export interface EtsyTransaction {
  transaction_id?: number | null;
  title?: string | null;
  receipt_id?: number | null;
  quantity?: number | null;
  listing_id?: number | null;
  product_id?: number | null;
  sku?: string | null;
  /** Per unit: the receipt's total_price is the sum of price × quantity. */
  price?: EtsyMoney | null;
  shipping_cost?: EtsyMoney | null;
  variations?: EtsyTransactionVariation[] | null;
  shipping_method?: string | null;
  shipping_upgrade?: string | null;
  is_digital?: boolean | null;
  /** Coupon amounts in the shop's currency, as floats (not Money). */
  buyer_coupon?: number | null;
  shop_coupon?: number | null;
  create_timestamp?: number | null;
  created_timestamp?: number | null;
  paid_timestamp?: number | null;
  shipped_timestamp?: number | null;
}

export interface EtsyShipment {
  receipt_shipping_id?: number | null;
  shipment_notification_timestamp?: number | null;
  carrier_name?: string | null;
  tracking_code?: string | null;
}

/** The description's status words (its prose names five; its enum adds the two refund states). */
export const ETSY_RECEIPT_STATUSES = ["paid", "completed", "open", "payment processing", "canceled", "fully refunded", "partially refunded"] as const;

/** ShopRefund: a receipt's refund, with no id and no lines of its own. */
export interface EtsyRefund {
  amount?: EtsyMoney | null;
  created_timestamp?: number | null;
  reason?: string | null;
  note_from_issuer?: string | null;
  status?: string | null;
}

export interface EtsyReceipt {
  receipt_id?: number | null;
  refunds?: EtsyRefund[] | null;
  receipt_type?: number | null;
  buyer_user_id?: number | null;
  buyer_email?: string | null;
  name?: string | null;
  first_line?: string | null;
  second_line?: string | null;
  city?: string | null;
  state?: string | null;
  zip?: string | null;
  country_iso?: string | null;
  formatted_address?: string | null;
  status?: string | null;
  payment_method?: string | null;
  is_paid?: boolean | null;
  is_shipped?: boolean | null;
  create_timestamp?: number | null;
  created_timestamp?: number | null;
  update_timestamp?: number | null;
  updated_timestamp?: number | null;
  is_gift?: boolean | null;
  grandtotal?: EtsyMoney | null;
  subtotal?: EtsyMoney | null;
  total_price?: EtsyMoney | null;
  total_shipping_cost?: EtsyMoney | null;
  total_tax_cost?: EtsyMoney | null;
  total_vat_cost?: EtsyMoney | null;
  discount_amt?: EtsyMoney | null;
  gift_wrap_price?: EtsyMoney | null;
  shipments?: EtsyShipment[] | null;
  transactions?: EtsyTransaction[] | null;
}

/** getShopReceipts' answer: the whole match's `count` and one page of `results`. */
export interface EtsyReceiptPage {
  count?: number | null;
  results?: EtsyReceipt[] | null;
}

/** ErrorSchema; the token endpoint adds OAuth's error_description. */
export interface EtsyError {
  error?: unknown;
  error_description?: unknown;
}

/** The form body of createReceiptShipment (every field optional in the description). */
export interface EtsyShipmentForm {
  tracking_code?: string;
  carrier_name?: string;
  send_bcc?: "true" | "false";
  note_to_buyer?: string;
}

/** ListingPropertyValue as ListingInventory answers it. */
export interface EtsyPropertyValue {
  property_id?: number | null;
  property_name?: string | null;
  scale_id?: number | null;
  scale_name?: string | null;
  value_ids?: number[] | null;
  values?: string[] | null;
}

/** ListingInventoryProductOffering: the price is Money here, a float in updateListingInventory. */
export interface EtsyOffering {
  offering_id?: number | null;
  quantity?: number | null;
  is_enabled?: boolean | null;
  is_deleted?: boolean | null;
  price?: EtsyMoney | null;
}

export interface EtsyInventoryProduct {
  product_id?: number | null;
  sku?: string | null;
  is_deleted?: boolean | null;
  offerings?: EtsyOffering[] | null;
  property_values?: EtsyPropertyValue[] | null;
}

/** ListingInventory (getListingInventory's answer, and a listing's `inventory` include). */
export interface EtsyListingInventory {
  products?: EtsyInventoryProduct[] | null;
  price_on_property?: number[] | null;
  quantity_on_property?: number[] | null;
  sku_on_property?: number[] | null;
}

/** The part of ShopListingWithAssociations the SKU index reads. */
export interface EtsyShopListing {
  listing_id?: number | null;
  state?: string | null;
  skus?: string[] | null;
  inventory?: EtsyListingInventory | null;
}

/** getListingsByShop's answer: the whole match's `count` and one page of `results`. */
export interface EtsyListingPage {
  count?: number | null;
  results?: EtsyShopListing[] | null;
}

/** updateListingInventory's body: every product of the listing, read-only fields left out. */
export interface EtsyInventoryUpdate {
  products: {
    sku: string | null;
    property_values: { property_id: number; value_ids: number[]; scale_id?: number | null; property_name?: string; values: string[] }[];
    offerings: { price: number; quantity: number; is_enabled: boolean }[];
  }[];
  price_on_property: number[];
  quantity_on_property: number[];
  sku_on_property: number[];
}
