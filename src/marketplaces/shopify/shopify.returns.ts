// Shopify returns in, refunds out and the seller's decision on a requested return (decisions 13),
// from the Admin API 2026-01 returns-and-refunds schema extract: the documents, the pure mapping of
// an order's `returns` to the hub's returns, and the calls (refundCreate with an @idempotent key,
// returnApproveRequest, returnDeclineRequest) through the connector's GraphQL client.
import {
  MarketplaceError,
  type DeliveryOutcome,
  type ImportedReturn,
  type ImportWindow,
  type RefundDelivery,
  type ReturnDecisionDelivery,
  type ReturnPage,
  type ReturnState,
  type ReturnsImport,
} from "../connector";
import { refusal } from "../kit/marketplace-http";
import { Unmappable } from "../kit/orders-page";
import { readReturn, splitReturns, type ReturnReader } from "../kit/returns-page";
import type { ShopifyGraphql } from "./shopify.client";
import { describeUserErrors, orderGidOf, ordersSearchQuery } from "./shopify.mapping";
import type { ShopifyPageInfo, ShopifyUserError } from "./shopify.types";

// Sizes keep the query's requested cost near 500 points (5 orders x 3 returns x 10 lines).
const ORDERS_PER_PAGE = 5;
const RETURNS_PER_ORDER = 3;
const LINES_PER_RETURN = 10;

export const RETURNS_QUERY = `query ShopifyReturns($query: String!, $after: String) {
  orders(first: ${ORDERS_PER_PAGE}, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id legacyResourceId
      returns(first: ${RETURNS_PER_ORDER}) {
        pageInfo { hasNextPage }
        nodes {
          id name status createdAt
          returnLineItems(first: ${LINES_PER_RETURN}) {
            pageInfo { hasNextPage }
            nodes {
              id quantity refundedQuantity returnReasonNote
              ... on ReturnLineItem { fulfillmentLineItem { lineItem { id } } }
            }
          }
        }
      }
    }
  }
}`;

export const REFUND_CREATE_MUTATION = `mutation ShopifyRefundCreate($input: RefundInput!, $key: String!) {
  refundCreate(input: $input) @idempotent(key: $key) {
    refund { id }
    userErrors { field message }
  }
}`;

export const RETURN_APPROVE_MUTATION = `mutation ShopifyReturnApprove($input: ReturnApproveRequestInput!) {
  returnApproveRequest(input: $input) {
    return { id status }
    userErrors { field message code }
  }
}`;

export const RETURN_DECLINE_MUTATION = `mutation ShopifyReturnDecline($input: ReturnDeclineRequestInput!) {
  returnDeclineRequest(input: $input) {
    return { id status }
    userErrors { field message code }
  }
}`;

interface ShopifyReturnLine {
  id?: string | null;
  quantity?: number | null;
  refundedQuantity?: number | null;
  returnReasonNote?: string | null;
  fulfillmentLineItem?: { lineItem?: { id?: string | null } | null } | null;
}

interface ShopifyReturn {
  id?: string | null;
  name?: string | null;
  status?: string | null;
  createdAt?: string | null;
  returnLineItems?: { pageInfo?: { hasNextPage?: boolean | null } | null; nodes?: ShopifyReturnLine[] | null } | null;
}

/** What the import keeps of a return: the return and the order it came with. */
export interface ShopifyReturnRecord {
  orderId: string;
  orderNumber: string;
  return: ShopifyReturn;
}

interface ReturnsData {
  orders?: {
    pageInfo?: ShopifyPageInfo | null;
    nodes?:
      | {
          id?: string | null;
          legacyResourceId?: string | null;
          returns?: { pageInfo?: { hasNextPage?: boolean | null } | null; nodes?: ShopifyReturn[] | null } | null;
        }[]
      | null;
  } | null;
}

const unmappable = (message: string) => new Unmappable(message);

/**
 * ReturnStatus: REQUESTED waits for the seller (returnRequest), OPEN is approved (returnApproveRequest
 * or returnCreate), DECLINED rejected; CLOSED is Refunded when every unit was refunded, else Closed;
 * CANCELED is Closed.
 */
function stateOf(status: string, allRefunded: boolean): ReturnState | null {
  switch (status) {
    case "REQUESTED":
      return "Requested";
    case "OPEN":
      return allRefunded ? "Refunded" : "Approved";
    case "DECLINED":
      return "Rejected";
    case "CLOSED":
      return allRefunded ? "Refunded" : "Closed";
    case "CANCELED":
      return "Closed";
    default:
      return null;
  }
}

export function mapShopifyReturn(record: ShopifyReturnRecord): ImportedReturn {
  const r = record.return ?? {};
  const id = r.id;
  if (typeof id !== "string" || id === "") throw unmappable(`order ${record.orderNumber} sent a return without an id`);
  const where = `return ${r.name ?? id}`;
  const nodes = r.returnLineItems?.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0) throw unmappable(`${where} has no return line items`);
  if (r.returnLineItems?.pageInfo?.hasNextPage) throw unmappable(`${where} has more than ${LINES_PER_RETURN} line items, more than the hub reads`);
  let allRefunded = true;
  const lines = nodes.map((line, i) => {
    const lineWhere = `${where} line ${i + 1}`;
    const quantity = line.quantity;
    if (!Number.isInteger(quantity) || (quantity as number) <= 0)
      throw unmappable(`${lineWhere} quantity ${JSON.stringify(quantity)} is not a positive whole number`);
    const lineItem = line.fulfillmentLineItem?.lineItem?.id;
    // An unverified line (a return made outside Shopify's fulfilments) names no order line.
    if (typeof lineItem !== "string" || lineItem === "") throw unmappable(`${lineWhere} names no order line item (an unverified return line)`);
    if ((line.refundedQuantity ?? 0) < (quantity as number)) allRefunded = false;
    return {
      sourceReturnLineId: String(line.id ?? `${id}#${i + 1}`),
      sourceLineId: lineItem,
      quantity: quantity as number,
      reason: line.returnReasonNote || null,
    };
  });
  const status = String(r.status ?? "");
  const state = stateOf(status, allRefunded);
  if (!state) throw unmappable(`${where} has status ${JSON.stringify(r.status)}, not a ReturnStatus of the schema`);
  const requestedAt = Date.parse(r.createdAt ?? "");
  if (!Number.isFinite(requestedAt)) throw unmappable(`${where} createdAt ${JSON.stringify(r.createdAt)} is not a date`);
  return {
    sourceReturnNumber: id,
    sourceOrderNumber: record.orderNumber,
    state,
    sourceStatus: status,
    requestedAt: new Date(requestedAt),
    reason: lines.find((l) => l.reason)?.reason ?? null,
    lines,
    sourceData: { name: r.name ?? "" },
    record,
  };
}

export const shopifyReturnReader: ReturnReader = {
  map: (record) => mapShopifyReturn(record as ShopifyReturnRecord),
  numbersOf: (record) => {
    const r = (record ?? {}) as Partial<ShopifyReturnRecord>;
    return {
      sourceReturnNumber: typeof r.return?.id === "string" ? r.return.id : "",
      sourceOrderNumber: typeof r.orderNumber === "string" ? r.orderNumber : null,
    };
  },
  reason: (message) => `Shopify ${message}`,
};

function userErrorsFailure(operation: string, errors: ShopifyUserError[]): MarketplaceError {
  return new MarketplaceError(`Shopify ${operation} refused: ${describeUserErrors(errors)}`, 200, false);
}

export function shopifyReturns(graphql: ShopifyGraphql): {
  returns: ReturnsImport;
  refund(delivery: RefundDelivery): Promise<DeliveryOutcome>;
  decideReturn(delivery: ReturnDecisionDelivery): Promise<DeliveryOutcome>;
} {
  return {
    returns: {
      // Shopify lists no returns on their own (QueryRoot has return(id) only): the orders changed
      // in the window are paged as the orders import pages them, each with its returns.
      async fetchReturns(window: ImportWindow, cursor: string | null): Promise<ReturnPage> {
        const data = await graphql<ReturnsData>("ShopifyReturns", RETURNS_QUERY, { query: ordersSearchQuery(window), after: cursor });
        const connection = data.orders;
        if (!connection || !Array.isArray(connection.nodes)) throw new MarketplaceError("Shopify ShopifyReturns: the answer has no orders list", 200, true);
        const records: ShopifyReturnRecord[] = [];
        const setAside: ReturnPage["setAside"] = [];
        for (const order of connection.nodes) {
          const orderNumber = String(order?.legacyResourceId ?? "");
          const returns = order?.returns?.nodes ?? [];
          for (const r of Array.isArray(returns) ? returns : []) records.push({ orderId: String(order?.id ?? ""), orderNumber, return: r });
          if (order?.returns?.pageInfo?.hasNextPage) {
            setAside.push({
              sourceReturnNumber: "",
              sourceOrderNumber: orderNumber,
              reason: `Shopify order ${orderNumber} has more than ${RETURNS_PER_ORDER} returns; the later ones are not read`,
              record: order,
            });
          }
        }
        const page = splitReturns(shopifyReturnReader, records, "Shopify ShopifyReturns");
        const next = connection.pageInfo?.hasNextPage ? connection.pageInfo.endCursor : null;
        return {
          returns: page.returns,
          setAside: [...page.setAside, ...setAside],
          nextCursor: typeof next === "string" && next !== "" && next !== cursor ? next : null,
        };
      },
      remap: (record) => readReturn(shopifyReturnReader, record),
    },

    async refund(delivery) {
      const orderId = orderGidOf(delivery.order);
      if (orderId === null) throw refusal("Shopify", `order ${delivery.order.sourceOrderNumber} has no Shopify id`);
      const amountOnly = delivery.lines.filter((l) => l.quantity === 0);
      if (amountOnly.length > 0) {
        // An amount without units needs refundCreate's transactions (OrderTransactionInput), which
        // the extract does not define.
        return {
          state: "notApplicable",
          reason:
            `Shopify refunds line items by quantity; an amount-only refund of line ${amountOnly.map((l) => l.sourceLineId).join(", ")} is made in ` +
            `the Shopify admin`,
        };
      }
      const input = {
        orderId,
        note: delivery.reason,
        notify: false,
        // The hub's Restock is the seller's own call (Receive): Shopify's stock is not touched here.
        refundLineItems: delivery.lines.map((l) => ({ lineItemId: l.sourceLineId, quantity: l.quantity, restockType: "NO_RESTOCK" })),
        ...(delivery.shippingAmount > 0 ? { shipping: { amount: delivery.shippingAmount.toFixed(2) } } : {}),
        ...(delivery.currency ? { currency: delivery.currency } : {}),
      };
      const data = await graphql<{ refundCreate?: { refund?: { id?: string | null } | null; userErrors?: ShopifyUserError[] | null } | null }>(
        "ShopifyRefundCreate",
        REFUND_CREATE_MUTATION,
        { input, key: delivery.idempotencyKey },
      );
      const errors = data.refundCreate?.userErrors ?? [];
      if (errors.length > 0) throw userErrorsFailure("refundCreate", errors);
      const id = data.refundCreate?.refund?.id;
      if (typeof id !== "string" || id === "") throw new MarketplaceError("Shopify refundCreate answered no refund", 200, true);
      // Shopify works the amounts out from the quantities; the hub's amounts are not sent.
      return { state: "delivered", reference: id };
    },

    async decideReturn(delivery) {
      const id = delivery.return.sourceReturnNumber;
      if (delivery.kind === "approveReturn") {
        const data = await graphql<{ returnApproveRequest?: { userErrors?: ShopifyUserError[] | null } | null }>(
          "ShopifyReturnApprove",
          RETURN_APPROVE_MUTATION,
          {
            input: { id, notifyCustomer: false },
          },
        );
        const errors = data.returnApproveRequest?.userErrors ?? [];
        if (errors.length > 0) throw userErrorsFailure("returnApproveRequest", errors);
        return { state: "delivered", reference: id };
      }
      const data = await graphql<{ returnDeclineRequest?: { userErrors?: ShopifyUserError[] | null } | null }>(
        "ShopifyReturnDecline",
        RETURN_DECLINE_MUTATION,
        {
          // The hub keeps no decline reason of Shopify's list (FINAL_SALE, RETURN_PERIOD_ENDED, OTHER): OTHER with the seller's words.
          input: { id, declineReason: "OTHER", notifyCustomer: false, ...(delivery.reason ? { declineNote: delivery.reason } : {}) },
        },
      );
      const errors = data.returnDeclineRequest?.userErrors ?? [];
      if (errors.length > 0) throw userErrorsFailure("returnDeclineRequest", errors);
      return { state: "delivered", reference: id };
    },
  };
}
