// The fake Mirakl's line-level part (mirakl-orders-fake.ts routes ST01, ST11, ST23, OR30, OR28,
// RE01 and RT11 here, requests already checked against the description's extract). It keeps what
// each line has shipped, cancelled and refunded: ST01 makes a shipment of an accepted order's
// lines (never more units than are left; a shipment of every unit left ships the line, and the
// order once every line is shipped or cancelled), answering 201 with its successes and its errors
// side by side as the description says; ST11 lists shipments by order in seek pages; ST23
// corrects a shipment's tracking; OR30 cancels units of lines (a reason code of the operator's
// CANCELATION list, amounts within the line's); OR28 refunds (a REFUND reason); RE01 lists the
// reasons; RT11 lists returns by last update in seek pages. A shop without multiple shipments
// (`multiShipment: false`) answers ST01 400 as a whole.
import type {
  MiraklOrder,
  MiraklOrderLine,
  MiraklReason,
  MiraklReturn,
  MiraklShipment,
  MiraklShipmentRequest,
} from "../../../src/marketplaces/mirakl/mirakl.types";
import { json, miraklError } from "./mirakl-answers";

/** RE01's reasons as the description's own example lists them (codes and labels), plus one refund reason more. */
export const FAKE_REASONS: MiraklReason[] = [
  { code: "1", is_shop_right: false, label: "Item not received", type: "INCIDENT_OPEN" },
  { code: "15", is_shop_right: true, label: "Out of stock", type: "REFUND" },
  { code: "17", is_shop_right: true, label: "Item returned", type: "REFUND" },
  { code: "26", is_shop_right: true, label: "Other question", type: "ORDER_MESSAGING" },
  { code: "33", is_shop_right: false, label: "Not the shop's to use", type: "CANCELATION" },
  { code: "34", is_shop_right: true, label: "Cancelled by the client prior to shipping", type: "CANCELATION" },
  { code: "35", is_shop_right: true, label: "Out of stock", type: "CANCELATION" },
];

export interface LinesOptions {
  /** false: the shop has no multiple shipments (ST01 refused as a whole). */
  multiShipment?: boolean;
  reasons?: MiraklReason[];
}

/** What the line-level part needs of an order the orders fake keeps. */
export interface KeptOrder {
  order: MiraklOrder;
}

export interface FakeReturnSpec {
  id: string;
  orderId: string;
  state?: string;
  lines: { lineId: string; quantity: number; reason?: string }[];
  createdAt?: Date;
}

export interface MiraklLinesFake {
  shipments: MiraklShipment[];
  returns: MiraklReturn[];
  addReturn(spec: FakeReturnSpec): MiraklReturn;
  /** Changes a return (its update date moves to now). */
  editReturn(id: string, change: (r: MiraklReturn) => void): void;
  handle(operationId: string, url: URL, body: unknown): Response | null;
}

const round = (n: number) => Math.round(n * 100) / 100;
const ENDED = ["REFUSED", "CANCELED"];
const SHIPPED = ["SHIPPED", "TO_COLLECT", "RECEIVED", "CLOSED"];
/** An order whose lines may be shipped or cancelled: accepted, not over. */
const OPEN = ["SHIPPING", "WAITING_DEBIT", "WAITING_DEBIT_PAYMENT"];

const cancelledOf = (line: MiraklOrderLine) => (line.cancelations ?? []).reduce((a, c) => a + (c.quantity ?? 0), 0);

/** A seek token: the fake's own, carrying the offset and the query of the first page. */
const tokenOf = (offset: number, query: string) => btoa(JSON.stringify({ offset, query }));

/** The query a request reads (its token's, when it carries one) and the offset it starts at; null for a token not made here. */
function seekQuery(url: URL): { query: URLSearchParams; offset: number } | null {
  const token = url.searchParams.get("page_token");
  if (token === null) return { query: url.searchParams, offset: 0 };
  try {
    const t = JSON.parse(atob(token)) as { offset?: unknown; query?: unknown };
    if (typeof t.offset !== "number" || typeof t.query !== "string") return null;
    return { query: new URLSearchParams(t.query), offset: t.offset };
  } catch {
    return null;
  }
}

/** A seek page of `items` from the request's offset, `limit` of them (10 by default). */
function seekPage<T>(items: T[], url: URL, read: { query: URLSearchParams; offset: number }): Response {
  const limit = Number(url.searchParams.get("limit") ?? "10");
  const { offset } = read;
  const first = new URLSearchParams(read.query);
  first.delete("page_token");
  const data = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? tokenOf(offset + limit, first.toString()) : undefined;
  return json(200, {
    data,
    ...(next ? { next_page_token: next } : {}),
    ...(offset > 0 ? { previous_page_token: tokenOf(Math.max(0, offset - limit), first.toString()) } : {}),
  });
}

export function miraklLinesFake(
  now: () => Date,
  find: (id: string) => KeptOrder | undefined,
  touch: (k: KeptOrder) => void,
  carriers: Set<string>,
  opts: LinesOptions,
): MiraklLinesFake {
  const shipments: MiraklShipment[] = [];
  const returns: MiraklReturn[] = [];
  const reasons = opts.reasons ?? FAKE_REASONS;
  let serial = 0;
  const iso = () => now().toISOString();
  const reasonOf = (code: string, type: string) => reasons.find((r) => r.code === code && r.type === type && r.is_shop_right);
  const shippedOf = (orderId: string, lineId: string) =>
    shipments
      .filter((s) => s.order_id === orderId)
      .reduce((a, s) => a + (s.shipment_lines ?? []).filter((l) => l.order_line_id === lineId).reduce((b, l) => b + (l.quantity ?? 0), 0), 0);

  /** Line and order states from what each line shipped and cancelled. */
  function settle(k: KeptOrder) {
    const id = k.order.order_id!;
    const lines = k.order.order_lines ?? [];
    for (const line of lines) {
      if (ENDED.includes(line.order_line_state ?? "")) continue;
      const cancelled = cancelledOf(line);
      const shipped = shippedOf(id, line.order_line_id!);
      if (cancelled >= (line.quantity ?? 0)) line.order_line_state = "CANCELED";
      else if (shipped + cancelled >= (line.quantity ?? 0)) {
        line.order_line_state = "SHIPPED";
        (line as Record<string, unknown>).shipped_date = iso();
      }
    }
    if (lines.every((l) => ENDED.includes(l.order_line_state ?? ""))) k.order.order_state = "CANCELED";
    else if (lines.every((l) => ENDED.includes(l.order_line_state ?? "") || SHIPPED.includes(l.order_line_state ?? ""))) k.order.order_state = "SHIPPED";
    touch(k);
  }

  function createShipments(body: { shipments: MiraklShipmentRequest[] }): Response {
    if (opts.multiShipment === false) return miraklError(400, "SHIPMENT_MULTIPLE_DISABLED: multiple shipments are not enabled for this shop");
    const success: MiraklShipment[] = [];
    const errors: { order_id: string; message: string }[] = [];
    for (const request of body.shipments) {
      const k = find(request.order_id);
      const fail = (message: string) => errors.push({ order_id: request.order_id, message });
      if (!k) {
        fail(`ORDER_NOT_FOUND: order ${request.order_id} does not exist`);
        continue;
      }
      if (k.order.order_state !== "SHIPPING") {
        fail(`ORDER_INVALID_STATE: order ${request.order_id} is ${k.order.order_state}`);
        continue;
      }
      if (request.tracking?.carrier_code && !carriers.has(request.tracking.carrier_code)) {
        fail(`carrier ${request.tracking.carrier_code} is not a registered carrier`);
        continue;
      }
      const problem = request.shipment_lines
        .map((l) => {
          const line = (k.order.order_lines ?? []).find((o) => o.order_line_id === l.order_line_id);
          if (!l.order_line_id || !line) return `ORDER_LINE_NOT_FOUND: ${l.order_line_id ?? "(no order_line_id)"}`;
          if (ENDED.includes(line.order_line_state ?? "")) return `order line ${l.order_line_id} is ${line.order_line_state}`;
          const left = (line.quantity ?? 0) - cancelledOf(line) - shippedOf(request.order_id, l.order_line_id);
          if (l.quantity < 1 || l.quantity > left)
            return `SHIPMENT_QUANTITY_INVALID: ${l.quantity} unit(s) of order line ${l.order_line_id}, ${left} left to ship`;
          return null;
        })
        .find((p) => p !== null);
      if (problem) {
        fail(problem);
        continue;
      }
      const at = iso();
      const shipment: MiraklShipment = {
        id: `SHIP-${++serial}`,
        order_id: request.order_id,
        status: request.shipped === false ? "SHIPPING" : "SHIPPED",
        shipment_lines: request.shipment_lines.map((l) => ({ ...l })),
        tracking: request.tracking ? { ...request.tracking } : null,
        shipped_date: request.shipped === false ? null : at,
        created_date: at,
        last_updated_date: at,
      };
      shipments.push(shipment);
      settle(k);
      success.push({ ...shipment, status_customer_debit: "DEBITED" } as MiraklShipment);
    }
    return json(201, { shipment_success: success, shipment_errors: errors });
  }

  function listShipments(url: URL): Response {
    const read = seekQuery(url);
    if (!read) return miraklError(400, "page_token is not one this API made");
    const ids = read.query.getAll("order_id").flatMap((v) => v.split(","));
    return seekPage(
      shipments.filter((s) => ids.length === 0 || ids.includes(s.order_id!)),
      url,
      read,
    );
  }

  function correctTracking(body: { shipments: { id: string; tracking: MiraklShipment["tracking"] }[] }): Response {
    const success: { id: string }[] = [];
    const errors: { id: string; message: string }[] = [];
    for (const s of body.shipments) {
      const shipment = shipments.find((x) => x.id === s.id);
      if (!shipment) errors.push({ id: s.id, message: `SHIPMENT_NOT_FOUND: ${s.id}` });
      else if (s.tracking?.carrier_code && !carriers.has(s.tracking.carrier_code))
        errors.push({ id: s.id, message: `carrier ${s.tracking.carrier_code} is not a registered carrier` });
      else {
        shipment.tracking = { ...s.tracking };
        shipment.last_updated_date = iso();
        success.push({ id: s.id });
      }
    }
    return json(200, { shipment_success: success, shipment_errors: errors });
  }

  /** The order holding a line id (Mirakl's line ids are "<order_id>-<n>"). */
  function lineOf(lineId: string): { k: KeptOrder; line: MiraklOrderLine } | null {
    const k = find(lineId.replace(/-\d+$/, ""));
    const line = k?.order.order_lines?.find((l) => l.order_line_id === lineId);
    return k && line ? { k, line } : null;
  }

  function cancel(body: {
    order_tax_mode?: string;
    cancelations: { order_line_id: string; quantity: number; amount: number; shipping_amount: number; reason_code: string }[];
  }): Response {
    // Everything is checked before anything changes: a refused call changes nothing.
    for (const c of body.cancelations) {
      const found = lineOf(c.order_line_id);
      if (!found) return miraklError(400, `ORDER_LINE_NOT_FOUND: ${c.order_line_id}`);
      if (!reasonOf(c.reason_code, "CANCELATION")) return miraklError(400, `REASON_CODE_INVALID: ${c.reason_code} is not a cancelation reason of the shop`);
      if (!OPEN.includes(found.k.order.order_state ?? "") || ENDED.includes(found.line.order_line_state ?? "")) {
        return miraklError(
          400,
          `ORDER_INVALID_STATE: order ${found.k.order.order_id} is ${found.k.order.order_state}, line ${c.order_line_id} ${found.line.order_line_state}`,
        );
      }
      const left = (found.line.quantity ?? 0) - cancelledOf(found.line) - shippedOf(found.k.order.order_id!, c.order_line_id);
      if (c.quantity < 1 || c.quantity > left)
        return miraklError(400, `CANCELATION_QUANTITY_INVALID: ${c.quantity} unit(s) of line ${c.order_line_id}, ${left} left`);
      const alreadyCancelled = (found.line.cancelations ?? []).reduce((a, x) => a + (x.amount ?? 0), 0);
      if (c.amount < 0 || round(c.amount + alreadyCancelled) > round(found.line.price ?? 0))
        return miraklError(400, `CANCELATION_AMOUNT_INVALID: ${c.amount} is more than line ${c.order_line_id} has left`);
    }
    const made = body.cancelations.map((c) => {
      const { k, line } = lineOf(c.order_line_id)!;
      const cancelation = { id: `CANCEL-${++serial}`, ...c, created_date: iso(), commission_amount: 0, commission_taxes: [], commission_total_amount: 0 };
      line.cancelations = [...(line.cancelations ?? []), cancelation];
      settle(k);
      return { ...c, cancelation_id: cancelation.id };
    });
    return json(200, { order_tax_mode: body.order_tax_mode ?? "TAX_INCLUDED", cancelations: made });
  }

  function refund(body: {
    order_tax_mode?: string;
    refunds: { order_line_id: string; amount: number; shipping_amount: number; reason_code: string; quantity?: number }[];
  }): Response {
    const orderRefundId = `REFUND-${++serial}`;
    for (const r of body.refunds) {
      const found = lineOf(r.order_line_id);
      if (!found) return miraklError(400, `ORDER_LINE_NOT_FOUND: ${r.order_line_id}`);
      if (!reasonOf(r.reason_code, "REFUND")) return miraklError(400, `REASON_CODE_INVALID: ${r.reason_code} is not a refund reason of the shop`);
      if (!SHIPPED.includes(found.k.order.order_state ?? "") && found.k.order.order_state !== "SHIPPING")
        return miraklError(400, `ORDER_INVALID_STATE: order ${found.k.order.order_id} is ${found.k.order.order_state}`);
      const paid = (found.line.price ?? 0) + (found.line.taxes ?? []).reduce((a, t) => a + (t.amount ?? 0), 0);
      const refunded = (found.line.refunds ?? []).reduce((a, x) => a + (x.amount ?? 0), 0);
      if (r.amount < 0 || round(r.amount + refunded) > round(paid))
        return miraklError(400, `REFUND_AMOUNT_INVALID: ${r.amount} is more than line ${r.order_line_id} has left to refund`);
    }
    const made = body.refunds.map((r, i) => {
      const { k, line } = lineOf(r.order_line_id)!;
      const refundId = `${orderRefundId}-${i + 1}`;
      const kept = {
        id: refundId,
        order_refund_id: orderRefundId,
        amount: r.amount,
        shipping_amount: r.shipping_amount,
        quantity: r.quantity ?? 0,
        reason_code: r.reason_code,
        state: "WAITING_REFUND",
        created_date: iso(),
      };
      line.refunds = [...(line.refunds ?? []), kept];
      touch(k);
      return { ...r, quantity: r.quantity ?? 0, refund_id: refundId, order_refund_id: orderRefundId };
    });
    return json(200, { order_tax_mode: body.order_tax_mode ?? "TAX_INCLUDED", refunds: made });
  }

  function listReturns(url: URL): Response {
    const read = seekQuery(url);
    if (!read) return miraklError(400, "page_token is not one this API made");
    const q = read.query;
    const from = q.has("return_last_updated_from") ? Date.parse(q.get("return_last_updated_from")!) : null;
    const to = q.has("return_last_updated_to") ? Date.parse(q.get("return_last_updated_to")!) : null;
    const matching = returns
      .filter((r) => {
        const at = Date.parse(r.last_updated!);
        return (from === null || at >= from) && (to === null || at <= to);
      })
      .sort((a, b) => Date.parse(a.date_created!) - Date.parse(b.date_created!));
    return seekPage(structuredClone(matching), url, read);
  }

  return {
    shipments,
    returns,
    addReturn(spec) {
      const at = (spec.createdAt ?? now()).toISOString();
      const k = find(spec.orderId);
      const r: MiraklReturn & Record<string, unknown> = {
        id: spec.id,
        order_id: spec.orderId,
        order_commercial_id: k?.order.commercial_id ?? spec.orderId,
        state: spec.state ?? "WAITING_ACCEPTANCE",
        date_created: at,
        last_updated: at,
        method_code: "RETURN_METHOD_BY_MAIL",
        reason_code: spec.lines[0]?.reason ?? "RETURN_CHANGED_MIND",
        rejection_reason_code: null,
        rma: `RMA-${spec.id}`,
        return_address: { city: "New York", country_iso_code: "USA", street1: "30, Prince Street", zip_code: "NY 10012" },
        return_lines: spec.lines.map((l) => ({
          order_line_id: l.lineId,
          quantity: l.quantity,
          reason_code: l.reason ?? "RETURN_CHANGED_MIND",
          compliance: null,
        })),
      };
      returns.push(r);
      return structuredClone(r);
    },
    editReturn(id, change) {
      const r = returns.find((x) => x.id === id);
      if (!r) throw new Error(`the fake has no return ${id}`);
      change(r);
      r.last_updated = iso();
    },
    handle(operationId, url, body) {
      if (operationId === "ST01") return createShipments(body as { shipments: MiraklShipmentRequest[] });
      if (operationId === "ST11") return listShipments(url);
      if (operationId === "ST23") return correctTracking(body as { shipments: { id: string; tracking: MiraklShipment["tracking"] }[] });
      if (operationId === "OR30") return cancel(body as Parameters<typeof cancel>[0]);
      if (operationId === "OR28") return refund(body as Parameters<typeof refund>[0]);
      if (operationId === "RE01") return json(200, { reasons, total_count: reasons.length });
      if (operationId === "RT11") return listReturns(url);
      return null;
    },
  };
}
