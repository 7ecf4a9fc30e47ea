// TikTok Shop returns and refunds (decisions 13), through the calls of TikTok's return_refund API
// 202309: returns in by SearchReturns (update_time window, page_token paging); the seller's
// approval or rejection by ApproveReturn and RejectReturn (a reason GetRejectReasons lists); what
// came back by ApproveReturn's APPROVE_RECEIVED_PACKAGE; a refund out by CreateReturn of type
// REFUND (a refund without goods back), or, for a refund settling a return, by the decision that
// makes TikTok refund it. Each delivery reads the return first and every decision and refund
// carries the delivery's idempotency_key, so a repeated one sends nothing twice.
import {
  MarketplaceError,
  type DeliveryOutcome,
  type ImportWindow,
  type ReceiveReturnDelivery,
  type RefundDelivery,
  type ReturnDecisionDelivery,
  type ReturnPage,
  type ReturnsImport,
} from "../connector";
import { refusal } from "../kit/marketplace-http";
import { readReturn, splitReturns } from "../kit/returns-page";
import type { TiktokClient } from "./tiktok.client";
import { idOf } from "./tiktok.mapping";
import { approval, type Decision, receipt, rejection, tiktokReturnReader } from "./tiktok.returns-mapping";
import type { TiktokApproveReturn, TiktokCreateReturn, TiktokRejectReturn, TiktokReturn, TiktokReturnList } from "./tiktok.types";

/** SearchReturns takes 10 to 50 a page. */
const PAGE_SIZE = 50;
const SEARCH = "/return_refund/202309/returns/search";

export interface TiktokReturns {
  returns: ReturnsImport;
  refund(delivery: RefundDelivery): Promise<DeliveryOutcome>;
  receiveReturn(delivery: ReceiveReturnDelivery): Promise<DeliveryOutcome>;
  decideReturn(delivery: ReturnDecisionDelivery): Promise<DeliveryOutcome>;
}

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");
const squash = (value: string) => value.toLowerCase().replace(/\s+/g, " ").trim();

export function tiktokReturns(client: TiktokClient): TiktokReturns {
  const post = <T>(operation: string, path: string, json: object, query?: Record<string, string>) =>
    client.call<T>({ operation, method: "POST", path, json, query, shop: true });

  async function fetchReturns(window: ImportWindow, cursor: string | null): Promise<ReturnPage> {
    const query: Record<string, string> = { page_size: String(PAGE_SIZE), sort_field: "update_time", sort_order: "ASC" };
    if (cursor !== null) query.page_token = cursor;
    const json = { update_time_ge: Math.floor(window.since.getTime() / 1000), update_time_lt: Math.floor(window.until.getTime() / 1000) };
    const list = await post<TiktokReturnList | null>("SearchReturns", SEARCH, json, query);
    const found = list?.return_orders ?? [];
    if (!Array.isArray(found)) throw new MarketplaceError("TikTok SearchReturns answer's return_orders is not a list", 200, true);
    const token = list?.next_page_token;
    return { ...splitReturns(tiktokReturnReader, found, "TikTok SearchReturns"), nextCursor: typeof token === "string" && token.trim() !== "" ? token : null };
  }

  /** The return as TikTok has it now; a refusal when TikTok does not know it. */
  async function currentReturn(sourceReturnNumber: string): Promise<TiktokReturn & { return_id: string }> {
    const id = idOf(sourceReturnNumber);
    if (id === null) throw refusal("TikTok", `cannot decide on return ${sourceReturnNumber}: it is not a TikTok return id`);
    const list = await post<TiktokReturnList | null>("SearchReturns", SEARCH, { return_ids: [id] }, { page_size: "10" });
    const found = Array.isArray(list?.return_orders) ? list.return_orders.find((r) => r?.return_id === id) : undefined;
    if (!found) throw refusal("TikTok", `SearchReturns does not know return ${id} in this shop`);
    return found as TiktokReturn & { return_id: string };
  }

  /** Sends a decision TikTok's way, or answers what the return's state makes of it. */
  async function decide(
    record: TiktokReturn & { return_id: string },
    decision: Decision,
    idempotencyKey: string,
    reject?: { reason: string | null },
  ): Promise<DeliveryOutcome> {
    const id = record.return_id;
    if ("done" in decision) return { state: "delivered", reference: id, warning: decision.done };
    if ("notApplicable" in decision) return { state: "notApplicable", reason: decision.notApplicable };
    if ("refuse" in decision) {
      if (decision.retry) throw new MarketplaceError(`TikTok return ${id}: ${decision.refuse}`, null, true);
      throw refusal("TikTok", `return ${id}: ${decision.refuse}`);
    }
    const query = { idempotency_key: idempotencyKey };
    if (reject) {
      const body: TiktokRejectReturn = { decision: decision.send, reject_reason: await rejectReason(id, reject.reason) };
      if (reject.reason) body.comment = reject.reason.slice(0, 500);
      await post("RejectReturn", `/return_refund/202309/returns/${id}/reject`, body, query);
    } else {
      await post("ApproveReturn", `/return_refund/202309/returns/${id}/approve`, { decision: decision.send } satisfies TiktokApproveReturn, query);
    }
    return { state: "delivered", reference: id, warning: null };
  }

  /**
   * TikTok's reject_reason for the hub's reason: the one GetRejectReasons lists whose name or text
   * it is (ignoring case); a refusal listing them when it is none of them.
   */
  async function rejectReason(returnId: string, wanted: string | null): Promise<string> {
    const data = await client.call<{ reasons?: { name?: string; text?: string }[] } | null>({
      operation: "GetRejectReasons",
      method: "GET",
      path: "/return_refund/202309/reject_reasons",
      query: { return_or_cancel_id: returnId },
      shop: true,
    });
    const reasons = (Array.isArray(data?.reasons) ? data.reasons : []).filter((r) => text(r?.name) !== "");
    const match = wanted === null ? undefined : reasons.find((r) => squash(text(r.name)) === squash(wanted) || squash(text(r.text)) === squash(wanted));
    if (match) return text(match.name);
    const listed =
      reasons
        .slice(0, 12)
        .map((r) => JSON.stringify(text(r.text) || text(r.name)))
        .join(", ") || "none";
    throw refusal(
      "TikTok",
      `rejects return ${returnId} only with one of its reasons (${listed}); ` +
        `${wanted === null ? "no reason was given" : `${JSON.stringify(wanted)} is none of them`}`,
    );
  }

  async function decideReturn(delivery: ReturnDecisionDelivery): Promise<DeliveryOutcome> {
    const record = await currentReturn(delivery.return.sourceReturnNumber);
    const status = text(record.return_status);
    const type = text(record.return_type);
    if (delivery.kind === "approveReturn") return decide(record, approval(status, type), delivery.idempotencyKey);
    return decide(record, rejection(status, type), delivery.idempotencyKey, { reason: delivery.reason?.trim() || null });
  }

  async function receiveReturn(delivery: ReceiveReturnDelivery): Promise<DeliveryOutcome> {
    const record = await currentReturn(delivery.return.sourceReturnNumber);
    const returnLines = (record.return_line_items ?? [])
      .map((l) => idOf(l?.return_line_item_id) ?? idOf(l?.order_line_item_id) ?? "")
      .filter((id) => id !== "");
    const received = delivery.lines.filter((l) => l.quantity > 0).map((l) => l.sourceReturnLineId);
    return decide(record, receipt(text(record.return_status), text(record.return_type), returnLines, received), delivery.idempotencyKey);
  }

  /** A refund of a return: the decision that makes TikTok refund it (TikTok refunds the return's own amount). */
  async function refundReturn(delivery: RefundDelivery, sourceReturnNumber: string): Promise<DeliveryOutcome> {
    const record = await currentReturn(sourceReturnNumber);
    const status = text(record.return_status);
    const type = text(record.return_type);
    let decision: Decision;
    if (status === "RETURN_OR_REFUND_REQUEST_COMPLETE" || status === "RETURN_OR_REFUND_REQUEST_SUCCESS")
      decision = { done: `TikTok shows the return refunded already (${status}); nothing sent` };
    else if (type === "REFUND" && status === "RETURN_OR_REFUND_REQUEST_PENDING") decision = { send: "APPROVE_REFUND" };
    else if (type === "RETURN_AND_REFUND" && status === "BUYER_SHIPPED_ITEM") decision = { send: "APPROVE_RECEIVED_PACKAGE" };
    else
      decision = {
        refuse:
          `the return is ${status || "in no status"} (${type || "untyped"}) on TikTok: TikTok refunds it only once the seller approves the refund or ` +
          `the returned package`,
      };
    const outcome = await decide(record, decision, delivery.idempotencyKey);
    const theirs = text(record.refund_amount?.refund_total);
    if (outcome.state === "delivered" && theirs !== "" && Math.round(Number(theirs) * 100) !== Math.round(delivery.total * 100)) {
      const note =
        `TikTok refunds the return's own amount (${theirs}${record.refund_amount?.currency ? ` ${record.refund_amount.currency}` : ""}), not ` +
        `the ${delivery.total.toFixed(2)} asked`;
      return { ...outcome, warning: [outcome.warning, note].filter(Boolean).join("; ") };
    }
    return outcome;
  }

  async function refund(delivery: RefundDelivery): Promise<DeliveryOutcome> {
    if (delivery.return !== null) return refundReturn(delivery, delivery.return.sourceReturnNumber);
    const orderId = idOf(delivery.order.sourceOrderNumber);
    if (orderId === null) throw refusal("TikTok", `cannot refund order ${delivery.order.sourceOrderNumber}: it is not a TikTok order id`);
    const lines = delivery.lines.filter((l) => l.quantity > 0 || l.amount > 0);
    if (lines.length === 0) {
      return {
        state: "notApplicable",
        reason: "TikTok's CreateReturn refunds order line items: a refund of the shipping alone names none (refund it in Seller Center)",
      };
    }
    const notTiktok = lines.filter((l) => idOf(l.sourceLineId) === null).map((l) => l.sourceLineId);
    if (notTiktok.length > 0) throw refusal("TikTok", `order ${orderId}: lines ${notTiktok.join(", ")} are not TikTok line items`);
    const tooMany = lines.filter((l) => l.quantity > 1).map((l) => l.sourceLineId);
    if (tooMany.length > 0)
      throw refusal("TikTok", `order ${orderId}: a TikTok line item is one unit, and more than one was refunded of ${tooMany.join(", ")}`);
    const body: TiktokCreateReturn = {
      order_id: orderId,
      order_line_item_ids: [...new Set(lines.map((l) => l.sourceLineId))],
      return_type: "REFUND",
      refund_total: delivery.total.toFixed(2),
      return_reason: delivery.reason.trim().slice(0, 255) || "Seller refund",
    };
    if (delivery.currency) body.currency = delivery.currency;
    // The key makes TikTok answer a repeated call with the same return instead of a second refund.
    const answer = await post<{ return_id?: string; return_status?: string } | null>("CreateReturn", "/return_refund/202309/returns", body, {
      idempotency_key: delivery.idempotencyKey,
    });
    const returnId = idOf(answer?.return_id);
    if (returnId === null)
      throw new MarketplaceError(`TikTok CreateReturn answer for order ${orderId} names no return; the idempotency key makes the next attempt safe`, 200, true);
    const status = text(answer?.return_status);
    return {
      state: "delivered",
      reference: returnId,
      warning: status !== "" && status !== "RETURN_OR_REFUND_REQUEST_COMPLETE" ? `TikTok holds the refund as ${status}` : null,
    };
  }

  return { returns: { fetchReturns, remap: (record) => readReturn(tiktokReturnReader, record) }, refund, receiveReturn, decideReturn };
}
