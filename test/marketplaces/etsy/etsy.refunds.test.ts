// Etsy's side of decisions 13: a receipt's refunds (ShopRefund: amount, date, reason; no id, no
// lines) come in with the order; returns and refunds out are NotApplicable with the reason.
// Called on the connector directly against the fake Etsy, which checks every request.
import { describe, expect, it } from "vitest";
import type { NotApplicable, RefundDelivery } from "../../../src/marketplaces/connector";
import { createEtsyConnector } from "../../../src/marketplaces/etsy/etsy.connector";
import { decryptJson, encryptJson } from "../../../src/lib/crypto";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { createEtsyFake, ETSY_FAKE_KEYSTRING, ETSY_FAKE_REFRESH_TOKEN, ETSY_FAKE_SHARED_SECRET, ETSY_FAKE_SHOP_ID } from "./etsy-fake";
import { money, sampleReceipt } from "./etsy-receipts";

const START = Date.parse("2026-03-01T12:00:00.000Z");
const WINDOW = { since: new Date("2026-02-28T00:00:00.000Z"), until: new Date(START) };
const KEY = btoa("etsy-connector-test-key-32-bytes");

function setup(refunds: unknown[]) {
  const now = () => new Date(START);
  const created = new Date("2026-02-28T01:00:00.000Z");
  const receipt = {
    ...sampleReceipt({
      receiptId: 3_000_000_001,
      created,
      updated: new Date(created.getTime() + 5 * 60_000),
      transactions: [
        { transactionId: 4_000_000_010, quantity: 2, price: 1000 },
        { transactionId: 4_000_000_011, quantity: 1, price: 500 },
      ],
      shipping: 400,
    }),
    refunds,
  };
  const fake = createEtsyFake({ now, receipts: [receipt as ReturnType<typeof sampleReceipt>] });
  const connector = createEtsyConnector(
    {
      sourceId: "source-1",
      settings: { keystring: ETSY_FAKE_KEYSTRING, sharedSecret: ETSY_FAKE_SHARED_SECRET, refreshToken: ETSY_FAKE_REFRESH_TOKEN, shopId: ETSY_FAKE_SHOP_ID },
      fetch: fake.fetch,
      now,
      secrets: { seal: (v) => encryptJson(KEY, v), open: (s) => decryptJson<string>(KEY, s) },
    },
    memoryStorage(),
    { sleep: async () => {} },
  );
  return { fake, connector };
}

describe("Etsy refunds in", () => {
  it(
    "reads each ShopRefund with the receipt, its amount spread over the lines in order and the rest on shipping, under an id stable across " + "imports",
    async () => {
      const { fake, connector } = setup([
        { amount: money(1500), created_timestamp: 1772280000, reason: "Item arrived damaged", note_from_issuer: null, status: "REFUND" },
        { amount: money(2900), created_timestamp: 1772283600, reason: null, note_from_issuer: "Goodwill", status: null },
      ]);
      const page = await connector.fetchOrders(WINDOW, null);
      expect(page.setAside).toEqual([]);
      const [order] = page.orders;
      expect(order!.refunds).toEqual([
        {
          sourceRefundId: "3000000001:1772280000:1500",
          createdAt: new Date("2026-02-28T12:00:00.000Z"),
          reason: "Item arrived damaged",
          lines: [{ sourceLineId: "4000000010", quantity: 0, amount: 15 }],
          shippingAmount: 0,
          currency: "USD",
        },
        {
          sourceRefundId: "3000000001:1772283600:2900",
          createdAt: new Date("2026-02-28T13:00:00.000Z"),
          reason: "Goodwill",
          lines: [
            { sourceLineId: "4000000010", quantity: 0, amount: 20 },
            { sourceLineId: "4000000011", quantity: 0, amount: 5 },
          ],
          shippingAmount: 4,
          currency: "USD",
        },
      ]);
      const again = await connector.fetchOrders(WINDOW, null);
      expect(again.orders[0]!.refunds!.map((r) => r.sourceRefundId)).toEqual(order!.refunds!.map((r) => r.sourceRefundId));
      expect(fake.violations).toEqual([]);
    },
  );

  it("sets the receipt aside when a refund has no date, rather than guess one", async () => {
    const { connector } = setup([{ amount: money(100) }]);
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders).toEqual([]);
    expect(page.setAside.map((s) => s.reason)).toEqual(["Etsy receipt 3000000001 refund 1 has no created_timestamp"]);
  });

  it("answers returns and a refund out NotApplicable with the reason, calling nothing", async () => {
    const { fake, connector } = setup([]);
    expect((connector.returns as NotApplicable).notApplicable).toContain("has no returns");
    const outcome = await connector.refund!({
      id: 1,
      idempotencyKey: "source-1-1",
      kind: "refund",
      order: { sourceOrderNumber: "3000000001", sourceCustomerOrderNumber: null, sellerOrderNumber: null, sourceData: {}, lines: [] },
      earlier: [],
      lines: [],
      shippingAmount: 1,
      total: 1,
      currency: "USD",
      reason: "x",
      return: null,
    } satisfies RefundDelivery);
    expect(outcome).toEqual({
      state: "notApplicable",
      reason: "Etsy's Open API v3 has no refund call: the seller refunds on Etsy (Shop Manager), and the refund reaches the hub with the receipt",
    });
    expect(fake.requests).toEqual([]);
  });
});
