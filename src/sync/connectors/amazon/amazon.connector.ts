// Amazon Selling Partner API: import with the Orders API v2026-01-01 (searchOrders), ship with
// Orders v0 confirmShipment, acknowledge and cancel with a POST_ORDER_ACKNOWLEDGEMENT_DATA feed
// (Feeds API 2021-06-30) confirmed in later cycles from its processing report. Built from the
// models in ../shared/reference/amazon/ and the guides the reference README quotes. Every call
// is paced per operation (amazon.pacing.ts) with the pace kept in the source's storage.
import { z } from "zod";
import {
  MarketplaceError,
  type Capabilities,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type DeliveryOutcome,
  type ImportedOrder,
  type OrderPage,
  type SetAsideOrder,
  type SubmissionStatus,
} from "../../connector";
import { connectorSettings, httpsUrl } from "../settings";
import { accessTokens, issuedToken } from "../access-token";
import { readJsonAnswer, retryAfterMs, sendToMarketplace } from "../marketplace-http";
import type { SourceStorage } from "../storage";
import {
  confirmShipmentRequest,
  describeAmazonErrors,
  fulfilledByAmazon,
  isSetAside,
  mapOrSetAside,
  messageIdOf,
  orderAcknowledgementFeed,
  readProcessingReport,
  UnmappableOrder,
  type FeedDelivery,
} from "./amazon.mapping";
import { afterAnswer, refillMs, takeCall, USAGE_PLANS, type AmazonOperation, type PaceState } from "./amazon.pacing";
import {
  AMAZON_CANCEL_REASONS,
  AMAZON_REGION_HOSTS,
  LWA_TOKEN_URL,
  ORDER_ACKNOWLEDGEMENT_CONTENT_TYPE,
  ORDER_ACKNOWLEDGEMENT_FEED_TYPE,
  type AmazonCreateFeedDocumentResponse,
  type AmazonCreateFeedResponse,
  type AmazonFeed,
  type AmazonFeedDocument,
  type AmazonSearchOrdersResponse,
  type ProcessingReport,
} from "./amazon.types";


export const amazonSettingsSchema = z.strictObject({
  refreshToken: z.string({ error: "refreshToken is required" }).trim().min(1, "refreshToken is required"),
  clientId: z.string({ error: "clientId is required" }).trim().min(1, "clientId is required"),
  clientSecret: z.string({ error: "clientSecret is required" }).min(1, "clientSecret is required"),
  region: z.enum(["na", "eu", "fe"], { error: "region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)" }),
  marketplaceIds: z
    .array(z.string().trim().regex(/^[A-Z0-9]{5,20}$/, "each marketplace id is Amazon's, like ATVPDKIKX0DER"), {
      error: "marketplaceIds must be a list of Amazon marketplace ids",
    })
    .min(1, "marketplaceIds must name at least one marketplace")
    // searchOrders takes at most 50.
    .max(50, "marketplaceIds takes at most 50 marketplaces"),
  /** A sandbox or a fake; the region's host by default. */
  baseUrl: httpsUrl().optional(),
  /** Login with Amazon's token endpoint; a fake in tests. */
  tokenUrl: httpsUrl().default(LWA_TOKEN_URL),
  /** The seller's merchant token, written as the feed envelope's MerchantIdentifier. */
  sellerId: z.string().trim().min(1, "sellerId must not be blank").max(64).optional(),
  /** The CancelReason of a cancellation (Connector.cancel carries no reason Amazon knows). */
  cancelReason: z.enum(AMAZON_CANCEL_REASONS, { error: `cancelReason must be one of ${AMAZON_CANCEL_REASONS.join(", ")}` }).default("GeneralAdjustment"),
  /** Amazon carrier codes the seller ships with, sent as carrierCode when the carrier matches one. */
  carrierCodes: z.array(z.string().trim().min(1).max(64)).max(200).default([]),
});
export type AmazonSettings = z.output<typeof amazonSettingsSchema>;

/** The carrier codes the models themselves show (confirmShipment's example, v2026 packages). */
const MODEL_CARRIER_CODES = ["FedEx", "UPS", "DPD", "Royal Mail"];

const CAPABILITIES: Capabilities = {
  acknowledge: true,
  ship: true,
  // confirmShipment takes the order items and quantities of one package.
  shipLines: true,
  cancel: true,
  // A Failure acknowledgement cancels the order; partial cancellation is an adjustment feed.
  cancelLines: false,
};

const SETTLE_MS = 2 * 60_000;
const TIMEOUT_MS = 15_000;
const PAGE_SIZE = 100;
const INCLUDED_DATA = ["BUYER", "RECIPIENT", "PROCEEDS", "FULFILLMENT", "PAYMENT"];
// PENDING orders carry no address or proceeds yet and would be imported blank; their change to
// UNSHIPPED moves lastUpdatedTime, so they arrive complete in a later window.
const IMPORTED_STATUSES = ["UNSHIPPED", "PARTIALLY_SHIPPED", "SHIPPED", "CANCELLED", "UNFULFILLABLE"];
// LWA tokens live 3600 s; renewing a minute early keeps a call from carrying a token that dies in flight.
const TOKEN_RENEW_EARLY_MS = 60_000;
/** Messages per feed: one feed document, one createFeed (0.0083/s) for many orders. */
export const FEED_BATCH_SIZE = 500;
/** How long a submitted feed's id and report are remembered for a repeated submission or check. */
const FEED_MEMORY_MS = 30 * 24 * 60 * 60_000;

export interface AmazonConnectorOptions {
  /** Waits for the pace; a test passes one that moves its clock instead. */
  sleep?: (ms: number) => Promise<void>;
  /** The longest a single call waits for its operation's pace before giving up to a later cycle. */
  maxWaitMs?: number;
  /** The most one connector (one cycle) spends waiting for the pace in all. */
  waitBudgetMs?: number;
}

interface StoredFeed {
  feedId: string;
  at: number;
}

interface StoredReport {
  status: string;
  /** By MessageID: the Result, or absent when the message was processed without one. */
  results: Record<string, { code: string; messageCode: string | null; description: string }>;
  /** Messages the report counted (null when it said nothing). */
  processed: number | null;
  at: number;
}

type FeedState = { state: "pending" } | { state: "final"; report: StoredReport };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createAmazonConnector(ctx: ConnectorContext, storage: SourceStorage, options: AmazonConnectorOptions = {}): Connector {
  const settings = connectorSettings(amazonSettingsSchema, ctx, "Amazon");
  const baseUrl = settings.baseUrl ?? AMAZON_REGION_HOSTS[settings.region];
  const carrierCodes = [...settings.carrierCodes, ...MODEL_CARRIER_CODES];
  const sleep = options.sleep ?? realSleep;
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  let waitBudgetMs = options.waitBudgetMs ?? 30_000;

  const feedStates = new Map<string, Promise<FeedState>>();

  const nowMs = () => ctx.now().getTime();

  const tokens = accessTokens({
    now: nowMs,
    renewEarlyMs: TOKEN_RENEW_EARLY_MS,
    async issue() {
      const response = await sendToMarketplace({
        marketplace: "Login with Amazon",
        fetch: ctx.fetch,
        method: "POST",
        url: settings.tokenUrl,
        headers: { "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8", Accept: "application/json" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: settings.refreshToken,
          client_id: settings.clientId,
          client_secret: settings.clientSecret,
        }).toString(),
        timeoutMs: TIMEOUT_MS,
      });
      if (!response.ok) {
        const body = await response.text().catch(() => "");
        const detail = describeAmazonErrors(body) ?? (body.trim().slice(0, 200) || response.statusText || "no details");
        // A refused refresh token or client will not change by itself: the seller must authorise again.
        throw new MarketplaceError(
          `Login with Amazon refused the token request: ${response.status} ${detail}`,
          response.status,
          response.status === 429 || response.status >= 500,
          retryAfterMs(response.headers.get("Retry-After"), ctx.now()),
        );
      }
      return issuedToken(await readJsonAnswer(response, "Login with Amazon token answer"), "Login with Amazon token answer", response.status, 3600);
    },
  });

  const paceKey = (op: AmazonOperation) => `amazon:pace:${op}`;

  /** Takes one call of `op` from its bucket, waiting when the wait is short, else failing for a later cycle. */
  async function pace(op: AmazonOperation): Promise<void> {
    const plan = USAGE_PLANS[op];
    const now = nowMs();
    let decision = takeCall(storage.get<PaceState>(paceKey(op)), now, plan);
    if (!decision.allowed) {
      const wait = decision.waitMs;
      if (wait > maxWaitMs || wait > waitBudgetMs) throw pacedError(op, wait, decision.state);
      waitBudgetMs -= wait;
      await sleep(wait);
      // Taken at the moment the wait ends, which fits by construction whatever the clock says now.
      decision = takeCall(storage.get<PaceState>(paceKey(op)), Math.max(nowMs(), now + wait), plan);
      if (!decision.allowed) throw pacedError(op, decision.waitMs, decision.state);
    }
    storage.put(paceKey(op), decision.state);
  }

  function pacedError(op: AmazonOperation, waitMs: number, state: PaceState): MarketplaceError {
    const plan = USAGE_PLANS[op];
    return new MarketplaceError(
      `Amazon ${op} is paced at ${state.ratePerSecond} calls/s (burst ${plan.capacity}): the next call fits in ${Math.ceil(waitMs / 1000)} s, so it waits for a later cycle`,
      429,
      true,
      waitMs,
    );
  }

  function noteAnswer(op: AmazonOperation, response: Response): void {
    const state = storage.get<PaceState>(paceKey(op));
    if (!state) return;
    storage.put(
      paceKey(op),
      afterAnswer(state, nowMs(), USAGE_PLANS[op], { status: response.status, rateLimitHeader: response.headers.get("x-amzn-RateLimit-Limit") }),
    );
  }

  async function httpError(op: AmazonOperation, response: Response): Promise<MarketplaceError> {
    const body = await response.text().catch(() => "");
    const detail = describeAmazonErrors(body) ?? (body.trim().slice(0, 200) || response.statusText || "no details");
    const status = response.status;
    const retryAfter =
      retryAfterMs(response.headers.get("Retry-After"), ctx.now()) ??
      (status === 429 ? refillMs(storage.get<PaceState>(paceKey(op)), USAGE_PLANS[op]) : null);
    return new MarketplaceError(`Amazon ${op} ${status} ${detail}`, status, status === 429 || status >= 500, retryAfter);
  }

  /** One Selling Partner API call: paced, with the LWA token, renewed once on 401/403, a short 429 waited out once. */
  async function call(op: AmazonOperation, method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
    let renewed = false;
    let waited429 = false;
    for (;;) {
      await pace(op);
      const used = await tokens.get();
      const headers: Record<string, string> = { "x-amz-access-token": used, Accept: "application/json" };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const response = await sendToMarketplace({
        marketplace: "Amazon",
        fetch: ctx.fetch,
        method,
        url: `${baseUrl}${path}`,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: TIMEOUT_MS,
      });
      noteAnswer(op, response);
      // An expired or revoked token answers 403 (the models) or 401: one fresh token, one retry.
      if ((response.status === 401 || response.status === 403) && !renewed) {
        renewed = true;
        await response.body?.cancel();
        tokens.drop(used);
        continue;
      }
      if (response.status === 429 && !waited429) {
        const error = await httpError(op, response);
        const wait = error.retryAfterMs ?? 0;
        if (wait > maxWaitMs || wait > waitBudgetMs) throw error;
        waited429 = true;
        waitBudgetMs -= wait;
        await sleep(wait);
        continue;
      }
      if (!response.ok) throw await httpError(op, response);
      return response;
    }
  }

  async function callJson<T>(op: AmazonOperation, method: "GET" | "POST", path: string, body?: unknown): Promise<T | null> {
    const response = await call(op, method, path, body);
    const answer = await readJsonAnswer(response, `Amazon ${op}`);
    return typeof answer === "object" && answer !== null && !Array.isArray(answer) ? (answer as T) : null;
  }

  function marketplaceOf(delivery: Delivery): string {
    return delivery.order.sourceData.marketplaceId || settings.marketplaceIds[0]!;
  }

  function notApplicableReason(delivery: Delivery): string | null {
    if (!fulfilledByAmazon(delivery)) return null;
    const verb = delivery.kind === "ship" ? "ships" : delivery.kind === "cancel" ? "cancels" : "acknowledges";
    return `Amazon fulfils order ${delivery.order.sourceOrderNumber} itself (FBA): only Amazon ${verb} it, so nothing was sent`;
  }

  /** Uploads one feed document and creates the feed; answers the feed id. */
  async function submitFeed(deliveries: FeedDelivery[], marketplaceId: string): Promise<string> {
    // The XSD requires MerchantIdentifier; the token already says which seller this is.
    const document = orderAcknowledgementFeed(deliveries, settings.sellerId ?? ctx.sourceId, settings.cancelReason);
    const created = await callJson<AmazonCreateFeedDocumentResponse>("createFeedDocument", "POST", "/feeds/2021-06-30/documents", {
      contentType: ORDER_ACKNOWLEDGEMENT_CONTENT_TYPE,
    });
    if (typeof created?.feedDocumentId !== "string" || typeof created.url !== "string" || !/^https:\/\//.test(created.url)) {
      throw new MarketplaceError("Amazon createFeedDocument answer carries no feedDocumentId and https url", 201, true);
    }
    // The presigned URL is signed for this Content-Type; it takes no access token.
    const upload = await sendToMarketplace({
      marketplace: "Amazon feed upload",
      fetch: ctx.fetch,
      method: "PUT",
      url: created.url,
      headers: { "Content-Type": ORDER_ACKNOWLEDGEMENT_CONTENT_TYPE },
      body: new TextEncoder().encode(document),
      timeoutMs: TIMEOUT_MS,
    });
    if (!upload.ok) {
      const detail = (await upload.text().catch(() => "")).trim().slice(0, 200);
      throw new MarketplaceError(`Amazon feed upload ${upload.status} ${detail || upload.statusText}`.trim(), upload.status, true);
    }
    await upload.body?.cancel();
    const feed = await callJson<AmazonCreateFeedResponse>("createFeed", "POST", "/feeds/2021-06-30/feeds", {
      feedType: ORDER_ACKNOWLEDGEMENT_FEED_TYPE,
      marketplaceIds: [marketplaceId],
      inputFeedDocumentId: created.feedDocumentId,
    });
    if (typeof feed?.feedId !== "string" || feed.feedId === "") {
      throw new MarketplaceError("Amazon createFeed answer carries no feedId", 202, true);
    }
    return feed.feedId;
  }

  const feedKey = (delivery: Delivery) => `amazon:feed:${delivery.idempotencyKey}`;

  async function deliverFeed(deliveries: Delivery[]): Promise<Map<number, DeliveryOutcome | MarketplaceError>> {
    const outcomes = new Map<number, DeliveryOutcome | MarketplaceError>();
    const byMarketplace = new Map<string, FeedDelivery[]>();
    for (const delivery of deliveries) {
      if (delivery.kind === "ship") {
        outcomes.set(delivery.id, await ship(delivery).catch((e: unknown) => asMarketplaceError(e)));
        continue;
      }
      const reason = notApplicableReason(delivery);
      if (reason) {
        outcomes.set(delivery.id, { state: "notApplicable", reason });
        continue;
      }
      // Submitted before and the answer lost on the way to the outbox: the same feed, not a second one.
      const known = storage.get<StoredFeed>(feedKey(delivery));
      if (known) {
        outcomes.set(delivery.id, { state: "submitted", reference: known.feedId });
        continue;
      }
      if (delivery.kind === "cancel" && delivery.order.lines.length === 0) {
        outcomes.set(delivery.id, new MarketplaceError(`Amazon cannot cancel order ${delivery.order.sourceOrderNumber}: it has no items`, null, false));
        continue;
      }
      const marketplaceId = marketplaceOf(delivery);
      byMarketplace.set(marketplaceId, [...(byMarketplace.get(marketplaceId) ?? []), delivery]);
    }
    let failure: MarketplaceError | null = null;
    for (const [marketplaceId, group] of byMarketplace) {
      try {
        const feedId = await submitFeed(group, marketplaceId);
        const at = nowMs();
        for (const d of group) {
          storage.put(feedKey(d), { feedId, at } satisfies StoredFeed);
          outcomes.set(d.id, { state: "submitted", reference: feedId });
        }
      } catch (error) {
        failure = asMarketplaceError(error);
        for (const d of group) outcomes.set(d.id, failure);
      }
    }
    // Nothing went through and Amazon is down or busy: thrown, so the core stops this cycle's
    // deliveries instead of spending an attempt of every later row on the same answer.
    if (failure?.retryable && [...outcomes.values()].every((o) => o instanceof MarketplaceError)) throw failure;
    return outcomes;
  }

  async function deliverOne(delivery: Delivery): Promise<DeliveryOutcome> {
    const outcome = (await deliverFeed([delivery])).get(delivery.id);
    if (outcome instanceof MarketplaceError) throw outcome;
    if (!outcome) throw new MarketplaceError(`Amazon feed for order ${delivery.order.sourceOrderNumber} was not sent`, null, true);
    return outcome;
  }

  async function ship(delivery: Extract<Delivery, { kind: "ship" }>): Promise<DeliveryOutcome> {
    const reason = notApplicableReason(delivery);
    if (reason) return { state: "notApplicable", reason };
    let body;
    try {
      body = confirmShipmentRequest(delivery, marketplaceOf(delivery), carrierCodes);
    } catch (error) {
      throw asMarketplaceError(error);
    }
    const response = await call(
      "confirmShipment",
      "POST",
      `/orders/v0/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}/shipmentConfirmation`,
      body,
    );
    // 204 No Content.
    await response.body?.cancel();
    return { state: "delivered", reference: null };
  }

  async function downloadReport(feedId: string, documentId: string): Promise<ProcessingReport> {
    const doc = await callJson<AmazonFeedDocument>("getFeedDocument", "GET", `/feeds/2021-06-30/documents/${encodeURIComponent(documentId)}`);
    if (typeof doc?.url !== "string" || !/^https:\/\//.test(doc.url)) {
      throw new MarketplaceError(`Amazon getFeedDocument answer for feed ${feedId} carries no https url`, 200, true);
    }
    const response = await sendToMarketplace({ marketplace: "Amazon report download", fetch: ctx.fetch, method: "GET", url: doc.url, timeoutMs: TIMEOUT_MS });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new MarketplaceError(`Amazon processing report of feed ${feedId}: download answered ${response.status}`, response.status, true);
    }
    let text: string;
    try {
      const stream =
        doc.compressionAlgorithm === "GZIP" ? response.body.pipeThrough(new DecompressionStream("gzip")) : response.body;
      text = await new Response(stream).text();
    } catch (error) {
      throw new MarketplaceError(
        `Amazon processing report of feed ${feedId} could not be read: ${error instanceof Error ? error.message : String(error)}`,
        null,
        true,
      );
    }
    const report = readProcessingReport(text);
    if (!report) throw new MarketplaceError(`Amazon processing report of feed ${feedId} is not a ProcessingReport document`, null, true);
    return report;
  }

  const reportKey = (feedId: string) => `amazon:report:${feedId}`;

  async function loadFeedState(feedId: string): Promise<FeedState> {
    const stored = storage.get<StoredReport>(reportKey(feedId));
    if (stored) return { state: "final", report: stored };
    const feed = await callJson<AmazonFeed>("getFeed", "GET", `/feeds/2021-06-30/feeds/${encodeURIComponent(feedId)}`);
    const status = feed?.processingStatus;
    if (status === "IN_QUEUE" || status === "IN_PROGRESS") return { state: "pending" };
    if (status !== "DONE" && status !== "FATAL" && status !== "CANCELLED") {
      throw new MarketplaceError(`Amazon getFeed answered an unknown processingStatus ${JSON.stringify(status ?? null)} for feed ${feedId}`, 200, true);
    }
    const report: StoredReport = { status, results: {}, processed: null, at: nowMs() };
    if (status !== "CANCELLED" && typeof feed?.resultFeedDocumentId === "string" && feed.resultFeedDocumentId !== "") {
      const read = await downloadReport(feedId, feed.resultFeedDocumentId);
      report.processed = read.messagesProcessed;
      for (const r of read.results) {
        // An Error outweighs a Warning for the same message.
        if (report.results[r.messageId]?.code === "Error") continue;
        report.results[r.messageId] = { code: r.code, messageCode: r.messageCode, description: r.description };
      }
    }
    // Kept, so that the other orders of this feed are answered without another download
    // (getFeedDocument allows one call in 45 s); forgotten after FEED_MEMORY_MS.
    pruneOld();
    storage.put(reportKey(feedId), report);
    return { state: "final", report };
  }

  function pruneOld(): void {
    const before = nowMs() - FEED_MEMORY_MS;
    for (const prefix of ["amazon:report:", "amazon:feed:"]) {
      for (const [key, value] of storage.list<{ at?: number }>(prefix)) {
        if (typeof value?.at === "number" && value.at < before) storage.delete(key);
      }
    }
  }

  async function checkSubmitted(delivery: Delivery, feedId: string): Promise<SubmissionStatus> {
    let loading = feedStates.get(feedId);
    if (!loading) {
      // A check that must wait for getFeed's or getFeedDocument's pace is just not done yet:
      // pending, for every order of the feed this cycle, rather than an error that stops the
      // cycle's other deliveries.
      loading = loadFeedState(feedId).catch((error: unknown): FeedState => {
        if (error instanceof MarketplaceError && error.status === 429) return { state: "pending" };
        throw error;
      });
      feedStates.set(feedId, loading);
      // A failed check is tried again by the next delivery or cycle, not remembered.
      loading.catch(() => feedStates.delete(feedId));
    }
    const feed = await loading;
    if (feed.state === "pending") return { state: "pending" };
    storage.delete(feedKey(delivery));
    const what = `${delivery.kind === "cancel" ? "cancellation" : "acknowledgement"} of order ${delivery.order.sourceOrderNumber} (feed ${feedId})`;
    const { report } = feed;
    if (report.status === "CANCELLED") return { state: "rejected", message: `Amazon cancelled the ${what} before processing it` };
    const result = report.results[messageIdOf(delivery)];
    const detail = result ? [result.messageCode, result.description].filter(Boolean).join(": ") : "";
    if (result?.code === "Error") return { state: "rejected", message: `Amazon rejected the ${what}: ${detail}` };
    if (report.status === "FATAL") {
      return { state: "rejected", message: `Amazon stopped processing the ${what} with a fatal error${detail ? `: ${detail}` : ""}` };
    }
    return { state: "delivered", reference: feedId, warning: result ? `Amazon accepted the ${what} with a warning: ${detail}` : null };
  }

  async function fetchOrders(window: { since: Date; until: Date }, cursor: string | null): Promise<OrderPage> {
    if (window.since.getTime() >= window.until.getTime()) return { orders: [], setAside: [], nextCursor: null };
    // searchOrders refuses a lastUpdatedBefore less than two minutes before the request.
    if (window.until.getTime() > nowMs() - SETTLE_MS) {
      throw new MarketplaceError(
        `Amazon searchOrders window ends at ${window.until.toISOString()}, less than 2 minutes before now`,
        null,
        true,
      );
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
    const body = await callJson<AmazonSearchOrdersResponse>("searchOrders", "GET", `/orders/2026-01-01/orders?${query}`).catch(
      (error: unknown) => {
        // searchOrders' bucket is its own: the pace kept in storage already holds the next call
        // back, so the error carries no Retry-After that would make the core pause the source's
        // deliveries too (confirmShipment and the feeds have buckets of their own).
        if (error instanceof MarketplaceError && error.status === 429) throw new MarketplaceError(error.message, 429, true, null);
        throw error;
      },
    );
    if (!body || !Array.isArray(body.orders)) {
      throw new MarketplaceError("Amazon searchOrders answer has no orders list", 200, true);
    }
    const orders: ImportedOrder[] = [];
    const setAside: SetAsideOrder[] = [];
    for (const record of body.orders as unknown[]) {
      const mapped = mapOrSetAside(record);
      if (isSetAside(mapped)) setAside.push(mapped);
      else orders.push(mapped);
    }
    const next = body.pagination?.nextToken;
    return { orders, setAside, nextCursor: typeof next === "string" && next.trim() !== "" ? next : null };
  }

  return {
    capabilities: CAPABILITIES,
    settleMs: SETTLE_MS,
    fetchOrders,
    remap: mapOrSetAside,
    notApplicable: notApplicableReason,
    acknowledge: deliverOne,
    cancel: deliverOne,
    ship,
    batch: { kinds: ["acknowledge", "cancel"], size: FEED_BATCH_SIZE, deliver: deliverFeed },
    checkSubmitted,
  };
}

function asMarketplaceError(error: unknown): MarketplaceError {
  if (error instanceof MarketplaceError) return error;
  // A delivery the data makes impossible (no tracking number): the same on every retry.
  if (error instanceof UnmappableOrder) return new MarketplaceError(`Amazon ${error.message}`, null, false);
  return new MarketplaceError(`Amazon: ${error instanceof Error ? error.message : String(error)}`, null, true);
}
