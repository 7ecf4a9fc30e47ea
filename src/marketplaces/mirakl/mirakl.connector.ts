// Mirakl's seller API (one connector for every marketplace that runs on Mirakl: each its own
// instance host and shop key). Built from Mirakl's published MMP seller description: orders in
// through OR11, acceptance through OR21, whole-order shipment through OR23 + OR24 and
// cancellation through OR29 (or refusal through OR21 while the order waits for acceptance);
// stock and price out in mirakl.listings.ts. Calls go through mirakl.client.ts; pacing is
// mirakl.pacing.ts, OR11's pages mirakl.paging.ts, the pure mapping mirakl.mapping.ts.
import { MarketplaceError, type AcknowledgeDelivery, type CancelDelivery, type Connector, type ConnectorContext, type Delivery, type DeliveryOutcome, type OrderPage, type ShipDelivery } from "../connector";
import { refusal } from "../kit/marketplace-http";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import { miraklClient, type MiraklOperation } from "./mirakl.client";
import { miraklListings } from "./mirakl.listings";
import { ENDED_STATES, miraklOrderReader, SHIPPED_STATES, trackingRequest, WAITING_ACCEPTANCE, WAITING_PAYMENT_STATES } from "./mirakl.mapping";
import { MIRAKL_PACES, paceWait } from "./mirakl.pacing";
import { decodeCursor, encodeCursor, nextCursor, ORDERS_PAGE_SIZE } from "./mirakl.paging";
import { miraklSettingsSchema } from "./mirakl.settings";
import type { MiraklAcceptRequest, MiraklOrder, MiraklOrderList } from "./mirakl.types";

/** When the last OR11 poll (a window's first page) went, in the source's storage. */
const POLLED_AT = "mirakl:or11:polledAt";
/** What a delivery of several calls has done so far, so a retry repeats none of it. */
const progressKey = (delivery: Delivery) => `mirakl:delivery:${delivery.id}`;
/** How long a shipment of an order still waiting for the customer's payment waits before it is tried again. */
const PAYMENT_WAIT_MS = 15 * 60_000;

interface Progress {
  accepted?: boolean;
  tracked?: boolean;
}

export function createMiraklConnector(ctx: ConnectorContext, storage: SourceStorage): Connector {
  const settings = connectorSettings(miraklSettingsSchema, ctx, "Mirakl");
  const client = miraklClient(ctx, settings);
  const nowMs = () => ctx.now().getTime();
  const orderPath = (delivery: Delivery) => `/api/orders/${encodeURIComponent(delivery.order.sourceOrderNumber)}`;

  async function fetchOrders(window: { since: Date; until: Date }, cursor: string | null): Promise<OrderPage> {
    if (window.since.getTime() >= window.until.getTime()) return { orders: [], setAside: [], nextCursor: null };
    const at = cursor === null ? null : decodeCursor(cursor);
    if (at === null) {
      // A poll is a window's first page; the pages after it belong to the same poll.
      const wait = paceWait(storage.get<number>(POLLED_AT), nowMs(), MIRAKL_PACES.OR11);
      if (wait > 0) {
        throw new MarketplaceError(
          `Mirakl OR11 is polled at most once a minute (the description's maximum): the next poll fits in ${Math.ceil(wait / 1000)} s, so it waits for a later cycle`,
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

  function progressOf(delivery: Delivery): Progress {
    return storage.get<Progress>(progressKey(delivery)) ?? {};
  }

  function keep(delivery: Delivery, progress: Progress): void {
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

  /** OR21: every line of the order accepted, or every line refused. */
  function decide(delivery: Delivery, accepted: boolean): Promise<MarketplaceError | null> {
    const lines = delivery.order.lines;
    if (lines.length === 0 || lines.some((l) => !l.sourceLineId)) {
      throw refusal("Mirakl", `cannot ${accepted ? "accept" : "refuse"} order ${delivery.order.sourceOrderNumber}: its lines carry no Mirakl order_line_id`);
    }
    const body: MiraklAcceptRequest = { order_lines: lines.map((l) => ({ id: l.sourceLineId, accepted })) };
    return put("OR21", `${orderPath(delivery)}/accept`, body);
  }

  async function acknowledge(delivery: AcknowledgeDelivery): Promise<DeliveryOutcome> {
    const imported = delivery.order.sourceData.state;
    if (imported && ENDED_STATES.has(imported)) throw refusal("Mirakl", `order ${delivery.order.sourceOrderNumber} was ${imported} at the last import: it can no longer be accepted`);
    if (imported && imported !== WAITING_ACCEPTANCE) {
      return { state: "notApplicable", reason: `Mirakl order ${delivery.order.sourceOrderNumber} was ${imported} at the last import: only an order waiting for acceptance is accepted` };
    }
    const refused = await decide(delivery, true);
    if (!refused) return { state: "delivered" };
    const now = await stateNow(delivery);
    if (now === null || now === WAITING_ACCEPTANCE) throw refused;
    if (ENDED_STATES.has(now)) throw refusal("Mirakl", `order ${delivery.order.sourceOrderNumber} is ${now}: it can no longer be accepted (${refused.message})`);
    return { state: "notApplicable", reason: `Mirakl order ${delivery.order.sourceOrderNumber} is already ${now}: accepted before the hub's call` };
  }

  async function ship(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const id = delivery.order.sourceOrderNumber;
    const progress = progressOf(delivery);
    const imported = delivery.order.sourceData.state;
    // Refused and cancelled orders stay so: no call can ship them.
    if (imported && ENDED_STATES.has(imported)) throw refusal("Mirakl", `order ${id} was ${imported} at the last import: it cannot be shipped`);
    // A shipment says the seller has every line: an order still waiting is accepted first.
    if (imported === WAITING_ACCEPTANCE && !progress.accepted) {
      const refused = await decide(delivery, true);
      if (refused) {
        const now = await stateNow(delivery);
        if (now === null || now === WAITING_ACCEPTANCE || ENDED_STATES.has(now)) throw refused;
      }
      keep(delivery, { ...progress, accepted: true });
      progress.accepted = true;
    }
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
      throw new MarketplaceError(`Mirakl order ${id} is ${now} (the customer's payment is pending): ${op} is tried again once Mirakl moves it to SHIPPING`, refused.status, true, PAYMENT_WAIT_MS);
    }
    if (now === WAITING_ACCEPTANCE) throw refusal("Mirakl", `order ${id} waits for acceptance: acknowledge it (or accept it at Mirakl) before shipping (${refused.message})`);
    if (now !== null && ENDED_STATES.has(now)) throw refusal("Mirakl", `order ${id} is ${now}: it cannot be shipped (${refused.message})`);
    throw refused;
  }

  async function cancel(delivery: CancelDelivery): Promise<DeliveryOutcome> {
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
    // Whole orders only until the line-level contract lands: ST01 (packages) and OR30 (line
    // cancellations) are in the description.
    capabilities: { acknowledge: true, ship: true, shipLines: false, cancel: true, cancelLines: false },
    fetchOrders,
    remap: (record) => readOrder(miraklOrderReader, record),
    acknowledge,
    ship,
    cancel,
    listings: miraklListings({ client, storage, now: nowMs }),
  };
}
