// Google Shopping: the default template. Its header row is fixed by decisions 7 (the interface's
// one public client reads `id`); the rules follow Google's product data specification: title,
// description, link, image_link, price and availability required, URLs absolute, price with its
// currency (`12.50 USD`), availability one of Google's four words, a gtin whose check digit is right.
import { productValue } from "../../products/product-fields";
import { gtinProblem, isAbsoluteHttpUrl, type FeedTemplate } from "./template";

export const GOOGLE_AVAILABILITY = ["in_stock", "out_of_stock", "preorder", "backorder"] as const;
const TITLE_MAX = 150;

export const googleShopping: FeedTemplate = {
  name: "google-shopping",
  label: "Google Shopping",
  columns: [
    { header: "id", field: "Sku" },
    { header: "title", field: "Title" },
    { header: "description", field: "Description" },
    { header: "link", field: "Link" },
    { header: "image_link", field: "ImageLink" },
    { header: "price", field: "Price" },
    { header: "availability", field: "Availability" },
    { header: "brand", field: "Brand" },
    { header: "gtin", field: "Gtin" },
  ],
  check(p) {
    const errors: string[] = [];
    const warnings: string[] = [];
    if (!p.title) errors.push("title is required");
    else if (p.title.length > TITLE_MAX) warnings.push(`title is longer than ${TITLE_MAX} characters`);
    if (!p.description) errors.push("description is required");
    if (!p.link) errors.push("link is required");
    else if (!isAbsoluteHttpUrl(p.link)) errors.push("link must be an absolute http(s) URL");
    if (!p.imageLink) errors.push("image_link is required");
    else if (!isAbsoluteHttpUrl(p.imageLink)) errors.push("image_link must be an absolute http(s) URL");
    if (p.price == null) errors.push("price is required");
    else if (!(p.price > 0)) errors.push("price must be a positive number");
    if (!p.availability) errors.push("availability is required");
    else if (!(GOOGLE_AVAILABILITY as readonly string[]).includes(productValue(p, "Availability")))
      errors.push(`availability must be one of ${GOOGLE_AVAILABILITY.join(", ")}`);
    if (!p.brand) warnings.push("brand is recommended");
    if (!p.gtin) warnings.push("gtin is recommended");
    else {
      const problem = gtinProblem(p.gtin);
      if (problem) warnings.push(problem);
    }
    return { errors, warnings };
  },
};
