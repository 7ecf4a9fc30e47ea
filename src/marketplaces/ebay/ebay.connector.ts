// eBay: orders through the Sell Fulfillment API v1 (built from eBay's published description,
// ../shared/reference/ebay/sell_fulfillment_v1_oas3.json v1.20.7, and the ebay section of
// ../shared/reference/README.md), cancellations through the Post-Order API v2, stock and price
// through the Sell Inventory API v1 (ebay.listings.ts), refunds through issueRefund
// (ebay.refunds.ts; returns in are NotApplicable there, with the reason). The packages of an
// order eBay changed are read back with getShippingFulfillments when it needs it, a bounded
// number a page (ebay.packages.ts).
//
// The Post-Order API has no description in the reference. Its calls follow the reference README
// (check_eligibility then cancellation, {legacyOrderId, cancelReason, buyerPaid, buyerPaidDate},
// X-EBAY-C-MARKETPLACE-ID, the {errorMessage: {error}} shape) and, where the README is silent,
// eBay's Post-Order reference pages (developer.ebay.com/Devzone/post-order/): the seller
// CancelReasonEnum values, buyerPaidDate as a DateTime `{value}`, the eligibility answer read as
// OrderEligibilityResult `{eligible, failureReason, eligibleCancelReason}`, and the Authorization
// header: the current "Making a Call" page (Post-Order API Version 2) says to prefix the token
// with `Bearer`, as the Fulfillment API does (an older copy of that page, and the hendt/ebay-api
// client, used `IAF` for OAuth tokens). Nothing more of that API is used.
import {
  MarketplaceError,
  type CancelDelivery,
  type Capabilities,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type DeliveryOutcome,
  type ImportedOrder,
  type ImportWindow,
  type OrderPage,
  type ShipDelivery,
} from "../connector";
import { sha256Hex } from "../../lib/crypto";
import { accessTokens, issuedToken, withFreshToken } from "../kit/access-token";
import { answerFailure, basicAuthorization, readJsonAnswer, refusal as refused, sendToMarketplace } from "../kit/marketplace-http";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import {
  cancelRequest,
  describeEbayError,
  ebayOrderReader,
  ebayTrackingNumber,
  fulfillmentIdOf,
  lastModifiedFilter,
  offsetOfNext,
  prepareShipment,
  shippingFulfillmentDetails,
} from "./ebay.mapping";
import { EBAY_INVENTORY_SCOPE, ebayListings } from "./ebay.listings";
import { fulfillmentIdsOf, knownFulfillments, packagesOf, planPackageReads } from "./ebay.packages";
import { EBAY_FINANCES_SCOPE, EBAY_RETURNS_NOT_APPLICABLE, ebayRefunds, type EbayIssueRefundRequest, type EbayOrderRefunds } from "./ebay.refunds";
import { ebaySettingsSchema } from "./ebay.settings";
import {
  POST_ORDER_MARKETPLACES,
  type EbayOrder,
  type EbayOrderPage,
  type EbayShippingFulfillmentPage,
  type PostOrderCancelResponse,
  type PostOrderEligibilityResult,
} from "./ebay.types";

const TOKEN_PATH = "/identity/v1/oauth2/token";
const FULFILLMENT = "/sell/fulfillment/v1";
const POST_ORDER = "/post-order/v2";
const INVENTORY = "/sell/inventory/v1";
export const EBAY_FULFILLMENT_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.fulfillment";

const TIMEOUT_MS = 15_000;
/** getOrders' maximum. */
const PAGE_SIZE = 200;
// getOrders "can return orders up to two years old" and refuses a wider range (30830).
const HISTORY_MS = 2 * 365 * 24 * 60 * 60 * 1000;
// User tokens last about two hours; a few minutes early keeps a call from carrying one that dies
// in flight.
const TOKEN_RENEW_EARLY_MS = 5 * 60_000;
const TOKEN_KEY = "ebay.userToken";
// Stock and price calls carry a token of their own, with the sell.inventory scope: a seller whose
// consent lacks it still imports and ships, and only the pushes fail (ebay.listings.ts, README).
const INVENTORY_TOKEN_KEY = "ebay.inventoryToken";
// Refunds carry a token with the sell.finances scope issueRefund asks for (ebay.refunds.ts).
const FINANCES_TOKEN_KEY = "ebay.financesToken";
// eBay refuses an end date in the future (30850), and its clock is not ours: the window closes
// two minutes before the cycle.
const SETTLE_MS = 2 * 60_000;

const CAPABILITIES: Capabilities = { acknowledge: false, ship: true, shipLines: true, cancel: true, cancelLines: false };

/** A delivery's data or eBay's verdict on it: the same on every retry. */
const refusal = (message: string, status: number | null = null) => refused("eBay", message, status);

export function createEbayConnector(ctx: ConnectorContext, storage?: SourceStorage): Connector {
  const settings = connectorSettings(ebaySettingsSchema, ctx, "eBay");
  const tokenUrl = settings.tokenUrl ?? `${new URL(settings.baseUrl).origin}${TOKEN_PATH}`;
  const postOrderMarketplace = POST_ORDER_MARKETPLACES[settings.marketplaceId] ?? null;

  let fingerprint: Promise<string> | null = null;

  // The cached token is kept with the credentials it came from, so new settings never reuse it.
  function credentialsFingerprint(): Promise<string> {
    fingerprint ??= sha256Hex([settings.clientId, settings.refreshToken, tokenUrl].join("\n"));
    return fingerprint;
  }

  function errorOf(response: Response, label: string): Promise<MarketplaceError> {
    return answerFailure(response, {
      prefix: `eBay ${response.status} on ${label}:`,
      describe: (body) => describeEbayError(JSON.parse(body)),
      retryable: (status) => status === 401 || status === 408 || status === 429 || status >= 500,
      now: ctx.now(),
    });
  }

  const userTokens = (scope: string, key: string) =>
    accessTokens({
      now: () => ctx.now().getTime(),
      renewEarlyMs: TOKEN_RENEW_EARLY_MS,
      keep: storage ? { storage, key, fingerprint: credentialsFingerprint } : undefined,
      async issue() {
        const response = await sendToMarketplace({
          marketplace: "eBay",
          fetch: ctx.fetch,
          method: "POST",
          url: tokenUrl,
          headers: {
            Accept: "application/json",
            Authorization: basicAuthorization(settings.clientId, settings.clientSecret),
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: settings.refreshToken,
            scope,
          }).toString(),
          timeoutMs: TIMEOUT_MS,
        });
        if (!response.ok) {
          const error = await errorOf(response, "the token request");
          if (response.status === 400 || response.status === 401) {
            // invalid_grant / invalid_client: only new settings help, retrying does not.
            throw refusal(
              `refused the source's credentials (${error.message.replace(/^eBay \d+ on the token request: /, "")}); ` +
                "the seller must grant consent again and the source's refreshToken (or client credentials) be replaced",
              response.status,
            );
          }
          throw error;
        }
        return issuedToken(await readJsonAnswer(response, "eBay token answer"), "eBay token answer", response.status, 7200);
      },
    });
  const tokens = userTokens(EBAY_FULFILLMENT_SCOPE, TOKEN_KEY);
  const inventoryTokens = userTokens(EBAY_INVENTORY_SCOPE, INVENTORY_TOKEN_KEY);
  const financesTokens = userTokens(EBAY_FINANCES_SCOPE, FINANCES_TOKEN_KEY);

  function call(api: "fulfillment" | "postOrder" | "inventory" | "finances", method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
    // A user token can be revoked or expire early on eBay's side: one fresh token, one retry.
    return withFreshToken(api === "inventory" ? inventoryTokens : api === "finances" ? financesTokens : tokens, (token) => {
      const headers: Record<string, string> = {
        Accept: "application/json",
        Authorization: `Bearer ${token}`,
      };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      if (api === "postOrder" && postOrderMarketplace) headers["X-EBAY-C-MARKETPLACE-ID"] = postOrderMarketplace;
      return sendToMarketplace({
        marketplace: "eBay",
        fetch: ctx.fetch,
        method,
        url: `${settings.baseUrl}${api === "postOrder" ? POST_ORDER : api === "inventory" ? INVENTORY : FULFILLMENT}${path}`,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: TIMEOUT_MS,
      });
    });
  }

  async function json<T>(api: "fulfillment" | "postOrder", method: "GET" | "POST", path: string, label: string, body?: unknown) {
    const response = await call(api, method, path, body);
    if (!response.ok) throw await errorOf(response, label);
    return { response, body: (await readJsonAnswer(response, `eBay answer to ${label}`)) as T | null };
  }

  const orderPath = (orderId: string) => `/order/${encodeURIComponent(orderId)}`;
  const known = knownFulfillments(storage);

  /**
   * An order's packages as eBay holds them (getShippingFulfillments), or null when eBay's answer
   * cannot say (a 4xx, a body without a fulfillments list): the order then goes in without
   * packages, its line statuses still counting what shipped. Throttling, eBay down or a call that
   * timed out is thrown: the page is read again once eBay takes calls.
   */
  async function packagesOfOrder(order: ImportedOrder) {
    try {
      const { body } = await json<EbayShippingFulfillmentPage>(
        "fulfillment",
        "GET",
        `${orderPath(order.sourceOrderNumber)}/shipping_fulfillment`,
        "getShippingFulfillments",
      );
      return packagesOf(body, order);
    } catch (error) {
      const status = error instanceof MarketplaceError ? error.status : null;
      if (status === null || status === 401 || status === 408 || status === 429 || status >= 500) throw error;
      return null;
    }
  }

  async function fetchOrders(window: ImportWindow, cursor: string | null): Promise<OrderPage> {
    const since = new Date(Math.max(window.since.getTime(), window.until.getTime() - HISTORY_MS));
    const [offsetText, totalText] = (cursor ?? "0/").split("/");
    const offset = /^\d+$/.test(offsetText ?? "") ? Number(offsetText) : 0;
    const knownTotal = /^\d+$/.test(totalText ?? "") ? Number(totalText) : null;
    const path = `/order?filter=${lastModifiedFilter({ since, until: window.until })}&limit=${PAGE_SIZE}&offset=${offset}`;
    const { body } = await json<EbayOrderPage>("fulfillment", "GET", path, "getOrders");
    const records = body?.orders ?? [];
    if (!body || !Array.isArray(records) || typeof body.total !== "number") {
      throw new MarketplaceError("eBay getOrders answer has no orders list or total", 200, true);
    }

    // Packages: read for the orders that need it, at most PACKAGE_READS_PER_PAGE a page; the page
    // ends before the order that would need one more, and the next page starts at it.
    const plan = planPackageReads(records, known, window.until.getTime());
    const kept = records.slice(0, plan.cut);
    const page = splitPage(ebayOrderReader, kept, "eBay getOrders");
    const read: { orderId: string; ids: string[] }[] = [];
    for (const order of page.orders) {
      if (!plan.read.has(order.sourceOrderNumber)) continue;
      const shipments = await packagesOfOrder(order);
      if (!shipments) continue;
      order.shipments = shipments;
      const record = kept.find((r) => (r as EbayOrder | null)?.orderId === order.sourceOrderNumber) as EbayOrder | undefined;
      read.push({ orderId: order.sourceOrderNumber, ids: fulfillmentIdsOf(record) });
    }

    // Offset pages over a fixed [since..until] can only lose members: an order changed after
    // `until` leaves the range, and every order behind it moves one place forward, across the page
    // boundary already read. When the total shrinks, step back by as much and read again
    // (importing twice is harmless) rather than skip the orders that moved.
    const shrunk = knownTotal !== null && body.total < knownTotal ? knownTotal - body.total : 0;
    let nextOffset: number;
    let done: boolean;
    if (shrunk > 0) {
      nextOffset = Math.max(0, offset - shrunk);
      done = nextOffset >= body.total;
    } else if (plan.cut < records.length) {
      nextOffset = offset + plan.cut;
      done = false;
    } else {
      const named = offsetOfNext(body.next);
      nextOffset = named !== null && named > offset ? named : offset + records.length;
      done = !body.next || records.length === 0;
    }
    // What was read counts once the page is written, for the orders whose packages the hub applied:
    // a page whose write fails, or an order it could not apply, reads its packages again.
    const until = window.until.getTime();
    const written = (unapplied: ReadonlySet<string>) =>
      known.read(
        read.filter((r) => !unapplied.has(r.orderId)),
        until,
      );
    return { ...page, nextCursor: done ? null : `${nextOffset}/${body.total}`, ...(read.length > 0 ? { written } : {}) };
  }

  async function ship(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const orderId = delivery.order.sourceOrderNumber;
    const wanted = delivery.shipment.lines.filter((l) => l.quantity > 0);
    if (wanted.length === 0) throw refusal(`cannot ship order ${orderId}: the shipment has no lines`);
    const prepared = prepareShipment(delivery.shipment);
    const warnings = [...prepared.warnings];

    // The same shipment delivered before: eBay already has this fulfillment (id = tracking number).
    // Another package of the order that happens to carry the same number is not this one.
    const shipmentId = delivery.shipment.shipmentId;
    const repeat = delivery.earlier.find(
      (e) =>
        e.kind === "ship" &&
        e.state === "delivered" &&
        prepared.trackingNumber !== null &&
        e.reference === prepared.trackingNumber &&
        (!shipmentId || !e.shipmentId || e.shipmentId === shipmentId),
    );
    if (repeat) return { state: "delivered", reference: repeat.reference, warning: warnings.join("; ") || null };

    const { body: order } = await json<EbayOrder>("fulfillment", "GET", orderPath(orderId), "getOrder");
    if (order?.cancelStatus?.cancelState === "CANCELED") throw refusal(`cannot ship order ${orderId}: eBay has cancelled it`);
    const status = new Map((order?.lineItems ?? []).map((l) => [l.lineItemId ?? "", l.lineItemFulfillmentStatus ?? ""]));
    const open = wanted.filter((l) => status.get(l.sourceLineId) !== "FULFILLED");

    if (open.length < wanted.length) {
      if (prepared.trackingNumber !== null) {
        // An earlier attempt may have reached eBay and lost its answer: find it rather than add a
        // second fulfillment with the same number.
        const { body: page } = await json<EbayShippingFulfillmentPage>(
          "fulfillment",
          "GET",
          `${orderPath(orderId)}/shipping_fulfillment`,
          "getShippingFulfillments",
        );
        const same = (page?.fulfillments ?? []).find((f) => {
          try {
            return ebayTrackingNumber(f.shipmentTrackingNumber ?? "") === prepared.trackingNumber;
          } catch {
            return false;
          }
        });
        if (same) return { state: "delivered", reference: same.fulfillmentId ?? prepared.trackingNumber, warning: warnings.join("; ") || null };
      }
      if (open.length === 0 && prepared.trackingNumber === null) {
        warnings.push("every line was already shipped on eBay; nothing sent");
        return { state: "delivered", reference: null, warning: warnings.join("; ") };
      }
      if (open.length === 0) {
        // A corrected tracking number. The Fulfillment API cannot change or remove a fulfillment
        // (no update operation; its error 34500 points to one it does not describe), so the new
        // number goes in as another fulfillment of the same lines, beside the old one.
        warnings.push("every line was already shipped on eBay: the corrected tracking number was added beside the earlier one, which eBay keeps");
      }
    }

    const lines = (open.length > 0 ? open : wanted).map((l) => ({ lineItemId: l.sourceLineId, quantity: l.quantity }));
    const response = await call(
      "fulfillment",
      "POST",
      `${orderPath(orderId)}/shipping_fulfillment`,
      shippingFulfillmentDetails(lines, prepared, delivery.shipment.shippedAt),
    );
    if (!response.ok) throw await errorOf(response, "createShippingFulfillment");
    await response.body?.cancel();
    const fulfillmentId = fulfillmentIdOf(response.headers.get("Location")) ?? prepared.trackingNumber;
    // The next import need not read this fulfillment back: the hub holds it as this package.
    if (fulfillmentId) known.made(orderId, fulfillmentIdsOf(order), fulfillmentId);
    return { state: "delivered", reference: fulfillmentId, warning: warnings.join("; ") || null };
  }

  function cannotCancel(delivery: Delivery): string | null {
    if (delivery.kind !== "cancel" || postOrderMarketplace) return null;
    return `eBay's Post-Order API cancels orders of EBAY_US, EBAY_GB and EBAY_DE only, not ${settings.marketplaceId}`;
  }

  async function cancel(delivery: CancelDelivery): Promise<DeliveryOutcome> {
    const done = delivery.earlier.find((e) => e.kind === "cancel" && e.state === "delivered");
    if (done) return { state: "delivered", reference: done.reference };
    const unsupported = cannotCancel(delivery);
    if (unsupported) return { state: "notApplicable", reason: unsupported };
    const orderId = delivery.order.sourceOrderNumber;
    const request = cancelRequest(delivery.order.sourceData, orderId, settings.cancelReason);

    const { body: check } = await json<PostOrderEligibilityResult & { orderEligibilityResult?: PostOrderEligibilityResult }>(
      "postOrder",
      "POST",
      "/cancellation/check_eligibility",
      "check_eligibility",
      { legacyOrderId: request.legacyOrderId },
    );
    const eligibility = check?.orderEligibilityResult ?? check;
    if (eligibility?.eligible !== true) {
      const reasons = eligibility?.failureReason?.filter((r) => typeof r === "string") ?? [];
      throw refusal(`says order ${orderId} cannot be cancelled: ${reasons.join(", ") || "not eligible"}`);
    }
    const allowed = eligibility.eligibleCancelReason ?? [];
    if (allowed.length > 0 && !allowed.includes(request.cancelReason)) {
      throw refusal(`takes cancel reasons ${allowed.join(", ")} for order ${orderId}, not the source's cancelReason ${request.cancelReason}`);
    }

    const { body: created } = await json<PostOrderCancelResponse>("postOrder", "POST", "/cancellation", "create cancellation", request);
    if (typeof created?.cancelId === "string" && created.cancelId !== "") {
      return { state: "delivered", reference: created.cancelId };
    }
    const reasons = created?.orderEligibilityResult?.failureReason ?? [];
    throw refusal(`did not cancel order ${orderId}: ${reasons.join(", ") || "its answer carries no cancelId"}`);
  }

  const refunds = ebayRefunds({
    issue: (orderId, body: EbayIssueRefundRequest) => call("finances", "POST", `${orderPath(orderId)}/issue_refund`, body),
    getOrder: async (orderId) => (await json<EbayOrderRefunds>("fulfillment", "GET", orderPath(orderId), "getOrder")).body,
    errorOf,
    readJson: readJsonAnswer,
  });

  return {
    capabilities: CAPABILITIES,
    settleMs: SETTLE_MS,
    fetchOrders,
    remap: (record) => readOrder(ebayOrderReader, record),
    notApplicable: cannotCancel,
    async acknowledge() {
      return { state: "notApplicable", reason: "eBay has no order acknowledgement" };
    },
    ship,
    cancel,
    returns: EBAY_RETURNS_NOT_APPLICABLE,
    refund: refunds.refund,
    checkSubmitted: (delivery, reference) => refunds.checkSubmitted(delivery, reference),
    listings: ebayListings({ call: (method, path, body) => call("inventory", method, path, body), errorOf, marketplaceId: settings.marketplaceId }),
  };
}
