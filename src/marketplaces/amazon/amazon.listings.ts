// Amazon stock and price (decisions 11), from the Listings Items API model
// (../shared/reference/amazon/listingsItems_2021-08-01.json): patchListingsItem, PATCH
// /listings/2021-08-01/items/{sellerId}/{sku}?marketplaceIds=X with `{productType: "PRODUCT",
// patches}`, one SKU a call, paced at the model's usage plan (5 calls/s, burst 5) by
// amazon.client.ts like every other operation.
//
// Chosen over the JSON_LISTINGS_FEED (25,000 SKUs a feed): the patch answers at once, so a SKU's
// outcome is known in the cycle that sent it; the feed's would need a "submitted" listing state
// checked in later cycles (docs/stock.md). The reference README's choices, kept: `merge` (the
// guide: updates `quantity` without resending restock date and lead time; it keeps an offer's
// other prices too), productType `PRODUCT` (stated by Amazon staff in GitHub issues only,
// UNCONFIRMED as policy), the source's first marketplace. ACCEPTED means Amazon took the
// submission for processing; INVALID (with its issues) is a refusal. The model gives patch no
// 404; a 404, as the same path's GET and DELETE answer a listing that does not exist, is taken as
// an unknown SKU (UNCONFIRMED).
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingUpdate } from "../connector";
import type { AmazonClient } from "./amazon.client";

// 5 calls/s: a cycle spends at most about 30 s on them.
const PUSHES_PER_CYCLE = 150;

interface SubmissionResponse {
  status?: string;
  issues?: { code?: string; message?: string; severity?: string }[];
}

export function amazonListings(client: AmazonClient, sellerId: string | undefined, marketplaceId: string): ListingsPush {
  function patches(u: ListingUpdate): unknown[] {
    const out: unknown[] = [];
    if (u.quantity !== null) {
      out.push({ op: "merge", path: "/attributes/fulfillment_availability", value: [{ fulfillment_channel_code: "DEFAULT", quantity: u.quantity }] });
    }
    if (u.price !== null) {
      out.push({
        op: "merge",
        path: "/attributes/purchasable_offer",
        value: [{ marketplace_id: marketplaceId, currency: u.currency, our_price: [{ schedule: [{ value_with_tax: u.price }] }] }],
      });
    }
    return out;
  }

  async function pushOne(u: ListingUpdate): Promise<ListingOutcome> {
    if (!sellerId) {
      return { state: "refused", message: "Amazon needs the source's Settings.sellerId (the seller's merchant token) to set stock and price" };
    }
    const path = `/listings/2021-08-01/items/${encodeURIComponent(sellerId)}/${encodeURIComponent(u.sku)}?marketplaceIds=${encodeURIComponent(marketplaceId)}`;
    let answer: SubmissionResponse | null;
    try {
      answer = await client.callJson<SubmissionResponse>("patchListingsItem", "PATCH", path, { productType: "PRODUCT", patches: patches(u) });
    } catch (error) {
      if (!(error instanceof MarketplaceError) || error.retryable) throw error;
      if (error.status === 404) return { state: "unknownSku", message: error.message };
      return { state: "refused", message: error.message };
    }
    if (answer?.status === "ACCEPTED") return { state: "accepted" };
    const issues = (answer?.issues ?? []).filter((i) => i.severity === "ERROR").map((i) => `${i.code ?? "?"} ${i.message ?? ""}`.trim());
    return { state: "refused", message: `Amazon answered ${answer?.status ?? "no status"} for SKU ${u.sku}: ${issues.join("; ") || "no issue given"}` };
  }

  return {
    batchSize: 1,
    pushesPerCycle: PUSHES_PER_CYCLE,
    async push(updates) {
      const outcomes = new Map<string, ListingOutcome>();
      for (const u of updates) outcomes.set(u.sku, await pushOne(u));
      return outcomes;
    },
  };
}
