// TikTok Shop stock and price (decisions 11), from TikTok's generated Node SDK (version 202309):
// UpdateInventory (POST /product/202309/products/{product_id}/inventory/update: the SKUs of one
// product, each with every warehouse it is stocked in) and UpdatePrice (POST
// /product/202309/products/{product_id}/prices/update). Both take TikTok's product and SKU ids, not
// the seller's SKU: each Sku's ids are found with SearchProducts (`seller_skus` filter) and kept in
// the source's storage, one key per Sku and shop, looked up again after a day or after TikTok
// refuses the product. Before a quantity goes out, InventorySearch reads the SKUs' warehouses: a
// SKU in one warehouse gets the quantity there; in several, the Settings' warehouseId gets it and
// the others are sent with the quantity TikTok has for them (the description asks for every
// warehouse, none omitted, none added).
//
// One product is at most two calls (inventory, then price) whatever number of its Skus changed. A
// product TikTok refuses (code other than 0) is refused for its Skus with TikTok's words; the
// SKUs an UpdateInventory answer lists in `errors` are refused alone. A 429, a 5xx or a lost
// connection stops the push: what TikTok took before is recorded, the rest is retried later.
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingUpdate } from "../connector";
import { pageGuard } from "../kit/paging";
import type { SourceStorage } from "../storage";
import { TiktokApiError, type TiktokClient } from "./tiktok.client";
import { idOf } from "./tiktok.mapping";
import type { TiktokInventoryAnswer, TiktokInventoryUpdate, TiktokInventoryUpdateAnswer, TiktokPriceUpdate, TiktokProductPage } from "./tiktok.types";

/** Skus a push takes: one product search, one inventory read and two calls a product at most. */
const BATCH = 50;
/** Pushes a cycle: 250 Skus, about 500 calls at most. */
const PUSHES_PER_CYCLE = 5;
/** A kept SKU index entry is looked up again after a day (a SKU moved to another product). */
const INDEX_TTL_MS = 24 * 60 * 60_000;
/** UpdateInventory's documented range. */
const MAX_QUANTITY = 99_999;
const SEARCH_PAGE_SIZE = 100;
const MAX_SEARCH_PAGES = 50;

interface Deps {
  client: TiktokClient;
  storage: SourceStorage;
  /** The warehouse whose quantity the hub sets when a SKU is stocked in several. */
  warehouseId: string | null;
  now?: () => number;
}

interface IndexEntry {
  productId: string;
  skuId: string;
  /** The SKU's price currency as SearchProducts gave it ("" when it gave none). */
  currency: string;
  at: number;
}

/** Where one Sku of a push stands, part by part. */
interface SkuState {
  update: ListingUpdate;
  entry: IndexEntry;
  quantity: "due" | "taken" | "refused" | null;
  price: "due" | "taken" | "refused" | null;
  messages: string[];
}

/** A price as TikTok's decimal string: at most two decimals, no trailing zeros ("19.9", "1200"). */
const amountOf = (price: number) => String(Math.round(price * 100) / 100);

export function tiktokListings({ client, storage, warehouseId, now = Date.now }: Deps): ListingsPush {
  const keyOf = (cipher: string, sku: string) => `tiktok:sku:${cipher}:${sku}`;

  /** Looks the Skus up with SearchProducts and keeps what it finds; answers the entries found. */
  async function lookUp(cipher: string, skus: string[]): Promise<Map<string, IndexEntry>> {
    const wanted = new Set(skus);
    const found = new Map<string, IndexEntry & { active: boolean }>();
    const guard = pageGuard("TikTok SearchProducts", MAX_SEARCH_PAGES);
    for (let token: string | null = null; ; ) {
      const query: Record<string, string> = { page_size: String(SEARCH_PAGE_SIZE) };
      if (token !== null) query.page_token = token;
      const page = await client.call<TiktokProductPage | null>({
        operation: "SearchProducts",
        method: "POST",
        path: "/product/202309/products/search",
        query,
        json: { seller_skus: skus },
        shop: true,
      });
      const products = page?.products ?? [];
      if (!Array.isArray(products)) throw new MarketplaceError("TikTok SearchProducts answer's products is not a list", 200, true);
      for (const product of products) {
        const productId = idOf(product?.id);
        if (productId === null || product.status === "DELETED" || !Array.isArray(product.skus)) continue;
        const active = product.status === "ACTIVATE";
        for (const sku of product.skus) {
          const skuId = idOf(sku?.id);
          const seller = typeof sku?.seller_sku === "string" ? sku.seller_sku : "";
          if (skuId === null || !wanted.has(seller)) continue;
          // A Sku on two products goes to the active one, else the first read.
          const known = found.get(seller);
          if (known && (known.active || !active)) continue;
          found.set(seller, { productId, skuId, currency: typeof sku.price?.currency === "string" ? sku.price.currency : "", at: now(), active });
        }
      }
      const next = page?.next_page_token;
      if (typeof next !== "string" || next === "" || products.length === 0) break;
      guard(next);
      token = next;
    }
    const entries = new Map<string, IndexEntry>();
    for (const [sku, { active: _active, ...entry }] of found) {
      storage.put(keyOf(cipher, sku), entry);
      entries.set(sku, entry);
    }
    return entries;
  }

  /** Each Sku's warehouses and their quantities as TikTok has them now. */
  async function warehouses(skuIds: string[]): Promise<Map<string, { id: string; quantity: number }[]>> {
    const answer = await client.call<TiktokInventoryAnswer | null>({
      operation: "InventorySearch",
      method: "POST",
      path: "/product/202309/inventory/search",
      json: { sku_ids: skuIds },
      shop: true,
    });
    const inventory = answer?.inventory;
    if (!Array.isArray(inventory)) throw new TiktokApiError("TikTok InventorySearch answer has no inventory list", 200, true, 0);
    const bySku = new Map<string, { id: string; quantity: number }[]>();
    for (const product of inventory) {
      for (const sku of Array.isArray(product?.skus) ? product.skus : []) {
        const id = idOf(sku?.id);
        if (id === null) continue;
        const list = (Array.isArray(sku.warehouse_inventory) ? sku.warehouse_inventory : [])
          .filter((w) => typeof w?.warehouse_id === "string" && w.warehouse_id !== "")
          .map((w) => ({
            id: w.warehouse_id!,
            quantity: Number.isSafeInteger(w.available_quantity) && w.available_quantity! >= 0 ? w.available_quantity! : 0,
          }));
        bySku.set(id, list);
      }
    }
    return bySku;
  }

  /** The inventory list of one Sku's quantity, or why it cannot be sent. */
  function inventoryOf(quantity: number, stocked: { id: string; quantity: number }[] | undefined): { warehouse_id: string; quantity: number }[] | string {
    if (quantity > MAX_QUANTITY) return `TikTok takes a quantity of at most ${MAX_QUANTITY.toLocaleString("en-US")}, not ${quantity}`;
    if (!stocked || stocked.length === 0) return "TikTok's InventorySearch names no warehouse for this SKU";
    if (stocked.length === 1) return [{ warehouse_id: stocked[0]!.id, quantity }];
    const names = stocked.map((w) => w.id).join(", ");
    if (warehouseId === null) return `the SKU is stocked in TikTok warehouses ${names}: set the source's warehouseId to the one the hub's quantity is for`;
    if (!stocked.some((w) => w.id === warehouseId)) return `the SKU is stocked in TikTok warehouses ${names}, not in the source's warehouseId ${warehouseId}`;
    return stocked.map((w) => ({ warehouse_id: w.id, quantity: w.id === warehouseId ? quantity : w.quantity }));
  }

  /** A call's failure: a product's refusal (recorded), or an error that stops the push (thrown). */
  function refuseOrThrow(error: unknown, states: SkuState[], part: "quantity" | "price", cipher: string): void {
    // A 2xx that is not TikTok's envelope is this product's trouble; throttling, a 5xx, a lost connection everyone's.
    const nonsense = error instanceof TiktokApiError && error.code === null && error.status !== null && error.status >= 200 && error.status < 300;
    if (!(error instanceof TiktokApiError) || (error.retryable && !nonsense)) throw error;
    for (const s of states) {
      if (s[part] !== "due") continue;
      s.messages.push(error.message);
      // An answer that was not TikTok's envelope leaves the part due: a later push sends it again.
      if (!error.retryable) {
        s[part] = "refused";
        // The product may be gone or the SKU moved: look it up again next time.
        storage.delete(keyOf(cipher, s.update.sku));
      }
    }
  }

  async function pushProduct(productId: string, states: SkuState[], stocked: Map<string, { id: string; quantity: number }[]>, cipher: string): Promise<void> {
    const inventory: TiktokInventoryUpdate = { skus: [] };
    for (const s of states) {
      if (s.quantity !== "due") continue;
      const list = inventoryOf(s.update.quantity!, stocked.get(s.entry.skuId));
      if (typeof list === "string") {
        s.quantity = "refused";
        s.messages.push(list);
      } else inventory.skus.push({ id: s.entry.skuId, inventory: list });
    }
    if (inventory.skus.length > 0) {
      try {
        const answer = await client.call<TiktokInventoryUpdateAnswer | null>({
          operation: "UpdateInventory",
          method: "POST",
          path: `/product/202309/products/${productId}/inventory/update`,
          json: inventory,
          shop: true,
        });
        const refusedSkus = new Map<string, string>();
        for (const e of Array.isArray(answer?.errors) ? answer.errors : []) {
          const skuId = idOf(e?.detail?.sku_id);
          const extra = (Array.isArray(e?.detail?.extra_errors) ? e.detail.extra_errors : []).map((x) =>
            `${x?.warehouse_id ?? "?"}: ${x?.code ?? ""} ${x?.message ?? ""}`.trim(),
          );
          const words = `TikTok ${e?.code ?? ""} on UpdateInventory: ${e?.message ?? "refused"}${extra.length > 0 ? ` (${extra.join("; ")})` : ""}`;
          if (skuId !== null) refusedSkus.set(skuId, words);
          else for (const s of states) refusedSkus.set(s.entry.skuId, words);
        }
        for (const s of states) {
          if (s.quantity !== "due") continue;
          const refused = refusedSkus.get(s.entry.skuId);
          if (refused) {
            s.quantity = "refused";
            s.messages.push(refused);
          } else s.quantity = "taken";
        }
      } catch (error) {
        refuseOrThrow(error, states, "quantity", cipher);
      }
    }

    const prices: TiktokPriceUpdate = { skus: [] };
    for (const s of states) {
      if (s.price !== "due") continue;
      const price = s.update.price!;
      if (!(price > 0)) {
        s.price = "refused";
        s.messages.push(`TikTok takes a price above 0, not ${price}`);
      } else if (s.entry.currency !== "" && s.entry.currency !== s.update.currency) {
        s.price = "refused";
        s.messages.push(`the TikTok SKU is priced in ${s.entry.currency}, the product in ${s.update.currency}: the price is not sent`);
      } else prices.skus.push({ id: s.entry.skuId, price: { amount: amountOf(price), currency: s.update.currency } });
    }
    if (prices.skus.length > 0) {
      try {
        await client.call<unknown>({
          operation: "UpdatePrice",
          method: "POST",
          path: `/product/202309/products/${productId}/prices/update`,
          json: prices,
          shop: true,
        });
        for (const s of states) if (s.price === "due") s.price = "taken";
      } catch (error) {
        refuseOrThrow(error, states, "price", cipher);
      }
    }
  }

  function outcomeOf(s: SkuState): ListingOutcome {
    const quantityAccepted = s.quantity === "taken";
    const priceAccepted = s.price === "taken";
    if (s.quantity === "refused" || s.price === "refused") return { state: "refused", message: s.messages.join("; "), quantityAccepted, priceAccepted };
    if (s.quantity === "due" || s.price === "due") return { state: "retry", message: s.messages.join("; ") || "not sent", quantityAccepted, priceAccepted };
    return { state: "accepted" };
  }

  return {
    batchSize: BATCH,
    pushesPerCycle: PUSHES_PER_CYCLE,
    async push(updates) {
      const outcomes = new Map<string, ListingOutcome>();
      const states: SkuState[] = [];
      try {
        const cipher = await client.shopCipher();
        const entries = new Map<string, IndexEntry>();
        const stale: string[] = [];
        for (const u of updates) {
          const kept = storage.get<IndexEntry>(keyOf(cipher, u.sku));
          if (kept && now() - kept.at < INDEX_TTL_MS) entries.set(u.sku, kept);
          else stale.push(u.sku);
        }
        if (stale.length > 0) for (const [sku, entry] of await lookUp(cipher, stale)) entries.set(sku, entry);
        for (const u of updates) {
          const entry = entries.get(u.sku);
          if (!entry) outcomes.set(u.sku, { state: "unknownSku", message: `No product of this TikTok shop has a SKU with seller_sku ${u.sku}` });
          else states.push({ update: u, entry, quantity: u.quantity === null ? null : "due", price: u.price === null ? null : "due", messages: [] });
        }
        const withQuantity = states.filter((s) => s.quantity === "due").map((s) => s.entry.skuId);
        const stocked = withQuantity.length > 0 ? await warehouses([...new Set(withQuantity)]) : new Map<string, { id: string; quantity: number }[]>();
        const byProduct = new Map<string, SkuState[]>();
        for (const s of states) byProduct.set(s.entry.productId, [...(byProduct.get(s.entry.productId) ?? []), s]);
        for (const [productId, mine] of byProduct) {
          await pushProduct(productId, mine, stocked, cipher);
          for (const s of mine) outcomes.set(s.update.sku, outcomeOf(s));
        }
      } catch (error) {
        const failure =
          error instanceof MarketplaceError ? error : new MarketplaceError(`TikTok: ${error instanceof Error ? error.message : String(error)}`, null, true);
        // Nothing taken yet: the whole push failed. Else what was taken is kept, the rest waits.
        const taken = states.some((s) => s.quantity === "taken" || s.price === "taken");
        if (!taken && outcomes.size === 0) throw failure;
        for (const u of updates) {
          if (outcomes.has(u.sku)) continue;
          const s = states.find((x) => x.update.sku === u.sku);
          outcomes.set(u.sku, {
            state: "retry",
            message: failure.message,
            quantityAccepted: s?.quantity === "taken",
            priceAccepted: s?.price === "taken",
            error: failure,
          });
        }
      }
      return outcomes;
    },
  };
}
