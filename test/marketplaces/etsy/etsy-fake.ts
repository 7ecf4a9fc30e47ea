// A fake Etsy for tests in workerd: the OAuth token endpoint and the six Open API v3 operations
// the connector calls (getShopReceipts, getShopReceipt, createReceiptShipment; for stock and price
// getListingsByShop, getListingInventory, updateListingInventory in etsy-listings-fake.ts), held to Etsy's
// published description (etsy-description.json, extracted from
// ../shared/reference/etsy/openapi-3.0.0.json by etsy-description.extract.mjs) and to what the
// reference README adds from Etsy's guides. A request that breaks them is answered in Etsy's
// error shape ({"error": ...}) and recorded in `violations`: a path or method the description
// does not have, an operation the connector should not call, a query parameter it does not
// list, a value outside the type, range or enumeration it gives, an `x-api-key` that is not
// `keystring:shared_secret` (a bare keystring gets Etsy's 403 "Shared secret is required"), a
// missing Bearer token, a form body with a field outside the schema, a JSON body that does not fit
// the operation's schema (or a wrong Content-Type). A token whose consent lacks the operation's
// scope (listings_r, listings_w, transactions_r, transactions_w: `consentedScopes`) is answered
// 403, as Etsy refuses it (not a violation: a seller may consent to less). Every receipt and
// listing it serves is checked against the description's answer schema too.
//
// Etsy's behaviour as the README describes it: refresh tokens rotate (each renewal issues a new
// one and the used one is refused with invalid_grant), the application is metered per second
// and per 24 hours with x-limit-per-second / x-remaining-this-second / x-limit-per-day /
// x-remaining-today on every answer and a 429 with retry-after beyond them, createReceiptShipment
// needs tracking for a US receipt over $10 or one to India. Chosen here where nothing says:
// receipts tie on their sort key by receipt_id; a shipment to a cancelled receipt is 409. A bad
// day is played with the fault helpers every fake shares (test/marketplaces/fake-kit/faults.ts), at the token
// endpoint or the API, of one operation when asked.
import type { EtsyReceipt } from "../../../src/marketplaces/etsy/etsy.types";
import extracted from "./etsy-description.json";
import { etsyListingsFake, type SampleListing } from "./etsy-listings-fake";
import { badDay, faultQueue, faultResponse, type AnswerFault, type Fault } from "../fake-kit/faults";
import { receive, type ReceivedRequest } from "../fake-kit/received-request";
import { routesOf } from "../fake-kit/routes";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Schema & { type: string };
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  used: boolean;
  parameters?: Parameter[];
  scopes?: string[];
  formBody?: Schema | null;
  jsonBody?: Schema | null;
  answerSchema?: Schema;
}

interface Description {
  server: string;
  apiKeyHeader: string;
  tokenUrl: string;
  operations: Operation[];
}

const spec = extracted as unknown as Description;
const TOKEN_PATH = new URL(spec.tokenUrl).pathname;
const DAY_MS = 24 * 60 * 60_000;

export const ETSY_FAKE_KEYSTRING = "1aa2bb3cc4dd5ee6ff7gg8hh";
export const ETSY_FAKE_SHARED_SECRET = "fakeshared0secret";
export const ETSY_FAKE_SHOP_ID = 31_415_926;
export const ETSY_FAKE_REFRESH_TOKEN = "fake-refresh-0-first";
/** The token endpoint of Etsy's authentication guide (the description says openapi.etsy.com; same path). */
export const ETSY_FAKE_TOKEN_URL = "https://api.etsy.com/v3/public/oauth/token";

export type EtsyTarget = "token" | "api";

export interface RecordedRequest extends ReceivedRequest {
  target: EtsyTarget | null;
}

export interface EtsyFakeOptions {
  receipts?: EtsyReceipt[];
  /** The fake's clock (token expiry, metering, update_timestamp of changes); share it with the connector's ctx.now. */
  now?: () => Date;
  /** Access token lifetime in seconds (Etsy's guides: 3600). */
  expiresIn?: number;
  /** The application's limits (the guides' figures for new apps: 10 and 10,000). */
  perSecond?: number;
  perDay?: number;
  /** The shop's listings (for stock and price). */
  listings?: SampleListing[];
  /** The scopes the seller consented to; every token issued from the refresh tokens carries them. Default: ETSY_FAKE_SCOPES. */
  consentedScopes?: string[];
}

/** What the Etsy source README asks a seller to consent to: receipts and listings, read and write. */
export const ETSY_FAKE_SCOPES = ["transactions_r", "transactions_w", "listings_r", "listings_w"];

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

const etsyError = (error: string) => ({ error });

// Literal paths first, so /receipts/{receipt_id}/tracking is not read as a receipt id.
const ROUTES = routesOf(spec.operations);

function operation(id: string): Operation {
  const op = spec.operations.find((o) => o.operationId === id);
  if (!op?.answerSchema) throw new Error(`etsy-description.json has no ${id}; rerun the extract script`);
  return op;
}

const RECEIPT_SCHEMA = operation("getShopReceipt").answerSchema!;
const LISTING_ANSWERS = Object.fromEntries(
  ["getListingsByShop", "getListingInventory", "updateListingInventory"].map((id) => [id, operation(id).answerSchema!]),
);

/** A parameter value read by its schema: problems when it is not of the type, range or enumeration. */
function readParameter(raw: string, p: Parameter, problems: string[]): unknown {
  const where = `${p.in} parameter ${p.name}`;
  let value: unknown = raw;
  if (p.schema.type === "integer") {
    if (!/^-?\d+$/.test(raw)) {
      problems.push(`${where} must be an integer, got ${JSON.stringify(raw)}`);
      return null;
    }
    value = Number(raw);
  } else if (p.schema.type === "boolean") {
    if (raw !== "true" && raw !== "false") {
      problems.push(`${where} must be true or false, got ${JSON.stringify(raw)}`);
      return null;
    }
    value = raw === "true";
  }
  for (const problem of schemaProblems(value, p.schema, where)) problems.push(problem);
  return value;
}

const clone = <T>(value: T): T => structuredClone(value);

export function createEtsyFake(opts: EtsyFakeOptions = {}) {
  const now = opts.now ?? (() => new Date());
  const expiresIn = opts.expiresIn ?? 3600;
  const perSecond = opts.perSecond ?? 10;
  const perDay = opts.perDay ?? 10_000;
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const receipts = new Map<number, EtsyReceipt>();
  const consented = opts.consentedScopes ?? ETSY_FAKE_SCOPES;
  const accessTokens = new Map<string, { expiresAt: number; expired: boolean; scopes: string[] }>();
  /** Every refresh token issued, oldest first, with whether it was used (or revoked) and the consent's scopes. */
  const refreshTokens = new Map<string, { used: boolean; scopes: string[] }>([[ETSY_FAKE_REFRESH_TOKEN, { used: false, scopes: consented }]]);
  const shop = etsyListingsFake({ shopId: ETSY_FAKE_SHOP_ID, listings: opts.listings ?? [], answerSchemas: LISTING_ANSWERS, violations });
  const withheld = new Set<number>();
  const faults = faultQueue<EtsyTarget>("api");
  /** Sent times of the API calls Etsy counted (not the refused ones). */
  const metered: number[] = [];
  let throttled = 0;
  let issued = 0;
  let shipmentIds = 0;
  let cutOffArmed = false;
  let down = false;
  let shipmentsDenied = false;
  const answersToLose = new Set<string>();

  for (const receipt of opts.receipts ?? []) add(receipt);

  function add(receipt: EtsyReceipt): void {
    const problems = schemaProblems(receipt, RECEIPT_SCHEMA, `receipt ${receipt.receipt_id}`);
    if (problems.length > 0) throw new Error(`a fake receipt does not fit the description: ${problems.join("; ")}`);
    receipts.set(receipt.receipt_id!, clone(receipt));
  }

  /** A fault's answer, in Etsy's error shape unless it brings its own body, with the rate-limit headers of the call. */
  function applyFault(fault: Fault<EtsyTarget>, headers: Record<string, string>): Response {
    return faultResponse(
      fault,
      (f) => {
        const body =
          f.body ?? ((f.target ?? "api") === "token" ? { error: "server_error", error_description: "the token service failed" } : etsyError("Internal error"));
        return json(f.status, body, { ...headers, ...f.headers });
      },
      true,
    );
  }

  function reject(where: string, problems: string[], status = 400): Response {
    for (const p of problems) violations.push(`${where}: ${p}`);
    return json(status, etsyError(problems.join("; ")));
  }

  function randomPart(): string {
    return [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  function handleToken(request: Request, form: Record<string, string>): Response {
    const where = `${request.method} ${TOKEN_PATH}`;
    const problems: string[] = [];
    if (request.method !== "POST") problems.push("the token endpoint takes POST");
    const contentType = request.headers.get("Content-Type") ?? "";
    if (contentType.split(";")[0]?.trim() !== "application/x-www-form-urlencoded")
      problems.push(`Content-Type must be application/x-www-form-urlencoded, got ${contentType || "none"}`);
    // The guide's renewal: grant_type=refresh_token&client_id=<keystring>&refresh_token=<token>.
    for (const key of Object.keys(form))
      if (!["grant_type", "client_id", "refresh_token"].includes(key)) problems.push(`form field ${key} is not part of a refresh_token grant`);
    if (form.grant_type !== "refresh_token") problems.push(`grant_type must be refresh_token, got ${JSON.stringify(form.grant_type)}`);
    if (!form.refresh_token) problems.push("refresh_token is required");
    if (problems.length > 0) {
      for (const p of problems) violations.push(`${where}: ${p}`);
      return json(400, { error: "invalid_request", error_description: problems.join("; ") });
    }
    const fault = faults.take("token", "token");
    if (fault) return applyFault(fault, {});
    if (form.client_id !== ETSY_FAKE_KEYSTRING) return json(401, { error: "invalid_client", error_description: "Unknown client" });
    const known = refreshTokens.get(form.refresh_token!);
    if (!known || known.used) return json(400, { error: "invalid_grant", error_description: "Invalid refresh token" });
    known.used = true;
    issued += 1;
    const accessToken = `fake-access-${issued}-${randomPart()}`;
    const refreshToken = `fake-refresh-${issued}-${randomPart()}`;
    accessTokens.set(accessToken, { expiresAt: now().getTime() + expiresIn * 1000, expired: false, scopes: known.scopes });
    // The rotated token carries the consent it came from.
    refreshTokens.set(refreshToken, { used: false, scopes: known.scopes });
    if (cutOffArmed) {
      // The invocation dies right after this answer: nothing the connector sends afterwards arrives.
      cutOffArmed = false;
      down = true;
    }
    return json(200, { access_token: accessToken, token_type: "Bearer", expires_in: expiresIn, refresh_token: refreshToken });
  }

  /** The rate-limit headers Etsy sends with every answer, as they stand after this call. */
  function limitHeaders(at: number): Record<string, string> {
    const second = metered.filter((t) => t > at - 1000).length;
    const day = metered.filter((t) => t > at - DAY_MS).length;
    return {
      "x-limit-per-second": String(perSecond),
      "x-remaining-this-second": String(Math.max(0, perSecond - second)),
      "x-limit-per-day": String(perDay),
      "x-remaining-today": String(Math.max(0, perDay - day)),
    };
  }

  /** Counts the call, or answers the 429 Etsy would. */
  function meter(at: number): Response | null {
    const inSecond = metered.filter((t) => t > at - 1000);
    const inDay = metered.filter((t) => t > at - DAY_MS);
    if (inDay.length >= perDay) {
      throttled += 1;
      const wait = Math.ceil((inDay[0]! + DAY_MS - at) / 1000);
      return json(429, etsyError("Exceeded per day rate limit"), { ...limitHeaders(at), "retry-after": String(wait) });
    }
    if (inSecond.length >= perSecond) {
      throttled += 1;
      const wait = Math.max(1, Math.ceil((inSecond[0]! + 1000 - at) / 1000));
      return json(429, etsyError("Exceeded per second rate limit"), { ...limitHeaders(at), "retry-after": String(wait) });
    }
    metered.push(at);
    return null;
  }

  function serve(receipt: EtsyReceipt): EtsyReceipt {
    const copy = clone(receipt);
    if (withheld.has(receipt.receipt_id!)) {
      for (const field of ["name", "first_line", "second_line", "city", "state", "zip", "country_iso", "formatted_address", "buyer_email"] as const) {
        delete copy[field];
      }
    }
    for (const p of schemaProblems(copy, RECEIPT_SCHEMA, `served receipt ${receipt.receipt_id}`)) violations.push(`the fake's own answer: ${p}`);
    return copy;
  }

  function changed(receipt: EtsyReceipt): void {
    const at = Math.floor(now().getTime() / 1000);
    receipt.update_timestamp = at;
    receipt.updated_timestamp = at;
  }

  function getShopReceipts(query: Map<string, unknown>): Response {
    const inRange = (value: number | null | undefined, min: string, max: string) => {
      const low = query.get(min) as number | undefined;
      const high = query.get(max) as number | undefined;
      return (low === undefined || (value ?? 0) >= low) && (high === undefined || (value ?? 0) <= high);
    };
    const flag = (name: string, value: boolean) => !query.has(name) || query.get(name) === value;
    const sortOn = (query.get("sort_on") as string | undefined) ?? "created";
    const descending = ["desc", "descending", "down"].includes((query.get("sort_order") as string | undefined) ?? "desc");
    const key = (r: EtsyReceipt) => (sortOn === "updated" ? r.updated_timestamp! : sortOn === "receipt_id" ? r.receipt_id! : r.created_timestamp!);
    const matching = [...receipts.values()]
      .filter(
        (r) =>
          inRange(r.updated_timestamp, "min_last_modified", "max_last_modified") &&
          inRange(r.created_timestamp, "min_created", "max_created") &&
          flag("was_paid", r.is_paid === true) &&
          flag("was_shipped", r.is_shipped === true) &&
          flag("was_canceled", r.status === "canceled"),
      )
      .sort((a, b) => (descending ? key(b) - key(a) : key(a) - key(b)) || a.receipt_id! - b.receipt_id!);
    const limit = (query.get("limit") as number | undefined) ?? 25;
    const offset = (query.get("offset") as number | undefined) ?? 0;
    return json(200, { count: matching.length, results: matching.slice(offset, offset + limit).map(serve) });
  }

  function createReceiptShipment(receipt: EtsyReceipt, form: Record<string, string>): Response {
    if (shipmentsDenied) return json(403, etsyError("This application is not permitted to submit tracking for this shop"));
    const tracking = form.tracking_code;
    const carrier = form.carrier_name;
    if ((tracking === undefined) !== (carrier === undefined)) return json(400, etsyError("tracking_code and carrier_name must be given together"));
    if (receipt.status === "canceled") return json(409, etsyError(`Receipt ${receipt.receipt_id} is canceled`));
    const grand = receipt.grandtotal;
    const overTen = grand?.currency_code === "USD" && (grand.amount ?? 0) / (grand.divisor ?? 1) > 10;
    if (tracking === undefined && ((receipt.country_iso === "US" && overTen) || receipt.country_iso === "IN")) {
      return json(400, etsyError("Tracking code and carrier name are required for this receipt"));
    }
    if (tracking !== undefined) {
      shipmentIds += 1;
      receipt.shipments = [
        ...(receipt.shipments ?? []),
        {
          receipt_shipping_id: 70_000 + shipmentIds,
          shipment_notification_timestamp: Math.floor(now().getTime() / 1000),
          carrier_name: carrier!,
          tracking_code: tracking,
        },
      ];
    }
    receipt.is_shipped = true;
    if (receipt.status === "paid") receipt.status = "completed";
    changed(receipt);
    return json(200, serve(receipt));
  }

  function handleApi(
    request: Request,
    url: URL,
    rawBody: string,
    form: Record<string, string> | null,
    route: { op: Operation; regex: RegExp },
    jsonBody: unknown,
  ): Response {
    const { op } = route;
    const where = `${request.method} ${url.pathname}`;
    if (!op.used) return reject(where, [`${op.operationId} is not an operation the connector should call`]);
    const problems: string[] = [];

    const apiKey = request.headers.get(spec.apiKeyHeader);
    if (apiKey === ETSY_FAKE_KEYSTRING) {
      violations.push(`${where}: x-api-key is the bare keystring`);
      return json(403, etsyError("Shared secret is required in x-api-key header."));
    }
    if (apiKey !== `${ETSY_FAKE_KEYSTRING}:${ETSY_FAKE_SHARED_SECRET}`) {
      violations.push(`${where}: x-api-key must be keystring:shared_secret, got ${JSON.stringify(apiKey)}`);
      return json(403, etsyError("Invalid API key"));
    }
    const match = /^Bearer (\S+)$/.exec(request.headers.get("Authorization") ?? "");
    if (!match) return reject(where, [`Authorization must be "Bearer <access token>", got ${JSON.stringify(request.headers.get("Authorization"))}`], 401);
    const token = accessTokens.get(match[1]!);
    if (!token) return reject(where, ["the access token is not one this fake issued"], 401);

    const params = (op.parameters ?? []) as Parameter[];
    const values = route.regex
      .exec(url.pathname)!
      .slice(1)
      .map((v) => decodeURIComponent(v));
    const pathValues = new Map<string, unknown>();
    params.filter((p) => p.in === "path").forEach((p, i) => pathValues.set(p.name, readParameter(values[i] ?? "", p, problems)));
    const query = new Map<string, unknown>();
    for (const name of new Set(url.searchParams.keys())) {
      const p = params.find((q) => q.in === "query" && q.name === name);
      if (!p) problems.push(`query parameter ${name} is not in the description of ${op.operationId}`);
      // An array parameter (getListingsByShop's includes) repeats the name, OpenAPI's form style.
      else if (p.schema.type === "array")
        query.set(
          name,
          url.searchParams.getAll(name).map((v) => readParameter(v, { ...p, schema: { ...p.schema.items!, type: p.schema.items!.type! } }, problems)),
        );
      else if (url.searchParams.getAll(name).length > 1) problems.push(`query parameter ${name} is given twice`);
      else query.set(name, readParameter(url.searchParams.get(name)!, p, problems));
    }
    for (const p of params) if (p.required && p.in === "query" && !url.searchParams.has(p.name)) problems.push(`query parameter ${p.name} is required`);
    if (op.formBody) {
      const contentType = request.headers.get("Content-Type") ?? "";
      const isForm = contentType.split(";")[0]?.trim() === "application/x-www-form-urlencoded";
      if (!isForm) problems.push(`Content-Type must be application/x-www-form-urlencoded, got ${contentType || "none"}`);
      for (const [key, raw] of Object.entries(isForm ? (form ?? {}) : {})) {
        const schema = op.formBody.properties?.[key];
        if (!schema) problems.push(`form field ${key} is not in the description of ${op.operationId}`);
        else if (schema.type === "boolean" && raw !== "true" && raw !== "false")
          problems.push(`form field ${key} must be true or false, got ${JSON.stringify(raw)}`);
        else if (schema.type === "string" && raw.trim() === "") problems.push(`form field ${key} is empty`);
      }
    } else if (op.jsonBody) {
      const contentType = request.headers.get("Content-Type") ?? "";
      if (contentType.split(";")[0]?.trim() !== "application/json") problems.push(`Content-Type must be application/json, got ${contentType || "none"}`);
      else if (typeof jsonBody === "string" || jsonBody === null) problems.push("the body is not JSON");
      else schemaProblems(jsonBody, op.jsonBody, "body", problems);
    } else if (rawBody !== "") {
      problems.push(`${op.operationId} takes no body`);
    }
    if (problems.length > 0) return reject(where, problems);

    const at = now().getTime();
    const refused = meter(at);
    if (refused) return refused;
    const headers = limitHeaders(at);
    const fault = faults.take("api", op.operationId);
    if (fault) return applyFault(fault, headers);
    if (token.expired || at >= token.expiresAt) return json(401, etsyError("invalid_token"), headers);
    // Etsy's wording of a missing scope is not in the description or the README: chosen here.
    const lacking = (op.scopes ?? []).filter((scope) => !token.scopes.includes(scope));
    if (lacking.length > 0) return json(403, etsyError(`insufficient_scope: this token does not have the scope ${lacking.join(" ")}`), headers);
    if (pathValues.has("shop_id") && pathValues.get("shop_id") !== ETSY_FAKE_SHOP_ID)
      return json(403, etsyError(`The authenticated user does not own shop ${String(pathValues.get("shop_id"))}`), headers);

    let response: Response;
    if (shop.handles(op.operationId)) {
      response = shop.handle(op.operationId, where, pathValues, query, jsonBody);
    } else if (op.operationId === "getShopReceipts") {
      response = getShopReceipts(query);
    } else {
      const receipt = receipts.get(pathValues.get("receipt_id") as number);
      if (!receipt) response = json(404, etsyError(`Receipt ${String(pathValues.get("receipt_id"))} not found`));
      else if (op.operationId === "getShopReceipt") response = json(200, serve(receipt));
      else response = createReceiptShipment(receipt, form ?? {});
    }
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  }

  const fakeFetch: typeof fetch = async (input, init) => {
    const received = await receive(input, init, (u) => u.pathname === TOKEN_PATH || u.pathname.endsWith("/tracking"));
    const { request, url, rawBody, form } = received;
    const isToken = url.pathname === TOKEN_PATH;
    const route = ROUTES.find((r) => r.regex.test(url.pathname) && r.op.method === request.method) ?? ROUTES.find((r) => r.regex.test(url.pathname));
    const recorded: RecordedRequest = {
      ...received.recorded,
      target: isToken ? "token" : route ? "api" : null,
      operationId: isToken ? "token" : (route?.op.operationId ?? null),
    };
    requests.push(recorded);
    if (down) throw new TypeError("Network connection lost.");

    let response: Response;
    if (isToken) {
      response = handleToken(request, form ?? {});
    } else if (!route) {
      violations.push(`${request.method} ${url.pathname}: not a path of the description`);
      response = json(404, etsyError("Not found"));
    } else if (route.op.method !== request.method) {
      violations.push(`${request.method} ${url.pathname}: the description has ${route.op.method} only`);
      response = json(405, etsyError("Method not allowed"));
    } else {
      response = handleApi(request, url, rawBody, form, route, received.recorded.body);
    }
    recorded.status = response.status;
    if (recorded.operationId !== null && answersToLose.delete(recorded.operationId)) {
      // Etsy did the work; the answer never reaches the caller.
      throw new TypeError("Network connection lost.");
    }
    return response;
  };

  return {
    fetch: fakeFetch,
    requests,
    violations,
    receipts,
    /** API answers refused with 429 so far. */
    throttled: () => throttled,
    /** Refresh tokens issued so far, the first one included, oldest first. */
    refreshTokens: () => [...refreshTokens.keys()],
    /** The refresh token not yet used: what a seller's app holds now. */
    currentRefreshToken: () => [...refreshTokens.entries()].findLast(([, s]) => !s.used)?.[0] ?? null,
    addReceipt: add,
    /** Changes a receipt as Etsy would (its update_timestamp becomes the fake's now). */
    touch(receiptId: number, change: (receipt: EtsyReceipt) => void = () => {}) {
      const receipt = receipts.get(receiptId);
      if (!receipt) throw new Error(`the fake has no receipt ${receiptId}`);
      change(receipt);
      changed(receipt);
    },
    /** Etsy withholds this receipt's address and buyer email from the app (some regions and apps). */
    withhold(receiptId: number) {
      withheld.add(receiptId);
    },
    failNext: faults.failNext,
    failNextWithError: faults.failNextWithError,
    /** Etsy-side expiry of every access token: the next call with one answers 401. */
    expireTokens() {
      for (const state of accessTokens.values()) state.expired = true;
    },
    /** The seller revoked the app: every refresh token is refused from now on. */
    revokeRefreshTokens() {
      for (const state of refreshTokens.values()) state.used = true;
    },
    /** The seller authorises the app again (Etsy's consent page): a new refresh token for the source's Settings. */
    grantConsent(scopes: string[] = ETSY_FAKE_SCOPES): string {
      issued += 1;
      const token = `fake-consent-${issued}-${randomPart()}`;
      refreshTokens.set(token, { used: false, scopes });
      return token;
    },
    /** A listing the seller adds on Etsy. */
    addListing: shop.add,
    /** A Sku's offerings on Etsy now (quantity, price in cents, currency), one per product holding it. */
    offeringsOf: shop.offeringsOf,
    listing: shop.listing,
    /** The next call of this operation is carried out, and its answer lost on the way back. */
    loseNextAnswer(
      operationId:
        | "getShopReceipts"
        | "getShopReceipt"
        | "createReceiptShipment"
        | "getListingsByShop"
        | "getListingInventory"
        | "updateListingInventory"
        | "token",
    ) {
      answersToLose.add(operationId);
    },
    /** Etsy refuses this app createReceiptShipment (403), as for commercial apps of US shops connected since 2024-10-21. */
    denyShipments() {
      shipmentsDenied = true;
    },
    /** The next renewal is answered, and then the caller's invocation dies: nothing after it arrives until restore(). */
    cutOffAfterNextRenewal() {
      cutOffArmed = true;
    },
    restore() {
      down = false;
    },
    /** Requests to the token endpoint or the API. */
    requestsOf(target: EtsyTarget) {
      return requests.filter((r) => r.target === target);
    },
  };
}

export type EtsyFake = ReturnType<typeof createEtsyFake>;

/**
 * getShopReceipts pages for ever, one record a page that is no receipt (no receipt_id), its count
 * a million (`shrinking`: one fewer at every page, which makes offset paging step back). For failNext.
 */
export function etsyPagesForEver(shrinking: boolean): AnswerFault<EtsyTarget> {
  return badDay.endlessPages((n) => ({ count: 1_000_000 - (shrinking ? n : 0), results: [{}] }), { operation: "getShopReceipts" });
}
