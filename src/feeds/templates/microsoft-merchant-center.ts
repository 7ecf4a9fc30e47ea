// Microsoft Merchant Center (Microsoft Shopping, Bing): the product feed file. Field list from
// Microsoft Advertising's published pages:
// - "How is the feed file organized?": https://help.ads.microsoft.com/apex/index/3/en-us/51084
//   Required: id (50 Unicode characters), title (150), link and image_link (http or https URLs,
//   2,000 characters), price, description (10,000, no HTML); shipping only for Austria and
//   Germany. brand, gtin (at most 14 digits), mpn and identifier_exists identify the product.
// - The price's format, as Microsoft's local product feed page states it
//   (https://help.ads.microsoft.com/apex/index/3/en/56857): "Numeric, 0.00 to 10000000.00 (10
//   million). Use two decimal places and no symbols", in the store's currency: so the amount
//   alone (`12.50`), not Google's `12.50 USD`.
// The online product feed has no quantity field (quantity is only in Microsoft's local
// inventory feeds), and availability and condition are optional there, so neither is a default
// column; a feed's own Columns may add them.
import { gtinProblem, HTML_TAG, longerThan, requireText, requireUrl, type FeedTemplate } from "./template";

const PRICE_MAX = 10_000_000;

export const microsoftMerchantCenter: FeedTemplate = {
  name: "microsoft-merchant-center",
  label: "Microsoft Merchant Center",
  columns: [
    { header: "id", field: "Sku" },
    { header: "title", field: "Title" },
    { header: "link", field: "Link" },
    { header: "price", field: "PriceAmount" },
    { header: "description", field: "Description" },
    { header: "image_link", field: "ImageLink" },
    { header: "brand", field: "Brand" },
    { header: "gtin", field: "Gtin" },
  ],
  check(p) {
    const errors: string[] = [];
    const warnings: string[] = [];
    if (longerThan(p.sku, 50)) errors.push("id is longer than 50 characters");
    requireText(errors, "title", p.title, 150);
    requireUrl(errors, "link", p.link);
    if (p.price == null) errors.push("price is required");
    else if (p.price < 0 || p.price > PRICE_MAX) errors.push("price must be from 0.00 to 10000000.00");
    // Microsoft allows 0.00 only for phones and tablets sold with a contract or instalments.
    else if (p.price === 0) warnings.push("price is 0.00, which Microsoft takes only for phones and tablets on contract");
    requireText(errors, "description", p.description, 10_000);
    if (p.description && HTML_TAG.test(p.description)) errors.push("description must not hold HTML");
    requireUrl(errors, "image_link", p.imageLink);
    if (!p.brand) warnings.push("brand is recommended");
    if (!p.gtin) warnings.push("gtin is recommended");
    else {
      const problem = gtinProblem(p.gtin);
      if (problem) warnings.push(problem);
    }
    return { errors, warnings };
  },
};
