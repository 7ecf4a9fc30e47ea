// Shopify through its GraphQL Admin API (2026-01), built from the schema extract and the notes in
// ../shared/reference/shopify/ and ../shared/reference/README.md. The REST Admin API is legacy and
// not used. Import pages `orders` by updated_at; a shipment becomes fulfillmentCreate over the
// order's open fulfillment orders (or fulfillmentTrackingInfoUpdate when it corrects an earlier
// one); a cancellation is orderCancel, a job the delivery waits for; there is no acknowledgement.
// An order whose lines Shopify's admin fulfilled, refunded or removed is read once more
// (ShopifyOrderProgress) for its packages, counts and refunds, which are imported and never sent
// back; not again while the page shows it unchanged since that read (shopify.progress.ts). Its
// documents are shopify.graphql.ts's, each call goes through shopify.client.ts. Returns in,
// refunds out and the seller's decision on a requested return are shopify.returns.ts's.
import {
  MarketplaceError,
  type CancelDelivery,
  type Connector,
  type ConnectorContext,
  type Delivery,
  type DeliveryOrder,
  type DeliveryOutcome,
  type ImportWindow,
  type OrderPage,
  type ShipDelivery,
  type SubmissionStatus,
} from "../connector";
import { readOrder, splitPage, Unmappable, type OrderReader } from "../kit/orders-page";
import { pageGuard } from "../kit/paging";
import { connectorSettings } from "../kit/settings";
import type { SourceStorage } from "../storage";
import { shopifyGraphql } from "./shopify.client";
import { shopifyListings } from "./shopify.listings";
import { progressReads, progressSeen, type ProgressSeen } from "./shopify.progress";
import { shopifyReturns } from "./shopify.returns";
import {
  FULFILLMENT_CREATE_MUTATION,
  FULFILLMENT_ORDER_LINES_QUERY,
  FULFILLMENT_STATE_QUERY,
  ORDER_CANCEL_MUTATION,
  ORDER_CANCELLED_QUERY,
  ORDER_LINES_QUERY,
  ORDER_PROGRESS_QUERY,
  ORDERS_QUERY,
  TRACKING_UPDATE_MUTATION,
} from "./shopify.graphql";
import {
  MAX_LINES_PER_ORDER,
  describeUserErrors,
  earlierFulfillmentIds,
  ownFulfillmentIds,
  fulfillmentsWithTracking,
  hasTracking,
  needsProgress,
  orderGidOf,
  ordersSearchQuery,
  planFulfillment,
  shopifyOrderReader,
  trackingInputOf,
  type FulfillmentOrderState,
} from "./shopify.mapping";
import { shopifySettingsSchema } from "./shopify.settings";
import type {
  ShopifyFulfillment,
  ShopifyFulfillmentCreateData,
  ShopifyFulfillmentInput,
  ShopifyFulfillmentOrderLineItem,
  ShopifyFulfillmentOrderLinesData,
  ShopifyFulfillmentStateData,
  ShopifyOrder,
  ShopifyOrderCancelData,
  ShopifyOrderCancelledData,
  ShopifyOrderLinesData,
  ShopifyOrderProgressData,
  ShopifyPageInfo,
  ShopifyOrdersData,
  ShopifyTrackingInput,
  ShopifyTrackingUpdateData,
  ShopifyUserError,
} from "./shopify.types";

/** A cancellation job that has not cancelled the order by then is reported as failed. */
const CANCEL_JOB_TIMEOUT_MS = 60 * 60_000;
/** Pages of an order's fulfilment state (5 fulfillment orders, or 50 of one's lines, a page) one shipment reads at most. */
const MAX_FULFILLMENT_STATE_PAGES = 40;
/** Pages of more line items one order reads at most (50 a page; the order is set aside past 500 lines). */
const MAX_LINE_PAGES = 12;

const ACKNOWLEDGE_REASON = "Shopify has no acknowledgement of an order: its orders are open for fulfilment as they arrive";

export interface ShopifyConnectorOptions {
  /** How the connector waits for its bucket to refill (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createShopifyConnector(ctx: ConnectorContext, storage: SourceStorage, options: ShopifyConnectorOptions = {}): Connector {
  const settings = connectorSettings(shopifySettingsSchema, ctx, "Shopify");
  const sleep = options.sleep ?? realSleep;
  const now = () => ctx.now().getTime();
  const graphql = shopifyGraphql(ctx, storage, settings, sleep);

  function userErrorsFailure(operation: string, errors: ShopifyUserError[]): MarketplaceError {
    // INTERNAL_ERROR is Shopify's own trouble (OrderCancelUserErrorCode); every other refusal stands.
    const retryable = errors.every((e) => e.code === "INTERNAL_ERROR");
    return new MarketplaceError(`Shopify ${operation} refused: ${describeUserErrors(errors)}`, 200, retryable);
  }

  function orderGid(order: DeliveryOrder): string {
    const gid = orderGidOf(order);
    if (gid === null) {
      throw new MarketplaceError(
        `Shopify order ${order.sourceOrderNumber} has no Shopify id: an order inserted under this source's name must carry Shopify's numeric order id as ` +
          `OrderSourceOrderNumber`,
        null,
        false,
      );
    }
    return gid;
  }

  /**
   * Fetches the rest of an order's line items into it (the page query brings the first few).
   * Answers why they cannot all be read (a next-page cursor that repeats or never ends), else null.
   */
  async function completeLines(order: ShopifyOrder): Promise<string | null> {
    const lines = order.lineItems;
    if (typeof order.id !== "string" || !lines?.pageInfo?.hasNextPage) return null;
    const nodes = [...arrayOf(lines.nodes)];
    let pageInfo: ShopifyPageInfo | null = lines.pageInfo;
    const nextPage = pageGuard(`Shopify order ${order.id}'s line items`, MAX_LINE_PAGES);
    let unreadable: string | null = null;
    while (pageInfo?.hasNextPage && pageInfo.endCursor && nodes.length <= MAX_LINES_PER_ORDER) {
      try {
        nextPage(pageInfo.endCursor);
      } catch (error) {
        unreadable = (error as Error).message;
        break;
      }
      const data: ShopifyOrderLinesData = await graphql("ShopifyOrderLines", ORDER_LINES_QUERY, { id: order.id, after: pageInfo.endCursor });
      const more = data.order?.lineItems;
      if (!more) break;
      nodes.push(...arrayOf(more.nodes));
      pageInfo = more.pageInfo ?? null;
    }
    order.lineItems = { pageInfo: { hasNextPage: Boolean(pageInfo?.hasNextPage), endCursor: pageInfo?.endCursor ?? null }, nodes };
    return unreadable;
  }

  /**
   * Reads the packages and refunds Shopify's admin made on an order (one ShopifyOrderProgress
   * call) into it, for the mapping; the answer is read, never trusted. Whether both lists were read.
   */
  async function readProgress(id: string, order: ShopifyOrder): Promise<boolean> {
    const data: ShopifyOrderProgressData = await graphql("ShopifyOrderProgress", ORDER_PROGRESS_QUERY, { id });
    const progress = data.order;
    // An answer without both lists reads as nothing by line: an empty list would say "no refunds"
    // and turn a returned unit into a cancelled one.
    if (!Array.isArray(progress?.fulfillments) || !Array.isArray(progress.refunds)) return false;
    order.fulfillments = progress.fulfillments;
    order.refunds = progress.refunds;
    return true;
  }

  const progress = progressReads(storage);

  interface FulfillmentState {
    cancelledAt: string | null;
    fulfillmentOrders: FulfillmentOrderState[];
    fulfillments: ShopifyFulfillment[];
  }

  async function fulfillmentState(gid: string, label: string): Promise<FulfillmentState> {
    const state: FulfillmentState = { cancelledAt: null, fulfillmentOrders: [], fulfillments: [] };
    const nextPage = pageGuard(`Shopify order ${label}'s fulfillment orders`, MAX_FULFILLMENT_STATE_PAGES);
    let after: string | null = null;
    do {
      const data: ShopifyFulfillmentStateData = await graphql("ShopifyFulfillmentState", FULFILLMENT_STATE_QUERY, { id: gid, after });
      const order = data.order;
      if (!order) throw new MarketplaceError(`Shopify has no order ${label} (${gid})`, 200, false);
      state.cancelledAt = order.cancelledAt ?? null;
      state.fulfillments = arrayOf(order.fulfillments).filter((f) => typeof f === "object" && f !== null);
      const connection = order.fulfillmentOrders;
      for (const fo of arrayOf(connection?.nodes)) {
        if (typeof fo?.id !== "string") continue;
        const lines = [...arrayOf(fo.lineItems?.nodes)];
        let pageInfo = fo.lineItems?.pageInfo ?? null;
        while (pageInfo?.hasNextPage && pageInfo.endCursor) {
          nextPage(`${fo.id} ${pageInfo.endCursor}`);
          const more: ShopifyFulfillmentOrderLinesData = await graphql("ShopifyFulfillmentOrderLines", FULFILLMENT_ORDER_LINES_QUERY, {
            id: fo.id,
            after: pageInfo.endCursor,
          });
          lines.push(...arrayOf(more.fulfillmentOrder?.lineItems?.nodes));
          pageInfo = more.fulfillmentOrder?.lineItems?.pageInfo ?? null;
        }
        state.fulfillmentOrders.push({
          id: fo.id,
          status: fo.status ?? "",
          actions: arrayOf(fo.supportedActions).map((a) => String(a?.action ?? "")),
          lines: lines
            .filter((l): l is ShopifyFulfillmentOrderLineItem & { id: string } => typeof l?.id === "string")
            .map((l) => ({
              id: l.id,
              sku: typeof l.sku === "string" ? l.sku : "",
              remainingQuantity: Number.isInteger(l.remainingQuantity) ? (l.remainingQuantity as number) : 0,
              lineItemId: typeof l.lineItem?.id === "string" ? l.lineItem.id : "",
            })),
        });
      }
      after = connection?.pageInfo?.hasNextPage ? (connection.pageInfo.endCursor ?? null) : null;
      if (after !== null) nextPage(after);
    } while (after !== null);
    return state;
  }

  async function createFulfillment(input: ShopifyFulfillmentInput): Promise<string> {
    const data = await graphql<ShopifyFulfillmentCreateData>("ShopifyFulfillmentCreate", FULFILLMENT_CREATE_MUTATION, { fulfillment: input });
    const payload = data.fulfillmentCreate;
    if (payload?.userErrors?.length) throw userErrorsFailure("fulfillmentCreate", payload.userErrors);
    const id = payload?.fulfillment?.id;
    if (!id) throw new MarketplaceError("Shopify fulfillmentCreate: the answer names no fulfillment", 200, true);
    return id;
  }

  async function updateTracking(fulfillmentId: string, tracking: ShopifyTrackingInput): Promise<void> {
    const data = await graphql<ShopifyTrackingUpdateData>("ShopifyTrackingUpdate", TRACKING_UPDATE_MUTATION, {
      fulfillmentId,
      trackingInfoInput: tracking,
      notifyCustomer: settings.notifyCustomer,
    });
    const payload = data.fulfillmentTrackingInfoUpdate;
    if (payload?.userErrors?.length) throw userErrorsFailure("fulfillmentTrackingInfoUpdate", payload.userErrors);
  }

  async function ship(delivery: ShipDelivery): Promise<DeliveryOutcome> {
    const { order, shipment } = delivery;
    const label = order.sourceCustomerOrderNumber ?? order.sourceOrderNumber;
    const gid = orderGid(order);
    const state = await fulfillmentState(gid, label);
    if (state.cancelledAt) {
      throw new MarketplaceError(`Shopify order ${label} was cancelled in Shopify at ${state.cancelledAt}: there is nothing to fulfil`, 200, false);
    }
    const tracking = trackingInputOf(shipment);
    /** Fulfillments of this shipment from before get its tracking where they lack it. */
    const retrack = async (ids: string[]) => {
      if (!tracking) return;
      const found = (id: string) => state.fulfillments.find((f) => f.id === id);
      for (const id of ids.filter((id) => !hasTracking(found(id), tracking))) await updateTracking(id, tracking);
    };
    // A correction of a package already delivered (the same shipmentId): its own fulfillments get
    // the new tracking, and nothing else is created, even while units of its lines are still open
    // for a later package.
    const own = ownFulfillmentIds(delivery.earlier, shipment.shipmentId);
    if (own.length > 0) {
      await retrack(own);
      return { state: "delivered", reference: own.join(" ") };
    }
    const plan = planFulfillment(order, shipment, state.fulfillmentOrders);
    if (plan.unknownLines.length > 0) {
      throw new MarketplaceError(`Shopify order ${label} has no line item ${plan.unknownLines.join(", ")}`, 200, false);
    }
    if (plan.refused.length > 0) {
      const fo = plan.refused[0]!;
      throw new MarketplaceError(
        `Shopify order ${label}: fulfillment order ${fo.fulfillmentOrderId} (${fo.status}) cannot be fulfilled by this app (another fulfillment service ` +
          `holds it)`,
        200,
        false,
      );
    }
    if (plan.waiting.length > 0) {
      // On hold or scheduled: the merchant or Shopify releases it later; the whole shipment waits.
      const fo = plan.waiting[0]!;
      throw new MarketplaceError(`Shopify order ${label}: fulfillment order ${fo.fulfillmentOrderId} is ${fo.status}`, 200, true);
    }
    if (plan.creates.length > 0) {
      const created: string[] = [];
      for (const create of plan.creates) {
        created.push(
          await createFulfillment({
            lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: create.fulfillmentOrderId, fulfillmentOrderLineItems: create.lines }],
            notifyCustomer: settings.notifyCustomer,
            ...(tracking ? { trackingInfo: tracking } : {}),
          }),
        );
      }
      // Fulfillments of this shipment created by an earlier try whose answer was lost belong to it too.
      const before = fulfillmentsWithTracking(state.fulfillments, tracking?.number).filter((id) => !created.includes(id));
      return {
        state: "delivered",
        reference: [...before, ...created].join(" "),
        warning: plan.doneUnits > 0 ? `${plan.doneUnits} unit(s) of the shipment were already fulfilled in Shopify` : null,
      };
    }
    // Nothing of the shipment is open any more: a corrected shipment, a repeat, or fulfilled in Shopify.
    const earlier = earlierFulfillmentIds(delivery.earlier, shipment.shipmentId);
    if (earlier.length > 0) {
      await retrack(earlier);
      return { state: "delivered", reference: earlier.join(" ") };
    }
    const repeat = fulfillmentsWithTracking(state.fulfillments, tracking?.number);
    if (repeat.length > 0) return { state: "delivered", reference: repeat.join(" ") };
    return {
      state: "delivered",
      reference: null,
      warning: "Shopify shows the shipment's units fulfilled already, not by this service; their tracking was left as Shopify has it",
    };
  }

  async function cancelledAt(gid: string, label: string): Promise<string | null> {
    const data = await graphql<ShopifyOrderCancelledData>("ShopifyOrderCancelled", ORDER_CANCELLED_QUERY, { id: gid });
    if (!data.order) throw new MarketplaceError(`Shopify has no order ${label} (${gid})`, 200, false);
    return data.order.cancelledAt ?? null;
  }

  async function cancel(delivery: CancelDelivery): Promise<DeliveryOutcome> {
    const { order } = delivery;
    const label = order.sourceCustomerOrderNumber ?? order.sourceOrderNumber;
    const gid = orderGid(order);
    // orderCancel refuses an order already cancelled; checking first also makes a repeat harmless.
    if (await cancelledAt(gid, label)) return { state: "delivered", reference: null };
    const data = await graphql<ShopifyOrderCancelData>("ShopifyOrderCancel", ORDER_CANCEL_MUTATION, {
      orderId: gid,
      reason: settings.cancelReason,
      restock: settings.cancelRestock,
      refundMethod: { originalPaymentMethodsRefund: settings.cancelRefund },
      notifyCustomer: settings.cancelNotifyCustomer,
      staffNote: delivery.reason.slice(0, 255),
    });
    const payload = data.orderCancel;
    if (payload?.orderCancelUserErrors?.length) throw userErrorsFailure("orderCancel", payload.orderCancelUserErrors);
    const job = payload?.job?.id;
    if (!job) throw new MarketplaceError("Shopify orderCancel: the answer names no job", 200, true);
    storage.put(jobKey(job), now());
    return { state: "submitted", reference: job };
  }

  async function checkSubmitted(delivery: Delivery, reference: string): Promise<SubmissionStatus> {
    const label = delivery.order.sourceCustomerOrderNumber ?? delivery.order.sourceOrderNumber;
    if (delivery.kind !== "cancel") return { state: "rejected", message: `Shopify never submits a ${delivery.kind}` };
    const at = await cancelledAt(orderGid(delivery.order), label);
    const key = jobKey(reference);
    if (at) {
      storage.delete(key);
      return { state: "delivered", reference };
    }
    // The job cannot be looked up (no `job` query in the schema); the order says whether it ran.
    const submittedAt = storage.get<number>(key) ?? now();
    storage.put(key, submittedAt);
    if (now() - submittedAt < CANCEL_JOB_TIMEOUT_MS) return { state: "pending" };
    storage.delete(key);
    return {
      state: "rejected",
      message: `Shopify's cancellation job ${reference} did not cancel order ${label} within ${CANCEL_JOB_TIMEOUT_MS / 60_000} minutes`,
    };
  }

  const returns = shopifyReturns(graphql);

  return {
    capabilities: { acknowledge: false, ship: true, shipLines: true, cancel: true, cancelLines: false },
    listings: shopifyListings({ graphql, locationId: settings.locationId }),

    async fetchOrders(window: ImportWindow, cursor: string | null): Promise<OrderPage> {
      const data = await graphql<ShopifyOrdersData>("ShopifyOrders", ORDERS_QUERY, { query: ordersSearchQuery(window), after: cursor });
      const connection = data.orders;
      if (!connection || !Array.isArray(connection.nodes)) {
        throw new MarketplaceError("Shopify ShopifyOrders: the answer has no orders", 200, true);
      }
      const nodes: ShopifyOrder[] = connection.nodes;
      const until = window.until.getTime();
      // An order whose line items cannot all be read is set aside with the reason, like any other.
      const unreadable = new Map<ShopifyOrder, string>();
      const reads: (ProgressSeen & { readAt: number })[] = [];
      for (const node of nodes) {
        if (typeof node !== "object" || node === null || Array.isArray(node)) {
          throw new MarketplaceError("Shopify ShopifyOrders: the answer lists something that is not an order", 200, true);
        }
        const why = await completeLines(node);
        if (why) {
          unreadable.set(node, why);
          continue;
        }
        // The follow-up, for an order Shopify's admin touched that changed since its last read.
        const seen = needsProgress(node) ? await progressSeen(node) : null;
        if (seen === null || progress.unchanged(seen, until)) continue;
        // The read's time is taken before it: what it saw is at least that recent.
        const readAt = now();
        if (await readProgress(seen.orderId, node)) reads.push({ ...seen, readAt });
      }
      const reader: OrderReader = {
        ...shopifyOrderReader,
        map: (record) => {
          const why = unreadable.get(record as ShopifyOrder);
          if (why) throw new Unmappable(why);
          return shopifyOrderReader.map(record);
        },
      };
      const end = connection.pageInfo?.endCursor;
      const page = splitPage(reader, nodes, "Shopify ShopifyOrders");
      // Remembered once the page is written, and only for the orders it imports and whose lines the
      // hub applied: an order set aside, or one it could not apply, is read again when it comes back.
      const numbers = new Map(page.orders.map((o) => [o.sourceData?.orderId, o.sourceOrderNumber]));
      const remembered = reads.filter((r) => numbers.has(r.orderId));
      return {
        ...page,
        nextCursor: connection.pageInfo?.hasNextPage === true && typeof end === "string" && end !== "" ? end : null,
        ...(remembered.length > 0
          ? {
              written: (unapplied: ReadonlySet<string>) =>
                progress.read(
                  remembered.filter((r) => !unapplied.has(numbers.get(r.orderId)!)),
                  until,
                ),
            }
          : {}),
      };
    },

    remap: (record: unknown) => readOrder(shopifyOrderReader, record),

    returns: returns.returns,
    refund: returns.refund,
    decideReturn: returns.decideReturn,

    notApplicable: (delivery: Delivery) => (delivery.kind === "acknowledge" ? ACKNOWLEDGE_REASON : null),

    async acknowledge() {
      return { state: "notApplicable", reason: ACKNOWLEDGE_REASON };
    },
    ship,
    cancel,
    checkSubmitted,
  };
}

function arrayOf<T>(value: T[] | null | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

function jobKey(job: string): string {
  return `shopify:cancel-job:${job}`;
}
