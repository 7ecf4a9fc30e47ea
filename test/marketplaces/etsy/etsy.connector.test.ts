// The Etsy connector call by call against the fake Etsy of test/marketplaces/etsy, which checks every request
// against Etsy's published description (and the reference README: the x-api-key form, the
// rotating refresh token, the rate-limit headers), with explicit clocks: tokens and their
// rotation, import paging, mapping, set-aside receipts, createReceiptShipment exactly once, the
// deliveries Etsy has no operation for, pacing and 429s.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Connector, ImportedOrder, ImportWindow, OrderPage, SecretSealer, ShipDelivery } from "../../../src/marketplaces/connector";
import { createEtsyConnector } from "../../../src/marketplaces/etsy/etsy.connector";
import { memoryStorage, type SourceStorage } from "../../../src/marketplaces/storage";
import { decryptJson, encryptJson } from "../../../src/lib/crypto";
import { admin, ADMIN_KEY, BASE, createStore } from "../../helpers/api";
import { rejection } from "../../helpers/rejection";
import {
  createEtsyFake,
  ETSY_FAKE_KEYSTRING,
  ETSY_FAKE_REFRESH_TOKEN,
  ETSY_FAKE_SHARED_SECRET,
  ETSY_FAKE_SHOP_ID,
  ETSY_FAKE_TOKEN_URL,
  etsyPagesForEver,
  type EtsyFake,
} from "./etsy-fake";
import { money, sampleReceipt, type SampleReceipt } from "./etsy-receipts";
import { deliveryOrder, importAll as importPages } from "../fake-kit/connector-calls";

const START = Date.parse("2026-03-01T12:00:00.000Z");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WINDOW: ImportWindow = { since: new Date("2026-02-28T00:00:00.000Z"), until: new Date(START) };
const KEY = btoa("etsy-connector-test-key-32-bytes");
const SEALER: SecretSealer = { seal: (v) => encryptJson(KEY, v), open: (s) => decryptJson<string>(KEY, s) };

const SETTINGS = {
  keystring: ETSY_FAKE_KEYSTRING,
  sharedSecret: ETSY_FAKE_SHARED_SECRET,
  refreshToken: ETSY_FAKE_REFRESH_TOKEN,
  shopId: ETSY_FAKE_SHOP_ID,
};

/** Receipt n: created 1 h into Feb 28 plus n minutes, changed 5 minutes after. */
function receiptAt(n: number, extra: Partial<SampleReceipt> = {}) {
  const created = new Date(Date.parse("2026-02-28T01:00:00.000Z") + n * MINUTE);
  return sampleReceipt({
    receiptId: 3_000_000_000 + n,
    created,
    updated: new Date(created.getTime() + 5 * MINUTE),
    transactions: [{ transactionId: 4_000_000_000 + n * 10, quantity: 1, price: 1000 }],
    ...extra,
  });
}

function setup(
  options: {
    receipts?: ReturnType<typeof sampleReceipt>[];
    settings?: Record<string, unknown>;
    storage?: SourceStorage;
    fake?: Partial<Parameters<typeof createEtsyFake>[0]>;
  } = {},
) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createEtsyFake({ now, receipts: options.receipts ?? [receiptAt(1)], ...options.fake });
  const storage = options.storage ?? memoryStorage();
  const slept: number[] = [];
  /** A connector as one cycle builds it (the same storage across cycles). */
  const make = (settings: Record<string, unknown> = options.settings ?? {}, secrets: SecretSealer | null = SEALER) =>
    createEtsyConnector({ sourceId: "source-1", settings: { ...SETTINGS, ...settings }, fetch: fake.fetch, now, secrets: secrets ?? undefined }, storage, {
      sleep: async (ms) => {
        slept.push(ms);
        clock.ms += ms;
      },
    });
  return {
    fake,
    storage,
    slept,
    clock,
    connector: make(),
    make,
    advance(ms: number) {
      clock.ms += ms;
    },
  };
}

const importAll = (connector: Connector, window = WINDOW, between?: (page: number) => void) => importPages(connector, window, { between });

let nextId = 1;
function shipDelivery(order: ImportedOrder, shipment: { trackingNumber?: string | null; carrier?: string | null } = {}): ShipDelivery {
  const id = nextId++;
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    kind: "ship",
    order: deliveryOrder(order),
    earlier: [],
    shipment: {
      trackingNumber: shipment.trackingNumber === undefined ? "9400111899223197428490" : shipment.trackingNumber,
      carrier: shipment.carrier === undefined ? "USPS" : shipment.carrier,
      shippingMethod: null,
      shippedAt: new Date("2026-03-01T10:30:00.000Z"),
      lines: order.items.map((i) => ({ sourceLineId: i.sourceLineId, quantity: i.quantity })),
    },
  };
}

async function importedOne(connector: Connector): Promise<ImportedOrder> {
  const [page] = await importAll(connector);
  return page!.orders[0]!;
}

const tokenForms = (fake: EtsyFake) => fake.requestsOf("token").map((r) => r.body as Record<string, string>);

describe("Etsy tokens", () => {
  it("renews with the refresh-token grant and the keystring as client_id, sends x-api-key as keystring:shared_secret and the Bearer token", async () => {
    const { fake, connector } = setup();
    await importAll(connector);
    expect(tokenForms(fake)).toEqual([{ grant_type: "refresh_token", client_id: ETSY_FAKE_KEYSTRING, refresh_token: ETSY_FAKE_REFRESH_TOKEN }]);
    const [token] = fake.requestsOf("token");
    expect(token!.url).toBe(ETSY_FAKE_TOKEN_URL);
    expect(token!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const [api] = fake.requestsOf("api");
    expect(api!.headers["x-api-key"]).toBe("1aa2bb3cc4dd5ee6ff7gg8hh:fakeshared0secret");
    expect(api!.headers.authorization).toMatch(/^Bearer fake-access-1-[0-9a-f]{24}$/);
    expect(api!.url.startsWith("https://openapi.etsy.com/v3/application/shops/31415926/receipts?")).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it("keeps the rotated refresh token sealed in the source's storage and renews with it, never with a used one", async () => {
    const { fake, storage, connector, make, advance } = setup();
    await importAll(connector);
    const rotated = fake.refreshTokens()[1]!;
    // Kept, but not in clear.
    expect(JSON.stringify(storage.list(""))).not.toContain(rotated);
    expect(JSON.stringify(storage.list(""))).not.toContain(ETSY_FAKE_REFRESH_TOKEN);

    // The next cycle within the hour reuses the access token: no renewal.
    advance(30 * MINUTE);
    await importAll(make());
    expect(fake.requestsOf("token")).toHaveLength(1);

    // 55 minutes in (five before the hour), it renews with the rotated token, and again with the next.
    advance(25 * MINUTE);
    await importAll(make());
    advance(HOUR);
    await importAll(make());
    expect(tokenForms(fake).map((f) => f.refresh_token)).toEqual([ETSY_FAKE_REFRESH_TOKEN, rotated, fake.refreshTokens()[2]]);
    expect(fake.requestsOf("token").map((r) => r.status)).toEqual([200, 200, 200]);
    expect(fake.violations).toEqual([]);
  });

  it("loses nothing when a cycle is cut off right after a renewal: the next renews with the new token", async () => {
    const { fake, make, advance } = setup();
    fake.cutOffAfterNextRenewal();
    const cut = await rejection(importAll(make()));
    expect(cut.message).toContain("Network connection lost");
    expect(fake.requestsOf("token").map((r) => r.status)).toEqual([200]);
    fake.restore();

    advance(2 * HOUR);
    const pages = await importAll(make());
    expect(pages[0]!.orders).toHaveLength(1);
    expect(tokenForms(fake).map((f) => f.refresh_token)).toEqual([ETSY_FAKE_REFRESH_TOKEN, fake.refreshTokens()[1]]);
    expect(fake.requestsOf("token").map((r) => r.status)).toEqual([200, 200]);
  });

  it("renews nothing without a sealer: a renewal whose new token could not be kept would lose the source's access", async () => {
    const { fake, make } = setup();
    const error = await rejection(importAll(make({}, null)));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Etsy needs the source's secret sealer to keep its rotating refresh token");
    expect(fake.requests).toEqual([]);
  });

  it("reports a refused refresh token as final, then asks Etsy nothing until the seller authorises again", async () => {
    const { fake, make, advance } = setup();
    fake.revokeRefreshTokens();
    const first = await rejection(importAll(make()));
    expect(first.retryable).toBe(false);
    expect(first.message).toBe(
      "Etsy refused to renew the source's access (400 invalid_grant: Invalid refresh token): the seller must authorise the app again and the source's " +
        "refreshToken be replaced (see the Etsy source README); nothing is sent to Etsy until then",
    );
    advance(15 * MINUTE);
    const second = await rejection(importAll(make()));
    expect(second.message).toBe(first.message);
    expect(fake.requestsOf("token")).toHaveLength(1);

    // New consent, a new refreshToken in the Settings: a new chain.
    const consented = fake.grantConsent();
    const pages = await importAll(make({ refreshToken: consented }));
    expect(pages[0]!.orders).toHaveLength(1);
    expect(tokenForms(fake).map((f) => f.refresh_token)).toEqual([ETSY_FAKE_REFRESH_TOKEN, consented]);
  });

  it("refuses a refresh token already used (the source's kept one lost): re-authorise, not a retry", async () => {
    const { fake, connector } = setup();
    await importAll(connector);
    // Another storage: the chain's rotated token is not there, the Settings' one was used.
    const elsewhere = createEtsyConnector(
      { sourceId: "source-1", settings: SETTINGS, fetch: fake.fetch, now: () => new Date(START), secrets: SEALER },
      memoryStorage(),
    );
    const error = await rejection(importAll(elsewhere));
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(400);
    expect(error.message).toContain("the seller must authorise the app again");
  });

  it("reports an unknown keystring (invalid_client) as final too", async () => {
    const { connector } = setup({ settings: { keystring: "notakeystring" } });
    const error = await rejection(importAll(connector));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("401 invalid_client: Unknown client");
  });

  it("retries a token endpoint that is down on a later cycle", async () => {
    const { fake, make } = setup();
    fake.failNext({ target: "token", status: 503 });
    const error = await rejection(importAll(make()));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("Etsy token renewal failed: 503 server_error: the token service failed");
    expect((await importAll(make()))[0]!.orders).toHaveLength(1);
  });

  it("drops an access token Etsy answers 401 to and retries once with a fresh one", async () => {
    const { fake, connector } = setup();
    await importAll(connector);
    fake.expireTokens();
    await importAll(connector);
    expect(fake.requestsOf("api").map((r) => r.status)).toEqual([200, 401, 200]);
    expect(fake.requestsOf("token")).toHaveLength(2);
  });
});

describe("Etsy import (getShopReceipts)", () => {
  it("asks by min_last_modified with sort_on=updated, sort_order=asc, limit 100, paging by offset", async () => {
    const receipts = Array.from({ length: 150 }, (_, i) => receiptAt(i + 1));
    const { fake, connector } = setup({ receipts });
    const pages = await importAll(connector);
    expect(pages.map((p) => p.orders.length)).toEqual([100, 50]);
    expect(fake.requestsOf("api").map((r) => r.rawQuery)).toEqual([
      "?min_last_modified=1772236800&max_last_modified=1772366400&sort_on=updated&sort_order=asc&limit=100&offset=0",
      "?min_last_modified=1772236800&max_last_modified=1772366400&sort_on=updated&sort_order=asc&limit=100&offset=100",
    ]);
    const numbers = pages.flatMap((p) => p.orders.map((o) => o.sourceOrderNumber));
    expect(new Set(numbers).size).toBe(150);
    expect(fake.violations).toEqual([]);
  });

  it("misses no receipt when one leaves the window between pages (offsets shift), reading the gap again", async () => {
    const receipts = Array.from({ length: 150 }, (_, i) => receiptAt(i + 1));
    const { fake, connector, advance } = setup({ receipts });
    const pages = await importAll(connector, WINDOW, (page) => {
      if (page === 1) {
        // Receipt 10 changes after the window's end: it leaves the range, the rest move forward.
        advance(MINUTE);
        fake.touch(3_000_000_010);
      }
    });
    const numbers = new Set(pages.flatMap((p) => p.orders.map((o) => o.sourceOrderNumber)));
    expect(numbers.size).toBe(150);
    // Page 2 (offset 100) counts 149 of 150: one moved over the boundary, so read again from 99.
    expect(fake.requestsOf("api").map((r) => new URLSearchParams(r.rawQuery).get("offset"))).toEqual(["0", "100", "99"]);
  });

  it("maps a receipt: buyer, ship-to, totals, the receipt's tax spread over its lines, lines with Sku, quantity and price", async () => {
    const receipt = sampleReceipt({
      receiptId: 3_100_000_001,
      created: new Date("2026-02-28T10:00:00.000Z"),
      updated: new Date("2026-02-28T10:05:00.000Z"),
      name: "Grace Brewster Hopper",
      transactions: [
        { transactionId: 4_100_000_001, sku: "MUG-RED", title: "Red mug", quantity: 2, price: 1250, shopCoupon: 125 },
        { transactionId: 4_100_000_002, sku: "PLATE-BLUE", title: "Blue plate", quantity: 1, price: 725, shippingMethod: "USPS Priority" },
      ],
      tax: 201,
      shipping: 450,
      discount: 125,
    });
    const { connector } = setup({ receipts: [receipt] });
    const order = await importedOne(connector);
    expect(order).toEqual({
      sourceOrderNumber: "3100000001",
      sourceCustomerOrderNumber: null,
      sourceOrderStatus: "paid",
      createdAt: new Date("2026-02-28T10:00:00.000Z"),
      buyerEmail: "buyer3100000001@example.com",
      buyerPhone: "",
      buyerUserId: "7000001",
      shipTo: {
        firstName: "Grace Brewster",
        lastName: "Hopper",
        companyName: null,
        street1: "12 Analytical Row",
        street2: "Apt 3",
        city: "Hudson",
        stateOrProvince: "NY",
        postalCode: "12534",
        country: "US",
      },
      shippingMethod: "Standard Shipping",
      shippingServiceName: "Standard Shipping",
      shippingServiceValue: "Standard Shipping",
      paymentType: "cc",
      paymentTransactionId: null,
      isPrime: false,
      subTotal: 31,
      shippingTotal: 4.5,
      shippingTaxTotal: 0,
      giftWrapTotal: 0,
      giftWrapTaxTotal: 0,
      grandTotal: 37.51,
      items: [
        // 2.01 of tax over lines of 25.00 and 7.25: 1.55 and 0.45 rounded down, the cent left over to the first line.
        { sourceLineId: "4100000001", sku: "MUG-RED", name: "Red mug", quantity: 2, unitPrice: 12.5, saleTaxCost: 1.56, discount: "1.25" },
        { sourceLineId: "4100000002", sku: "PLATE-BLUE", name: "Blue plate", quantity: 1, unitPrice: 7.25, saleTaxCost: 0.45, discount: "0.00" },
      ],
    });
  });

  it("keeps Etsy's status word: paid, completed (shipped on Etsy), canceled; leaves out receipts nobody has paid yet", async () => {
    const { connector } = setup({
      receipts: [
        receiptAt(1, { status: "paid" }),
        receiptAt(2, { status: "completed" }),
        receiptAt(3, { status: "canceled" }),
        receiptAt(4, { status: "open" }),
        receiptAt(5, { status: "payment processing" }),
        receiptAt(6, { status: "fully refunded" }),
      ],
    });
    const [page] = await importAll(connector);
    expect(page!.orders.map((o) => [o.sourceOrderNumber, o.sourceOrderStatus])).toEqual([
      ["3000000001", "paid"],
      ["3000000002", "completed"],
      ["3000000003", "canceled"],
      ["3000000006", "fully refunded"],
    ]);
    // A receipt canceled on Etsy before shipping: every unit cancelled; the others say nothing.
    expect(page!.orders.map((o) => o.items.map((i) => [i.quantity, i.quantityCancelled]))).toEqual([
      [[1, undefined]],
      [[1, undefined]],
      [[1, 1]],
      [[1, undefined]],
    ]);
    expect(page!.setAside).toEqual([]);
  });

  it("imports a receipt whose address and email Etsy withholds with what there is", async () => {
    const { fake, connector } = setup({ receipts: [receiptAt(1)] });
    fake.withhold(3_000_000_001);
    const order = await importedOne(connector);
    expect(order.shipTo).toEqual({
      firstName: "",
      lastName: "",
      companyName: null,
      street1: "",
      street2: "",
      city: "",
      stateOrProvince: "",
      postalCode: "",
      country: "",
    });
    expect(order.buyerEmail).toBe("");
    expect(order.items.map((i) => i.sku)).toEqual(["SKU-4000000010"]);
    expect(fake.violations).toEqual([]);
  });

  it("sets aside a transaction without a Sku and unreadable money, imports the rest of the page; remap says the same", async () => {
    const noSku = receiptAt(2, {
      transactions: [
        { transactionId: 4_000_000_021, quantity: 1, price: 500 },
        { transactionId: 4_000_000_022, sku: null, quantity: 1, price: 500 },
      ],
    });
    const badMoney = receiptAt(3);
    badMoney.transactions![0]!.price = { amount: 1000, divisor: 0, currency_code: "USD" };
    const twoCurrencies = receiptAt(4);
    twoCurrencies.total_shipping_cost = money(300, "EUR");
    const { connector } = setup({ receipts: [receiptAt(1), noSku, badMoney, twoCurrencies] });
    const [page] = await importAll(connector);
    expect(page!.orders.map((o) => o.sourceOrderNumber)).toEqual(["3000000001"]);
    expect(page!.setAside.map((s) => [s.sourceOrderNumber, s.reason])).toEqual([
      ["3000000002", "Etsy receipt 3000000002 transaction 4000000022 has no SKU"],
      ["3000000003", "Etsy receipt 3000000003 transaction 4000000030 price is not readable money (amount 1000, divisor 0)"],
      ["3000000004", "Etsy receipt 3000000004 total_shipping_cost is in EUR, the rest of the receipt in USD"],
    ]);
    expect(page!.setAside[0]!.record).toEqual(noSku);
    expect(connector.remap(page!.setAside[0]!.record)).toMatchObject({
      sourceOrderNumber: "3000000002",
      reason: "Etsy receipt 3000000002 transaction 4000000022 has no SKU",
    });
    const fixed = structuredClone(noSku);
    fixed.transactions![1]!.sku = "FIXED";
    expect(connector.remap(fixed)).toMatchObject({ sourceOrderNumber: "3000000002", items: [{ sku: "SKU-4000000021" }, { sku: "FIXED" }] });
    expect(connector.remap("nonsense")).toMatchObject({ sourceOrderNumber: "(no receipt_id)" });
  });

  it("turns Etsy's errors into MarketplaceErrors with Etsy's words: 500 retryable, 403 final", async () => {
    const { fake, connector, make } = setup();
    fake.failNext({ status: 500, body: { error: "Internal server error" } });
    const down = await rejection(importAll(connector));
    expect([down.status, down.retryable, down.message]).toEqual([500, true, "Etsy 500 on getShopReceipts: Internal server error"]);
    // Another shop id with the same credentials: the kept token is reused, Etsy refuses the shop.
    const foreign = await rejection(importAll(make({ shopId: 27 })));
    expect([foreign.status, foreign.retryable, foreign.message]).toEqual([
      403,
      false,
      "Etsy 403 on getShopReceipts: The authenticated user does not own shop 27",
    ]);
  });

  // Etsy's pages are offsets the connector counts itself: a list that never ends, or whose count
  // shrinks at every page, goes on until the engine's page limit for one window stops it.
  it("reads the next page a bad day names, never ending or stepping back: the engine's to stop", async () => {
    for (const [shrinking, expected] of [
      [false, ["1/1000000", "2/1000000", "3/1000000"]],
      [true, ["1/1000000", "0/999999", "0/999998"]],
    ] as const) {
      const { fake, connector } = setup();
      fake.failNext(etsyPagesForEver(shrinking));
      const cursors: (string | null)[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 3; i++) {
        const page: OrderPage = await connector.fetchOrders(WINDOW, cursor);
        expect([page.orders, page.setAside.map((a) => a.reason)]).toEqual([[], ["Etsy sent a receipt without a receipt_id"]]);
        cursors.push((cursor = page.nextCursor));
      }
      expect(cursors).toEqual(expected);
    }
  });

  it("refuses an answer without results or count rather than ending the import early", async () => {
    const { fake, connector } = setup();
    fake.failNext({ status: 200, body: { results: "none" } });
    const error = await rejection(importAll(connector));
    expect([error.retryable, error.message]).toEqual([true, "Etsy getShopReceipts answer has no results list or count"]);
  });
});

describe("Etsy deliveries", () => {
  it("ships with createReceiptShipment (form tracking_code, carrier_name) once, after reading the receipt; keeps the shipment id", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    // Pasted as printed, in groups: sent without the spaces.
    const outcome = await connector.ship(shipDelivery(order, { trackingNumber: "9400 1118 9922 3197 4284 90", carrier: "USPS" }));
    expect(outcome).toEqual({ state: "delivered", reference: "70001", warning: null });
    const calls = fake.requestsOf("api").slice(1);
    expect(calls.map((r) => [r.method, r.path])).toEqual([
      ["GET", "/v3/application/shops/31415926/receipts/3000000001"],
      ["POST", "/v3/application/shops/31415926/receipts/3000000001/tracking"],
    ]);
    expect(calls[1]!.rawBody).toBe("tracking_code=9400111899223197428490&carrier_name=USPS");
    expect(calls[1]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(fake.receipts.get(3_000_000_001)).toMatchObject({
      status: "completed",
      is_shipped: true,
      shipments: [{ tracking_code: "9400111899223197428490", carrier_name: "USPS" }],
    });
    expect(fake.violations).toEqual([]);
  });

  it("sends nothing again when Etsy already has the tracking code (an attempt whose answer was lost)", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    fake.loseNextAnswer("createReceiptShipment");
    const lost = await rejection(connector.ship(shipDelivery(order)));
    expect(lost.retryable).toBe(true);
    const again = await connector.ship(shipDelivery(order));
    expect(again).toEqual({
      state: "delivered",
      reference: "70001",
      warning: "Etsy already had this tracking code (an earlier attempt reached it); nothing sent again",
    });
    expect(fake.requestsOf("api").filter((r) => r.operationId === "createReceiptShipment")).toHaveLength(1);
    expect(fake.receipts.get(3_000_000_001)!.shipments).toHaveLength(1);
  });

  it("sends a tracking code without a carrier as `other`, and a carrier without tracking as a plain shipped mark", async () => {
    const cheap = receiptAt(2, { transactions: [{ transactionId: 4_000_000_020, quantity: 1, price: 800 }] });
    const { fake, connector } = setup({ receipts: [receiptAt(1), cheap] });
    const [page] = await importAll(connector);
    const [first, second] = page!.orders;
    expect(await connector.ship(shipDelivery(first!, { carrier: null }))).toMatchObject({ state: "delivered", warning: "no carrier given: sent as `other`" });
    expect(await connector.ship(shipDelivery(second!, { trackingNumber: null, carrier: "UPS" }))).toEqual({
      state: "delivered",
      reference: null,
      warning: "carrier UPS without a tracking number: the receipt was only marked shipped",
    });
    const posts = fake.requestsOf("api").filter((r) => r.operationId === "createReceiptShipment");
    expect(posts.map((r) => r.rawBody)).toEqual(["tracking_code=9400111899223197428490&carrier_name=other", ""]);
    expect(fake.receipts.get(3_000_000_002)).toMatchObject({ is_shipped: true, shipments: [] });
    expect(fake.violations).toEqual([]);
  });

  it("reports Etsy's refusal of a US receipt over $10 without tracking, and a cancelled receipt, as final", async () => {
    const { fake, connector } = setup({
      receipts: [receiptAt(1, { transactions: [{ transactionId: 4_000_000_010, quantity: 2, price: 1000 }] }), receiptAt(2)],
    });
    const [page] = await importAll(connector);
    const noTracking = await rejection(connector.ship(shipDelivery(page!.orders[0]!, { trackingNumber: null, carrier: null })));
    expect([noTracking.status, noTracking.retryable, noTracking.message]).toEqual([
      400,
      false,
      "Etsy 400 on createReceiptShipment: Tracking code and carrier name are required for this receipt",
    ]);
    fake.touch(3_000_000_002, (r) => (r.status = "canceled"));
    const cancelled = await rejection(connector.ship(shipDelivery(page!.orders[1]!)));
    expect([cancelled.retryable, cancelled.message]).toEqual([false, "Etsy receipt 3000000002 is canceled on Etsy: nothing was shipped"]);
    expect(fake.requestsOf("api").filter((r) => r.operationId === "createReceiptShipment")).toHaveLength(1);
  });

  it("a corrected tracking code goes in beside the first, and the delivery says Etsy keeps both", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    await connector.ship(shipDelivery(order));
    const corrected = await connector.ship(shipDelivery(order, { trackingNumber: "1Z999AA10123456784", carrier: "UPS" }));
    expect(corrected).toEqual({
      state: "delivered",
      reference: "70002",
      warning: "Etsy keeps the receipt's earlier tracking code beside this one, and mailed the buyer again",
    });
    expect(fake.receipts.get(3_000_000_001)!.shipments!.map((s) => s.tracking_code)).toEqual(["9400111899223197428490", "1Z999AA10123456784"]);
  });

  it("explains a 403 on the shipment: some apps may not ship through Etsy's API", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    fake.denyShipments();
    const error = await rejection(connector.ship(shipDelivery(order)));
    expect([error.status, error.retryable]).toEqual([403, false]);
    expect(error.message).toBe(
      "Etsy 403 on createReceiptShipment: This application is not permitted to submit tracking for this shop (Etsy lets some apps not ship through its " +
        "API, e.g. commercial apps for US shops connected since 2024-10-21: ship on Etsy, see the Etsy source README)",
    );
  });

  it("has no acknowledgement and no cancellation: NotApplicable with the reason, without a call", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const before = fake.requests.length;
    const ack = { id: 1, idempotencyKey: "source-1-1", kind: "acknowledge" as const, order: deliveryOrder(order), earlier: [], sellerOrderNumber: "SO-1" };
    const cancel = { id: 2, idempotencyKey: "source-1-2", kind: "cancel" as const, order: deliveryOrder(order), earlier: [], reason: "Canceled by seller" };
    expect(connector.notApplicable!(ack)).toBe("Etsy's API has no order acknowledgement: a paid receipt is the seller's to fulfil as it is");
    expect(connector.notApplicable!(cancel)).toBe(
      "Etsy's API cannot cancel a receipt: the seller must cancel the order on Etsy (Shop Manager), which refunds the buyer",
    );
    expect(await connector.acknowledge(ack)).toEqual({ state: "notApplicable", reason: connector.notApplicable!(ack) });
    expect(await connector.cancel(cancel)).toEqual({ state: "notApplicable", reason: connector.notApplicable!(cancel) });
    expect(connector.notApplicable!(shipDelivery(order))).toBeNull();
    expect(fake.requests.length).toBe(before);
  });
});

describe("Etsy's rate limits", () => {
  it("spaces calls at the per-second limit Etsy states, so a long import sees no 429", async () => {
    const receipts = Array.from({ length: 450 }, (_, i) => receiptAt(i + 1));
    const { fake, connector, slept } = setup({ receipts, fake: { perSecond: 2 } });
    const pages = await importAll(connector);
    expect(pages).toHaveLength(5);
    expect(fake.throttled()).toBe(0);
    // The first call knows no limit yet (10/s assumed); from the first answer on, 2/s: 500 ms
    // apart, and a second more after an answer that says none are left this second.
    expect(slept).toEqual([500, 1000, 500, 1000]);
    expect(fake.requestsOf("api").map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it("waits for the next second when an answer says none are left this second", async () => {
    const receipts = Array.from({ length: 250 }, (_, i) => receiptAt(i + 1));
    const { fake, connector, slept } = setup({ receipts, fake: { perSecond: 1 } });
    await importAll(connector);
    expect(slept).toEqual([1000, 1000]);
    expect(fake.throttled()).toBe(0);
  });

  it("waits out a 429's retry-after once; a long one is left to the cycle, with the wait", async () => {
    const { fake, connector, slept } = setup();
    fake.failNext({ status: 429, body: { error: "Exceeded per second rate limit" }, headers: { "retry-after": "2" } });
    expect((await importAll(connector))[0]!.orders).toHaveLength(1);
    expect(slept).toEqual([2000]);
    fake.failNext({ status: 429, body: { error: "Exceeded per day rate limit" }, headers: { "retry-after": "600" } });
    const error = await rejection(importAll(connector));
    expect([error.status, error.retryable, error.retryAfterMs, error.message]).toEqual([
      429,
      true,
      600_000,
      "Etsy 429 on getShopReceipts: Exceeded per day rate limit",
    ]);
  });

  it("stops an import when few calls are left today, keeping them for deliveries", async () => {
    const receipts = Array.from({ length: 450 }, (_, i) => receiptAt(i + 1));
    const { fake, connector } = setup({ receipts, fake: { perDay: 103 } });
    const first = await connector.fetchOrders(WINDOW, null);
    const error = await rejection(
      (async () => {
        for (let cursor = first.nextCursor; cursor !== null; ) cursor = (await connector.fetchOrders(WINDOW, cursor)).nextCursor;
      })(),
    );
    expect([error.status, error.retryable, error.retryAfterMs]).toEqual([429, true, null]);
    expect(error.message).toBe("Etsy has 100 calls left today for this app (x-remaining-today); the import stops while 100 or fewer are left, for deliveries");
    expect(fake.requestsOf("api")).toHaveLength(3);
    // A shipment still goes out.
    expect(await connector.ship(shipDelivery(first.orders[0]!))).toMatchObject({ state: "delivered" });
    expect(fake.requestsOf("api").map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(fake.throttled()).toBe(0);
  });
});

describe("Etsy settings through the admin API", () => {
  const good = { ...SETTINGS };

  it.each([
    [{ ...good, keystring: undefined }, "'Settings.keystring': keystring is required"],
    [{ ...good, sharedSecret: "  " }, "'Settings.sharedSecret': sharedSecret must not be empty"],
    [{ ...good, refreshToken: 42 }, "'Settings.refreshToken': refreshToken must be a string"],
    [{ ...good, keystring: "abc:def" }, "'Settings.keystring': keystring must not contain a colon or spaces"],
    [{ ...good, shopId: "31415926" }, "'Settings.shopId': shopId must be a number"],
    [{ ...good, shopId: 0 }, "'Settings.shopId': shopId must be Etsy's numeric shop id (1 or more)"],
    [{ ...good, shopId: 3.5 }, "'Settings.shopId': shopId must be a whole number"],
    [{ ...good, baseUrl: "http://openapi.etsy.com" }, "'Settings.baseUrl': must be an https URL"],
    [{ ...good, tokenUrl: "not a url" }, "'Settings.tokenUrl': must be an https URL"],
    [{ ...good, marketplaceId: "EBAY_US" }, `'Settings': Unrecognized key: "marketplaceId"`],
  ])("answers 400 naming the setting (%#)", async (settings, message) => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "etsy", Name: "Etsy", Settings: JSON.parse(JSON.stringify(settings)) });
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toContain(message);
  });

  it("keeps the keystring, shared secret and refresh token secret in answers", async () => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "etsy", Name: "Etsy", Settings: good });
    expect(res.status).toBe(200);
    expect((res.json.Source as { Settings: Record<string, unknown> }).Settings).toEqual({
      keystring: "********",
      sharedSecret: "********",
      refreshToken: "********",
      shopId: 31415926,
    });
    expect(res.text).not.toContain(ETSY_FAKE_SHARED_SECRET);
    expect(res.text).not.toContain(ETSY_FAKE_REFRESH_TOKEN);
  });
});

describe("Etsy in the console", () => {
  it("offers an Etsy source form built from the schema: the secrets as password fields, shopId as a number", async () => {
    const login = await exports.default.fetch(
      new Request(`${BASE}/console/login`, {
        method: "POST",
        headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ key: ADMIN_KEY }),
        redirect: "manual",
      }),
    );
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const storeId = await createStore();
    const page = await exports.default.fetch(new Request(`${BASE}/console/stores/${storeId}/sources`, { headers: { cookie } }));
    expect(page.status).toBe(200);
    const html = await page.text();
    const input = (name: string, type: string) => new RegExp(`<input(?=[^>]*id="add-etsy-Settings-${name}")(?=[^>]*type="${type}")[^>]*>`);
    expect(html).toMatch(/<input(?=[^>]*name="Type")(?=[^>]*value="etsy")[^>]*>/);
    for (const secret of ["keystring", "sharedSecret", "refreshToken"]) expect(html).toMatch(input(secret, "password"));
    expect(html).toMatch(input("shopId", "number"));
    expect(html).toMatch(input("baseUrl", "text"));
  });
});

describe("the fake Etsy holds requests to the description", () => {
  async function accessToken(fake: EtsyFake): Promise<string> {
    const res = await fake.fetch(ETSY_FAKE_TOKEN_URL, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `grant_type=refresh_token&client_id=${ETSY_FAKE_KEYSTRING}&refresh_token=${encodeURIComponent(ETSY_FAKE_REFRESH_TOKEN)}`,
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it("refuses what a careless connector would send, and records each as a violation", async () => {
    const fake = createEtsyFake({ now: () => new Date(START), receipts: [receiptAt(1)] });
    const token = await accessToken(fake);
    const shop = "https://openapi.etsy.com/v3/application/shops/31415926";
    const good = { "x-api-key": `${ETSY_FAKE_KEYSTRING}:${ETSY_FAKE_SHARED_SECRET}`, Authorization: `Bearer ${token}` };
    const form = { ...good, "Content-Type": "application/x-www-form-urlencoded" };
    const answers = [
      await fake.fetch(`${shop}/receipts?limit=101`, { headers: good }),
      await fake.fetch(`${shop}/receipts?sort_order=upwards&min_last_modified=100`, { headers: good }),
      await fake.fetch(`${shop}/receipts?updated_since=1772236800`, { headers: good }),
      await fake.fetch(`${shop}/receipts?offset=1&offset=2`, { headers: good }),
      await fake.fetch(`${shop}/receipts`, { headers: { "x-api-key": ETSY_FAKE_KEYSTRING, Authorization: `Bearer ${token}` } }),
      await fake.fetch(`${shop}/receipts`, { headers: { "x-api-key": `${ETSY_FAKE_KEYSTRING}:${ETSY_FAKE_SHARED_SECRET}` } }),
      await fake.fetch(`${shop}/receipts/3000000001/tracking`, { method: "POST", headers: form, body: "tracking_code=1Z&carrier=UPS" }),
      await fake.fetch(`${shop}/receipts/3000000001/tracking`, { method: "POST", headers: { ...good, "Content-Type": "application/json" }, body: "{}" }),
      await fake.fetch(`${shop}/receipts/3000000001/transactions`, { headers: good }),
      await fake.fetch(`${shop}/receipts/abc`, { headers: good }),
      await fake.fetch("https://openapi.etsy.com/v3/public/oauth/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=x",
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 403, 401, 400, 400, 400, 400, 400]);
    expect(fake.violations).toEqual([
      "GET /v3/application/shops/31415926/receipts: query parameter limit: 101 is above the maximum 100",
      'GET /v3/application/shops/31415926/receipts: query parameter sort_order: "upwards" is not one of "asc", "ascending", "desc", "descending", "up", "down"',
      "GET /v3/application/shops/31415926/receipts: query parameter min_last_modified: 100 is below the minimum 946684800",
      "GET /v3/application/shops/31415926/receipts: query parameter updated_since is not in the description of getShopReceipts",
      "GET /v3/application/shops/31415926/receipts: query parameter offset is given twice",
      "GET /v3/application/shops/31415926/receipts: x-api-key is the bare keystring",
      'GET /v3/application/shops/31415926/receipts: Authorization must be "Bearer <access token>", got null',
      "POST /v3/application/shops/31415926/receipts/3000000001/tracking: form field carrier is not in the description of createReceiptShipment",
      "POST /v3/application/shops/31415926/receipts/3000000001/tracking: Content-Type must be application/x-www-form-urlencoded, got application/json",
      "GET /v3/application/shops/31415926/receipts/3000000001/transactions: getShopReceiptTransactionsByReceipt is not an operation the connector should call",
      'GET /v3/application/shops/31415926/receipts/abc: path parameter receipt_id must be an integer, got "abc"',
      'POST /v3/public/oauth/token: grant_type must be refresh_token, got "client_credentials"',
      "POST /v3/public/oauth/token: refresh_token is required",
    ]);
  });

  it("meters calls per second and per day, answering 429 with retry-after beyond them", async () => {
    let ms = START;
    const fake = createEtsyFake({ now: () => new Date(ms), receipts: [receiptAt(1)], perSecond: 2, perDay: 3 });
    const token = await accessToken(fake);
    const headers = { "x-api-key": `${ETSY_FAKE_KEYSTRING}:${ETSY_FAKE_SHARED_SECRET}`, Authorization: `Bearer ${token}` };
    const url = "https://openapi.etsy.com/v3/application/shops/31415926/receipts/3000000001";
    const seen: (string | null)[][] = [];
    for (const step of [0, 100, 100, 1000, 1000]) {
      ms += step;
      const res = await fake.fetch(url, { headers });
      seen.push([String(res.status), res.headers.get("x-remaining-this-second"), res.headers.get("x-remaining-today"), res.headers.get("retry-after")]);
    }
    expect(seen).toEqual([
      ["200", "1", "2", null],
      ["200", "0", "1", null],
      ["429", "0", "1", "1"],
      ["200", "1", "0", null],
      ["429", "2", "0", "86398"],
    ]);
    expect(fake.throttled()).toBe(2);
  });
});
