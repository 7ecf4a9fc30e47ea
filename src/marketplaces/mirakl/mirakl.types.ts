// Mirakl's seller (shop) API wire shapes, from Mirakl's published MMP seller description
// (mirakl-mmp-seller-openapi.json, OpenAPI 3.1): the parts the connector reads and sends. Every
// field a marketplace sends is optional here, since Mirakl adds fields and enum values over time
// and its general notes ask integrations to tolerate both; the mapping checks what it needs.

export interface MiraklTax {
  amount?: number;
  code?: string;
  rate?: number;
}

export interface MiraklPromotion {
  id?: string;
  deduced_amount?: number;
}

export interface MiraklAddress {
  civility?: string | null;
  firstname?: string | null;
  lastname?: string | null;
  company?: string | null;
  company_2?: string | null;
  street_1?: string | null;
  street_2?: string | null;
  city?: string | null;
  state?: string | null;
  zip_code?: string | null;
  country?: string | null;
  country_iso_code?: string | null;
  phone?: string | null;
  phone_secondary?: string | null;
  additional_info?: string | null;
}

export interface MiraklCustomer {
  customer_id?: string;
  firstname?: string | null;
  lastname?: string | null;
  civility?: string | null;
  locale?: string | null;
  /** Null before shipping (or acceptance, depending on the operator's setting). */
  shipping_address?: MiraklAddress | null;
  billing_address?: MiraklAddress | null;
}

export interface MiraklOrderLine {
  order_line_id?: string;
  order_line_index?: number;
  order_line_state?: string;
  offer_sku?: string;
  offer_id?: number;
  product_sku?: string;
  product_title?: string;
  quantity?: number;
  /** The line's price without shipping (in the tax mode asked for). */
  price?: number;
  price_unit?: number;
  origin_unit_price?: number;
  shipping_price?: number;
  taxes?: MiraklTax[];
  shipping_taxes?: MiraklTax[];
  fees?: { amount?: number; code?: string }[];
  promotions?: MiraklPromotion[];
  total_price?: number;
  cancelations?: { id?: string; quantity?: number; amount?: number; reason_code?: string; created_date?: string }[];
  refunds?: MiraklRefund[];
}

export interface MiraklOrder {
  order_id?: string;
  commercial_id?: string;
  order_state?: string;
  order_state_reason_code?: string | null;
  created_date?: string;
  last_updated_date?: string;
  acceptance_decision_date?: string | null;
  currency_iso_code?: string;
  order_tax_mode?: string;
  customer?: MiraklCustomer | null;
  customer_notification_email?: string | null;
  order_lines?: MiraklOrderLine[];
  order_taxes?: { code?: string; rate?: number; total_amount?: number }[];
  price?: number;
  shipping_price?: number;
  total_price?: number;
  shipping_type_code?: string | null;
  shipping_type_label?: string | null;
  shipping_type_standard_code?: string | null;
  shipping_carrier_code?: string | null;
  shipping_tracking?: string | null;
  payment_type?: string | null;
  /** Replaced by payment_type, "will be removed soon" (the description). */
  paymentType?: string | null;
  transaction_number?: string | null;
  can_cancel?: boolean;
}

/** OR11's answer. */
export interface MiraklOrderList {
  orders?: unknown;
  total_count?: unknown;
}

/** OR21's body: a decision for every line of the order. */
export interface MiraklAcceptRequest {
  order_lines: { id: string; accepted: boolean }[];
}

/** OR23's body: carrier_code for a registered carrier, carrier_name (and carrier_url) otherwise. */
export interface MiraklTrackingRequest {
  carrier_code?: string;
  carrier_name?: string;
  carrier_standard_code?: string;
  carrier_url?: string;
  tracking_number?: string;
}

/** One offer as OF21 answers it (the fields OF24 takes back). */
export interface MiraklOffer {
  offer_id?: number;
  shop_sku?: string;
  product_sku?: string;
  product_references?: { reference?: string; reference_type?: string }[];
  price?: number;
  quantity?: number;
  state_code?: string;
  currency_iso_code?: string;
  description?: string | null;
  internal_description?: string | null;
  price_additional_info?: string | null;
  leadtime_to_ship?: number | null;
  logistic_class?: { code?: string; label?: string } | null;
  max_order_quantity?: number | null;
  min_order_quantity?: number | null;
  min_quantity_alert?: number | null;
  package_quantity?: number | null;
  available_start_date?: string | null;
  available_end_date?: string | null;
  allow_quote_requests?: boolean | null;
  product_tax_code?: string | null;
  msrp?: number | null;
  discount?: {
    discount_price?: number | null;
    origin_price?: number | null;
    start_date?: string | null;
    end_date?: string | null;
    ranges?: { price?: number; quantity_threshold?: number }[] | null;
  } | null;
  all_prices?: {
    channel_code?: string | null;
    discount_start_date?: string | null;
    discount_end_date?: string | null;
    price?: number;
    unit_discount_price?: number | null;
    unit_origin_price?: number;
    volume_prices?: { quantity_threshold?: number; unit_discount_price?: number | null; unit_origin_price?: number }[];
  }[];
  offer_additional_fields?: { code?: string; type?: string; value?: unknown }[];
  eco_contributions?: { eco_contribution_amount?: number; epr_category_code?: string; producer_id?: string }[];
  /** Dropship offers only. */
  retail_prices?: {
    discount_start_date?: string | null;
    discount_end_date?: string | null;
    price?: number;
    unit_discount_price?: number | null;
    unit_origin_price?: number;
  }[];
  warehouses?: { code?: string; quantity?: number }[];
}

/** One offer of OF24's body (required: shop_sku, product_id, product_id_type, price, state_code, update_delete). */
export interface MiraklOfferUpdate {
  shop_sku: string;
  product_id: string;
  product_id_type: string;
  price: number;
  quantity: number;
  state_code: string;
  update_delete: "update";
  description?: string;
  internal_description?: string;
  price_additional_info?: string;
  leadtime_to_ship?: number;
  logistic_class?: string;
  max_order_quantity?: number;
  min_order_quantity?: number;
  min_quantity_alert?: number;
  package_quantity?: number;
  available_started?: string;
  available_ended?: string;
  allow_quote_requests?: boolean;
  product_tax_code?: string;
  msrp?: number;
  discount?: {
    price?: number;
    start_date?: string;
    end_date?: string;
    ranges?: { price: number; quantity_threshold: number }[];
  };
  all_prices?: {
    channel_code: string | null;
    discount_start_date: string | null;
    discount_end_date: string | null;
    unit_discount_price?: number;
    unit_origin_price?: number;
    volume_prices?: { quantity_threshold: number; unit_discount_price?: number; unit_origin_price: number }[];
  }[];
  offer_additional_fields?: { code: string; type?: string; value?: unknown }[];
  eco_contributions?: { eco_contribution_amount?: number; epr_category_code: string; producer_id?: string }[];
  retail_prices?: { discount_start_date: string | null; discount_end_date: string | null; unit_discount_price?: number; unit_origin_price?: number }[];
}

/** The tracking of one shipment (ST01, ST23). */
export interface MiraklShipmentTracking {
  carrier_code?: string;
  carrier_name?: string;
  carrier_standard_code?: string;
  tracking_number?: string;
  tracking_url?: string;
}

/** One shipment of ST01's body: a package of an order, its lines by order_line_id. */
export interface MiraklShipmentRequest {
  order_id: string;
  shipment_lines: { order_line_id: string; quantity: number; package_reference?: string }[];
  tracking?: MiraklShipmentTracking;
  /** true: the package left (as OR24 does for a whole order); false: only prepared. */
  shipped?: boolean;
}

/** A shipment as ST01 (shipment_success) and ST11 (data) answer it. */
export interface MiraklShipment {
  id?: string;
  order_id?: string;
  status?: string;
  shipment_lines?: { order_line_id?: string; offer_sku?: string; quantity?: number; package_reference?: string }[];
  tracking?: MiraklShipmentTracking | null;
  shipped_date?: string | null;
  created_date?: string;
  last_updated_date?: string;
}

/** ST01's 201: a shipment's success and another's error in the same answer. */
export interface MiraklShipmentsAnswer {
  shipment_success?: MiraklShipment[];
  shipment_errors?: { order_id?: string; message?: string }[];
}

/** ST23's 200. */
export interface MiraklTrackingAnswer {
  shipment_success?: { id?: string }[];
  shipment_errors?: { id?: string; message?: string }[];
}

/** A seek page (ST11, RT11). */
export interface MiraklSeekPage<T> {
  data?: T[];
  next_page_token?: string | null;
  previous_page_token?: string | null;
}

/** One line of OR30's body (amounts in the order_tax_mode sent beside them). */
export interface MiraklCancelation {
  order_line_id: string;
  quantity: number;
  amount: number;
  shipping_amount: number;
  reason_code: string;
  currency_iso_code?: string;
  taxes?: { amount: number; code: string }[];
  shipping_taxes?: { amount: number; code: string }[];
}

/** One line of OR28's body: the amounts drive the refund, the quantity is "informative only". */
export interface MiraklRefundRequest {
  order_line_id: string;
  amount: number;
  shipping_amount: number;
  reason_code: string;
  quantity?: number;
  currency_iso_code?: string;
}

/** OR28's 200 (and a line refund as OR11 reports it). */
export interface MiraklRefund {
  id?: string;
  refund_id?: string;
  order_refund_id?: string;
  order_line_id?: string;
  amount?: number;
  shipping_amount?: number;
  quantity?: number;
  reason_code?: string;
  state?: string;
  refund_state?: string;
  created_date?: string;
  currency_iso_code?: string;
  taxes?: MiraklTax[];
  shipping_taxes?: MiraklTax[];
}

/** RE01's reasons (cancellation, refund, incident, messaging), sorted by type then the operator's order. */
export interface MiraklReason {
  code?: string;
  label?: string;
  type?: string;
  is_shop_right?: boolean;
}

/** One return as RT11 answers it. */
export interface MiraklReturn {
  id?: string;
  order_id?: string;
  order_commercial_id?: string;
  state?: string;
  date_created?: string;
  last_updated?: string;
  reason_code?: string | null;
  rejection_reason_code?: string | null;
  rma?: string | null;
  return_lines?: { order_line_id?: string; quantity?: number; reason_code?: string | null }[];
}
