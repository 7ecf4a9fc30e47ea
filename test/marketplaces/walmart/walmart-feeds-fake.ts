// The bulk half of the fake Walmart's stock and price (walmart-fake.ts routes /v3/feeds here):
// POST /v3/feeds?feedType=inventory|price and GET /v3/feeds/{feedId}, held to Walmart's published
// descriptions as extracted into walmart-feeds.json (query parameters, required headers including
// the Basic Authorization, a multipart body whose `file` part is the feed, the feed file checked
// against InventoryFeed.json / PriceFeed.json). A feed is processed after `checksBeforeProcessed`
// status calls: each item is applied to the fake's items (walmart-listings-fake.ts) or answered
// DATA_ERROR "not found" for a SKU the seller has no item for (UNCONFIRMED wording: the
// description names no code). Bad days: `stuck` (INPROGRESS forever), `failFeeds` (feedStatus
// ERROR), more than `feedsPerHour` feeds of a type (429); nonsense through the fake's failNext.
import { Validator } from "@cfworker/json-schema";
import extracted from "./walmart-feeds.json";

export interface WalmartFeedsOptions {
  /** Status calls answered INPROGRESS before a feed is processed. Default 1. */
  checksBeforeProcessed?: number;
  /** Feeds of one type taken per hour of the fake's clock before 429 (Walmart's guides: 10). Default 10. */
  feedsPerHour?: number;
  /** Feeds are never processed (INPROGRESS forever). */
  stuck?: boolean;
  /** Feeds end in feedStatus ERROR without item details. */
  failFeeds?: boolean;
}

interface Deps {
  now(): Date;
  checkHeaders(headers: Headers, names: string[], problems: string[]): void;
  tokenValid(token: string | null): boolean;
  violation(request: Request, problems: string[]): Response;
  json(status: number, body: unknown, headers?: Record<string, string>): Response;
  errorBody(status: number, description?: string, field?: string): unknown;
  knownSku(sku: string): boolean;
  apply(sku: string, change: { quantity?: number; price?: number; currency?: string }): void;
}

export interface ReceivedFeed {
  feedId: string;
  feedType: "inventory" | "price";
  file: unknown;
  items: { sku: string; change: { quantity?: number; price?: number; currency?: string } }[];
  checks: number;
  results: { sku: string; ingestionStatus: string; description?: string }[] | null;
}

export interface WalmartFeedsFake {
  /** The operation of this path and method, or null when the path is not a feeds path. */
  operationId(request: Request, url: URL): string | null;
  handle(request: Request, url: URL, rawBody: string): Promise<Response>;
  feeds: ReceivedFeed[];
  options: WalmartFeedsOptions;
}

const inventoryFeed = new Validator(extracted.inventoryFeed as object, "7", false);
const priceFeed = new Validator(extracted.priceFeed as object, "7", false);

export function walmartFeedsFake(deps: Deps, options: WalmartFeedsOptions): WalmartFeedsFake {
  const feeds: ReceivedFeed[] = [];
  const posted = new Map<string, number[]>();

  function common(request: Request, url: URL, op: { queryParams: { name: string; required: boolean }[]; requiredHeaders: string[] }, problems: string[]) {
    deps.checkHeaders(request.headers, [...op.requiredHeaders, "Accept"], problems);
    const authorization = request.headers.get("Authorization") ?? "";
    if (!/^Basic [A-Za-z0-9+/=]+$/.test(authorization)) problems.push("Authorization must be Basic base64(clientId:clientSecret)");
    for (const p of op.queryParams) if (p.required && !url.searchParams.has(p.name)) problems.push(`query parameter ${p.name} is required`);
    for (const name of url.searchParams.keys())
      if (!op.queryParams.some((p) => p.name === name)) problems.push(`query parameter ${name} is not in the description`);
  }

  async function post(request: Request, url: URL, rawBody: string): Promise<Response> {
    const feedType = url.searchParams.get("feedType");
    const op = feedType === "price" ? extracted.postPrice : extracted.postInventory;
    const problems: string[] = [];
    common(request, url, op, problems);
    if (!op.feedTypes.includes(feedType ?? "")) problems.push(`feedType ${feedType} is not one of ${op.feedTypes.join(", ")}`);
    else if (feedType !== "inventory" && feedType !== "price") problems.push(`feedType ${feedType} is not this fake's (inventory and price only)`);
    const contentType = request.headers.get("Content-Type") ?? "";
    let file: unknown = null;
    if (!op.mediaTypes.includes(contentType.split(";")[0]!.trim()))
      problems.push(`Content-Type must be ${op.mediaTypes.join(" or ")}, got ${contentType || "none"}`);
    else {
      try {
        const form = await new Response(rawBody, { headers: { "Content-Type": contentType } }).formData();
        for (const part of op.requiredParts) if (!form.has(part)) problems.push(`multipart part ${part} is required`);
        const part = form.get("file");
        if (part !== null) file = JSON.parse(typeof part === "string" ? part : await part.text());
      } catch (error) {
        problems.push(`body is not a multipart form with a JSON file: ${String(error)}`);
      }
    }
    if (file !== null && (feedType === "inventory" || feedType === "price")) {
      const result = (feedType === "inventory" ? inventoryFeed : priceFeed).validate(file);
      for (const e of result.errors.slice(0, 5)) problems.push(`feed file ${e.instanceLocation}: ${e.error}`);
      const header = feedType === "inventory" ? (file as { InventoryHeader?: unknown }).InventoryHeader : (file as { PriceHeader?: unknown }).PriceHeader;
      if (!header) problems.push(`feed file: ${feedType === "inventory" ? "InventoryHeader" : "PriceHeader"} is missing`);
    }
    if (problems.length > 0) return deps.violation(request, problems);
    if (!deps.tokenValid(request.headers.get("WM_SEC.ACCESS_TOKEN"))) return deps.json(401, deps.errorBody(401));

    const hour = deps.now().getTime() - 3_600_000;
    const times = (posted.get(feedType!) ?? []).filter((t) => t > hour);
    if (times.length >= (options.feedsPerHour ?? 10)) return deps.json(429, deps.errorBody(429), { "Retry-After": "600" });
    times.push(deps.now().getTime());
    posted.set(feedType!, times);

    const feedId = `${crypto.randomUUID().replaceAll("-", "").toUpperCase()}@AUoBAQA`;
    const items =
      feedType === "inventory"
        ? (file as { Inventory: { sku: string; quantity: { amount: number } }[] }).Inventory.map((i) => ({
            sku: i.sku,
            change: { quantity: i.quantity.amount },
          }))
        : (file as { Price: { sku: string; pricing: { currentPrice?: { amount?: number; currency?: string } }[] }[] }).Price.map((p) => ({
            sku: p.sku,
            change: { price: p.pricing[0]?.currentPrice?.amount, currency: p.pricing[0]?.currentPrice?.currency },
          }));
    feeds.push({ feedId, feedType: feedType as "inventory" | "price", file, items, checks: 0, results: null });
    return deps.json(200, { feedId });
  }

  function status(request: Request, url: URL, feedId: string): Response {
    const op = extracted.getFeed;
    const problems: string[] = [];
    common(request, url, op, problems);
    const limit = Number(url.searchParams.get("limit") ?? "50");
    const offset = Number(url.searchParams.get("offset") ?? "0");
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) problems.push(`limit ${url.searchParams.get("limit")} is not 1..1000`);
    if (!Number.isInteger(offset) || offset < 0) problems.push(`offset ${url.searchParams.get("offset")} is not a whole number`);
    if (problems.length > 0) return deps.violation(request, problems);
    if (!deps.tokenValid(request.headers.get("WM_SEC.ACCESS_TOKEN"))) return deps.json(401, deps.errorBody(401));
    const feed = feeds.find((f) => f.feedId === feedId);
    if (!feed) return deps.json(404, deps.errorBody(404, `Feed ${feedId} not found`, "feedId"));
    feed.checks += 1;
    const base = { feedId, itemsReceived: feed.items.length, offset, limit };
    if (options.stuck || feed.checks <= (options.checksBeforeProcessed ?? 1)) {
      return deps.json(200, { ...base, feedStatus: "INPROGRESS", itemsSucceeded: 0, itemsFailed: 0, itemsProcessing: feed.items.length });
    }
    if (options.failFeeds) {
      return deps.json(200, {
        ...base,
        feedStatus: "ERROR",
        itemsReceived: 0,
        itemsSucceeded: 0,
        itemsFailed: 0,
        itemsProcessing: 0,
        ingestionErrors: { ingestionError: [{ type: "SYSTEM_ERROR", code: "ERR_INT_SYS_0001", description: "Feed could not be processed" }] },
      });
    }
    if (!feed.results) {
      feed.results = feed.items.map((item) => {
        if (!deps.knownSku(item.sku)) return { sku: item.sku, ingestionStatus: "DATA_ERROR", description: `Item with sku ${item.sku} not found` };
        deps.apply(item.sku, item.change);
        return { sku: item.sku, ingestionStatus: "SUCCESS" };
      });
    }
    const page = feed.results.slice(offset, offset + limit);
    const failed = feed.results.filter((r) => r.ingestionStatus !== "SUCCESS").length;
    return deps.json(200, {
      ...base,
      feedStatus: "PROCESSED",
      itemsSucceeded: feed.results.length - failed,
      itemsFailed: failed,
      itemsProcessing: 0,
      itemDetails: {
        itemIngestionStatus: page.map((r, i) => ({
          martId: 0,
          sku: r.sku,
          index: offset + i,
          ingestionStatus: r.ingestionStatus,
          ...(r.description ? { ingestionErrors: { ingestionError: [{ type: "DATA_ERROR", code: "ERR_EXT_DATA_0801", description: r.description }] } } : {}),
        })),
      },
    });
  }

  return {
    feeds,
    options,
    operationId(request, url) {
      if (url.pathname === "/v3/feeds")
        return request.method === "POST" ? (url.searchParams.get("feedType") === "price" ? "priceBulkUploads" : "updateBulkInventory") : "getAllFeedStatuses";
      if (/^\/v3\/feeds\/[^/]+$/.test(url.pathname)) return "getFeedItemStatus";
      return null;
    },
    async handle(request, url, rawBody) {
      if (url.pathname === "/v3/feeds") {
        if (request.method !== "POST") return deps.violation(request, ["GET /v3/feeds (all feeds) is not the connector's call"]);
        return post(request, url, rawBody);
      }
      if (request.method !== "GET") return deps.violation(request, [`the description has GET only for ${url.pathname}`]);
      return status(request, url, decodeURIComponent(url.pathname.slice("/v3/feeds/".length)));
    },
  };
}
