// Orders for the fake TikTok Shop, in the shape of the SDK's GetOrderDetail model (the stored SDK
// carries no examples, so these are written from its field descriptions): ids as strings of
// digits, times in unix seconds, money as decimal strings in the payment's currency, one line
// item per unit (line items carry no quantity), each line in the order's one package until it is
// split. sub_total = original prices - seller and platform discounts; total_amount = sub_total +
// shipping_fee + tax. The fake checks every order it serves against the SDK's answer schema.
// Returns likewise, in the shape of SearchReturns' model (sampleReturn).
import type { TiktokLineItem, TiktokOrder, TiktokReturn } from "../../../src/marketplaces/tiktok/tiktok.types";

export interface SampleLine {
  id: string;
  sku?: string;
  /** Unit price in cents. */
  price: number;
  /** Seller discount in cents. */
  discount?: number;
  /** Sales tax in cents. */
  tax?: number;
  name?: string;
  variant?: string;
  skuId?: string;
}

export interface SampleOrder {
  id: string;
  created: Date;
  updated?: Date;
  status?: string;
  lines: SampleLine[];
  /** Cents. */
  shipping?: number;
  currency?: string;
  shippingType?: "SELLER" | "TIKTOK";
  fulfillmentType?: "FULFILLMENT_BY_SELLER" | "FULFILLMENT_BY_TIKTOK";
  /** The package the lines are in (none: lines in no package yet). */
  packageId?: string | null;
  paid?: boolean;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
export const decimal = (cents: number) => (cents / 100).toFixed(2);

export function sampleOrder(o: SampleOrder): TiktokOrder {
  const currency = o.currency ?? "USD";
  const status = o.status ?? "AWAITING_SHIPMENT";
  const packageId = o.packageId === undefined ? `11${o.id.slice(2)}` : o.packageId;
  const lines: TiktokLineItem[] = o.lines.map((l) => ({
    id: l.id,
    sku_id: l.skuId ?? `17${l.id.slice(-8)}`,
    seller_sku: l.sku ?? `SKU-${l.id.slice(-4)}`,
    product_id: `17000${l.id.slice(-6)}`,
    product_name: l.name ?? `Product ${l.id.slice(-4)}`,
    ...(l.variant !== undefined && { sku_name: l.variant }),
    display_status: status,
    ...(packageId !== null && { package_id: packageId, package_status: "TO_FULFILL" }),
    currency,
    original_price: decimal(l.price),
    sale_price: decimal(l.price - (l.discount ?? 0)),
    seller_discount: decimal(l.discount ?? 0),
    platform_discount: "0.00",
    item_tax: [{ tax_type: "SALES_TAX", tax_amount: decimal(l.tax ?? 0), tax_rate: "0.0725" }],
    is_gift: false,
  }));
  const original = o.lines.reduce((s, l) => s + l.price, 0);
  const discount = o.lines.reduce((s, l) => s + (l.discount ?? 0), 0);
  const tax = o.lines.reduce((s, l) => s + (l.tax ?? 0), 0);
  const shipping = o.shipping ?? 0;
  const sub = original - discount;
  return {
    id: o.id,
    status,
    create_time: seconds(o.created),
    update_time: seconds(o.updated ?? o.created),
    ...(o.paid !== false && status !== "UNPAID" && { paid_time: seconds(o.created) + 60 }),
    buyer_email: `v${o.id.slice(-6)}@scs2.tiktok.com`,
    user_id: `76${o.id.slice(-10)}`,
    shipping_type: o.shippingType ?? "SELLER",
    fulfillment_type: o.fulfillmentType ?? "FULFILLMENT_BY_SELLER",
    delivery_option_name: "Standard Shipping",
    delivery_option_id: "7091146663229900545",
    payment_method_name: "Credit card",
    is_cod: false,
    line_items: lines,
    packages: packageId === null ? [] : [{ id: packageId }],
    payment: {
      currency,
      original_total_product_price: decimal(original),
      seller_discount: decimal(discount),
      platform_discount: "0.00",
      sub_total: decimal(sub),
      shipping_fee: decimal(shipping),
      shipping_fee_tax: "0.00",
      product_tax: decimal(tax),
      tax: decimal(tax),
      total_amount: decimal(sub + shipping + tax),
    },
    recipient_address: {
      name: "Ada Lovelace",
      first_name: "Ada",
      last_name: "Lovelace",
      phone_number: "(+1)213-555-0100",
      address_line1: "12 Analytical Way",
      address_line2: "Apt 3",
      address_detail: "12 Analytical Way, Apt 3",
      full_address: "12 Analytical Way, Apt 3, Los Angeles, California, 90012, United States",
      postal_code: "90012",
      region_code: "US",
      district_info: [
        { address_level: "L0", address_level_name: "Country", address_name: "United States" },
        { address_level: "L1", address_level_name: "State", address_name: "California" },
        { address_level: "L2", address_level_name: "County", address_name: "Los Angeles County" },
        { address_level: "L3", address_level_name: "City", address_name: "Los Angeles" },
      ],
    },
  };
}

export interface SampleReturn {
  id: string;
  order: TiktokOrder;
  /** The order's line items returned (all of them when left out). */
  lineIds?: string[];
  type?: "REFUND" | "RETURN_AND_REFUND" | "REPLACEMENT";
  status?: string;
  created: Date;
  updated?: Date;
  reason?: string;
}

/**
 * A return in the shape of the SDK's SearchReturns model: each returned line item refunds its sale
 * price and tax, the return its line items' total (no shipping fee).
 */
export function sampleReturn(r: SampleReturn): TiktokReturn {
  const currency = r.order.payment?.currency ?? "USD";
  const lines = (r.order.line_items ?? []).filter((l) => !r.lineIds || r.lineIds.includes(l.id!));
  const cost = (l: TiktokLineItem) =>
    Math.round(Number(l.sale_price) * 100) + (l.item_tax ?? []).reduce((s, t) => s + Math.round(Number(t.tax_amount) * 100), 0);
  const total = lines.reduce((s, l) => s + cost(l), 0);
  return {
    return_id: r.id,
    order_id: r.order.id,
    return_type: r.type ?? "RETURN_AND_REFUND",
    return_status: r.status ?? "RETURN_OR_REFUND_REQUEST_PENDING",
    role: "BUYER",
    create_time: seconds(r.created),
    update_time: seconds(r.updated ?? r.created),
    return_reason: "ecom_order_delivered_refund_and_return_reason_not_as_described",
    return_reason_text: r.reason ?? "Item not as described",
    refund_amount: { currency, refund_subtotal: decimal(total), refund_shipping_fee: "0.00", refund_tax: "0.00", refund_total: decimal(total) },
    return_line_items: lines.map((l, i) => ({
      return_line_item_id: `47${r.id.slice(2, 15)}${String(i + 1).padStart(3, "0")}`,
      order_line_item_id: l.id,
      seller_sku: l.seller_sku,
      sku_id: l.sku_id,
      refund_amount: { currency, refund_total: decimal(cost(l)) },
    })),
  };
}
