// A fake Mirakl instance (one shop) for tests in workerd, built from Mirakl's published seller
// description (mirakl-description.json, extracted by mirakl-description.extract.mjs). It holds
// every request to the description: the path and method of one of its operations, only the query
// parameters that operation lists (plus `max`/`offset` where it says "offset pagination", the
// names Mirakl's reference page sends), every required one, values of the type, format and enum
// the description gives, the shop key raw in Authorization (the description's apiKey scheme in
// the Authorization header: no "Bearer"), `shop_id` when the shop is not the key's default,
// JSON asked for, and a body that fits the operation's schema. A request that does not is
// answered 400 and recorded in `violations`. It plays Mirakl's limits (429 with Retry-After for
// an order poll within a minute of the last, or a stock or offer import within a minute, a
// returns poll within 5 minutes), and the bad days every fake plays (fake-kit/faults.ts). Orders,
// shipments, cancellations, refunds, reasons and returns live in mirakl-orders-fake.ts (its
// line-level part in mirakl-lines-fake.ts), offers and imports in mirakl-offers-fake.ts.
import { schemaProblems } from "../fake-kit/schema-check";
import { badDay, faultQueue, faultResponse, type AnswerFault, type FaultHelpers } from "../fake-kit/faults";
import { receive, type ReceivedRequest } from "../fake-kit/received-request";
import { routesOf } from "../fake-kit/routes";
import { description, json, miraklError, type Operation } from "./mirakl-answers";
import { miraklOffersFake, type MiraklOffersFake, type OffersOptions } from "./mirakl-offers-fake";
import { miraklOrdersFake, type MiraklOrdersFake, type OrdersOptions } from "./mirakl-orders-fake";

export const MIRAKL_FAKE_HOST = "marketplace.fake.mirakl.net";
export const MIRAKL_FAKE_URL = `https://${MIRAKL_FAKE_HOST}`;
export const MIRAKL_FAKE_KEY = "9f1c2e7a-4b3d-4c8e-a1f0-5d6e7f809a1b";

/** Offset paging: what Mirakl's reference page for OR11 sends (the description links elsewhere). */
const OFFSET_PARAMS = ["max", "offset", "sort", "order"];
/** Seek paging (ST11, RT11): `limit` and `page_token`, the names of Mirakl's paging notes (UNCONFIRMED: the description links elsewhere). */
const SEEK_PARAMS = ["limit", "page_token", "sort", "order"];
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** What the limits allow: "Maximum usage" of OR11 (asynchronous), STO01 and OF24: once per minute. */
const ONCE_A_MINUTE = new Set(["OR11 poll", "STO01", "OF24"]);
/** RT11's maximum usage: every 5 minutes (a poll is a first page, without page_token). */
const RT11_EVERY_MS = 5 * 60_000;

export interface MiraklFakeOptions {
  apiKey?: string;
  /** The shop the key acts for by default; a request naming another shop_id is refused. */
  shopId?: number;
  /** Other shops the key reaches (a request must name one of these, or none for the default). */
  otherShops?: number[];
  /** The fake's clock (orders' dates, limits, imports); share it with the connector's. */
  now?: () => Date;
  orders?: OrdersOptions;
  offers?: OffersOptions;
}

export interface MiraklFake extends FaultHelpers<"api"> {
  fetch: typeof fetch;
  requests: ReceivedRequest[];
  violations: string[];
  orders: MiraklOrdersFake;
  offers: MiraklOffersFake;
  /** Requests of one operation. */
  calls(operationId: string): ReceivedRequest[];
}

// Literal paths first, so /api/orders/cancel is not read as /api/orders/{order_id}/...
const ROUTES = routesOf(description.operations);

function queryProblems(op: Operation, url: URL): string[] {
  const problems: string[] = [];
  const known = new Map(op.query.map((q) => [q.name, q]));
  for (const [name, value] of url.searchParams) {
    const q = known.get(name);
    if (!q) {
      if (op.paging === "offset" && OFFSET_PARAMS.includes(name)) {
        if ((name === "max" || name === "offset") && !/^\d+$/.test(value)) problems.push(`${name}=${value} is not a whole number`);
        if (name === "max" && !(Number(value) >= 1 && Number(value) <= 100)) problems.push(`max=${value} must be 1..100`);
        continue;
      }
      if (op.paging === "seek" && SEEK_PARAMS.includes(name)) {
        if (name === "limit" && !(/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 100)) problems.push(`limit=${value} must be 1..100`);
        if (name === "page_token" && value === "") problems.push("page_token is empty");
        continue;
      }
      problems.push(`query parameter ${name} is not in the description of ${op.operationId}`);
      continue;
    }
    const s = q.schema;
    if (s.type === "integer" && !/^-?\d+$/.test(value)) problems.push(`${name}=${value} is not an integer`);
    if (s.type === "boolean" && !["true", "false"].includes(value)) problems.push(`${name}=${value} is not a boolean`);
    if (s.format === "date-time" && !DATE_TIME.test(value)) problems.push(`${name}=${value} is not a date-time`);
    if (s.enum) {
      for (const v of value.split(",")) if (!s.enum.includes(v)) problems.push(`${name}: ${v} is not one of ${s.enum.join(", ")}`);
    }
  }
  for (const q of op.query) if (q.required && !url.searchParams.has(q.name)) problems.push(`query parameter ${q.name} is required`);
  return problems;
}

export function createMiraklFake(opts: MiraklFakeOptions = {}): MiraklFake {
  const apiKey = opts.apiKey ?? MIRAKL_FAKE_KEY;
  const now = opts.now ?? (() => new Date());
  const requests: ReceivedRequest[] = [];
  const violations: string[] = [];
  const faults = faultQueue<"api">("api");
  const lastCall = new Map<string, number>();
  const orders = miraklOrdersFake(now, opts.orders ?? {});
  const offers = miraklOffersFake(now, opts.offers ?? {});

  function refuse(recorded: ReceivedRequest, problems: string[]): Response {
    for (const p of problems) violations.push(`${recorded.method} ${recorded.path}: ${p}`);
    return miraklError(400, problems.join("; "));
  }

  async function handle(request: Request, url: URL, rawBody: string, recorded: ReceivedRequest): Promise<Response> {
    const route = ROUTES.find((r) => r.regex.test(url.pathname) && r.op.method === request.method) ?? ROUTES.find((r) => r.regex.test(url.pathname));
    if (!route) return refuse(recorded, ["not a path of the description"]);
    const op = route.op;
    recorded.operationId = op.operationId;
    if (op.method !== request.method) return refuse(recorded, [`${op.operationId} takes ${op.method}`]);
    const problems = queryProblems(op, url);

    const authorization = request.headers.get("Authorization");
    if (authorization === null) return miraklError(401, "Unauthorized: no API key");
    if (/^Bearer /i.test(authorization)) problems.push("Authorization carries the shop key raw (an apiKey scheme), not as a Bearer token");
    const accept = request.headers.get("Accept");
    if (accept && !accept.split(",").some((a) => ["application/json", "*/*"].includes(a.trim().split(";")[0]!)))
      problems.push(`Accept ${accept} admits no JSON`);
    const shop = url.searchParams.get("shop_id");
    if (shop !== null && Number(shop) !== opts.shopId && !(opts.otherShops ?? []).includes(Number(shop)))
      problems.push(`shop_id ${shop} is not a shop of this key`);
    if (shop === null && opts.shopId !== undefined && (opts.otherShops ?? []).length > 0)
      problems.push("the key reaches several shops: shop_id is needed to act for the right one");

    let body: unknown = null;
    const contentType = (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim();
    if (op.requestBody?.contentType === "application/json") {
      if (contentType !== "application/json") problems.push(`Content-Type must be application/json, got ${contentType || "none"}`);
      try {
        body = JSON.parse(rawBody);
        schemaProblems(body, op.requestBody.schema, "body", problems);
      } catch {
        problems.push("the body is not JSON");
      }
    } else if (op.requestBody?.contentType === "multipart/form-data") {
      if (contentType !== "multipart/form-data") problems.push(`Content-Type must be multipart/form-data, got ${contentType || "none"}`);
    } else if (rawBody !== "") {
      problems.push(`${op.operationId} takes no body`);
    }
    if (problems.length > 0) return refuse(recorded, problems);
    if (authorization !== apiKey) return miraklError(401, "Unauthorized: the API key is not valid");

    const fault = faults.take("api", op.operationId);
    if (fault)
      return faultResponse(fault, (f) => (f.body === undefined ? miraklError(f.status, `fault ${f.status}`, f.headers) : json(f.status, f.body, f.headers)));

    // Mirakl's maximum call frequencies, answered as integrators report: 429 with Retry-After.
    if (op.operationId === "RT11" && !url.searchParams.has("page_token")) {
      const last = lastCall.get("RT11 poll");
      const at = now().getTime();
      if (last !== undefined && at - last < RT11_EVERY_MS) {
        violations.push(`RT11: polled ${Math.round((at - last) / 1000)} s after the last poll; the description's maximum is every 5 minutes`);
        return miraklError(429, "Too Many Requests", { "Retry-After": String(Math.ceil((RT11_EVERY_MS - (at - last)) / 1000)) });
      }
      lastCall.set("RT11 poll", at);
    }
    const limited =
      op.operationId === "OR11" ? (url.searchParams.has("order_ids") || (url.searchParams.get("offset") ?? "0") !== "0" ? null : "OR11 poll") : op.operationId;
    if (ONCE_A_MINUTE.has(limited ?? "")) {
      const last = lastCall.get(limited!);
      const at = now().getTime();
      if (last !== undefined && at - last < 60_000) {
        violations.push(`${op.operationId}: called ${Math.round((at - last) / 1000)} s after the last call; the description's maximum is once per minute`);
        return miraklError(429, "Too Many Requests", { "Retry-After": String(Math.ceil((60_000 - (at - last)) / 1000)) });
      }
      lastCall.set(limited!, at);
    }

    const params = route.regex.exec(url.pathname)!.slice(1).map(decodeURIComponent);
    // Orders, their shipments, cancellations, refunds, reasons and returns live together.
    if (/^(OR|ST\d|RE|RT)/.test(op.operationId)) return orders.handle(op.operationId, params, url, body);
    return offers.handle(op.operationId, params, url, body, request, rawBody, (problem) => refuse(recorded, [problem]));
  }

  const fakeFetch: typeof fetch = async (input, init) => {
    const { request, url, rawBody, recorded } = await receive(input, init, () => false);
    requests.push(recorded);
    let response: Response;
    if (url.protocol !== "https:" || url.host !== MIRAKL_FAKE_HOST) {
      violations.push(`${request.method} ${url.href}: not this instance's https host`);
      response = miraklError(404, "Not found");
    } else {
      response = await handle(request, url, rawBody, recorded);
    }
    recorded.status = response.status;
    return response;
  };

  return {
    fetch: fakeFetch,
    requests,
    violations,
    orders,
    offers,
    failNext: faults.failNext,
    failNextWithError: faults.failNextWithError,
    calls: (operationId) => requests.filter((r) => r.operationId === operationId),
  };
}

/**
 * OR11 answers for ever that name far more orders than they hold: `empty` pages hold none, the
 * others one order each (without lines: set aside). For failNext.
 */
export function miraklPagesForEver(empty: boolean): AnswerFault<"api"> {
  return badDay.endlessPages((n) => ({ orders: empty ? [] : [{ order_id: `ENDLESS-${n}`, order_state: "SHIPPING" }], total_count: 1_000_000 }), {
    operation: "OR11",
  });
}
