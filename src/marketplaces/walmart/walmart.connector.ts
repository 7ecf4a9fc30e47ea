// Walmart Marketplace (US) Orders API v3. Built from Walmart's published descriptions
// (orders.openapi.json and auth.openapi.json 0.6.3, see ../shared/reference/walmart); returns in
// and refunds out from its Returns Management description (walmart.returns.ts). The HTTP
// plumbing (deadline, no redirects, capped answers, Retry-After, tokens, page splitting) is the
// connector kit's (../kit/).
import { MarketplaceError, type Connector, type ConnectorContext, type OrderPage } from "../connector";
import { accessTokens, issuedToken, withFreshToken } from "../kit/access-token";
import { answerFailure, basicAuthorization, readJsonAnswer, sendToMarketplace } from "../kit/marketplace-http";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import { cancellationRequest, shipmentRequest, walmartOrderReader } from "./walmart.mapping";
import { walmartSettingsSchema } from "./walmart.settings";
import { walmartFeeds } from "./walmart.feeds";
import { walmartListings } from "./walmart.listings";
import { walmartReturns } from "./walmart.returns";
import type { WalmartError, WalmartErrorBody, WalmartOrderList } from "./walmart.types";

const TIMEOUT_MS = 10_000;
const PAGE_SIZE = 100;
// Tokens live 900 s; renewing a minute early keeps a call from carrying a token that dies in flight.
const TOKEN_RENEW_EARLY_MS = 60_000;
// GET /v3/orders only reaches orders created in the last 180 days.
const HISTORY_MS = 180 * 24 * 60 * 60 * 1000;

export function createWalmartConnector(ctx: ConnectorContext): Connector {
  const settings = connectorSettings(walmartSettingsSchema, ctx, "Walmart");

  function serviceHeaders(): Record<string, string> {
    return {
      Accept: "application/json",
      "WM_SVC.NAME": settings.serviceName,
      "WM_QOS.CORRELATION_ID": crypto.randomUUID(),
    };
  }

  function send(method: string, path: string, headers: Record<string, string>, body?: BodyInit) {
    return sendToMarketplace({ marketplace: "Walmart", fetch: ctx.fetch, method, url: `${settings.baseUrl}${path}`, headers, body, timeoutMs: TIMEOUT_MS });
  }

  const tokens = accessTokens({
    now: () => ctx.now().getTime(),
    renewEarlyMs: TOKEN_RENEW_EARLY_MS,
    async issue() {
      const response = await send(
        "POST",
        "/v3/token",
        {
          ...serviceHeaders(),
          Authorization: basicAuthorization(settings.clientId, settings.clientSecret),
          "Content-Type": "application/x-www-form-urlencoded",
        },
        new URLSearchParams({ grant_type: "client_credentials" }).toString(),
      );
      if (!response.ok) throw await httpError(response);
      return issuedToken(await readJsonAnswer(response, "Walmart POST /v3/token"), "Walmart token answer", response.status, 900);
    },
  });

  function call(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<Response> {
    // A token can be revoked or expire early on Walmart's side: one fresh token, one retry.
    return withFreshToken(tokens, (token) => {
      const headers: Record<string, string> = { ...serviceHeaders(), "WM_SEC.ACCESS_TOKEN": token };
      // The inventory, price, feeds and returns descriptions mark the Basic credentials required besides the token.
      if (method === "PUT" || path.startsWith("/v3/feeds") || path.startsWith("/v3/returns"))
        headers.Authorization = basicAuthorization(settings.clientId, settings.clientSecret);
      // A feed's multipart body: fetch writes its Content-Type with the boundary.
      if (body instanceof FormData) return send(method, path, headers, body);
      if (body !== undefined) headers["Content-Type"] = "application/json";
      return send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
    });
  }

  async function post(path: string, body?: unknown): Promise<void> {
    const response = await call("POST", path, body);
    if (!response.ok) throw await httpError(response);
    // The answer is the updated order, which the service does not need; drain it.
    await response.body?.cancel();
  }

  function httpError(response: Response) {
    return answerFailure(response, {
      prefix: `Walmart ${response.status}`,
      describe: describeErrors,
      retryable: (status) => status === 401 || status === 429 || status >= 500,
      now: ctx.now(),
    });
  }

  const returns = walmartReturns({ call, httpError });

  return {
    // Walmart has every operation, for whole orders and for single lines: shippingUpdates and
    // cancelOrderLines name each line with its own statusQuantity.
    capabilities: { acknowledge: true, ship: true, shipLines: true, cancel: true, cancelLines: true },
    listings: { ...walmartListings({ call, httpError }), submission: walmartFeeds({ call, httpError }) },

    async fetchOrders(window, cursor): Promise<OrderPage> {
      // GET /v3/orders rather than /v3/orders/released: "released" only lists lines still in
      // Created, so a later cancellation or shipment would never reach the service, whereas
      // lastModifiedStartDate ("modified after this date") returns new orders and changed ones.
      // createdStartDate goes along because its documented default is "current date - 7 days",
      // which would hide an older order that changed recently; 180 days is all Walmart serves.
      // lastModifiedEndDate is the window's fixed end, so pages stay stable while orders change.
      const path = cursor
        ? `/v3/orders${cursor.startsWith("?") ? cursor : `?${cursor}`}`
        : `/v3/orders?${new URLSearchParams({
            lastModifiedStartDate: window.since.toISOString(),
            lastModifiedEndDate: window.until.toISOString(),
            createdStartDate: new Date(ctx.now().getTime() - HISTORY_MS).toISOString().slice(0, 10),
            limit: String(PAGE_SIZE),
          })}`;
      const response = await call("GET", path);
      if (response.status === 404) {
        // Walmart answers an empty result with 404 CONTENT_NOT_FOUND rather than an empty list.
        const error = await httpError(response);
        if (/CONTENT_NOT_FOUND/.test(error.message)) return { orders: [], setAside: [], nextCursor: null };
        throw error;
      }
      if (!response.ok) throw await httpError(response);
      const body = (await readJsonAnswer(response, "Walmart GET /v3/orders")) as WalmartOrderList | null;
      const list = body?.list;
      if (!list) throw new MarketplaceError("Walmart order list answer has no list", response.status, true);
      const nextCursor = list.meta?.nextCursor;
      return {
        ...splitPage(walmartOrderReader, list.elements?.order ?? [], "Walmart GET /v3/orders"),
        nextCursor: typeof nextCursor === "string" && nextCursor.trim() !== "" ? nextCursor : null,
      };
    },

    remap: (record) => readOrder(walmartOrderReader, record),

    returns: returns.returns,
    refund: returns.refund,

    async acknowledge(delivery) {
      await post(`/v3/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}/acknowledge`);
      return { state: "delivered" };
    },

    async ship(delivery) {
      await post(`/v3/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}/shipping`, shipmentRequest(delivery.order, delivery.shipment));
      return { state: "delivered" };
    },

    async cancel(delivery) {
      await post(
        `/v3/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}/cancel`,
        cancellationRequest(delivery.order, settings.cancellationReason, delivery.lines ?? null),
      );
      return { state: "delivered" };
    },
  };
}

/** "CODE: description" for each Walmart error; null when the body is not Walmart's error shape. */
function describeErrors(text: string): string | null {
  let body: WalmartErrorBody;
  try {
    body = JSON.parse(text) as WalmartErrorBody;
  } catch {
    return null;
  }
  // Older Walmart answers wrap the list as {errors: {error: [...]}}.
  const raw = body?.errors;
  const errors: WalmartError[] = Array.isArray(raw) ? raw : Array.isArray(raw?.error) ? raw.error : [];
  const parts = errors
    .map((e) => {
      const code = e.code ?? "";
      const text = e.description || e.info || "";
      const field = e.field && !code.startsWith(e.field) ? ` (${e.field})` : "";
      return [code, `${text}${field}`].filter(Boolean).join(": ");
    })
    .filter(Boolean);
  return parts.length > 0 ? parts.join("; ") : null;
}
