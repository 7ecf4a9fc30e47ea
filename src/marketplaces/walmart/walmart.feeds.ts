// Walmart's bulk stock and price (decisions 11), from Walmart's published descriptions
// (../shared/reference/walmart/: inventory.openapi.json updateBulkInventory, price.openapi.json
// priceBulkUploads, feeds.openapi.json getFeedItemStatus, and the feed files' JSON Schemas in
// inventory-schemas/ and price-schemas/): POST /v3/feeds?feedType=inventory and ?feedType=price,
// each a multipart body whose `file` part is the JSON feed, answered with a feedId; later
// GET /v3/feeds/{feedId}?includeDetails=true pages through each item's ingestion status.
//
// One submission is one inventory feed and one price feed (either left out when no Sku sends
// that value); its reference names both ids. Walmart processes a feed in ~15-30 minutes.
import { MarketplaceError, type ListingOutcome, type ListingsSubmission, type ListingUpdate } from "../connector";
import { readJsonAnswer } from "../kit/marketplace-http";

/** Walmart's price takes these currencies only (PriceFeed.json, currentPrice.currency). */
export const WALMART_CURRENCIES = new Set(["USD", "CAD"]);
/**
 * Skus a submission carries: the price feed's 10,000 items (the inventory feed takes 50,000), so
 * one submission is one feed of each type.
 */
const FEED_ITEMS = 10_000;
/**
 * Due Skus above which a cycle sends a feed: the per-item path's pushes a cycle
 * (walmart.listings.ts). Fewer are answered in the same cycle by the per-item calls; more would
 * take several cycles of them, where two feeds take them all in one call each.
 */
const FEED_THRESHOLD = 200;
/** Item details a status page holds: feeds.openapi.json, `limit` "cannot be greater than 1000". */
const DETAILS_PAGE = 1_000;
/** Pages one check reads at most (a 10,000-item feed is 10). */
const MAX_PAGES = 60;

interface Deps {
  call(method: "GET" | "POST", path: string, body?: FormData): Promise<Response>;
  httpError(response: Response): Promise<MarketplaceError>;
}

type ItemResult = { ok: true } | { ok: false; kind: "unknownSku" | "refused" | "retry"; message: string };

export function walmartFeeds({ call, httpError }: Deps): ListingsSubmission {
  async function postFeed(feedType: "inventory" | "price", feed: unknown): Promise<string> {
    const form = new FormData();
    form.append("file", new Blob([JSON.stringify(feed)], { type: "application/json" }), `${feedType}.json`);
    const response = await call("POST", `/v3/feeds?feedType=${feedType}`, form);
    if (!response.ok) throw await httpError(response);
    const answer = (await readJsonAnswer(response, "Walmart POST /v3/feeds")) as { feedId?: unknown } | null;
    if (typeof answer?.feedId !== "string" || answer.feedId === "") {
      throw new MarketplaceError("Walmart POST /v3/feeds answered without a feedId", response.status, true);
    }
    return answer.feedId;
  }

  /** Each Sku's result in one feed, or null while the feed still processes. */
  async function feedResults(feedId: string): Promise<Map<string, ItemResult> | "error" | null> {
    const results = new Map<string, ItemResult>();
    for (let page = 0, offset = 0; page < MAX_PAGES; page++) {
      const path = `/v3/feeds/${encodeURIComponent(feedId)}?includeDetails=true&offset=${offset}&limit=${DETAILS_PAGE}`;
      const response = await call("GET", path);
      if (!response.ok) throw await httpError(response);
      const status = parseStatus(await readJsonAnswer(response, "Walmart GET /v3/feeds/{feedId}"), feedId);
      if (status.feedStatus === "RECEIVED" || status.feedStatus === "INPROGRESS" || status.itemsProcessing > 0) return null;
      if (status.feedStatus === "ERROR") return "error";
      for (const item of status.items) results.set(item.sku, item.result);
      offset += status.items.length;
      if (status.items.length === 0 || offset >= status.itemsReceived) return results;
    }
    return results;
  }

  return {
    threshold: FEED_THRESHOLD,
    size: FEED_ITEMS,
    async submit(updates) {
      const sent: ListingUpdate[] = [];
      const outcomes = new Map<string, ListingOutcome>();
      for (const u of updates) {
        const price = u.price !== null && WALMART_CURRENCIES.has(u.currency) ? u.price : null;
        if (u.quantity === null && price === null) outcomes.set(u.sku, { state: "refused", message: `Walmart takes prices in USD or CAD, not ${u.currency}` });
        else sent.push({ ...u, price });
      }
      const stock = sent.filter((u) => u.quantity !== null);
      const prices = sent.filter((u) => u.price !== null);
      const ids: string[] = [];
      if (stock.length > 0) {
        const feed = { InventoryHeader: { version: "1.4" }, Inventory: stock.map((u) => ({ sku: u.sku, quantity: { unit: "EACH", amount: u.quantity } })) };
        ids.push(`inventory:${await postFeed("inventory", feed)}`);
      }
      if (prices.length > 0) {
        const feed = {
          PriceHeader: { version: "1.7" },
          Price: prices.map((u) => ({ sku: u.sku, pricing: [{ currentPriceType: "BASE", currentPrice: { currency: u.currency, amount: u.price } }] })),
        };
        try {
          ids.push(`price:${await postFeed("price", feed)}`);
        } catch (error) {
          // The inventory feed is in: its Skus go out as submitted without their price, which
          // stays pending and is sent by a later cycle.
          if (ids.length === 0) throw error;
          return { reference: ids.join(" "), sent: stock.map((u) => ({ ...u, price: null })), outcomes };
        }
      }
      return { reference: ids.join(" "), sent, outcomes };
    },
    async check(reference, skus) {
      const perFeed: { kind: "inventory" | "price"; results: Map<string, ItemResult> | "error" }[] = [];
      let processing = false;
      // Each feed is asked every time, so the answer comes when the slower one is done.
      for (const part of reference.split(" ")) {
        const [kind, ...rest] = part.split(":");
        const results = await feedResults(rest.join(":"));
        if (results === null) processing = true;
        else perFeed.push({ kind: kind === "price" ? "price" : "inventory", results });
      }
      if (processing) return null;
      const outcomes = new Map<string, ListingOutcome>();
      for (const sku of skus) {
        const parts = perFeed
          .map((f) => ({
            kind: f.kind,
            result: f.results === "error" ? ({ ok: false, kind: "retry", message: `Walmart feed ${f.kind} ended in ERROR` } as const) : f.results.get(sku),
          }))
          .filter((p) => p.result !== undefined) as { kind: "inventory" | "price"; result: ItemResult }[];
        // A Sku neither feed mentions is left out: the core retries it.
        if (parts.length === 0) continue;
        const failed = parts.filter((p) => !p.result.ok) as { kind: "inventory" | "price"; result: Extract<ItemResult, { ok: false }> }[];
        if (failed.length === 0) {
          outcomes.set(sku, { state: "accepted" });
          continue;
        }
        const message = failed
          .map((f) => `${f.kind}: ${f.result.message}`)
          .join("; ")
          .slice(0, 500);
        if (failed.some((f) => f.result.kind === "unknownSku")) {
          outcomes.set(sku, { state: "unknownSku", message });
          continue;
        }
        const quantityAccepted = parts.some((p) => p.kind === "inventory" && p.result.ok);
        const priceAccepted = parts.some((p) => p.kind === "price" && p.result.ok);
        outcomes.set(sku, { state: failed.some((f) => f.result.kind === "retry") ? "retry" : "refused", message, quantityAccepted, priceAccepted });
      }
      return outcomes;
    },
  };
}

interface FeedStatus {
  feedStatus: string;
  itemsReceived: number;
  itemsProcessing: number;
  items: { sku: string; result: ItemResult }[];
}

/** Reads getFeedItemStatus's answer; anything else is nonsense, a retryable failure. */
function parseStatus(answer: unknown, feedId: string): FeedStatus {
  const nonsense = (why: string) => new MarketplaceError(`Walmart GET /v3/feeds/${feedId} answered nonsense: ${why}`, 200, true);
  if (typeof answer !== "object" || answer === null) throw nonsense("not an object");
  const a = answer as Record<string, unknown>;
  if (typeof a.feedStatus !== "string" || !["RECEIVED", "INPROGRESS", "PROCESSED", "ERROR"].includes(a.feedStatus)) throw nonsense("no known feedStatus");
  const count = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : 0);
  const details = (a.itemDetails as { itemIngestionStatus?: unknown } | undefined)?.itemIngestionStatus ?? [];
  if (!Array.isArray(details)) throw nonsense("itemDetails.itemIngestionStatus is not a list");
  const items: FeedStatus["items"] = [];
  for (const d of details as Record<string, unknown>[]) {
    if (typeof d?.sku !== "string" || typeof d.ingestionStatus !== "string") throw nonsense("an item without sku or ingestionStatus");
    items.push({ sku: d.sku, result: itemResult(d.ingestionStatus, d.ingestionErrors) });
  }
  return { feedStatus: a.feedStatus, itemsReceived: count(a.itemsReceived), itemsProcessing: count(a.itemsProcessing), items };
}

function itemResult(status: string, errors: unknown): ItemResult {
  if (status === "SUCCESS") return { ok: true };
  const list = ((errors as { ingestionError?: unknown } | undefined)?.ingestionError ?? []) as { code?: unknown; description?: unknown }[];
  const message = (Array.isArray(list) ? list : []).map((e) => `${String(e.code ?? "")} ${String(e.description ?? "")}`.trim()).join("; ") || status;
  if (status === "DATA_ERROR") {
    // UNCONFIRMED: the description names no code for a SKU Walmart has no item for; its guides'
    // messages say the item was "not found".
    return { ok: false, kind: /not found|does not exist/i.test(message) ? "unknownSku" : "refused", message: `${status} ${message}` };
  }
  // SYSTEM_ERROR, TIMEOUT_ERROR, or an item still INPROGRESS in a processed feed: try again.
  return { ok: false, kind: "retry", message: `${status} ${message}` };
}
