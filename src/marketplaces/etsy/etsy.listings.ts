// Etsy stock and price (decisions 11), from Etsy's published Open API v3 description
// (../shared/reference/etsy/openapi-3.0.0.json) and the reference README's stock section:
// updateListingInventory (PUT /v3/application/listings/{listing_id}/inventory, scope listings_w)
// replaces a listing's whole inventory, so each listing is read first with getListingInventory
// (listings_r) and sent back with only the changed Skus' offerings set (inventoryUpdate in
// etsy.mapping.ts). Etsy has no SKU lookup: the listing of a Sku is found by reading the shop's
// listings with their inventory (getListingsByShop?includes=Inventory, 100 a page, per state) and
// kept in the source's storage, one key per Sku; a Sku missing from that index, or no longer in
// the listing it names, makes the shop be read again, at most once a cycle. A Sku still not
// found is unknown to Etsy (reported, not sent again until it changes).
//
// One listing is two calls (read, replace) whatever number of its Skus changed. A call Etsy
// throttles beyond a short retry-after, a 5xx, a lost connection or a refused token stops the
// push: what was taken before it is recorded, the rest is retried later and the cycle stops.
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingUpdate } from "../connector";
import type { SourceStorage } from "../storage";
import { inventoryUpdate, listingSkus, UnreadableInventory, type InventoryPlan } from "./etsy.mapping";
import type { EtsyInventoryUpdate, EtsyListingInventory, EtsyListingPage } from "./etsy.types";

/** Skus a push takes: at most two calls a listing, so a push stays within a few seconds at 10 calls/s. */
const BATCH = 25;
/** Pushes a cycle: 100 Skus, at most 200 calls and the shop's listing pages, within the app's pace. */
const PUSHES_PER_CYCLE = 4;
/** getListingsByShop's maximum page. */
const PAGE_SIZE = 100;
/** A shop read ends after this many pages (decisions 6: more than 200 pages ends a window). */
const MAX_PAGES = 200;
/**
 * The listings whose stock the hub sets: on sale, paused by the seller, sold out (where new stock
 * matters most) and drafts. Expired listings are left out: Etsy must renew them first.
 */
export const INDEXED_STATES = ["active", "inactive", "sold_out", "draft"] as const;

interface Deps {
  /** One paced Etsy call answering a JSON object (a MarketplaceError with Etsy's words otherwise). */
  call<T>(operation: string, method: "GET" | "PUT", path: string, json?: unknown): Promise<T>;
  storage: SourceStorage;
  shopId: number;
}

export function etsyListings({ call, storage, shopId }: Deps): ListingsPush {
  // The index belongs to the shop: a source moved to another shop starts a new one.
  const prefix = `etsy:listingOf:${shopId}:`;
  let readThisCycle = false;

  /** Reads every listing of the shop in the indexed states and replaces the kept index. */
  async function readShop(): Promise<void> {
    const found = new Map<string, number>();
    let pages = 0;
    for (const state of INDEXED_STATES) {
      for (let offset = 0; ; ) {
        if (++pages > MAX_PAGES)
          throw new MarketplaceError(`Etsy getListingsByShop: the shop's listings run over ${MAX_PAGES} pages; the SKU index was not replaced`, null, true);
        const query = new URLSearchParams({ state, includes: "Inventory", limit: String(PAGE_SIZE), offset: String(offset) });
        const page = await call<EtsyListingPage>("getListingsByShop", "GET", `/v3/application/shops/${shopId}/listings?${query}`);
        const results = page.results;
        if (!Array.isArray(results) || typeof page.count !== "number" || !Number.isSafeInteger(page.count)) {
          throw new MarketplaceError("Etsy getListingsByShop answer has no results list or count", 200, true);
        }
        for (const listing of results) {
          const id = listing?.listing_id;
          if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) continue;
          // A Sku in two listings goes to the first read (active before the others).
          for (const sku of listingSkus(listing)) if (!found.has(sku)) found.set(sku, id);
        }
        offset += results.length;
        if (results.length === 0 || offset >= page.count) break;
      }
    }
    for (const [key] of storage.list(prefix)) storage.delete(key);
    for (const [sku, id] of found) storage.put(prefix + sku, id);
    readThisCycle = true;
  }

  const listingOf = (sku: string) => storage.get<number>(prefix + sku) ?? null;
  const unknown = (sku: string): ListingOutcome => ({
    state: "unknownSku",
    message: `No listing of Etsy shop ${shopId} (states ${INDEXED_STATES.join(", ")}) has a product with SKU ${sku}`,
  });
  const forget = (sku: string) => storage.delete(prefix + sku);

  /** The outcomes of one listing's Skus: read, replace, or why not. Skus the listing no longer has come back in `stale`. */
  async function pushListing(listingId: number, updates: ListingUpdate[], outcomes: Map<string, ListingOutcome>, stale: ListingUpdate[]): Promise<void> {
    const path = `/v3/application/listings/${listingId}/inventory`;
    const gone = (error: unknown) => error instanceof MarketplaceError && error.status === 404;
    // A 2xx whose body cannot be read (not JSON, not an object, too large): this listing's Skus
    // are tried again later, the other listings still go.
    const nonsense = (error: unknown): error is MarketplaceError =>
      error instanceof MarketplaceError && error.status !== null && error.status >= 200 && error.status < 300;
    let plan: InventoryPlan;
    try {
      const inventory = await call<EtsyListingInventory>("getListingInventory", "GET", path);
      plan = inventoryUpdate(listingId, inventory, updates);
    } catch (error) {
      if (gone(error)) {
        for (const u of updates) forget(u.sku);
        stale.push(...updates);
        return;
      }
      // Etsy's 400 or 422 on this listing's inventory is about this listing: the others still go.
      if (error instanceof MarketplaceError && (error.status === 400 || error.status === 422)) {
        for (const u of updates) outcomes.set(u.sku, { state: "refused", message: error.message, quantityAccepted: false, priceAccepted: false });
        return;
      }
      // An answer that is no inventory: nothing is sent on it, the Skus are tried again later.
      if (!(error instanceof UnreadableInventory) && !nonsense(error)) throw error;
      for (const u of updates) outcomes.set(u.sku, { state: "retry", message: `${error.message}; nothing was sent` });
      return;
    }
    for (const sku of plan.missing) forget(sku);
    stale.push(...updates.filter((u) => plan.missing.includes(u.sku)));
    const refusedOnly = (sku: string, taken: { quantity: boolean; price: boolean }): ListingOutcome => ({
      state: "refused",
      message: plan.refused.get(sku)!.join("; "),
      quantityAccepted: taken.quantity,
      priceAccepted: taken.price,
    });
    for (const [sku] of plan.refused) if (!plan.sent.has(sku)) outcomes.set(sku, refusedOnly(sku, { quantity: false, price: false }));
    if (!plan.body) return;

    let answer: unknown;
    try {
      answer = await call<EtsyListingInventory>("updateListingInventory", "PUT", path, plan.body satisfies EtsyInventoryUpdate);
    } catch (error) {
      if (gone(error)) {
        for (const sku of plan.sent.keys()) forget(sku);
        stale.push(...updates.filter((u) => plan.sent.has(u.sku)));
        return;
      }
      if (nonsense(error)) {
        answer = null;
      } else {
        // A 400 (values Etsy cannot take) will not change on a retry; anything else stops the push.
        if (!(error instanceof MarketplaceError) || error.status !== 400) throw error;
        for (const sku of plan.sent.keys()) outcomes.set(sku, { state: "refused", message: error.message, quantityAccepted: false, priceAccepted: false });
        return;
      }
    }
    // Values are absolute: a replacement whose answer cannot be read is sent again, harmlessly.
    const taken = Array.isArray((answer as EtsyListingInventory | null)?.products);
    for (const [sku, parts] of plan.sent) {
      if (!taken)
        outcomes.set(sku, {
          state: "retry",
          message: `Etsy's answer to updateListingInventory for listing ${listingId} is no listing inventory; sent again later`,
        });
      else if (plan.refused.has(sku)) outcomes.set(sku, refusedOnly(sku, parts));
      else outcomes.set(sku, { state: "accepted" });
    }
  }

  return {
    batchSize: BATCH,
    pushesPerCycle: PUSHES_PER_CYCLE,
    async push(updates) {
      const outcomes = new Map<string, ListingOutcome>();
      try {
        let toPlace = updates;
        for (;;) {
          if (!readThisCycle && toPlace.some((u) => listingOf(u.sku) === null)) await readShop();
          const byListing = new Map<number, ListingUpdate[]>();
          for (const u of toPlace) {
            const id = listingOf(u.sku);
            if (id === null) outcomes.set(u.sku, unknown(u.sku));
            else byListing.set(id, [...(byListing.get(id) ?? []), u]);
          }
          const stale: ListingUpdate[] = [];
          for (const [id, mine] of byListing) await pushListing(id, mine, outcomes, stale);
          if (stale.length === 0) break;
          // The index was read this cycle, so the listing it named has no such Sku now: Etsy has none.
          if (readThisCycle) {
            for (const u of stale) outcomes.set(u.sku, unknown(u.sku));
            break;
          }
          await readShop();
          toPlace = stale;
        }
      } catch (error) {
        const failure =
          error instanceof MarketplaceError ? error : new MarketplaceError(`Etsy: ${error instanceof Error ? error.message : String(error)}`, null, true);
        // Nothing taken yet: the whole push failed. Else what was taken is kept, the rest waits.
        if (outcomes.size === 0) throw failure;
        for (const u of updates) if (!outcomes.has(u.sku)) outcomes.set(u.sku, { state: "retry", message: failure.message, error: failure });
      }
      return outcomes;
    },
  };
}
