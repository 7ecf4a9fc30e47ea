// Amazon's feed lifecycle for acknowledgements and cancellations: many deliveries become one
// POST_ORDER_ACKNOWLEDGEMENT_DATA document (createFeedDocument, the presigned upload, createFeed),
// answered `submitted` with the feed id; later cycles ask getFeed and read the processing report
// (its download capped like every answer, gunzipped or not) once per feed, kept in the source's
// storage so the other orders of that feed are answered without another download.
import { MarketplaceError, type ConnectorContext, type Delivery, type DeliveryOutcome, type ShipDelivery, type SubmissionStatus } from "../connector";
import { answerFailure, readCappedText, sendToMarketplace } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { AmazonClient } from "./amazon.client";
import { TIMEOUT_MS } from "./amazon.client";
import { messageIdOf, orderAcknowledgementFeed, readProcessingReport, type FeedDelivery } from "./amazon.mapping";
import type { AmazonSettings } from "./amazon.settings";
import {
  ORDER_ACKNOWLEDGEMENT_CONTENT_TYPE,
  ORDER_ACKNOWLEDGEMENT_FEED_TYPE,
  type AmazonCreateFeedDocumentResponse,
  type AmazonCreateFeedResponse,
  type AmazonFeed,
  type AmazonFeedDocument,
  type ProcessingReport,
} from "./amazon.types";

/** Messages per feed: one feed document, one createFeed (0.0083/s) for many orders. */
export const FEED_BATCH_SIZE = 500;
/** How long a submitted feed's id and report are remembered for a repeated submission or check. */
const FEED_MEMORY_MS = 30 * 24 * 60 * 60_000;

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

export interface AmazonFeedDeps {
  ctx: ConnectorContext;
  storage: SourceStorage;
  settings: AmazonSettings;
  client: AmazonClient;
  /** Why Amazon, not the seller, handles this order's delivery (FBA), else null. */
  notApplicableReason(delivery: Delivery): string | null;
  marketplaceOf(delivery: Delivery): string;
  /** A ship row of a batch goes through confirmShipment, one call each. */
  ship(delivery: ShipDelivery): Promise<DeliveryOutcome>;
}

export function amazonFeeds(deps: AmazonFeedDeps) {
  const { ctx, storage, settings, client, notApplicableReason, marketplaceOf, ship } = deps;
  const { callJson } = client;
  const nowMs = () => ctx.now().getTime();
  const feedStates = new Map<string, Promise<FeedState>>();

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
      // The storage service's own error (an S3 XML body): worth another try, with a new document.
      throw await answerFailure(upload, { prefix: `Amazon feed upload ${upload.status}`, retryable: () => true, now: ctx.now() });
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
    const stream = doc.compressionAlgorithm === "GZIP" ? response.body.pipeThrough(new DecompressionStream("gzip")) : response.body;
    // Counted after gunzip: a small download can unpack to any size.
    const text = await readCappedText(stream, `Amazon processing report of feed ${feedId} could not be read`, null);
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

  return { deliverFeed, deliverOne, checkSubmitted };
}

export function asMarketplaceError(error: unknown): MarketplaceError {
  if (error instanceof MarketplaceError) return error;
  return new MarketplaceError(`Amazon: ${error instanceof Error ? error.message : String(error)}`, null, true);
}
