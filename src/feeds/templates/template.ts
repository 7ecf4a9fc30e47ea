// What a channel template is (the columns a feed emits when it names none, the rules that decide
// which products the channel would refuse or accept with a complaint, and how the channel spells
// a value), and the checks several channels' published field lists share (a gtin's check digit too).
import { isValid as isValidGtin } from "gtin";
import type { ProductRow } from "../../db/schema";
import { productValue, type FeedColumn } from "../../products/product-fields";

export interface Verdict {
  /** The channel would refuse the product: its row is left out of the file. */
  errors: string[];
  /** The channel takes the product with a complaint: its row is written. */
  warnings: string[];
}

export interface FeedTemplate {
  name: string;
  /** The channel as an operator knows it (the console's choice of template). */
  label: string;
  columns: FeedColumn[];
  check(product: ProductRow): Verdict;
  /**
   * How this channel writes a field, when it differs from the catalog's own spelling (Meta's
   * `in stock` for the catalog's `in_stock`); undefined keeps productValue. Asked once per
   * column of a compile, so the per-row work is one call.
   */
  reader?(field: string): ((product: ProductRow) => string) | undefined;
}

/** The reader of each column: the template's own spelling, else the catalog's value. */
export function columnReaders(template: FeedTemplate, columns: FeedColumn[]): ((product: ProductRow) => string)[] {
  return columns.map(({ field }) => template.reader?.(field) ?? ((p: ProductRow) => productValue(p, field)));
}

/**
 * The shape nearly every catalog URL has, which WHATWG URL parsing always accepts with a host:
 * dot-separated labels of letters, digits and inner hyphens, the last starting with a letter (so
 * never an IPv4 address), none an IDNA `xn--` label, no port, then nothing or a path of printable
 * ASCII. Such a value needs no parse; anything else is parsed (test/feeds/url-check.test.ts holds
 * the two to the same answers).
 */
const PLAIN_HTTP_URL =
  /^https?:\/\/(?!xn--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.(?!xn--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.(?!xn--)[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\/[!-~]*)?$/i;

export function isAbsoluteHttpUrl(value: string): boolean {
  if (PLAIN_HTTP_URL.test(value)) return true;
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * An extra column of the product's import (kept in `attributes`), found without regard to case:
 * a catalog may call it `condition`, `Condition` or `CONDITION`.
 */
export function attributeValue(p: ProductRow, name: string): string {
  if (!p.attributes) return "";
  const wanted = name.toLowerCase();
  for (const key of Object.keys(p.attributes)) {
    if (key.toLowerCase() === wanted) return p.attributes[key]!.trim();
  }
  return "";
}

export const CONDITIONS = ["new", "refurbished", "used"] as const;

/**
 * The product's condition for the channels that require one (Meta, TikTok). The catalog has no
 * Condition field; a catalog that carries a `condition` column keeps it as an extra column, and
 * a product without one is `new`, as Google assumes for a product that states none.
 */
export function conditionOf(p: ProductRow): string {
  return attributeValue(p, "condition").toLowerCase() || "new";
}

/**
 * The product's quantity as the catalog holds it: the Quantity field, or, in a catalog imported
 * before that field existed, an extra column of that name. "" when the product states none.
 */
export function quantityOf(p: ProductRow): string {
  return productValue(p, "Quantity").trim() || attributeValue(p, "Quantity");
}

/** Catalog availability (`in_stock`, `backorder`, ...) spelled with spaces, as Meta and TikTok list it. */
export function spacedAvailability(p: ProductRow): string {
  const value = productValue(p, "Availability");
  // Google's backorder (orders taken, shipped later) is what Meta and TikTok call available for order.
  return value === "backorder" ? "available for order" : value.replace(/_/g, " ");
}

/**
 * Whether text has more than `max` characters (code points, as the channels count them). Only
 * text longer in UTF-16 units can be, so most values are decided without splitting them.
 */
export function longerThan(value: string, max: number): boolean {
  return value.length > max && [...value].length > max;
}

/** Checks shared by the channels: required text with a length limit. */
export function requireText(errors: string[], name: string, value: string | null, max: number): void {
  if (!value) errors.push(`${name} is required`);
  else if (longerThan(value, max)) errors.push(`${name} is longer than ${max} characters`);
}

/** A required absolute http(s) URL (the catalog already holds URLs to 2,000 characters). */
export function requireUrl(errors: string[], name: string, value: string | null): void {
  if (!value) errors.push(`${name} is required`);
  else if (!isAbsoluteHttpUrl(value)) errors.push(`${name} must be an absolute http(s) URL`);
}

/** A value that must be one of a channel's words. */
export function requireOneOf(errors: string[], name: string, value: string, allowed: readonly string[]): void {
  if (!value) errors.push(`${name} is required`);
  else if (!allowed.includes(value)) errors.push(`${name} must be one of ${allowed.join(", ")}`);
}

export const GTIN_DIGITS = /^(\d{8}|\d{12,14})$/;

/**
 * Google's check of a gtin (and so Microsoft's, which follows it): 8, 12, 13 or 14 digits whose
 * last is the GS1 check digit of the others (the `gtin` package computes it); a typo in any digit
 * fails it. Null when the gtin passes.
 */
export function gtinProblem(gtin: string): string | null {
  if (!GTIN_DIGITS.test(gtin)) return "gtin should be 8, 12, 13 or 14 digits";
  if (!isValidGtin(gtin)) return "gtin's check digit is wrong (its last digit does not match the others, so Google refuses it as an identifier)";
  return null;
}

/** Markup in a text the channels take as plain text only. */
export const HTML_TAG = /<\/?[a-z][^>]*>/i;
