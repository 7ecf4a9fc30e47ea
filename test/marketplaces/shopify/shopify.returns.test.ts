// Shopify returns in (an order's `returns`), refunds out (refundCreate with an @idempotent key) and
// the seller's decision on a requested return (returnApproveRequest / returnDeclineRequest), called
// on the connector directly against the fake Shopify, which validates every document against the
// returns-and-refunds schema extract.
import { describe, expect, it } from "vitest";
import {
  MarketplaceError,
  type ImportedReturn,
  type RefundDelivery,
  type ReturnDecisionDelivery,
  type ReturnPage,
  type ReturnsImport,
  type SetAsideReturn,
} from "../../../src/marketplaces/connector";
import { createShopifyConnector } from "../../../src/marketplaces/shopify/shopify.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { rejection } from "../../helpers/rejection";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN } from "./shopify-fake";
import { lineGid, ordersUpdatedFrom } from "./shopify-fixtures";

const START = Date.parse("2026-03-01T12:00:00Z");
const WINDOW = { since: new Date("2026-03-01T10:00:00Z"), until: new Date("2026-03-01T12:00:00Z") };
const order = (n: number) => String(5000000000 + n);

function setup(orders = 3) {
  let nowMs = START - 30 * 60_000;
  const now = () => new Date(nowMs);
  const fake = createShopifyFake({ orders: ordersUpdatedFrom("2026-03-01T10:00:00Z", orders), now });
  const connector = createShopifyConnector(
    { sourceId: "source-1", settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN }, fetch: fake.fetch, now },
    memoryStorage(),
    { sleep: async (ms) => void (nowMs += ms) },
  );
  return { fake, connector, returns: connector.returns as ReturnsImport, advance: (ms: number) => void (nowMs += ms) };
}

async function importAll(returns: ReturnsImport, window = WINDOW): Promise<ReturnPage[]> {
  const pages: ReturnPage[] = [];
  let cursor: string | null = null;
  do {
    const page: ReturnPage = await returns.fetchReturns(window, cursor);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 20) throw new Error("the import does not end");
  } while (cursor !== null);
  return pages;
}

function refundOf(
  orderNumber: string,
  lines: { sourceLineId: string; quantity: number; amount: number }[],
  opts: Partial<RefundDelivery> = {},
): RefundDelivery {
  return {
    id: 11,
    idempotencyKey: "source-1-11",
    kind: "refund",
    order: { sourceOrderNumber: orderNumber, sourceCustomerOrderNumber: null, sellerOrderNumber: null, sourceData: {}, lines: [] },
    earlier: [],
    lines: lines.map((l) => ({ ...l, sku: "MUG-BLUE" })),
    shippingAmount: 0,
    total: lines.reduce((n, l) => n + l.amount, 0),
    currency: "USD",
    reason: "Damaged in transit",
    return: null,
    ...opts,
  };
}

const decision = (kind: "approveReturn" | "rejectReturn", returnId: string, reason: string | null = null): ReturnDecisionDelivery => ({
  id: 12,
  idempotencyKey: "source-1-12",
  kind,
  order: { sourceOrderNumber: order(1), sourceCustomerOrderNumber: null, sellerOrderNumber: null, sourceData: {}, lines: [] },
  earlier: [],
  return: { sourceReturnNumber: returnId, sourceData: {} },
  reason,
});

describe("Shopify returns in", () => {
  it("pages the orders changed in the window and maps each return's status and lines", async () => {
    const { fake, returns } = setup(7);
    const requested = fake.addReturn(order(1), {
      status: "REQUESTED",
      lines: [{ line: 0, quantity: 2, note: "Too small" }],
      createdAt: "2026-03-01T09:00:00Z",
    });
    fake.addReturn(order(2), {
      status: "OPEN",
      lines: [
        { line: 0, quantity: 1 },
        { line: 1, quantity: 1 },
      ],
    });
    fake.addReturn(order(3), { status: "DECLINED", lines: [{ line: 1, quantity: 1 }] });
    fake.addReturn(order(4), { status: "CLOSED", lines: [{ line: 0, quantity: 2, refunded: 2 }] });
    fake.addReturn(order(5), { status: "CLOSED", lines: [{ line: 0, quantity: 2, refunded: 1 }] });
    fake.addReturn(order(6), { status: "CANCELED", lines: [{ line: 0, quantity: 1 }] });
    fake.addReturn(order(7), { status: "OPEN", lines: [{ line: 1, quantity: 1, refunded: 1 }] });
    const pages = await importAll(returns);
    // Five orders a page: seven orders are two pages.
    expect(pages.map((p) => p.returns.length)).toEqual([5, 2]);
    expect(fake.callsOf("orders").map((c) => c.variables.after ?? null)).toEqual([null, pages[0]!.nextCursor]);
    const all = pages.flatMap((p) => p.returns);
    expect(all.map((r) => [r.sourceOrderNumber, r.sourceStatus, r.state])).toEqual([
      [order(1), "REQUESTED", "Requested"],
      [order(2), "OPEN", "Approved"],
      [order(3), "DECLINED", "Rejected"],
      [order(4), "CLOSED", "Refunded"],
      [order(5), "CLOSED", "Closed"],
      [order(6), "CANCELED", "Closed"],
      [order(7), "OPEN", "Refunded"],
    ]);
    const first = all[0]!;
    expect(first.sourceReturnNumber).toBe(requested);
    expect(first.requestedAt.toISOString()).toBe("2026-03-01T09:00:00.000Z");
    expect(first.reason).toBe("Too small");
    expect(first.lines).toEqual([{ sourceReturnLineId: "gid://shopify/ReturnLineItem/70011", sourceLineId: lineGid(1, 0), quantity: 2, reason: "Too small" }]);
    expect(all[1]!.lines.map((l) => [l.sourceLineId, l.quantity])).toEqual([
      [lineGid(2, 0), 1],
      [lineGid(2, 1), 1],
    ]);
    expect(pages.flatMap((p) => p.setAside)).toEqual([]);
    expect(fake.callsOf("orders").every((c) => (c.requestedCost ?? 0) <= 1000)).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it("sets aside a return it cannot map and reads the kept record again on the operator's retry", async () => {
    const { fake, returns } = setup(2);
    fake.addReturn(order(1), { status: "OPEN", lines: [{ line: 0, quantity: 1 }] });
    const odd = fake.addReturn(order(2), { status: "OPEN", lines: [{ line: 0, quantity: 1 }] });
    const r = (fake.orders[1]!.returns as Record<string, unknown>[])[0]!;
    (r.returnLineItems as Record<string, unknown>[])[0]!.fulfillmentLineItem = { id: "gid://shopify/FulfillmentLineItem/1", quantity: 1, lineItem: { id: "" } };
    const [page] = await importAll(returns);
    expect(page!.returns.map((x) => x.sourceOrderNumber)).toEqual([order(1)]);
    expect(page!.setAside).toEqual([
      {
        sourceReturnNumber: odd,
        sourceOrderNumber: order(2),
        reason: "Shopify return #1002-R1 line 1 names no order line item (an unverified return line)",
        record: expect.anything(),
      },
    ]);
    const again = returns.remap(page!.setAside[0]!.record) as SetAsideReturn;
    expect(again.reason).toBe(page!.setAside[0]!.reason);
    expect((returns.remap(page!.returns[0]!.record) as ImportedReturn).state).toBe("Approved");
  });

  it("answers a THROTTLED answer, a 5xx and nonsense with MarketplaceErrors, never a throw of its own", async () => {
    const { fake, returns } = setup(1);
    fake.failNext({ status: 503, body: { errors: "Service Unavailable" }, operation: "ShopifyReturns" });
    const down = await rejection(returns.fetchReturns(WINDOW, null));
    expect([down.status, down.retryable]).toEqual([503, true]);
    fake.failNext({ status: 429, headers: { "Retry-After": "2" }, operation: "ShopifyReturns" });
    const throttled = await rejection(returns.fetchReturns(WINDOW, null));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 2000]);
    fake.failNext({ status: 200, body: { data: { orders: { nodes: "none" } } }, operation: "ShopifyReturns" });
    const nonsense = await rejection(returns.fetchReturns(WINDOW, null));
    expect(nonsense.message).toBe("Shopify ShopifyReturns: the answer has no orders list");
    fake.failNext({
      status: 200,
      body: {
        data: {
          orders: {
            pageInfo: { hasNextPage: false },
            nodes: [{ legacyResourceId: "9", returns: { nodes: [42, { id: "gid://shopify/Return/1", returnLineItems: { nodes: [] } }] } }],
          },
        },
      },
      operation: "ShopifyReturns",
    });
    const page = await returns.fetchReturns(WINDOW, null);
    expect(page.returns).toEqual([]);
    expect(page.setAside.map((s) => s.reason)).toEqual([
      "Shopify order 9 sent a return without an id",
      "Shopify return gid://shopify/Return/1 has no return line items",
    ]);
  });
});

describe("Shopify refunds out", () => {
  it("sends refundCreate by line item and quantity with the delivery's @idempotent key; a repeat makes no second refund", async () => {
    const { fake, connector } = setup(1);
    fake.addReturn(order(1), { status: "OPEN", lines: [{ line: 0, quantity: 2 }] });
    const delivery = refundOf(order(1), [{ sourceLineId: lineGid(1, 0), quantity: 2, amount: 24.5 }], { shippingAmount: 5 });
    const outcome = await connector.refund!(delivery);
    expect(outcome).toEqual({ state: "delivered", reference: "gid://shopify/Refund/8002" });
    const again = await connector.refund!(delivery);
    expect(again).toEqual(outcome);
    expect(fake.refunds).toHaveLength(1);
    expect(fake.refunds.map((r) => [r.key, r.refundId])).toEqual([["source-1-11", "gid://shopify/Refund/8002"]]);
    const sent = fake.callsOf("refundCreate");
    expect(sent).toHaveLength(2);
    expect(sent[0]!.variables).toEqual({
      key: "source-1-11",
      input: {
        orderId: "gid://shopify/Order/5000000001",
        note: "Damaged in transit",
        notify: false,
        refundLineItems: [{ lineItemId: lineGid(1, 0), quantity: 2, restockType: "NO_RESTOCK" }],
        shipping: { amount: "5.00" },
        currency: "USD",
      },
    });
    expect(sent.every((c) => /refundCreate\(input: \$input\) @idempotent\(key: \$key\)/.test(c.query))).toBe(true);
    // The return shows the units refunded at the next import.
    const [page] = await importAll(connector.returns as ReturnsImport, { since: WINDOW.since, until: new Date(START + 60_000) });
    expect(page!.returns[0]!.state).toBe("Refunded");
    expect(fake.violations).toEqual([]);
  });

  it("refuses what Shopify refuses, and leaves an amount-only refund NotApplicable without calling", async () => {
    const { fake, connector } = setup(1);
    const tooMany = await rejection(connector.refund!(refundOf(order(1), [{ sourceLineId: lineGid(1, 1), quantity: 3, amount: 60 }])));
    expect(tooMany.retryable).toBe(false);
    expect(tooMany.message).toBe("Shopify refundCreate refused: Quantity cannot refund more items than were purchased (refundLineItems.0.quantity)");
    const amountOnly = await connector.refund!(
      refundOf(order(1), [{ sourceLineId: lineGid(1, 0), quantity: 0, amount: 3 }], { idempotencyKey: "source-1-13" }),
    );
    expect(amountOnly).toEqual({
      state: "notApplicable",
      reason: `Shopify refunds line items by quantity; an amount-only refund of line ${lineGid(1, 0)} is made in the Shopify admin`,
    });
    expect(fake.callsOf("refundCreate")).toHaveLength(1);
    expect(fake.refunds).toEqual([]);
    expect(fake.violations).toEqual([]);
  });
});

describe("Shopify return decisions", () => {
  it("approves and declines a requested return; a return that is not REQUESTED is refused", async () => {
    const { fake, connector, returns } = setup(2);
    const first = fake.addReturn(order(1), { status: "REQUESTED", lines: [{ line: 0, quantity: 1 }] });
    const second = fake.addReturn(order(2), { status: "REQUESTED", lines: [{ line: 0, quantity: 1 }] });
    expect(await connector.decideReturn!(decision("approveReturn", first))).toEqual({ state: "delivered", reference: first });
    expect(await connector.decideReturn!(decision("rejectReturn", second, "Worn, not returnable"))).toEqual({ state: "delivered", reference: second });
    expect(fake.callsOf("returnDeclineRequest")[0]!.variables).toEqual({
      input: { id: second, declineReason: "OTHER", notifyCustomer: false, declineNote: "Worn, not returnable" },
    });
    const again = await rejection(connector.decideReturn!(decision("approveReturn", first)));
    expect(again).toBeInstanceOf(MarketplaceError);
    expect(again.message).toBe("Shopify returnApproveRequest refused: INVALID_STATE: Return is OPEN, not REQUESTED (input.id)");
    const [page] = await importAll(returns, { since: WINDOW.since, until: new Date(START) });
    expect(page!.returns.map((r) => r.state)).toEqual(["Approved", "Rejected"]);
    expect(fake.violations).toEqual([]);
  });
});
