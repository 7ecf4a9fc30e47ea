// Mirakl's line-level calls (decisions 12 and 13): a package through ST01 (its tracking corrected
// through ST23, a lost answer found again through ST11 by the package reference the connector
// set), line cancellations through OR30 and refunds through OR28, each with a reason code the
// operator lists in RE01. Pure choices (which reason, what a line's share of its price is) are
// the functions at the top; the calls take the connector's client and storage.
import { type DeliveryOrder, type LineQuantity, MarketplaceError, type RefundDelivery, type Shipment } from "../connector";
import { cents, fromCents, nameTable } from "../kit/mapping";
import { refusal } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { MiraklClient } from "./mirakl.client";
import type {
  MiraklCancelation,
  MiraklOrder,
  MiraklOrderLine,
  MiraklReason,
  MiraklRefund,
  MiraklRefundRequest,
  MiraklSeekPage,
  MiraklShipment,
  MiraklShipmentRequest,
  MiraklShipmentsAnswer,
  MiraklShipmentTracking,
  MiraklTrackingAnswer,
} from "./mirakl.types";

/** RE01's reasons, kept a day in the source's storage: the operator changes them rarely. */
const REASONS = "mirakl:re01";
const REASONS_TTL_MS = 24 * 60 * 60_000;
/** Shipments ST11 answers a page (seek paging's `limit`, UNCONFIRMED in the description). */
const SHIPMENTS_PAGE = 100;
/** A refund or cancellation found again within this much before the call that may have made it. */
const CLOCK_SKEW_MS = 5 * 60_000;

export type ReasonType = "CANCELATION" | "REFUND";

/**
 * The reason code to send for the hub's words: the reason of `type` the shop may use whose code
 * or label reads the same (ignoring case, spaces and punctuation), else the operator's first
 * (RE01 sorts them by the operator's order), with a warning naming it. Null when the operator
 * lists none of that type the shop may use.
 */
export function chooseReason(reasons: MiraklReason[], type: ReasonType, words: string): { code: string; warning: string | null } | null {
  const usable = reasons.filter((r) => r?.type === type && r.is_shop_right !== false && typeof r.code === "string" && r.code !== "");
  if (usable.length === 0) return null;
  const byCode = nameTable(usable.map((r) => r.code!));
  const byLabel = nameTable(usable.map((r) => r.label ?? "").filter(Boolean));
  const code = byCode(words);
  if (code) return { code, warning: null };
  const label = byLabel(words);
  const matched = label ? usable.find((r) => r.label === label) : undefined;
  if (matched) return { code: matched.code!, warning: null };
  const first = usable[0]!;
  return {
    code: first.code!,
    warning: `reason ${JSON.stringify(words)} is none of Mirakl's ${type} reasons: sent as ${first.code} (${first.label ?? "no label"})`,
  };
}

/** The share of an amount for `units` of a line of `quantity` units, in cents. */
const share = (amount: unknown, units: number, quantity: number, where: string) => Math.round((cents(amount ?? 0, where) * units) / quantity);

/** OR30's line for `units` of an order line as OR11 answers it (TAX_EXCLUDED): its price, shipping and taxes pro rata. */
export function cancelationOf(line: MiraklOrderLine, units: number, reasonCode: string, currency: string | undefined): MiraklCancelation {
  const quantity = line.quantity ?? units;
  const where = `line ${line.order_line_id}`;
  const taxes = (list: MiraklOrderLine["taxes"]) =>
    (list ?? [])
      .filter((t) => typeof t?.code === "string")
      .map((t) => ({ code: t.code!, amount: fromCents(share(t.amount, units, quantity, `${where} tax ${t.code}`)) }));
  return {
    order_line_id: line.order_line_id!,
    quantity: units,
    amount: fromCents(share(line.price, units, quantity, `${where} price`)),
    shipping_amount: fromCents(share(line.shipping_price, units, quantity, `${where} shipping_price`)),
    reason_code: reasonCode,
    ...(currency ? { currency_iso_code: currency } : {}),
    taxes: taxes(line.taxes),
    shipping_taxes: taxes(line.shipping_taxes),
  };
}

/** The package reference the connector gives every line of a package: found again in ST11. */
export const packageReference = (shipment: Shipment, deliveryId: number) => `hub-${shipment.shipmentId ?? `d${deliveryId}`}`.slice(0, 100);

/** Whether a package holds every unit of the order that is neither cancelled nor shipped before it. */
export function isWholeOrder(order: DeliveryOrder, lines: LineQuantity[]): boolean {
  const asked = new Map<string, number>();
  for (const l of lines) asked.set(l.sourceLineId, (asked.get(l.sourceLineId) ?? 0) + l.quantity);
  return order.lines.every((l) => {
    const left = l.quantity - (l.quantityCancelled ?? 0);
    const inPackage = asked.get(l.sourceLineId) ?? 0;
    // quantityShipped counts this package too: anything more was shipped before.
    return inPackage === left && (l.quantityShipped === undefined || l.quantityShipped === inPackage);
  });
}

export interface LineCalls {
  /** ST01 for one package; the 201's success is the shipment, its error the refusal (MarketplaceError, 200). */
  createShipment(
    order: DeliveryOrder,
    shipment: Shipment,
    reference: string,
    tracking: MiraklShipmentTracking | undefined,
  ): Promise<{ id: string } | { error: MarketplaceError; whole: boolean }>;
  /** The shipment of the order whose lines carry `reference` (a package sent before whose answer was lost), or null. */
  findShipment(orderId: string, reference: string): Promise<MiraklShipment | null>;
  /** ST23: a package's tracking corrected. */
  correctTracking(shipmentId: string, tracking: MiraklShipmentTracking): Promise<void>;
  /** The order as OR11 answers it now (TAX_EXCLUDED), or null. */
  readOrder(orderId: string): Promise<MiraklOrder | null>;
  reason(type: ReasonType, words: string): Promise<{ code: string; warning: string | null }>;
  /** OR30: the cancellation ids. */
  cancelLines(cancelations: MiraklCancelation[]): Promise<string[]>;
  /** OR28: the order_refund_id(s) of the refund. */
  refund(delivery: RefundDelivery, reasonCode: string, fallbackLineId: string): Promise<string>;
}

export function miraklLineCalls(client: MiraklClient, storage: SourceStorage, now: () => number): LineCalls {
  const nonsense = (op: string, what: string) => new MarketplaceError(`Mirakl ${op} answered nonsense: ${what}`, 200, true);

  return {
    async createShipment(order, shipment, reference, tracking) {
      const body: { shipments: MiraklShipmentRequest[] } = {
        shipments: [
          {
            order_id: order.sourceOrderNumber,
            shipment_lines: shipment.lines.map((l) => ({ order_line_id: l.sourceLineId, quantity: l.quantity, package_reference: reference })),
            ...(tracking ? { tracking } : {}),
            shipped: true,
          },
        ],
      };
      const response = await client.send("ST01", "POST", "/api/shipments", { json: body });
      if (!response.ok) {
        const error = await client.failure("ST01", response);
        if (error.retryable || response.status === 401 || response.status === 403) throw error;
        // Refused as a whole (the shop without multiple shipments, a body Mirakl will not take).
        return { error, whole: true };
      }
      let answer: MiraklShipmentsAnswer | null = null;
      try {
        answer = (await response.json()) as MiraklShipmentsAnswer | null;
      } catch {
        throw nonsense("ST01", "not JSON");
      }
      const success = Array.isArray(answer?.shipment_success) ? answer.shipment_success.find((s) => s?.order_id === order.sourceOrderNumber) : undefined;
      if (success && typeof success.id === "string" && success.id) return { id: success.id };
      const failed = Array.isArray(answer?.shipment_errors)
        ? answer.shipment_errors.find((e) => e?.order_id === order.sourceOrderNumber || e?.order_id === undefined)
        : undefined;
      if (failed) {
        const lines = shipment.lines.map((l) => `${l.sourceLineId} x${l.quantity}`).join(", ");
        return {
          error: new MarketplaceError(`Mirakl ST01 refused the package of lines ${lines}: ${String(failed.message ?? "no message").slice(0, 300)}`, 201, false),
          whole: false,
        };
      }
      throw nonsense("ST01", "neither a shipment_success nor a shipment_error for the order");
    },

    async findShipment(orderId, reference) {
      let token: string | null = null;
      for (let page = 0; page < 10; page++) {
        const query: Record<string, string> = token ? { page_token: token } : { order_id: orderId, limit: String(SHIPMENTS_PAGE) };
        const body = (await client.json("ST11", "GET", "/api/shipments", { query })) as MiraklSeekPage<MiraklShipment> | null;
        if (!Array.isArray(body?.data)) throw nonsense("ST11", "no data list");
        const found = body.data.find((s) => s?.order_id === orderId && (s.shipment_lines ?? []).some((l) => l?.package_reference === reference));
        if (found) return found;
        token = typeof body.next_page_token === "string" && body.next_page_token ? body.next_page_token : null;
        if (!token) return null;
      }
      return null;
    },

    async correctTracking(shipmentId, tracking) {
      const body = (await client.json("ST23", "POST", "/api/shipments/tracking", {
        json: { shipments: [{ id: shipmentId, tracking }] },
      })) as MiraklTrackingAnswer | null;
      const error = Array.isArray(body?.shipment_errors) ? body.shipment_errors.find((e) => e?.id === shipmentId || e?.id === undefined) : undefined;
      if (error) throw refusal("Mirakl", `ST23 refused the tracking of shipment ${shipmentId}: ${String(error.message ?? "no message").slice(0, 300)}`);
      if (!Array.isArray(body?.shipment_success) || !body.shipment_success.some((s) => s?.id === shipmentId))
        throw nonsense("ST23", `no success for shipment ${shipmentId}`);
    },

    async readOrder(orderId) {
      const body = (await client.json("OR11", "GET", "/api/orders", { query: { order_ids: orderId, order_tax_mode: "TAX_EXCLUDED" } })) as {
        orders?: unknown;
      } | null;
      const orders = Array.isArray(body?.orders) ? (body.orders as MiraklOrder[]) : [];
      return orders.find((o) => o?.order_id === orderId) ?? null;
    },

    async reason(type, words) {
      const kept = storage.get<{ at: number; reasons: MiraklReason[] }>(REASONS);
      let reasons = kept && now() - kept.at < REASONS_TTL_MS && now() >= kept.at ? kept.reasons : null;
      if (!reasons) {
        const body = (await client.json("RE01", "GET", "/api/reasons")) as { reasons?: unknown } | null;
        if (!Array.isArray(body?.reasons)) throw nonsense("RE01", "no reasons list");
        reasons = (body.reasons as MiraklReason[])
          .filter((r) => r && typeof r === "object")
          .map((r) => ({ code: r.code, label: r.label, type: r.type, is_shop_right: r.is_shop_right }));
        storage.put(REASONS, { at: now(), reasons });
      }
      const chosen = chooseReason(reasons, type, words);
      if (!chosen) throw refusal("Mirakl", `the operator lists no ${type} reason the shop may use (RE01): Mirakl takes none without a reason code`);
      return chosen;
    },

    async cancelLines(cancelations) {
      const body = (await client.json("OR30", "PUT", "/api/orders/cancel", { json: { order_tax_mode: "TAX_EXCLUDED", cancelations } })) as {
        cancelations?: { cancelation_id?: string }[];
      } | null;
      if (!Array.isArray(body?.cancelations)) throw nonsense("OR30", "no cancelations list");
      return body.cancelations.map((c) => c?.cancelation_id).filter((id): id is string => typeof id === "string" && id !== "");
    },

    async refund(delivery, reasonCode, fallbackLineId) {
      const currency = delivery.currency ? { currency_iso_code: delivery.currency } : {};
      const refunds: MiraklRefundRequest[] = delivery.lines.map((l, i) => ({
        order_line_id: l.sourceLineId,
        amount: l.amount,
        // OR28 has no order-level shipping: the refund's shipping goes with its first line.
        shipping_amount: i === 0 ? delivery.shippingAmount : 0,
        reason_code: reasonCode,
        ...(l.quantity > 0 ? { quantity: l.quantity } : {}),
        ...currency,
      }));
      if (refunds.length === 0)
        refunds.push({ order_line_id: fallbackLineId, amount: 0, shipping_amount: delivery.shippingAmount, reason_code: reasonCode, ...currency });
      const body = (await client.json("OR28", "PUT", "/api/orders/refund", { json: { order_tax_mode: "TAX_INCLUDED", refunds } })) as {
        refunds?: MiraklRefund[];
      } | null;
      if (!Array.isArray(body?.refunds) || body.refunds.length === 0) throw nonsense("OR28", "no refunds list");
      const ids = [...new Set(body.refunds.map((r) => r?.order_refund_id ?? r?.refund_id).filter((id): id is string => typeof id === "string" && id !== ""))];
      if (ids.length === 0) throw nonsense("OR28", "no order_refund_id");
      return ids.join(",");
    },
  };
}

/** Earlier cancellations on the order's lines made at or after `since` with the units asked: an OR30 whose answer was lost. */
export function cancelledSince(order: MiraklOrder, lines: LineQuantity[], since: number): boolean {
  return lines.every((asked) => {
    const line = (order.order_lines ?? []).find((l) => l?.order_line_id === asked.sourceLineId);
    return (line?.cancelations ?? []).some((c) => c?.quantity === asked.quantity && Date.parse(c.created_date ?? "") >= since - CLOCK_SKEW_MS);
  });
}

/** A refund on the order's lines made at or after `since` with the amounts asked (an OR28 whose answer was lost): its order_refund_id. */
export function refundedSince(order: MiraklOrder, delivery: RefundDelivery, since: number): string | null {
  const candidates = new Map<string, number>();
  for (const line of order.order_lines ?? []) {
    for (const r of line?.refunds ?? []) {
      const id = r?.order_refund_id ?? r?.id;
      if (!id || !(Date.parse(r.created_date ?? "") >= since - CLOCK_SKEW_MS)) continue;
      const asked = delivery.lines.find((l) => l.sourceLineId === line.order_line_id);
      if (asked && Math.round((r.amount ?? 0) * 100) === Math.round(asked.amount * 100)) candidates.set(id, (candidates.get(id) ?? 0) + 1);
    }
  }
  for (const [id, n] of candidates) if (n === delivery.lines.length) return id;
  return null;
}
