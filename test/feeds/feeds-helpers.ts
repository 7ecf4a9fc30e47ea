// Catalog and feed setup through the admin API, as an operator would do it.
import type { z } from "zod";
import type { ProductRow } from "../../src/db/schema";
import type { adminFeed } from "../../src/feeds/feeds.wire";
import { admin, call, ADMIN_KEY } from "../helpers/api";

export function product(sku: string, overrides: Record<string, unknown> = {}) {
  return {
    Sku: sku,
    Title: `Product ${sku}`,
    Description: `The description of ${sku}`,
    Link: `https://shop.example/p/${sku}`,
    ImageLink: `https://cdn.example/i/${sku}.jpg`,
    Price: 12.5,
    Currency: "USD",
    Availability: "in_stock",
    Brand: "Acme",
    Gtin: "4006381333931",
    ...overrides,
  };
}

/** Upserts in requests of 1,000 products: a JSON catalog request is capped at 16 MiB. */
export async function putProducts(storeId: string, products: unknown[]) {
  let last: Awaited<ReturnType<typeof admin>>["json"] | undefined;
  for (let i = 0; i === 0 || i < products.length; i += 1000) {
    const res = await admin("PUT", `/stores/${storeId}/products`, { Products: products.slice(i, i + 1000) });
    if (res.status !== 200) throw new Error(`putProducts: ${res.status} ${res.text}`);
    last = res.json;
  }
  return last!;
}

export async function putCsv(storeId: string, csv: string) {
  return call("PUT", `/admin/v1/stores/${storeId}/products`, {
    raw: csv,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv" },
  });
}

export type AdminFeed = z.input<typeof adminFeed>;

export async function createFeed(storeId: string, body: Record<string, unknown> = {}) {
  const res = await admin("POST", `/stores/${storeId}/feeds`, { Name: "Google US", Format: "csv", ...body });
  if (res.status !== 200) throw new Error(`createFeed: ${res.status} ${res.text}`);
  return res.json.Feed as AdminFeed;
}

export async function compile(feedId: string) {
  const res = await admin("POST", `/feeds/${feedId}/compile`);
  if (res.status !== 200) throw new Error(`compile: ${res.status} ${res.text}`);
  return res.json.Feed as AdminFeed;
}

/** A catalog row as the compile reads it from D1 (for the modules tested without the API). */
export function productRow(sku: string, overrides: Partial<ProductRow> = {}): ProductRow {
  return {
    storeId: "store-test",
    sku,
    title: `Product ${sku}`,
    description: `The description of ${sku}`,
    link: `https://shop.example/p/${sku}`,
    imageLink: `https://cdn.example/i/${sku}.jpg`,
    price: 12.5,
    currency: "USD",
    availability: "in_stock",
    brand: "Acme",
    quantity: null,
    stockSeq: null,
    gtin: "4006381333931",
    attributes: null,
    updatedAt: 0,
    ...overrides,
  };
}
