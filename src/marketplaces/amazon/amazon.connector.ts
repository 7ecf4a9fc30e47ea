// Amazon Selling Partner API: import with the Orders API v2026-01-01 (searchOrders), ship with
// Orders v0 confirmShipment, acknowledge and cancel with a POST_ORDER_ACKNOWLEDGEMENT_DATA feed
// (Feeds API 2021-06-30) confirmed in later cycles from its processing report, returns in from a
// returns report (Reports API 2021-06-30). Built from Amazon's published Selling Partner API
// models and guides (see README.md). Every call goes through amazon.client.ts (paced per
// operation, the LWA token); the feed lifecycle is amazon.feeds.ts's, stock and price
// (patchListingsItem) amazon.listings.ts's, returns amazon.returns.ts's. This file wires them and
// holds the import and confirmShipment; refunds out are NotApplicable (no refund call in the models).
import { MarketplaceError, type Capabilities, type Connector, type ConnectorContext, type Delivery, type DeliveryOutcome, type OrderPage } from "../connector";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import { amazonClient } from "./amazon.client";
import { amazonFeeds, FEED_BATCH_SIZE } from "./amazon.feeds";
import { amazonListings } from "./amazon.listings";
import { amazonReturns } from "./amazon.returns";
import { amazonOrderReader, confirmShipmentRequest, fulfilledByAmazon } from "./amazon.mapping";
import { amazonSettingsSchema } from "./amazon.settings";
import { AMAZON_REGION_HOSTS, type AmazonSearchOrdersResponse } from "./amazon.types";

/** The carrier codes the models themselves show (confirmShipment's example, v2026 packages). */
const MODEL_CARRIER_CODES = ["FedEx", "UPS", "DPD", "Royal Mail"];

const CAPABILITIES: Capabilities = {
  acknowledge: true,
  ship: true,
  // confirmShipment takes the order items and quantities of one package, one call per package.
  shipLines: true,
  cancel: true,
  // A Failure acknowledgement cancels the order; the models offer no cancellation of some items
  // (part-cancelling is a payment adjustment feed), so line cancellations are NotApplicable.
  cancelLines: false,
};

const SETTLE_MS = 2 * 60_000;
const PAGE_SIZE = 100;
// CANCELLATION and PACKAGES: the items cancelled and the packages confirmed (decisions 12).
const INCLUDED_DATA = ["BUYER", "RECIPIENT", "PROCEEDS", "FULFILLMENT", "PAYMENT", "CANCELLATION", "PACKAGES"];
// PENDING orders carry no address or proceeds yet and would be imported blank; their change to
// UNSHIPPED moves lastUpdatedTime, so they arrive complete in a later window.
const IMPORTED_STATUSES = ["UNSHIPPED", "PARTIALLY_SHIPPED", "SHIPPED", "CANCELLED", "UNFULFILLABLE"];

export interface AmazonConnectorOptions {
  /** Waits for the pace; a test passes one that moves its clock instead. */
  sleep?: (ms: number) => Promise<void>;
  /** The longest a single call waits for its operation's pace before giving up to a later cycle. */
  maxWaitMs?: number;
  /** The most one connector (one cycle) spends waiting for the pace in all. */
  waitBudgetMs?: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createAmazonConnector(ctx: ConnectorContext, storage: SourceStorage, options: AmazonConnectorOptions = {}): Connector {
  const settings = connectorSettings(amazonSettingsSchema, ctx, "Amazon");
  const baseUrl = settings.baseUrl ?? AMAZON_REGION_HOSTS[settings.region];
  const carrierCodes = [...settings.carrierCodes, ...MODEL_CARRIER_CODES];
  const client = amazonClient(ctx, storage, settings, baseUrl, {
    sleep: options.sleep ?? realSleep,
    maxWaitMs: options.maxWaitMs ?? 5_000,
    waitBudgetMs: options.waitBudgetMs ?? 30_000,
  });
  const nowMs = () => ctx.now().getTime();

  function marketplaceOf(delivery: Delivery): string {
    return delivery.order.sourceData.marketplaceId || settings.marketplaceIds[0]!;
  }

  function notApplicableReason(delivery: Delivery): string | null {
    if (!fulfilledByAmazon(delivery)) return null;
    const verb = delivery.kind === "ship" ? "ships" : delivery.kind === "cancel" ? "cancels" : "acknowledges";
    return `Amazon fulfils order ${delivery.order.sourceOrderNumber} itself (FBA): only Amazon ${verb} it, so nothing was sent`;
  }

  async function ship(delivery: Extract<Delivery, { kind: "ship" }>): Promise<DeliveryOutcome> {
    const reason = notApplicableReason(delivery);
    if (reason) return { state: "notApplicable", reason };
    const body = confirmShipmentRequest(delivery, marketplaceOf(delivery), carrierCodes);
    const packageReferenceId = body.packageDetail.packageReferenceId;
    const response = await client.call(
      "confirmShipment",
      "POST",
      `/orders/v0/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}/shipmentConfirmation`,
      body,
    );
    // 204 No Content. The packageReferenceId is the package's reference: a correction of the
    // package sends it again, and an import recognises the package by it.
    await response.body?.cancel();
    return { state: "delivered", reference: packageReferenceId };
  }

  const feeds = amazonFeeds({ ctx, storage, settings, client, notApplicableReason, marketplaceOf, ship });

  async function fetchOrders(window: { since: Date; until: Date }, cursor: string | null): Promise<OrderPage> {
    if (window.since.getTime() >= window.until.getTime()) return { orders: [], setAside: [], nextCursor: null };
    // searchOrders refuses a lastUpdatedBefore less than two minutes before the request.
    if (window.until.getTime() > nowMs() - SETTLE_MS) {
      throw new MarketplaceError(`Amazon searchOrders window ends at ${window.until.toISOString()}, less than 2 minutes before now`, null, true);
    }
    // Amazon wants every parameter again with the token, unchanged.
    const query = new URLSearchParams({
      lastUpdatedAfter: window.since.toISOString(),
      lastUpdatedBefore: window.until.toISOString(),
      marketplaceIds: settings.marketplaceIds.join(","),
      fulfillmentStatuses: IMPORTED_STATUSES.join(","),
      includedData: INCLUDED_DATA.join(","),
      maxResultsPerPage: String(PAGE_SIZE),
    });
    if (cursor) query.set("paginationToken", cursor);
    const body = await client.callJson<AmazonSearchOrdersResponse>("searchOrders", "GET", `/orders/2026-01-01/orders?${query}`).catch((error: unknown) => {
      // searchOrders' bucket is its own: the pace kept in storage already holds the next call
      // back, so the error carries no Retry-After that would make the core pause the source's
      // deliveries too (confirmShipment and the feeds have buckets of their own).
      if (error instanceof MarketplaceError && error.status === 429) throw new MarketplaceError(error.message, 429, true, null);
      throw error;
    });
    if (!body || !Array.isArray(body.orders)) {
      throw new MarketplaceError("Amazon searchOrders answer has no orders list", 200, true);
    }
    const next = body.pagination?.nextToken;
    return {
      ...splitPage(amazonOrderReader, body.orders, "Amazon searchOrders"),
      nextCursor: typeof next === "string" && next.trim() !== "" ? next : null,
    };
  }

  return {
    capabilities: CAPABILITIES,
    settleMs: SETTLE_MS,
    fetchOrders,
    remap: (record) => readOrder(amazonOrderReader, record),
    notApplicable: notApplicableReason,
    acknowledge: feeds.deliverOne,
    cancel: feeds.deliverOne,
    ship,
    batch: { kinds: ["acknowledge", "cancel"], size: FEED_BATCH_SIZE, deliver: feeds.deliverFeed },
    checkSubmitted: feeds.checkSubmitted,
    listings: amazonListings(client, settings.sellerId, settings.marketplaceIds[0]!),
    returns: amazonReturns({ client, fetch: ctx.fetch, marketplaceIds: settings.marketplaceIds }),
    // Amazon's models kept (Orders, Feeds, Reports, Listings) have no refund call: the seller refunds in Seller Central.
    refund: async () => ({
      state: "notApplicable",
      reason: "Amazon's Selling Partner API has no refund call in the models this connector is built from; the seller refunds in Seller Central",
    }),
  };
}
