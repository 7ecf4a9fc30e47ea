// The eBay connector call by call against the fake eBay of test/marketplaces/ebay, which checks every request
// against eBay's published description (and the Post-Order calls against the reference README).
import { describe, expect, it } from "vitest";
import {
  MarketplaceError,
  type CancelDelivery,
  type Connector,
  type EarlierDelivery,
  type ImportedOrder,
  type ImportWindow,
  type OrderPage,
  type SetAsideOrder,
  type ShipDelivery,
} from "../../../src/marketplaces/connector";
import { createEbayConnector } from "../../../src/marketplaces/ebay/ebay.connector";
import { memoryStorage, type SourceStorage } from "../../../src/marketplaces/storage";
import { admin, createStore } from "../../helpers/api";
import { adminSent, expectNoFailures, fuzzer, send, toJson, type Fuzzer } from "../../helpers/fuzz";
import {
  createEbayFake,
  EBAY_FAKE_CLIENT_ID,
  EBAY_FAKE_CLIENT_SECRET,
  EBAY_FAKE_REFRESH_TOKEN,
  fulfillmentError,
  postOrderError,
  type EbayFake,
  ebayPagesForEver,
} from "./ebay-fake";
import { orderIdOf, sampleOrder, type SampleOrder } from "./ebay-orders";
import { rejection } from "../../helpers/rejection";
import { deliveryOrder, importAll as importPages } from "../fake-kit/connector-calls";

const START = Date.parse("2026-03-01T12:00:00.000Z");
const HOUR = 3_600_000;
const WINDOW: ImportWindow = { since: new Date("2026-02-28T00:00:00.000Z"), until: new Date("2026-03-01T11:58:00.000Z") };
const FULFILLMENT_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.fulfillment";

function orderAt(seq: number, extra: Partial<SampleOrder> = {}) {
  const created = new Date(Date.parse("2026-02-28T01:00:00.000Z") + seq * 60_000);
  return sampleOrder({
    orderId: orderIdOf(seq),
    created,
    modified: new Date(created.getTime() + 5 * 60_000),
    lines: [{ lineItemId: String(10_000_000_000 + seq * 10), quantity: 1, unitPrice: "10.00" }],
    ...extra,
  });
}

function setup(options: { orders?: ReturnType<typeof sampleOrder>[]; settings?: Record<string, unknown>; storage?: SourceStorage } = {}) {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createEbayFake({ now, orders: options.orders ?? [orderAt(1)] });
  const storage = options.storage ?? memoryStorage();
  const make = (settings: Record<string, unknown> = options.settings ?? {}) =>
    createEbayConnector(
      {
        sourceId: "source-1",
        settings: {
          clientId: EBAY_FAKE_CLIENT_ID,
          clientSecret: EBAY_FAKE_CLIENT_SECRET,
          refreshToken: EBAY_FAKE_REFRESH_TOKEN,
          marketplaceId: "EBAY_US",
          ...settings,
        },
        fetch: fake.fetch,
        now,
      },
      storage,
    );
  return {
    fake,
    storage,
    connector: make(),
    make,
    advance(ms: number) {
      nowMs += ms;
    },
  };
}

const importAll = (connector: Connector, window = WINDOW, between?: (page: number) => void) => importPages(connector, window, { between });

let nextId = 1;
function shipDelivery(
  order: ImportedOrder,
  shipment: { trackingNumber?: string | null; carrier?: string | null; lines?: { sourceLineId: string; quantity: number }[] } = {},
  earlier: EarlierDelivery[] = [],
): ShipDelivery {
  const id = nextId++;
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    kind: "ship",
    order: deliveryOrder(order),
    earlier,
    shipment: {
      trackingNumber: shipment.trackingNumber === undefined ? "9400111899223197428490" : shipment.trackingNumber,
      carrier: shipment.carrier === undefined ? "USPS" : shipment.carrier,
      shippingMethod: "USPSPriority",
      shippedAt: new Date("2026-03-01T10:30:00.000Z"),
      lines: shipment.lines ?? order.items.map((i) => ({ sourceLineId: i.sourceLineId, quantity: i.quantity })),
    },
  };
}

function cancelDelivery(order: ImportedOrder, earlier: EarlierDelivery[] = []): CancelDelivery {
  const id = nextId++;
  return { id, idempotencyKey: `source-1-${id}`, kind: "cancel", order: deliveryOrder(order), earlier, reason: "Canceled by seller" };
}

async function importedOne(connector: Connector): Promise<ImportedOrder> {
  const [page] = await importAll(connector);
  return page!.orders[0]!;
}

const tokenCalls = (fake: EbayFake) => fake.requestsOf("token");

describe("eBay token", () => {
  it("renews a user token with the refresh-token grant, Basic client auth and the sell.fulfillment scope, then reuses it", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders(WINDOW, null);
    await connector.fetchOrders(WINDOW, null);

    const [token] = tokenCalls(fake);
    expect(tokenCalls(fake)).toHaveLength(1);
    expect(token!.method).toBe("POST");
    expect(token!.url).toBe("https://api.ebay.com/identity/v1/oauth2/token");
    expect(token!.headers.authorization).toBe(`Basic ${btoa(`${EBAY_FAKE_CLIENT_ID}:${EBAY_FAKE_CLIENT_SECRET}`)}`);
    expect(token!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(token!.rawBody))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "v^1.1#i^1#r^1#fake-refresh-token",
      scope: FULFILLMENT_SCOPE,
    });
    const calls = fake.requestsOf("fulfillment");
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.headers.authorization).toBe(`Bearer ${fake.tokens[0]}`);
    expect(fake.violations).toEqual([]);
  });

  it("talks to the sandbox's hosts when baseUrl is the sandbox, and to an explicit tokenUrl", async () => {
    const sandbox = setup({ settings: { baseUrl: "https://api.sandbox.ebay.com/" } });
    await sandbox.connector.fetchOrders(WINDOW, null);
    expect(sandbox.fake.requests.map((r) => r.url.split("?")[0])).toEqual([
      "https://api.sandbox.ebay.com/identity/v1/oauth2/token",
      "https://api.sandbox.ebay.com/sell/fulfillment/v1/order",
    ]);
    const own = setup({ settings: { tokenUrl: "https://auth.example.test/identity/v1/oauth2/token" } });
    await own.connector.fetchOrders(WINDOW, null);
    expect(own.fake.requests[0]!.url).toBe("https://auth.example.test/identity/v1/oauth2/token");
  });

  it("asks once for a token when calls start together", async () => {
    const { fake, connector } = setup();
    await Promise.all([connector.fetchOrders(WINDOW, null), connector.fetchOrders(WINDOW, null), connector.fetchOrders(WINDOW, null)]);
    expect(tokenCalls(fake)).toHaveLength(1);
    expect(fake.requestsOf("fulfillment").map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it("renews shortly before the two hours run out, without a 401", async () => {
    const { fake, connector, advance } = setup();
    await connector.fetchOrders(WINDOW, null);
    advance(2 * HOUR - 4 * 60_000);
    await connector.fetchOrders(WINDOW, null);

    expect(fake.tokens).toHaveLength(2);
    expect(fake.requestsOf("fulfillment").map((r) => [r.status, r.headers.authorization])).toEqual([
      [200, `Bearer ${fake.tokens[0]}`],
      [200, `Bearer ${fake.tokens[1]}`],
    ]);
  });

  it("keeps the token for the next cycle's connector in the source's storage, not across new credentials", async () => {
    const { fake, connector, make } = setup();
    await connector.fetchOrders(WINDOW, null);
    await make().fetchOrders(WINDOW, null);
    expect(tokenCalls(fake)).toHaveLength(1);

    // A new refresh token (the seller consented again) must not ride on the old access token.
    const renewed = make({ refreshToken: "v^1.1#i^1#r^1#another" });
    const error = await rejection(renewed.fetchOrders(WINDOW, null));
    expect(tokenCalls(fake)).toHaveLength(2);
    expect(error.retryable).toBe(false);
  });

  it("drops a token eBay answers 401 to and retries once with a fresh one", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders(WINDOW, null);
    fake.expireTokens();
    await connector.fetchOrders(WINDOW, null);

    expect(fake.requests.map((r) => [r.operationId, r.status])).toEqual([
      ["token", 200],
      ["getOrders", 200],
      ["getOrders", 401],
      ["token", 200],
      ["getOrders", 200],
    ]);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${fake.tokens[1]}`);
    expect(fake.violations).toEqual([]);
  });

  it("gives up after one retry when the fresh token is refused too", async () => {
    const { fake, connector } = setup();
    fake.failNext({ target: "fulfillment", status: 401 });
    fake.failNext({ target: "fulfillment", status: 401 });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.status).toBe(401);
    expect(fake.requestsOf("fulfillment")).toHaveLength(2);
  });

  it("reports a revoked refresh token with eBay's words, as something a retry cannot fix", async () => {
    const { connector } = setup({ settings: { refreshToken: "v^1.1#revoked" } });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(400);
    expect(error.message).toContain("invalid_grant: the provided authorization refresh token is invalid or was issued to another client");
    expect(error.message).toContain("the seller must grant consent again");
  });

  it("reports wrong client credentials (invalid_client) as final too", async () => {
    const { connector } = setup({ settings: { clientSecret: "wrong" } });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("invalid_client: client authentication failed");
  });

  it("retries a token endpoint that is down", async () => {
    const { fake, connector } = setup();
    fake.failNext({ target: "token", status: 503, headers: { "Retry-After": "30" } });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(30_000);
    expect(error.message).toContain("server_error: the token service failed");
    await connector.fetchOrders(WINDOW, null);
    expect(fake.violations).toEqual([]);
  });
});

describe("eBay import (getOrders)", () => {
  it("asks for lastmodifieddate:[since..until] percent-encoded, 200 a page, following next to the end", async () => {
    const orders = Array.from({ length: 450 }, (_, i) => orderAt(i + 1));
    const { fake, connector } = setup({ orders });
    const pages = await importAll(connector);

    const calls = fake.requestsOf("fulfillment");
    expect(calls.map((c) => c.rawQuery)).toEqual([
      "?filter=lastmodifieddate:%5B2026-02-28T00:00:00.000Z..2026-03-01T11:58:00.000Z%5D&limit=200&offset=0",
      "?filter=lastmodifieddate:%5B2026-02-28T00:00:00.000Z..2026-03-01T11:58:00.000Z%5D&limit=200&offset=200",
      "?filter=lastmodifieddate:%5B2026-02-28T00:00:00.000Z..2026-03-01T11:58:00.000Z%5D&limit=200&offset=400",
    ]);
    expect(calls.every((c) => c.method === "GET" && c.path === "/sell/fulfillment/v1/order")).toBe(true);
    expect(pages.map((p) => p.orders.length)).toEqual([200, 200, 50]);
    expect(pages.map((p) => p.nextCursor === null)).toEqual([false, false, true]);
    const numbers = pages.flatMap((p) => p.orders.map((o) => o.sourceOrderNumber));
    expect(new Set(numbers).size).toBe(450);
    expect(numbers[0]).toBe("12-10001-36442");
    expect(fake.violations).toEqual([]);
  });

  it("misses no order when one leaves the range between pages (offsets shift), reading the gap again", async () => {
    const orders = Array.from({ length: 450 }, (_, i) => orderAt(i + 1));
    const { fake, connector, advance } = setup({ orders });
    const pages = await importAll(connector, WINDOW, (page) => {
      if (page === 1) {
        // A buyer's change to the 10th order: it now sorts outside [since..until], and the order
        // that was 201st becomes 200th, on the page already read.
        advance(60_000);
        fake.touch(orderIdOf(10), (o) => {
          o.buyerCheckoutNotes = "Please leave at the door";
        });
      }
    });

    const seen = new Set(pages.flatMap((p) => p.orders.map((o) => o.sourceOrderNumber)));
    expect(seen.size).toBe(450);
    expect(seen.has(orderIdOf(201))).toBe(true);
    // Page 2 answers a total of 449 instead of 450: the connector steps back one place and reads on.
    expect(fake.requestsOf("fulfillment").map((c) => new URLSearchParams(c.rawQuery).get("offset"))).toEqual(["0", "200", "199", "399"]);
    expect(
      pages
        .at(-1)!
        .orders.map((o) => o.sourceOrderNumber)
        .at(-1),
    ).toBe(orderIdOf(450));
    expect(fake.violations).toEqual([]);
  });

  it("reads back no further than the two years getOrders serves", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders({ since: new Date("2020-01-01T00:00:00.000Z"), until: WINDOW.until }, null);
    expect(fake.requestsOf("fulfillment")[0]!.rawQuery).toBe(
      "?filter=lastmodifieddate:%5B2024-03-01T11:58:00.000Z..2026-03-01T11:58:00.000Z%5D&limit=200&offset=0",
    );
    expect(fake.violations).toEqual([]);
  });

  it("maps every field of an order eBay gives", async () => {
    const order = sampleOrder({
      orderId: "01-03955-36441",
      created: new Date("2026-02-28T09:15:02.768Z"),
      modified: new Date("2026-02-28T10:00:00.000Z"),
      salesRecordReference: "1042",
      buyer: "ana_buys",
      shipTo: {
        fullName: "Ana Maria Souza",
        companyName: "Souza Imports",
        addressLine1: "2145 Hamilton Ave",
        addressLine2: "Unit 4",
        city: "San Jose",
        stateOrProvince: "CA",
        postalCode: "95125",
        countryCode: "US",
      },
      shippingServiceCode: "UPSGround",
      shippingCarrierCode: "UPS",
      lines: [
        { lineItemId: "10000000001", sku: "MUG-RED", title: "Red mug", quantity: 2, unitPrice: "12.50", tax: "2.00", promotion: "2.50", shipping: "4.00" },
        { lineItemId: "10000000002", sku: null, legacyItemId: "110554433221", title: "Blue plate", quantity: 1, unitPrice: "7.25", shipping: "0.00" },
      ],
    });
    const { connector } = setup({ orders: [order] });
    const [page] = await importAll(connector);

    expect(page!.setAside).toEqual([]);
    expect(page!.orders).toEqual([
      {
        sourceOrderNumber: "01-03955-36441",
        sourceCustomerOrderNumber: "1042",
        sourceOrderStatus: "NOT_STARTED",
        createdAt: new Date("2026-02-28T09:15:02.768Z"),
        buyerEmail: "ana_buys@members.ebay.com",
        buyerPhone: "4155550199",
        buyerUserId: "ana_buys",
        shipTo: {
          firstName: "Ana Maria",
          lastName: "Souza",
          companyName: "Souza Imports",
          street1: "2145 Hamilton Ave",
          street2: "Unit 4",
          city: "San Jose",
          stateOrProvince: "CA",
          postalCode: "95125",
          country: "US",
        },
        shippingMethod: "UPSGround",
        shippingServiceName: "UPSGround",
        shippingServiceValue: "UPS",
        paymentType: "EBAY",
        paymentTransactionId: null,
        isPrime: false,
        // 25.00 + 7.25 items, less the 2.50 promotion
        subTotal: 29.75,
        shippingTotal: 4,
        shippingTaxTotal: 0,
        giftWrapTotal: 0,
        giftWrapTaxTotal: 0,
        grandTotal: 35.75,
        items: [
          { sourceLineId: "10000000001", sku: "MUG-RED", name: "Red mug", quantity: 2, unitPrice: 12.5, saleTaxCost: 2, discount: "2.50", quantityShipped: 0 },
          {
            sourceLineId: "10000000002",
            sku: "110554433221",
            name: "Blue plate",
            quantity: 1,
            unitPrice: 7.25,
            saleTaxCost: 0,
            discount: "0.00",
            quantityShipped: 0,
          },
        ],
        sourceData: { legacyOrderId: "01-03955-36441", buyerPaid: "true", buyerPaidDate: "2026-02-28T09:16:02.768Z" },
      },
    ]);
  });

  it("sets aside an order it cannot map and imports the rest of the page; remap says the same until the record is fixed", async () => {
    const pickup = orderAt(2, { shipTo: null });
    const { fake, connector } = setup({ orders: [orderAt(1), pickup, orderAt(3)] });
    const [page] = await importAll(connector);

    expect(page!.orders.map((o) => o.sourceOrderNumber)).toEqual([orderIdOf(1), orderIdOf(3)]);
    expect(page!.setAside).toHaveLength(1);
    const aside = page!.setAside[0]!;
    expect(aside.sourceOrderNumber).toBe(orderIdOf(2));
    expect(aside.reason).toBe(`eBay order ${orderIdOf(2)}: it has no shippingStep.shipTo (fulfillment SHIP_TO): nothing for the seller to ship`);
    expect((aside.record as { orderId: string }).orderId).toBe(orderIdOf(2));

    expect((connector.remap(aside.record) as SetAsideOrder).reason).toBe(aside.reason);
    const fixed = structuredClone(aside.record) as ReturnType<typeof sampleOrder>;
    fixed.fulfillmentStartInstructions = orderAt(2).fulfillmentStartInstructions;
    expect((connector.remap(fixed) as ImportedOrder).shipTo.city).toBe("San Jose");
    expect(connector.remap("not an order")).toEqual({
      sourceOrderNumber: "",
      reason: "eBay order (no orderId): it is not a JSON object",
      record: "not an order",
    });
    expect(fake.violations).toEqual([]);
  });

  it("sets aside lines eBay sends without a quantity or any product id, and addresses eBay withholds", async () => {
    const noQuantity = orderAt(1);
    delete noQuantity.lineItems![0]!.quantity;
    const noProduct = orderAt(2);
    delete noProduct.lineItems![0]!.sku;
    delete noProduct.lineItems![0]!.legacyItemId;
    const old = orderAt(3);
    delete old.fulfillmentStartInstructions![0]!.shippingStep!.shipTo!.contactAddress!.addressLine1;
    delete old.fulfillmentStartInstructions![0]!.shippingStep!.shipTo!.fullName;
    const badAmount = orderAt(4);
    badAmount.pricingSummary!.total = { value: "twelve", currency: "USD" };
    const { connector } = setup({ orders: [noQuantity, noProduct, old, badAmount] });
    const [page] = await importAll(connector);

    expect(page!.orders).toEqual([]);
    expect(page!.setAside.map((s) => s.reason)).toEqual([
      `eBay order ${orderIdOf(1)}: line 10000000010 has quantity null, not a positive integer`,
      `eBay order ${orderIdOf(2)}: line 10000000020 has neither a sku nor a legacyItemId`,
      `eBay order ${orderIdOf(3)}: its shipTo has no fullName, addressLine1 (eBay withholds them on orders over 90 days old)`,
      `eBay order ${orderIdOf(4)}: pricingSummary.total "twelve" is not an amount`,
    ]);
  });

  it("keeps eBay's cancellation as the source status", async () => {
    const cancelled = orderAt(1);
    cancelled.cancelStatus = { cancelState: "CANCELED", cancelledDate: "2026-02-28T02:00:00.000Z", cancelRequests: [] };
    const { connector } = setup({ orders: [cancelled] });
    expect((await importedOne(connector)).sourceOrderStatus).toBe("CANCELED");
  });

  it("turns eBay's errors into MarketplaceErrors with eBay's message: 500 and 429 retryable, a refused request final", async () => {
    const { fake, connector } = setup();
    fake.failNext({ target: "fulfillment", status: 500 });
    const down = await rejection(connector.fetchOrders(WINDOW, null));
    expect([down.status, down.retryable, down.message]).toEqual([500, true, "eBay 500 on getOrders: 30500 System error"]);

    fake.failNext({
      target: "fulfillment",
      status: 429,
      body: {
        errors: [
          {
            errorId: 2001,
            domain: "ACCESS",
            category: "REQUEST",
            message: "Too many requests.",
            longMessage: "The request limit has been reached for the resource.",
          },
        ],
      },
      headers: { "Retry-After": "120" },
    });
    const throttled = await rejection(connector.fetchOrders(WINDOW, null));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 120_000]);
    expect(throttled.message).toBe("eBay 429 on getOrders: 2001 Too many requests. (The request limit has been reached for the resource.)");

    fake.failNext({ target: "fulfillment", status: 400, body: fulfillmentError(30850) });
    const refused = await rejection(connector.fetchOrders(WINDOW, null));
    expect([refused.retryable, refused.message]).toEqual([false, "eBay 400 on getOrders: 30850 Start and end dates can't be in the future"]);

    fake.failNextWithError({ target: "fulfillment" });
    const lost = await rejection(connector.fetchOrders(WINDOW, null));
    expect([lost.status, lost.retryable, lost.message]).toEqual([null, true, "eBay GET /sell/fulfillment/v1/order failed: Network connection lost."]);

    fake.failNext({ target: "fulfillment", status: 502, body: "<html>Bad gateway</html>" });
    expect((await rejection(connector.fetchOrders(WINDOW, null))).message).toBe('eBay 502 on getOrders: "<html>Bad gateway</html>"');
  });

  // eBay's pages are offsets: one that names its own offset again is read as the next offset.
  it("reads the next page a bad day names, repeating or never ending: the engine's to stop", async () => {
    for (const [repeating, expected] of [
      [true, ["200/1000000", "201/1000000", "202/1000000"]],
      [false, ["200/1000000", "400/1000000", "600/1000000"]],
    ] as const) {
      const { fake, connector } = setup();
      fake.failNext(ebayPagesForEver(repeating));
      const cursors: (string | null)[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 3; i++) {
        const page: OrderPage = await connector.fetchOrders(WINDOW, cursor);
        expect(page.orders).toEqual([]);
        cursors.push((cursor = page.nextCursor));
      }
      expect(cursors).toEqual(expected);
    }
  });

  it("refuses an answer without a list rather than ending the import early", async () => {
    const { fake, connector } = setup();
    fake.failNext({ target: "fulfillment", status: 200, body: { href: "x" } });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("eBay getOrders answer has no orders list or total");
  });
});

describe("eBay shipping (createShippingFulfillment)", () => {
  const twoLines = () =>
    orderAt(7, {
      lines: [
        { lineItemId: "10000000071", quantity: 2, unitPrice: "5.00" },
        { lineItemId: "10000000072", quantity: 1, unitPrice: "9.00" },
      ],
    });

  it("ships every line with eBay's carrier code, the tracking number as eBay takes it and the shipped date; keeps the fulfillment id", async () => {
    const { fake, connector } = setup({ orders: [twoLines()] });
    const order = await importedOne(connector);
    const outcome = await connector.ship(shipDelivery(order, { trackingNumber: "1Z 999-AA1 0123456784", carrier: "United Parcel Service" }));

    expect(outcome).toEqual({ state: "delivered", reference: "1Z999AA10123456784", warning: null });
    const posts = fake.requestsOf("fulfillment").filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    expect(posts[0]!.path).toBe(`/sell/fulfillment/v1/order/${orderIdOf(7)}/shipping_fulfillment`);
    expect(posts[0]!.headers["content-type"]).toBe("application/json");
    expect(posts[0]!.body).toEqual({
      lineItems: [
        { lineItemId: "10000000071", quantity: 2 },
        { lineItemId: "10000000072", quantity: 1 },
      ],
      shippedDate: "2026-03-01T10:30:00.000Z",
      shippingCarrierCode: "UPS",
      trackingNumber: "1Z999AA10123456784",
    });
    expect(fake.orders.get(orderIdOf(7))!.orderFulfillmentStatus).toBe("FULFILLED");
    expect(fake.violations).toEqual([]);
  });

  it("ships only the lines eBay has not fulfilled yet", async () => {
    const { fake, connector } = setup({ orders: [twoLines()] });
    const order = await importedOne(connector);
    fake.touch(orderIdOf(7), (o) => {
      o.lineItems![0]!.lineItemFulfillmentStatus = "FULFILLED";
    });
    await connector.ship(shipDelivery(order));

    const post = fake.requestsOf("fulfillment").find((r) => r.method === "POST")!;
    expect((post.body as { lineItems: unknown }).lineItems).toEqual([{ lineItemId: "10000000072", quantity: 1 }]);
    expect(fake.violations).toEqual([]);
  });

  it("ships some lines when the shipment names some", async () => {
    const { fake, connector } = setup({ orders: [twoLines()] });
    const order = await importedOne(connector);
    await connector.ship(shipDelivery(order, { lines: [{ sourceLineId: "10000000071", quantity: 1 }] }));

    const post = fake.requestsOf("fulfillment").find((r) => r.method === "POST")!;
    expect((post.body as { lineItems: unknown }).lineItems).toEqual([{ lineItemId: "10000000071", quantity: 1 }]);
    expect(fake.orders.get(orderIdOf(7))!.orderFulfillmentStatus).toBe("IN_PROGRESS");
  });

  it("passes an unknown carrier as given, with a warning for the operator", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const outcome = await connector.ship(shipDelivery(order, { trackingNumber: "JJD000390007982", carrier: "Speedy Parcels" }));

    expect(outcome).toEqual({
      state: "delivered",
      reference: "JJD000390007982",
      warning: 'carrier "Speedy Parcels" is not in the connector\'s table of eBay carrier codes; sent as given',
    });
    const post = fake.requestsOf("fulfillment").find((r) => r.method === "POST")!;
    expect((post.body as { shippingCarrierCode: string }).shippingCarrierCode).toBe("Speedy Parcels");
  });

  it("marks shipped without tracking when there is none, and drops a lone carrier with a warning", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const outcome = await connector.ship(shipDelivery(order, { trackingNumber: null, carrier: "USPS" }));
    expect(outcome).toEqual({ state: "delivered", reference: "999", warning: 'carrier "USPS" not sent: eBay takes a carrier only with a tracking number' });
    const post = fake.requestsOf("fulfillment").find((r) => r.method === "POST")!;
    expect(post.body).toEqual({ lineItems: [{ lineItemId: "10000000010", quantity: 1 }], shippedDate: "2026-03-01T10:30:00.000Z" });
  });

  it("refuses, before calling eBay, a tracking number without a carrier or with characters eBay does not take", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const noCarrier = await rejection(connector.ship(shipDelivery(order, { carrier: null })));
    expect([noCarrier.retryable, noCarrier.message]).toEqual([
      false,
      "eBay needs the carrier with a tracking number (shippingCarrierCode and trackingNumber go together)",
    ]);
    const odd = await rejection(connector.ship(shipDelivery(order, { trackingNumber: "AB/123#4" })));
    expect(odd.message).toBe('eBay takes tracking numbers of letters and digits only; "AB/123#4" has other characters');
    expect(fake.requestsOf("fulfillment").filter((r) => r.method === "POST")).toEqual([]);
  });

  it("a second ship with corrected tracking adds a fulfillment beside the first, which eBay keeps, and says so", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const first = await connector.ship(shipDelivery(order, { trackingNumber: "9400111899223197428490" }));
    const second = await connector.ship(
      shipDelivery(order, { trackingNumber: "9400111899223197428507" }, [
        { kind: "ship", state: "delivered", reference: first.state === "delivered" ? (first.reference ?? null) : null },
      ]),
    );

    expect(second).toEqual({
      state: "delivered",
      reference: "9400111899223197428507",
      warning: "every line was already shipped on eBay: the corrected tracking number was added beside the earlier one, which eBay keeps",
    });
    expect(fake.fulfillments.get(orderIdOf(1))!.map((f) => f.shipmentTrackingNumber)).toEqual(["9400111899223197428490", "9400111899223197428507"]);
    expect(fake.requestsOf("fulfillment").map((r) => r.operationId)).toEqual([
      "getOrders",
      "getOrder",
      "createShippingFulfillment",
      "getOrder",
      "getShippingFulfillments",
      "createShippingFulfillment",
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("repeats nothing when the same tracking number was delivered before", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const outcome = await connector.ship(shipDelivery(order, {}, [{ kind: "ship", state: "delivered", reference: "9400111899223197428490" }]));
    expect(outcome).toEqual({ state: "delivered", reference: "9400111899223197428490", warning: null });
    expect(fake.requestsOf("fulfillment").map((r) => r.operationId)).toEqual(["getOrders"]);
  });

  it("finds the fulfillment of an attempt whose answer was lost instead of adding a duplicate", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    // eBay took the first POST but the answer never arrived.
    const realFetch = fake.fetch;
    let lose = true;
    const lossy = createEbayConnector(
      {
        sourceId: "source-1",
        settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" },
        fetch: async (input, init) => {
          const response = await realFetch(input, init);
          if (lose && response.status === 201) {
            lose = false;
            throw new TypeError("Network connection lost.");
          }
          return response;
        },
        now: () => new Date(START),
      },
      memoryStorage(),
    );
    const lost = await rejection(lossy.ship(shipDelivery(order)));
    expect(lost.retryable).toBe(true);
    const retried = await lossy.ship(shipDelivery(order));

    expect(retried).toEqual({ state: "delivered", reference: "9400111899223197428490", warning: null });
    expect(fake.fulfillments.get(orderIdOf(1))).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("reports eBay's refusal of a fulfillment and a cancelled order as final", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    fake.failNext({ target: "fulfillment", status: 200, body: fake.orders.get(orderIdOf(1)) });
    fake.failNext({ target: "fulfillment", status: 400, body: fulfillmentError(34100) });
    const refused = await rejection(connector.ship(shipDelivery(order)));
    expect([refused.status, refused.retryable, refused.message]).toEqual([
      400,
      false,
      "eBay 400 on createShippingFulfillment: 34100 Maximum tracking number for order is exceeded",
    ]);

    fake.touch(orderIdOf(1), (o) => {
      o.cancelStatus = { cancelState: "CANCELED", cancelRequests: [] };
    });
    const cancelled = await rejection(connector.ship(shipDelivery(order)));
    expect([cancelled.retryable, cancelled.message]).toEqual([false, `eBay cannot ship order ${orderIdOf(1)}: eBay has cancelled it`]);
  });
});

describe("eBay cancellation (Post-Order API)", () => {
  it("checks eligibility, then cancels the whole order with the seller reason and what the buyer paid", async () => {
    const { fake, connector } = setup({ settings: { marketplaceId: "EBAY_GB" } });
    const order = await importedOne(connector);
    const outcome = await connector.cancel(cancelDelivery(order));

    expect(outcome).toEqual({ state: "delivered", reference: "5000000001" });
    const calls = fake.requestsOf("postOrder");
    expect(calls.map((c) => [c.method, c.path])).toEqual([
      ["POST", "/post-order/v2/cancellation/check_eligibility"],
      ["POST", "/post-order/v2/cancellation"],
    ]);
    for (const call of calls) {
      expect(call.headers.authorization).toBe(`Bearer ${fake.tokens[0]}`);
      expect(call.headers["x-ebay-c-marketplace-id"]).toBe("EBAY-UK");
      expect(call.headers["content-type"]).toBe("application/json");
    }
    expect(calls[0]!.body).toEqual({ legacyOrderId: orderIdOf(1) });
    expect(calls[1]!.body).toEqual({
      legacyOrderId: orderIdOf(1),
      cancelReason: "OUT_OF_STOCK_OR_CANNOT_FULFILL",
      buyerPaid: true,
      buyerPaidDate: { value: "2026-02-28T01:02:00.000Z" },
    });
    expect(fake.orders.get(orderIdOf(1))!.cancelStatus!.cancelState).toBe("CANCELED");
    expect(fake.violations).toEqual([]);
  });

  it("sends an unpaid order's cancellation without a paid date, with the reason the source is set to", async () => {
    const { fake, connector } = setup({ orders: [orderAt(1, { paid: false })], settings: { cancelReason: "BUYER_ASKED_CANCEL" } });
    const order = await importedOne(connector);
    await connector.cancel(cancelDelivery(order));
    expect(fake.requestsOf("postOrder")[1]!.body).toEqual({ legacyOrderId: orderIdOf(1), cancelReason: "BUYER_ASKED_CANCEL", buyerPaid: false });
    expect(fake.requestsOf("postOrder")[1]!.headers["x-ebay-c-marketplace-id"]).toBe("EBAY-US");
  });

  it("fails an ineligible order with eBay's reasons and creates nothing", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    fake.refuseCancellation(orderIdOf(1), ["CANCEL_WINDOW_ELAPSED"]);
    const error = await rejection(connector.cancel(cancelDelivery(order)));

    expect([error.retryable, error.message]).toEqual([false, `eBay says order ${orderIdOf(1)} cannot be cancelled: CANCEL_WINDOW_ELAPSED`]);
    expect(fake.requestsOf("postOrder").map((c) => c.operationId)).toEqual(["checkCancellationEligibility"]);
    expect(fake.cancellations.size).toBe(0);
  });

  it("does not cancel twice: an earlier delivered cancellation is the answer", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    const outcome = await connector.cancel(cancelDelivery(order, [{ kind: "cancel", state: "delivered", reference: "5000000009" }]));
    expect(outcome).toEqual({ state: "delivered", reference: "5000000009" });
    expect(fake.requestsOf("postOrder")).toEqual([]);
  });

  it("reads the Post-Order error shape: a 500 is retryable, a 400 final, both with eBay's message", async () => {
    const { fake, connector } = setup();
    const order = await importedOne(connector);
    fake.failNext({ target: "postOrder", status: 500, body: postOrderError(1000, "Internal error. Please wait a few minutes and try the call again.", 500) });
    const down = await rejection(connector.cancel(cancelDelivery(order)));
    expect([down.status, down.retryable, down.message]).toEqual([
      500,
      true,
      "eBay 500 on check_eligibility: 1000 Internal error. Please wait a few minutes and try the call again.",
    ]);

    fake.failNext({
      target: "postOrder",
      status: 200,
      body: { legacyOrderId: orderIdOf(1), eligible: true, eligibleCancelReason: ["OUT_OF_STOCK_OR_CANNOT_FULFILL"] },
    });
    fake.failNext({ target: "postOrder", status: 400, body: postOrderError(1502, "The order is not in a valid state for cancellation.", 400) });
    const refused = await rejection(connector.cancel(cancelDelivery(order)));
    expect([refused.status, refused.retryable, refused.message]).toEqual([
      400,
      false,
      "eBay 400 on create cancellation: 1502 The order is not in a valid state for cancellation.",
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("is NotApplicable where the Post-Order API does not serve the marketplace, and acknowledgement always is", async () => {
    const { fake, connector } = setup({ settings: { marketplaceId: "EBAY_AU" } });
    const order = await importedOne(connector);
    const reason = "eBay's Post-Order API cancels orders of EBAY_US, EBAY_GB and EBAY_DE only, not EBAY_AU";
    const delivery = cancelDelivery(order);
    expect(connector.notApplicable?.(delivery)).toBe(reason);
    expect(await connector.cancel(delivery)).toEqual({ state: "notApplicable", reason });
    expect(await connector.acknowledge({ ...delivery, kind: "acknowledge", sellerOrderNumber: "SO-1" })).toEqual({
      state: "notApplicable",
      reason: "eBay has no order acknowledgement",
    });
    expect(connector.capabilities).toEqual({ acknowledge: false, ship: true, shipLines: true, cancel: true, cancelLines: false });
    expect(fake.requestsOf("postOrder")).toEqual([]);
  });
});

describe("eBay settings through the admin API", () => {
  const good = {
    clientId: EBAY_FAKE_CLIENT_ID,
    clientSecret: EBAY_FAKE_CLIENT_SECRET,
    refreshToken: EBAY_FAKE_REFRESH_TOKEN,
    marketplaceId: "EBAY_DE",
  };

  it.each([
    [{ ...good, refreshToken: undefined }, "'Settings.refreshToken': refreshToken is required"],
    [{ ...good, clientId: "  " }, "'Settings.clientId': clientId must not be empty"],
    [{ ...good, clientSecret: 42 }, "'Settings.clientSecret': clientSecret must be a string"],
    [{ ...good, marketplaceId: "US" }, "'Settings.marketplaceId': marketplaceId must be an eBay marketplace id such as EBAY_US, EBAY_GB or EBAY_DE"],
    [{ ...good, marketplaceId: undefined }, "'Settings.marketplaceId': marketplaceId is required"],
    [{ ...good, baseUrl: "http://api.sandbox.ebay.com" }, "'Settings.baseUrl': must be an https URL"],
    [{ ...good, tokenUrl: "not a url" }, "'Settings.tokenUrl': must be an https URL"],
    [{ ...good, cancelReason: "FOUND_CHEAPER_PRICE" }, "'Settings.cancelReason'"],
  ])("answers 400 naming the setting (%#)", async (settings, message) => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "ebay", Name: "eBay DE", Settings: JSON.parse(JSON.stringify(settings)) });
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toContain(message);
  });

  it("keeps the credentials secret in answers", async () => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "ebay", Name: "eBay DE", Settings: good });
    expect(res.status).toBe(200);
    const settings = (res.json.Source as { Settings: Record<string, unknown> }).Settings;
    expect(settings).toMatchObject({ clientId: "********", clientSecret: "********", refreshToken: "********", marketplaceId: "EBAY_DE" });
    expect(res.text).not.toContain(EBAY_FAKE_REFRESH_TOKEN);
    expect(res.text).not.toContain(EBAY_FAKE_CLIENT_SECRET);
  });
});

describe("the fake eBay holds requests to the description", () => {
  async function issueToken(fake: EbayFake): Promise<string> {
    const res = await fake.fetch("https://api.ebay.com/identity/v1/oauth2/token", {
      method: "POST",
      headers: {
        Authorization: `Basic ${btoa(`${EBAY_FAKE_CLIENT_ID}:${EBAY_FAKE_CLIENT_SECRET}`)}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(EBAY_FAKE_REFRESH_TOKEN)}&scope=${encodeURIComponent(FULFILLMENT_SCOPE)}`,
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it("refuses what a careless connector would send, and records each as a violation", async () => {
    const fake = createEbayFake({ now: () => new Date(START), orders: [orderAt(1)] });
    const token = await issueToken(fake);
    const base = "https://api.ebay.com/sell/fulfillment/v1";
    const bearer = { Authorization: `Bearer ${token}` };
    const answers = [
      await fake.fetch(`${base}/order?filter=lastmodifieddate:[2026-02-28T00:00:00.000Z..2026-03-01T11:58:00.000Z]&limit=200`, { headers: bearer }),
      await fake.fetch(`${base}/order?filter=lastmodifieddate:%5B2026-02-28T00:00:00.000Z..%5D`, { headers: bearer }),
      await fake.fetch(`${base}/order?limit=200`, { headers: bearer }),
      await fake.fetch(`${base}/order/${orderIdOf(1)}?expand=all`, { headers: bearer }),
      await fake.fetch(`${base}/order/${orderIdOf(1)}`, { headers: { Authorization: `IAF ${token}` } }),
      await fake.fetch(`${base}/order/${orderIdOf(1)}/shipping_fulfillment`, {
        method: "POST",
        headers: { ...bearer, "Content-Type": "application/json" },
        body: JSON.stringify({ lineItems: [{ lineItemId: "10000000010", quantity: "1" }], shippedDate: "2026-03-01T10:30:00.000Z", carrier: "UPS" }),
      }),
      await fake.fetch(`${base}/order/${orderIdOf(1)}/shipping_fulfillment`, { method: "POST", headers: bearer, body: "{}" }),
      await fake.fetch(`${base}/order/${orderIdOf(1)}/issue_refund`, {
        method: "POST",
        headers: { ...bearer, "Content-Type": "application/json" },
        body: "{}",
      }),
      await fake.fetch("https://api.ebay.com/post-order/v2/cancellation", {
        method: "POST",
        headers: { ...bearer, "Content-Type": "application/json", "X-EBAY-C-MARKETPLACE-ID": "EBAY_US" },
        body: JSON.stringify({ legacyOrderId: orderIdOf(1), cancelReason: "FOUND_CHEAPER_PRICE", buyerPaid: true, buyerPaidDate: "2026-02-28" }),
      }),
    ];

    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 400]);
    expect(fake.violations).toEqual([
      "GET /order: filter lastmodifieddate:[2026-02-28T00:00:00.000Z..2026-03-01T11:58:00.000Z]: [ ] { | } must be percent-encoded",
      "GET /order: filter lastmodifieddate:[2026-02-28T00:00:00.000Z..2026-03-01T11:58:00.000Z] is not lastmodifieddate:%5B<from>..<to>%5D",
      "GET /order: the filter has no upper bound: offset pages move while orders change",
      "GET /order: filter is missing: getOrders would return the last 90 days instead of the changes asked for",
      `GET /sell/fulfillment/v1/order/${orderIdOf(1)}: query parameter expand is not in the description of getOrder`,
      `GET /sell/fulfillment/v1/order/${orderIdOf(1)}: Authorization must be "Bearer <user access token>", got "IAF ${token}"`,
      `POST /sell/fulfillment/v1/order/${orderIdOf(1)}/shipping_fulfillment: body.lineItems[0].quantity: expected an int32, got "1"`,
      `POST /sell/fulfillment/v1/order/${orderIdOf(1)}/shipping_fulfillment: body.carrier: not a field of the description`,
      `POST /sell/fulfillment/v1/order/${orderIdOf(1)}/shipping_fulfillment: Content-Type must be application/json, got text/plain;charset=UTF-8`,
      `POST /sell/fulfillment/v1/order/${orderIdOf(1)}/issue_refund: the token's scopes (https://api.ebay.com/oauth/api_scope/sell.fulfillment) do not ` +
        `include https://api.ebay.com/oauth/api_scope/sell.finances`,
      "POST /post-order/v2/cancellation: X-EBAY-C-MARKETPLACE-ID must be one of EBAY-US, EBAY-UK, EBAY-DE, got EBAY_US",
      'POST /post-order/v2/cancellation: body.cancelReason "FOUND_CHEAPER_PRICE" is not a seller\'s CancelReasonEnum value',
      'POST /post-order/v2/cancellation: body.buyerPaidDate must be a DateTime {value: "YYYY-MM-DDThh:mm:ss.sssZ"}, got "2026-02-28"',
    ]);
  });

  it("answers in eBay's own error shapes", async () => {
    const fake = createEbayFake({ now: () => new Date(START), orders: [] });
    const token = await issueToken(fake);
    const missing = await fake.fetch("https://api.ebay.com/sell/fulfillment/v1/order/99-99999-99999", { headers: { Authorization: `Bearer ${token}` } });
    expect([missing.status, await missing.json()]).toEqual([
      404,
      {
        errors: [
          {
            errorId: 32100,
            domain: "API_FULFILLMENT",
            category: "REQUEST",
            message: "Invalid Order Id: 99-99999-99999",
            longMessage: "Invalid Order Id: 99-99999-99999",
          },
        ],
      },
    ]);
    const unknown = await fake.fetch("https://api.ebay.com/post-order/v2/cancellation/check_eligibility", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "X-EBAY-C-MARKETPLACE-ID": "EBAY-DE" },
      body: JSON.stringify({ legacyOrderId: "99-99999-99999" }),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ errorMessage: { error: [{ message: "Order 99-99999-99999 was not found" }] } });
    expect(fake.violations).toEqual([]);
  });
});

/** `value` with a few nodes anywhere in it deleted or replaced by hostile values. */
function deepMutate(value: unknown, f: Fuzzer, rate: number): unknown {
  if (Array.isArray(value)) return value.map((v) => (f.chance(rate) ? f.value() : deepMutate(v, f, rate)));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = f.random();
      if (r < rate / 2) continue;
      out[k] = r < rate ? f.value() : deepMutate(v, f, rate);
    }
    return out;
  }
  return f.chance(rate) ? f.value() : value;
}

describe("fuzz: eBay answering nonsense", () => {
  it("maps or sets aside every record of 40 pages of mangled orders, never throwing anything but a MarketplaceError", async () => {
    const f = fuzzer(9_031_977);
    const { fake, connector } = setup();
    const problems: string[] = [];
    let mapped = 0;
    let setAsideCount = 0;
    for (let page = 0; page < 40; page++) {
      const records = Array.from({ length: 10 }, (_, i) =>
        deepMutate(
          orderAt(page * 10 + i, {
            lines: [
              { lineItemId: `${page}${i}1`, quantity: 2, unitPrice: "3.10", tax: "0.50", promotion: "0.20", shipping: "1.00" },
              { lineItemId: `${page}${i}2`, quantity: 1, unitPrice: "4.00" },
            ],
          }),
          f,
          0.08,
        ),
      );
      const plain = f.chance(0.9);
      const body = plain ? { total: records.length, orders: records } : deepMutate({ total: 10, orders: records, next: "?offset=10" }, f, 0.3);
      fake.failNext({ target: "fulfillment", status: 200, body });
      try {
        const result = await connector.fetchOrders(WINDOW, null);
        if (plain && result.orders.length + result.setAside.length !== records.length) {
          problems.push(`page ${page}: ${records.length} records gave ${result.orders.length} orders and ${result.setAside.length} set aside`);
        }
        mapped += result.orders.length;
        setAsideCount += result.setAside.length;
        for (const o of result.orders) {
          const numbers = [o.subTotal, o.shippingTotal, o.grandTotal, ...o.items.flatMap((i) => [i.unitPrice, i.saleTaxCost, Number(i.discount)])];
          if (!numbers.every(Number.isFinite)) problems.push(`${o.sourceOrderNumber}: a number is not finite`);
          if (!o.items.every((i) => Number.isInteger(i.quantity) && i.quantity > 0 && i.sku.trim() && i.name.trim()))
            problems.push(`${o.sourceOrderNumber}: an item is not storable`);
          if (!o.shipTo.firstName || !o.shipTo.street1 || !o.shipTo.city || !o.shipTo.country || !o.shippingMethod)
            problems.push(`${o.sourceOrderNumber}: required text is blank`);
          if (Number.isNaN(o.createdAt.getTime())) problems.push(`${o.sourceOrderNumber}: createdAt is not a date`);
          if (typeof o.sourceData?.legacyOrderId !== "string" || o.sourceData.legacyOrderId === "") problems.push(`${o.sourceOrderNumber}: no legacyOrderId`);
        }
        for (const a of result.setAside) if (!a.reason.startsWith("eBay order ")) problems.push(`set aside without a reason: ${a.reason}`);
      } catch (error) {
        if (!(error instanceof MarketplaceError)) problems.push(`page ${page}: ${String(error)}`);
      }
    }
    expect(problems).toEqual([]);
    // The fuzz must exercise both ways out, or it proves little.
    expect(mapped).toBeGreaterThan(20);
    expect(setAsideCount).toBeGreaterThan(20);
  });
});

describe("fuzz: eBay settings", () => {
  it("answers 300 malformed eBay sources and PATCH merges without a 5xx, storing only valid settings", async () => {
    const f = fuzzer(5_550_101);
    const storeId = await createStore("Fuzz eBay sources");
    const valid = {
      clientId: "id",
      clientSecret: "secret",
      refreshToken: "v^1.1#r",
      marketplaceId: "EBAY_US",
      baseUrl: "https://api.sandbox.ebay.com",
      tokenUrl: "https://api.sandbox.ebay.com/identity/v1/oauth2/token",
      cancelReason: "ADDRESS_ISSUES",
    };
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "ebay", Name: "eBay", Enabled: false, Settings: valid });
    expect(created.status).toBe(200);
    const sourceId = (created.json.Source as { SourceId: string }).SourceId;
    const failures: string[] = [];
    let accepted = 0;
    for (let i = 0; i < 300; i++) {
      const settings = f.chance(0.85) ? f.mutate(valid) : f.value();
      const ct = f.contentType();
      if (f.chance(0.5)) {
        const res = await send(
          failures,
          adminSent("POST", `/stores/${storeId}/sources`, toJson({ Type: "ebay", Name: `E${i}`, Enabled: false, Settings: settings }), ct),
        );
        if (res.status === 200) accepted++;
      } else {
        await send(failures, adminSent("PATCH", `/stores/${storeId}/sources/${sourceId}`, toJson({ Settings: settings }), ct));
      }
    }
    expectNoFailures(failures);
    expect(accepted).toBeGreaterThan(5);
    // Whatever was accepted still builds a connector: nothing invalid was stored.
    const listed = await admin("GET", `/stores/${storeId}/sources`);
    const sources = listed.json.Sources as { Type: string; Settings: Record<string, unknown> }[];
    expect(sources.length).toBe(accepted + 1);
    for (const source of sources) expect(source.Settings.marketplaceId).toMatch(/^EBAY_[A-Z]{2}$/);
  });
});
