// A fake Walmart Marketplace (US) for tests in workerd. It answers with the examples Walmart
// documents (walmart-examples.json, extracted from the published descriptions by
// walmart-examples.extract.mjs) and holds every request to the description: a path or method it
// does not list, a missing header, an unknown query parameter or a body that misses a required
// field is answered 400 with a Walmart error body and recorded in `violations`.
//
// It keeps each order's lines as Walmart does (a status per quantity of each line: Created,
// Acknowledged, Shipped, Cancelled) and refuses what the description's operations cannot do:
// shipping more of a line than is left to ship (a second shipment of shipped lines), shipping or
// cancelling a cancelled line, cancelling a shipped line (the description's refund is for those),
// acknowledging an order whose every line is cancelled. Such a call is answered 400 with Walmart's
// error body and changes nothing; lists and order reads show the lines as they now stand. Stock
// and price, feeds and returns are the walmart-*-fake.ts modules it routes to.
import type { WalmartOrder, WalmartOrderLine, WalmartOrderLineStatus, WalmartShipmentRequest } from "../../../src/marketplaces/walmart/walmart.types";
import { badDay, faultQueue, faultResponse, type AnswerFault, type Fault, type FaultHelpers } from "../fake-kit/faults";
import { receive, type ReceivedRequest } from "../fake-kit/received-request";
import { routesOf } from "../fake-kit/routes";
import extracted from "./walmart-examples.json";
import { walmartFeedsFake, type ReceivedFeed, type WalmartFeedsOptions } from "./walmart-feeds-fake";
import { walmartListingsFake, type WalmartListingsFake, type WalmartListingsOptions } from "./walmart-listings-fake";
import { walmartReturnsFake, type WalmartReturnsFake } from "./walmart-returns-fake";

interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  cursorParams: string[];
  requestBody: { contentType: string; required: boolean; schema: Schema; example: unknown } | null;
  responseExamples: Record<string, unknown> | null;
}

interface Extracted {
  apiHeaders: string[];
  bodyContentType: string;
  token: {
    method: string;
    path: string;
    headers: string[];
    contentType: string;
    formSchema: Schema;
    response: { access_token: string; token_type: string; expires_in: number };
  };
  operations: Operation[];
}

const spec = extracted as unknown as Extracted;

export interface WalmartFakeOptions {
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of issued tokens in seconds; the documented 900 by default. */
  expiresIn?: number;
  /** The fake's clock for token expiry; share it with the connector's ctx.now. */
  now?: () => Date;
  /** Stock and price calls (walmart-listings-fake.ts). */
  listings?: WalmartListingsOptions;
  /** Stock and price feeds (walmart-feeds-fake.ts). */
  feeds?: WalmartFeedsOptions;
}

type FaultTarget = "api" | "token";

export interface WalmartFake extends FaultHelpers<FaultTarget> {
  fetch: typeof fetch;
  requests: ReceivedRequest[];
  violations: string[];
  /** Tokens issued so far, oldest first. */
  tokens: string[];
  /** Walmart-side expiry of every issued token: the next call with one answers 401. */
  expireTokens(): void;
  /** Requests other than token requests. */
  apiRequests(): ReceivedRequest[];
  /** An order as the fake now holds it (its lines' statuses as Walmart would report them). */
  order(purchaseOrderId: string): ExampleOrder | undefined;
  /** Changes an order the fake serves (a test's odd marketplace data). */
  editOrder(purchaseOrderId: string, edit: (order: ExampleOrder) => void): void;
  /**
   * A change made on Walmart's side (a buyer's cancellation granted, a shipment recorded in Seller
   * Center): the same per-line rules as the API calls; throws what Walmart would refuse.
   */
  changeInWalmart(
    purchaseOrderId: string,
    change: { cancel: { lineNumber: string; quantity: number }[] } | { ship: { lineNumber: string; quantity: number }[]; trackingNumber: string },
  ): void;
  /** What an item shows after stock and price calls. */
  item: WalmartListingsFake["item"];
  /** Feeds received, oldest first, with what each answered once processed. */
  feeds: ReceivedFeed[];
  /** The feeds' bad days, changeable between cycles. */
  feedOptions: WalmartFeedsOptions;
  /** Returns and their refunds (walmart-returns-fake.ts). */
  returns: Pick<WalmartReturnsFake, "put" | "get" | "refunds">;
}

export const WALMART_FAKE_CLIENT_ID = "fake-client-id";
export const WALMART_FAKE_CLIENT_SECRET = "fake-client-secret";

// The description documents no error examples; the README gives the shape, the codes are
// illustrative.
const DEFAULT_ERRORS: Record<number, { code: string; description: string; category: string }> = {
  400: { code: "INVALID_REQUEST_CONTENT.GMP_ORDER_API", description: "Invalid request content", category: "DATA" },
  401: { code: "UNAUTHORIZED.GMP_GATEWAY_API", description: "Unauthorized token or invalid service name", category: "DATA" },
  404: { code: "CONTENT_NOT_FOUND.GMP_ORDER_API", description: "No orders found for the given criteria", category: "APPLICATION" },
  429: { code: "REQUEST_THRESHOLD_VIOLATED.GMP_GATEWAY_API", description: "Too many requests", category: "SYSTEM" },
  500: { code: "SYSTEM_ERROR.GMP_GATEWAY_API", description: "Internal server error", category: "SYSTEM" },
};

export function walmartErrorBody(status: number, description?: string, field?: string): unknown {
  const base = DEFAULT_ERRORS[status] ?? DEFAULT_ERRORS[status >= 500 ? 500 : 400]!;
  return {
    errors: [
      {
        code: base.code,
        field: field ?? base.code.split(".")[0],
        description: description ?? base.description,
        info: description ?? base.description,
        severity: "ERROR",
        category: base.category,
      },
    ],
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

const clone = <T>(value: T): T => structuredClone(value);

/** The walk walmart-examples.extract.mjs proves the documented examples pass. */
export function checkAgainstSchema(value: unknown, schema: Schema, path: string, problems: string[] = []): string[] {
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push(`${path}: expected an object`);
      return problems;
    }
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in record)) problems.push(`${path}.${key}: required by the description, missing`);
    }
    for (const [key, v] of Object.entries(record)) {
      const sub = schema.properties?.[key];
      if (!sub) problems.push(`${path}.${key}: not a field of the description`);
      else checkAgainstSchema(v, sub, `${path}.${key}`, problems);
    }
  } else if (schema.type === "array") {
    if (!Array.isArray(value)) problems.push(`${path}: expected an array`);
    else value.forEach((v, i) => checkAgainstSchema(v, schema.items ?? {}, `${path}[${i}]`, problems));
  } else if (schema.type === "string" && typeof value !== "string") {
    problems.push(`${path}: expected a string, got ${JSON.stringify(value)}`);
  } else if (schema.type === "integer" && !Number.isInteger(value)) {
    problems.push(`${path}: expected an integer, got ${JSON.stringify(value)}`);
  } else if (schema.type === "number" && typeof value !== "number") {
    problems.push(`${path}: expected a number, got ${JSON.stringify(value)}`);
  } else if (schema.type === "boolean" && typeof value !== "boolean") {
    problems.push(`${path}: expected a boolean, got ${JSON.stringify(value)}`);
  }
  if (schema.enum && !schema.enum.includes(value)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  return problems;
}

// The connector's own wire types: the fake serves what the connector reads.
type ExampleLine = WalmartOrderLine;
type ExampleOrder = WalmartOrder & { purchaseOrderId: string };

type LineStatus = "Created" | "Acknowledged" | "Shipped" | "Cancelled";

/** How much of a line is in each status. */
function quantities(line: ExampleLine): Record<LineStatus, number> {
  const q: Record<LineStatus, number> = { Created: 0, Acknowledged: 0, Shipped: 0, Cancelled: 0 };
  for (const s of line.orderLineStatuses?.orderLineStatus ?? []) {
    const status = s.status === "Delivered" ? "Shipped" : (s.status as LineStatus);
    if (status in q) q[status] += Number(s.statusQuantity?.amount ?? "0");
  }
  return q;
}

/**
 * Sets the line's open and cancelled quantities and adds a Shipped entry of its own for a new
 * package (each Shipped entry keeps its quantity and trackingInfo, as Walmart's schema shows a
 * line sent out in several packages); the Shipped entries already there stay as they are.
 */
function setQuantities(line: ExampleLine, q: Record<LineStatus, number>, shippedNow?: { quantity: number; trackingInfo: unknown }): void {
  const statuses = line.orderLineStatuses?.orderLineStatus ?? [];
  const kept = new Map(statuses.map((s) => [s.status, s]));
  const entry = (status: LineStatus) => ({ ...(kept.get(status) ?? {}), status, statusQuantity: { unitOfMeasurement: "EACH", amount: String(q[status]) } });
  const shipped: WalmartOrderLineStatus[] = statuses.filter((s) => s.status === "Shipped" || s.status === "Delivered");
  if (shippedNow && shippedNow.quantity > 0) {
    shipped.push({
      status: "Shipped",
      statusQuantity: { unitOfMeasurement: "EACH", amount: String(shippedNow.quantity) },
      ...(shippedNow.trackingInfo ? { trackingInfo: shippedNow.trackingInfo as WalmartOrderLineStatus["trackingInfo"] } : {}),
    });
  }
  line.orderLineStatuses = {
    orderLineStatus: [
      ...(["Created", "Acknowledged"] as const).filter((status) => q[status] > 0).map(entry),
      ...shipped,
      ...(q.Cancelled > 0 ? [entry("Cancelled")] : []),
    ],
  };
}
interface ExampleList {
  list: { meta: { totalCount?: number; limit?: number; nextCursor?: string }; elements: { order: ExampleOrder[] } };
}

function operation(id: string): Operation {
  const op = spec.operations.find((o) => o.operationId === id);
  if (!op) throw new Error(`walmart-examples.json has no operation ${id}; rerun the extract script`);
  return op;
}

function listExample(id: string): ExampleList {
  return operation(id).responseExamples?.default as ExampleList;
}

// Every order the description shows, by purchaseOrderId (the first appearance wins).
const KNOWN_ORDERS = new Map<string, ExampleOrder>();
for (const op of spec.operations) {
  for (const example of Object.values(op.responseExamples ?? {})) {
    const e = example as { order?: ExampleOrder; list?: ExampleList["list"] };
    for (const order of [...(e.order ? [e.order] : []), ...(e.list?.elements.order ?? [])]) {
      if (!KNOWN_ORDERS.has(order.purchaseOrderId)) KNOWN_ORDERS.set(order.purchaseOrderId, order);
    }
  }
}

const allCreated = (o: ExampleOrder) =>
  (o.orderLines?.orderLine ?? []).every((l) => (l.orderLineStatuses?.orderLineStatus ?? []).every((s) => s.status === "Created"));

// Page 2 of each list: orders the description documents elsewhere, so both pages are its data.
const SECOND_PAGES: Record<string, ExampleOrder[]> = {
  getAllOrders: listExample("getAllReleasedOrders").list.elements.order,
  getAllReleasedOrders: listExample("getAllOrders").list.elements.order.filter(allCreated),
};

const DATE_VALUE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

// Literal paths first, so /v3/orders/released is not read as /v3/orders/{purchaseOrderId}.
const ROUTES = routesOf(spec.operations);

export function createWalmartFake(opts: WalmartFakeOptions = {}): WalmartFake {
  const clientId = opts.clientId ?? WALMART_FAKE_CLIENT_ID;
  const clientSecret = opts.clientSecret ?? WALMART_FAKE_CLIENT_SECRET;
  const now = opts.now ?? (() => new Date());
  const requests: ReceivedRequest[] = [];
  const violations: string[] = [];
  const tokens: string[] = [];
  const tokenState = new Map<string, { expiresAt: number; expired: boolean }>();
  const correlationIds = new Set<string>();
  const issuedCursors = new Set<string>();
  const faults = faultQueue<FaultTarget>("api");
  const orders = new Map<string, ExampleOrder>();

  /** The fake's own copy of an order, made on first use from the description's examples. */
  function stateOf(id: string): ExampleOrder | undefined {
    if (!orders.has(id)) {
      const known = KNOWN_ORDERS.get(id);
      if (!known) return undefined;
      orders.set(id, clone(known));
    }
    return orders.get(id);
  }

  const current = (order: ExampleOrder) => clone(orders.get(order.purchaseOrderId) ?? order);

  /** Applies a line operation all or nothing; a message saying what Walmart refuses, or null. */
  function change(order: ExampleOrder, operationId: string, body: unknown): string | null {
    const lines = order.orderLines?.orderLine ?? [];
    if (operationId === "acknowledgeOrders") {
      if (
        lines.every((l) => {
          const q = quantities(l);
          return q.Cancelled > 0 && q.Created + q.Acknowledged + q.Shipped === 0;
        })
      ) {
        return `Order ${order.purchaseOrderId} is cancelled and cannot be acknowledged`;
      }
      for (const line of lines) {
        const q = quantities(line);
        setQuantities(line, { ...q, Created: 0, Acknowledged: q.Acknowledged + q.Created });
      }
      return null;
    }
    const sent = bodyLineQuantities(body);
    const planned: [ExampleLine, Record<LineStatus, number>, { quantity: number; trackingInfo: unknown } | undefined][] = [];
    for (const { lineNumber, quantity, trackingInfo } of sent) {
      const line = lines.find((l) => l.lineNumber === lineNumber)!;
      const q = quantities(line);
      const open = q.Created + q.Acknowledged;
      if (quantity > open) {
        const why =
          operationId === "shippingUpdates"
            ? q.Shipped > 0
              ? "is already shipped"
              : q.Cancelled > 0
                ? "is cancelled and cannot be shipped"
                : "has less left to ship"
            : q.Shipped > 0
              ? "is shipped and cannot be cancelled (refund it instead)"
              : q.Cancelled > 0
                ? "is already cancelled"
                : "has less left to cancel";
        return `Order ${order.purchaseOrderId} line ${lineNumber} ${why}: ${quantity} sent, ${open} open`;
      }
      // Taken from Created first, then Acknowledged.
      const fromCreated = Math.min(q.Created, quantity);
      const next = { ...q, Created: q.Created - fromCreated, Acknowledged: q.Acknowledged - (quantity - fromCreated) };
      if (operationId === "shippingUpdates") next.Shipped += quantity;
      else next.Cancelled += quantity;
      planned.push([line, next, operationId === "shippingUpdates" ? { quantity, trackingInfo } : undefined]);
    }
    for (const [line, next, shippedNow] of planned) setQuantities(line, next, shippedNow);
    return null;
  }

  function checkHeaders(headers: Headers, names: string[], problems: string[]): void {
    for (const name of names) {
      if (!headers.get(name)?.trim()) problems.push(`header ${name} is required`);
    }
    const accept = headers.get("Accept");
    if (accept && !accept.split(",").some((a) => a.trim().split(";")[0] === "application/json")) {
      problems.push(`Accept must be application/json, got ${accept}`);
    }
    const id = headers.get("WM_QOS.CORRELATION_ID");
    if (id) {
      if (correlationIds.has(id)) problems.push(`WM_QOS.CORRELATION_ID ${id} was already used by an earlier call`);
      correlationIds.add(id);
    }
  }

  function handleToken(request: Request, form: Record<string, string>, problems: string[]): Response {
    checkHeaders(request.headers, spec.token.headers, problems);
    const contentType = request.headers.get("Content-Type") ?? "";
    if (contentType.split(";")[0]?.trim() !== spec.token.contentType) {
      problems.push(`Content-Type must be ${spec.token.contentType}, got ${contentType || "none"}`);
    }
    checkAgainstSchema(form, spec.token.formSchema, "form", problems);
    if (form.grant_type !== undefined && form.grant_type !== "client_credentials") {
      problems.push(`grant_type ${form.grant_type}: this fake serves client_credentials only`);
    }
    const authorization = request.headers.get("Authorization") ?? "";
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization);
    if (!basic) problems.push("Authorization must be Basic base64(clientId:clientSecret)");
    if (problems.length > 0) return violation(request, problems);
    const fault = faults.take("token");
    if (fault) return applyFault(fault);
    let credentials = "";
    try {
      credentials = atob(basic![1]!);
    } catch {
      // Not base64 after all: answered like wrong credentials.
    }
    if (credentials !== `${clientId}:${clientSecret}`) {
      return json(401, walmartErrorBody(401, "Invalid client credentials"));
    }
    const token = `${spec.token.response.access_token}${tokens.length + 1}`;
    const expiresIn = opts.expiresIn ?? spec.token.response.expires_in;
    tokens.push(token);
    tokenState.set(token, { expiresAt: now().getTime() + expiresIn * 1000, expired: false });
    return json(200, { ...spec.token.response, access_token: token, expires_in: expiresIn });
  }

  function violation(request: Request, problems: string[]): Response {
    const where = `${request.method} ${new URL(request.url).pathname}`;
    for (const p of problems) violations.push(`${where}: ${p}`);
    return json(400, walmartErrorBody(400, problems.join("; ")));
  }

  function applyFault(fault: Fault<FaultTarget>): Response {
    // A page a fault answers names its next page like any other: the connector may ask for it.
    const next = (fault.kind === "answer" ? (fault.body as ExampleList | undefined) : undefined)?.list?.meta?.nextCursor;
    if (typeof next === "string") issuedCursors.add(next);
    return faultResponse(fault, (f) => json(f.status, f.body ?? walmartErrorBody(f.status), f.headers), true);
  }

  function handleApi(request: Request, op: Operation, params: string[], url: URL, rawBody: string, problems: string[]): Response {
    checkHeaders(request.headers, spec.apiHeaders, problems);
    const token = request.headers.get("WM_SEC.ACCESS_TOKEN");
    if (token && !tokenState.has(token)) problems.push("WM_SEC.ACCESS_TOKEN is not a token this fake issued");

    const known = new Set([...op.queryParams, ...op.cursorParams]);
    for (const [name, value] of url.searchParams) {
      if (!known.has(name)) problems.push(`query parameter ${name} is not in the description of ${op.path}`);
      else if (name.endsWith("Date") && !DATE_VALUE.test(value)) problems.push(`${name}=${value} is not a UTC/ISO 8601 date`);
      else if (name === "limit" && !(/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 200)) {
        problems.push(`limit=${value} must be 1..200`);
      }
    }
    // Paging parameters only ever come from a nextCursor, which must come back unchanged.
    const isCursor = ["hasMoreElements", "soIndex", "poIndex"].some((n) => url.searchParams.has(n));
    if (isCursor && !issuedCursors.has(url.search)) {
      problems.push(`cursor query ${url.search} is not a nextCursor this fake issued (send it back as is)`);
    }

    let body: unknown = null;
    if (op.requestBody) {
      const contentType = request.headers.get("Content-Type") ?? "";
      if (contentType.split(";")[0]?.trim() !== spec.bodyContentType) {
        problems.push(`Content-Type must be ${spec.bodyContentType}, got ${contentType || "none"}`);
      }
      try {
        body = JSON.parse(rawBody);
        checkAgainstSchema(body, op.requestBody.schema, "body", problems);
      } catch {
        problems.push("body is not JSON");
      }
    } else if (rawBody !== "") {
      problems.push(`${op.operationId} takes no body`);
    }
    if (problems.length > 0) return violation(request, problems);

    const fault = faults.take("api", op.operationId);
    if (fault) return applyFault(fault);

    const state = token ? tokenState.get(token) : undefined;
    if (!state || state.expired || now().getTime() >= state.expiresAt) return json(401, walmartErrorBody(401));

    return answer(op, params, url, body);
  }

  function answer(op: Operation, params: string[], url: URL, body: unknown): Response {
    const examples = op.responseExamples ?? {};
    if (op.operationId === "getAllOrders" || op.operationId === "getAllReleasedOrders") {
      const first = listExample(op.operationId);
      if (!url.searchParams.has("hasMoreElements")) {
        if (first.list.meta.nextCursor) issuedCursors.add(first.list.meta.nextCursor);
        return json(200, { list: { ...clone(first.list), elements: { order: first.list.elements.order.map(current) } } });
      }
      const { nextCursor: _, ...meta } = first.list.meta;
      return json(200, { list: { meta, elements: { order: (SECOND_PAGES[op.operationId] ?? []).map(current) } } });
    }
    const purchaseOrderId = decodeURIComponent(params[0] ?? "");
    const order = stateOf(purchaseOrderId);
    if (!order) return json(404, walmartErrorBody(404, `Purchase order ${purchaseOrderId} not found`));
    if (op.operationId === "getAnOrder") return json(200, { order: clone(order) });
    const known = new Set((order.orderLines?.orderLine ?? []).map((l) => l.lineNumber));
    const sent = bodyLines(body);
    const unknown = sent.filter((n) => !known.has(n));
    if (unknown.length > 0) {
      return json(400, walmartErrorBody(400, `Order ${purchaseOrderId} has no line ${unknown.join(", ")}`, "lineNumber"));
    }
    if (op.operationId === "acknowledgeOrders" || op.operationId === "shippingUpdates" || op.operationId === "cancelOrderLines") {
      const refused = change(order, op.operationId, body);
      if (refused) return json(400, walmartErrorBody(400, refused, "orderLineStatus"));
      return json(200, { order: clone(order) });
    }
    return json(200, clone(examples.default ?? Object.values(examples)[0] ?? {}));
  }

  const listings = walmartListingsFake(
    {
      now,
      checkHeaders,
      checkAgainstSchema,
      tokenValid: (token) => {
        const state = token ? tokenState.get(token) : undefined;
        return !!state && !state.expired && now().getTime() < state.expiresAt;
      },
      violation,
      json,
      errorBody: walmartErrorBody,
    },
    opts.listings ?? {},
  );

  const feeds = walmartFeedsFake(
    {
      now,
      checkHeaders,
      tokenValid: (token) => {
        const state = token ? tokenState.get(token) : undefined;
        return !!state && !state.expired && now().getTime() < state.expiresAt;
      },
      violation,
      json,
      errorBody: walmartErrorBody,
      knownSku: (sku) => listings.known(sku),
      apply: (sku, change) => listings.apply(sku, change),
    },
    { ...opts.feeds },
  );

  const returns = walmartReturnsFake({
    now,
    checkHeaders,
    checkAgainstSchema,
    tokenValid: (token) => {
      const state = token ? tokenState.get(token) : undefined;
      return !!state && !state.expired && now().getTime() < state.expiresAt;
    },
    violation,
    json,
    errorBody: walmartErrorBody,
  });

  const fakeFetch: typeof fetch = async (input, init) => {
    const { request, url, rawBody, form, recorded } = await receive(input, init, (u) => u.pathname === spec.token.path);
    const returnsOperation = returns.operationId(request, url);
    if (returnsOperation) {
      recorded.operationId = returnsOperation;
      requests.push(recorded);
      const fault = faults.take("api", returnsOperation);
      const response = fault ? applyFault(fault) : returns.handle(request, url, rawBody);
      recorded.status = response.status;
      return response;
    }
    const feedOperation = feeds.operationId(request, url);
    if (feedOperation) {
      recorded.operationId = feedOperation;
      requests.push(recorded);
      const fault = faults.take("api", feedOperation);
      const response = fault ? applyFault(fault) : await feeds.handle(request, url, rawBody);
      recorded.status = response.status;
      return response;
    }
    const listing = listings.operation(url.pathname);
    if (listing) {
      recorded.operationId = listing.operationId;
      requests.push(recorded);
      const fault = faults.take("api", listing.operationId);
      const response = fault ? applyFault(fault) : listings.handle(request, listing, url, rawBody);
      recorded.status = response.status;
      return response;
    }
    const isToken = form !== null;
    const route = ROUTES.find((r) => r.regex.test(url.pathname) && r.op.method === request.method) ?? ROUTES.find((r) => r.regex.test(url.pathname));
    recorded.operationId = isToken ? "tokenAPI" : (route?.op.operationId ?? null);
    requests.push(recorded);

    let response: Response;
    const problems: string[] = [];
    if (isToken) {
      if (request.method !== spec.token.method) {
        violations.push(`${request.method} ${url.pathname}: the token API takes ${spec.token.method}`);
        response = json(405, walmartErrorBody(400, "Method not allowed"));
      } else {
        response = handleToken(request, form ?? {}, problems);
      }
    } else if (!route) {
      violations.push(`${request.method} ${url.pathname}: not a path of the description`);
      response = json(404, walmartErrorBody(404, "Not found"));
    } else if (route.op.method !== request.method) {
      violations.push(`${request.method} ${url.pathname}: the description has ${route.op.method} only`);
      response = json(405, walmartErrorBody(400, "Method not allowed"));
    } else {
      const params = route.regex.exec(url.pathname)!.slice(1);
      response = handleApi(request, route.op, params, url, rawBody, problems);
    }
    recorded.status = response.status;
    return response;
  };

  return {
    fetch: fakeFetch,
    requests,
    violations,
    tokens,
    failNext: faults.failNext,
    failNextWithError: faults.failNextWithError,
    expireTokens() {
      for (const state of tokenState.values()) state.expired = true;
    },
    apiRequests() {
      return requests.filter((r) => r.operationId !== "tokenAPI");
    },
    order(purchaseOrderId) {
      const order = stateOf(purchaseOrderId);
      return order && clone(order);
    },
    editOrder(purchaseOrderId, edit) {
      const order = stateOf(purchaseOrderId);
      if (!order) throw new Error(`the fake has no order ${purchaseOrderId}`);
      edit(order);
    },
    changeInWalmart(purchaseOrderId, what) {
      const order = stateOf(purchaseOrderId);
      if (!order) throw new Error(`the fake has no order ${purchaseOrderId}`);
      const cancel = "cancel" in what;
      const body = {
        [cancel ? "orderCancellation" : "orderShipment"]: {
          orderLines: {
            orderLine: (cancel ? what.cancel : what.ship).map((l) => ({
              lineNumber: l.lineNumber,
              orderLineStatuses: {
                orderLineStatus: [
                  {
                    status: cancel ? "Cancelled" : "Shipped",
                    statusQuantity: { unitOfMeasurement: "EACH", amount: String(l.quantity) },
                    ...(cancel
                      ? {}
                      : {
                          trackingInfo: {
                            shipDateTime: now().getTime(),
                            carrierName: { carrier: "USPS" },
                            methodCode: "Standard",
                            trackingNumber: what.trackingNumber,
                          },
                        }),
                  },
                ],
              },
            })),
          },
        },
      };
      const refused = change(order, cancel ? "cancelOrderLines" : "shippingUpdates", body);
      if (refused) throw new Error(refused);
    },
    item: (sku) => listings.item(sku),
    feeds: feeds.feeds,
    feedOptions: feeds.options,
    returns: { put: returns.put, get: returns.get, refunds: returns.refunds },
  };
}

function bodyLines(body: unknown): string[] {
  const b = body as {
    orderShipment?: { orderLines?: { orderLine?: { lineNumber?: string }[] } };
    orderCancellation?: { orderLines?: { orderLine?: { lineNumber?: string }[] } };
    orderRefund?: { orderLines?: { orderLine?: { lineNumber?: string }[] } };
  } | null;
  const lines = (b?.orderShipment ?? b?.orderCancellation ?? b?.orderRefund)?.orderLines?.orderLine ?? [];
  return lines.map((l) => l.lineNumber ?? "");
}

/** Each line a shipment or cancellation names, with the quantity it moves and its tracking. */
function bodyLineQuantities(body: unknown): { lineNumber: string; quantity: number; trackingInfo: unknown }[] {
  // What the connector sends, read as loosely as anything a client could send.
  type Line = Partial<WalmartShipmentRequest["orderShipment"]["orderLines"]["orderLine"][number]>;
  const b = body as {
    orderShipment?: { orderLines?: { orderLine?: Line[] } };
    orderCancellation?: { orderLines?: { orderLine?: Line[] } };
  } | null;
  const lines = (b?.orderShipment ?? b?.orderCancellation)?.orderLines?.orderLine ?? [];
  return lines.map((l) => {
    const statuses = l.orderLineStatuses?.orderLineStatus ?? [];
    return {
      lineNumber: l.lineNumber ?? "",
      quantity: statuses.reduce((n, s) => n + Number(s.statusQuantity?.amount ?? "0"), 0),
      trackingInfo: statuses.find((s) => "trackingInfo" in s && s.trackingInfo)?.trackingInfo,
    };
  });
}

/**
 * Order lists (getAllOrders only) for ever, empty, each naming a next page: the same one every time
 * (`repeating`) or a new one each time. For failNext.
 */
export function walmartPagesForEver(repeating: boolean): AnswerFault<FaultTarget> {
  return badDay.endlessPages(
    (n) => ({
      list: {
        meta: { totalCount: 1_000_000, limit: 100, nextCursor: `?limit=100&hasMoreElements=true&soIndex=${repeating ? 100 : 100 * (n + 1)}&poIndex=100` },
        elements: { order: [] },
      },
    }),
    { operation: "getAllOrders" },
  );
}
