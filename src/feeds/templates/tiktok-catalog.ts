// TikTok catalogs (Video Shopping Ads and TikTok Shop catalogs in TikTok Ads Manager): the data
// feed file. Field list from TikTok's published "Catalog Product Parameters"
// (https://ads.tiktok.com/help/article/catalog-product-parameters): 9 required fields, sku_id,
// title, description, availability (`in stock`, `available for order`, `preorder`, `out of stock`,
// `discontinued`), condition (`new`, `refurbished`, `used`), price, link, image_link and brand;
// "You will receive an error message if any of the required fields are missing". Titles hold
// "only valid unicode characters, avoid ... control, function characters or emoji".
// The part of that page that gives price's format could not be read here; price is written as
// the other channels write it (`12.50 USD`). None of the optional fields that could be read is a
// quantity, so this template has no quantity column.
import { CONDITIONS, GTIN_DIGITS, conditionOf, requireOneOf, requireUrl, spacedAvailability, type FeedTemplate } from "./template";

export const TIKTOK_AVAILABILITY = ["in stock", "available for order", "preorder", "out of stock", "discontinued"] as const;

const EMOJI = /\p{Extended_Pictographic}/u;

export const tiktokCatalog: FeedTemplate = {
  name: "tiktok-catalog",
  label: "TikTok",
  columns: [
    { header: "sku_id", field: "Sku" },
    { header: "title", field: "Title" },
    { header: "description", field: "Description" },
    { header: "availability", field: "Availability" },
    { header: "condition", field: "Condition" },
    { header: "price", field: "Price" },
    { header: "link", field: "Link" },
    { header: "image_link", field: "ImageLink" },
    { header: "brand", field: "Brand" },
    { header: "gtin", field: "Gtin" },
  ],
  reader(field) {
    switch (field.toLowerCase()) {
      case "availability":
        return spacedAvailability;
      case "condition":
        return conditionOf;
      default:
        return undefined;
    }
  },
  check(p) {
    const errors: string[] = [];
    const warnings: string[] = [];
    if (!p.title) errors.push("title is required");
    else if (EMOJI.test(p.title)) warnings.push("title should not hold emoji");
    if (!p.description) errors.push("description is required");
    requireOneOf(errors, "availability", p.availability ? spacedAvailability(p) : "", TIKTOK_AVAILABILITY);
    requireOneOf(errors, "condition", conditionOf(p), CONDITIONS);
    if (p.price == null) errors.push("price is required");
    else if (!(p.price > 0)) errors.push("price must be a positive number");
    requireUrl(errors, "link", p.link);
    requireUrl(errors, "image_link", p.imageLink);
    if (!p.brand) errors.push("brand is required");
    if (p.gtin && !GTIN_DIGITS.test(p.gtin)) warnings.push("gtin should be 8, 12, 13 or 14 digits");
    return { errors, warnings };
  },
};
