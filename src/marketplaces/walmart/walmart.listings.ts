// Walmart stock and price (decisions 11), from Walmart's published descriptions
// (../shared/reference/walmart/inventory.openapi.json and price.openapi.json): PUT
// /v3/inventory?sku= `{sku, quantity: {unit: "EACH", amount}}` and PUT /v3/price `{sku, pricing:
// [{currentPriceType: "BASE", currentPrice: {currency, amount}}]}`, both answered at once.
//
// One SKU a push, for cycles with few Skus due; a cycle with more sends the inventory and price
// feeds instead (walmart.feeds.ts; the Skus are `submitted` until the feeds are processed).
// Walmart publishes no per-call limit for these two calls (UNCONFIRMED), so a cycle makes at most
// PUSHES_PER_CYCLE pushes and a 429 stops it.
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingUpdate } from "../connector";
import { WALMART_CURRENCIES } from "./walmart.feeds";

const PUSHES_PER_CYCLE = 200;

interface Deps {
  /** A Walmart API call with the service headers, a token and (for these calls) Basic credentials. */
  call(method: "PUT", path: string, body: unknown): Promise<Response>;
  httpError(response: Response): Promise<MarketplaceError>;
}

export function walmartListings({ call, httpError }: Deps): ListingsPush {
  type Refusal = Extract<ListingOutcome, { state: "unknownSku" | "refused" }>;
  /** null when taken; an outcome when Walmart refused the SKU; throws when the call itself failed. */
  async function put(path: string, body: unknown): Promise<Refusal | null> {
    const response = await call("PUT", path, body);
    if (response.ok) {
      await response.body?.cancel();
      return null;
    }
    const error = await httpError(response);
    if (response.status === 404) return { state: "unknownSku", message: error.message };
    if (error.retryable) throw error;
    return { state: "refused", message: error.message };
  }

  async function pushOne(u: ListingUpdate): Promise<ListingOutcome> {
    let quantityAccepted = false;
    if (u.quantity !== null) {
      const refused = await put(`/v3/inventory?sku=${encodeURIComponent(u.sku)}`, { sku: u.sku, quantity: { unit: "EACH", amount: u.quantity } });
      if (refused) return refused;
      quantityAccepted = true;
    }
    if (u.price !== null) {
      if (!WALMART_CURRENCIES.has(u.currency)) {
        return { state: "refused", message: `Walmart takes prices in USD or CAD, not ${u.currency}`, quantityAccepted };
      }
      const body = { sku: u.sku, pricing: [{ currentPriceType: "BASE", currentPrice: { currency: u.currency, amount: u.price } }] };
      let refused: Awaited<ReturnType<typeof put>>;
      try {
        refused = await put("/v3/price", body);
      } catch (error) {
        // The quantity is taken: say so, so it is not sent again; the cycle still stops here.
        if (!quantityAccepted || !(error instanceof MarketplaceError)) throw error;
        return { state: "retry", message: error.message, quantityAccepted, error };
      }
      if (refused) return refused.state === "unknownSku" ? refused : { ...refused, quantityAccepted };
    }
    return { state: "accepted" };
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
