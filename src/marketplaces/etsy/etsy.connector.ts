// Etsy: receipts in through getShopReceipts, tracking out through createReceiptShipment, stock
// and price out through updateListingInventory (etsy.listings.ts) (Open API v3, built from Etsy's
// published description ../shared/reference/etsy/openapi-3.0.0.json and the etsy section of
// ../shared/reference/README.md; README.md beside this file says what Etsy's API can and cannot
// do). Every call carries `x-api-key: keystring:shared_secret` and the
// seller's OAuth token, is paced by the rate-limit headers of the answers (etsy.pacing.ts), and a
// 429 waits its retry-after. Etsy's refresh token rotates: each renewal's new one is sealed into
// the source's storage as soon as its answer arrives, before any call uses the new access token
// (etsy.tokens.ts).
import {
  MarketplaceError,
  type Capabilities,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type DeliveryOutcome,
  type ImportWindow,
  type OrderPage,
  type ShipDelivery,
} from "../connector";
import { withFreshToken } from "../kit/access-token";
import { answerFailure, readJsonAnswer, refusal, sendToMarketplace } from "../kit/marketplace-http";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import { etsyReceiptReader, isAwaitingPayment, sameShipment, shipmentForm } from "./etsy.mapping";
import { answerReceived, callSent, initialPace, waitBeforeCall } from "./etsy.pacing";
import { etsyListings } from "./etsy.listings";
import { etsySettingsSchema } from "./etsy.settings";
import { etsyAccessTokens } from "./etsy.tokens";
import type { EtsyError, EtsyReceipt, EtsyReceiptPage } from "./etsy.types";
import { MAX_WAIT_MS } from "../../lib/retry";

const TIMEOUT_MS = 15_000;
/** getShopReceipts' maximum. */
const PAGE_SIZE = 100;
// getShopReceipts' floor for every timestamp parameter (2000-01-01).
const EARLIEST_SECONDS = 946_684_800;
/** Calls of the day an import leaves for deliveries (the limit is the app's, shared by its shops). */
const IMPORT_RESERVE = 100;

// The stock push's operations: a 403 there is most often a consent without the listings scopes.
const LISTING_OPERATIONS = new Set(["getListingsByShop", "getListingInventory", "updateListingInventory"]);

const CAPABILITIES: Capabilities = { acknowledge: false, ship: true, shipLines: false, cancel: false, cancelLines: false };
const NO_ACKNOWLEDGEMENT = "Etsy's API has no order acknowledgement: a paid receipt is the seller's to fulfil as it is";
// Etsy's Open API v3 description has no return resource and no refund call: a receipt only
// reports the refunds the seller made on Etsy (mapped with the order, etsy.mapping.ts).
const NO_RETURNS = "Etsy's Open API v3 has no returns: a return is settled between buyer and seller on Etsy, and only its refund shows on the receipt";
const NO_REFUND = "Etsy's Open API v3 has no refund call: the seller refunds on Etsy (Shop Manager), and the refund reaches the hub with the receipt";

const NO_CANCELLATION = "Etsy's API cannot cancel a receipt: the seller must cancel the order on Etsy (Shop Manager), which refunds the buyer";

export interface EtsyConnectorOptions {
  /** Waits for the pace or a retry-after; a test passes one that moves its clock instead. */
  sleep?: (ms: number) => Promise<void>;
  /** The longest single wait before a call is left to a later cycle. */
  maxWaitMs?: number;
  /** The most one connector (one cycle) spends waiting in all. */
  waitBudgetMs?: number;
}

/** Who a call is for: imports and stock pushes leave the day's last calls to deliveries. */
type Purpose = "import" | "delivery" | "listings";
type Method = "GET" | "POST" | "PUT";
/** A form (createReceiptShipment) or a JSON body (updateListingInventory). */
type Body = URLSearchParams | { json: unknown };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createEtsyConnector(ctx: ConnectorContext, storage: SourceStorage, options: EtsyConnectorOptions = {}): Connector {
  const settings = connectorSettings(etsySettingsSchema, ctx, "Etsy");
  const sleep = options.sleep ?? realSleep;
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  let waitBudgetMs = options.waitBudgetMs ?? 30_000;
  const nowMs = () => ctx.now().getTime();
  const apiKey = `${settings.keystring}:${settings.sharedSecret}`;
  const shopPath = `/v3/application/shops/${settings.shopId}`;
  const tokens = etsyAccessTokens(ctx, settings, storage, TIMEOUT_MS);
  let pace = initialPace();

  /** Waits for the pace before one call, or leaves the call to a later cycle. */
  async function paced(purpose: Purpose): Promise<void> {
    const decision = waitBeforeCall(pace, nowMs(), purpose === "delivery" ? 0 : IMPORT_RESERVE);
    if ("exhausted" in decision) {
      // An import stopping here is not a pause: the deliveries of the same cycle still go out. A
      // stock push waits (its own stage pauses), so its Skus do not spend their tries.
      throw new MarketplaceError(
        `Etsy has ${pace.remainingToday} calls left today for this app (x-remaining-today)` +
          (purpose === "delivery"
            ? ""
            : `; the ${purpose === "import" ? "import" : "stock push"} stops while ${IMPORT_RESERVE} or fewer are left, for deliveries`),
        429,
        true,
        // Calls for the day used up and no time named: the longest wait the hub takes.
        purpose === "import" ? null : MAX_WAIT_MS,
      );
    }
    const wait = decision.waitMs;
    if (wait > 0) await waitFor(wait, `the pace of ${pace.limitPerSecond} calls a second`);
    pace = callSent(pace, nowMs());
  }

  async function waitFor(ms: number, why: string, error?: MarketplaceError): Promise<void> {
    if (ms > maxWaitMs || ms > waitBudgetMs) {
      throw error ?? new MarketplaceError(`Etsy: the next call would wait ${Math.ceil(ms / 1000)} s for ${why}; it is left to a later cycle`, 429, true, ms);
    }
    waitBudgetMs -= ms;
    await sleep(ms);
  }

  async function httpError(operation: string, response: Response): Promise<MarketplaceError> {
    const error = await answerFailure(response, {
      prefix: `Etsy ${response.status} on ${operation}:`,
      describe: (body) => describeEtsyError(JSON.parse(body) as EtsyError),
      retryable: (status) => status === 401 || status === 429 || status >= 500,
      now: ctx.now(),
    });
    if (response.status === 403 && LISTING_OPERATIONS.has(operation)) {
      return new MarketplaceError(
        `${error.message} (the seller's consent must include the scopes listings_r and listings_w for stock and price: see the Etsy source README)`,
        error.status,
        error.retryable,
        error.retryAfterMs,
      );
    }
    if (response.status !== 403 || operation !== "createReceiptShipment") return error;
    return new MarketplaceError(
      `${error.message} (Etsy lets some apps not ship through its API, e.g. commercial apps for US shops connected since 2024-10-21: ship on Etsy, see the ` +
        `Etsy source README)`,
      error.status,
      error.retryable,
      error.retryAfterMs,
    );
  }

  /** One paced call with this token; the answer's rate-limit headers update the pace. */
  async function send(token: string, purpose: Purpose, method: Method, path: string, body?: Body): Promise<Response> {
    await paced(purpose);
    const headers: Record<string, string> = { Accept: "application/json", "x-api-key": apiKey, Authorization: `Bearer ${token}` };
    if (body) headers["Content-Type"] = body instanceof URLSearchParams ? "application/x-www-form-urlencoded" : "application/json";
    const text = body === undefined ? undefined : body instanceof URLSearchParams ? body.toString() : JSON.stringify(body.json);
    const response = await sendToMarketplace({
      marketplace: "Etsy",
      fetch: ctx.fetch,
      method,
      url: `${settings.baseUrl}${path}`,
      headers,
      body: text,
      timeoutMs: TIMEOUT_MS,
    });
    pace = answerReceived(pace, nowMs(), response.headers);
    return response;
  }

  /** One call: paced, with a fresh token once when Etsy refuses the one sent, a short 429 waited out once. */
  async function call(operation: string, purpose: Purpose, method: Method, path: string, body?: Body): Promise<Response> {
    let waited = false;
    for (;;) {
      // An access token can be revoked or expire early on Etsy's side: one fresh token, one retry.
      const response = await withFreshToken(tokens, (token) => send(token, purpose, method, path, body));
      if (response.status === 429 && !waited) {
        const error = await httpError(operation, response);
        waited = true;
        await waitFor(error.retryAfterMs ?? 1000, "Etsy's retry-after", error);
        continue;
      }
      if (!response.ok) throw await httpError(operation, response);
      return response;
    }
  }

  async function callJson<T>(operation: string, purpose: Purpose, method: Method, path: string, sent?: Body): Promise<T> {
    const response = await call(operation, purpose, method, path, sent);
    const body = await readJsonAnswer(response, `Etsy ${operation} answer`);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new MarketplaceError(`Etsy ${operation} answer is not an object`, response.status, true);
    return body as T;
  }

  async function fetchOrders(window: ImportWindow, cursor: string | null): Promise<OrderPage> {
    const [offsetText, countText] = (cursor ?? "0/").split("/");
    const offset = /^\d+$/.test(offsetText ?? "") ? Number(offsetText) : 0;
    const knownCount = /^\d+$/.test(countText ?? "") ? Number(countText) : null;
    const query = new URLSearchParams({
      min_last_modified: String(Math.max(EARLIEST_SECONDS, Math.floor(window.since.getTime() / 1000))),
      // The window's fixed end: pages stay stable while receipts change.
      max_last_modified: String(Math.max(EARLIEST_SECONDS, Math.floor(window.until.getTime() / 1000))),
      sort_on: "updated",
      sort_order: "asc",
      limit: String(PAGE_SIZE),
      offset: String(offset),
    });
    const body = await callJson<EtsyReceiptPage>("getShopReceipts", "import", "GET", `${shopPath}/receipts?${query}`);
    const records = body.results;
    if (!Array.isArray(records) || typeof body.count !== "number" || !Number.isSafeInteger(body.count) || body.count < 0) {
      throw new MarketplaceError("Etsy getShopReceipts answer has no results list or count", 200, true);
    }

    const page = splitPage(
      etsyReceiptReader,
      (records as unknown[]).filter((r) => !isAwaitingPayment(r)),
      "Etsy getShopReceipts",
    );

    // Offset pages over a fixed range can only lose members: a receipt changed after the window's
    // end leaves it, and every receipt behind it moves one place forward, across the page
    // boundary already read. When the count shrinks, step back by as much and read again
    // (importing twice is harmless) rather than skip the receipts that moved.
    const shrunk = knownCount !== null && body.count < knownCount ? knownCount - body.count : 0;
    const nextOffset = shrunk > 0 ? Math.max(0, offset - shrunk) : offset + records.length;
    const done = shrunk > 0 ? nextOffset >= body.count : records.length === 0 || nextOffset >= body.count;
    return { ...page, nextCursor: done ? null : `${nextOffset}/${body.count}` };
  }

  function receiptIdOf(delivery: Delivery): string {
    const id = delivery.order.sourceOrderNumber;
    if (!/^[1-9]\d{0,15}$/.test(id)) throw refusal("Etsy", `cannot ship order ${id}: it is not an Etsy receipt id`);
    return id;
  }

  async function ship(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const receiptId = receiptIdOf(delivery);
    const prepared = shipmentForm(delivery.shipment);
    const warnings = [...prepared.warnings];
    const tracking = prepared.form.tracking_code ?? null;

    // Etsy takes no idempotency key and mails the buyer at every shipment: an earlier attempt
    // may have reached it and lost its answer, so the receipt is read first.
    const receipt = await callJson<EtsyReceipt>("getShopReceipt", "delivery", "GET", `${shopPath}/receipts/${receiptId}`);
    if (receipt.status === "canceled") throw refusal("Etsy", `receipt ${receiptId} is canceled on Etsy: nothing was shipped`);
    if (tracking !== null) {
      const same = sameShipment(receipt.shipments, tracking);
      if (same) {
        return {
          state: "delivered",
          reference: referenceOf(same.receipt_shipping_id, tracking),
          warning: [...warnings, "Etsy already had this tracking code (an earlier attempt reached it); nothing sent again"].join("; "),
        };
      }
      if ((receipt.shipments ?? []).length > 0) warnings.push("Etsy keeps the receipt's earlier tracking code beside this one, and mailed the buyer again");
    } else if (receipt.is_shipped === true) {
      return { state: "delivered", reference: null, warning: [...warnings, "Etsy already shows the receipt shipped; nothing sent"].join("; ") };
    }

    const form = new URLSearchParams(prepared.form as Record<string, string>);
    const answer = await callJson<EtsyReceipt>("createReceiptShipment", "delivery", "POST", `${shopPath}/receipts/${receiptId}/tracking`, form);
    const created = tracking === null ? null : sameShipment(answer.shipments, tracking);
    return {
      state: "delivered",
      reference: tracking === null ? null : referenceOf(created?.receipt_shipping_id, tracking),
      warning: warnings.join("; ") || null,
    };
  }

  function notApplicable(delivery: Delivery): string | null {
    if (delivery.kind === "acknowledge") return NO_ACKNOWLEDGEMENT;
    if (delivery.kind === "cancel") return NO_CANCELLATION;
    return null;
  }

  return {
    capabilities: CAPABILITIES,
    fetchOrders,
    remap: (record) => readOrder(etsyReceiptReader, record),
    returns: { notApplicable: NO_RETURNS },
    async refund() {
      return { state: "notApplicable", reason: NO_REFUND };
    },
    notApplicable,
    async acknowledge() {
      return { state: "notApplicable", reason: NO_ACKNOWLEDGEMENT };
    },
    ship,
    async cancel() {
      return { state: "notApplicable", reason: NO_CANCELLATION };
    },
    listings: etsyListings({
      call: (operation, method, path, json) => callJson(operation, "listings", method, path, json === undefined ? undefined : { json }),
      storage,
      shopId: settings.shopId,
    }),
  };
}

/** The shipment's id when Etsy gave one, else its tracking code. */
function referenceOf(id: number | null | undefined, tracking: string): string {
  return typeof id === "number" && Number.isSafeInteger(id) ? String(id) : tracking;
}

/** ErrorSchema's `error`, with OAuth's error_description when there is one; null when the body is not that shape. */
export function describeEtsyError(body: EtsyError | null): string | null {
  if (typeof body?.error !== "string" || body.error.trim() === "") return null;
  const description = typeof body.error_description === "string" && body.error_description.trim() !== "" ? ` (${body.error_description.trim()})` : "";
  return `${body.error.trim()}${description}`.slice(0, 300);
}
