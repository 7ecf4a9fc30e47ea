// Receipts for the fake Etsy, in the shape of the description's ShopReceipt schema. The stored
// description carries no examples, so these are written from its field descriptions: Money as
// {amount, divisor, currency_code}, timestamps in epoch seconds (both spellings the schema has),
// total_price the sum of price × quantity, subtotal that minus coupons, grandtotal subtotal plus
// tax and shipping. The fake checks every receipt it serves against the schema.
import type { EtsyMoney, EtsyReceipt, EtsyTransaction } from "../../../src/marketplaces/etsy/etsy.types";

export interface SampleTransaction {
  transactionId: number;
  sku?: string | null;
  title?: string;
  quantity: number;
  /** Unit price in cents. */
  price: number;
  shopCoupon?: number;
  shippingMethod?: string;
}

export interface SampleReceipt {
  receiptId: number;
  created: Date;
  updated?: Date;
  transactions: SampleTransaction[];
  status?: "paid" | "completed" | "open" | "payment processing" | "canceled" | "fully refunded" | "partially refunded";
  /** Cents. */
  tax?: number;
  shipping?: number;
  discount?: number;
  currency?: string;
  countryIso?: string;
  name?: string;
  buyerEmail?: string | null;
}

export const money = (cents: number, currency = "USD"): EtsyMoney => ({ amount: cents, divisor: 100, currency_code: currency });

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

export function sampleReceipt(r: SampleReceipt): EtsyReceipt {
  const currency = r.currency ?? "USD";
  const status = r.status ?? "paid";
  const created = seconds(r.created);
  const updated = seconds(r.updated ?? r.created);
  const totalPrice = r.transactions.reduce((sum, t) => sum + t.price * t.quantity, 0);
  const discount = r.discount ?? 0;
  const tax = r.tax ?? 0;
  const shipping = r.shipping ?? 0;
  const transactions: EtsyTransaction[] = r.transactions.map(
    (t) =>
      ({
        transaction_id: t.transactionId,
        title: t.title ?? `Listing ${t.transactionId}`,
        seller_user_id: 5_000_001,
        buyer_user_id: 7_000_000 + (r.receiptId % 1000),
        create_timestamp: created,
        created_timestamp: created,
        paid_timestamp: status === "open" ? null : created,
        shipped_timestamp: null,
        quantity: t.quantity,
        receipt_id: r.receiptId,
        is_digital: false,
        listing_id: 900_000_000 + t.transactionId,
        transaction_type: "listing",
        product_id: 800_000_000 + t.transactionId,
        sku: t.sku === undefined ? `SKU-${t.transactionId}` : t.sku,
        price: money(t.price, currency),
        shipping_cost: money(0, currency),
        variations: [],
        shipping_method: t.shippingMethod ?? "Standard Shipping",
        shipping_upgrade: null,
        buyer_coupon: 0,
        shop_coupon: (t.shopCoupon ?? 0) / 100,
      }) as EtsyTransaction,
  );
  return {
    receipt_id: r.receiptId,
    receipt_type: 0,
    seller_user_id: 5_000_001,
    seller_email: "seller@example.com",
    buyer_user_id: 7_000_000 + (r.receiptId % 1000),
    buyer_email: r.buyerEmail === undefined ? `buyer${r.receiptId}@example.com` : r.buyerEmail,
    name: r.name ?? "Ada Lovelace",
    first_line: "12 Analytical Row",
    second_line: "Apt 3",
    city: "Hudson",
    state: "NY",
    zip: "12534",
    status,
    formatted_address: `${r.name ?? "Ada Lovelace"}\n12 Analytical Row\nApt 3\nHudson, NY 12534\nUnited States`,
    country_iso: r.countryIso ?? "US",
    payment_method: "cc",
    payment_email: "",
    message_from_seller: null,
    message_from_buyer: null,
    message_from_payment: null,
    is_paid: status !== "open" && status !== "payment processing",
    is_shipped: status === "completed",
    create_timestamp: created,
    created_timestamp: created,
    update_timestamp: updated,
    updated_timestamp: updated,
    is_gift: false,
    gift_message: "",
    grandtotal: money(totalPrice - discount + tax + shipping, currency),
    subtotal: money(totalPrice - discount, currency),
    total_price: money(totalPrice, currency),
    total_shipping_cost: money(shipping, currency),
    total_tax_cost: money(tax, currency),
    total_vat_cost: money(0, currency),
    discount_amt: money(discount, currency),
    gift_wrap_price: money(0, currency),
    shipments: [],
    transactions,
    refunds: [],
  } as EtsyReceipt;
}
