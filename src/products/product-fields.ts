// A product as the catalog import receives it and as a feed column reads it. Field names are
// the wire's (PascalCase); an import's column names match them without regard to case, spaces
// or underscores (`image_link`, `Image Link`, `ImageLink`); any other column is kept as an
// attribute a feed's Columns may name.
import { z } from "zod";
import type { ProductRow } from "../db/schema";
import { describeIssues, loneSurrogatePath } from "../http/validate";
import { toWireDate, wireDate } from "../lib/dates";

export interface FeedColumn {
  header: string;
  field: string;
}

export const PRODUCT_FIELDS = [
  "Sku",
  "Title",
  "Description",
  "Link",
  "ImageLink",
  "Price",
  "PriceAmount",
  "Currency",
  "Availability",
  "Brand",
  "Gtin",
  "Quantity",
] as const;

export const DEFAULT_CURRENCY = "USD";
const MAX_ATTRIBUTES = 50;

const canonical = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, "");
const FIELD_BY_CANONICAL = new Map(PRODUCT_FIELDS.map((f) => [canonical(f), f]));

/** The catalog field a column or import header names, or null for an attribute. */
export function knownField(name: string): (typeof PRODUCT_FIELDS)[number] | null {
  return FIELD_BY_CANONICAL.get(canonical(name)) ?? null;
}

/** What a column emits for a product: always a string, "" when absent. */
export function productValue(p: ProductRow, field: string): string {
  switch (field) {
    case "Sku":
      return p.sku;
    case "Title":
      return p.title ?? "";
    case "Description":
      return p.description ?? "";
    case "Link":
      return p.link ?? "";
    case "ImageLink":
      return p.imageLink ?? "";
    case "Price":
      return p.price == null ? "" : `${p.price.toFixed(2)} ${p.currency ?? DEFAULT_CURRENCY}`;
    case "PriceAmount":
      return p.price == null ? "" : p.price.toFixed(2);
    case "Currency":
      return p.currency ?? DEFAULT_CURRENCY;
    case "Availability":
      // "In Stock", "in-stock" and "in_stock" are one value to a channel.
      if (!p.availability) return "";
      // Already spelled so (the common case): nothing to normalize.
      return /^[a-z_]+$/.test(p.availability)
        ? p.availability
        : p.availability
            .trim()
            .toLowerCase()
            .replace(/[\s-]+/g, "_");
    case "Brand":
      return p.brand ?? "";
    case "Gtin":
      return p.gtin ?? "";
    case "Quantity":
      return p.quantity == null ? "" : String(p.quantity);
    default:
      // Own keys only: a column named 'constructor' or '__proto__' is an attribute like any other.
      return p.attributes && Object.hasOwn(p.attributes, field) ? p.attributes[field]! : "";
  }
}

const text = (max: number) =>
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine((v) => v.length <= max, { error: `must be at most ${max} characters` })
    .nullish()
    .transform((v) => (v ? v : null));

const productSchema = z.object({
  Sku: z
    .union([z.string(), z.number()], { error: "must be a string or a number" })
    .transform((v) => String(v).trim())
    .refine((v) => v.length >= 1, { error: "must not be empty" })
    .refine((v) => v.length <= 100, { error: "must be at most 100 characters" })
    .refine((v) => !/[\u0000-\u001f]/.test(v), { error: "must not hold control characters" }),
  Title: text(1000),
  Description: text(10_000),
  Link: text(2000),
  ImageLink: text(2000),
  Price: z
    .union([z.number(), z.string()])
    .nullish()
    .transform((v, ctx) => {
      if (v == null || (typeof v === "string" && v.trim() === "")) return null;
      // A catalog may write the price with its currency ("12.50 USD"); the amount is what counts.
      const amount = typeof v === "number" ? "" : (/^(-?\d+(?:\.\d+)?)(?:\s*[A-Za-z]{3})?$/.exec(v.trim())?.[1] ?? "");
      const n = typeof v === "number" ? v : amount === "" ? NaN : Number(amount);
      if (!Number.isFinite(n) || Math.abs(n) > 1e12) {
        ctx.addIssue({ code: "custom", message: `'${String(v).slice(0, 40)}' is not a number` });
        return z.NEVER;
      }
      return n;
    }),
  Currency: z
    .string()
    .nullish()
    .transform((v, ctx) => {
      const code = v?.trim().toUpperCase();
      if (!code) return null;
      if (!/^[A-Z]{3}$/.test(code)) {
        ctx.addIssue({ code: "custom", message: `'${v!.slice(0, 20)}' is not a three-letter ISO 4217 code` });
        return z.NEVER;
      }
      return code;
    }),
  Availability: text(50),
  Brand: text(200),
  Gtin: text(50),
  // Absent or empty: the import leaves the stock as it is (src/feeds/catalog.ts).
  Quantity: z
    .union([z.number(), z.string()])
    .nullish()
    .transform((v, ctx) => {
      if (v == null || (typeof v === "string" && v.trim() === "")) return null;
      const n = typeof v === "number" ? v : /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
      if (!Number.isSafeInteger(n) || n < 0 || n > 1e9) {
        ctx.addIssue({ code: "custom", message: `'${String(v).slice(0, 40)}' is not a whole number from 0 to 1000000000` });
        return z.NEVER;
      }
      return n;
    }),
});

export type ProductInput = Omit<ProductRow, "storeId" | "updatedAt" | "stockSeq">;

/**
 * One record of an import (JSON object or CSV row by header) to a catalog row, or the reason it
 * cannot be stored. Channel rules (required values, positive price) are not checked here: they
 * belong to each feed, and a product missing a title is still part of the catalog.
 */
export function parseProduct(record: Record<string, unknown>): { ok: true; product: ProductInput } | { ok: false; message: string } {
  // Stored text must read back as sent: a lone UTF-16 surrogate cannot be stored as UTF-8.
  const bad = loneSurrogatePath(record);
  if (bad) return { ok: false, message: `'${String(bad[0]).slice(0, 40)}' is not valid Unicode text (it holds an unpaired surrogate)` };
  const known: Record<string, unknown> = {};
  const attributes: Record<string, string> = {};
  let attributeCount = 0;
  for (const [name, value] of Object.entries(record)) {
    const field = knownField(name);
    if (field === "PriceAmount") known.Price ??= value;
    else if (field) known[field] = value;
    else if (value !== null && value !== undefined && value !== "") {
      if (typeof value === "object") return { ok: false, message: `'${name.slice(0, 40)}' must be a string or a number` };
      const s = String(value);
      if (s.length > 2000) return { ok: false, message: `'${name.slice(0, 40)}' must be at most 2000 characters` };
      if (++attributeCount > MAX_ATTRIBUTES) return { ok: false, message: `a product may carry at most ${MAX_ATTRIBUTES} extra columns` };
      // defineProperty, not assignment: a column named '__proto__' is kept like any other.
      Object.defineProperty(attributes, name.slice(0, 100), { value: s, enumerable: true, writable: true, configurable: true });
    }
  }
  if (known.Sku === undefined || known.Sku === null) return { ok: false, message: "'Sku' is required" };
  const parsed = productSchema.safeParse(known);
  if (!parsed.success) return { ok: false, message: describeIssues(parsed.error.issues as z.core.$ZodIssue[], "json") };
  const v = parsed.data;
  return {
    ok: true,
    product: {
      sku: v.Sku,
      title: v.Title,
      description: v.Description,
      link: v.Link,
      imageLink: v.ImageLink,
      price: v.Price,
      currency: v.Currency,
      availability: v.Availability,
      brand: v.Brand,
      gtin: v.Gtin,
      quantity: v.Quantity,
      attributes: attributeCount > 0 ? attributes : null,
    },
  };
}

/** A product as the operator's API shows it. */
export const adminProduct = z.object({
  Sku: z.string(),
  Title: z.string().nullable(),
  Description: z.string().nullable(),
  Link: z.string().nullable(),
  ImageLink: z.string().nullable(),
  Price: z.number().nullable(),
  Currency: z.string().nullable(),
  Availability: z.string().nullable(),
  Brand: z.string().nullable(),
  Gtin: z.string().nullable(),
  Quantity: z.number().int().nullable().describe("Units on the shelf; null: not tracked (decisions 11)."),
  Attributes: z.record(z.string(), z.string()).nullable(),
  DateUpdated: wireDate,
});

export function toAdminProduct(p: ProductRow): z.infer<typeof adminProduct> {
  return {
    Sku: p.sku,
    Title: p.title,
    Description: p.description,
    Link: p.link,
    ImageLink: p.imageLink,
    Price: p.price,
    Currency: p.currency,
    Availability: p.availability,
    Brand: p.brand,
    Gtin: p.gtin,
    Quantity: p.quantity,
    Attributes: p.attributes,
    DateUpdated: toWireDate(p.updatedAt)!,
  };
}
