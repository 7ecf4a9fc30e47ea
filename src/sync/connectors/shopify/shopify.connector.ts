// Shopify through its GraphQL Admin API (2026-01), built from the schema extract and the notes in
// ../shared/reference/shopify/ and ../shared/reference/README.md. The REST Admin API is legacy and
// not used. Import pages `orders` by updated_at; a shipment becomes fulfillmentCreate over the
// order's open fulfillment orders (or fulfillmentTrackingInfoUpdate when it corrects an earlier
// one); a cancellation is orderCancel, a job the delivery waits for; there is no acknowledgement.
import { z } from "zod";
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
} from "../../connector";
import { connectorSettings, httpsUrl } from "../settings";
import { readJsonAnswer, retryAfterMs, sendToMarketplace } from "../marketplace-http";
import type { SourceStorage } from "../storage";
import {
  MAX_LINES_PER_ORDER,
  describeUserErrors,
  earlierFulfillmentIds,
  fulfillmentsWithTracking,
  hasTracking,
  isSetAside,
  mapShopifyOrder,
  orderGidOf,
  ordersSearchQuery,
  planFulfillment,
  trackingInputOf,
  type FulfillmentOrderState,
} from "./shopify.mapping";
import { bucketFrom, waitForCostMs, type BucketEstimate } from "./shopify.throttle";
import { shopifyListings } from "./shopify.listings";
import {
  SHOPIFY_CANCEL_REASONS,
  type ShopifyAnswer,
  type ShopifyFulfillment,
  type ShopifyFulfillmentCreateData,
  type ShopifyFulfillmentInput,
  type ShopifyFulfillmentOrderLineItem,
  type ShopifyFulfillmentOrderLinesData,
  type ShopifyFulfillmentStateData,
  type ShopifyGraphqlError,
  type ShopifyOrder,
  type ShopifyOrderCancelData,
  type ShopifyOrderCancelledData,
  type ShopifyOrderLinesData,
  type ShopifyPageInfo,
  type ShopifyOrdersData,
  type ShopifyTrackingInput,
  type ShopifyTrackingUpdateData,
  type ShopifyUserError,
} from "./shopify.types";

export const SHOPIFY_DEFAULT_API_VERSION = "2026-01";

export const shopifySettingsSchema = z.strictObject({
  shopDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,99}\.myshopify\.com$/, "must be the shop's permanent domain, <shop>.myshopify.com"),
  // An Admin API access token of a custom app (shown once when the app is installed).
  accessToken: z
    .string()
    .trim()
    .min(1, "is required: the Admin API access token of the shop's custom app")
    .max(200, "is at most 200 characters")
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces"),
  // The queries below are written against 2026-01; a later version may be set once it is tested.
  apiVersion: z
    .string()
    .regex(/^\d{4}-(01|04|07|10)$/, "must be a Shopify API version such as 2026-01 (YYYY-01, -04, -07 or -10)")
    .default(SHOPIFY_DEFAULT_API_VERSION),
  // Where to send calls instead of https://<shopDomain> (a test double); https only, since the
  // access token rides in every call.
  baseUrl: httpsUrl().optional(),
  /** Shopify emails the buyer on a fulfillment or tracking change. Off: the seller's system usually does. */
  notifyCustomer: z.boolean().default(false),
  /** OrderCancelReason sent with every cancellation (the service's own reason goes in the staff note). */
  cancelReason: z.enum(SHOPIFY_CANCEL_REASONS).default("OTHER"),
  /** Refund the buyer's payment to its original methods on cancellation. */
  cancelRefund: z.boolean().default(false),
  /** Put the cancelled units back in stock. */
  cancelRestock: z.boolean().default(false),
  /** The location (gid://shopify/Location/...) whose stock this source sets; needed when the shop has several. */
  locationId: z.string().regex(/^gid:\/\/shopify\/Location\/\d+$/, "must be a location id such as gid://shopify/Location/123").optional(),
  /** Shopify emails the buyer when the order is cancelled. */
  cancelNotifyCustomer: z.boolean().default(false),
});
export type ShopifySettings = z.output<typeof shopifySettingsSchema>;

const TIMEOUT_MS = 15_000;
/** The connector sleeps for the bucket at most this long at a time; a longer wait is the core's. */
const MAX_PACING_WAIT_MS = 10_000;
const MAX_THROTTLED_TRIES = 3;
/** Shopify refuses any single query dearer than this (MAX_COST_EXCEEDED): the most a call can need. */
const MAX_QUERY_COST = 1000;
/** Where each operation's requested cost is remembered from cycle to cycle. */
const COSTS_KEY = "shopify:query-costs";
/** A cancellation job that has not cancelled the order by then is reported as failed. */
const CANCEL_JOB_TIMEOUT_MS = 60 * 60_000;

// Page sizes keep the requested cost of each query well under Shopify's 1,000-point ceiling for a
// single query (the cost counts `first` of every nested connection, multiplied).
const ORDERS_PER_PAGE = 10;
const LINES_PER_ORDER = 5;
const MORE_LINES_PER_PAGE = 50;
const FULFILLMENT_ORDERS_PER_PAGE = 5;
const FULFILLMENT_ORDER_LINES = 50;
const FULFILLMENTS_PER_ORDER = 20;

const MONEY = "shopMoney { amount }";
const LINE_FIELDS = `fragment ShopifyLine on LineItem {
  id sku name quantity
  originalUnitPriceSet { ${MONEY} }
  discountAllocations { allocatedAmountSet { ${MONEY} } }
  taxLines { priceSet { ${MONEY} } }
}`;

export const ORDERS_QUERY = `query ShopifyOrders($query: String!, $after: String) {
  orders(first: ${ORDERS_PER_PAGE}, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id legacyResourceId name createdAt cancelledAt email phone
      displayFulfillmentStatus paymentGatewayNames
      subtotalPriceSet { ${MONEY} }
      totalPriceSet { ${MONEY} }
      shippingAddress {
        firstName lastName name company address1 address2 city province provinceCode zip country countryCodeV2 phone
      }
      shippingLine { title code discountedPriceSet { ${MONEY} } taxLines { priceSet { ${MONEY} } } }
      lineItems(first: ${LINES_PER_ORDER}) { pageInfo { hasNextPage endCursor } nodes { ...ShopifyLine } }
    }
  }
}
${LINE_FIELDS}`;

export const ORDER_LINES_QUERY = `query ShopifyOrderLines($id: ID!, $after: String) {
  order(id: $id) {
    lineItems(first: ${MORE_LINES_PER_PAGE}, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...ShopifyLine } }
  }
}
${LINE_FIELDS}`;

const FO_LINE_FIELDS = "id sku remainingQuantity lineItem { id }";

export const FULFILLMENT_STATE_QUERY = `query ShopifyFulfillmentState($id: ID!, $after: String) {
  order(id: $id) {
    cancelledAt
    fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PER_PAGE}, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id status supportedActions { action }
        lineItems(first: ${FULFILLMENT_ORDER_LINES}) { pageInfo { hasNextPage endCursor } nodes { ${FO_LINE_FIELDS} } }
      }
    }
    fulfillments(first: ${FULFILLMENTS_PER_ORDER}) { id status trackingInfo(first: 5) { number company } }
  }
}`;

export const FULFILLMENT_ORDER_LINES_QUERY = `query ShopifyFulfillmentOrderLines($id: ID!, $after: String) {
  fulfillmentOrder(id: $id) {
    lineItems(first: ${MORE_LINES_PER_PAGE}, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${FO_LINE_FIELDS} } }
  }
}`;

export const FULFILLMENT_CREATE_MUTATION = `mutation ShopifyFulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id }
    userErrors { field message }
  }
}`;

export const TRACKING_UPDATE_MUTATION = `mutation ShopifyTrackingUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
    fulfillment { id }
    userErrors { field message }
  }
}`;

export const ORDER_CANCEL_MUTATION = `mutation ShopifyOrderCancel($orderId: ID!, $reason: OrderCancelReason!, $restock: Boolean!, $refundMethod: OrderCancelRefundMethodInput, $notifyCustomer: Boolean, $staffNote: String) {
  orderCancel(orderId: $orderId, reason: $reason, restock: $restock, refundMethod: $refundMethod, notifyCustomer: $notifyCustomer, staffNote: $staffNote) {
    job { id }
    orderCancelUserErrors { field message code }
  }
}`;

export const ORDER_CANCELLED_QUERY = `query ShopifyOrderCancelled($id: ID!) {
  order(id: $id) { cancelledAt }
}`;

const ACKNOWLEDGE_REASON =
  "Shopify has no acknowledgement of an order: its orders are open for fulfilment as they arrive";

// Top-level error codes worth another try (THROTTLED has its own path); anything else (a schema
// error, ACCESS_DENIED, MAX_COST_EXCEEDED) answers the same way every time.
const RETRYABLE_CODES = new Set(["INTERNAL_SERVER_ERROR"]);

export interface ShopifyConnectorOptions {
  /** How the connector waits for its bucket to refill (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createShopifyConnector(
  ctx: ConnectorContext,
  storage: SourceStorage,
  options: ShopifyConnectorOptions = {},
): Connector {
  const settings = connectorSettings(shopifySettingsSchema, ctx, "Shopify");
  const sleep = options.sleep ?? realSleep;
  const endpoint = `${settings.baseUrl ?? `https://${settings.shopDomain}`}/admin/api/${settings.apiVersion}/graphql.json`;
  const now = () => ctx.now().getTime();

  let bucket: BucketEstimate | null = null;
  /**
   * The requested cost each operation last reported: what its next call will need. Kept in the
   * source's storage, so that only the very first call of an operation has to assume the worst.
   */
  const costs = new Map<string, number>(Object.entries(storage.get<Record<string, number>>(COSTS_KEY) ?? {}));

  function learnCost(operation: string, cost: number): void {
    if (costs.get(operation) === cost) return;
    costs.set(operation, cost);
    storage.put(COSTS_KEY, Object.fromEntries(costs));
  }

  /** Waits until the bucket holds what this operation costs, so the call is not THROTTLED. */
  async function pace(operation: string): Promise<void> {
    const expected = costs.get(operation) ?? MAX_QUERY_COST;
    const wait = waitForCostMs(bucket, now(), expected);
    if (wait === 0) return;
    if (wait > MAX_PACING_WAIT_MS) {
      throw new MarketplaceError(`Shopify ${operation}: the shop's query budget refills in ${Math.ceil(wait / 1000)} s`, null, true, wait);
    }
    await sleep(wait);
  }

  async function graphql<T>(operation: string, query: string, variables: Record<string, unknown>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await pace(operation);
      const response = await sendToMarketplace({
        marketplace: "Shopify",
        fetch: ctx.fetch,
        method: "POST",
        url: endpoint,
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-Shopify-Access-Token": settings.accessToken,
        },
        body: JSON.stringify({ query, variables, operationName: operation }),
        timeoutMs: TIMEOUT_MS,
      });
      const receivedAt = now();
      if (!response.ok) throw await httpError(operation, response);
      const answer = (await readJsonAnswer(response, `Shopify ${operation}`)) as ShopifyAnswer<T> | null;
      const cost = answer?.extensions?.cost;
      bucket = bucketFrom(cost, receivedAt) ?? bucket;
      if (typeof cost?.requestedQueryCost === "number" && cost.requestedQueryCost >= 0) learnCost(operation, cost.requestedQueryCost);
      const errors = answer?.errors;
      if (typeof errors === "string") throw new MarketplaceError(`Shopify ${operation}: ${errors}`, response.status, false);
      if (Array.isArray(errors) && errors.length > 0) {
        if (errors.some((e) => codeOf(e) === "THROTTLED")) {
          // Retried after the time the restore rate needs to cover the refused query's cost.
          const wait = Math.max(waitForCostMs(bucket, now(), costs.get(operation) ?? 0), 1000);
          if (attempt < MAX_THROTTLED_TRIES && wait <= MAX_PACING_WAIT_MS) {
            await sleep(wait);
            continue;
          }
          throw new MarketplaceError(`Shopify ${operation}: Throttled`, response.status, true, wait);
        }
        const retryable = errors.every((e) => RETRYABLE_CODES.has(codeOf(e)));
        throw new MarketplaceError(`Shopify ${operation}: ${describeErrors(errors)}`, response.status, retryable);
      }
      if (!answer?.data || typeof answer.data !== "object") {
        throw new MarketplaceError(`Shopify ${operation}: the answer has no data`, response.status, true);
      }
      return answer.data;
    }
  }

  async function httpError(operation: string, response: Response): Promise<MarketplaceError> {
    const text = await response.text().catch(() => "");
    let detail = text.trim().slice(0, 300) || response.statusText || "no details";
    try {
      const body = JSON.parse(text) as { errors?: unknown };
      if (typeof body?.errors === "string") detail = body.errors;
      else if (Array.isArray(body?.errors)) detail = describeErrors(body.errors as ShopifyGraphqlError[]);
    } catch {
      // Not JSON (a proxy's page): the text itself is the detail.
    }
    const status = response.status;
    // Any other 4xx (a refused token or scope, a shop that is gone or closed) needs the merchant or
    // the operator; retrying cannot fix it.
    return new MarketplaceError(
      `Shopify ${operation} ${status} ${detail}`,
      status,
      status === 429 || status >= 500,
      retryAfterMs(response.headers.get("Retry-After"), ctx.now()),
    );
  }

  function userErrorsFailure(operation: string, errors: ShopifyUserError[]): MarketplaceError {
    // INTERNAL_ERROR is Shopify's own trouble (OrderCancelUserErrorCode); every other refusal stands.
    const retryable = errors.every((e) => e.code === "INTERNAL_ERROR");
    return new MarketplaceError(`Shopify ${operation} refused: ${describeUserErrors(errors)}`, 200, retryable);
  }

  function orderGid(order: DeliveryOrder): string {
    const gid = orderGidOf(order);
    if (gid === null) {
      throw new MarketplaceError(
        `Shopify order ${order.sourceOrderNumber} has no Shopify id: an order inserted under this source's name must carry Shopify's numeric order id as OrderSourceOrderNumber`,
        null,
        false,
      );
    }
    return gid;
  }

  /** Fetches the rest of an order's line items into it (the page query brings the first few). */
  async function completeLines(order: ShopifyOrder): Promise<void> {
    const lines = order.lineItems;
    if (typeof order.id !== "string" || !lines?.pageInfo?.hasNextPage) return;
    const nodes = [...arrayOf(lines.nodes)];
    let pageInfo: ShopifyPageInfo | null = lines.pageInfo;
    while (pageInfo?.hasNextPage && pageInfo.endCursor && nodes.length <= MAX_LINES_PER_ORDER) {
      const data: ShopifyOrderLinesData = await graphql("ShopifyOrderLines", ORDER_LINES_QUERY, { id: order.id, after: pageInfo.endCursor });
      const more = data.order?.lineItems;
      if (!more) break;
      nodes.push(...arrayOf(more.nodes));
      pageInfo = more.pageInfo ?? null;
    }
    order.lineItems = { pageInfo: { hasNextPage: Boolean(pageInfo?.hasNextPage), endCursor: pageInfo?.endCursor ?? null }, nodes };
  }

  interface FulfillmentState {
    cancelledAt: string | null;
    fulfillmentOrders: FulfillmentOrderState[];
    fulfillments: ShopifyFulfillment[];
  }

  async function fulfillmentState(gid: string, label: string): Promise<FulfillmentState> {
    const state: FulfillmentState = { cancelledAt: null, fulfillmentOrders: [], fulfillments: [] };
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
    const plan = planFulfillment(order, shipment, state.fulfillmentOrders);
    if (plan.unknownLines.length > 0) {
      throw new MarketplaceError(`Shopify order ${label} has no line item ${plan.unknownLines.join(", ")}`, 200, false);
    }
    if (plan.refused.length > 0) {
      const fo = plan.refused[0]!;
      throw new MarketplaceError(
        `Shopify order ${label}: fulfillment order ${fo.fulfillmentOrderId} (${fo.status}) cannot be fulfilled by this app (another fulfillment service holds it)`,
        200,
        false,
      );
    }
    if (plan.waiting.length > 0) {
      // On hold or scheduled: the merchant or Shopify releases it later; the whole shipment waits.
      const fo = plan.waiting[0]!;
      throw new MarketplaceError(`Shopify order ${label}: fulfillment order ${fo.fulfillmentOrderId} is ${fo.status}`, 200, true);
    }
    const tracking = trackingInputOf(shipment);
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
    const earlier = earlierFulfillmentIds(delivery.earlier);
    if (earlier.length > 0) {
      if (tracking) {
        for (const id of earlier) {
          if (!hasTracking(state.fulfillments.find((f) => f.id === id), tracking)) await updateTracking(id, tracking);
        }
      }
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

  return {
    capabilities: { acknowledge: false, ship: true, shipLines: true, cancel: true, cancelLines: false },
    listings: shopifyListings({ graphql, locationId: settings.locationId }),

    async fetchOrders(window: ImportWindow, cursor: string | null): Promise<OrderPage> {
      const data = await graphql<ShopifyOrdersData>("ShopifyOrders", ORDERS_QUERY, { query: ordersSearchQuery(window), after: cursor });
      const connection = data.orders;
      if (!connection || !Array.isArray(connection.nodes)) {
        throw new MarketplaceError("Shopify ShopifyOrders: the answer has no orders", 200, true);
      }
      const page: OrderPage = { orders: [], setAside: [], nextCursor: null };
      for (const node of connection.nodes) {
        if (typeof node !== "object" || node === null || Array.isArray(node)) {
          throw new MarketplaceError("Shopify ShopifyOrders: the answer lists something that is not an order", 200, true);
        }
        await completeLines(node);
        const mapped = mapShopifyOrder(node);
        if (isSetAside(mapped)) page.setAside.push(mapped);
        else page.orders.push(mapped);
      }
      const end = connection.pageInfo?.endCursor;
      page.nextCursor = connection.pageInfo?.hasNextPage === true && typeof end === "string" && end !== "" ? end : null;
      return page;
    },

    remap: (record: unknown) => mapShopifyOrder((record ?? {}) as ShopifyOrder),

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

function codeOf(error: ShopifyGraphqlError): string {
  const code = error?.extensions?.code;
  return typeof code === "string" ? code : "";
}

function describeErrors(errors: ShopifyGraphqlError[]): string {
  const parts = errors.map((e) => {
    const code = codeOf(e);
    return `${e?.message ?? "error"}${code ? ` (${code})` : ""}`;
  });
  return parts.join("; ") || "unknown error";
}
