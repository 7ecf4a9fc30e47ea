// A fake Amazon Selling Partner API for tests in workerd: Login with Amazon's token endpoint, the
// searchOrders, confirmShipment and Feeds operations, patchListingsItem (its offer attributes are
// amazon-listings-fake.ts's), the Reports operations of the returns report (createReport,
// getReport, getReportDocument: the report's tab-delimited text is the test's, see
// `returnsReport`), and the presigned document URLs. It answers
// from the models' own material (amazon-examples.json, extracted by amazon-examples.extract.mjs):
// a request equal to one of an operation's `x-amzn-api-sandbox` requests gets that case's answer,
// and the seller's orders are the Orders the models show, served by the rules the models state
// (windows, paging tokens, includedData, usage plans). Every request is held to the model: an
// unknown path or parameter, a wrong type, a body that misses a required field, a missing token,
// a window ending less than two minutes before the request, a paging token sent with changed
// parameters; each is answered 400 (or 403) and recorded in `violations`. The fake's own answers
// are checked against the models' response schemas too.
//
// What the models leave out comes from the guides the README cites, and is marked where used:
// the LWA token exchange, the XML order acknowledgement document and its processing report. The
// error codes and texts of its refusals are illustrative (the models give the shape only).
import { XMLBuilder, XMLParser, XMLValidator } from "fast-xml-parser";
import { badDay, faultQueue, faultResponse, type AnswerFault, type Fault } from "../fake-kit/faults";
import extracted from "./amazon-examples.json";
import { amazonListingsFake, type AmazonListingsOptions } from "./amazon-listings-fake";
import { receive, type ReceivedRequest } from "../fake-kit/received-request";
import { routesOf } from "../fake-kit/routes";
import { checkAgainstSchema, isDateTime, type Schema } from "./amazon-schema-check.mjs";

interface Param {
  name: string;
  in: string;
  required: boolean;
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: Schema;
  maxItems?: number;
}

interface Operation {
  operationId: string;
  served: boolean;
  method: string;
  path: string;
  usagePlan?: { rate: number; burst: number };
  params?: Param[];
  body?: { required: boolean; schema: Schema } | null;
  responses?: Record<string, Schema | null>;
  sandbox?: { status: number; parameters: Record<string, unknown>; response: unknown }[];
  examples?: Record<string, unknown>;
}

const spec = extracted as unknown as { operations: Operation[] };

export const AMAZON_FAKE_REFRESH_TOKEN = "Atzr|fake-refresh-token";
export const AMAZON_FAKE_CLIENT_ID = "amzn1.application-oa2-client.fake";
export const AMAZON_FAKE_CLIENT_SECRET = "fake-client-secret";
export const AMAZON_FAKE_TOKEN_URL = "https://api.amazon.com/auth/o2/token";
export const AMAZON_FAKE_BASE_URL = "https://sellingpartnerapi-na.amazon.com";
/** The presigned-URL host the models' createFeedDocument example answers with. */
const DOCUMENT_ORIGIN = "https://d34o8swod1owfl.cloudfront.net";
const API_ORIGINS = ["https://sellingpartnerapi-na.amazon.com", "https://sellingpartnerapi-eu.amazon.com", "https://sellingpartnerapi-fe.amazon.com"];

/** An Order as the models write it (orders_2026-01-01 `Order`). */
export type FakeOrder = Record<string, unknown> & {
  orderId: string;
  createdTime: string;
  lastUpdatedTime: string;
  salesChannel: { channelName: string; marketplaceId?: string; marketplaceName?: string };
  orderItems: { orderItemId: string; quantityOrdered: number; [k: string]: unknown }[];
  fulfillment?: { fulfillmentStatus: string; fulfilledBy?: string; [k: string]: unknown };
  orderAliases?: { aliasId: string; aliasType: string }[];
};

export interface FakeFeed {
  feedId: string;
  feedType: string;
  marketplaceIds: string[];
  inputFeedDocumentId: string;
  document: string;
  createdTime: string;
  processingStatus: "IN_QUEUE" | "IN_PROGRESS" | "DONE" | "FATAL" | "CANCELLED";
  resultFeedDocumentId: string | null;
  /** The document's messages as the fake read them. */
  messages: FeedMessage[];
}

export interface FeedMessage {
  messageId: string;
  amazonOrderId: string;
  merchantOrderId: string | null;
  statusCode: string;
  items: { amazonOrderItemCode: string; cancelReason: string | null }[];
}

export interface AmazonFakeOptions {
  now?: () => Date;
  /** Lifetime of issued tokens in seconds; LWA's 3600 by default. */
  expiresIn?: number;
  /** Rates (calls/s) the fake applies and states in x-amzn-RateLimit-Limit instead of the models' plans. */
  rates?: Partial<Record<string, number>>;
  /** Serve reports gzip-compressed with compressionAlgorithm GZIP (default) or plain. */
  gzipReports?: boolean;
  /** The seller's listings for patchListingsItem (amazon-listings-fake.ts). */
  listings?: AmazonListingsOptions;
}

type Target = "api" | "token" | "upload" | "download";

export interface ProcessOptions {
  status?: "DONE" | "FATAL" | "CANCELLED" | "IN_PROGRESS";
  /** Orders whose message gets an Error Result with this description. */
  reject?: Record<string, string>;
  /** Orders whose message gets a Warning Result with this description. */
  warn?: Record<string, string>;
}

const CANCEL_REASONS = [
  "NoInventory",
  "ShippingAddressUndeliverable",
  "CustomerExchange",
  "BuyerCanceled",
  "GeneralAdjustment",
  "CarrierCreditDecision",
  "RiskAssessmentInformationNotValid",
  "CarrierCoverageFailure",
  "CustomerReturn",
  "MerchandiseNotReceived",
];

const INCLUDED: Record<string, { order: string[]; item: string[] }> = {
  BUYER: { order: ["buyer"], item: [] },
  RECIPIENT: { order: ["recipient"], item: [] },
  PROCEEDS: { order: ["proceeds"], item: ["proceeds"] },
  EXPENSE: { order: [], item: ["expense"] },
  PROMOTION: { order: [], item: ["promotion"] },
  CANCELLATION: { order: [], item: ["cancellation"] },
  FULFILLMENT: { order: ["fulfillment"], item: ["fulfillment"] },
  PACKAGES: { order: ["packages"], item: [] },
  TAX: { order: ["tax"], item: ["tax"] },
  PAYMENT: { order: ["payment"], item: [] },
  FULFILLMENT_ORDERS: { order: ["fulfillmentOrders"], item: [] },
};

export function amazonErrorBody(code: string, message: string, details?: string) {
  return { errors: [{ code, message, ...(details ? { details } : {}) }] };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "x-amzn-RequestId": crypto.randomUUID(), ...headers },
  });
}

const clone = <T>(value: T): T => structuredClone(value);

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function operation(id: string): Operation {
  const op = spec.operations.find((o) => o.operationId === id && o.served);
  if (!op) throw new Error(`amazon-examples.json has no served operation ${id}; rerun the extract script`);
  return op;
}

/** Every Order the models show for searchOrders (its example and its sandbox answers), first appearance wins. */
export function exampleOrders(): FakeOrder[] {
  const op = operation("searchOrders");
  const answers = [...Object.values(op.examples ?? {}), ...(op.sandbox ?? []).filter((c) => c.status === 200).map((c) => c.response)];
  const seen = new Map<string, FakeOrder>();
  for (const answer of answers) {
    for (const order of (answer as { orders?: FakeOrder[] }).orders ?? []) {
      if (!seen.has(order.orderId)) seen.set(order.orderId, clone(order));
    }
  }
  return [...seen.values()];
}

const ROUTES = routesOf(spec.operations);

export function createAmazonFake(opts: AmazonFakeOptions = {}) {
  const now = opts.now ?? (() => new Date());
  const listings = amazonListingsFake(opts.listings);
  const requests: ReceivedRequest[] = [];
  const violations: string[] = [];
  const tokens: string[] = [];
  const tokenState = new Map<string, { expiresAt: number; revoked: boolean }>();
  const faults = faultQueue<Target>("api");
  const orders: FakeOrder[] = exampleOrders();
  const buckets = new Map<string, { tokens: number; at: number }>();
  const pageTokens = new Map<string, { ids: string[]; offset: number; signature: string; issuedAt: number }>();
  const documents = new Map<string, { contentType: string; createdAt: number; content: string | null; signature: string }>();
  const feeds: FakeFeed[] = [];
  const reports = new Map<string, Uint8Array>();
  /** Shipments confirmed, by order and packageReferenceId (a repeat with the same id edits). */
  const shipments = new Map<string, Map<string, Record<string, unknown>>>();
  /** Items cancelled in the fake ("orderId orderItemId"): nothing of them is left to ship. */
  const cancelledItems = new Set<string>();
  /** Reports created (createReport), by id: their status until the test finishes them (finishReports). */
  const createdReports = new Map<string, { body: Record<string, unknown>; createdTime: string; processingStatus: string; reportDocumentId: string | null }>();
  /** The text of the returns report the next finished report serves (the test sets it). */
  let returnsReportText = "";
  let throttled = 0;
  let nextFeedId = 50_001;
  let nextReportId = 70_001;

  const nowMs = () => now().getTime();

  function applyFault(fault: Fault<Target>): Response {
    // A string is sent as it is (a proxy's HTML page, S3's XML error).
    return faultResponse(fault, (f) =>
      json(f.status, f.body ?? amazonErrorBody(f.status === 429 ? "QuotaExceeded" : "InternalFailure", "Fault injected by the test"), f.headers),
    );
  }

  function violation(where: string, problems: string[], status = 400): Response {
    for (const p of problems) violations.push(`${where}: ${p}`);
    return json(status, amazonErrorBody("InvalidInput", "Invalid Input", problems.join("; ")));
  }

  function rateOf(op: Operation): number {
    return opts.rates?.[op.operationId] ?? op.usagePlan!.rate;
  }

  /** Amazon's token bucket per operation: burst tokens, refilled at the rate. */
  function admit(op: Operation): boolean {
    const rate = rateOf(op);
    const burst = op.usagePlan!.burst;
    const t = nowMs();
    const b = buckets.get(op.operationId) ?? { tokens: burst, at: t };
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * rate);
    b.at = t;
    buckets.set(op.operationId, b);
    // A hair of tolerance for the float arithmetic of a refill computed in milliseconds.
    if (b.tokens < 1 - 1e-9) return false;
    b.tokens -= 1;
    return true;
  }

  function checkOwnAnswer(op: Operation, status: number, body: unknown): void {
    const schema = op.responses?.[String(status)];
    if (!schema) return;
    for (const p of checkAgainstSchema(body, schema, `${op.operationId} ${status} answer`)) violations.push(`fake answer does not fit the model: ${p}`);
  }

  function answer(op: Operation, status: number, body: unknown): Response {
    checkOwnAnswer(op, status, body);
    return json(status, body, { "x-amzn-RateLimit-Limit": String(rateOf(op)) });
  }

  // ---------------------------------------------------------------- token
  function handleToken(request: Request, rawBody: string): Response {
    const where = `${request.method} ${new URL(request.url).pathname}`;
    const problems: string[] = [];
    if (request.method !== "POST") problems.push("the token endpoint takes POST");
    const contentType = request.headers.get("Content-Type") ?? "";
    if (contentType.split(";")[0]?.trim().toLowerCase() !== "application/x-www-form-urlencoded") {
      problems.push(`Content-Type must be application/x-www-form-urlencoded, got ${contentType || "none"}`);
    }
    const form = new URLSearchParams(rawBody);
    for (const name of ["grant_type", "refresh_token", "client_id", "client_secret"]) {
      if (!form.get(name)) problems.push(`form field ${name} is required`);
    }
    for (const name of form.keys()) {
      if (!["grant_type", "refresh_token", "client_id", "client_secret", "scope"].includes(name)) problems.push(`form field ${name} is not LWA's`);
    }
    if (form.get("grant_type") && form.get("grant_type") !== "refresh_token")
      problems.push(`grant_type ${form.get("grant_type")}: a seller's calls need refresh_token`);
    if (problems.length > 0) {
      for (const p of problems) violations.push(`${where}: ${p}`);
      return json(400, { error: "invalid_request", error_description: problems.join("; ") });
    }
    const fault = faults.take("token");
    if (fault) return applyFault(fault);
    if (form.get("client_id") !== AMAZON_FAKE_CLIENT_ID || form.get("client_secret") !== AMAZON_FAKE_CLIENT_SECRET) {
      return json(401, { error: "invalid_client", error_description: "Client authentication failed" });
    }
    if (form.get("refresh_token") !== AMAZON_FAKE_REFRESH_TOKEN) {
      return json(400, { error: "invalid_grant", error_description: "The request has an invalid grant parameter : refresh_token" });
    }
    const token = `Atza|fake-access-token-${tokens.length + 1}`;
    const expiresIn = opts.expiresIn ?? 3600;
    tokens.push(token);
    tokenState.set(token, { expiresAt: nowMs() + expiresIn * 1000, revoked: false });
    return json(200, { access_token: token, refresh_token: AMAZON_FAKE_REFRESH_TOKEN, token_type: "bearer", expires_in: expiresIn });
  }

  // ---------------------------------------------------------------- request checks
  function readQuery(op: Operation, url: URL, problems: string[]): Record<string, unknown> {
    const params = new Map((op.params ?? []).filter((p) => p.in === "query").map((p) => [p.name, p]));
    const values: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (const [name, raw] of url.searchParams) {
      const param = params.get(name);
      if (!param) {
        problems.push(`query parameter ${name} is not in the model of ${op.operationId}`);
        continue;
      }
      // Swagger 2.0's default collectionFormat is csv: one parameter, values joined by commas.
      if (seen.has(name)) problems.push(`query parameter ${name} is repeated; the model's arrays are comma-separated`);
      seen.add(name);
      if (param.type === "array") {
        const list = raw.split(",");
        if (param.maxItems !== undefined && list.length > param.maxItems) problems.push(`${name} takes at most ${param.maxItems} values`);
        for (const v of list) {
          if (v === "") problems.push(`${name} has an empty value`);
          else if (param.items?.enum && !param.items.enum.includes(v)) problems.push(`${name}: ${v} is not one of ${param.items.enum.join(", ")}`);
        }
        values[name] = list;
      } else if (param.type === "integer") {
        if (!/^-?\d+$/.test(raw)) problems.push(`${name}=${raw} is not an integer`);
        values[name] = Number(raw);
      } else if (param.type === "boolean") {
        if (raw !== "true" && raw !== "false") problems.push(`${name}=${raw} is not a boolean`);
        values[name] = raw === "true";
      } else {
        if (param.format === "date-time" && !isDateTime(raw)) problems.push(`${name}=${raw} is not an ISO 8601 date-time`);
        values[name] = raw;
      }
    }
    for (const p of params.values()) if (p.required && !seen.has(p.name)) problems.push(`query parameter ${p.name} is required`);
    return values;
  }

  function readBody(op: Operation, request: Request, rawBody: string, problems: string[]): unknown {
    if (!op.body) {
      if (rawBody !== "") problems.push(`${op.operationId} takes no body`);
      return undefined;
    }
    const contentType = request.headers.get("Content-Type") ?? "";
    if (contentType.split(";")[0]?.trim().toLowerCase() !== "application/json") {
      problems.push(`Content-Type must be application/json (the model consumes it), got ${contentType || "none"}`);
    }
    try {
      const body = JSON.parse(rawBody) as unknown;
      checkAgainstSchema(body, op.body.schema, "body", problems);
      return body;
    } catch {
      problems.push("body is not JSON");
      return undefined;
    }
  }

  function sandboxAnswer(op: Operation, parameters: Record<string, unknown>): Response | null {
    for (const c of op.sandbox ?? []) {
      if (
        deepEqual(Object.keys(c.parameters).sort(), Object.keys(parameters).sort()) &&
        Object.entries(c.parameters).every(([k, v]) => deepEqual(v, parameters[k]))
      ) {
        return json(c.status, c.response, c.status < 300 || c.status === 400 ? { "x-amzn-RateLimit-Limit": String(rateOf(op)) } : {});
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- searchOrders
  const PAGING_FREE = new Set(["paginationToken", "maxResultsPerPage", "includedData"]);

  function signatureOf(query: Record<string, unknown>): string {
    return JSON.stringify(
      Object.entries(query)
        .filter(([k]) => !PAGING_FREE.has(k))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  }

  function shaped(order: FakeOrder, included: string[]): FakeOrder {
    const out = clone(order) as Record<string, unknown>;
    for (const [dataset, fields] of Object.entries(INCLUDED)) {
      if (included.includes(dataset)) continue;
      for (const f of fields.order) delete out[f];
      for (const item of (out.orderItems as Record<string, unknown>[]) ?? []) for (const f of fields.item) delete item[f];
    }
    return out as FakeOrder;
  }

  function searchOrders(op: Operation, q: Record<string, unknown>): Response {
    const where = "GET /orders/2026-01-01/orders";
    const problems: string[] = [];
    const created = q.createdAfter !== undefined;
    const updated = q.lastUpdatedAfter !== undefined;
    if (created === updated) problems.push("exactly one of createdAfter and lastUpdatedAfter is required");
    if (created && q.lastUpdatedBefore !== undefined) problems.push("lastUpdatedBefore may not go with createdAfter");
    if (updated && q.createdBefore !== undefined) problems.push("createdBefore may not go with lastUpdatedAfter");
    const after = Date.parse(String(q.lastUpdatedAfter ?? q.createdAfter ?? ""));
    const beforeRaw = (q.lastUpdatedBefore ?? q.createdBefore) as string | undefined;
    const before = beforeRaw === undefined ? nowMs() - 120_000 : Date.parse(beforeRaw);
    if (beforeRaw !== undefined) {
      if (before < after)
        problems.push(`${updated ? "lastUpdatedBefore" : "createdBefore"} must be equal to or after ${updated ? "lastUpdatedAfter" : "createdAfter"}`);
      if (before > nowMs() - 120_000) {
        problems.push(
          `${updated ? "lastUpdatedBefore" : "createdBefore"} ${beforeRaw} must be at least two minutes before the request (${now().toISOString()})`,
        );
      }
    }
    const size = (q.maxResultsPerPage as number | undefined) ?? 100;
    if (!(size >= 1 && size <= 100)) problems.push(`maxResultsPerPage=${size} must be between 1 and 100`);
    let ids: string[];
    let offset = 0;
    const token = q.paginationToken as string | undefined;
    if (token !== undefined) {
      const page = pageTokens.get(token);
      if (!page) problems.push(`paginationToken ${token} is not a nextToken this fake issued`);
      else if (page.signature !== signatureOf(q))
        problems.push("paginationToken came back with other parameters changed (only maxResultsPerPage and includedData may)");
      else if (nowMs() - page.issuedAt > 24 * 3_600_000) problems.push("paginationToken expired (24 hours)");
      ids = page?.ids ?? [];
      offset = page?.offset ?? 0;
    } else {
      const marketplaces = q.marketplaceIds as string[] | undefined;
      const statuses = q.fulfillmentStatuses as string[] | undefined;
      const by = q.fulfilledBy as string[] | undefined;
      ids = orders
        .filter((o) => {
          const t = Date.parse(updated ? o.lastUpdatedTime : o.createdTime);
          return t >= after && t <= before;
        })
        .filter((o) => !marketplaces || marketplaces.includes(o.salesChannel.marketplaceId ?? ""))
        .filter((o) => !statuses || statuses.includes(o.fulfillment?.fulfillmentStatus ?? ""))
        .filter((o) => !by || by.includes(o.fulfillment?.fulfilledBy ?? ""))
        .sort((a, b) => Date.parse(a.lastUpdatedTime) - Date.parse(b.lastUpdatedTime) || (a.orderId < b.orderId ? -1 : 1))
        .map((o) => o.orderId);
    }
    if (problems.length > 0) return violation(where, problems);
    const pageIds = ids.slice(offset, offset + size);
    const included = (q.includedData as string[] | undefined) ?? [];
    const body: Record<string, unknown> = {
      orders: pageIds
        .map((id) => orders.find((o) => o.orderId === id))
        .filter((o): o is FakeOrder => !!o)
        .map((o) => shaped(o, included)),
    };
    if (offset + size < ids.length) {
      const next = `${crypto.randomUUID().replaceAll("-", "")}`;
      pageTokens.set(next, { ids, offset: offset + size, signature: signatureOf(q), issuedAt: nowMs() });
      body.pagination = { nextToken: next };
    }
    if (beforeRaw !== undefined) body[updated ? "lastUpdatedBefore" : "createdBefore"] = beforeRaw;
    return answer(op, 200, body);
  }

  // ---------------------------------------------------------------- confirmShipment
  /**
   * The order as Amazon shows it after its packages changed: each item's quantityFulfilled and
   * quantityUnfulfilled, the order PARTIALLY_SHIPPED or SHIPPED, and `packages` (PACKAGES data)
   * listing the documented packages and every package confirmed here.
   */
  function recordPackages(order: FakeOrder, packages: Map<string, Record<string, unknown>>): void {
    const shippedOf = (orderItemId: string) =>
      [...packages.values()]
        .flatMap((p) => p.orderItems as { orderItemId: string; quantity: number }[])
        .filter((i) => i.orderItemId === orderItemId)
        .reduce((n, i) => n + i.quantity, 0);
    for (const item of order.orderItems) {
      const shipped = shippedOf(item.orderItemId);
      const cancelled = cancelledItems.has(`${order.orderId} ${item.orderItemId}`);
      item.fulfillment = { ...(item.fulfillment as object), quantityFulfilled: shipped, quantityUnfulfilled: cancelled ? 0 : item.quantityOrdered - shipped };
    }
    const open = order.orderItems.some((i) => (i.fulfillment as { quantityUnfulfilled: number }).quantityUnfulfilled > 0);
    if (order.fulfillment) order.fulfillment.fulfillmentStatus = open ? "PARTIALLY_SHIPPED" : "SHIPPED";
    const documented = ((order.packages as { packageReferenceId: string }[] | undefined) ?? []).filter((p) => !packages.has(p.packageReferenceId));
    order.packages = [
      ...documented,
      ...[...packages].map(([id, p]) => ({
        packageReferenceId: id,
        createdTime: now().toISOString(),
        carrier: p.carrierCode === "Other" ? p.carrierName : p.carrierCode,
        shipTime: p.shipDate,
        ...(p.shippingMethod ? { shippingService: p.shippingMethod } : {}),
        trackingNumber: p.trackingNumber,
        packageItems: (p.orderItems as { orderItemId: string; quantity: number }[]).map((i) => ({ orderItemId: i.orderItemId, quantity: i.quantity })),
      })),
    ];
  }

  /** The buyer's cancellation of an item, granted in Seller Central: Amazon's own line-level change. */
  function cancelItemInAmazon(orderId: string, orderItemId: string): void {
    const order = orders.find((o) => o.orderId === orderId);
    const item = order?.orderItems.find((i) => i.orderItemId === orderItemId);
    if (!order || !item) throw new Error(`the fake has no item ${orderItemId} of order ${orderId}`);
    cancelledItems.add(`${orderId} ${orderItemId}`);
    item.cancellation = {
      cancellationRequest: { requester: "BUYER", cancelReason: "Changed mind about purchase" },
      cancellationExecution: { cancelledBy: "MERCHANT", cancelReason: "Buyer requested cancellation" },
    };
    recordPackages(order, shipments.get(orderId) ?? new Map());
    order.lastUpdatedTime = now().toISOString();
  }

  function confirmShipment(op: Operation, orderId: string, body: Record<string, unknown>): Response {
    const where = `POST /orders/v0/orders/${orderId}/shipmentConfirmation`;
    const order = orders.find((o) => o.orderId === orderId);
    if (!order) return answer(op, 404, amazonErrorBody("NotFound", `Order ${orderId} was not found`));
    const detail = body.packageDetail as Record<string, unknown>;
    const problems: string[] = [];
    if (!/^[1-9]\d*$/.test(String(detail.packageReferenceId)))
      problems.push(`packageReferenceId ${JSON.stringify(detail.packageReferenceId)}: only positive numeric values are supported`);
    if (detail.carrierCode === "Other" && !detail.carrierName) problems.push("carrierName is required when carrierCode is Other");
    if (body.marketplaceId !== order.salesChannel.marketplaceId)
      problems.push(`marketplaceId ${String(body.marketplaceId)} is not order ${orderId}'s (${order.salesChannel.marketplaceId})`);
    if (order.fulfillment?.fulfilledBy === "AMAZON") problems.push(`order ${orderId} is fulfilled by Amazon: the seller cannot confirm its shipment`);
    for (const item of (detail.orderItems as { orderItemId: string; quantity: number }[]) ?? []) {
      const line = order.orderItems.find((i) => i.orderItemId === item.orderItemId);
      if (!line) problems.push(`order ${orderId} has no item ${item.orderItemId}`);
      else if (item.quantity < 1 || item.quantity > line.quantityOrdered)
        problems.push(`item ${item.orderItemId}: quantity ${item.quantity} of ${line.quantityOrdered} ordered`);
    }
    if (problems.length > 0) return violation(where, problems);
    if (order.fulfillment?.fulfillmentStatus === "CANCELLED") {
      return answer(op, 400, amazonErrorBody("InvalidInput", `Order ${orderId} is cancelled`, "A cancelled order cannot be shipped"));
    }
    const packages = shipments.get(orderId) ?? new Map<string, Record<string, unknown>>();
    const reference = String(detail.packageReferenceId);
    // Each item's units in the order's other packages (a repeat of this packageReferenceId edits it).
    const items = detail.orderItems as { orderItemId: string; quantity: number }[];
    for (const item of items) {
      const line = order.orderItems.find((i) => i.orderItemId === item.orderItemId)!;
      const elsewhere = [...packages]
        .filter(([id]) => id !== reference)
        .flatMap(([, p]) => p.orderItems as { orderItemId: string; quantity: number }[])
        .filter((i) => i.orderItemId === item.orderItemId)
        .reduce((n, i) => n + i.quantity, 0);
      const left = cancelledItems.has(`${orderId} ${item.orderItemId}`) ? 0 : line.quantityOrdered - elsewhere;
      if (item.quantity > left) {
        return answer(
          op,
          400,
          amazonErrorBody("InvalidInput", `Order ${orderId} item ${item.orderItemId}: quantity ${item.quantity} is more than the ${left} left to ship`),
        );
      }
    }
    packages.set(reference, clone(detail));
    shipments.set(orderId, packages);
    recordPackages(order, packages);
    order.lastUpdatedTime = now().toISOString();
    return new Response(null, { status: 204, headers: { "x-amzn-RequestId": crypto.randomUUID(), "x-amzn-RateLimit-Limit": String(rateOf(op)) } });
  }

  // ---------------------------------------------------------------- feeds
  function createFeedDocument(op: Operation, body: { contentType: string }): Response {
    const id = crypto.randomUUID();
    const signature = crypto.randomUUID().replaceAll("-", "");
    documents.set(id, { contentType: body.contentType, createdAt: nowMs(), content: null, signature });
    return answer(op, 201, { feedDocumentId: id, url: `${DOCUMENT_ORIGIN}/${id}.xml?X-Amz-Expires=300&X-Amz-Signature=${signature}` });
  }

  function handleUpload(request: Request, url: URL, rawBody: string): Response {
    const where = `${request.method} ${url.pathname}`;
    const id = /^\/([0-9a-f-]{36})\.xml$/.exec(url.pathname)?.[1];
    const doc = id ? documents.get(id) : undefined;
    if (!doc || url.searchParams.get("X-Amz-Signature") !== doc.signature) {
      violations.push(`${where}: not a URL createFeedDocument issued`);
      return new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403 });
    }
    const problems: string[] = [];
    if (request.method !== "PUT") problems.push("a feed document is uploaded with PUT");
    if ((request.headers.get("Content-Type") ?? "") !== doc.contentType) {
      problems.push(`Content-Type must be the one given to createFeedDocument (${doc.contentType}), got ${request.headers.get("Content-Type") ?? "none"}`);
    }
    if (request.headers.has("x-amz-access-token")) problems.push("the access token must not travel to the document URL");
    if (problems.length > 0) {
      for (const p of problems) violations.push(`${where}: ${p}`);
      return new Response("<Error><Code>SignatureDoesNotMatch</Code></Error>", { status: 403 });
    }
    if (nowMs() - doc.createdAt > 5 * 60_000)
      return new Response("<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>", { status: 403 });
    const fault = faults.take("upload");
    if (fault) return applyFault(fault);
    doc.content = rawBody;
    return new Response(null, { status: 200 });
  }

  function createFeed(op: Operation, body: { feedType: string; marketplaceIds: string[]; inputFeedDocumentId: string }): Response {
    const where = "POST /feeds/2021-06-30/feeds";
    const doc = documents.get(body.inputFeedDocumentId);
    if (!doc) return answer(op, 400, amazonErrorBody("InvalidInput", "Invalid input", `Unknown inputFeedDocumentId ${body.inputFeedDocumentId}`));
    if (doc.content === null) return violation(where, [`feed document ${body.inputFeedDocumentId} was never uploaded`]);
    const problems: string[] = [];
    let messages: FeedMessage[] = [];
    if (body.feedType === "POST_ORDER_ACKNOWLEDGEMENT_DATA") {
      if (!/^text\/xml\b/.test(doc.contentType)) problems.push(`an XML feed's document is text/xml, not ${doc.contentType}`);
      messages = readAcknowledgementFeed(doc.content, problems);
    } else {
      problems.push(`feedType ${body.feedType}: this fake processes POST_ORDER_ACKNOWLEDGEMENT_DATA only`);
    }
    if (problems.length > 0) return violation(where, problems);
    const feedId = String(nextFeedId++);
    feeds.push({
      feedId,
      feedType: body.feedType,
      marketplaceIds: body.marketplaceIds,
      inputFeedDocumentId: body.inputFeedDocumentId,
      document: doc.content,
      createdTime: now().toISOString(),
      processingStatus: "IN_QUEUE",
      resultFeedDocumentId: null,
      messages,
    });
    return answer(op, 202, { feedId });
  }

  function getFeed(op: Operation, feedId: string): Response {
    const feed = feeds.find((f) => f.feedId === feedId);
    if (!feed) return answer(op, 404, amazonErrorBody("NotFound", `Feed ${feedId} was not found`));
    return answer(op, 200, {
      feedId: feed.feedId,
      feedType: feed.feedType,
      marketplaceIds: feed.marketplaceIds,
      createdTime: feed.createdTime,
      processingStatus: feed.processingStatus,
      ...(feed.resultFeedDocumentId ? { resultFeedDocumentId: feed.resultFeedDocumentId } : {}),
    });
  }

  function getFeedDocument(op: Operation, id: string): Response {
    if (!reports.has(id)) return answer(op, 404, amazonErrorBody("NotFound", `Feed document ${id} was not found`));
    return answer(op, 200, {
      feedDocumentId: id,
      url: `${DOCUMENT_ORIGIN}/reports/${id}?X-Amz-Expires=300`,
      ...(opts.gzipReports === false ? {} : { compressionAlgorithm: "GZIP" }),
    });
  }

  // ---------------------------------------------------------------- reports (returns)
  /** Amazon's returns reports guide: a returns report covers 60 days at most. */
  const RETURNS_REPORT_MAX_MS = 60 * 24 * 3600_000;
  const RETURNS_REPORT_TYPES = ["GET_FLAT_FILE_RETURNS_DATA_BY_RETURN_DATE", "GET_XML_RETURNS_DATA_BY_RETURN_DATE"];

  function createReport(op: Operation, where: string, body: Record<string, unknown>): Response {
    const problems: string[] = [];
    if (!RETURNS_REPORT_TYPES.includes(String(body.reportType))) problems.push(`reportType ${JSON.stringify(body.reportType)} is not a returns report`);
    const start = Date.parse(String(body.dataStartTime ?? ""));
    const end = Date.parse(String(body.dataEndTime ?? ""));
    if (!Number.isFinite(start) || !Number.isFinite(end)) problems.push("a returns report needs dataStartTime and dataEndTime (the fake asks for them)");
    else if (end <= start) problems.push("dataEndTime is not after dataStartTime");
    else if (end - start > RETURNS_REPORT_MAX_MS)
      problems.push(`the period is ${Math.round((end - start) / 86_400_000)} days; a returns report covers 60 at most`);
    else if (end > nowMs()) problems.push("dataEndTime is in the future");
    if (problems.length > 0) return violation(where, problems);
    const reportId = String(nextReportId++);
    createdReports.set(reportId, { body, createdTime: now().toISOString(), processingStatus: "IN_QUEUE", reportDocumentId: null });
    return answer(op, 202, { reportId });
  }

  function getReport(op: Operation, reportId: string): Response {
    const report = createdReports.get(reportId);
    if (!report) return answer(op, 404, amazonErrorBody("NotFound", `Report ${reportId} was not found`));
    return answer(op, 200, {
      reportId,
      reportType: report.body.reportType,
      marketplaceIds: report.body.marketplaceIds,
      dataStartTime: report.body.dataStartTime,
      dataEndTime: report.body.dataEndTime,
      createdTime: report.createdTime,
      processingStatus: report.processingStatus,
      ...(report.reportDocumentId ? { reportDocumentId: report.reportDocumentId } : {}),
    });
  }

  function getReportDocument(op: Operation, id: string): Response {
    if (![...createdReports.values()].some((r) => r.reportDocumentId === id) || !reports.has(id)) {
      return answer(op, 404, amazonErrorBody("NotFound", `Report document ${id} was not found`));
    }
    return answer(op, 200, {
      reportDocumentId: id,
      url: `${DOCUMENT_ORIGIN}/reports/${id}?X-Amz-Expires=300`,
      ...(opts.gzipReports === false ? {} : { compressionAlgorithm: "GZIP" }),
    });
  }

  /** Amazon finishes every report still queued: DONE serves the returns report text set now. */
  async function finishReports(status: "DONE" | "CANCELLED" | "FATAL" | "IN_PROGRESS" = "DONE"): Promise<string[]> {
    const finished: string[] = [];
    for (const [id, report] of createdReports) {
      if (report.processingStatus !== "IN_QUEUE" && report.processingStatus !== "IN_PROGRESS") continue;
      report.processingStatus = status;
      if (status === "DONE") {
        const documentId = `amzn1.spdoc.1.4.na.${crypto.randomUUID()}`;
        const bytes = new TextEncoder().encode(returnsReportText);
        reports.set(documentId, opts.gzipReports === false ? bytes : await gzip(bytes));
        report.reportDocumentId = documentId;
      }
      finished.push(id);
    }
    return finished;
  }

  function handleDownload(request: Request, url: URL): Response {
    const id = /^\/reports\/([^/]+)$/.exec(url.pathname)?.[1] ?? "";
    const report = reports.get(id);
    if (request.method !== "GET" || !report) {
      violations.push(`${request.method} ${url.pathname}: not a report URL getFeedDocument gave`);
      return new Response("<Error><Code>NoSuchKey</Code></Error>", { status: 404 });
    }
    if (request.headers.has("x-amz-access-token")) violations.push(`${url.pathname}: the access token must not travel to the document URL`);
    const fault = faults.take("download");
    if (fault) return applyFault(fault);
    return new Response(report, { status: 200 });
  }

  // ---------------------------------------------------------------- routing
  async function handleApi(request: Request, url: URL, rawBody: string, recorded: ReceivedRequest): Promise<Response> {
    const route = ROUTES.find((r) => r.regex.test(url.pathname) && r.op.method === request.method);
    const where = `${request.method} ${url.pathname}`;
    if (!route) {
      const other = ROUTES.find((r) => r.regex.test(url.pathname));
      violations.push(`${where}: ${other ? `the model has ${other.op.method} only` : "not a path of the models"}`);
      return json(other ? 405 : 404, amazonErrorBody("InvalidInput", "Not found"));
    }
    const op = route.op;
    recorded.operationId = op.operationId;
    if (!op.served) return violation(where, [`${op.operationId} is in the models but not an operation this connector should need`]);
    const problems: string[] = [];
    const pathValues = route.regex.exec(url.pathname)!.slice(1).map(decodeURIComponent);
    const query = readQuery(op, url, problems);
    const body = readBody(op, request, rawBody, problems);
    const parameters: Record<string, unknown> = { ...query };
    (op.params ?? []).filter((p) => p.in === "path").forEach((p, i) => (parameters[p.name] = pathValues[i]));
    if (body !== undefined) parameters.body = body;

    const accessToken = request.headers.get("x-amz-access-token");
    if (!accessToken) problems.push("header x-amz-access-token is required");
    else if (!tokenState.has(accessToken)) problems.push("x-amz-access-token is not a token Login with Amazon issued");
    if (request.headers.has("Authorization")) problems.push("Authorization is not an SP-API header (the LWA token goes in x-amz-access-token)");
    if (problems.length > 0 && sandboxAnswer(op, parameters) === null) return violation(where, problems, accessToken ? 400 : 403);

    const fault = faults.take("api", op.operationId);
    if (fault) return applyFault(fault);
    const state = accessToken ? tokenState.get(accessToken) : undefined;
    if (!state || state.revoked || nowMs() >= state.expiresAt) {
      return json(403, amazonErrorBody("Unauthorized", "Access to requested resource is denied.", "The access token you provided has expired."));
    }
    if (!admit(op)) {
      throttled += 1;
      return json(429, amazonErrorBody("QuotaExceeded", "You exceeded your quota for the requested resource."));
    }
    const replay = sandboxAnswer(op, parameters);
    if (replay) return replay;
    switch (op.operationId) {
      case "searchOrders":
        return searchOrders(op, query);
      case "confirmShipment":
        return confirmShipment(op, pathValues[0]!, body as Record<string, unknown>);
      case "createFeedDocument":
        return createFeedDocument(op, body as { contentType: string });
      case "createFeed":
        return createFeed(op, body as { feedType: string; marketplaceIds: string[]; inputFeedDocumentId: string });
      case "getFeed":
        return getFeed(op, pathValues[0]!);
      case "createReport":
        return createReport(op, where, body as Record<string, unknown>);
      case "getReport":
        return getReport(op, pathValues[0]!);
      case "getReportDocument":
        return getReportDocument(op, pathValues[0]!);
      case "patchListingsItem": {
        const patched = listings.patch(pathValues[0]!, pathValues[1]!, query, body as Parameters<typeof listings.patch>[3]);
        return Array.isArray(patched) ? violation(where, patched) : answer(op, patched.status, patched.body);
      }
      default:
        return getFeedDocument(op, pathValues[0]!);
    }
  }

  const fakeFetch: typeof fetch = async (input, init) => {
    // The token request's form is kept as text: handleToken reads it.
    const { request, url, rawBody, recorded } = await receive(input, init, () => false);
    requests.push(recorded);
    let response: Response;
    if (`${url.origin}${url.pathname}` === AMAZON_FAKE_TOKEN_URL) {
      recorded.operationId = "token";
      response = handleToken(request, rawBody);
    } else if (url.origin === DOCUMENT_ORIGIN) {
      const download = url.pathname.startsWith("/reports/");
      recorded.operationId = download ? "download" : "upload";
      response = download ? handleDownload(request, url) : handleUpload(request, url, rawBody);
    } else if (API_ORIGINS.includes(url.origin)) {
      response = await handleApi(request, url, rawBody, recorded);
    } else {
      violations.push(`${request.method} ${request.url}: not a host of the Selling Partner API`);
      throw new TypeError(`getaddrinfo ENOTFOUND ${url.hostname}`);
    }
    recorded.status = response.status;
    return response;
  };

  // ---------------------------------------------------------------- feed processing
  function resultOf(message: FeedMessage, options: ProcessOptions): { code: string; messageCode: string; description: string } | null {
    const order = orders.find((o) => o.orderId === message.amazonOrderId);
    const forced = options.reject?.[message.amazonOrderId];
    if (forced) return { code: "Error", messageCode: "18028", description: forced };
    if (!order) return { code: "Error", messageCode: "18028", description: `The order id ${message.amazonOrderId} was not found` };
    if (order.fulfillment?.fulfilledBy === "AMAZON")
      return { code: "Error", messageCode: "18030", description: `Order ${message.amazonOrderId} is fulfilled by Amazon` };
    const status = order.fulfillment?.fulfillmentStatus;
    if (message.statusCode === "Failure") {
      if (status === "SHIPPED" || status === "PARTIALLY_SHIPPED") {
        return { code: "Error", messageCode: "18029", description: `Order ${message.amazonOrderId} has shipped items and cannot be cancelled` };
      }
      for (const item of message.items) {
        if (!order.orderItems.some((i) => i.orderItemId === item.amazonOrderItemCode)) {
          return { code: "Error", messageCode: "18031", description: `Order ${message.amazonOrderId} has no item ${item.amazonOrderItemCode}` };
        }
      }
      if (order.fulfillment) order.fulfillment.fulfillmentStatus = "CANCELLED";
    } else if (message.merchantOrderId) {
      order.orderAliases = [{ aliasId: message.merchantOrderId, aliasType: "SELLER_ORDER_ID" }];
    }
    order.lastUpdatedTime = now().toISOString();
    const warning = options.warn?.[message.amazonOrderId];
    return warning ? { code: "Warning", messageCode: "18040", description: warning } : null;
  }

  async function processFeeds(options: ProcessOptions = {}): Promise<FakeFeed[]> {
    const status = options.status ?? "DONE";
    const done: FakeFeed[] = [];
    for (const feed of feeds.filter((f) => f.processingStatus === "IN_QUEUE" || f.processingStatus === "IN_PROGRESS")) {
      feed.processingStatus = status;
      if (status === "IN_PROGRESS" || status === "CANCELLED") continue;
      const results = feed.messages.map((m) => ({ m, r: status === "FATAL" ? null : resultOf(m, options) }));
      const errors = results.filter((x) => x.r?.code === "Error").length;
      const warnings = results.filter((x) => x.r?.code === "Warning").length;
      const xml = new XMLBuilder({ format: true }).build({
        "?xml": "",
        AmazonEnvelope: {
          Header: { DocumentVersion: "1.02", MerchantIdentifier: "FAKE_MERCHANT" },
          MessageType: "ProcessingReport",
          Message: {
            MessageID: "1",
            ProcessingReport: {
              DocumentTransactionID: feed.feedId,
              StatusCode: "Complete",
              ProcessingSummary: {
                MessagesProcessed: status === "FATAL" ? 0 : feed.messages.length,
                MessagesSuccessful: status === "FATAL" ? 0 : feed.messages.length - errors,
                MessagesWithError: errors,
                MessagesWithWarning: warnings,
              },
              Result: results
                .filter((x) => x.r)
                .map(({ m, r }) => ({
                  MessageID: m.messageId,
                  ResultCode: r!.code,
                  ResultMessageCode: r!.messageCode,
                  ResultDescription: r!.description,
                  AdditionalInfo: { AmazonOrderID: m.amazonOrderId },
                })),
            },
          },
        },
      }) as string;
      const id = `amzn1.tortuga.4.na.${crypto.randomUUID()}`;
      const bytes = new TextEncoder().encode(xml.replace(/^<\?xml\?>/, '<?xml version="1.0" encoding="UTF-8"?>'));
      reports.set(id, opts.gzipReports === false ? bytes : await gzip(bytes));
      feed.resultFeedDocumentId = id;
      done.push(feed);
    }
    return done;
  }

  return {
    fetch: fakeFetch,
    requests,
    violations,
    tokens,
    orders,
    feeds,
    shipments,
    cancelItemInAmazon,
    get throttled() {
      return throttled;
    },
    /** Answer the next call to `target` (of one operation, when given) with this status instead. */
    failNext: faults.failNext,
    /** Make the next call to `target` fail the way fetch does when the network does. */
    failNextWithError: faults.failNextWithError,
    /** Amazon-side revocation of every issued token: the next call with one answers 403. */
    expireTokens() {
      for (const s of tokenState.values()) s.revoked = true;
    },
    /** The seller's order changed on Amazon at `at` (and `change` says how). */
    touch(orderId: string, at: Date, change?: (order: FakeOrder) => void) {
      const order = orders.find((o) => o.orderId === orderId);
      if (!order) throw new Error(`the fake has no order ${orderId}`);
      change?.(order);
      order.lastUpdatedTime = at.toISOString();
    },
    processFeeds,
    /** The reports created, by id. */
    createdReports,
    finishReports,
    /** The tab-delimited text (header line first) the next report finished DONE serves. */
    set returnsReport(text: string) {
      returnsReportText = text;
    },
    /** A SKU's quantity and price as the fake Amazon's listing shows them now. */
    item: (sku: string) => listings.item(sku),
    /** Requests to one operation of the models (or all API requests). */
    apiRequests(operationId?: string) {
      return requests.filter((r) => !["token", "upload", "download"].includes(r.operationId ?? "") && (!operationId || r.operationId === operationId));
    },
    bucketOf(operationId: string) {
      return buckets.get(operationId);
    },
  };

  /** The messages of an OrderAcknowledgement envelope, with every departure from the XSD's rules in `problems`. */
  function readAcknowledgementFeed(xml: string, problems: string[]): FeedMessage[] {
    const valid = XMLValidator.validate(xml);
    if (valid !== true) {
      problems.push(`the feed document is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
      return [];
    }
    const tree = new XMLParser({ preserveOrder: true, ignoreAttributes: false, parseTagValue: false, trimValues: true }).parse(xml) as OrderedNode[];
    const envelope = children(tree, "AmazonEnvelope");
    if (!envelope) {
      problems.push("the root element must be AmazonEnvelope");
      return [];
    }
    expectSequence(envelope, ["Header", "MessageType", "Message*"], "AmazonEnvelope", problems);
    const header = children(envelope, "Header") ?? [];
    expectSequence(header, ["DocumentVersion", "MerchantIdentifier"], "Header", problems);
    if (!textOf(header, "MerchantIdentifier")) problems.push("Header/MerchantIdentifier must not be empty");
    if (textOf(envelope, "MessageType") !== "OrderAcknowledgement")
      problems.push(`MessageType must be OrderAcknowledgement, got ${textOf(envelope, "MessageType")}`);
    const messages: FeedMessage[] = [];
    const ids = new Set<string>();
    for (const node of envelope.filter((n) => "Message" in n)) {
      const message = node.Message as OrderedNode[];
      expectSequence(message, ["MessageID", "OperationType?", "OrderAcknowledgement"], "Message", problems);
      const messageId = textOf(message, "MessageID") ?? "";
      if (!/^[1-9]\d{0,19}$/.test(messageId)) problems.push(`MessageID ${JSON.stringify(messageId)} must be a positive integer`);
      if (ids.has(messageId)) problems.push(`MessageID ${messageId} is used twice in one document`);
      ids.add(messageId);
      const ack = children(message, "OrderAcknowledgement") ?? [];
      expectSequence(ack, ["AmazonOrderID", "MerchantOrderID?", "StatusCode", "Item*"], `Message ${messageId} OrderAcknowledgement`, problems);
      const statusCode = textOf(ack, "StatusCode") ?? "";
      if (statusCode !== "Success" && statusCode !== "Failure") problems.push(`Message ${messageId}: StatusCode must be Success or Failure`);
      const merchantOrderId = textOf(ack, "MerchantOrderID");
      if (merchantOrderId !== null && (merchantOrderId.length === 0 || merchantOrderId.length > 64)) {
        problems.push(`Message ${messageId}: MerchantOrderID must be 1 to 64 characters`);
      }
      const items = ack
        .filter((n) => "Item" in n)
        .map((n) => {
          const item = n.Item as OrderedNode[];
          expectSequence(item, ["AmazonOrderItemCode", "MerchantOrderItemID?", "CancelReason?"], `Message ${messageId} Item`, problems);
          const cancelReason = textOf(item, "CancelReason");
          if (cancelReason !== null && statusCode !== "Failure") problems.push(`Message ${messageId}: CancelReason is for StatusCode Failure only`);
          if (cancelReason !== null && !CANCEL_REASONS.includes(cancelReason))
            problems.push(`Message ${messageId}: CancelReason ${cancelReason} is not one of ${CANCEL_REASONS.join(", ")}`);
          return { amazonOrderItemCode: textOf(item, "AmazonOrderItemCode") ?? "", cancelReason };
        });
      messages.push({ messageId, amazonOrderId: textOf(ack, "AmazonOrderID") ?? "", merchantOrderId, statusCode, items });
    }
    if (messages.length === 0) problems.push("the envelope has no Message");
    return messages;
  }
}

export type AmazonFake = ReturnType<typeof createAmazonFake>;

type OrderedNode = Record<string, unknown>;

function children(nodes: OrderedNode[], name: string): OrderedNode[] | null {
  const node = nodes.find((n) => name in n);
  return node ? (node[name] as OrderedNode[]) : null;
}

function textOf(nodes: OrderedNode[], name: string): string | null {
  const inner = children(nodes, name);
  if (!inner) return null;
  const text = inner.find((n) => "#text" in n)?.["#text"];
  return typeof text === "string" ? text : inner.length === 0 ? "" : null;
}

/** The element names of `nodes` in order must follow `pattern` (name, name? optional, name* repeated). */
function expectSequence(nodes: OrderedNode[], pattern: string[], where: string, problems: string[]): void {
  const names = nodes.map((n) => Object.keys(n).find((k) => k !== ":@") ?? "").filter((n) => n !== "#text");
  let i = 0;
  for (const part of pattern) {
    const name = part.replace(/[?*]$/, "");
    if (part.endsWith("*")) while (names[i] === name) i++;
    else if (part.endsWith("?")) {
      if (names[i] === name) i++;
    } else if (names[i] === name) i++;
    else {
      problems.push(`${where}: expected ${name} at position ${i + 1}, found ${names[i] ?? "nothing"} (order: ${pattern.join(", ")})`);
      return;
    }
  }
  if (i < names.length) problems.push(`${where}: unexpected ${names[i]} (order: ${pattern.join(", ")})`);
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * searchOrders pages for ever, empty, each naming a next page: the same token every time
 * (`repeating`) or a new one each time. For failNext.
 */
export function amazonPagesForEver(repeating: boolean): AnswerFault<Target> {
  return badDay.endlessPages((n) => ({ orders: [], pagination: { nextToken: repeating ? "again" : `page-${n}` } }), { operation: "searchOrders" });
}
