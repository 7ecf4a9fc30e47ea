// Meta (Facebook and Instagram) catalogs: the CSV/TSV data feed of a Commerce Manager catalog.
// Field list from Meta's published pages:
// - Catalog reference, supported fields and feed formats:
//   https://developers.facebook.com/docs/marketing-api/catalog/reference
// - Commerce catalog fields: https://developers.facebook.com/docs/commerce-platform/catalog/fields
// - Quantity to sell: https://developers.facebook.com/docs/commerce-platform/catalog/quantity-to-sell
//   (`quantity_to_sell_on_facebook` replaces the deprecated `inventory`; an item without it
//   cannot be tagged or bought with checkout, but still serves Advantage+ catalog ads)
// - The required fields with their limits, as productfeedspec.com/platforms/meta-catalog lists
//   them: id (at most 100 characters), title (200), description (9,999, plain text), availability
//   (`in stock`, `out of stock`, ... with spaces, unlike Google), condition (`new`,
//   `refurbished`, `used`), price (`129.99 USD`), link, image_link, brand (100).
import {
  CONDITIONS,
  GTIN_DIGITS,
  HTML_TAG,
  conditionOf,
  longerThan,
  quantityOf,
  requireOneOf,
  requireText,
  requireUrl,
  spacedAvailability,
  type FeedTemplate,
} from "./template";

export const META_AVAILABILITY = ["in stock", "out of stock", "preorder", "available for order", "discontinued"] as const;

export const metaCatalog: FeedTemplate = {
  name: "meta-catalog",
  label: "Meta (Facebook and Instagram)",
  columns: [
    { header: "id", field: "Sku" },
    { header: "title", field: "Title" },
    { header: "description", field: "Description" },
    { header: "availability", field: "Availability" },
    { header: "condition", field: "Condition" },
    { header: "price", field: "Price" },
    { header: "link", field: "Link" },
    { header: "image_link", field: "ImageLink" },
    { header: "brand", field: "Brand" },
    { header: "gtin", field: "Gtin" },
    { header: "quantity_to_sell_on_facebook", field: "Quantity" },
  ],
  reader(field) {
    switch (field.toLowerCase()) {
      case "availability":
        return spacedAvailability;
      case "condition":
        return conditionOf;
      case "quantity":
        return quantityOf;
      default:
        return undefined;
    }
  },
  check(p) {
    const errors: string[] = [];
    const warnings: string[] = [];
    if (longerThan(p.sku, 100)) errors.push("id is longer than 100 characters");
    requireText(errors, "title", p.title, 200);
    requireText(errors, "description", p.description, 9999);
    if (p.description && HTML_TAG.test(p.description)) warnings.push("description should be plain text, without HTML");
    requireOneOf(errors, "availability", p.availability ? spacedAvailability(p) : "", META_AVAILABILITY);
    requireOneOf(errors, "condition", conditionOf(p), CONDITIONS);
    if (p.price == null) errors.push("price is required");
    else if (!(p.price > 0)) errors.push("price must be a positive number");
    requireUrl(errors, "link", p.link);
    requireUrl(errors, "image_link", p.imageLink);
    // Meta's best practices ask for "gtin or mpn plus brand": a product with neither brand nor
    // gtin cannot be matched; the catalog has no mpn.
    if (!p.brand && !p.gtin) errors.push("brand is required (or a gtin)");
    else if (p.brand && longerThan(p.brand, 100)) errors.push("brand is longer than 100 characters");
    if (p.gtin && !GTIN_DIGITS.test(p.gtin)) warnings.push("gtin should be 8, 12, 13 or 14 digits");
    const quantity = quantityOf(p);
    if (quantity === "") warnings.push("quantity_to_sell_on_facebook is needed to sell with checkout");
    else if (!/^\d+$/.test(quantity)) errors.push("quantity_to_sell_on_facebook must be a whole number of 0 or more");
    return { errors, warnings };
  },
};
