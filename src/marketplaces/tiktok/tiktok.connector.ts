// TikTok Shop (Partner API 202309, built from TikTok's official generated Node SDK; README.md beside
// this file says what TikTok's API can and cannot do and which source was chosen where they
// disagree): orders in through GetOrderList (update_time window, page_token paging) and
// GetOrderDetail (lines, buyer, address); shipments out as packages (ShipPackage with the seller's
// tracking number and carrier, after SplitOrders when a package holds lines not shipped yet, or
// MarkPackageAsShipped for lines in no package; UpdatePackageShippingInfo corrects a tracking
// number); seller cancellations through CancelOrder, of the whole order or of the line items a
// line cancellation names; stock and price through tiktok.listings.ts; returns in, the seller's
// decisions and refunds out through tiktok.returns.ts.
// Every call is signed and carries the access token (tiktok.client.ts); the refresh token rotates
// and is kept sealed (tiktok.tokens.ts). Each delivery reads the order first, so a repeated one
// sends nothing twice.
import {
  MarketplaceError,
  type Capabilities,
  type CancelDelivery,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type DeliveryOutcome,
  type ImportWindow,
  type OrderPage,
  type ShipDelivery,
} from "../connector";
import { refusal } from "../kit/marketplace-http";
import { readOrder, splitPage } from "../kit/orders-page";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import { tiktokClient, type TiktokClient } from "./tiktok.client";
import { tiktokListings } from "./tiktok.listings";
import { tiktokReturns } from "./tiktok.returns";
import { idOf, isLeftOut, lineState, providerFor, shipmentPlan, shippedByTiktok, tiktokOrderReader, trackingOf } from "./tiktok.mapping";
import { tiktokSettingsSchema } from "./tiktok.settings";
import { tiktokAccessTokens } from "./tiktok.tokens";
import type {
  TiktokCancelAnswer,
  TiktokCancelOrder,
  TiktokLineItem,
  TiktokOrder,
  TiktokOrderDetail,
  TiktokOrderList,
  TiktokShipPackage,
  TiktokShippingInfoUpdate,
} from "./tiktok.types";

const TIMEOUT_MS = 15_000;
/** GetOrderDetail takes at most 50 ids: a page of 50 is one detail call. */
const PAGE_SIZE = 50;
const CAPABILITIES: Capabilities = { acknowledge: false, ship: true, shipLines: true, cancel: true, cancelLines: true };
const NO_ACKNOWLEDGEMENT = "TikTok Shop has no order acknowledgement: a paid order (AWAITING_SHIPMENT) is the seller's to ship as it is";

export function createTiktokConnector(ctx: ConnectorContext, storage: SourceStorage): Connector {
  const settings = connectorSettings(tiktokSettingsSchema, ctx, "TikTok");
  const client: TiktokClient = tiktokClient(ctx, settings, storage, tiktokAccessTokens(ctx, settings, storage, TIMEOUT_MS));

  async function details(ids: string[]): Promise<Map<string, TiktokOrder>> {
    if (ids.length === 0) return new Map();
    const data = await client.call<TiktokOrderDetail | null>({
      operation: "GetOrderDetail",
      method: "GET",
      path: "/order/202309/orders",
      query: { ids: ids.join(",") },
      shop: true,
    });
    const orders = data?.orders;
    if (!Array.isArray(orders)) throw new MarketplaceError("TikTok GetOrderDetail answer has no orders list", 200, true);
    return new Map(orders.filter((o) => idOf(o?.id) !== null).map((o) => [o.id!, o] as const));
  }

  async function fetchOrders(window: ImportWindow, cursor: string | null): Promise<OrderPage> {
    const query: Record<string, string> = { page_size: String(PAGE_SIZE), sort_field: "update_time", sort_order: "ASC" };
    if (cursor !== null) query.page_token = cursor;
    // The window's fixed end goes with every page, so a page token always belongs to the same search.
    const json = { update_time_ge: Math.floor(window.since.getTime() / 1000), update_time_lt: Math.floor(window.until.getTime() / 1000) };
    const list = await client.call<TiktokOrderList | null>({
      operation: "GetOrderList",
      method: "POST",
      path: "/order/202309/orders/search",
      query,
      json,
      shop: true,
    });
    const found = list?.orders ?? [];
    if (!Array.isArray(found)) throw new MarketplaceError("TikTok GetOrderList answer's orders is not a list", 200, true);
    const kept = (found as unknown[]).filter((record) => !isLeftOut(record));
    // The search finds what changed; the details are what is imported (lines, buyer, address). An
    // order the details leave out is read from the search's record, which has the same shape.
    const full = await details([...new Set(kept.map((r) => idOf((r as TiktokOrder)?.id)).filter((id): id is string => id !== null))]);
    const records = kept.map((r) => full.get(idOf((r as TiktokOrder)?.id) ?? "") ?? r).filter((r) => !isLeftOut(r));
    const token = list?.next_page_token;
    return { ...splitPage(tiktokOrderReader, records, "TikTok GetOrderList"), nextCursor: typeof token === "string" && token.trim() !== "" ? token : null };
  }

  /** The order as TikTok has it now; a refusal when TikTok does not know it. */
  async function currentOrder(delivery: Delivery): Promise<TiktokOrder> {
    const id = idOf(delivery.order.sourceOrderNumber);
    if (id === null) throw refusal("TikTok", `cannot deliver to order ${delivery.order.sourceOrderNumber}: it is not a TikTok order id`);
    const order = (await details([id])).get(id);
    if (!order) throw refusal("TikTok", `GetOrderDetail does not know order ${id} in this shop`);
    return order;
  }

  const post = <T>(operation: string, path: string, json: object) => client.call<T>({ operation, method: "POST", path, json, shop: true });

  async function ship(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const tracking = trackingOf(delivery.shipment);
    if (tracking === "") throw refusal("TikTok", "needs a tracking number to ship a package the seller ships (ShipPackage's self_shipment)");
    const provider = providerFor(delivery.shipment.carrier, settings.shippingProviders ?? {}, settings.shippingProviderId ?? null);
    if (provider === null) {
      throw refusal(
        "TikTok",
        `has no shipping_provider_id for carrier ${JSON.stringify(delivery.shipment.carrier ?? "")}: add it to the source's shippingProviders or set ` +
          `shippingProviderId`,
      );
    }
    const order = await currentOrder(delivery);
    const orderId = order.id!;
    if (order.status === "CANCELLED") throw refusal("TikTok", `order ${orderId} is cancelled on TikTok: nothing was shipped`);
    const wanted = delivery.shipment.lines.map((l) => l.sourceLineId);
    let plan = shipmentPlan(order, wanted, tracking);
    if (plan.unknown.length === wanted.length && coversOrder(delivery)) {
      // None of the lines is a TikTok line item (an order the seller's system inserted and the
      // import claimed keeps the client's lines): the whole order's line items are shipped.
      plan = shipmentPlan(
        order,
        (order.line_items ?? []).map((l) => l.id ?? ""),
        tracking,
      );
    }
    if (plan.unknown.length > 0) throw refusal("TikTok", `order ${orderId} has no line items ${plan.unknown.join(", ")}`);
    const warnings: string[] = [];
    if (plan.cancelled.length > 0) warnings.push(`line items ${plan.cancelled.join(", ")} are cancelled on TikTok and were not shipped`);
    const selfShipment: TiktokShipPackage = { self_shipment: { tracking_number: tracking, shipping_provider_id: provider } };
    const shipped: string[] = [];

    const open = plan.ship.length + plan.split.length + plan.unpackaged.length;
    if (open === 0) {
      if (plan.correct.length === 0) {
        return {
          state: "delivered",
          reference: null,
          warning: [
            ...warnings,
            plan.done.length > 0 ? "TikTok already had this tracking number (an earlier attempt reached it); nothing sent again" : "nothing left to ship",
          ].join("; "),
        };
      }
      // Nothing left to ship: the tracking number of what was shipped is corrected (TikTok allows it within 72 hours of shipping).
      for (const packageId of plan.correct) {
        await post("UpdatePackageShippingInfo", `/fulfillment/202309/packages/${packageId}/shipping_info/update`, {
          tracking_number: tracking,
          shipping_provider_id: provider,
        } satisfies TiktokShippingInfoUpdate);
        shipped.push(packageId);
      }
      return {
        state: "delivered",
        reference: shipped.join(","),
        warning: [...warnings, `tracking number corrected on package ${shipped.join(", ")}`].join("; "),
      };
    }
    for (const packageId of plan.ship) {
      await post("ShipPackage", `/fulfillment/202309/packages/${packageId}/ship`, selfShipment);
      shipped.push(packageId);
    }
    for (const [i, group] of plan.split.entries()) {
      // The group's id is the developer's own label (the hub's package id, the same on every retry);
      // TikTok answers the new package's id under it.
      const groupId = `${delivery.shipment.shipmentId ?? delivery.id}-${i + 1}`;
      const answer = await post<{ packages?: { id?: string; splittable_group_id?: string }[] } | null>(
        "SplitOrders",
        `/fulfillment/202309/orders/${orderId}/split`,
        {
          splittable_groups: [{ id: groupId, order_line_item_ids: group.lineIds }],
        },
      );
      const made = answer?.packages?.find((p) => p?.splittable_group_id === groupId) ?? answer?.packages?.[0];
      const packageId = idOf(made?.id);
      if (packageId === null)
        throw new MarketplaceError(`TikTok SplitOrders answer for order ${orderId} names no new package; the next attempt reads the order again`, 200, true);
      await post("ShipPackage", `/fulfillment/202309/packages/${packageId}/ship`, selfShipment);
      shipped.push(packageId);
    }
    if (plan.unpackaged.length > 0) {
      const answer = await post<{ package_id?: string; warning?: { message?: string } } | null>(
        "MarkPackageAsShipped",
        `/fulfillment/202309/orders/${orderId}/packages`,
        {
          order_line_item_ids: plan.unpackaged,
          tracking_number: tracking,
          shipping_provider_id: provider,
        },
      );
      if (typeof answer?.warning?.message === "string" && answer.warning.message.trim() !== "")
        warnings.push(`TikTok: ${answer.warning.message.trim().slice(0, 200)}`);
      shipped.push(idOf(answer?.package_id) ?? tracking);
    }
    return { state: "delivered", reference: shipped.join(","), warning: warnings.join("; ") || null };
  }

  async function cancel(delivery: CancelDelivery): Promise<DeliveryOutcome> {
    const order = await currentOrder(delivery);
    const orderId = order.id!;
    if (order.status === "CANCELLED") return { state: "delivered", reference: null, warning: "TikTok already shows the order cancelled; nothing sent" };
    const lines = Array.isArray(order.line_items) ? order.line_items : [];
    if (delivery.lines) return cancelLines(delivery, orderId, lines);
    const open = lines
      .filter((l) => lineState(l) === "open")
      .map((l) => l.id!)
      .filter((id) => idOf(id) !== null);
    if (open.length === 0) throw refusal("TikTok", `order ${orderId} has no line item left to cancel: every one is shipped or cancelled`);
    // The whole order when nothing of it shipped; else the line items still open (what the hub's
    // whole-order cancellation means once part of it is shipped).
    return sendCancel(
      orderId,
      open.length < lines.length ? open : null,
      open.length < lines.length ? `only the line items not shipped were cancelled (${open.join(", ")})` : null,
    );
  }

  /**
   * A line cancellation (decisions 12): exactly the line items named, each a unit of its own on
   * TikTok. One TikTok shows cancelled already is not sent again; a shipped or unknown one refuses
   * the whole delivery, so nothing more or less than asked is ever cancelled.
   */
  async function cancelLines(delivery: CancelDelivery, orderId: string, lines: TiktokLineItem[]): Promise<DeliveryOutcome> {
    const byId = new Map(lines.filter((l) => idOf(l?.id) !== null).map((l) => [l.id!, l] as const));
    const named = [...new Set(delivery.lines!.filter((l) => l.quantity > 0).map((l) => l.sourceLineId))];
    const unknown = named.filter((id) => !byId.has(id));
    if (unknown.length > 0) throw refusal("TikTok", `order ${orderId} has no line items ${unknown.join(", ")}`);
    const tooMany = delivery.lines!.filter((l) => l.quantity > 1).map((l) => l.sourceLineId);
    if (tooMany.length > 0) throw refusal("TikTok", `order ${orderId}: a TikTok line item is one unit, and more than one was asked of ${tooMany.join(", ")}`);
    const shipped = named.filter((id) => lineState(byId.get(id)!) === "shipped");
    if (shipped.length > 0) throw refusal("TikTok", `order ${orderId}: line items ${shipped.join(", ")} are shipped on TikTok and cannot be cancelled`);
    const open = named.filter((id) => lineState(byId.get(id)!) === "open");
    if (open.length === 0) return { state: "delivered", reference: null, warning: "TikTok already shows these line items cancelled; nothing sent" };
    const already = named.length - open.length;
    return sendCancel(orderId, open, already > 0 ? `${already} line item(s) were cancelled on TikTok already` : null);
  }

  async function sendCancel(orderId: string, lineIds: string[] | null, note: string | null): Promise<DeliveryOutcome> {
    const body: TiktokCancelOrder = { order_id: orderId, cancel_reason: settings.cancelReason };
    // TikTok takes line cancellations (order_line_item_ids) in the US and UK.
    if (lineIds !== null) body.order_line_item_ids = lineIds;
    const answer = await post<TiktokCancelAnswer | null>("CancelOrder", "/return_refund/202309/cancellations", body);
    const status = typeof answer?.cancel_status === "string" ? answer.cancel_status : null;
    const pending = status === "CANCELLATION_REQUEST_PENDING";
    return {
      state: "delivered",
      reference: typeof answer?.cancel_id === "string" ? answer.cancel_id : null,
      warning: [note, pending ? "TikTok holds the cancellation as pending (CANCELLATION_REQUEST_PENDING)" : null].filter(Boolean).join("; ") || null,
    };
  }

  /** Whether the shipment covers every quantity of every line of the order it names. */
  function coversOrder(delivery: ShipDelivery): boolean {
    const sent = new Map(delivery.shipment.lines.map((l) => [l.sourceLineId, l.quantity]));
    return delivery.order.lines.every((l) => (sent.get(l.sourceLineId) ?? 0) >= l.quantity);
  }

  function notApplicable(delivery: Delivery): string | null {
    if (delivery.kind === "acknowledge") return NO_ACKNOWLEDGEMENT;
    if (delivery.kind === "ship") return shippedByTiktok(delivery.order.sourceData);
    return null;
  }

  const afterSale = tiktokReturns(client);

  return {
    capabilities: CAPABILITIES,
    fetchOrders,
    remap: (record) => readOrder(tiktokOrderReader, record),
    notApplicable,
    async acknowledge() {
      return { state: "notApplicable", reason: NO_ACKNOWLEDGEMENT };
    },
    ship,
    cancel,
    listings: tiktokListings({ client, storage, warehouseId: settings.warehouseId ?? null, now: () => ctx.now().getTime() }),
    returns: afterSale.returns,
    refund: afterSale.refund,
    receiveReturn: afterSale.receiveReturn,
    decideReturn: afterSale.decideReturn,
  };
}
