// TikTok Shop returns (SearchReturns' return_orders) to the service's returns (decisions 13), and
// what the seller's decisions are in TikTok's words. Pure functions: no I/O, no clock. A return
// becomes one return; each return line item one line of quantity 1 (TikTok's line items are one
// unit each); a return TikTok shows refunded carries its refund, under the return's id (the
// reference the hub's refund delivery was answered with, so the hub knows its own).
import type { ImportedRefund, ImportedReturn, ReturnState } from "../connector";
import { cents, fromCents } from "../kit/mapping";
import { Unmappable } from "../kit/orders-page";
import type { ReturnReader } from "../kit/returns-page";
import { idOf } from "./tiktok.mapping";
import type { TiktokRefundAmount, TiktokReturn } from "./tiktok.types";

const EARLIEST_SECONDS = 946_684_800;
const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/**
 * TikTok's return_status (SearchReturns' documentation) in section 13's states. Where TikTok's word
 * depends on the return type: RETURN_OR_REFUND_REQUEST_SUCCESS is "approved, the buyer will be
 * refunded": Received when goods came back (RETURN_AND_REFUND: the seller approved the package),
 * Approved for a refund without goods.
 */
export function returnState(status: string, type: string): ReturnState | null {
  switch (status) {
    case "RETURN_OR_REFUND_REQUEST_PENDING":
    case "REPLACEMENT_REQUEST_PENDING":
    case "AWAITING_BUYER_RESPONSE":
      return "Requested";
    case "AWAITING_BUYER_SHIP":
    case "BUYER_SHIPPED_ITEM":
      return "Approved";
    case "RETURN_OR_REFUND_REQUEST_SUCCESS":
      return type === "RETURN_AND_REFUND" ? "Received" : "Approved";
    case "RETURN_OR_REFUND_REQUEST_COMPLETE":
    case "REPLACEMENT_REQUEST_REFUND_SUCCESS":
      return "Refunded";
    case "REFUND_OR_RETURN_REQUEST_REJECT":
    case "REJECT_RECEIVE_PACKAGE":
    case "REPLACEMENT_REQUEST_REJECT":
      return "Rejected";
    case "RETURN_OR_REFUND_REQUEST_CANCEL":
    case "REPLACEMENT_REQUEST_CANCEL":
    case "REPLACEMENT_REQUEST_COMPLETE":
      return "Closed";
    default:
      return null;
  }
}

const asReturn = (record: unknown): TiktokReturn => (typeof record === "object" && record !== null && !Array.isArray(record) ? record : {}) as TiktokReturn;

function dateOf(seconds: unknown, where: string): Date {
  if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < EARLIEST_SECONDS)
    throw new Unmappable(`${where} ${JSON.stringify(seconds)} is not a date`);
  return new Date(seconds * 1000);
}

function amount(raw: unknown, where: string): number {
  if (raw !== undefined && raw !== null && typeof raw !== "string") throw new Unmappable(`${where}: amount ${JSON.stringify(raw)} is not a decimal string`);
  return cents(raw, where);
}

/** The refund TikTok made of a refunded return: each line's refund_total, the return's shipping fee refund. */
function refundOf(record: TiktokReturn, id: string, at: Date, reason: string | null, where: string): ImportedRefund {
  const whole: TiktokRefundAmount = record.refund_amount ?? {};
  const lines = (record.return_line_items ?? []).map((l, i) => ({
    sourceLineId: l.order_line_item_id!,
    quantity: 1,
    amount: fromCents(amount(l?.refund_amount?.refund_total, `${where} return line item #${i + 1} refund_total`)),
  }));
  return {
    sourceRefundId: id,
    createdAt: at,
    reason,
    lines,
    shippingAmount: fromCents(amount(whole.refund_shipping_fee, `${where} refund_shipping_fee`)),
    currency: text(whole.currency) || null,
  };
}

/** A return as the service's return; throws Unmappable saying why when it cannot be one. */
export function mapTiktokReturn(record: TiktokReturn): ImportedReturn {
  const id = idOf(record.return_id);
  if (id === null) throw new Unmappable(`sent a return without a numeric return_id (${JSON.stringify(record.return_id ?? null)})`);
  const where = `return ${id}`;
  const orderId = idOf(record.order_id);
  if (orderId === null) throw new Unmappable(`${where} names no order (order_id ${JSON.stringify(record.order_id ?? null)})`);
  const status = text(record.return_status);
  const type = text(record.return_type);
  const state = returnState(status, type);
  if (state === null) throw new Unmappable(`${where} has a return_status the connector does not know (${JSON.stringify(status)})`);
  const items = record.return_line_items;
  if (!Array.isArray(items) || items.length === 0) throw new Unmappable(`${where} has no return line items`);
  const seen = new Set<string>();
  const lines = items.map((item, i) => {
    const line = idOf(item?.order_line_item_id);
    if (line === null) throw new Unmappable(`${where} return line item #${i + 1} names no order line item`);
    const lineId = idOf(item.return_line_item_id) ?? line;
    if (seen.has(lineId)) throw new Unmappable(`${where} return line item ${lineId} appears twice`);
    seen.add(lineId);
    return { sourceReturnLineId: lineId, sourceLineId: line, quantity: 1, reason: null };
  });
  const reason = text(record.return_reason_text) || text(record.return_reason) || null;
  const requestedAt = dateOf(record.create_time, `${where} create_time`);
  const refunded =
    state === "Refunded" ? [refundOf(record, id, record.update_time ? dateOf(record.update_time, `${where} update_time`) : requestedAt, reason, where)] : [];
  return {
    sourceReturnNumber: id,
    sourceOrderNumber: orderId,
    state,
    sourceStatus: status,
    requestedAt,
    reason,
    lines,
    ...(refunded.length > 0 && { refunds: refunded }),
    sourceData: { ...(type !== "" && { returnType: type.slice(0, 40) }) },
    record,
  };
}

/** How the kit reads a SearchReturns record: a return, or set aside with the reason (kit/returns-page.ts). */
export const tiktokReturnReader: ReturnReader = {
  map: (record) => mapTiktokReturn(asReturn(record)),
  numbersOf: (record) => ({ sourceReturnNumber: idOf(asReturn(record).return_id) ?? "(no id)", sourceOrderNumber: idOf(asReturn(record).order_id) }),
  reason: (message) => `TikTok ${message}`,
};

/** A seller decision in TikTok's words, or why the return cannot take it now. */
export type Decision = { send: string } | { done: string } | { refuse: string; retry?: boolean } | { notApplicable: string };

/** ApproveReturn's decision for a return awaiting the seller (approveReturn). */
export function approval(status: string, type: string): Decision {
  if (status === "RETURN_OR_REFUND_REQUEST_PENDING") return { send: type === "REFUND" ? "APPROVE_REFUND" : "APPROVE_RETURN" };
  if (status === "REPLACEMENT_REQUEST_PENDING") return { send: "APPROVE_REPLACEMENT" };
  const state = returnState(status, type);
  if (state === "Approved" || state === "Received" || state === "Refunded")
    return { done: `TikTok shows the return approved already (${status}); nothing sent` };
  return { refuse: `the return is ${status || "in no status"} on TikTok: the seller has nothing to approve` };
}

/** RejectReturn's decision: the request while it waits, the package once the buyer shipped it. */
export function rejection(status: string, type: string): Decision {
  if (status === "RETURN_OR_REFUND_REQUEST_PENDING") return { send: type === "REFUND" ? "REJECT_REFUND" : "REJECT_RETURN" };
  if (status === "REPLACEMENT_REQUEST_PENDING") return { send: "REJECT_REPLACEMENT" };
  if (status === "BUYER_SHIPPED_ITEM") return { send: "REJECT_RECEIVED_PACKAGE" };
  if (returnState(status, type) === "Rejected") return { done: `TikTok shows the return rejected already (${status}); nothing sent` };
  return { refuse: `the return is ${status || "in no status"} on TikTok: the seller has nothing to reject` };
}

/** What came back of a return: TikTok's APPROVE_RECEIVED_PACKAGE, for the whole package only. */
export function receipt(status: string, type: string, returnLines: string[], received: string[]): Decision {
  if (type !== "RETURN_AND_REFUND")
    return { notApplicable: `TikTok's ${type || "untyped"} return sends nothing back to the seller: there is no receipt to record on TikTok` };
  const state = returnState(status, type);
  if (state === "Received" || state === "Refunded") return { done: `TikTok shows the package approved already (${status}); nothing sent` };
  if (status === "AWAITING_BUYER_SHIP")
    return { refuse: "TikTok does not show the buyer's return shipment yet (AWAITING_BUYER_SHIP); tried again later", retry: true };
  if (status !== "BUYER_SHIPPED_ITEM") return { refuse: `the return is ${status || "in no status"} on TikTok: there is no package to approve` };
  const missing = returnLines.filter((id) => !received.includes(id));
  if (missing.length > 0) {
    return {
      notApplicable:
        `TikTok approves a returned package as a whole (APPROVE_RECEIVED_PACKAGE), which refunds it; return line items ${missing.join(", ")} ` +
        `are not received yet`,
    };
  }
  return { send: "APPROVE_RECEIVED_PACKAGE" };
}
