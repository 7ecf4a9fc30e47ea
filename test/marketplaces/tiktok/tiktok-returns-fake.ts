// The returns half of the fake TikTok Shop (tiktok-fake.ts checks the signature, token, query and
// body schema, then routes here): SearchReturns, GetRejectReasons, ApproveReturn, RejectReturn and
// CreateReturn, and a return's life as the SDK's field descriptions tell it. A decision is taken
// only in the state it is for (APPROVE_REFUND and REJECT_REFUND on a pending REFUND,
// APPROVE_RETURN and REJECT_RETURN on a pending RETURN_AND_REFUND, APPROVE_RECEIVED_PACKAGE and
// REJECT_RECEIVED_PACKAGE once the buyer shipped, the REPLACEMENT ones on a pending replacement),
// a rejection only with a reason GetRejectReasons lists; a seller's CreateReturn of type REFUND
// refunds line items of the order at most once each, never more than they cost (sale price and
// tax, and the order's shipping fee). A call repeated with the same idempotency_key is answered as
// the first was and changes nothing; the same key on another request is refused.
//
// Chosen where the SDK is silent: refusals come as HTTP 200 with codes 25011001-25011008 (the SDK
// publishes none); the reject reasons and their names are the fake's own; a refund without goods
// (REFUND) is complete at once (RETURN_OR_REFUND_REQUEST_COMPLETE); a package approved is refunded
// at once; SearchReturns' page token is built as GetOrderList's.
import type { TiktokOrder, TiktokReturn } from "../../../src/marketplaces/tiktok/tiktok.types";
import { schemaProblems, type Schema } from "../fake-kit/schema-check";
import { digest } from "./tiktok-fulfilment-fake";
import type { Ok, Refuse } from "./tiktok-products-fake";

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const clone = <T>(value: T): T => structuredClone(value);
const cents = (decimal: string | undefined) => Math.round(Number(decimal ?? "0") * 100);
const decimal = (c: number) => (c / 100).toFixed(2);

/** The fake's reject reasons (GetRejectReasons). */
export const TIKTOK_FAKE_REJECT_REASONS = [
  { name: "reverse_reject_request_reason_1", text: "Buyer has not returned the item" },
  { name: "reverse_reject_request_reason_2", text: "Returned item is damaged" },
  { name: "reverse_reject_request_reason_3", text: "Request is past the return window" },
];

/** Which decision each state takes, and where it leads. */
const APPROVALS: Record<string, { status: string; type?: string; next: string }> = {
  APPROVE_REFUND: { status: "RETURN_OR_REFUND_REQUEST_PENDING", type: "REFUND", next: "RETURN_OR_REFUND_REQUEST_COMPLETE" },
  APPROVE_RETURN: { status: "RETURN_OR_REFUND_REQUEST_PENDING", type: "RETURN_AND_REFUND", next: "AWAITING_BUYER_SHIP" },
  APPROVE_RECEIVED_PACKAGE: { status: "BUYER_SHIPPED_ITEM", next: "RETURN_OR_REFUND_REQUEST_COMPLETE" },
  APPROVE_REPLACEMENT: { status: "REPLACEMENT_REQUEST_PENDING", next: "REPLACEMENT_REQUEST_COMPLETE" },
};
const REJECTIONS: Record<string, { status: string; type?: string; next: string }> = {
  REJECT_REFUND: { status: "RETURN_OR_REFUND_REQUEST_PENDING", type: "REFUND", next: "REFUND_OR_RETURN_REQUEST_REJECT" },
  REJECT_RETURN: { status: "RETURN_OR_REFUND_REQUEST_PENDING", type: "RETURN_AND_REFUND", next: "REFUND_OR_RETURN_REQUEST_REJECT" },
  REJECT_RECEIVED_PACKAGE: { status: "BUYER_SHIPPED_ITEM", next: "REJECT_RECEIVE_PACKAGE" },
  REJECT_REPLACEMENT: { status: "REPLACEMENT_REQUEST_PENDING", next: "REPLACEMENT_REQUEST_REJECT" },
};

export function tiktokReturnsFake(opts: { orders: Map<string, TiktokOrder>; now: () => Date; ok: Ok; refuse: Refuse; returnSchema: Schema }) {
  const { orders, now, ok, refuse } = opts;
  const returns = new Map<string, TiktokReturn>();
  const changes: { operation: string; returnId: string; detail: string }[] = [];
  /** idempotency_key to [what it was sent with, the answer's data]. */
  const keys = new Map<string, { request: string; data: unknown }>();
  let made = 0;

  function add(record: TiktokReturn): void {
    const problems = schemaProblems(record, opts.returnSchema, `return ${record.return_id}`);
    if (problems.length > 0) throw new Error(`a fake return does not fit the SDK: ${problems.join("; ")}`);
    returns.set(record.return_id!, clone(record));
  }

  function changed(record: TiktokReturn, status: string): void {
    record.return_status = status;
    record.update_time = seconds(now());
  }

  function searchReturns(query: Record<string, string>, body: Record<string, unknown>): Response {
    const size = Number(query.page_size ?? "10");
    const field = query.sort_field ?? "create_time";
    const descending = (query.sort_order ?? "ASC") === "DESC";
    const search = digest(JSON.stringify([body, field, descending]));
    let offset = 0;
    if (query.page_token !== undefined) {
      let parts: string[] = [];
      try {
        parts = atob(query.page_token).split(":");
      } catch {
        // Not base64: refused below.
      }
      if (parts[1] !== search || !/^\d+$/.test(parts[0] ?? "")) return refuse(36009004, "Invalid page_token: it belongs to another search.", 400);
      offset = Number(parts[0]);
    }
    const inRange = (value: number | undefined, ge: string, lt: string) =>
      (body[ge] === undefined || (value ?? 0) >= (body[ge] as number)) && (body[lt] === undefined || (value ?? 0) < (body[lt] as number));
    const listed = (name: string, value: string | undefined) => body[name] === undefined || (body[name] as string[]).includes(value ?? "");
    const key = (r: TiktokReturn) => (field === "update_time" ? r.update_time! : r.create_time!);
    const matching = [...returns.values()]
      .filter((r) => inRange(r.update_time, "update_time_ge", "update_time_lt") && inRange(r.create_time, "create_time_ge", "create_time_lt"))
      .filter((r) => listed("return_ids", r.return_id) && listed("order_ids", r.order_id) && listed("return_status", r.return_status))
      .sort((a, b) => (descending ? key(b) - key(a) : key(a) - key(b)) || (a.return_id! < b.return_id! ? -1 : 1));
    const next = offset + size < matching.length ? btoa(`${offset + size}:${search}`) : "";
    return ok({ return_orders: matching.slice(offset, offset + size).map(clone), next_page_token: next, total_count: matching.length });
  }

  /** Answers a repeated key as the first call; refuses a key used for another request. */
  function once(operation: string, key: string | undefined, request: unknown, act: () => { data: unknown } | Response): Response {
    if (key !== undefined && key.length > 255) return refuse(25011008, "idempotency_key is longer than 255 characters.");
    const text = JSON.stringify([operation, request]);
    if (key !== undefined) {
      const seen = keys.get(key);
      if (seen && seen.request !== text) return refuse(25011008, "The idempotency_key was used for another request.");
      if (seen) return ok(clone(seen.data));
    }
    const result = act();
    if (result instanceof Response) return result;
    if (key !== undefined) keys.set(key, { request: text, data: clone(result.data) });
    return ok(result.data);
  }

  function decide(
    operation: "ApproveReturn" | "RejectReturn",
    returnId: string,
    key: string | undefined,
    body: { decision?: string; reject_reason?: string; comment?: string },
  ): Response {
    return once(operation, key, [returnId, body], () => {
      const record = returns.get(returnId);
      if (!record) return refuse(25011001, `The return ${returnId} is not found.`);
      const rule = (operation === "ApproveReturn" ? APPROVALS : REJECTIONS)[body.decision ?? ""];
      if (!rule) return refuse(25011002, `decision ${JSON.stringify(body.decision ?? null)} is not valid for ${operation}.`);
      if (record.return_status !== rule.status || (rule.type !== undefined && record.return_type !== rule.type)) {
        return refuse(25011003, `The return ${returnId} (${record.return_type}, ${record.return_status}) cannot take ${body.decision}.`);
      }
      if (operation === "RejectReturn" && !TIKTOK_FAKE_REJECT_REASONS.some((r) => r.name === body.reject_reason)) {
        return refuse(25011004, `reject_reason ${JSON.stringify(body.reject_reason ?? null)} is not one GetRejectReasons lists.`);
      }
      changed(record, rule.next);
      changes.push({ operation, returnId, detail: `${body.decision}${body.reject_reason ? ` ${body.reject_reason}` : ""}` });
      return { data: {} };
    });
  }

  /** What a line item of the order costs, in cents: sale price and tax. */
  const lineCents = (order: TiktokOrder, id: string) => {
    const line = order.line_items!.find((l) => l.id === id)!;
    return cents(line.sale_price) + (line.item_tax ?? []).reduce((s, t) => s + cents(t.tax_amount), 0);
  };

  function createReturn(
    key: string | undefined,
    body: {
      order_id?: string;
      order_line_item_ids?: string[];
      return_type?: string;
      refund_total?: string;
      currency?: string;
      return_reason?: string;
      skus?: unknown[];
    },
  ): Response {
    return once("CreateReturn", key, body, () => {
      const order = orders.get(body.order_id ?? "");
      if (!order) return refuse(25011001, `The order ${body.order_id} is not found.`);
      if (body.return_type !== "REFUND")
        return refuse(25011005, `return_type ${JSON.stringify(body.return_type ?? null)}: this fake plays the seller's REFUND only.`);
      if (!body.return_reason) return refuse(25011005, "return_reason is required.");
      if (body.skus !== undefined) return refuse(25011005, "Give order_line_item_ids or skus, not both (the fake takes line items).");
      const ids = body.order_line_item_ids ?? (order.line_items ?? []).map((l) => l.id!);
      const unknown = ids.filter((id) => !(order.line_items ?? []).some((l) => l.id === id));
      if (unknown.length > 0 || new Set(ids).size !== ids.length)
        return refuse(25011006, `The line items ${unknown.join(", ") || "named twice"} are not in order ${order.id} once.`);
      const cancelledLines = ids.filter((id) => order.line_items!.find((l) => l.id === id)!.display_status === "CANCELLED");
      if (cancelledLines.length > 0) return refuse(25011006, `The line items ${cancelledLines.join(", ")} are cancelled.`);
      const refunded = ids.filter((id) =>
        [...returns.values()].some(
          (r) =>
            r.order_id === order.id &&
            !r.return_status!.includes("REJECT") &&
            !r.return_status!.includes("CANCEL") &&
            r.return_line_items!.some((l) => l.order_line_item_id === id),
        ),
      );
      if (refunded.length > 0) return refuse(25011007, `The line items ${refunded.join(", ")} are in another return already.`);
      if (body.currency !== undefined && body.currency !== order.payment?.currency)
        return refuse(25011005, `currency ${body.currency} is not the order's ${order.payment?.currency}.`);
      const refundable = ids.reduce((s, id) => s + lineCents(order, id), 0) + cents(order.payment?.shipping_fee);
      if (!/^\d+(\.\d{1,2})?$/.test(body.refund_total ?? ""))
        return refuse(25011005, `refund_total ${JSON.stringify(body.refund_total ?? null)} is not an amount.`);
      if (cents(body.refund_total) > refundable)
        return refuse(25011005, `refund_total ${body.refund_total} exceeds the refundable amount ${decimal(refundable)}.`);
      made += 1;
      const returnId = `46${String(made).padStart(16, "0")}`;
      const lineTotal = Math.min(
        cents(body.refund_total),
        ids.reduce((s, id) => s + lineCents(order, id), 0),
      );
      const at = seconds(now());
      const record: TiktokReturn = {
        return_id: returnId,
        order_id: order.id!,
        return_type: "REFUND",
        return_status: "RETURN_OR_REFUND_REQUEST_COMPLETE",
        role: "SELLER",
        create_time: at,
        update_time: at,
        return_reason: body.return_reason,
        return_reason_text: body.return_reason,
        refund_amount: {
          currency: order.payment?.currency,
          refund_total: body.refund_total,
          refund_subtotal: decimal(lineTotal),
          refund_shipping_fee: decimal(cents(body.refund_total) - lineTotal),
          refund_tax: "0.00",
        },
        // The refund split over the line items in order, each up to what it cost.
        return_line_items: ids.map((id, i) => {
          const before = ids.slice(0, i).reduce((s, other) => s + lineCents(order, other), 0);
          const share = Math.max(0, Math.min(lineCents(order, id), lineTotal - before));
          return {
            return_line_item_id: `47${returnId.slice(2, 15)}${String(i + 1).padStart(3, "0")}`,
            order_line_item_id: id,
            seller_sku: order.line_items!.find((l) => l.id === id)!.seller_sku,
            refund_amount: { currency: order.payment?.currency, refund_total: decimal(share) },
          };
        }),
      };
      returns.set(returnId, record);
      changes.push({ operation: "CreateReturn", returnId, detail: `${order.id}: ${ids.join(",")} ${body.refund_total}` });
      return { data: { return_id: returnId, return_status: record.return_status } };
    });
  }

  const OPERATIONS = new Set(["SearchReturns", "GetRejectReasons", "ApproveReturn", "RejectReturn", "CreateReturn"]);
  return {
    returns,
    changes,
    add,
    /** Changes a return as TikTok would (its update_time becomes the fake's now). */
    touch(returnId: string, change: (record: TiktokReturn) => void = () => {}) {
      const record = returns.get(returnId);
      if (!record) throw new Error(`the fake has no return ${returnId}`);
      change(record);
      record.update_time = seconds(now());
    },
    handles: (operation: string) => OPERATIONS.has(operation),
    handle(operation: string, path: Record<string, string>, query: Record<string, string>, body: unknown): Response {
      const json = (body ?? {}) as Record<string, never>;
      switch (operation) {
        case "SearchReturns":
          return searchReturns(query, json);
        case "GetRejectReasons":
          if (!returns.has(query.return_or_cancel_id!)) return refuse(25011001, `The return or cancellation ${query.return_or_cancel_id} is not found.`);
          return ok({ reasons: TIKTOK_FAKE_REJECT_REASONS });
        case "ApproveReturn":
        case "RejectReturn":
          return decide(operation, path.return_id!, query.idempotency_key, json);
        default:
          return createReturn(query.idempotency_key, json);
      }
    },
  };
}
