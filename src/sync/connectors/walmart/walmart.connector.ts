// Walmart Marketplace (US) Orders API v3. Built from Walmart's published descriptions
// (orders.openapi.json and auth.openapi.json 0.6.3, see ../shared/reference/walmart). The HTTP
// plumbing (deadline, JSON answers, Retry-After, Basic credentials) is marketplace-http.ts's.
import { z } from "zod";
import { MarketplaceError, type Connector, type ConnectorContext, type ImportedOrder, type OrderPage, type SetAsideOrder } from "../../connector";
import { connectorSettings, httpsUrl } from "../settings";
import { accessTokens, issuedToken } from "../access-token";
import { basicAuthorization, readJsonAnswer, retryAfterMs, sendToMarketplace } from "../marketplace-http";
import { cancellationRequest, mapWalmartOrder, shipmentRequest } from "./walmart.mapping";
import { walmartListings } from "./walmart.listings";
import {
  WALMART_CANCELLATION_REASONS,
  type WalmartError,
  type WalmartErrorBody,
  type WalmartOrder,
  type WalmartOrderList,
} from "./walmart.types";

export const WALMART_DEFAULT_BASE_URL = "https://marketplace.walmartapis.com";

export const walmartSettingsSchema = z.strictObject({
  clientId: z.string().trim().min(1, "clientId is required"),
  clientSecret: z.string().min(1, "clientSecret is required"),
  // https only: the client secret travels with every token request.
  baseUrl: httpsUrl().default(WALMART_DEFAULT_BASE_URL),
  serviceName: z.string().trim().min(1).default("Walmart Marketplace"),
  // The cancel call needs a reason and Connector.cancel carries none. Walmart's description says
  // CUSTOMER_REQUESTED_SELLER_TO_CANCEL is only for orders the customer asked to cancel, which
  // the service cannot tell, so a seller-side reason is the default.
  cancellationReason: z.enum(WALMART_CANCELLATION_REASONS).default("SELLER_CANCEL_OUT_OF_STOCK"),
});
export type WalmartSettings = z.output<typeof walmartSettingsSchema>;

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

  function send(method: string, path: string, headers: Record<string, string>, body?: string) {
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

  async function call(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const used = await tokens.get();
      const headers: Record<string, string> = { ...serviceHeaders(), "WM_SEC.ACCESS_TOKEN": used };
      // The inventory and price descriptions mark the Basic credentials required besides the token.
      if (method === "PUT") headers.Authorization = basicAuthorization(settings.clientId, settings.clientSecret);
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const response = await send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
      // A token can be revoked or expire early on Walmart's side: one fresh token, one retry.
      if (response.status === 401 && attempt === 1) {
        await response.body?.cancel();
        tokens.drop(used);
        continue;
      }
      return response;
    }
  }

  async function post(path: string, body?: unknown): Promise<void> {
    const response = await call("POST", path, body);
    if (!response.ok) throw await httpError(response);
    // The answer is the updated order, which the service does not need; drain it.
    await response.body?.cancel();
  }

  async function httpError(response: Response): Promise<MarketplaceError> {
    const text = await response.text().catch(() => "");
    const detail = describeErrors(text) ?? (text.trim().slice(0, 200) || response.statusText || "no details");
    const status = response.status;
    return new MarketplaceError(
      `Walmart ${status} ${detail}`,
      status,
      status === 401 || status === 429 || status >= 500,
      retryAfterMs(response.headers.get("Retry-After"), ctx.now()),
    );
  }

  return {
    // Walmart has every operation, for whole orders and for single lines.
    capabilities: { acknowledge: true, ship: true, shipLines: true, cancel: true, cancelLines: true },
    listings: walmartListings({ call, httpError }),

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
      const orders: ImportedOrder[] = [];
      const setAside: SetAsideOrder[] = [];
      for (const record of list.elements?.order ?? []) {
        const mapped = remap(record);
        if ("reason" in mapped) setAside.push(mapped);
        else orders.push(mapped);
      }
      return { orders, setAside, nextCursor: typeof nextCursor === "string" && nextCursor.trim() !== "" ? nextCursor : null };
    },

    remap,

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
        cancellationRequest(delivery.order, settings.cancellationReason),
      );
      return { state: "delivered" };
    },
  };
}

/** A Walmart order record as an order, or set aside with the reason its mapping gave. */
function remap(record: unknown): ImportedOrder | SetAsideOrder {
  const order = (typeof record === "object" && record !== null ? record : {}) as WalmartOrder;
  try {
    return mapWalmartOrder(order);
  } catch (error) {
    if (!(error instanceof MarketplaceError)) throw error;
    const id = typeof order.purchaseOrderId === "string" && order.purchaseOrderId !== "" ? order.purchaseOrderId : "(no purchaseOrderId)";
    return { sourceOrderNumber: id, reason: error.message, record };
  }
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


