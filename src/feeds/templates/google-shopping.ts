// A channel template: the columns a feed emits when it names none, and the rules that decide
// which products the channel would refuse (errors: the row is left out) or accept with a
// complaint (warnings: the row is kept). Google Shopping's header is fixed by decisions 7.
import type { ProductRow } from "../../db/schema";
import type { FeedColumn } from "../product-fields";
import { productValue } from "../product-fields";

export interface Verdict {
  errors: string[];
  warnings: string[];
}

export interface FeedTemplate {
  name: string;
  columns: FeedColumn[];
  check(product: ProductRow): Verdict;
}

export const GOOGLE_AVAILABILITY = ["in_stock", "out_of_stock", "preorder", "backorder"] as const;
const TITLE_MAX = 150;

function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

export const googleShopping: FeedTemplate = {
  name: "google-shopping",
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
    for (const [name, value] of [["link", p.link], ["image_link", p.imageLink]] as const) {
      if (!value) errors.push(`${name} is required`);
      else if (!isAbsoluteHttpUrl(value)) errors.push(`${name} must be an absolute http(s) URL`);
    }
    if (p.price == null) errors.push("price is required");
    else if (!(p.price > 0)) errors.push("price must be a positive number");
    if (!p.availability) errors.push("availability is required");
    else if (!(GOOGLE_AVAILABILITY as readonly string[]).includes(productValue(p, "Availability")))
      errors.push(`availability must be one of ${GOOGLE_AVAILABILITY.join(", ")}`);
    if (!p.brand) warnings.push("brand is recommended");
    if (!p.gtin) warnings.push("gtin is recommended");
    else if (!/^(\d{8}|\d{12,14})$/.test(p.gtin)) warnings.push("gtin should be 8, 12, 13 or 14 digits");
    return { errors, warnings };
  },
};

/** No channel: every product is written as it is. */
export const plain: FeedTemplate = {
  name: "none",
  columns: googleShopping.columns,
  check: () => ({ errors: [], warnings: [] }),
};

export const TEMPLATES: Record<string, FeedTemplate> = { "google-shopping": googleShopping, none: plain };
