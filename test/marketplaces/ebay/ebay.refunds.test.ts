// eBay refunds out through issueRefund (asynchronous: submitted, then read back from the order's
// paymentSummary.refunds) and returns in NotApplicable, called on the connector directly against
// the fake eBay, which checks every request against the Fulfillment API description.
import { describe, expect, it } from "vitest";
import type { NotApplicable, RefundDelivery } from "../../../src/marketplaces/connector";
import { createEbayConnector } from "../../../src/marketplaces/ebay/ebay.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { rejection } from "../../helpers/rejection";
import { createEbayFake, EBAY_FAKE_CLIENT_ID, EBAY_FAKE_CLIENT_SECRET, EBAY_FAKE_REFRESH_TOKEN } from "./ebay-fake";
import { orderIdOf, sampleOrder } from "./ebay-orders";

const START = Date.parse("2026-03-01T12:00:00.000Z");
const FINANCES_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.finances";
const LINE_A = "10000000010";
const LINE_B = "10000000011";

function setup() {
  const now = () => new Date(START);
  const created = new Date("2026-02-28T01:00:00.000Z");
  const order = sampleOrder({
    orderId: orderIdOf(1),
    created,
    modified: created,
    lines: [
      { lineItemId: LINE_A, quantity: 2, unitPrice: "10.00" },
      { lineItemId: LINE_B, quantity: 1, unitPrice: "30.00" },
    ],
  });
  const fake = createEbayFake({ now, orders: [order] });
  const connector = createEbayConnector(
    {
      sourceId: "source-1",
      settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" },
      fetch: fake.fetch,
      now,
    },
    memoryStorage(),
  );
  return { fake, connector, orderId: order.orderId! };
}

function refundOf(orderId: string, lines: { sourceLineId: string; quantity: number; amount: number }[], opts: Partial<RefundDelivery> = {}): RefundDelivery {
  const shippingAmount = opts.shippingAmount ?? 0;
  return {
    id: 21,
    idempotencyKey: "source-1-21",
    kind: "refund",
    order: { sourceOrderNumber: orderId, sourceCustomerOrderNumber: null, sellerOrderNumber: null, sourceData: {}, lines: [] },
    earlier: [],
    lines: lines.map((l) => ({ ...l, sku: "SKU" })),
    shippingAmount,
    total: lines.reduce((n, l) => n + l.amount, 0) + shippingAmount,
    currency: "USD",
    reason: "Arrived broken",
    return: { sourceReturnNumber: "5000123", sourceData: {} },
    ...opts,
  };
}

const issued = (fake: ReturnType<typeof setup>["fake"]) => fake.requests.filter((r) => r.path.endsWith("/issue_refund"));

describe("eBay refunds out", () => {
  it("sends each line's amount in refundItems with a sell.finances token, answers submitted, and is delivered once eBay shows it REFUNDED", async () => {
    const { fake, connector, orderId } = setup();
    const delivery = refundOf(orderId, [
      { sourceLineId: LINE_A, quantity: 1, amount: 10 },
      { sourceLineId: LINE_B, quantity: 1, amount: 12.5 },
    ]);
    const outcome = await connector.refund!(delivery);
    expect(outcome).toEqual({ state: "submitted", reference: "500000000001" });
    const [call] = issued(fake);
    expect(call!.path).toBe(`/sell/fulfillment/v1/order/${orderId}/issue_refund`);
    expect(JSON.parse(call!.rawBody)).toEqual({
      reasonForRefund: "BUYER_RETURN",
      comment: "Arrived broken",
      refundItems: [
        { lineItemId: LINE_A, refundAmount: { value: "10.00", currency: "USD" } },
        { lineItemId: LINE_B, refundAmount: { value: "12.50", currency: "USD" } },
      ],
    });
    const tokenForms = fake.requests.filter((r) => r.api === "token").map((r) => new URLSearchParams(r.rawBody).get("scope"));
    expect(tokenForms).toContain(FINANCES_SCOPE);

    expect(await connector.checkSubmitted!(delivery, "500000000001")).toEqual({ state: "pending" });
    fake.settleRefunds("REFUNDED");
    expect(await connector.checkSubmitted!(delivery, "500000000001")).toEqual({ state: "delivered", reference: "500000000001" });
    expect(fake.violations).toEqual([]);
  });

  it("sends shipping alone as the order-level amount, and lines with shipping as one order-level amount", async () => {
    const { fake, connector, orderId } = setup();
    await connector.refund!(refundOf(orderId, [], { shippingAmount: 4.99, return: null }));
    expect(JSON.parse(issued(fake)[0]!.rawBody)).toEqual({
      reasonForRefund: "OTHER",
      comment: "Arrived broken",
      orderLevelRefundAmount: { value: "4.99", currency: "USD" },
    });
    fake.settleRefunds("REFUNDED");
    await connector.refund!(refundOf(orderId, [{ sourceLineId: LINE_A, quantity: 1, amount: 10 }], { shippingAmount: 2 }));
    expect(JSON.parse(issued(fake)[1]!.rawBody).orderLevelRefundAmount).toEqual({ value: "12.00", currency: "USD" });
    expect(fake.violations).toEqual([]);
  });

  it("fails what eBay refuses for good, and reports a FAILED refund as rejected", async () => {
    const { fake, connector, orderId } = setup();
    const tooMuch = await rejection(connector.refund!(refundOf(orderId, [{ sourceLineId: LINE_B, quantity: 1, amount: 45 }])));
    expect([tooMuch.status, tooMuch.retryable]).toEqual([409, false]);
    expect(tooMuch.message).toContain("34924");
    const unknown = await rejection(connector.refund!(refundOf(orderId, [{ sourceLineId: "999", quantity: 1, amount: 1 }])));
    expect(unknown.message).toContain("34914");
    expect(fake.refunds).toEqual([]);

    const delivery = refundOf(orderId, [{ sourceLineId: LINE_A, quantity: 1, amount: 10 }]);
    const outcome = await connector.refund!(delivery);
    fake.settleRefunds("FAILED");
    expect(await connector.checkSubmitted!(delivery, (outcome as { reference: string }).reference)).toEqual({
      state: "rejected",
      message: `eBay refund 500000000001 of order ${orderId} FAILED`,
    });
    expect(fake.violations).toEqual([]);
  });

  it("on a bad day: 429 and 5xx are retryable and take nothing; a lost answer is not sent again blindly", async () => {
    const { fake, connector, orderId } = setup();
    const delivery = refundOf(orderId, [{ sourceLineId: LINE_A, quantity: 1, amount: 10 }]);
    fake.failNext({ status: 429, headers: { "Retry-After": "30" } });
    const throttled = await rejection(connector.refund!(delivery));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 30_000]);
    fake.failNext({ status: 500 });
    const down = await rejection(connector.refund!(delivery));
    expect([down.status, down.retryable]).toEqual([500, true]);
    // A 200 that is not JSON may be a refund taken: not sent again blindly either.
    fake.failNext({ status: 200, body: "<html>gateway</html>" });
    const nonsense = await rejection(connector.refund!(delivery));
    expect(nonsense.retryable).toBe(false);
    fake.failNextWithError();
    const lost = await rejection(connector.refund!(delivery));
    expect(lost.retryable).toBe(false);
    expect(lost.message).toContain(`check order ${orderId} in eBay before refunding again`);
    expect(fake.refunds).toEqual([]);
  });

  it("leaves returns in NotApplicable with the reason", () => {
    const { connector } = setup();
    expect((connector.returns as NotApplicable).notApplicable).toContain("no machine-readable description");
  });
});
