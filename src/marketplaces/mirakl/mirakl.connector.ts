// Mirakl's seller API (one connector for every marketplace that runs on Mirakl: each its own
// instance host and shop key). Built from Mirakl's published MMP seller description: orders in
// through OR11, acceptance through OR21 (in auto mode decided by the stock each line took at import), each
// package through ST01 (a whole order through OR23 + OR24 where the shop refuses ST01), whole
// cancellation through OR29 and line cancellation through OR30 (or refusal through OR21 while
// the order waits for acceptance), refunds through OR28 (mirakl.lines.ts), returns in through
// RT11 (mirakl.returns.ts); stock and price out in mirakl.listings.ts. Calls go through
// mirakl.client.ts; pacing is mirakl.pacing.ts, OR11's pages mirakl.paging.ts, the pure mapping
// mirakl.mapping.ts.
import {
  type AcknowledgeDelivery,
  type CancelDelivery,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type ImportedOrder,
  type DeliveryOutcome,
  type LineQuantity,
  MarketplaceError,
  type OrderPage,
  type RefundDelivery,
  type ShipDelivery,
} from "../connector";
import { refusal } from "../kit/marketplace-http";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import { type MiraklOperation, miraklClient } from "./mirakl.client";
import { cancelationOf, cancelledSince, isWholeOrder, miraklLineCalls, packageReference, refundedSince } from "./mirakl.lines";
import { miraklListings } from "./mirakl.listings";
import {
  ENDED_STATES,
  miraklOrderReader,
  SHIPPED_STATES,
  shipmentTracking,
  trackingRequest,
  WAITING_ACCEPTANCE,
  WAITING_PAYMENT_STATES,
} from "./mirakl.mapping";
import { MIRAKL_PACES, paceWait } from "./mirakl.pacing";
import { decodeCursor, encodeCursor, nextCursor, ORDERS_PAGE_SIZE } from "./mirakl.paging";
import { miraklReturns } from "./mirakl.returns";
import { miraklSettingsSchema } from "./mirakl.settings";
import type { MiraklAcceptRequest, MiraklOrder, MiraklOrderList } from "./mirakl.types";

/** When the last OR11 poll (a window's first page) went, in the source's storage. */
const POLLED_AT = "mirakl:or11:polledAt";
/** What a delivery of several calls has done so far, so a retry repeats none of it. */
const progressKey = (delivery: { id: number }) => `mirakl:delivery:${delivery.id}`;
/** How long a shipment of an order still waiting for the customer's payment waits before it is tried again. */
const PAYMENT_WAIT_MS = 15 * 60_000;

/** When ST01 last refused a whole order's package as a whole (a shop without multiple shipments): OR23 + OR24 for a day. */
const NO_MULTI_SHIPMENT = "mirakl:st01:refusedAt";
const NO_MULTI_SHIPMENT_MS = 24 * 60 * 60_000;

interface Progress {
  accepted?: boolean;
  tracked?: boolean;
  /** ST01 went (its answer may have been lost): look the package up by its reference before sending again. */
  packageSent?: boolean;
  /** When OR30 / OR28 went: a retry looks for what they made since. */
  sentAt?: number;
}

export function createMiraklConnector(ctx: ConnectorContext, storage: SourceStorage): Connector {
  const settings = connectorSettings(miraklSettingsSchema, ctx, "Mirakl");
  const client = miraklClient(ctx, settings);
  const nowMs = () => ctx.now().getTime();
  const orderPath = (delivery: Delivery) => `/api/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}`;
  const lineCalls = miraklLineCalls(client, storage, nowMs);

  async function fetchOrders(window: { since: Date; until: Date }, cursor: string | null): Promise<OrderPage> {
    if (window.since.getTime() >= window.until.getTime()) return { orders: [], setAside: [], nextCursor: null };
    const at = cursor === null ? null : decodeCursor(cursor);
    if (at === null) {
      // A poll is a window's first page; the pages after it belong to the same poll.
      const wait = paceWait(storage.get<number>(POLLED_AT), nowMs(), MIRAKL_PACES.OR11);
      if (wait > 0) {
        throw new MarketplaceError(
          `Mirakl OR11 is polled at most once a minute (the description's maximum): the next poll fits in ${Math.ceil(wait / 1000)} s, so it waits for a ` +
            `later cycle`,
          429,
          true,
          wait,
        );
      }
      storage.put(POLLED_AT, nowMs());
    }
    const body = (await client.json("OR11", "GET", "/api/orders", {
      query: {
        start_update_date: window.since.toISOString(),
        end_update_date: window.until.toISOString(),
        // Prices before tax, the taxes apart (the mapping reads TAX_INCLUDED too).
        order_tax_mode: "TAX_EXCLUDED",
        max: String(ORDERS_PAGE_SIZE),
        offset: String(at?.offset ?? 0),
      },
    })) as MiraklOrderList | null;
    const total = body?.total_count;
    if (!Array.isArray(body?.orders) || typeof total !== "number" || !Number.isInteger(total) || total < 0) {
      throw new MarketplaceError("Mirakl OR11 answered nonsense: no orders list with a total_count", 200, true);
    }
    // STAGING is before the shop's part (OR21 takes orders from WAITING_ACCEPTANCE on); the move
    // out of it changes the order's update date, so a later window brings it.
    const records = (body.orders as unknown[]).filter((o) => (o as MiraklOrder | null)?.order_state !== "STAGING");
    const next = nextCursor(at, body.orders.length, total);
    return { ...splitPage(miraklOrderReader, records, "Mirakl OR11"), nextCursor: next && encodeCursor(next) };
  }

  /** The order's state at Mirakl now (OR11 by order_ids), read when a call was refused. */
  async function stateNow(delivery: Delivery): Promise<string | null> {
    const body = (await client.json("OR11", "GET", "/api/orders", { query: { order_ids: delivery.order.sourceOrderNumber } })) as MiraklOrderList | null;
    const orders = Array.isArray(body?.orders) ? (body.orders as MiraklOrder[]) : [];
    const order = orders.find((o) => o?.order_id === delivery.order.sourceOrderNumber);
    return typeof order?.order_state === "string" ? order.order_state : null;
  }

  function progressOf(delivery: { id: number }): Progress {
    return storage.get<Progress>(progressKey(delivery)) ?? {};
  }

  function keep(delivery: { id: number }, progress: Progress): void {
    storage.put(progressKey(delivery), progress);
  }

  /**
   * A call Mirakl answers 204: null when taken; Mirakl's refusal of this order (a 4xx) returned,
   * for the caller to read against the order's state; anything else thrown.
   */
  async function put(op: MiraklOperation, path: string, json?: unknown): Promise<MarketplaceError | null> {
    const response = await client.send(op, "PUT", path, json === undefined ? {} : { json });
    if (response.ok) {
      await response.body?.cancel();
      return null;
    }
    const error = await client.failure(op, response);
    // A refused key says nothing of the order: no state to look up.
    if (error.retryable || response.status === 401 || response.status === 403) throw error;
    return error;
  }

  /** OR21: a decision for every line of the order (`accepted` for all, or per line id). */
  function decide(delivery: Delivery, accepted: boolean | ((lineId: string) => boolean)): Promise<MarketplaceError | null> {
    const lines = delivery.order.lines;
    if (lines.length === 0 || lines.some((l) => !l.sourceLineId)) {
      throw refusal("Mirakl", `cannot ${accepted ? "accept" : "refuse"} order ${delivery.order.sourceOrderNumber}: its lines carry no Mirakl order_line_id`);
    }
    const body: MiraklAcceptRequest = {
      order_lines: lines.map((l) => ({ id: l.sourceLineId, accepted: typeof accepted === "boolean" ? accepted : accepted(l.sourceLineId) })),
    };
    return put("OR21", `${orderPath(delivery)}/accept`, body);
  }

  /**
   * Acceptance by stock (decisions 14): in `auto` mode a line is accepted when it took all its
   * units from stock at import (DeliveryLine.stockTaken; lines of one Sku are served in order, so
   * a line after a short one took nothing) or its Sku was not tracked; a line that took fewer is
   * refused and gives back what it took, so the Sku's count stays exact. Lines without a take are
   * accepted. Null: accept every line.
   */
  function stockDecision(delivery: AcknowledgeDelivery): { refused: Set<string>; why: string[] } | null {
    if (settings.acceptance !== "auto") return null;
    const refused = new Set<string>();
    const why: string[] = [];
    for (const line of delivery.order.lines) {
      if (line.stockTaken === undefined || line.stockTaken === null || line.stockTaken >= line.quantity) continue;
      refused.add(line.sourceLineId);
      why.push(`line ${line.sourceLineId} (Sku ${line.sku}: ${line.quantity} ordered, ${Math.max(0, line.stockTaken)} in stock)`);
    }
    return refused.size > 0 ? { refused, why } : null;
  }

  async function acknowledge(delivery: AcknowledgeDelivery): Promise<DeliveryOutcome> {
    const imported = delivery.order.sourceData.state;
    if (imported && ENDED_STATES.has(imported))
      throw refusal("Mirakl", `order ${delivery.order.sourceOrderNumber} was ${imported} at the last import: it can no longer be accepted`);
    if (imported && imported !== WAITING_ACCEPTANCE) {
      return {
        state: "notApplicable",
        reason: `Mirakl order ${delivery.order.sourceOrderNumber} was ${imported} at the last import: only an order waiting for acceptance is accepted`,
      };
    }
    // The hub decided at import already (decisions 14): an integrator's AcknowledgeOrder after it changes nothing.
    if (delivery.earlier.some((e) => e.kind === "acknowledge" && e.state === "delivered")) {
      return {
        state: "notApplicable",
        reason: `Mirakl order ${delivery.order.sourceOrderNumber} was accepted or refused already by an earlier acknowledgement`,
      };
    }
    const byStock = stockDecision(delivery);
    const all = byStock !== null && byStock.refused.size === delivery.order.lines.length;
    const refused = await decide(delivery, byStock ? (id) => !byStock.refused.has(id) : true);
    if (!refused) {
      if (!byStock) return { state: "delivered" };
      return {
        state: "delivered",
        warning: `Mirakl order ${delivery.order.sourceOrderNumber}: ${all ? "refused" : "accepted the lines in stock and refused"} ${byStock.why.join(", ")}`,
      };
    }
    const now = await stateNow(delivery);
    if (byStock && !all && now === WAITING_ACCEPTANCE && /ORDER_PARTIAL_ACCEPTANCE_DISABLED/.test(refused.message)) {
      // The shop cannot accept part of an order: accepting every line would sell what is not in stock.
      const again = await decide(delivery, false);
      if (again) throw again;
      return {
        state: "delivered",
        warning: `Mirakl order ${delivery.order.sourceOrderNumber}: refused as a whole (the shop cannot accept part of an order) for ${byStock.why.join(", ")}`,
      };
    }
    if (now === null || now === WAITING_ACCEPTANCE) throw refused;
    if (ENDED_STATES.has(now))
      throw refusal("Mirakl", `order ${delivery.order.sourceOrderNumber} is ${now}: it can no longer be accepted (${refused.message})`);
    return { state: "notApplicable", reason: `Mirakl order ${delivery.order.sourceOrderNumber} is already ${now}: accepted before the hub's call` };
  }

  /** A shipment says the seller has its lines: an order still waiting for acceptance is accepted first (every line). */
  async function acceptFirst(delivery: ShipDelivery, progress: Progress): Promise<void> {
    if (delivery.order.sourceData.state !== WAITING_ACCEPTANCE || progress.accepted) return;
    const refused = await decide(delivery, true);
    if (refused) {
      const now = await stateNow(delivery);
      if (now === null || now === WAITING_ACCEPTANCE || ENDED_STATES.has(now)) throw refused;
    }
    keep(delivery, { ...progress, accepted: true });
    progress.accepted = true;
  }

  /**
   * One package (decisions 12) through ST01 with exactly its lines and units, every line carrying
   * the package reference made from the hub's ShipmentId; a tracking correction of a package
   * delivered before through ST23 on the shipment Mirakl made. A whole order's package whose ST01
   * is refused as a whole (a shop without multiple shipments) goes through OR23 + OR24 instead.
   */
  async function ship(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const id = delivery.order.sourceOrderNumber;
    const imported = delivery.order.sourceData.state;
    // Refused and cancelled orders stay so: no call can ship them.
    if (imported && ENDED_STATES.has(imported)) throw refusal("Mirakl", `order ${id} was ${imported} at the last import: it cannot be shipped`);
    const shipmentId = delivery.shipment.shipmentId;
    const before = shipmentId ? delivery.earlier.filter((e) => e.kind === "ship" && e.state === "delivered" && e.shipmentId === shipmentId).at(-1) : undefined;
    if (before?.reference) {
      const { tracking, warning } = shipmentTracking(delivery.order, delivery.shipment, settings.carriers, settings.defaultCarrierCode);
      if (!tracking)
        return { state: "notApplicable", reason: `Mirakl shipment ${before.reference} of order ${id}: the correction names no carrier or tracking to send` };
      await lineCalls.correctTracking(before.reference, tracking);
      return { state: "delivered", reference: before.reference, warning };
    }
    const whole = isWholeOrder(delivery.order, delivery.shipment.lines);
    // A package delivered as the whole order (OR23 + OR24, no reference), or an order shipped already: the order's tracking.
    if (before || (whole && imported && SHIPPED_STATES.has(imported))) return shipWholeOrder(delivery);
    const refusedAt = storage.get<number>(NO_MULTI_SHIPMENT);
    if (whole && refusedAt !== undefined && nowMs() - refusedAt < NO_MULTI_SHIPMENT_MS && nowMs() >= refusedAt) return shipWholeOrder(delivery);
    const progress = progressOf(delivery);
    await acceptFirst(delivery, progress);
    const reference = packageReference(delivery.shipment, delivery.id);
    if (progress.packageSent) {
      // The last ST01 may have made the package and its answer been lost: never a second one.
      const found = await lineCalls.findShipment(id, reference);
      if (found?.id) {
        storage.delete(progressKey(delivery));
        return { state: "delivered", reference: found.id, warning: `Mirakl shipment ${found.id} was made by an earlier call whose answer was lost` };
      }
    }
    const { tracking, warning } = shipmentTracking(delivery.order, delivery.shipment, settings.carriers, settings.defaultCarrierCode);
    keep(delivery, { ...progress, packageSent: true });
    const made = await lineCalls.createShipment(delivery.order, delivery.shipment, reference, tracking);
    if ("id" in made) {
      storage.delete(progressKey(delivery));
      return { state: "delivered", reference: made.id, warning };
    }
    // Refused: nothing was made.
    keep(delivery, { ...progress, packageSent: false });
    if (made.whole && whole) {
      storage.put(NO_MULTI_SHIPMENT, nowMs());
      return shipWholeOrder(delivery);
    }
    const shipped = await explainRefusal(delivery, made.error, "ST01");
    if (shipped && whole) {
      storage.delete(progressKey(delivery));
      return { state: "delivered", warning: `Mirakl order ${id} was already shipped` };
    }
    if (shipped) throw refusal("Mirakl", `order ${id} is shipped: every line was shipped before this package (${made.error.message})`);
    throw made.error;
  }

  /** A whole order's shipment through OR23 + OR24 (the shop without ST01, or a correction of such a shipment). */
  async function shipWholeOrder(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const id = delivery.order.sourceOrderNumber;
    const progress = progressOf(delivery);
    const imported = delivery.order.sourceData.state;
    // Refused and cancelled orders stay so: no call can ship them.
    if (imported && ENDED_STATES.has(imported)) throw refusal("Mirakl", `order ${id} was ${imported} at the last import: it cannot be shipped`);
    await acceptFirst(delivery, progress);
    const tracking = trackingRequest(delivery.order, delivery.shipment, settings.carriers, settings.defaultCarrierCode);
    if (tracking && !progress.tracked) {
      const refused = await put("OR23", `${orderPath(delivery)}/tracking`, tracking.body);
      if (refused) await explainRefusal(delivery, refused, "OR23");
      keep(delivery, { ...progress, tracked: true });
      progress.tracked = true;
    }
    const warning = tracking?.warning ?? null;
    if (imported && SHIPPED_STATES.has(imported)) {
      // Shipped already: this call corrected the tracking (decisions 3), nothing to validate.
      storage.delete(progressKey(delivery));
      return { state: "delivered", warning };
    }
    const refused = await put("OR24", `${orderPath(delivery)}/ship`);
    if (refused) {
      const shipped = await explainRefusal(delivery, refused, "OR24");
      if (!shipped) throw refused;
    }
    storage.delete(progressKey(delivery));
    return { state: "delivered", warning: refused ? `Mirakl order ${id} was already shipped` : warning };
  }

  /**
   * What Mirakl's refusal of a shipment call means, from the order's state now: true when the
   * order is shipped already; a wait while the customer's payment is pending; a refusal for good
   * when the order ended; otherwise the refusal itself.
   */
  async function explainRefusal(delivery: Delivery, refused: MarketplaceError, op: MiraklOperation): Promise<boolean> {
    const id = delivery.order.sourceOrderNumber;
    const now = await stateNow(delivery);
    if (now !== null && SHIPPED_STATES.has(now)) return true;
    if (now !== null && WAITING_PAYMENT_STATES.has(now)) {
      throw new MarketplaceError(
        `Mirakl order ${id} is ${now} (the customer's payment is pending): ${op} is tried again once Mirakl moves it to SHIPPING`,
        refused.status,
        true,
        PAYMENT_WAIT_MS,
      );
    }
    if (now === WAITING_ACCEPTANCE)
      throw refusal("Mirakl", `order ${id} waits for acceptance: acknowledge it (or accept it at Mirakl) before shipping (${refused.message})`);
    if (now !== null && ENDED_STATES.has(now)) throw refusal("Mirakl", `order ${id} is ${now}: it cannot be shipped (${refused.message})`);
    throw refused;
  }

  /**
   * A cancellation (decisions 12): the whole order when it names no lines or every unit of an
   * order nothing was shipped of; otherwise those lines and units (cancelLines).
   */
  async function cancel(delivery: CancelDelivery): Promise<DeliveryOutcome> {
    const lines = delivery.lines ?? null;
    const asked = new Map((lines ?? []).map((l) => [l.sourceLineId, l.quantity]));
    const whole =
      lines === null ||
      delivery.order.lines.every(
        (l) => asked.get(l.sourceLineId) === l.quantity && (l.quantityShipped ?? 0) === 0 && (l.quantityCancelled ?? l.quantity) === l.quantity,
      );
    return whole ? cancelWholeOrder(delivery) : cancelLines(delivery, lines);
  }

  /**
   * Lines and units of an order: while it waits for acceptance, OR21 refusing the named lines
   * (whole lines only; Mirakl takes a decision for every line, so the others are accepted); once
   * accepted, OR30 with each line's share of its price, shipping and taxes and a reason code.
   */
  async function cancelLines(delivery: CancelDelivery, lines: LineQuantity[]): Promise<DeliveryOutcome> {
    const id = delivery.order.sourceOrderNumber;
    const imported = delivery.order.sourceData.state;
    if (imported && ENDED_STATES.has(imported)) return { state: "delivered", warning: `Mirakl order ${id} was already ${imported}` };
    const unknown = lines.filter((l) => !delivery.order.lines.some((o) => o.sourceLineId === l.sourceLineId));
    if (unknown.length > 0) throw refusal("Mirakl", `order ${id} has no line ${unknown.map((l) => l.sourceLineId).join(", ")}`);
    if (imported === WAITING_ACCEPTANCE) {
      const partial = lines.filter((l) => delivery.order.lines.find((o) => o.sourceLineId === l.sourceLineId)!.quantity !== l.quantity);
      if (partial.length > 0) {
        throw refusal(
          "Mirakl",
          `order ${id} waits for acceptance: Mirakl refuses whole lines only (OR21), not ` +
            `${partial.map((l) => `${l.quantity} unit(s) of line ${l.sourceLineId}`).join(", ")}`,
        );
      }
      const named = new Set(lines.map((l) => l.sourceLineId));
      const refused = await decide(delivery, (lineId) => !named.has(lineId));
      if (!refused)
        return {
          state: "delivered",
          warning: `Mirakl order ${id}: lines ${[...named].join(", ")} refused, the others accepted (OR21 takes a decision for every line)`,
        };
      const now = await stateNow(delivery);
      if (now === null || now === WAITING_ACCEPTANCE) throw refused;
      if (ENDED_STATES.has(now)) return { state: "delivered", warning: `Mirakl order ${id} was already ${now}` };
      // Accepted since the import: the lines are cancelled instead.
    }
    const progress = progressOf(delivery);
    const order = await lineCalls.readOrder(id);
    if (!order) throw refusal("Mirakl", `OR11 does not know order ${id}`);
    const state = typeof order.order_state === "string" ? order.order_state : "";
    if (progress.sentAt !== undefined && cancelledSince(order, lines, progress.sentAt)) {
      storage.delete(progressKey(delivery));
      return { state: "delivered", warning: `Mirakl order ${id}: the lines were cancelled by an earlier call whose answer was lost` };
    }
    if (ENDED_STATES.has(state)) return { state: "delivered", warning: `Mirakl order ${id} was already ${state}` };
    const reason = await lineCalls.reason("CANCELATION", delivery.reason);
    const cancelations = lines.map((asked) => {
      const line = (order.order_lines ?? []).find((l) => l?.order_line_id === asked.sourceLineId);
      if (!line) throw refusal("Mirakl", `order ${id} has no line ${asked.sourceLineId} at Mirakl`);
      if (ENDED_STATES.has(line.order_line_state ?? "") || SHIPPED_STATES.has(line.order_line_state ?? "")) {
        throw refusal("Mirakl", `line ${asked.sourceLineId} of order ${id} is ${line.order_line_state}: it cannot be cancelled`);
      }
      return cancelationOf(line, asked.quantity, reason.code, order.currency_iso_code);
    });
    keep(delivery, { ...progress, sentAt: nowMs() });
    const ids = await lineCalls.cancelLines(cancelations);
    storage.delete(progressKey(delivery));
    return { state: "delivered", reference: ids.join(",").slice(0, 500) || null, warning: reason.warning };
  }

  /**
   * A refund out (decisions 13) through OR28, by line with the amounts asked (tax included; the
   * refund's shipping with its first line) and a reason code. A retry after a call whose answer
   * was lost finds the refund it made on the order (OR11) instead of refunding twice.
   */
  async function refund(delivery: RefundDelivery): Promise<DeliveryOutcome> {
    const id = delivery.order.sourceOrderNumber;
    const progress = progressOf(delivery);
    if (progress.sentAt !== undefined) {
      const order = await lineCalls.readOrder(id);
      const found = order ? refundedSince(order, delivery, progress.sentAt) : null;
      if (found) {
        storage.delete(progressKey(delivery));
        return { state: "delivered", reference: found, warning: `Mirakl refund ${found} was made by an earlier call whose answer was lost` };
      }
    }
    const first = delivery.order.lines[0]?.sourceLineId;
    if (delivery.lines.length === 0 && !first) throw refusal("Mirakl", `order ${id}: OR28 refunds by line, and the order names none`);
    const reason = await lineCalls.reason("REFUND", delivery.reason);
    keep(delivery, { ...progress, sentAt: nowMs() });
    const reference = await lineCalls.refund(delivery, reason.code, first ?? "");
    storage.delete(progressKey(delivery));
    return { state: "delivered", reference, warning: reason.warning };
  }

  /** The whole order: OR29 once accepted, OR21 refusing every line while it waits. */
  async function cancelWholeOrder(delivery: CancelDelivery): Promise<DeliveryOutcome> {
    const id = delivery.order.sourceOrderNumber;
    const imported = delivery.order.sourceData.state;
    if (imported && ENDED_STATES.has(imported)) return { state: "delivered", warning: `Mirakl order ${id} was already ${imported}` };
    const waiting = imported === WAITING_ACCEPTANCE;
    // OR29 cancels an accepted order; one still waiting for acceptance is refused instead.
    const refused = waiting ? await decide(delivery, false) : await put("OR29", `${orderPath(delivery)}/cancel`);
    if (!refused) return { state: "delivered" };
    const now = await stateNow(delivery);
    if (now !== null && ENDED_STATES.has(now)) return { state: "delivered", warning: `Mirakl order ${id} was already ${now}` };
    if (now !== null && SHIPPED_STATES.has(now)) throw refusal("Mirakl", `order ${id} is ${now}: a shipped order cannot be cancelled (${refused.message})`);
    // The import's state was stale: the order moved in or out of acceptance since.
    if (now === WAITING_ACCEPTANCE && !waiting) {
      const again = await decide(delivery, false);
      if (again) throw again;
      return { state: "delivered" };
    }
    if (now !== null && now !== WAITING_ACCEPTANCE && waiting) {
      const again = await put("OR29", `${orderPath(delivery)}/cancel`);
      if (again) throw again;
      return { state: "delivered" };
    }
    throw refused;
  }

  return {
    capabilities: { acknowledge: true, ship: true, shipLines: true, cancel: true, cancelLines: true },
    // Decisions 14: in auto mode the hub decides each order waiting for acceptance as it arrives.
    acceptOnImport: (order: ImportedOrder) => settings.acceptance === "auto" && order.sourceOrderStatus === WAITING_ACCEPTANCE,
    fetchOrders,
    remap: (record) => readOrder(miraklOrderReader, record),
    acknowledge,
    ship,
    cancel,
    listings: miraklListings({ client, storage, now: nowMs }),
    returns: miraklReturns(client, storage, nowMs),
    refund,
  };
}
