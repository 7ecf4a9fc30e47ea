// eBay stock and price (decisions 11), from eBay's published Sell Inventory API description
// (../shared/reference/ebay/sell_inventory_v1_oas3.json v1.18.4): POST
// /sell/inventory/v1/bulk_update_price_quantity `{requests: [{sku, shipToLocationAvailability:
// {quantity}, offers: [{offerId, price: {value, currency}}]}]}`, answered per SKU and per offer
// (`responses[].statusCode`, HTTP 200 or 207). A price goes to each of the SKU's PUBLISHED offers
// on the source's marketplace, whose ids only getOffers (GET /offer?sku=) gives; a quantity alone
// needs no offer, so a stock change costs one call for up to 25 SKUs.
//
// Batch: the requests array's schema text says "up to 25" inventory items, while the method's
// text says "Only one SKU (one product) can be updated per call"; the reference README notes the
// contradiction and eBay's bulk guide sides with 25, so 25 it is (ebay-listings.json keeps the
// figure the extract read). Quantity is the inventory item's total ship-to-home quantity, which
// every published offer draws on. Daily call quotas are UNCONFIRMED (read them with the Developer
// Analytics API), so a cycle makes at most PUSHES_PER_CYCLE pushes, and a 429 stops it.
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingUpdate } from "../connector";

export const EBAY_INVENTORY_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.inventory";
const BATCH = 25;
const PUSHES_PER_CYCLE = 40;
// "{skuValue} could not be found or is not available in the system" / "One or more of the
// supplied SKU(s) could not be found" (the description's x-response-codes).
const UNKNOWN_SKU_ERRORS = new Set([25701, 25702]);

interface Deps {
  /** A Sell Inventory API call (path under /sell/inventory/v1) with a user token that has sell.inventory. */
  call(method: "GET" | "POST", path: string, body?: unknown): Promise<Response>;
  errorOf(response: Response, label: string): Promise<MarketplaceError>;
  marketplaceId: string;
}

type Failure = Extract<ListingOutcome, { state: "unknownSku" | "refused" | "retry" }>;

interface EbayError {
  errorId?: number;
  message?: string;
  longMessage?: string;
}
interface PriceQuantityResponse {
  sku?: string;
  offerId?: string;
  statusCode?: number;
  errors?: EbayError[];
}

const describe = (errors: EbayError[] | undefined) =>
  (errors ?? []).map((e) => `${e.errorId ?? "?"} ${e.longMessage ?? e.message ?? ""}`.trim()).join("; ") || "no error given";

/** Why one part (the quantity or one offer's price) failed; null when it was taken. */
function partFailure(r: PriceQuantityResponse): Failure | null {
  const status = r.statusCode ?? 0;
  if (status >= 200 && status < 300) return null;
  const message = `eBay ${status} for SKU ${r.sku ?? "?"}${r.offerId ? ` offer ${r.offerId}` : ""}: ${describe(r.errors)}`;
  if (status === 404 || (r.errors ?? []).some((e) => UNKNOWN_SKU_ERRORS.has(e.errorId ?? 0))) return { state: "unknownSku", message };
  if (status === 429 || status >= 500 || status === 0) return { state: "retry", message };
  return { state: "refused", message };
}

export function ebayListings({ call, errorOf, marketplaceId }: Deps): ListingsPush {
  /** The SKU's published offers on this marketplace, or its outcome when there is none to price. */
  async function publishedOffers(u: ListingUpdate): Promise<string[] | Failure> {
    const response = await call("GET", `/offer?sku=${encodeURIComponent(u.sku)}&marketplace_id=${encodeURIComponent(marketplaceId)}`);
    if (!response.ok) {
      const error = await errorOf(response, "getOffers");
      if (response.status === 404) return { state: "unknownSku", message: error.message };
      if (error.retryable) throw error;
      return { state: "refused", message: error.message };
    }
    const body = (await response.json().catch(() => null)) as { offers?: { offerId?: string; status?: string; marketplaceId?: string }[] } | null;
    const ids = (body?.offers ?? [])
      .filter((o) => o.status === "PUBLISHED" && (!o.marketplaceId || o.marketplaceId === marketplaceId) && typeof o.offerId === "string")
      .map((o) => o.offerId!);
    if (ids.length > 0) return ids;
    // bulkUpdatePriceQuantity "is not designed to work with unpublished offers".
    return { state: "refused", message: `eBay has no published offer of SKU ${u.sku} on ${marketplaceId} to take a price` };
  }

  return {
    batchSize: BATCH,
    pushesPerCycle: PUSHES_PER_CYCLE,
    async push(updates) {
      const outcomes = new Map<string, ListingOutcome>();
      const requests: unknown[] = [];
      const priceless = new Map<string, Failure>();
      const skuOfOffer = new Map<string, string>();
      let stopped: MarketplaceError | null = null;
      for (const u of updates) {
        if (stopped) {
          // What getOffers already found still goes; the rest waits, and the cycle stops here.
          outcomes.set(u.sku, { state: "retry", message: stopped.message, error: stopped });
          continue;
        }
        let offers: string[] = [];
        if (u.price !== null) {
          let found: string[] | Failure;
          try {
            found = await publishedOffers(u);
          } catch (error) {
            if (!(error instanceof MarketplaceError)) throw error;
            stopped = error;
            outcomes.set(u.sku, { state: "retry", message: error.message, error });
            continue;
          }
          if (!Array.isArray(found)) {
            if (found.state === "unknownSku" || u.quantity === null) {
              outcomes.set(u.sku, found);
              continue;
            }
            priceless.set(u.sku, found); // the quantity still goes
          } else offers = found;
          for (const id of offers) skuOfOffer.set(id, u.sku);
        }
        const request: Record<string, unknown> = {};
        if (u.quantity !== null) Object.assign(request, { sku: u.sku, shipToLocationAvailability: { quantity: u.quantity } });
        if (offers.length > 0) request.offers = offers.map((offerId) => ({ offerId, price: { value: String(u.price), currency: u.currency } }));
        requests.push(request);
      }
      if (requests.length === 0) {
        if (stopped && outcomes.size === updates.length && [...outcomes.values()].every((o) => o.state === "retry")) throw stopped;
        return outcomes;
      }

      const response = await call("POST", "/bulk_update_price_quantity", { requests });
      if (!response.ok) throw await errorOf(response, "bulkUpdatePriceQuantity");
      const body = (await response.json().catch(() => null)) as { responses?: PriceQuantityResponse[] } | null;
      const parts = body?.responses ?? [];
      for (const u of updates) {
        if (outcomes.has(u.sku)) continue;
        const mine = parts.filter((r) => (r.sku ?? (r.offerId ? skuOfOffer.get(r.offerId) : undefined)) === u.sku);
        if (mine.length === 0) continue; // not mentioned: the core retries it
        const quantityPart = mine.filter((r) => !r.offerId);
        const pricePart = mine.filter((r) => r.offerId);
        const quantityFailed = quantityPart.map(partFailure).find((f) => f !== null) ?? null;
        const priceFailed = pricePart.map(partFailure).find((f) => f !== null) ?? priceless.get(u.sku) ?? null;
        const failed = quantityFailed ?? priceFailed;
        if (!failed) {
          outcomes.set(u.sku, { state: "accepted" });
        } else if (failed.state === "unknownSku") {
          outcomes.set(u.sku, failed);
        } else {
          const quantityAccepted = u.quantity !== null && quantityPart.length > 0 && quantityFailed === null;
          const priceAccepted = u.price !== null && pricePart.length > 0 && priceFailed === null;
          outcomes.set(u.sku, { state: failed.state, message: failed.message, quantityAccepted, priceAccepted });
        }
      }
      return outcomes;
    },
  };
}
