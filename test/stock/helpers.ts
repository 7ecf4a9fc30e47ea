// Stock for the stock tests and each marketplace's stock tests: the catalog through the admin API,
// Quantity read back as an operator sees it, a source's listings as the operator's route answers them.
import { expect } from "vitest";
import { admin, call } from "../helpers/api";

export async function putStock(storeId: string, products: { Sku: string; Quantity?: number | null; Price?: number; [field: string]: unknown }[]) {
  const res = await admin("PUT", `/stores/${storeId}/products`, { Products: products.map((p) => ({ Title: `Product ${p.Sku}`, Price: 10, ...p })) });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** The product's Quantity as GET /admin/v1/stores/:storeId/products/:sku shows it. */
export async function quantityOf(storeId: string, sku: string): Promise<number | null> {
  const res = await admin("GET", `/stores/${storeId}/products/${encodeURIComponent(sku)}`);
  expect(res.status, res.text).toBe(200);
  return (res.json.Product as { Quantity: number | null }).Quantity;
}

export async function quantities(storeId: string, skus: string[]): Promise<Record<string, number | null>> {
  const out: Record<string, number | null> = {};
  for (const sku of skus) out[sku] = await quantityOf(storeId, sku);
  return out;
}

export function putInventory(token: string, items: unknown[]) {
  return call("PUT", `/v1/${token}/Inventory`, { body: { Items: items } });
}

/** One Sku of a source's listings, as GET /admin/v1/stores/:storeId/sources/:sourceId/listings answers it. */
export interface Listing {
  Sku: string;
  Status: string;
  AcceptedQuantity: number | null;
  AcceptedPrice: number | null;
  PendingQuantity: number | null;
  Submission: string | null;
  LastError: string | null;
  Attempts: number;
}

/** A source's listings (200 asserted), `query` appended as given ("?sku=A", "?limit=500"). */
export async function listings(storeId: string, sourceId: string, query = "") {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}/listings${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as unknown as { Push: string; Counts: Record<string, number>; Listings: Listing[]; NextAfter: string | null };
}
