// A fake eBay for tests in workerd: the OAuth token endpoint, the Sell Fulfillment API v1 as its
// published description has it (ebay-description.json, extracted from
// ../shared/reference/ebay/sell_fulfillment_v1_oas3.json by ebay-description.extract.mjs) and the
// two Post-Order cancellation calls the reference README names. It holds every request to what
// those say: a path or method they do not have, a missing or wrong header, an unknown query
// parameter, a filter whose brackets are not percent-encoded, or a body that does not fit the
// schema is answered 400 in the API's own error shape and recorded in `violations`. Every order
// it serves is checked against the Order schema too.
//
// Behaviour the description does not fix, chosen here and kept simple: getOrders sorts by
// creationDate, then orderId; a fulfillment's id is its tracking number (as the description says)
// or a counter; a second fulfillment with a tracking number the order already has is 409; the
// Post-Order error ids are illustrative. The Sell Inventory API's stock and price calls are
// ebay-listings-fake.ts's; a token carries the scopes it was asked for, within `consentedScopes`.
import type { EbayOrder } from "../../../src/marketplaces/ebay/ebay.types";
import extracted from "./ebay-description.json";
import { badDay, faultQueue, faultResponse, type AnswerFault, type Fault, type FaultHelpers } from "../fake-kit/faults";
import { EBAY_INVENTORY_SCOPES, EBAY_INVENTORY_WRITE_SCOPE, ebayListingsFake, type EbayListingsOptions } from "./ebay-listings-fake";
import { receive, type ReceivedRequest } from "../fake-kit/received-request";
import { routesOf } from "../fake-kit/routes";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";

interface Operation {
  operationId: string;
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  requiredHeaders: string[];
  scopes: string[];
  used: boolean;
  requestBody?: { required: boolean; schema: Schema } | null;
  successStatus?: number;
  responseSchema?: Schema | null;
  errors?: Record<string, { status: number; domain: string; category: string; message: string }>;
}

interface Description {
  basePath: string;
  tokenUrl: string;
  scopes: string[];
  operations: Operation[];
}

const spec = extracted as unknown as Description;
const TOKEN_PATH = new URL(spec.tokenUrl).pathname;
const POST_ORDER_PATHS = { eligibility: "/post-order/v2/cancellation/check_eligibility", create: "/post-order/v2/cancellation" };
const POST_ORDER_MARKETPLACES = ["EBAY-US", "EBAY-UK", "EBAY-DE"];
const SELLER_CANCEL_REASONS = ["OUT_OF_STOCK_OR_CANNOT_FULFILL", "BUYER_ASKED_CANCEL", "ADDRESS_ISSUES"];
// The description's own format: "[YYYY]-[MM]-[DD]T[hh]:[mm]:[ss].[sss]Z".
const EBAY_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TWO_YEARS_MS = 2 * 365 * 24 * 60 * 60 * 1000;

export const EBAY_FAKE_CLIENT_ID = "SellerHu-OrderHub-PRD-fake00001";
export const EBAY_FAKE_CLIENT_SECRET = "PRD-fakesecret0001";
export const EBAY_FAKE_REFRESH_TOKEN = "v^1.1#i^1#r^1#fake-refresh-token";

export type EbayApi = "token" | "fulfillment" | "postOrder" | "inventory";

export interface RecordedRequest extends ReceivedRequest {
  api: EbayApi | null;
}

export interface EbayFakeOptions {
  orders?: EbayOrder[];
  /** The fake's clock (token expiry, "future" dates, lastModifiedDate of changes); share it with the connector's ctx.now. */
  now?: () => Date;
  /** Lifetime of issued tokens in seconds (eBay's user tokens: about two hours). */
  expiresIn?: number;
  /** The Sell Inventory API's SKUs and limits (ebay-listings-fake.ts). */
  listings?: EbayListingsOptions;
  /** The scopes the seller granted at consent; a token asked for another is refused (invalid_scope). Default: all. */
  consentedScopes?: string[];
}

export interface FakeFulfillment {
  fulfillmentId: string;
  lineItems: { lineItemId: string; quantity: number }[];
  shipmentTrackingNumber?: string;
  shippingCarrierCode?: string;
  shippedDate: string;
}

export interface EbayFake extends FaultHelpers<EbayApi> {
  fetch: typeof fetch;
  /** issueRefund calls taken, oldest first, with the refundId each was answered. */
  refunds: { orderId: string; refundId: string; body: unknown }[];
  /** eBay's asynchronous processing: every PENDING refund becomes REFUNDED (or FAILED). */
  settleRefunds(status: "REFUNDED" | "FAILED"): void;
  requests: RecordedRequest[];
  violations: string[];
  /** Access tokens issued so far, oldest first. */
  tokens: string[];
  /** The fake's orders by orderId, as it would serve them now. */
  orders: Map<string, EbayOrder>;
  fulfillments: Map<string, FakeFulfillment[]>;
  /** Cancellations created, by cancelId. */
  cancellations: Map<string, { legacyOrderId: string; cancelReason: string; buyerPaid: boolean; buyerPaidDate?: { value: string } }>;
  /** Change an order as eBay would (lastModifiedDate becomes the fake's now). */
  touch(orderId: string, change?: (order: EbayOrder) => void): void;
  /**
   * A fulfillment the seller makes in Seller Hub, not through the API: kept, and shown on the
   * order (line statuses, fulfillmentHrefs, lastModifiedDate) as createShippingFulfillment's
   * are. Answers its fulfillmentId.
   */
  shipInSellerHub(
    orderId: string,
    fulfillment: { lineItems: { lineItemId: string; quantity: number }[]; trackingNumber?: string; shippingCarrierCode?: string; shippedDate?: string },
  ): string;
  /** Make an order ineligible for cancellation, with these EligibilityFailureReasonEnum values. */
  refuseCancellation(orderId: string, reasons: string[]): void;
  /** eBay-side expiry of every issued token: the next call with one answers 401. */
  expireTokens(): void;
  /** The inventory item's quantity and its offer's price as the fake eBay shows them now. */
  item(sku: string): { quantity?: number; price?: string; currency?: string } | undefined;
  /** Requests of one API. */
  requestsOf(api: EbayApi): RecordedRequest[];
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** The Fulfillment API's error shape, filled from the description's x-response-codes. */
export function fulfillmentError(errorId: number, detail?: string): { errors: unknown[] } {
  const known = spec.operations.flatMap((o) => Object.entries(o.errors ?? {})).find(([id]) => Number(id) === errorId)?.[1];
  const message = detail ?? known?.message ?? "Error";
  return {
    errors: [
      {
        errorId,
        domain: known?.domain ?? "API_FULFILLMENT",
        category: known?.category ?? "REQUEST",
        message,
        longMessage: message,
      },
    ],
  };
}

/** The Post-Order API's error shape (ErrorResponse). */
export function postOrderError(errorId: number, message: string, httpStatusCode: number): unknown {
  return {
    errorMessage: {
      error: [
        { errorId, domain: "cancelErrorDomain", severity: "ERROR", category: "REQUEST", message, longMessage: message, httpStatusCode: String(httpStatusCode) },
      ],
    },
  };
}

const oauthError = (error: string, description: string) => ({ error, error_description: description });

function operation(id: string): Operation {
  const op = spec.operations.find((o) => o.operationId === id);
  if (!op) throw new Error(`ebay-description.json has no operation ${id}; rerun the extract script`);
  return op;
}

const ORDER_SCHEMA = operation("getOrder").responseSchema!;

// Literal paths first, so /order/{orderId}/shipping_fulfillment is not read as a fulfillment id.
const ROUTES = routesOf(spec.operations);

const clone = <T>(value: T): T => structuredClone(value);

/** What the fake writes of refunds into an order (OrderRefund, LineItemRefund of the description). */
interface FakeRefund {
  refundId?: string;
  refundStatus?: string;
  refundDate?: string;
  amount?: { value?: string; currency?: string };
}
interface FakeLineRefunds {
  lineItemId?: string;
  total?: { value?: string; currency?: string };
  refunds?: FakeRefund[];
}

function refundsOf(order: EbayOrder): FakeRefund[] {
  const summary = ((order as { paymentSummary?: { refunds?: FakeRefund[] } }).paymentSummary ??= {});
  summary.refunds ??= [];
  return summary.refunds;
}

export function createEbayFake(opts: EbayFakeOptions = {}): EbayFake {
  const now = opts.now ?? (() => new Date());
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const tokens: string[] = [];
  const tokenState = new Map<string, { expiresAt: number; expired: boolean; scopes: string[] }>();
  const listings = ebayListingsFake(now, opts.listings ?? {}, violations);
  const orders = new Map<string, EbayOrder>();
  const fulfillments = new Map<string, FakeFulfillment[]>();
  const cancellations: EbayFake["cancellations"] = new Map();
  const refusals = new Map<string, string[]>();
  const faults = faultQueue<EbayApi>("fulfillment");
  let fulfillmentCounter = 0;
  let refundCounter = 0;
  const issuedRefunds: EbayFake["refunds"] = [];

  for (const order of opts.orders ?? []) {
    const problems = schemaProblems(order, ORDER_SCHEMA, `order ${order.orderId}`);
    if (problems.length > 0) throw new Error(`a fake order does not fit the description: ${problems.join("; ")}`);
    orders.set(order.orderId!, clone(order));
  }

  function applyFault(fault: Fault<EbayApi>): Response {
    return faultResponse(
      fault,
      (f) => {
        const body =
          f.body ??
          (f.target === "postOrder"
            ? postOrderError(f.status >= 500 ? 1000 : 1001, f.status >= 500 ? "Internal error" : "Request failed", f.status)
            : f.target === "token"
              ? oauthError("server_error", "the token service failed")
              : fulfillmentError(f.status >= 500 ? 30500 : 32600));
        return json(f.status, body, f.headers ?? {});
      },
      true,
    );
  }

  function reject(where: string, problems: string[], api: EbayApi): Response {
    for (const p of problems) violations.push(`${where}: ${p}`);
    const message = problems.join("; ");
    if (api === "token") return json(400, oauthError("invalid_request", message));
    if (api === "postOrder") return json(400, postOrderError(1001, message, 400));
    return json(400, fulfillmentError(32600, message));
  }

  function checkAccept(headers: Headers, problems: string[]): void {
    const accept = headers.get("Accept");
    if (accept && !accept.split(",").some((a) => ["application/json", "*/*"].includes(a.trim().split(";")[0]!))) {
      problems.push(`Accept must allow application/json, got ${accept}`);
    }
  }

  function checkJsonContentType(headers: Headers, problems: string[]): void {
    const contentType = headers.get("Content-Type") ?? "";
    if (contentType.split(";")[0]?.trim() !== "application/json") problems.push(`Content-Type must be application/json, got ${contentType || "none"}`);
  }

  /**
   * The token of a `Bearer` Authorization header (both APIs: the Fulfillment description's
   * security scheme, and the Post-Order "Making a Call" page); problems when it is not one this
   * fake issued.
   */
  function bearer(headers: Headers, problems: string[]): string | null {
    const authorization = headers.get("Authorization") ?? "";
    const match = /^Bearer (\S+)$/.exec(authorization);
    if (!match) {
      problems.push(`Authorization must be "Bearer <user access token>", got ${JSON.stringify(authorization)}`);
      return null;
    }
    if (!tokenState.has(match[1]!)) problems.push("the access token is not one this fake issued");
    return match[1]!;
  }

  function tokenAlive(token: string | null): boolean {
    const state = token ? tokenState.get(token) : undefined;
    return !!state && !state.expired && now().getTime() < state.expiresAt;
  }

  function handleToken(request: Request, form: Record<string, string>): Response {
    const problems: string[] = [];
    checkAccept(request.headers, problems);
    const contentType = request.headers.get("Content-Type") ?? "";
    if (contentType.split(";")[0]?.trim() !== "application/x-www-form-urlencoded") {
      problems.push(`Content-Type must be application/x-www-form-urlencoded, got ${contentType || "none"}`);
    }
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(request.headers.get("Authorization") ?? "");
    if (!basic) problems.push("Authorization must be Basic base64(client_id:client_secret)");
    for (const key of Object.keys(form)) {
      if (!["grant_type", "refresh_token", "scope"].includes(key)) problems.push(`form field ${key} is not one the refresh-token grant takes`);
    }
    if (form.grant_type !== "refresh_token") problems.push(`grant_type must be refresh_token (a user token), got ${form.grant_type ?? "none"}`);
    if (!form.refresh_token) problems.push("refresh_token is required");
    const scopes = (form.scope ?? "").split(" ").filter(Boolean);
    if (scopes.length === 0) problems.push("scope is required");
    for (const scope of scopes)
      if (!spec.scopes.includes(scope) && !EBAY_INVENTORY_SCOPES.includes(scope)) problems.push(`scope ${scope} is not one of the descriptions`);
    if (
      scopes.length > 0 &&
      !scopes.includes(operation("createShippingFulfillment").scopes[0]!) &&
      !scopes.includes(EBAY_INVENTORY_WRITE_SCOPE) &&
      !scopes.includes(operation("issueRefund").scopes[0]!)
    ) {
      problems.push(
        "scope must include sell.fulfillment (createShippingFulfillment needs it), sell.inventory (bulkUpdatePriceQuantity needs it) or sell.finances " +
          "(issueRefund needs it)",
      );
    }
    if (problems.length > 0) return reject(`POST ${TOKEN_PATH}`, problems, "token");
    const fault = faults.take("token");
    if (fault) return applyFault(fault);
    let credentials = "";
    try {
      credentials = atob(basic![1]!);
    } catch {
      // Not base64 after all: answered like wrong credentials.
    }
    if (credentials !== `${EBAY_FAKE_CLIENT_ID}:${EBAY_FAKE_CLIENT_SECRET}`) return json(401, oauthError("invalid_client", "client authentication failed"));
    if (form.refresh_token !== EBAY_FAKE_REFRESH_TOKEN) {
      return json(400, oauthError("invalid_grant", "the provided authorization refresh token is invalid or was issued to another client"));
    }
    const refusedScope = scopes.find((scope) => opts.consentedScopes && !opts.consentedScopes.includes(scope));
    if (refusedScope)
      return json(
        400,
        oauthError("invalid_scope", `the requested scope ${refusedScope} is invalid, unknown, malformed, or exceeds the scope granted to the client`),
      );
    const token = `v^1.1#i^1#f^0#fake-user-token-${tokens.length + 1}`;
    const expiresIn = opts.expiresIn ?? 7200;
    tokens.push(token);
    tokenState.set(token, { expiresAt: now().getTime() + expiresIn * 1000, expired: false, scopes });
    return json(200, { access_token: token, expires_in: expiresIn, token_type: "User Access Token" });
  }

  function serve(order: EbayOrder, where: string): EbayOrder {
    const problems = schemaProblems(order, ORDER_SCHEMA, where);
    for (const p of problems) violations.push(`the fake's own answer: ${p}`);
    return clone(order);
  }

  function getOrders(url: URL, problems: string[]): Response {
    // The filter is checked as sent: the description asks for [ ] { | } percent-encoded.
    const rawFilter = url.search
      .slice(1)
      .split("&")
      .find((p) => p.startsWith("filter="))
      ?.slice("filter=".length);
    if (rawFilter === undefined) {
      problems.push("filter is missing: getOrders would return the last 90 days instead of the changes asked for");
      return reject("GET /order", problems, "fulfillment");
    }
    if (/[[\]{}|]/.test(rawFilter)) problems.push(`filter ${rawFilter}: [ ] { | } must be percent-encoded`);
    const match = /^lastmodifieddate:%5B([^%]*)\.\.([^%]*)%5D$/i.exec(rawFilter);
    if (!match) {
      problems.push(`filter ${rawFilter} is not lastmodifieddate:%5B<from>..<to>%5D`);
      return reject("GET /order", problems, "fulfillment");
    }
    const limitText = url.searchParams.get("limit") ?? "50";
    const offsetText = url.searchParams.get("offset") ?? "0";
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 200) return json(400, fulfillmentError(31100, `Invalid limit: ${limitText}`));
    if (!/^\d+$/.test(offsetText)) return json(400, fulfillmentError(31000, `Invalid offset: ${offsetText}`));
    const [from, to] = [match[1]!, match[2]!];
    if (!EBAY_DATE.test(from) || (to !== "" && !EBAY_DATE.test(to))) return json(400, fulfillmentError(30810));
    if (to === "") problems.push("the filter has no upper bound: offset pages move while orders change");
    if (problems.length > 0) return reject("GET /order", problems, "fulfillment");
    const fromMs = Date.parse(from);
    const toMs = Date.parse(to);
    if (fromMs > toMs) return json(400, fulfillmentError(30840));
    if (toMs > now().getTime() || fromMs > now().getTime()) return json(400, fulfillmentError(30850));
    if (toMs - fromMs > TWO_YEARS_MS) return json(400, fulfillmentError(30830, "Time range between start date and end date must be within '2' years."));

    const limit = Number(limitText);
    const offset = Number(offsetText);
    const matching = [...orders.values()]
      .filter((o) => {
        const modified = Date.parse(o.lastModifiedDate!);
        return modified >= fromMs && modified <= toMs;
      })
      .sort((a, b) => a.creationDate!.localeCompare(b.creationDate!) || a.orderId!.localeCompare(b.orderId!));
    const page = matching.slice(offset, offset + limit);
    const base = `${url.origin}${url.pathname}?filter=${rawFilter}&limit=${limit}`;
    return json(200, {
      href: `${base}&offset=${offset}`,
      limit,
      offset,
      total: matching.length,
      ...(offset + limit < matching.length ? { next: `${base}&offset=${offset + limit}` } : {}),
      ...(offset > 0 ? { prev: `${base}&offset=${Math.max(0, offset - limit)}` } : {}),
      orders: page.map((o) => serve(o, `order ${o.orderId}`)),
    });
  }

  function createShippingFulfillment(url: URL, orderId: string, body: Record<string, unknown>): Response {
    const order = orders.get(orderId);
    if (!order) return json(400, fulfillmentError(32100, `Invalid Order Id: ${orderId}`));
    const lines = (body.lineItems ?? []) as { lineItemId: string; quantity?: number }[];
    if (lines.length === 0) return json(400, fulfillmentError(32600, "lineItems must name at least one line item"));
    const ids = lines.map((l) => l.lineItemId);
    if (new Set(ids).size !== ids.length) return json(400, fulfillmentError(32210));
    for (const line of lines) {
      const known = order.lineItems?.find((l) => l.lineItemId === line.lineItemId);
      if (!known) return json(400, fulfillmentError(32200, `Invalid line item id: ${line.lineItemId}`));
      if (line.quantity !== undefined && (line.quantity < 1 || line.quantity > (known.quantity ?? 1))) {
        return json(400, fulfillmentError(32600, `quantity ${line.quantity} of line item ${line.lineItemId} is not 1..${known.quantity}`));
      }
    }
    const tracking = body.trackingNumber as string | undefined;
    const carrier = body.shippingCarrierCode as string | undefined;
    // "This field and the shippingCarrierCode field are mutually dependent"; "Only alphanumeric characters".
    if ((tracking === undefined) !== (carrier === undefined)) return json(400, fulfillmentError(32300));
    if (tracking !== undefined && !/^[A-Za-z0-9]+$/.test(tracking)) return json(400, fulfillmentError(32300));
    if (carrier !== undefined && carrier.trim() === "") return json(400, fulfillmentError(32300));
    const shippedDate = body.shippedDate as string | undefined;
    if (shippedDate !== undefined && !EBAY_DATE.test(shippedDate)) return json(400, fulfillmentError(32500));
    const existing = fulfillments.get(orderId) ?? [];
    if (tracking !== undefined && existing.some((f) => f.fulfillmentId === tracking)) {
      return json(409, fulfillmentError(32600, `Order ${orderId} already has a fulfillment with tracking number ${tracking}`));
    }
    const fulfillmentId = tracking ?? String(999 + fulfillmentCounter++);
    const fulfillment: FakeFulfillment = {
      fulfillmentId,
      lineItems: lines.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity ?? 1 })),
      shippedDate: shippedDate ?? now().toISOString(),
      ...(tracking !== undefined ? { shipmentTrackingNumber: tracking, shippingCarrierCode: carrier } : {}),
    };
    fulfillments.set(orderId, [...existing, fulfillment]);
    const location = `${url.origin}${url.pathname}/${encodeURIComponent(fulfillmentId)}`;
    // A line is FULFILLED once its fulfillments hold every unit, IN_PROGRESS while some are.
    for (const line of order.lineItems ?? []) {
      if (!ids.includes(line.lineItemId!)) continue;
      const held = [...existing, fulfillment]
        .flatMap((f) => f.lineItems)
        .filter((l) => l.lineItemId === line.lineItemId)
        .reduce((n, l) => n + l.quantity, 0);
      line.lineItemFulfillmentStatus = held >= (line.quantity ?? 1) ? "FULFILLED" : "IN_PROGRESS";
    }
    const all = (order.lineItems ?? []).every((l) => l.lineItemFulfillmentStatus === "FULFILLED");
    order.orderFulfillmentStatus = all ? "FULFILLED" : "IN_PROGRESS";
    order.fulfillmentHrefs = [...(order.fulfillmentHrefs ?? []), location];
    order.lastModifiedDate = now().toISOString();
    return new Response("{}", { status: 201, headers: { "Content-Type": "application/json", Location: location } });
  }

  /**
   * issueRefund as its description's errors say: the order must exist (34913), a reason is required
   * (34903), either an order amount or line amounts (34905), amounts positive with two decimals
   * (34907) in the order's currency (34909), lines of the order (34914), no more than a line has
   * left (34924) or the order has left (34915), and no refund while one is still PENDING (34922).
   * A refund taken is PENDING in the order's paymentSummary.refunds (and its lines' refunds) until
   * the test settles it.
   */
  function issueRefund(orderId: string, body: Record<string, unknown>): Response {
    const order = orders.get(orderId);
    if (!order) return json(404, fulfillmentError(34913));
    if (typeof body.reasonForRefund !== "string" || body.reasonForRefund === "") return json(400, fulfillmentError(34903));
    const items = body.refundItems as { lineItemId?: string; refundAmount?: { value?: string; currency?: string } }[] | undefined;
    const orderLevel = body.orderLevelRefundAmount as { value?: string; currency?: string } | undefined;
    if (!items?.length === !orderLevel) return json(400, fulfillmentError(34905));
    const currency = order.pricingSummary?.total?.currency;
    const cents = (m: { value?: string; currency?: string } | undefined): number | Response => {
      if (!m?.value) return json(400, fulfillmentError(34906));
      if (!/^\d+(\.\d{1,2})?$/.test(m.value) || Number(m.value) <= 0) return json(400, fulfillmentError(34907));
      if (!m.currency) return json(400, fulfillmentError(34908));
      if (m.currency !== currency) return json(400, fulfillmentError(34909));
      return Math.round(Number(m.value) * 100);
    };
    const refunds = refundsOf(order);
    if (refunds.some((r) => r.refundStatus === "PENDING")) return json(400, fulfillmentError(34922));
    const refundedCents = refunds.filter((r) => r.refundStatus !== "FAILED").reduce((n, r) => n + Math.round(Number(r.amount?.value ?? 0) * 100), 0);
    const totalCents = Math.round(Number(order.pricingSummary?.total?.value ?? 0) * 100);
    const lineTaken: { line: FakeLineRefunds; cents: number }[] = [];
    let asked = 0;
    if (orderLevel) {
      const c = cents(orderLevel);
      if (c instanceof Response) return c;
      asked = c;
    } else {
      for (const item of items!) {
        if (!item.lineItemId) return json(400, fulfillmentError(34910));
        const line = (order.lineItems ?? []).find((l) => l.lineItemId === item.lineItemId) as FakeLineRefunds | undefined;
        if (!line) return json(400, fulfillmentError(34914));
        const c = cents(item.refundAmount);
        if (c instanceof Response) return c;
        const lineCents = Math.round(Number(line.total?.value ?? 0) * 100);
        const lineRefunded = (line.refunds ?? []).reduce((n, r) => n + Math.round(Number(r.amount?.value ?? 0) * 100), 0);
        if (c > lineCents - lineRefunded) return json(409, fulfillmentError(34924));
        lineTaken.push({ line, cents: c });
        asked += c;
      }
    }
    if (asked > totalCents - refundedCents) return json(400, fulfillmentError(34915));
    refundCounter += 1;
    const refundId = `5${String(refundCounter).padStart(11, "0")}`;
    const amount = (c: number) => ({ value: (c / 100).toFixed(2), currency: currency! });
    refunds.push({ refundId, refundStatus: "PENDING", amount: amount(asked) });
    for (const { line, cents: c } of lineTaken) (line.refunds ??= []).push({ refundId, amount: amount(c) });
    order.lastModifiedDate = now().toISOString();
    issuedRefunds.push({ orderId, refundId, body: clone(body) });
    return json(200, { refundId, refundStatus: "PENDING" });
  }

  function handleFulfillment(request: Request, url: URL, rawBody: string, route: { op: Operation; regex: RegExp }): Response {
    const { op } = route;
    const where = `${request.method} ${url.pathname}`;
    if (!op.used) {
      violations.push(`${where}: ${op.operationId} is not an operation the connector should call`);
      return json(400, fulfillmentError(32600, `${op.operationId} is not served by this fake`));
    }
    const problems: string[] = [];
    checkAccept(request.headers, problems);
    const token = bearer(request.headers, problems);
    for (const header of op.requiredHeaders) {
      if (header.toLowerCase() === "content-type") checkJsonContentType(request.headers, problems);
      else if (!request.headers.get(header)) problems.push(`header ${header} is required`);
    }
    for (const name of new Set(url.searchParams.keys())) {
      if (!op.queryParams.includes(name)) problems.push(`query parameter ${name} is not in the description of ${op.operationId}`);
    }
    let body: Record<string, unknown> = {};
    if (op.requestBody) {
      try {
        body = JSON.parse(rawBody) as Record<string, unknown>;
        schemaProblems(body, op.requestBody.schema, "body", problems);
      } catch {
        problems.push("body is not JSON");
      }
    } else if (rawBody !== "") {
      problems.push(`${op.operationId} takes no body`);
    }
    if (problems.length > 0) return reject(where, problems, "fulfillment");
    const fault = faults.take("fulfillment", op.operationId);
    if (fault) return applyFault(fault);
    if (!tokenAlive(token)) {
      return json(401, {
        errors: [
          {
            errorId: 1001,
            domain: "OAuth",
            category: "REQUEST",
            message: "Invalid access token",
            longMessage: "Invalid access token. Check the value of the Authorization HTTP request header.",
          },
        ],
      });
    }
    const scopes = tokenState.get(token!)!.scopes;
    if (!scopes.some((s) => op.scopes.includes(s)))
      return reject(where, [`the token's scopes (${scopes.join(" ")}) do not include ${op.scopes.join(" or ")}`], "fulfillment");

    const params = route.regex
      .exec(url.pathname)!
      .slice(1)
      .map((p) => decodeURIComponent(p));
    switch (op.operationId) {
      case "getOrders":
        return getOrders(url, []);
      case "getOrder": {
        const order = orders.get(params[0]!);
        return order ? json(200, serve(order, `order ${order.orderId}`)) : json(404, fulfillmentError(32100, `Invalid Order Id: ${params[0]}`));
      }
      case "getShippingFulfillments": {
        if (!orders.has(params[0]!)) return json(400, fulfillmentError(32100, `Invalid Order Id: ${params[0]}`));
        const list = fulfillments.get(params[0]!) ?? [];
        const answer = { fulfillments: clone(list), total: list.length };
        for (const p of schemaProblems(answer, op.responseSchema!, "answer")) violations.push(`the fake's own answer: ${p}`);
        return json(200, answer);
      }
      case "getShippingFulfillment": {
        const found = (fulfillments.get(params[0]!) ?? []).find((f) => f.fulfillmentId === params[1]);
        return found ? json(200, clone(found)) : json(404, fulfillmentError(32110, `Invalid Fulfillment Id: ${params[1]}`));
      }
      case "createShippingFulfillment":
        return createShippingFulfillment(url, params[0]!, body);
      case "issueRefund":
        return issueRefund(params[0]!, body);
      default:
        violations.push(`${where}: ${op.operationId} is not served by this fake`);
        return json(400, fulfillmentError(32600));
    }
  }

  function eligibility(legacyOrderId: string): { legacyOrderId: string; eligible: boolean; eligibleCancelReason?: string[]; failureReason?: string[] } | null {
    const order = orders.get(legacyOrderId);
    if (!order) return null;
    const failures = [...(refusals.get(legacyOrderId) ?? [])];
    if (order.cancelStatus?.cancelState === "CANCELED") failures.push("CANCELLATION_EXIST");
    return failures.length > 0
      ? { legacyOrderId, eligible: false, failureReason: failures }
      : { legacyOrderId, eligible: true, eligibleCancelReason: [...SELLER_CANCEL_REASONS] };
  }

  function handlePostOrder(request: Request, url: URL, rawBody: string): Response {
    const where = `${request.method} ${url.pathname}`;
    const problems: string[] = [];
    if (request.method !== "POST") problems.push(`${url.pathname} takes POST`);
    checkAccept(request.headers, problems);
    const token = bearer(request.headers, problems);
    const marketplace = request.headers.get("X-EBAY-C-MARKETPLACE-ID");
    if (!marketplace || !POST_ORDER_MARKETPLACES.includes(marketplace)) {
      problems.push(`X-EBAY-C-MARKETPLACE-ID must be one of ${POST_ORDER_MARKETPLACES.join(", ")}, got ${marketplace ?? "none"}`);
    }
    checkJsonContentType(request.headers, problems);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(rawBody) as Record<string, unknown>;
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error();
    } catch {
      problems.push("body is not a JSON object");
    }
    const isEligibility = url.pathname === POST_ORDER_PATHS.eligibility;
    const allowed = isEligibility ? ["legacyOrderId"] : ["legacyOrderId", "cancelReason", "buyerPaid", "buyerPaidDate"];
    for (const key of Object.keys(body))
      if (!allowed.includes(key)) problems.push(`body.${key} is not a field of ${isEligibility ? "OrderEligibilityCheckInfo" : "CreateCancelRequest"}`);
    if (typeof body.legacyOrderId !== "string" || body.legacyOrderId === "") problems.push("body.legacyOrderId is required");
    if (!isEligibility) {
      if (!SELLER_CANCEL_REASONS.includes(body.cancelReason as string))
        problems.push(`body.cancelReason ${JSON.stringify(body.cancelReason)} is not a seller's CancelReasonEnum value`);
      if (typeof body.buyerPaid !== "boolean") problems.push("body.buyerPaid must be a boolean");
      const paidDate = body.buyerPaidDate as { value?: unknown } | undefined;
      if (paidDate !== undefined) {
        if (body.buyerPaid !== true) problems.push("body.buyerPaidDate is only for a buyer who paid");
        if (
          typeof paidDate !== "object" ||
          paidDate === null ||
          typeof paidDate.value !== "string" ||
          !EBAY_DATE.test(paidDate.value) ||
          Object.keys(paidDate).some((k) => k !== "value" && k !== "formattedValue")
        ) {
          problems.push(`body.buyerPaidDate must be a DateTime {value: "YYYY-MM-DDThh:mm:ss.sssZ"}, got ${JSON.stringify(paidDate)}`);
        }
      }
    }
    if (problems.length > 0) return reject(where, problems, "postOrder");
    const fault = faults.take("postOrder");
    if (fault) return applyFault(fault);
    if (!tokenAlive(token)) return json(401, postOrderError(1002, "Invalid access token", 401));

    const result = eligibility(body.legacyOrderId as string);
    if (!result) return json(400, postOrderError(1003, `Order ${String(body.legacyOrderId)} was not found`, 400));
    if (isEligibility) return json(200, result);
    if (!result.eligible) return json(200, { orderEligibilityResult: result });
    const cancelId = String(5_000_000_000 + cancellations.size + 1);
    cancellations.set(cancelId, body as never);
    const order = orders.get(body.legacyOrderId as string)!;
    order.cancelStatus = {
      cancelState: "CANCELED",
      cancelledDate: now().toISOString(),
      cancelRequests: [
        {
          cancelInitiator: "Seller",
          cancelReason: body.cancelReason,
          cancelRequestId: cancelId,
          cancelRequestState: "COMPLETED",
          cancelRequestedDate: now().toISOString(),
        },
      ],
    };
    order.lastModifiedDate = now().toISOString();
    return json(200, { cancelId, orderEligibilityResult: result });
  }

  const fakeFetch: typeof fetch = async (input, init) => {
    const received = await receive(input, init, (u) => u.pathname === TOKEN_PATH);
    const { request, url, rawBody, form } = received;
    const isToken = form !== null;
    const isPostOrder = url.pathname === POST_ORDER_PATHS.eligibility || url.pathname === POST_ORDER_PATHS.create;
    if (!isToken && listings.handles(url.pathname)) {
      const recorded: RecordedRequest = {
        ...received.recorded,
        api: "inventory",
        operationId: url.pathname.endsWith("/offer") ? "getOffers" : "bulkUpdatePriceQuantity",
      };
      requests.push(recorded);
      const problems: string[] = [];
      checkAccept(request.headers, problems);
      const token = bearer(request.headers, problems);
      const fault = problems.length > 0 ? undefined : faults.take("inventory");
      let response: Response;
      if (problems.length > 0) response = reject(`${request.method} ${url.pathname}`, problems, "inventory");
      else if (fault) response = applyFault(fault);
      else if (!tokenAlive(token)) response = json(401, fulfillmentError(1001, "Invalid access token"));
      else response = listings.handle(request, url, rawBody, tokenState.get(token!)!.scopes);
      recorded.status = response.status;
      return response;
    }
    const route = ROUTES.find((r) => r.regex.test(url.pathname) && r.op.method === request.method) ?? ROUTES.find((r) => r.regex.test(url.pathname));
    const api: EbayApi | null = isToken ? "token" : isPostOrder ? "postOrder" : route ? "fulfillment" : null;
    const recorded: RecordedRequest = {
      ...received.recorded,
      api,
      operationId: isToken
        ? "token"
        : isPostOrder
          ? url.pathname === POST_ORDER_PATHS.eligibility
            ? "checkCancellationEligibility"
            : "createCancellation"
          : (route?.op.operationId ?? null),
    };
    requests.push(recorded);

    let response: Response;
    if (isToken) {
      if (request.method !== "POST") {
        violations.push(`${request.method} ${url.pathname}: the token endpoint takes POST`);
        response = json(405, oauthError("invalid_request", "method not allowed"));
      } else {
        response = handleToken(request, form ?? {});
      }
    } else if (isPostOrder) {
      response = handlePostOrder(request, url, rawBody);
    } else if (!route) {
      violations.push(`${request.method} ${url.pathname}: not a path of the description`);
      response = json(404, fulfillmentError(32600, "Not found"));
    } else if (route.op.method !== request.method) {
      violations.push(`${request.method} ${url.pathname}: the description has ${route.op.method} only`);
      response = json(405, fulfillmentError(32600, "Method not allowed"));
    } else {
      response = handleFulfillment(request, url, rawBody, route);
    }
    recorded.status = response.status;
    return response;
  };

  return {
    fetch: fakeFetch,
    requests,
    violations,
    tokens,
    orders,
    fulfillments,
    cancellations,
    touch(orderId, change) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`the fake has no order ${orderId}`);
      change?.(order);
      order.lastModifiedDate = now().toISOString();
    },
    shipInSellerHub(orderId, fulfillment) {
      const url = new URL(`https://api.ebay.com${spec.basePath}/order/${encodeURIComponent(orderId)}/shipping_fulfillment`);
      const made = createShippingFulfillment(url, orderId, { ...fulfillment });
      const location = made.headers.get("Location");
      if (made.status !== 201 || !location) throw new Error(`the fake eBay could not make that fulfillment (${made.status})`);
      return decodeURIComponent(location.split("/").at(-1)!);
    },
    refuseCancellation(orderId, reasons) {
      refusals.set(orderId, reasons);
    },
    refunds: issuedRefunds,
    settleRefunds(status) {
      for (const order of orders.values()) {
        for (const refund of refundsOf(order)) {
          if (refund.refundStatus !== "PENDING") continue;
          refund.refundStatus = status;
          if (status === "REFUNDED") refund.refundDate = now().toISOString();
          order.lastModifiedDate = now().toISOString();
        }
      }
    },
    failNext: faults.failNext,
    failNextWithError: faults.failNextWithError,
    expireTokens() {
      for (const state of tokenState.values()) state.expired = true;
    },
    item: (sku) => listings.item(sku),
    requestsOf(api) {
      return requests.filter((r) => r.api === api);
    },
  };
}

/**
 * getOrders pages for ever, without an order, each naming a next page: the same offset every time
 * (`repeating`) or a further one each time. For failNext.
 */
export function ebayPagesForEver(repeating: boolean): AnswerFault<EbayApi> {
  return badDay.endlessPages(
    (n) => {
      const offset = repeating ? 200 : 200 * (n + 1);
      // One record a page that is no order (no orderId): a page without any is the last one.
      const page = { href: "https://api.ebay.com/sell/fulfillment/v1/order", total: 1_000_000, limit: 200, offset, orders: [{}] };
      return { ...page, next: `https://api.ebay.com/sell/fulfillment/v1/order?limit=200&offset=${offset}` };
    },
    { target: "fulfillment" },
  );
}
