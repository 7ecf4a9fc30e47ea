// The stock and price half of the fake Walmart (walmart-fake.ts routes PUT /v3/inventory and PUT
// /v3/price here). Every request is held to Walmart's published descriptions as extracted into
// walmart-listings.json (query parameters, required headers including the Basic Authorization
// the descriptions mark required, the JSON body's schema, the sku of the query matching the
// body's). It keeps each SKU's quantity and price, answers a SKU it has no item for with 404
// (UNCONFIRMED: the descriptions document only 200; the error body is the one Walmart's guides
// give for every call), and throttles with 429 and Retry-After past `callsPerMinute`.
import extracted from "./walmart-listings.json";

interface Schema {
  type?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
}

interface ListingOperation {
  operationId: string;
  method: string;
  path: string;
  queryParams: { name: string; required: boolean }[];
  requiredHeaders: string[];
  requestSchema: Schema;
  responseExample: unknown;
}

const OPERATIONS = (extracted as unknown as { operations: ListingOperation[] }).operations;

export interface WalmartListingsOptions {
  /** SKUs the seller has items for; any other SKU is answered 404. Default: every SKU. */
  knownSkus?: string[];
  /** Stock and price calls the fake takes per minute of its clock before answering 429. */
  callsPerMinute?: number;
}

interface Deps {
  now(): Date;
  /** The fake's shared header checks (Accept, a fresh WM_QOS.CORRELATION_ID per call). */
  checkHeaders(headers: Headers, names: string[], problems: string[]): void;
  checkAgainstSchema(value: unknown, schema: Schema, path: string, problems: string[]): string[];
  /** Whether the WM_SEC.ACCESS_TOKEN is one the fake issued and still valid. */
  tokenValid(token: string | null): boolean;
  violation(request: Request, problems: string[]): Response;
  json(status: number, body: unknown, headers?: Record<string, string>): Response;
  errorBody(status: number, description?: string, field?: string): unknown;
}

export interface WalmartListingsFake {
  operation(path: string): ListingOperation | null;
  handle(request: Request, op: ListingOperation, url: URL, rawBody: string): Response;
  /** What the fake's item shows now: quantity and BASE price (undefined: never set). */
  item(sku: string): { quantity?: number; price?: number; currency?: string } | undefined;
  /** Whether the seller has an item with this SKU (the feeds' processing asks). */
  known(sku: string): boolean;
  /** Sets what a processed feed item changed. */
  apply(sku: string, change: { quantity?: number; price?: number; currency?: string }): void;
}

export function walmartListingsFake(deps: Deps, opts: WalmartListingsOptions): WalmartListingsFake {
  const known = opts.knownSkus ? new Set(opts.knownSkus) : null;
  const items = new Map<string, { quantity?: number; price?: number; currency?: string }>();
  let windowStart = 0;
  let callsInWindow = 0;

  return {
    operation(path) {
      return OPERATIONS.find((o) => o.path === path) ?? null;
    },
    item(sku) {
      return items.get(sku);
    },
    known(sku) {
      return !known || known.has(sku);
    },
    apply(sku, change) {
      const item = items.get(sku) ?? {};
      for (const [key, value] of Object.entries(change)) if (value !== undefined) (item as Record<string, unknown>)[key] = value;
      items.set(sku, item);
    },
    handle(request, op, url, rawBody) {
      const problems: string[] = [];
      if (request.method !== op.method) return deps.violation(request, [`the description has ${op.method} only`]);
      deps.checkHeaders(request.headers, [...op.requiredHeaders, "Accept"], problems);
      const authorization = request.headers.get("Authorization") ?? "";
      if (authorization && !/^Basic [A-Za-z0-9+/=]+$/.test(authorization)) problems.push("Authorization must be Basic base64(clientId:clientSecret)");
      for (const p of op.queryParams) if (p.required && !url.searchParams.has(p.name)) problems.push(`query parameter ${p.name} is required`);
      for (const name of url.searchParams.keys()) {
        if (!op.queryParams.some((p) => p.name === name)) problems.push(`query parameter ${name} is not in the description of ${op.path}`);
      }
      const contentType = request.headers.get("Content-Type") ?? "";
      if (contentType.split(";")[0]?.trim() !== "application/json") problems.push(`Content-Type must be application/json, got ${contentType || "none"}`);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(rawBody) as Record<string, unknown>;
        deps.checkAgainstSchema(body, op.requestSchema, "body", problems);
      } catch {
        problems.push("body is not JSON");
      }
      const sku = typeof body.sku === "string" ? body.sku : "";
      if (op.operationId === "updateInventoryForAnItem" && url.searchParams.get("sku") !== sku) {
        problems.push(`query sku ${url.searchParams.get("sku")} differs from the body's sku ${sku}`);
      }
      if (op.operationId === "updatePrice") {
        const pricing = (body.pricing ?? []) as { currentPriceType?: string; currentPrice?: { amount?: unknown; currency?: unknown } }[];
        if (pricing.length !== 1 || pricing[0]?.currentPriceType !== "BASE") problems.push("pricing must hold one BASE price (promotions are not this fake's)");
        if (typeof pricing[0]?.currentPrice?.amount !== "number") problems.push("pricing[0].currentPrice.amount is required");
      }
      if (problems.length > 0) return deps.violation(request, problems);

      if (!deps.tokenValid(request.headers.get("WM_SEC.ACCESS_TOKEN"))) return deps.json(401, deps.errorBody(401));
      const minute = Math.floor(deps.now().getTime() / 60_000);
      if (minute !== windowStart) {
        windowStart = minute;
        callsInWindow = 0;
      }
      if (opts.callsPerMinute !== undefined && ++callsInWindow > opts.callsPerMinute) {
        return deps.json(429, deps.errorBody(429), { "Retry-After": "60" });
      }
      if (known && !known.has(sku)) return deps.json(404, deps.errorBody(404, `Item with sku ${sku} not found`, "sku"));
      const item = items.get(sku) ?? {};
      if (op.operationId === "updateInventoryForAnItem") {
        item.quantity = (body.quantity as { amount: number }).amount;
        items.set(sku, item);
        return deps.json(200, { sku, quantity: body.quantity });
      }
      const price = (body.pricing as { currentPrice: { amount: number; currency?: string } }[])[0]!.currentPrice;
      item.price = price.amount;
      item.currency = price.currency;
      items.set(sku, item);
      const example = op.responseExample as { ItemPriceResponse: Record<string, unknown> };
      return deps.json(200, { ItemPriceResponse: { ...example.ItemPriceResponse, sku } });
    },
  };
}
