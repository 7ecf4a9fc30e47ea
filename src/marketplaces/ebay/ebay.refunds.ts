// eBay refunds out (decisions 13) through the Fulfillment API's issueRefund
// (POST /order/{order_id}/issue_refund, scope sell.finances), and the follow-up eBay asks for:
// the refund is processed asynchronously, so the delivery is `submitted` under eBay's refundId and
// later cycles read the order's paymentSummary.refunds until it is REFUNDED or FAILED. Returns in
// are NotApplicable (README: no machine-readable description of eBay's return search is kept).
import { MarketplaceError, type DeliveryOutcome, type NotApplicable, type RefundDelivery, type SubmissionStatus } from "../connector";
import { refusal as refused } from "../kit/marketplace-http";

export const EBAY_FINANCES_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.finances";

export const EBAY_RETURNS_NOT_APPLICABLE: NotApplicable = {
  notApplicable:
    "eBay's returns are in its Post-Order API, whose return search has no machine-readable description (only HTML pages, parts of it being " +
    "decommissioned): the hub does not guess it",
};

/** The description's limit of `comment`. */
const COMMENT_MAX = 100;

interface Money {
  value?: string | null;
  currency?: string | null;
}

export interface EbayIssueRefundRequest {
  reasonForRefund: string;
  comment?: string;
  refundItems?: { lineItemId: string; refundAmount: { value: string; currency: string } }[];
  orderLevelRefundAmount?: { value: string; currency: string };
}

export interface EbayOrderRefunds {
  pricingSummary?: { total?: Money | null } | null;
  paymentSummary?: { refunds?: { refundId?: string | null; refundStatus?: string | null }[] | null } | null;
}

const refusal = (message: string) => refused("eBay", message);

interface Deps {
  /** issueRefund with the sell.finances token. */
  issue(orderId: string, body: EbayIssueRefundRequest): Promise<Response>;
  /** getOrder with the fulfillment token, its body read. */
  getOrder(orderId: string): Promise<EbayOrderRefunds | null>;
  errorOf(response: Response, label: string): Promise<MarketplaceError>;
  readJson(response: Response, label: string): Promise<unknown>;
}

/**
 * The request: each line with its amount (refundItems), or the order-level amount when only
 * shipping is refunded. The description takes "either orderLevelRefundAmount or refundItems": a
 * refund of lines and shipping goes out as one order-level amount, with a warning.
 */
export function issueRefundRequest(delivery: RefundDelivery, currency: string): { body: EbayIssueRefundRequest; warning: string | null } {
  const money = (n: number) => ({ value: n.toFixed(2), currency });
  // ReasonForRefundEnum's values are not in the kept description, which names a "buyer remorse"
  // return and a buyer-requested cancellation; BUYER_RETURN and OTHER are eBay's published words for these.
  const base = { reasonForRefund: delivery.return ? "BUYER_RETURN" : "OTHER", comment: delivery.reason.slice(0, COMMENT_MAX) };
  const lines = delivery.lines.filter((l) => l.amount > 0);
  if (lines.length === 0 && delivery.shippingAmount <= 0)
    throw refusal(`cannot refund order ${delivery.order.sourceOrderNumber}: nothing to refund (every amount is 0)`);
  if (lines.length > 0 && delivery.shippingAmount > 0) {
    return {
      body: { ...base, orderLevelRefundAmount: money(delivery.total) },
      warning: `eBay takes line amounts or one order amount, not both: sent as an order-level refund of ${delivery.total.toFixed(2)} ${currency}`,
    };
  }
  if (lines.length === 0) return { body: { ...base, orderLevelRefundAmount: money(delivery.shippingAmount) }, warning: null };
  return { body: { ...base, refundItems: lines.map((l) => ({ lineItemId: l.sourceLineId, refundAmount: money(l.amount) })) }, warning: null };
}

export function ebayRefunds(deps: Deps) {
  return {
    async refund(delivery: RefundDelivery): Promise<DeliveryOutcome> {
      const orderId = delivery.order.sourceOrderNumber;
      let currency = delivery.currency;
      if (!currency) {
        const order = await deps.getOrder(orderId);
        currency = order?.pricingSummary?.total?.currency ?? null;
        if (!currency) throw new MarketplaceError(`eBay getOrder ${orderId} names no currency for the refund`, 200, true);
      }
      const { body, warning } = issueRefundRequest(delivery, currency);
      let response: Response;
      try {
        response = await deps.issue(orderId, body);
      } catch (error) {
        // issueRefund takes no idempotency key: an answer lost in transit may be a refund made, so
        // it is not sent again blindly. The seller checks the order in eBay first.
        if (error instanceof MarketplaceError && error.status === null) {
          throw new MarketplaceError(
            `${error.message}; eBay's issueRefund takes no idempotency key, so it is not sent again: check order ${orderId} in eBay before refunding again`,
            null,
            false,
          );
        }
        throw error;
      }
      if (!response.ok) throw await deps.errorOf(response, "issueRefund");
      const answer = (await deps.readJson(response, "eBay answer to issueRefund")) as { refundId?: unknown; refundStatus?: unknown } | null;
      const status = answer?.refundStatus;
      const refundId = answer?.refundId;
      if (status === "FAILED") throw refusal(`refused the refund of order ${orderId} (refundStatus FAILED)`);
      if (typeof refundId !== "string" || refundId === "")
        throw refusal(`answered the refund of order ${orderId} without a refundId (refundStatus ${JSON.stringify(status)})`);
      if (status === "REFUNDED") return { state: "delivered", reference: refundId, warning };
      // PENDING, as the description says a successful call answers (a submitted outcome carries no warning).
      return { state: "submitted", reference: refundId };
    },

    async checkSubmitted(delivery: { order: { sourceOrderNumber: string } }, reference: string): Promise<SubmissionStatus> {
      const order = await deps.getOrder(delivery.order.sourceOrderNumber);
      const refund = (order?.paymentSummary?.refunds ?? []).find((r) => r?.refundId === reference);
      if (refund?.refundStatus === "REFUNDED") return { state: "delivered", reference };
      if (refund?.refundStatus === "FAILED")
        return { state: "rejected", message: `eBay refund ${reference} of order ${delivery.order.sourceOrderNumber} FAILED` };
      return { state: "pending" };
    },
  };
}
