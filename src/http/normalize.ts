// The interface comes from a platform whose routing ignores case: fixed path segments and query
// parameter NAMES are case-insensitive (decisions 1). Rather than teach every route that, the
// request is rewritten once, before routing, to the canonical spelling the routes are written
// in. Tokens, ids and every query VALUE keep their case.

/** Fixed path words, lower-cased. A segment matching one of these (in any case) is lower-cased. */
const FIXED_SEGMENTS = new Set([
  "v0",
  "v1",
  "api",
  "admin",
  "authorization",
  "orders",
  "count",
  "insertorder",
  "updatestatus",
  "acknowledgeorder",
  "feeds",
  "download",
  "inventory",
  "returns",
  "receive",
  "approve",
  "reject",
  "refund",
]);

/** Canonical spellings of every query parameter the service reads. */
const QUERY_NAMES = [
  "fromDate",
  "toDate",
  "status",
  "page",
  "pageSize",
  "sortBy",
  "sortDirection",
  "dateField",
  "filterQuery",
  "orderDestinationOrderNumber",
  "sourceId",
];
const QUERY_BY_LOWER = new Map(QUERY_NAMES.map((name) => [name.toLowerCase(), name]));

/** The three token-less forms of the reference, served with the token in a Bearer header. */
export const BEARER_FORMS = new Map([
  ["/api/v1/orders/count", "/orders/count"],
  ["/api/v1/orders", "/orders"],
  ["/api/v1/feeds/count", "/feeds/count"],
]);

/** A token that can never verify: what a Bearer form without a usable header is routed with. */
export const MISSING_TOKEN = "-";

export function normalizeUrl(url: URL, authorization: string | null): URL {
  const out = new URL(url);
  const segments = url.pathname.split("/").map((segment) => {
    const lower = segment.toLowerCase();
    return FIXED_SEGMENTS.has(lower) ? lower : segment;
  });
  let path = segments.join("/");
  const bearerForm = BEARER_FORMS.get(path.replace(/\/+$/, ""));
  if (bearerForm) {
    const token = /^Bearer\s+([A-Za-z0-9._~-]+)\s*$/i.exec(authorization ?? "")?.[1] ?? MISSING_TOKEN;
    path = `/v1/${token}${bearerForm}`;
  }
  out.pathname = path;
  const params = new URLSearchParams();
  for (const [name, value] of url.searchParams) {
    params.append(QUERY_BY_LOWER.get(name.toLowerCase()) ?? name, value);
  }
  out.search = params.toString();
  return out;
}

export function normalizeRequest(request: Request): Request {
  const url = new URL(request.url);
  const normalized = normalizeUrl(url, request.headers.get("authorization"));
  return normalized.href === url.href ? request : new Request(normalized, request);
}
