// The stock and price half of the fake eBay (ebay-fake.ts routes /sell/inventory/v1 here): getOffers
// and bulkUpdatePriceQuantity as eBay's Sell Inventory API description has them, extracted into
// ebay-listings.json by ebay-listings.extract.mjs. Every request is held to it: method, path, query
// parameters of the description, the Content-Type the bulk call requires, a Bearer token issued
// with the sell.inventory scope, the body's schema, at most `maxRequests` (25) requests a call, a
// sku with every shipToLocationAvailability, offers of the request's own SKU, no offerId twice, an
// Amount with both value (a string) and currency. A request that breaks one is answered 400 and
// recorded in `violations`.
//
// Chosen where the description is silent (UNCONFIRMED): an unknown SKU is answered by getOffers
// with 404 and error 25702 ("{skuValue} could not be found or is not available in the system"),
// and by the bulk call with that SKU's statusCode 404 and the same error; an unpublished offer's
// price is refused per offer with 25713 ("This Offer is not available"); an over-quota call is
// 429 without Retry-After (eBay's pages give neither its status nor its body; its error id here is
// illustrative).
import extracted from "./ebay-listings.json";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";

interface InventoryOperation {
  operationId: string;
  method: string;
  path: string;
  queryParams: { name: string; required: boolean }[];
  requiredHeaders: string[];
  scopes: string[];
  requestSchema: Schema | null;
  responseSchema: Schema;
  errors: Record<string, { status: number; category: string; message: string }>;
}

const spec = extracted as unknown as { maxRequests: number; operations: InventoryOperation[] };
export const EBAY_INVENTORY_SCOPES = [...new Set(spec.operations.flatMap((o) => o.scopes))];
const WRITE_SCOPE = spec.operations.find((o) => o.operationId === "bulkUpdatePriceQuantity")!.scopes[0]!;

export interface EbayListingsOptions {
  /** SKUs the seller has inventory items for; any other is unknown. Default: every SKU. */
  knownSkus?: string[];
  /** SKUs whose only offer is UNPUBLISHED. */
  unpublishedSkus?: string[];
  /** The marketplace of every offer (the source's marketplaceId). Default EBAY_US. */
  marketplaceId?: string;
  /** Inventory calls the fake takes per minute of its clock before answering 429. */
  callsPerMinute?: number;
}

export interface EbayListingsFake {
  handles(path: string): boolean;
  handle(request: Request, url: URL, rawBody: string, tokenScopes: string[] | null): Response;
  /** The inventory item's ship-to-home quantity and its offer's price, as eBay shows them now. */
  item(sku: string): { quantity?: number; price?: string; currency?: string } | undefined;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function inventoryError(errorId: number, message?: string) {
  const known = spec.operations.flatMap((o) => Object.entries(o.errors)).find(([id]) => Number(id) === errorId)?.[1];
  const text = message ?? known?.message ?? "Error";
  return { errorId, domain: "API_INVENTORY", category: known?.category ?? "REQUEST", message: text, longMessage: text };
}

export function ebayListingsFake(now: () => Date, opts: EbayListingsOptions, violations: string[]): EbayListingsFake {
  const known = opts.knownSkus ? new Set(opts.knownSkus) : null;
  const unpublished = new Set(opts.unpublishedSkus ?? []);
  const marketplaceId = opts.marketplaceId ?? "EBAY_US";
  const items = new Map<string, { quantity?: number; price?: string; currency?: string }>();
  let windowStart = 0;
  let callsInWindow = 0;
  const offerIdOf = (sku: string) => `9${[...sku].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1e9, 7)}`;
  /** Offers by id: those getOffers has shown (eBay knows every offer; the fake, those it named). */
  const offers = new Map<string, string>();
  const isKnown = (sku: string) => !known || known.has(sku);

  function reject(where: string, problems: string[]): Response {
    for (const p of problems) violations.push(`${where}: ${p}`);
    return json(400, { errors: [inventoryError(25709, problems.join("; "))] });
  }

  function getOffers(url: URL): Response {
    const sku = url.searchParams.get("sku") ?? "";
    if (!isKnown(sku)) return json(404, { errors: [inventoryError(25702, `${sku} could not be found or is not available in the system.`)] });
    offers.set(offerIdOf(sku), sku);
    const offer = { offerId: offerIdOf(sku), sku, marketplaceId, format: "FIXED_PRICE", status: unpublished.has(sku) ? "UNPUBLISHED" : "PUBLISHED" };
    const body = { href: url.href, limit: 100, size: 1, total: 1, offers: [offer] };
    const problems = schemaProblems(body, spec.operations[0]!.responseSchema, "fake getOffers answer");
    if (problems.length > 0) throw new Error(problems.join("; "));
    return json(200, body);
  }

  type BulkBody = {
    requests?: {
      sku?: string;
      shipToLocationAvailability?: { quantity?: number };
      offers?: { offerId?: string; price?: { value?: string; currency?: string }; availableQuantity?: number }[];
    }[];
  };

  function bulkProblems(body: BulkBody): string[] {
    const requests = body.requests ?? [];
    const problems: string[] = [];
    if (requests.length === 0) problems.push("requests must hold at least one request");
    if (requests.length > spec.maxRequests) problems.push(`requests holds ${requests.length}; the description takes up to ${spec.maxRequests}`);
    const skus = new Set<string>();
    requests.forEach((r, i) => {
      if (r.shipToLocationAvailability && r.sku === undefined) problems.push(`requests[${i}].sku is required with shipToLocationAvailability`);
      const q = r.shipToLocationAvailability?.quantity;
      if (r.shipToLocationAvailability && (!Number.isInteger(q) || q! < 0))
        problems.push(`requests[${i}].shipToLocationAvailability.quantity must be a whole number >= 0`);
      if (r.sku !== undefined && skus.has(r.sku)) problems.push(`requests[${i}].sku ${r.sku} is named twice`);
      if (r.sku !== undefined) skus.add(r.sku);
      if (!r.shipToLocationAvailability && !r.offers?.length) problems.push(`requests[${i}] updates nothing`);
      const ids = new Set<string>();
      (r.offers ?? []).forEach((o, j) => {
        if (!o.offerId) problems.push(`requests[${i}].offers[${j}].offerId is required`);
        else if (ids.has(o.offerId)) problems.push(`requests[${i}].offers[${j}].offerId ${o.offerId} is passed twice`);
        else ids.add(o.offerId);
        if (o.price === undefined && o.availableQuantity === undefined) problems.push(`requests[${i}].offers[${j}] needs availableQuantity or price`);
        if (o.price && (typeof o.price.value !== "string" || !/^\d+(\.\d+)?$/.test(o.price.value) || !o.price.currency)) {
          problems.push(`requests[${i}].offers[${j}].price needs value (a decimal string) and currency`);
        }
        if (o.offerId && r.sku !== undefined && offers.has(o.offerId) && offers.get(o.offerId) !== r.sku)
          problems.push(`requests[${i}].offers[${j}] is an offer of another SKU than ${r.sku}`);
      });
    });
    return problems;
  }

  function bulk(body: BulkBody): Response {
    const requests = body.requests ?? [];
    const responses: unknown[] = [];
    for (const r of requests) {
      const sku = r.sku ?? "";
      if (r.shipToLocationAvailability) {
        if (!isKnown(sku)) {
          responses.push({ sku, statusCode: 404, errors: [inventoryError(25702, `${sku} could not be found or is not available in the system.`)] });
        } else {
          items.set(sku, { ...items.get(sku), quantity: r.shipToLocationAvailability.quantity });
          responses.push({ sku, statusCode: 200 });
        }
      }
      for (const o of r.offers ?? []) {
        const offerSku = offers.get(o.offerId!);
        if (offerSku === undefined || unpublished.has(offerSku)) {
          responses.push({
            ...(offerSku !== undefined && { sku: offerSku }),
            offerId: o.offerId,
            statusCode: 400,
            errors: [inventoryError(25713, `This Offer is not available : ${o.offerId}.`)],
          });
          continue;
        }
        if (o.price) items.set(offerSku, { ...items.get(offerSku), price: o.price.value, currency: o.price.currency });
        responses.push({ sku: offerSku, offerId: o.offerId, statusCode: 200 });
      }
    }
    const answer = { responses };
    const shape = schemaProblems(answer, spec.operations[1]!.responseSchema, "fake bulkUpdatePriceQuantity answer");
    if (shape.length > 0) throw new Error(shape.join("; "));
    return json(responses.every((r) => (r as { statusCode: number }).statusCode === 200) ? 200 : 207, answer);
  }

  return {
    handles: (path) => spec.operations.some((o) => o.path === path),
    item: (sku) => items.get(sku),
    handle(request, url, rawBody, tokenScopes) {
      const op = spec.operations.find((o) => o.path === url.pathname)!;
      const where = `${request.method} ${url.pathname}`;
      if (request.method !== op.method) return reject(where, [`the description has ${op.method} only`]);
      const problems: string[] = [];
      if (tokenScopes && !tokenScopes.some((s) => op.scopes.includes(s)))
        problems.push(`the token's scopes (${tokenScopes.join(" ")}) do not include ${op.scopes.join(" or ")}`);
      for (const header of op.requiredHeaders) {
        const value = request.headers.get(header) ?? "";
        if (header.toLowerCase() === "content-type" ? value.split(";")[0]?.trim() !== "application/json" : !value)
          problems.push(`header ${header} is required (application/json)`);
      }
      for (const p of op.queryParams) if (p.required && !url.searchParams.has(p.name)) problems.push(`query parameter ${p.name} is required`);
      for (const name of new Set(url.searchParams.keys())) {
        if (!op.queryParams.some((p) => p.name === name)) problems.push(`query parameter ${name} is not in the description of ${op.operationId}`);
      }
      let body: Record<string, unknown> = {};
      if (op.requestSchema) {
        try {
          body = JSON.parse(rawBody) as Record<string, unknown>;
          schemaProblems(body, op.requestSchema, "body", problems);
        } catch {
          problems.push("body is not JSON");
        }
      } else if (rawBody !== "") {
        problems.push(`${op.operationId} takes no body`);
      }
      if (op.operationId === "getOffers" && !url.searchParams.get("sku")) problems.push("the connector asks getOffers for one sku");
      if (op.operationId === "bulkUpdatePriceQuantity" && problems.length === 0) problems.push(...bulkProblems(body as BulkBody));
      if (problems.length > 0) return reject(where, problems);

      const minute = Math.floor(now().getTime() / 60_000);
      if (minute !== windowStart) {
        windowStart = minute;
        callsInWindow = 0;
      }
      if (opts.callsPerMinute !== undefined && ++callsInWindow > opts.callsPerMinute) {
        return json(429, {
          errors: [
            {
              errorId: 2001,
              domain: "ACCESS",
              category: "REQUEST",
              message: "Too many requests",
              longMessage: "The request limit has been reached for the resource.",
            },
          ],
        });
      }
      return op.operationId === "getOffers" ? getOffers(url) : bulk(body as BulkBody);
    },
  };
}
export const EBAY_INVENTORY_WRITE_SCOPE = WRITE_SCOPE;
