// A fake TikTok Shop for tests in workerd: the token service and the Partner API operations the
// connector calls, held to TikTok's official generated Node SDK (tiktok-sdk.json, extracted by
// tiktok-sdk.extract.mjs) and to the TikTok section of the reference README. Every API request's
// signature is verified with the fake's own implementation of the algorithm (node:crypto's HMAC,
// over the raw query and body as received): a missing `sign`, `app_key` or `timestamp` is a
// violation of the SDK; a wrong signature (106001, HTTP 401), a timestamp more than 5 minutes old,
// an unknown app key, a missing, unknown or expired x-tts-access-token are refused as TikTok does
// (codes and messages as third parties quote TikTok's common-errors page) and recorded in
// `refusals`. A request that breaks the SDK (a path or method it does not have, an operation the
// connector should not call, a query parameter it does not list, a value outside its type, range
// or values, a missing required one, shop_cipher missing where the SDK has it or present where it
// has not, a body outside the request model, no JSON Content-Type) is answered 400 and recorded in
// `violations`. Every order and answer the fake serves is checked against the SDK's answer model.
//
// TikTok's behaviour as the README describes it: the refresh token rotates (each renewal issues a
// new one, the used one is refused), `*_expire_in` are unix times, orders move through their
// statuses and packages (split, shipped by the seller with tracking and carrier, cancelled by the
// seller), stock and price per product (tiktok-products-fake.ts), returns through their decisions
// and the seller's refunds (tiktok-returns-fake.ts). Chosen where nothing says: the
// refresh takes grant_type=refresh_token only (the SDK's authorized_code is refused, see the
// connector README); a refused renewal is code 36004004; an expired access token 105002; page
// tokens are base64 of an offset and the search they belong to; business refusals come as HTTP 200
// with a code. A bad day is played with the fault helpers every fake shares (fake-kit/faults.ts).
import { createHmac } from "node:crypto";
import type { TiktokOrder, TiktokReturn } from "../../../src/marketplaces/tiktok/tiktok.types";
import { badDay, faultQueue, faultResponse, type AnswerFault, type Fault } from "../fake-kit/faults";
import { receive, type ReceivedRequest } from "../fake-kit/received-request";
import { routesOf } from "../fake-kit/routes";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";
import extracted from "./tiktok-sdk.json";
import { tiktokFulfilment } from "./tiktok-fulfilment-fake";
import { tiktokProductsFake, type SampleProduct } from "./tiktok-products-fake";
import { tiktokReturnsFake } from "./tiktok-returns-fake";

interface QueryParam {
  name: string;
  required: boolean;
  type: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: string[];
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  pathParams: { name: string; required: boolean }[];
  query: QueryParam[];
  headers: { name: string; required: boolean }[];
  used: boolean;
  requestBody?: Schema | null;
  answer?: Schema & { properties: { data?: Schema } };
}

const spec = extracted as unknown as {
  signer: { excludedQueryKeys: string[]; commonQuery: string[]; signQuery: string };
  token: { host: string; refreshPath: string; getPath: string; refreshQuery: string[] };
  operations: Operation[];
};

export const TIKTOK_FAKE_API = "https://open-api.tiktokglobalshop.com";
export const TIKTOK_FAKE_AUTH = spec.token.host;
export const TIKTOK_FAKE_APP_KEY = "6fakeappkey0";
export const TIKTOK_FAKE_APP_SECRET = "f4k3app0secret0fedcba9876543210";
export const TIKTOK_FAKE_REFRESH_TOKEN = "ROW_fakeRefresh0first";
export const TIKTOK_FAKE_SHOP_ID = "7494105515082810525";
export const TIKTOK_FAKE_SHOP_CIPHER = "ROW_fakeCipher0ofTheShop";
/** Shipping providers the fake shop can use, id to name. */
export const TIKTOK_FAKE_PROVIDERS: Record<string, string> = { "6617675021119438849": "USPS", "6617674942426447874": "UPS", "6617675106427437058": "FedEx" };
const STALE_MS = 5 * 60_000;

export type TiktokTarget = "api" | "auth";

export interface RecordedRequest extends ReceivedRequest {
  target: TiktokTarget | null;
}

export interface TiktokFakeOptions {
  orders?: TiktokOrder[];
  returns?: TiktokReturn[];
  products?: SampleProduct[];
  /** The fake's clock (timestamps, token expiry, update_time of changes); share it with the connector's ctx.now. */
  now?: () => Date;
  /** Access token lifetime in seconds (the SDK's comment: seven days). */
  expiresIn?: number;
}

const ROUTES = routesOf(spec.operations);

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

const requestId = () =>
  [...crypto.getRandomValues(new Uint8Array(12))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
const envelope = (code: number, message: string, data: unknown) => ({ code, message, request_id: requestId(), data });

/** The fake's own signer: node:crypto over the query and the body exactly as received. */
export function fakeSignature(secret: string, path: string, params: URLSearchParams, rawBody: string): string {
  const excluded = new Set(spec.signer.excludedQueryKeys);
  const keys = [...new Set(params.keys())].filter((k) => !excluded.has(k)).sort();
  let text = path + keys.map((k) => `${k}${params.get(k)}`).join("");
  if (rawBody !== "") {
    try {
      const body = JSON.parse(rawBody) as unknown;
      if (typeof body === "object" && body !== null && Object.keys(body).length > 0) text += rawBody;
    } catch {
      // Not JSON: unsigned, and refused as a body elsewhere.
    }
  }
  return createHmac("sha256", secret).update(`${secret}${text}${secret}`).digest("hex");
}

export function createTiktokFake(opts: TiktokFakeOptions = {}) {
  const now = opts.now ?? (() => new Date());
  const expiresIn = opts.expiresIn ?? 7 * 24 * 3600;
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const refusals: string[] = [];
  const faults = faultQueue<TiktokTarget>("api");
  const accessTokens = new Map<string, { expiresAt: number; expired: boolean }>();
  const refreshTokens = new Map<string, { used: boolean }>([[TIKTOK_FAKE_REFRESH_TOKEN, { used: false }]]);
  const answersToLose = new Set<string>();
  let issued = 0;
  let cutOffArmed = false;
  let down = false;

  const ok = (data: unknown) => json(200, envelope(0, "Success", data));
  const refuse = (code: number, message: string, status = 200) => json(status, envelope(code, message, null));
  const orders = tiktokFulfilment({
    orders: opts.orders ?? [],
    now,
    ok,
    refuse,
    providers: TIKTOK_FAKE_PROVIDERS,
    answerSchema: (id) => ROUTES.find((r) => r.op.operationId === id)!.op.answer!,
  });
  const products = tiktokProductsFake({ products: opts.products ?? [], ok, refuse });
  const answerOf = (id: string) => ROUTES.find((r) => r.op.operationId === id)!.op.answer!;
  const afterSale = tiktokReturnsFake({
    orders: orders.orders,
    now,
    ok,
    refuse,
    returnSchema: answerOf("SearchReturns").properties.data!.properties!.return_orders!.items!,
  });
  for (const record of opts.returns ?? []) afterSale.add(record);

  function violation(where: string, problems: string[]): Response {
    for (const p of problems) violations.push(`${where}: ${p}`);
    return refuse(36009004, problems.join("; "), 400);
  }

  function refusal(where: string, status: number, code: number, message: string): Response {
    refusals.push(`${where}: ${code} ${message}`);
    return refuse(code, message, status);
  }

  /** Whether the answer being made is a fault's (not checked against the SDK: a bad day is meant to break it). */
  let faulted = false;

  function applyFault(fault: Fault<TiktokTarget>): Response {
    faulted = true;
    return faultResponse(
      fault,
      (f) =>
        json(
          f.status,
          f.body ?? envelope(f.status === 429 ? 36009002 : 36009003, f.status === 429 ? "Too many requests." : "Internal error.", null),
          f.headers,
        ),
      true,
    );
  }

  function randomPart(): string {
    return [...crypto.getRandomValues(new Uint8Array(9))].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  function handleToken(request: Request, url: URL): Response {
    const where = `${request.method} ${url.pathname}`;
    if (url.pathname !== spec.token.refreshPath)
      return violation(where, [`the connector only renews tokens (${spec.token.refreshPath}); ${url.pathname} is not called`]);
    const problems: string[] = [];
    if (request.method !== "GET") problems.push("the token service takes GET (client/token.ts)");
    for (const key of new Set(url.searchParams.keys()))
      if (!spec.token.refreshQuery.includes(key)) problems.push(`query parameter ${key} is not one client/token.ts sends`);
    for (const key of spec.token.refreshQuery) if (!url.searchParams.get(key)) problems.push(`query parameter ${key} is required`);
    // The README's choice between the SDK (authorized_code) and TikTok's guide and EcomPHP (refresh_token).
    if (url.searchParams.has("grant_type") && url.searchParams.get("grant_type") !== "refresh_token")
      problems.push(`grant_type must be refresh_token, got ${JSON.stringify(url.searchParams.get("grant_type"))}`);
    if (problems.length > 0) return violation(where, problems);
    const fault = faults.take("auth", "token");
    if (fault) return applyFault(fault);
    if (url.searchParams.get("app_key") !== TIKTOK_FAKE_APP_KEY || url.searchParams.get("app_secret") !== TIKTOK_FAKE_APP_SECRET) {
      return refusal(where, 200, 36004004, "Invalid app_key or app_secret.");
    }
    const known = refreshTokens.get(url.searchParams.get("refresh_token")!);
    if (!known || known.used) return refusal(where, 200, 36004004, "The refresh_token is invalid, expired or already used.");
    known.used = true;
    issued += 1;
    const accessToken = `ROW_fakeAccess${issued}_${randomPart()}`;
    const refreshToken = `ROW_fakeRefresh${issued}_${randomPart()}`;
    const at = now().getTime();
    accessTokens.set(accessToken, { expiresAt: at + expiresIn * 1000, expired: false });
    refreshTokens.set(refreshToken, { used: false });
    if (cutOffArmed) {
      // The invocation dies right after this answer: nothing the connector sends afterwards arrives.
      cutOffArmed = false;
      down = true;
    }
    return ok({
      access_token: accessToken,
      access_token_expire_in: Math.floor(at / 1000) + expiresIn,
      refresh_token: refreshToken,
      refresh_token_expire_in: Math.floor(at / 1000) + 365 * 24 * 3600,
      open_id: "fakeOpenId0",
      seller_name: "Fake Seller",
      seller_base_region: "US",
      user_type: 0,
    });
  }

  /** The query's values read by the SDK's parameter types, ranges and values; problems otherwise. */
  function queryProblems(op: Operation, params: URLSearchParams): string[] {
    const problems: string[] = [];
    const common = new Set([...spec.signer.commonQuery, spec.signer.signQuery]);
    for (const name of new Set(params.keys())) {
      if (params.getAll(name).length > 1) problems.push(`query parameter ${name} is given twice`);
      if (common.has(name)) continue;
      const p = op.query.find((q) => q.name === name);
      if (!p) {
        problems.push(`query parameter ${name} is not in the SDK's ${op.operationId}`);
        continue;
      }
      const raw = params.get(name)!;
      if (p.type === "number" || (p.minimum !== undefined && p.type === "string")) {
        if (!/^\d+$/.test(raw)) problems.push(`query parameter ${name} must be a whole number, got ${JSON.stringify(raw)}`);
        else schemaProblems(Number(raw), { type: "number", minimum: p.minimum, maximum: p.maximum }, `query parameter ${name}`, problems);
      } else if (p.type === "array") {
        const items = raw.split(",");
        if (items.some((i) => i === "")) problems.push(`query parameter ${name} has an empty item`);
        if (p.maxItems !== undefined && items.length > p.maxItems) problems.push(`query parameter ${name} has ${items.length} items, more than ${p.maxItems}`);
      } else if (p.enum && !p.enum.includes(raw)) problems.push(`query parameter ${name}: ${JSON.stringify(raw)} is not one of ${p.enum.join(", ")}`);
    }
    for (const p of op.query) if (p.required && !params.has(p.name)) problems.push(`query parameter ${p.name} is required`);
    for (const name of spec.signer.commonQuery) if (!params.has(name)) problems.push(`query parameter ${name} is missing (the SDK adds it to every call)`);
    return problems;
  }

  function handleApi(request: Request, url: URL, rawBody: string, body: unknown, route: (typeof ROUTES)[number]): Response {
    const { op } = route;
    const where = `${request.method} ${url.pathname}`;
    if (!op.used) return violation(where, [`${op.operationId} is not an operation the connector should call`]);
    const params = url.searchParams;
    const problems = queryProblems(op, params);
    if ((request.headers.get("Content-Type") ?? "").split(";")[0]?.trim() !== "application/json")
      problems.push(`Content-Type must be application/json, got ${request.headers.get("Content-Type") ?? "none"}`);
    if (!request.headers.get("x-tts-access-token")) problems.push("header x-tts-access-token is required");
    const shopScoped = op.query.some((q) => q.name === "shop_cipher");
    if (shopScoped && !params.has("shop_cipher")) problems.push(`query parameter shop_cipher is required for a shop's data (${op.operationId})`);
    if (!shopScoped && params.has("shop_cipher")) {
      violations.push(`${where}: shop_cipher sent to ${op.operationId}, which takes none`);
      return refuse(36009004, "Unexpected identifier. The `shop_cipher` query parameter is not required for this request.", 400);
    }
    if (request.method === "GET" && rawBody !== "") problems.push(`${op.operationId} is a GET and takes no body`);
    if (op.requestBody) {
      if (typeof body !== "object" || body === null) problems.push("the body is not a JSON object");
      else schemaProblems(body, op.requestBody, "body", problems);
    } else if (request.method !== "GET" && rawBody !== "" && rawBody !== "{}") problems.push(`${op.operationId} takes no body`);
    if (!params.has(spec.signer.signQuery)) {
      // The SDK signs every call: a call without `sign` breaks it, and TikTok refuses it.
      violations.push(`${where}: query parameter sign is missing`);
      return refusal(where, 400, 36009004, "Missing credentials. The request does not include a required signature in the query.");
    }
    if (problems.length > 0) return violation(where, problems);

    // As TikTok checks a call: the app, the time, the signature, the token, the shop.
    if (params.get("app_key") !== TIKTOK_FAKE_APP_KEY) return refusal(where, 400, 36009004, "Invalid credentials. Invalid `app_key` query parameter.");
    const timestamp = Number(params.get("timestamp"));
    if (!/^\d+$/.test(params.get("timestamp") ?? ""))
      return refusal(where, 400, 36009004, "Invalid timestamp. The value of the `timestamp` query parameter must not be lesser than 0.");
    const at = now().getTime();
    if (timestamp * 1000 < at - STALE_MS)
      return refusal(
        where,
        400,
        36009004,
        "Invalid timestamp. The value of the `timestamp` query parameter must not be earlier than 5 minutes before the current time.",
      );
    if (params.get("sign") !== fakeSignature(TIKTOK_FAKE_APP_SECRET, url.pathname, params, rawBody)) {
      return refusal(where, 401, 106001, "Invalid credentials. The 'sign' query parameter is invalid.");
    }
    const token = accessTokens.get(request.headers.get("x-tts-access-token")!);
    if (!token) return refusal(where, 401, 36009004, "Invalid credentials. The `x-tts-access-token` header is invalid.");
    if (token.expired || at >= token.expiresAt) return refusal(where, 401, 105002, "Expired credentials. The access token has expired.");
    if (shopScoped && params.get("shop_cipher") !== TIKTOK_FAKE_SHOP_CIPHER)
      return refusal(where, 400, 36009004, "Invalid identifier. The `shop_cipher` query parameter is invalid.");

    const fault = faults.take("api", op.operationId);
    if (fault) return applyFault(fault);
    const values = route.regex
      .exec(url.pathname)!
      .slice(1)
      .map((v) => decodeURIComponent(v));
    const pathValues = Object.fromEntries(op.pathParams.map((p, i) => [p.name, values[i] ?? ""]));
    const query = Object.fromEntries(params);
    if (op.operationId === "GetAuthorizedShops") {
      return ok({
        shops: [
          { id: "7494105515082810001", code: "USOTHER01", name: "Another Shop", region: "US", seller_type: "LOCAL", cipher: "ROW_fakeCipher0ofAnother" },
          { id: TIKTOK_FAKE_SHOP_ID, code: "USFAKE0SHOP", name: "Fake Shop", region: "US", seller_type: "LOCAL", cipher: TIKTOK_FAKE_SHOP_CIPHER },
        ],
      });
    }
    if (products.handles(op.operationId)) return products.handle(op.operationId, pathValues, query, body);
    if (afterSale.handles(op.operationId)) return afterSale.handle(op.operationId, pathValues, query, body);
    return orders.handle(op.operationId, pathValues, query, body);
  }

  /** The fake's own answer against the SDK's answer model. */
  async function checkAnswer(op: Operation, response: Response): Promise<void> {
    if (!op.answer || !response.headers.get("Content-Type")?.includes("application/json")) return;
    const body = (await response.clone().json()) as { code?: number; data?: unknown };
    if (body.code !== 0) return;
    for (const p of schemaProblems(body, op.answer, op.operationId)) violations.push(`the fake's own answer: ${p}`);
  }

  const fakeFetch: typeof fetch = async (input, init) => {
    const received = await receive(input, init, () => false);
    const { request, url, rawBody } = received;
    const isAuth = url.origin === TIKTOK_FAKE_AUTH;
    const route = isAuth
      ? undefined
      : (ROUTES.find((r) => r.regex.test(url.pathname) && r.op.method === request.method) ?? ROUTES.find((r) => r.regex.test(url.pathname)));
    const recorded: RecordedRequest = {
      ...received.recorded,
      target: isAuth ? "auth" : route ? "api" : null,
      operationId: isAuth ? "token" : (route?.op.operationId ?? null),
    };
    requests.push(recorded);
    if (down) throw new TypeError("Network connection lost.");

    let response: Response;
    faulted = false;
    if (isAuth) response = handleToken(request, url);
    else if (!route) {
      violations.push(`${request.method} ${url.pathname}: not a path of the SDK`);
      response = refuse(36009009, "Invalid path.", 404);
    } else if (route.op.method !== request.method) {
      violations.push(`${request.method} ${url.pathname}: the SDK has ${route.op.method} only`);
      response = refuse(36009009, "Invalid method.", 405);
    } else {
      response = handleApi(request, url, rawBody, received.recorded.body, route);
      if (!faulted) await checkAnswer(route.op, response);
    }
    recorded.status = response.status;
    if (recorded.operationId !== null && answersToLose.delete(recorded.operationId)) {
      // TikTok did the work; the answer never reaches the caller.
      throw new TypeError("Network connection lost.");
    }
    return response;
  };

  return {
    fetch: fakeFetch,
    requests,
    violations,
    refusals,
    orders: orders.orders,
    addOrder: orders.add,
    /** Changes an order as TikTok would (its update_time becomes the fake's now). */
    touch: orders.touch,
    /** Fulfilment calls that changed something: [operation, order id, what]. */
    fulfilled: orders.changes,
    returns: afterSale.returns,
    addReturn: afterSale.add,
    /** Changes a return as TikTok would (its update_time becomes the fake's now). */
    touchReturn: afterSale.touch,
    /** Return calls that changed something: [operation, return id, what]. */
    returned: afterSale.changes,
    products,
    failNext: faults.failNext,
    failNextWithError: faults.failNextWithError,
    /** Refresh tokens issued so far, the first one included, oldest first. */
    refreshTokens: () => [...refreshTokens.keys()],
    /** TikTok-side expiry of every access token: the next call with one answers 105002. */
    expireTokens() {
      for (const state of accessTokens.values()) state.expired = true;
    },
    /** The seller revoked the app: every refresh token is refused from now on. */
    revokeRefreshTokens() {
      for (const state of refreshTokens.values()) state.used = true;
    },
    /** The seller authorises the app again: a new refresh token for the source's Settings. */
    grantConsent(): string {
      issued += 1;
      const token = `ROW_fakeConsent${issued}_${randomPart()}`;
      refreshTokens.set(token, { used: false });
      return token;
    },
    /** The next call of this operation ("token" for a renewal) is carried out, and its answer lost. */
    loseNextAnswer(operationId: string) {
      answersToLose.add(operationId);
    },
    /** The next renewal is answered, and then the caller's invocation dies: nothing after it arrives until restore(). */
    cutOffAfterNextRenewal() {
      cutOffArmed = true;
    },
    restore() {
      down = false;
    },
    requestsOf(target: TiktokTarget, operationId?: string) {
      return requests.filter((r) => r.target === target && (operationId === undefined || r.operationId === operationId));
    },
  };
}

export type TiktokFake = ReturnType<typeof createTiktokFake>;

/**
 * GetOrderList pages for ever, one record a page that is no order (no id), a new next-page token
 * every time (`repeating`: the same one every time). For failNext.
 */
export function tiktokPagesForEver(repeating: boolean): AnswerFault<TiktokTarget> {
  return badDay.endlessPages(
    (n) => envelope(0, "Success", { orders: [{}], total_count: 1_000_000, next_page_token: repeating ? "b3Zlcg==" : btoa(`page ${n + 1}`) }),
    { operation: "GetOrderList" },
  );
}
