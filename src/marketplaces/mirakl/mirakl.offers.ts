// An offer as OF21 reads it, written back as OF24 takes it with a new price (and quantity).
// Pure. OF24's description warns that "Offer fields that are not sent are reset to their default
// value" (an omitted quantity becomes 0, an omitted description or discount is deleted), so
// every field OF24 takes that OF21 answers is copied back as it was read.
import type { ListingUpdate } from "../connector";
import type { MiraklOffer, MiraklOfferUpdate } from "./mirakl.types";

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/** Drops the fields left undefined, so none is sent as null. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * OF24's offer for `update` from the offer as read. The product is named by its Mirakl product
 * SKU with product_id_type "SKU" (the form the description's OF03 example shows); the default
 * price is the new price, in `price` and in all_prices' default entry (channel_code null) with
 * its quantity-one volume price, so the old one sent back cannot win. Channel prices, discounts,
 * volume prices above one, custom fields and the rest go back unchanged.
 */
export function offerUpdate(offer: MiraklOffer, update: ListingUpdate): MiraklOfferUpdate {
  const price = update.price ?? num(offer.price) ?? 0;
  const newPrice = update.price !== null;
  const discount = offer.discount;
  return defined<MiraklOfferUpdate>({
    shop_sku: update.sku,
    product_id: offer.product_sku ?? "",
    product_id_type: "SKU",
    price,
    quantity: update.quantity ?? int(offer.quantity) ?? 0,
    state_code: offer.state_code ?? "",
    update_delete: "update",
    description: str(offer.description),
    internal_description: str(offer.internal_description),
    price_additional_info: str(offer.price_additional_info),
    leadtime_to_ship: int(offer.leadtime_to_ship),
    logistic_class: str(offer.logistic_class?.code),
    max_order_quantity: int(offer.max_order_quantity),
    min_order_quantity: int(offer.min_order_quantity),
    min_quantity_alert: int(offer.min_quantity_alert),
    package_quantity: int(offer.package_quantity),
    available_started: str(offer.available_start_date),
    available_ended: str(offer.available_end_date),
    allow_quote_requests: typeof offer.allow_quote_requests === "boolean" ? offer.allow_quote_requests : undefined,
    product_tax_code: str(offer.product_tax_code),
    msrp: num(offer.msrp),
    discount:
      discount && (num(discount.discount_price) !== undefined || (discount.ranges?.length ?? 0) > 0)
        ? defined({
            price: num(discount.discount_price),
            start_date: str(discount.start_date),
            end_date: str(discount.end_date),
            ranges: discount.ranges?.length
              ? discount.ranges.flatMap((r) =>
                  num(r.price) !== undefined && int(r.quantity_threshold) !== undefined ? [{ price: r.price!, quantity_threshold: r.quantity_threshold! }] : [],
                )
              : undefined,
          })
        : undefined,
    all_prices: offer.all_prices?.length
      ? offer.all_prices.map((p) => {
          const isDefault = p.channel_code === null || p.channel_code === undefined || p.channel_code === "";
          return defined({
            channel_code: isDefault ? null : p.channel_code!,
            discount_start_date: str(p.discount_start_date) ?? null,
            discount_end_date: str(p.discount_end_date) ?? null,
            unit_discount_price: num(p.unit_discount_price),
            unit_origin_price: isDefault && newPrice ? price : num(p.unit_origin_price),
            volume_prices: p.volume_prices?.length
              ? p.volume_prices.flatMap((v) => {
                  const threshold = int(v.quantity_threshold);
                  const origin = isDefault && newPrice && threshold === 1 ? price : num(v.unit_origin_price);
                  return threshold !== undefined && origin !== undefined
                    ? [defined({ quantity_threshold: threshold, unit_discount_price: num(v.unit_discount_price), unit_origin_price: origin })]
                    : [];
                })
              : undefined,
          });
        })
      : undefined,
    offer_additional_fields: offer.offer_additional_fields?.length
      ? offer.offer_additional_fields.flatMap((f) => (str(f.code) ? [defined({ code: f.code!, type: str(f.type), value: f.value })] : []))
      : undefined,
    eco_contributions: offer.eco_contributions?.length
      ? offer.eco_contributions.flatMap((e) =>
          str(e.epr_category_code)
            ? [defined({ eco_contribution_amount: num(e.eco_contribution_amount), epr_category_code: e.epr_category_code!, producer_id: str(e.producer_id) })]
            : [],
        )
      : undefined,
    retail_prices: offer.retail_prices?.length
      ? offer.retail_prices.map((r) =>
          defined({
            discount_start_date: str(r.discount_start_date) ?? null,
            discount_end_date: str(r.discount_end_date) ?? null,
            unit_discount_price: num(r.unit_discount_price),
            unit_origin_price: num(r.unit_origin_price),
          }),
        )
      : undefined,
  });
}

/** Why an offer read by OF21 cannot take `update` through OF24; null when it can. */
export function offerProblem(offer: MiraklOffer, update: ListingUpdate): string | null {
  if (!str(offer.product_sku)) return `Mirakl's offer ${update.sku} has no product_sku to name its product`;
  if (!str(offer.state_code)) return `Mirakl's offer ${update.sku} has no state_code`;
  if (offer.currency_iso_code && offer.currency_iso_code !== update.currency) {
    return `the shop sells in ${offer.currency_iso_code} and the product's price is in ${update.currency}`;
  }
  return null;
}
