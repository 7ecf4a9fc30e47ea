// The Amazon connector call by call against the fake Amazon of test/marketplaces/amazon (built from the
// Selling Partner API models), with explicit clocks: token, import windows and paging, mapping,
// set-aside orders, confirmShipment, the acknowledgement feed round trip, pacing, 429 and 401;
// and an Amazon source's settings through the admin API.
import { describe, expect, it } from "vitest";
import {
  MarketplaceError,
  type Connector,
  type Delivery,
  type DeliveryOutcome,
  type ImportedOrder,
  type OrderPage,
  type SetAsideOrder,
} from "../../../src/marketplaces/connector";
import { createAmazonConnector } from "../../../src/marketplaces/amazon/amazon.connector";
import { amazonSettingsSchema } from "../../../src/marketplaces/amazon/amazon.settings";
import { memoryStorage, type SourceStorage } from "../../../src/marketplaces/storage";
import {
  AMAZON_FAKE_CLIENT_ID,
  AMAZON_FAKE_CLIENT_SECRET,
  AMAZON_FAKE_REFRESH_TOKEN,
  amazonPagesForEver,
  createAmazonFake,
  exampleOrders,
  type AmazonFake,
  type FakeOrder,
} from "./amazon-fake";
import { XMLParser } from "fast-xml-parser";
import { storeD1 } from "../../helpers/shards";
import { admin, createStore } from "../../helpers/api";
import { adminSent, expectNoFailures, fuzzer, send, toJson } from "../../helpers/fuzz";
import { rejection } from "../../helpers/rejection";

const START = Date.parse("2026-03-01T12:00:00Z");
const SINCE = new Date("2024-12-01T00:00:00Z");
const MINUTE = 60_000;
const US = "ATVPDKIKX0DER";
const UK = "A1F83G8C2ARO7P";
const JP = "A1VC38T7YXB528";
const BR = "A2Q3Y263D00KWC";

const SETTINGS = {
  refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
  clientId: AMAZON_FAKE_CLIENT_ID,
  clientSecret: AMAZON_FAKE_CLIENT_SECRET,
  region: "na",
  marketplaceIds: [US, UK, JP, BR],
};

function setup(options: { settings?: Record<string, unknown>; storage?: SourceStorage; fake?: AmazonFake; clock?: { ms: number } } = {}) {
  const clock = options.clock ?? { ms: START };
  const now = () => new Date(clock.ms);
  const fake = options.fake ?? createAmazonFake({ now });
  const storage = options.storage ?? memoryStorage();
  const slept: number[] = [];
  const connector = createAmazonConnector({ sourceId: "source-1", settings: { ...SETTINGS, ...options.settings }, fetch: fake.fetch, now }, storage, {
    sleep: async (ms) => {
      slept.push(ms);
      clock.ms += ms;
    },
  });
  return {
    fake,
    connector,
    storage,
    clock,
    slept,
    advance(ms: number) {
      clock.ms += ms;
    },
    /** A window the way the core builds one: until = now − settleMs. */
    window(since = SINCE) {
      return { since, until: new Date(clock.ms - 2 * MINUTE) };
    },
  };
}

async function allOrders(connector: Connector, window: { since: Date; until: Date }) {
  const orders: ImportedOrder[] = [];
  const setAside: SetAsideOrder[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await connector.fetchOrders(window, cursor);
    orders.push(...page.orders);
    setAside.push(...page.setAside);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null);
  return { orders, setAside, pages };
}

let nextId = 1000;
function deliveryFor(order: ImportedOrder, kind: "acknowledge" | "cancel" | "ship", extra: Record<string, unknown> = {}): Delivery {
  const id = nextId++;
  const base = {
    id,
    idempotencyKey: `source-1-${id}`,
    order: {
      sourceOrderNumber: order.sourceOrderNumber,
      sourceCustomerOrderNumber: null,
      sellerOrderNumber: "SO-77",
      sourceData: order.sourceData ?? {},
      lines: order.items.map((i) => ({ sourceLineId: i.sourceLineId, sku: i.sku, quantity: i.quantity })),
    },
    earlier: [],
  };
  if (kind === "acknowledge") return { ...base, kind, sellerOrderNumber: "SO-77", ...extra } as Delivery;
  if (kind === "cancel") return { ...base, kind, reason: "Canceled by seller", ...extra } as Delivery;
  return {
    ...base,
    kind,
    shipment: {
      trackingNumber: "1Z999AA10123456784",
      carrier: "UPS",
      shippingMethod: "Ground",
      shippedAt: new Date("2026-03-01T10:00:00Z"),
      lines: order.items.map((i) => ({ sourceLineId: i.sourceLineId, quantity: i.quantity })),
    },
    ...extra,
  } as Delivery;
}

async function importExamples(connector: Connector, window: { since: Date; until: Date }) {
  const { orders } = await allOrders(connector, window);
  const byId = new Map(orders.map((o) => [o.sourceOrderNumber, o]));
  return {
    us: byId.get("123-4567890-1234567")!,
    uk: byId.get("202-7654321-1098765")!,
    jp: byId.get("250-1234567-8901234")!,
    br: byId.get("171-2345678-9012345")!,
  };
}

/** Several orders of the seller: the models' UK order again under new ids, one minute apart. */
function moreOrders(fake: AmazonFake, count: number, from = Date.parse("2025-01-01T00:00:00Z")): FakeOrder[] {
  const template = exampleOrders().find((o) => o.orderId === "202-7654321-1098765")!;
  const added: FakeOrder[] = [];
  for (let i = 0; i < count; i++) {
    const order = structuredClone(template);
    order.orderId = `203-${String(1_000_000 + i).padStart(7, "0")}-${String(2_000_000 + i).padStart(7, "0")}`;
    order.lastUpdatedTime = new Date(from + i * MINUTE).toISOString();
    order.orderItems[0]!.orderItemId = String(30_000_000_000_000 + i);
    fake.orders.push(order);
    added.push(order);
  }
  return added;
}

describe("Amazon settings", () => {
  it("names the setting that is missing or wrong", () => {
    const problems = (settings: Record<string, unknown>) => {
      const r = amazonSettingsSchema.safeParse(settings);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(problems(SETTINGS)).toEqual([]);
    expect(problems({ ...SETTINGS, region: undefined })).toEqual([
      "region: region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)",
    ]);
    expect(problems({ ...SETTINGS, region: "us" })).toEqual([
      "region: region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)",
    ]);
    expect(problems({ ...SETTINGS, refreshToken: " " })).toEqual(["refreshToken: refreshToken is required"]);
    expect(problems({ ...SETTINGS, marketplaceIds: [] })).toEqual(["marketplaceIds: marketplaceIds must name at least one marketplace"]);
    expect(problems({ ...SETTINGS, marketplaceIds: "ATVPDKIKX0DER" })).toEqual(["marketplaceIds: marketplaceIds must be a list of Amazon marketplace ids"]);
    expect(problems({ ...SETTINGS, marketplaceIds: ["atvp dk"] })).toEqual(["marketplaceIds.0: each marketplace id is Amazon's, like ATVPDKIKX0DER"]);
    expect(problems({ ...SETTINGS, baseUrl: "http://sandbox.example" })).toEqual(["baseUrl: must be an https URL"]);
    expect(problems({ ...SETTINGS, cancelReason: "Whim" })[0]).toMatch(/^cancelReason: cancelReason must be one of NoInventory, /);
    expect(problems({ ...SETTINGS, extra: 1 })[0]).toMatch(/extra/);
  });

  it("refuses to build a connector from invalid settings, saying which", () => {
    expect(() => createAmazonConnector({ sourceId: "s", settings: { ...SETTINGS, clientSecret: "" }, fetch, now: () => new Date() }, memoryStorage())).toThrow(
      "Amazon settings of source s are invalid: clientSecret: clientSecret is required",
    );
  });
});

describe("Amazon token", () => {
  it("exchanges the refresh token once and sends the access token as x-amz-access-token", async () => {
    const { fake, connector, window } = setup();
    await connector.fetchOrders(window(), null);
    await connector.fetchOrders(window(), null);

    const tokenCalls = fake.requests.filter((r) => r.operationId === "token");
    expect(tokenCalls).toHaveLength(1);
    expect(tokenCalls[0]!.url).toBe("https://api.amazon.com/auth/o2/token");
    expect(tokenCalls[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8");
    expect(Object.fromEntries(new URLSearchParams(tokenCalls[0]!.rawBody))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "Atzr|fake-refresh-token",
      client_id: "amzn1.application-oa2-client.fake",
      client_secret: "fake-client-secret",
    });
    const calls = fake.apiRequests();
    expect(calls.map((c) => c.headers["x-amz-access-token"])).toEqual(["Atza|fake-access-token-1", "Atza|fake-access-token-1"]);
    expect(calls.every((c) => c.headers.authorization === undefined)).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it("renews the token shortly before its 3600 s run out, without a refusal", async () => {
    const { fake, connector, window, advance } = setup();
    await connector.fetchOrders(window(), null);
    advance(3600_000 - 30_000);
    await connector.fetchOrders(window(), null);
    expect(fake.tokens).toEqual(["Atza|fake-access-token-1", "Atza|fake-access-token-2"]);
    expect(fake.apiRequests().map((r) => [r.status, r.headers["x-amz-access-token"]])).toEqual([
      [200, "Atza|fake-access-token-1"],
      [200, "Atza|fake-access-token-2"],
    ]);
  });

  it("fails with Login with Amazon's own words when the refresh token is refused, and does not call the API", async () => {
    const { fake, connector, window } = setup({ settings: { refreshToken: "Atzr|revoked" } });
    const error = await rejection(connector.fetchOrders(window(), null));
    expect(error.message).toBe("Login with Amazon refused the token request: 400 invalid_grant: The request has an invalid grant parameter : refresh_token");
    expect(error.retryable).toBe(false);
    expect(fake.apiRequests()).toEqual([]);
  });

  it("renews a token Amazon refuses with 403 once, then retries the same call", async () => {
    const { fake, connector, window } = setup();
    await connector.fetchOrders(window(), null);
    fake.expireTokens();
    await connector.fetchOrders(window(), null);
    expect(fake.requests.map((r) => [r.operationId, r.status])).toEqual([
      ["token", 200],
      ["searchOrders", 200],
      ["searchOrders", 403],
      ["token", 200],
      ["searchOrders", 200],
    ]);
    expect(fake.requests.at(-1)!.headers["x-amz-access-token"]).toBe("Atza|fake-access-token-2");
    expect(fake.violations).toEqual([]);
  });

  it("renews once on a 401 as well", async () => {
    const { fake, connector, window } = setup();
    fake.failNext({ status: 401, body: { errors: [{ code: "Unauthorized", message: "The access token is invalid." }] } });
    await connector.fetchOrders(window(), null);
    expect(fake.requests.map((r) => [r.operationId, r.status])).toEqual([
      ["token", 200],
      ["searchOrders", 401],
      ["token", 200],
      ["searchOrders", 200],
    ]);
  });

  it("gives up after one renewal with Amazon's message when the fresh token is refused too", async () => {
    const { fake, connector, window } = setup();
    const body = { errors: [{ code: "Unauthorized", message: "Access to requested resource is denied.", details: "" }] };
    fake.failNext({ status: 401, body });
    fake.failNext({ status: 403, body });
    const error = await rejection(connector.fetchOrders(window(), null));
    expect(error.message).toBe("Amazon searchOrders 403 Unauthorized: Access to requested resource is denied.");
    expect(error.status).toBe(403);
    expect(error.retryable).toBe(false);
    expect(fake.requests.map((r) => r.operationId)).toEqual(["token", "searchOrders", "token", "searchOrders"]);
  });
});

describe("Amazon import", () => {
  it("asks searchOrders for orders changed in the window, with the datasets the mapping needs", async () => {
    const { fake, connector, window } = setup();
    const w = window();
    const page = await connector.fetchOrders(w, null);
    expect(page.nextCursor).toBeNull();
    const [call] = fake.apiRequests("searchOrders");
    expect(call!.path).toBe("/orders/2026-01-01/orders");
    expect(call!.query).toEqual({
      lastUpdatedAfter: "2024-12-01T00:00:00.000Z",
      lastUpdatedBefore: "2026-03-01T11:58:00.000Z",
      marketplaceIds: "ATVPDKIKX0DER,A1F83G8C2ARO7P,A1VC38T7YXB528,A2Q3Y263D00KWC",
      fulfillmentStatuses: "UNSHIPPED,PARTIALLY_SHIPPED,SHIPPED,CANCELLED,UNFULFILLABLE",
      includedData: "BUYER,RECIPIENT,PROCEEDS,FULFILLMENT,PAYMENT,CANCELLATION,PACKAGES",
      maxResultsPerPage: "100",
    });
    // The four orders the models show, oldest change first.
    expect(page.orders.map((o) => o.sourceOrderNumber)).toEqual(["171-2345678-9012345", "202-7654321-1098765", "250-1234567-8901234", "123-4567890-1234567"]);
    expect(page.setAside).toEqual([]);
    expect(fake.violations).toEqual([]);
  });

  it("follows nextToken with every other parameter unchanged until the last page", async () => {
    const { fake, connector, window } = setup();
    moreOrders(fake, 230);
    const w = window();
    const { orders, pages } = await allOrders(connector, w);
    expect(pages).toBe(3);
    expect(orders).toHaveLength(234);
    expect(new Set(orders.map((o) => o.sourceOrderNumber)).size).toBe(234);
    const calls = fake.apiRequests("searchOrders");
    expect(calls.map((c) => c.query.paginationToken !== undefined)).toEqual([false, true, true]);
    const withoutToken = (q: Record<string, string>) => {
      const { paginationToken: _, ...rest } = q;
      return rest;
    };
    expect(withoutToken(calls[1]!.query)).toEqual(calls[0]!.query);
    expect(withoutToken(calls[2]!.query)).toEqual(calls[0]!.query);
    expect(fake.violations).toEqual([]);
  });

  it("keeps two minutes between the window's end and now, as searchOrders requires", async () => {
    const { fake, connector, clock } = setup();
    expect(connector.settleMs).toBe(120_000);
    const early = await rejection(connector.fetchOrders({ since: SINCE, until: new Date(clock.ms - 60_000) }, null));
    expect(early.message).toBe("Amazon searchOrders window ends at 2026-03-01T11:59:00.000Z, less than 2 minutes before now");
    expect(fake.requests).toEqual([]);

    // An order changed one minute ago is outside this window and inside the next one.
    fake.touch("202-7654321-1098765", new Date(clock.ms - MINUTE));
    const first = await connector.fetchOrders({ since: new Date(clock.ms - 30 * MINUTE), until: new Date(clock.ms - 2 * MINUTE) }, null);
    expect(first.orders).toEqual([]);
    clock.ms += 15 * MINUTE;
    const next = await connector.fetchOrders({ since: new Date(clock.ms - 17 * MINUTE - 10 * MINUTE), until: new Date(clock.ms - 2 * MINUTE) }, null);
    expect(next.orders.map((o) => o.sourceOrderNumber)).toEqual(["202-7654321-1098765"]);
    expect(fake.violations).toEqual([]);
  });

  it("makes no call for an empty window", async () => {
    const { fake, connector, clock } = setup();
    const at = new Date(clock.ms - 10 * MINUTE);
    expect(await connector.fetchOrders({ since: at, until: at }, null)).toEqual({ orders: [], setAside: [], nextCursor: null });
    expect(fake.requests).toEqual([]);
  });

  it("maps every field the service has from the models' US order", async () => {
    const { connector, window } = setup();
    const { us } = await importExamples(connector, window());
    expect(us).toEqual({
      sourceOrderNumber: "123-4567890-1234567",
      sourceCustomerOrderNumber: null,
      sourceOrderStatus: "SHIPPED",
      createdAt: new Date("2024-12-25T10:30:00Z"),
      buyerEmail: "buyer-email@marketplace.amazon.com",
      buyerPhone: "555-123-4567",
      buyerUserId: null,
      shipTo: {
        firstName: "John",
        lastName: "Smith",
        companyName: "Smith Industries LLC",
        street1: "123 Main Street",
        street2: "Suite 456",
        city: "Seattle",
        stateOrProvince: "WA",
        postalCode: "98101",
        country: "US",
      },
      shippingMethod: "STANDARD",
      shippingServiceName: "STANDARD",
      shippingServiceValue: "STANDARD",
      paymentType: null,
      paymentTransactionId: null,
      isPrime: true,
      subTotal: 149.97,
      shippingTotal: 0,
      shippingTaxTotal: 0,
      giftWrapTotal: 0,
      giftWrapTaxTotal: 0,
      // Amazon's grandTotal, which carries the 5.00 delivery tip the items do not.
      grandTotal: 154.99,
      items: [
        {
          sourceLineId: "12345678901234",
          sku: "ECHO-DOT-4-CHARCOAL",
          name: "Echo Dot (4th Gen) | Smart speaker with Alexa | Charcoal",
          quantity: 2,
          unitPrice: 49.99,
          saleTaxCost: 0.02,
          discount: "0.00",
          quantityShipped: 2,
          quantityCancelled: 0,
        },
        {
          sourceLineId: "12345678901235",
          sku: "FIRE-TV-4K-2021",
          name: "Fire TV Stick 4K with Alexa Voice Remote",
          quantity: 1,
          unitPrice: 49.99,
          saleTaxCost: 0,
          discount: "0.00",
          quantityShipped: 1,
          quantityCancelled: 0,
        },
      ],
      shipments: [
        {
          sourceShipmentId: "PKG-2024-001",
          trackingNumber: "1Z999AA1234567890",
          carrier: "UPS",
          shippingMethod: "UPS Ground",
          shippedAt: new Date("2024-12-25T14:00:00Z"),
          lines: [
            { sourceLineId: "12345678901234", quantity: 2 },
            { sourceLineId: "12345678901235", quantity: 1 },
          ],
        },
      ],
      sourceData: { fulfilledBy: "MERCHANT", marketplaceId: "ATVPDKIKX0DER" },
    });
  });

  it("maps the other example orders: payment, three address lines, Amazon-fulfilled", async () => {
    const { connector, window } = setup();
    const { br, uk, jp } = await importExamples(connector, window());
    expect(br.paymentType).toBe("CreditCard");
    expect(br.sourceOrderStatus).toBe("UNSHIPPED");
    expect(br.grandTotal).toBe(1599.9);
    expect(br.isPrime).toBe(false);
    expect(uk.shipTo).toEqual({
      firstName: "Sarah",
      lastName: "Thompson",
      companyName: null,
      street1: "45 Oak Avenue",
      street2: "Flat 2A",
      city: "London",
      stateOrProvince: "England",
      postalCode: "SW1A 1AA",
      country: "GB",
    });
    expect(uk.buyerPhone).toBe("+44 20 7946 0958");
    expect(jp.sourceData).toEqual({ fulfilledBy: "AMAZON", marketplaceId: "A1VC38T7YXB528" });
    expect(jp.subTotal).toBe(19940);
    expect(jp.items.map((i) => [i.sku, i.quantity, i.unitPrice])).toEqual([
      ["ECHO-DOT-4-JP-CHARCOAL", 1, 5980],
      ["FIRE-TV-4K-MAX-JP", 2, 6980],
    ]);
  });

  it("splits taxes by subtype, keeps shipping, gift wrap and discounts", async () => {
    const { fake, connector, window } = setup();
    const order = fake.orders.find((o) => o.orderId === "202-7654321-1098765")!;
    const item = order.orderItems[0]! as Record<string, unknown>;
    item.proceeds = {
      proceedsTotal: { amount: "44.73", currencyCode: "GBP" },
      breakdowns: [
        { type: "ITEM", subtotal: { amount: "34.99", currencyCode: "GBP" } },
        { type: "SHIPPING", subtotal: { amount: "4.99", currencyCode: "GBP" } },
        { type: "GIFT_WRAP", subtotal: { amount: "2.50", currencyCode: "GBP" } },
        { type: "DISCOUNT", subtotal: { amount: "-3.00", currencyCode: "GBP" } },
        {
          type: "TAX",
          subtotal: { amount: "5.25", currencyCode: "GBP" },
          detailedBreakdowns: [
            { subtype: "ITEM", value: { amount: "4.00", currencyCode: "GBP" } },
            { subtype: "SHIPPING", value: { amount: "0.75", currencyCode: "GBP" } },
            { subtype: "GIFT_WRAP", value: { amount: "0.50", currencyCode: "GBP" } },
          ],
        },
      ],
    };
    delete (order as Record<string, unknown>).proceeds;
    const { uk } = await importExamples(connector, window());
    expect([uk.subTotal, uk.shippingTotal, uk.shippingTaxTotal, uk.giftWrapTotal, uk.giftWrapTaxTotal, uk.grandTotal]).toEqual([
      31.99, 4.99, 0.75, 2.5, 0.5, 44.73,
    ]);
    expect(uk.items[0]).toMatchObject({ unitPrice: 34.99, saleTaxCost: 4, discount: "3.00" });
    expect(fake.violations).toEqual([]);
  });

  it("sets aside an order it cannot map, with the reason and Amazon's record, and imports the rest", async () => {
    const { fake, connector, window } = setup();
    const broken = fake.orders.find((o) => o.orderId === "202-7654321-1098765")!;
    delete (broken.orderItems[0]!.product as Record<string, unknown>).sellerSku;
    const page = await connector.fetchOrders(window(), null);
    expect(page.orders.map((o) => o.sourceOrderNumber)).toEqual(["171-2345678-9012345", "250-1234567-8901234", "123-4567890-1234567"]);
    expect(page.setAside).toHaveLength(1);
    expect(page.setAside[0]!.sourceOrderNumber).toBe("202-7654321-1098765");
    expect(page.setAside[0]!.reason).toBe("Amazon order 202-7654321-1098765 item 20276543210987 has no sellerSku");
    expect((page.setAside[0]!.record as { orderId: string }).orderId).toBe("202-7654321-1098765");

    // The operator's retry after the record was put right, and remap of a record that is still wrong.
    const fixed = structuredClone(page.setAside[0]!.record) as { orderItems: { product: Record<string, unknown> }[] };
    fixed.orderItems[0]!.product.sellerSku = "ECHO-DOT-4-UK-CHARCOAL-SINGLE";
    expect((connector.remap(fixed) as ImportedOrder).items[0]!.sku).toBe("ECHO-DOT-4-UK-CHARCOAL-SINGLE");
    expect((connector.remap(page.setAside[0]!.record) as SetAsideOrder).reason).toBe("Amazon order 202-7654321-1098765 item 20276543210987 has no sellerSku");
    expect((connector.remap("nonsense") as SetAsideOrder).reason).toBe("Amazon the record is not an Order object");
    const badDate = { ...structuredClone(fixed), orderId: "X-1", createdTime: "yesterday" };
    expect((connector.remap(badDate) as SetAsideOrder).reason).toBe('Amazon order X-1: createdTime "yesterday" is not an ISO 8601 date-time');
    const badAmount = structuredClone(fixed) as unknown as { orderItems: { proceeds: { breakdowns: { subtotal: { amount: string } }[] } }[] };
    badAmount.orderItems[0]!.proceeds.breakdowns[0]!.subtotal.amount = "12,50";
    expect((connector.remap(badAmount) as SetAsideOrder).reason).toBe(
      'Amazon order 202-7654321-1098765 item 20276543210987 ITEM: amount "12,50" is not a number',
    );
  });

  it("turns Amazon's error list into the message, retrying 5xx and not 400", async () => {
    const { fake, connector, window } = setup();
    fake.failNext({ status: 400, body: { errors: [{ code: "InvalidInput", message: "Invalid Input", details: "marketplaceIds is invalid" }] } });
    const bad = await rejection(connector.fetchOrders(window(), null));
    expect(bad.message).toBe("Amazon searchOrders 400 InvalidInput: Invalid Input (marketplaceIds is invalid)");
    expect(bad.retryable).toBe(false);

    fake.failNext({ status: 503, body: { errors: [{ code: "ServiceUnavailable", message: "Service temporarily unavailable" }] } });
    const down = await rejection(connector.fetchOrders(window(), null));
    expect(down.message).toBe("Amazon searchOrders 503 ServiceUnavailable: Service temporarily unavailable");
    expect(down.retryable).toBe(true);

    fake.failNext({ status: 502, body: "<html>Bad gateway</html>" });
    const html = await rejection(connector.fetchOrders(window(), null));
    expect(html.message).toBe("Amazon searchOrders 502 <html>Bad gateway</html>");
    expect(html.retryable).toBe(true);

    fake.failNextWithError();
    const network = await rejection(connector.fetchOrders(window(), null));
    expect(network.message).toBe("Amazon GET /orders/2026-01-01/orders failed: Network connection lost.");
    expect(network.retryable).toBe(true);
  });
});

describe("Amazon pages on a bad day", () => {
  it("reads the next page a bad day names, repeating or never ending: the engine's to stop", async () => {
    for (const [repeating, expected] of [
      [true, ["again", "again", "again"]],
      [false, ["page-0", "page-1", "page-2"]],
    ] as const) {
      const { fake, connector, window } = setup();
      fake.failNext(amazonPagesForEver(repeating));
      const cursors: (string | null)[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 3; i++) {
        const page: OrderPage = await connector.fetchOrders(window(), cursor);
        expect(page.orders).toEqual([]);
        cursors.push((cursor = page.nextCursor));
      }
      expect(cursors).toEqual(expected);
    }
  });
});

describe("Amazon records of another shape", () => {
  it('sets aside a record the mapping trips on (programs: 5, paymentExecutions: "x"), naming the TypeError', () => {
    const { connector } = setup();
    const template = exampleOrders().find((o) => o.orderId === "202-7654321-1098765")!;
    const spoiled: [string, (order: Record<string, unknown>) => void][] = [
      ["programs", (o) => (o.programs = 5)],
      ["paymentExecutions", (o) => (o.payment = { paymentExecutions: "x" })],
    ];
    for (const [what, spoil] of spoiled) {
      const record = structuredClone(template) as unknown as Record<string, unknown>;
      spoil(record);
      const read = connector.remap(record) as SetAsideOrder;
      expect([what, read.sourceOrderNumber, read.reason]).toEqual([
        what,
        "202-7654321-1098765",
        expect.stringMatching(/^Amazon the record does not have the shape the marketplace publishes \(TypeError: /),
      ]);
    }
  });
});

describe("Amazon confirmShipment", () => {
  it("confirms one package with the order's items, carrier, tracking and ship date", async () => {
    const { fake, connector, window } = setup();
    const { br } = await importExamples(connector, window());
    const outcome = await connector.ship(deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>);
    expect(outcome).toEqual({ state: "delivered", reference: "1" });
    const [call] = fake.apiRequests("confirmShipment");
    expect(call!.path).toBe("/orders/v0/orders/171-2345678-9012345/shipmentConfirmation");
    expect(call!.status).toBe(204);
    expect(call!.body).toEqual({
      marketplaceId: "A2Q3Y263D00KWC",
      packageDetail: {
        packageReferenceId: "1",
        carrierCode: "UPS",
        carrierName: "UPS",
        shippingMethod: "Ground",
        trackingNumber: "1Z999AA10123456784",
        shipDate: "2026-03-01T10:00:00.000Z",
        orderItems: [{ orderItemId: "17123456789012", quantity: 1 }],
      },
    });
    expect(fake.violations).toEqual([]);
  });

  it("sends a carrier Amazon has no code for as Other with its name", async () => {
    const { fake, connector, window } = setup();
    const { br } = await importExamples(connector, window());
    const delivery = deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>;
    delivery.shipment.carrier = "Correios Sedex";
    await connector.ship(delivery);
    expect(fake.apiRequests("confirmShipment")[0]!.body).toMatchObject({ packageDetail: { carrierCode: "Other", carrierName: "Correios Sedex" } });
    expect(fake.violations).toEqual([]);
  });

  it("edits the same package when a corrected shipment is sent again, as Amazon's guide allows", async () => {
    const { fake, connector, window } = setup();
    const { br } = await importExamples(connector, window());
    await connector.ship(deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>);
    const corrected = deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>;
    corrected.shipment.trackingNumber = "1Z999AA10123456800";
    await connector.ship(corrected);
    const packages = fake.shipments.get("171-2345678-9012345")!;
    expect([...packages.keys()]).toEqual(["1"]);
    expect(packages.get("1")!.trackingNumber).toBe("1Z999AA10123456800");
    expect(fake.apiRequests("confirmShipment").map((r) => r.status)).toEqual([204, 204]);
  });

  it("says an Amazon-fulfilled order is not the seller's to ship, without a call", async () => {
    const { fake, connector, window } = setup();
    const { jp } = await importExamples(connector, window());
    const delivery = deliveryFor(jp, "ship");
    const reason = "Amazon fulfils order 250-1234567-8901234 itself (FBA): only Amazon ships it, so nothing was sent";
    expect(connector.notApplicable!(delivery)).toBe(reason);
    expect(await connector.ship(delivery as Extract<Delivery, { kind: "ship" }>)).toEqual({ state: "notApplicable", reason });
    expect(connector.notApplicable!(deliveryFor(jp, "cancel"))).toBe(
      "Amazon fulfils order 250-1234567-8901234 itself (FBA): only Amazon cancels it, so nothing was sent",
    );
    expect(connector.capabilities).toEqual({ acknowledge: true, ship: true, shipLines: true, cancel: true, cancelLines: false });
    expect(fake.apiRequests("confirmShipment")).toEqual([]);
  });

  it("fails for good without a tracking number, and with Amazon's message on a refusal", async () => {
    const { fake, connector, window } = setup();
    const { br, uk } = await importExamples(connector, window());
    const untracked = deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>;
    untracked.shipment.trackingNumber = " ";
    const error = await rejection(connector.ship(untracked));
    expect(error.message).toBe("Amazon cannot ship order 171-2345678-9012345: confirmShipment needs a tracking number");
    expect(error.retryable).toBe(false);

    fake.touch("202-7654321-1098765", new Date(START - 5 * MINUTE), (o) => (o.fulfillment!.fulfillmentStatus = "CANCELLED"));
    const refused = await rejection(connector.ship(deliveryFor(uk, "ship") as Extract<Delivery, { kind: "ship" }>));
    expect(refused.message).toBe("Amazon confirmShipment 400 InvalidInput: Order 202-7654321-1098765 is cancelled (A cancelled order cannot be shipped)");
    expect(refused.retryable).toBe(false);
    expect(fake.violations).toEqual([]);
  });
});

const reportParser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (n) => n === "Message" || n === "Item" });

describe("Amazon acknowledgement feed", () => {
  it("sends acknowledgements and cancellations as POST_ORDER_ACKNOWLEDGEMENT_DATA feeds and confirms each from the report", async () => {
    const storage = memoryStorage();
    const clock = { ms: START };
    const { fake, connector, window } = setup({ storage, clock });
    const { br, uk, us } = await importExamples(connector, window());
    fake.touch(uk.sourceOrderNumber, new Date(START - 5 * MINUTE), (o) => (o.fulfillment!.fulfillmentStatus = "UNSHIPPED"));
    const ackBr = deliveryFor(br, "acknowledge");
    const ackUs = deliveryFor(us, "acknowledge", { sellerOrderNumber: "SO-9001" });
    const cancelUk = deliveryFor(uk, "cancel");
    expect(connector.batch!.kinds).toEqual(["acknowledge", "cancel"]);
    expect(connector.batch!.size).toBe(500);

    // One marketplace per feed: three orders of three marketplaces make three feeds.
    const outcomes = await connector.batch!.deliver([ackBr, ackUs, cancelUk]);
    expect(fake.feeds).toHaveLength(3);
    const feedOf = (d: Delivery) => (outcomes.get(d.id) as Extract<DeliveryOutcome, { state: "submitted" }>).reference;
    expect([...outcomes.values()].every((o) => !(o instanceof MarketplaceError) && o.state === "submitted")).toBe(true);
    expect(new Set([feedOf(ackBr), feedOf(ackUs), feedOf(cancelUk)]).size).toBe(3);

    const uploads = fake.requests.filter((r) => r.operationId === "upload");
    expect(uploads.map((u) => [u.method, u.headers["content-type"], u.headers["x-amz-access-token"]])).toEqual([
      ["PUT", "text/xml; charset=UTF-8", undefined],
      ["PUT", "text/xml; charset=UTF-8", undefined],
      ["PUT", "text/xml; charset=UTF-8", undefined],
    ]);
    expect(fake.apiRequests("createFeedDocument").map((r) => r.body)).toEqual([
      { contentType: "text/xml; charset=UTF-8" },
      { contentType: "text/xml; charset=UTF-8" },
      { contentType: "text/xml; charset=UTF-8" },
    ]);
    expect(fake.apiRequests("createFeed").map((r) => (r.body as { feedType: string; marketplaceIds: string[] }).marketplaceIds)).toEqual([[BR], [US], [UK]]);
    expect(fake.apiRequests("createFeed").every((r) => (r.body as { feedType: string }).feedType === "POST_ORDER_ACKNOWLEDGEMENT_DATA")).toBe(true);

    // The documents, read with a parser of their own: message ids are the outbox ids.
    const docs = fake.feeds.map((f) => reportParser.parse(f.document).AmazonEnvelope);
    expect(docs[0].Header).toEqual({ DocumentVersion: "1.01", MerchantIdentifier: "source-1" });
    expect(docs[0].MessageType).toBe("OrderAcknowledgement");
    expect(docs.map((d) => d.Message)).toEqual([
      [{ MessageID: String(ackBr.id), OrderAcknowledgement: { AmazonOrderID: "171-2345678-9012345", MerchantOrderID: "SO-77", StatusCode: "Success" } }],
      [{ MessageID: String(ackUs.id), OrderAcknowledgement: { AmazonOrderID: "123-4567890-1234567", MerchantOrderID: "SO-9001", StatusCode: "Success" } }],
      [
        {
          MessageID: String(cancelUk.id),
          OrderAcknowledgement: {
            AmazonOrderID: "202-7654321-1098765",
            StatusCode: "Failure",
            Item: [{ AmazonOrderItemCode: "20276543210987", CancelReason: "GeneralAdjustment" }],
          },
        },
      ],
    ]);

    // Pending while Amazon has not processed them; each later cycle (a new connector) asks again.
    expect(await connector.checkSubmitted!(ackBr, feedOf(ackBr))).toEqual({ state: "pending" });
    await fake.processFeeds({ status: "IN_PROGRESS" });
    clock.ms += 15 * MINUTE;
    expect(await setup({ storage, clock, fake }).connector.checkSubmitted!(ackBr, feedOf(ackBr))).toEqual({ state: "pending" });
    await fake.processFeeds({ reject: { "123-4567890-1234567": "The order has already shipped" } });
    clock.ms += 15 * MINUTE;
    const later = setup({ storage, clock, fake }).connector;

    expect(await later.checkSubmitted!(ackBr, feedOf(ackBr))).toEqual({ state: "delivered", reference: feedOf(ackBr), warning: null });
    expect(await later.checkSubmitted!(ackUs, feedOf(ackUs))).toEqual({
      state: "rejected",
      message: `Amazon rejected the acknowledgement of order 123-4567890-1234567 (feed ${feedOf(ackUs)}): 18028: The order has already shipped`,
    });
    expect(await later.checkSubmitted!(cancelUk, feedOf(cancelUk))).toEqual({ state: "delivered", reference: feedOf(cancelUk), warning: null });
    // What Amazon made of them.
    expect(fake.orders.find((o) => o.orderId === "202-7654321-1098765")!.fulfillment!.fulfillmentStatus).toBe("CANCELLED");
    expect(fake.orders.find((o) => o.orderId === "171-2345678-9012345")!.orderAliases).toEqual([{ aliasId: "SO-77", aliasType: "SELLER_ORDER_ID" }]);
    expect(fake.violations).toEqual([]);
  });

  it("puts a whole batch of one marketplace in one feed and reads its report once", async () => {
    const { fake, connector, window } = setup();
    moreOrders(fake, 40);
    const { orders } = await allOrders(connector, window());
    const uk = orders.filter((o) => o.sourceData?.marketplaceId === UK && o.sourceOrderStatus === "SHIPPED");
    expect(uk).toHaveLength(41);
    for (const o of fake.orders) if (o.salesChannel.marketplaceId === UK) o.fulfillment!.fulfillmentStatus = "UNSHIPPED";
    const deliveries = uk.map((o, i) => deliveryFor(o, i % 2 === 0 ? "acknowledge" : "cancel"));
    const outcomes = await connector.batch!.deliver(deliveries);
    expect(fake.feeds).toHaveLength(1);
    expect(fake.feeds[0]!.messages).toHaveLength(41);
    await fake.processFeeds({ warn: { [uk[3]!.sourceOrderNumber]: "MerchantOrderID was ignored" } });
    const feedId = (outcomes.get(deliveries[0]!.id) as { reference: string }).reference;
    const states = [];
    for (const d of deliveries) states.push((await connector.checkSubmitted!(d, feedId)).state);
    expect(states.every((s) => s === "delivered")).toBe(true);
    expect(await connector.checkSubmitted!(deliveries[3]!, feedId)).toEqual({
      state: "delivered",
      reference: feedId,
      warning: `Amazon accepted the cancellation of order ${uk[3]!.sourceOrderNumber} (feed ${feedId}) with a warning: 18040: MerchantOrderID was ignored`,
    });
    expect(fake.apiRequests("getFeed")).toHaveLength(1);
    expect(fake.apiRequests("getFeedDocument")).toHaveLength(1);
    expect(fake.requests.filter((r) => r.operationId === "download")).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("answers a repeated submission with the feed already made, not a second feed", async () => {
    const storage = memoryStorage();
    const clock = { ms: START };
    const first = setup({ storage, clock });
    const { br } = await importExamples(first.connector, first.window());
    const ack = deliveryFor(br, "acknowledge");
    const outcome = await first.connector.acknowledge(ack as Extract<Delivery, { kind: "acknowledge" }>);
    // The core did not record it (cut off): the next cycle's connector gets the same delivery.
    const second = setup({ storage, clock, fake: first.fake });
    expect(await second.connector.acknowledge(ack as Extract<Delivery, { kind: "acknowledge" }>)).toEqual(outcome);
    expect(first.fake.feeds).toHaveLength(1);
    expect(first.fake.apiRequests("createFeed")).toHaveLength(1);
  });

  it("rejects deliveries of a cancelled feed, and of one that ended FATAL", async () => {
    const { fake, connector, window } = setup();
    const { br, uk } = await importExamples(connector, window());
    const a = deliveryFor(br, "acknowledge");
    const feedA = ((await connector.batch!.deliver([a])).get(a.id) as { reference: string }).reference;
    await fake.processFeeds({ status: "CANCELLED" });
    expect(await connector.checkSubmitted!(a, feedA)).toEqual({
      state: "rejected",
      message: `Amazon cancelled the acknowledgement of order 171-2345678-9012345 (feed ${feedA}) before processing it`,
    });
    const b = deliveryFor(uk, "acknowledge");
    const feedB = ((await connector.batch!.deliver([b])).get(b.id) as { reference: string }).reference;
    await fake.processFeeds({ status: "FATAL" });
    expect(await connector.checkSubmitted!(b, feedB)).toEqual({
      state: "rejected",
      message: `Amazon stopped processing the acknowledgement of order 202-7654321-1098765 (feed ${feedB}) with a fatal error`,
    });
  });

  it("reads an uncompressed report too, and keeps the feed pending when the report cannot be had", async () => {
    const clock = { ms: START };
    const fake = createAmazonFake({ now: () => new Date(clock.ms), gzipReports: false });
    const { connector, window } = setup({ fake, clock });
    const { br } = await importExamples(connector, window());
    const a = deliveryFor(br, "acknowledge");
    const feed = ((await connector.batch!.deliver([a])).get(a.id) as { reference: string }).reference;
    await fake.processFeeds({ reject: { "171-2345678-9012345": 'Bad & <odd> "text"' } });
    fake.failNext({ status: 500, target: "download" });
    const broken = await rejection(connector.checkSubmitted!(a, feed));
    expect(broken.message).toBe(`Amazon processing report of feed ${feed}: download answered 500`);
    expect(broken.retryable).toBe(true);
    // getFeedDocument allows one call in 45 s.
    clock.ms += 46_000;
    expect(await connector.checkSubmitted!(a, feed)).toEqual({
      state: "rejected",
      message: `Amazon rejected the acknowledgement of order 171-2345678-9012345 (feed ${feed}): 18028: Bad & <odd> "text"`,
    });
    expect(fake.violations).toEqual([]);
  });

  it("does not take an unreadable report for an answer", async () => {
    const clock = { ms: START };
    const plain = createAmazonFake({ now: () => new Date(clock.ms), gzipReports: false });
    const { connector, window } = setup({ fake: plain, clock });
    const { br } = await importExamples(connector, window());
    const a = deliveryFor(br, "acknowledge");
    const feed = ((await connector.batch!.deliver([a])).get(a.id) as { reference: string }).reference;
    await plain.processFeeds();
    plain.failNext({ status: 200, body: "<html><body>Service Unavailable</body></html>", target: "download" });
    const html = await rejection(connector.checkSubmitted!(a, feed));
    expect(html.message).toBe(`Amazon processing report of feed ${feed} is not a ProcessingReport document`);
    expect(html.retryable).toBe(true);

    const gz = createAmazonFake({ now: () => new Date(clock.ms) });
    const second = setup({ fake: gz, clock });
    const { br: br2 } = await importExamples(second.connector, second.window());
    const b = deliveryFor(br2, "acknowledge");
    const feedB = ((await second.connector.batch!.deliver([b])).get(b.id) as { reference: string }).reference;
    await gz.processFeeds();
    gz.failNext({ status: 200, body: "not gzip at all", target: "download" });
    const broken = await rejection(second.connector.checkSubmitted!(b, feedB));
    expect(broken.message).toMatch(new RegExp(`^Amazon processing report of feed ${feedB} could not be read: `));
    expect(broken.retryable).toBe(true);
  });

  it("keeps a feed pending, for all its orders, while getFeedDocument's pace says wait", async () => {
    const { fake, connector, window, storage } = setup();
    const { br, uk } = await importExamples(connector, window());
    const a = deliveryFor(br, "acknowledge");
    const b = deliveryFor(uk, "acknowledge");
    const feedA = ((await connector.batch!.deliver([a])).get(a.id) as { reference: string }).reference;
    const feedB = ((await connector.batch!.deliver([b])).get(b.id) as { reference: string }).reference;
    await fake.processFeeds();
    // This source has spent getFeedDocument's burst of 10 (one call in 45 s from here).
    storage.put("amazon:pace:getFeedDocument", { tat: (START + 10 * 45_045) * 1000, ratePerSecond: 0.0222 });
    expect(await connector.checkSubmitted!(a, feedA)).toEqual({ state: "pending" });
    expect(await connector.checkSubmitted!(b, feedB)).toEqual({ state: "pending" });
    expect(fake.apiRequests("getFeedDocument")).toEqual([]);
    expect(fake.apiRequests("getFeed")).toHaveLength(2);
  });

  it("reports an Amazon-fulfilled order as not applicable and a failed upload as retryable", async () => {
    const { fake, connector, window } = setup();
    const { jp, br } = await importExamples(connector, window());
    const afn = deliveryFor(jp, "acknowledge");
    const mfn = deliveryFor(br, "cancel");
    fake.failNext({ status: 503, body: "<Error><Code>SlowDown</Code></Error>", target: "upload" });
    const outcomes = await connector.batch!.deliver([afn, mfn]);
    expect(outcomes.get(afn.id)).toEqual({
      state: "notApplicable",
      reason: "Amazon fulfils order 250-1234567-8901234 itself (FBA): only Amazon acknowledges it, so nothing was sent",
    });
    const failed = outcomes.get(mfn.id) as MarketplaceError;
    expect(failed).toBeInstanceOf(MarketplaceError);
    expect(failed.message).toBe("Amazon feed upload 503 <Error><Code>SlowDown</Code></Error>");
    expect(failed.retryable).toBe(true);
    expect(fake.feeds).toEqual([]);

    // When nothing at all went through, the batch throws, so the core stops for this cycle.
    fake.failNext({ status: 503, body: { errors: [{ code: "ServiceUnavailable", message: "Try later" }] }, operation: "createFeedDocument" });
    const thrown = await rejection(connector.batch!.deliver([mfn]));
    expect(thrown.message).toBe("Amazon createFeedDocument 503 ServiceUnavailable: Try later");
    expect(thrown.retryable).toBe(true);
    fake.failNext({ status: 503, body: { errors: [{ code: "ServiceUnavailable", message: "Try later" }] }, operation: "createFeedDocument" });
    expect((await rejection(connector.cancel(mfn as Extract<Delivery, { kind: "cancel" }>))).message).toBe(
      "Amazon createFeedDocument 503 ServiceUnavailable: Try later",
    );
  });

  it("escapes what the seller typed and leaves out a seller number longer than 64 characters", async () => {
    const { fake, connector, window } = setup();
    const { br, uk } = await importExamples(connector, window());
    await connector.batch!.deliver([
      deliveryFor(br, "acknowledge", { sellerOrderNumber: 'A&B <1> "x"\u0001' }),
      deliveryFor(uk, "acknowledge", { sellerOrderNumber: "N".repeat(65) }),
    ]);
    const acks = fake.feeds.map((f) => f.messages[0]!);
    expect(acks.map((m) => m.merchantOrderId)).toEqual(['A&B <1> "x"', null]);
    expect(fake.violations).toEqual([]);
  });
});

describe("Amazon pacing", () => {
  it("spends searchOrders' burst of 20, then leaves the next page to a later cycle without calling", async () => {
    const storage = memoryStorage();
    const clock = { ms: START };
    const first = setup({ storage, clock });
    for (let i = 0; i < 20; i++) await first.connector.fetchOrders(first.window(), null);
    const paced = await rejection(first.connector.fetchOrders(first.window(), null));
    expect(paced.message).toBe("Amazon searchOrders is paced at 0.0056 calls/s (burst 20): the next call fits in 179 s, so it waits for a later cycle");
    expect(paced.retryable).toBe(true);
    // No Retry-After for the core to pause the whole source with: the other operations' buckets are full.
    expect(paced.retryAfterMs).toBeNull();
    expect(first.fake.apiRequests("searchOrders")).toHaveLength(20);

    // The next cycle's connector (same source storage) knows the bucket is empty.
    clock.ms += 60_000;
    const second = setup({ storage, clock, fake: first.fake });
    expect((await rejection(second.connector.fetchOrders(second.window(), null))).message).toMatch(/the next call fits in 119 s/);
    clock.ms += 118_572;
    await second.connector.fetchOrders(second.window(), null);
    expect(first.fake.apiRequests("searchOrders")).toHaveLength(21);
    expect(second.slept).toEqual([]);
    expect(first.fake.throttled).toBe(0);
    expect(first.fake.violations).toEqual([]);
  });

  it("waits out confirmShipment's short pace inside the cycle instead of drawing a 429", async () => {
    const { fake, connector, window, slept } = setup();
    const { br } = await importExamples(connector, window());
    for (let i = 0; i < 14; i++) await connector.ship(deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>);
    expect(fake.apiRequests("confirmShipment").map((r) => r.status)).toEqual(Array(14).fill(204));
    // Burst 10, then one call each 500 ms.
    expect(slept).toEqual([500, 500, 500, 500]);
    expect(fake.throttled).toBe(0);
  });

  it("takes the rate x-amzn-RateLimit-Limit states over the model's", async () => {
    const clock = { ms: START };
    const fake = createAmazonFake({ now: () => new Date(clock.ms), rates: { confirmShipment: 0.5 } });
    const { connector, window, slept, storage } = setup({ fake, clock });
    const { br } = await importExamples(connector, window());
    for (let i = 0; i < 11; i++) await connector.ship(deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>);
    expect(storage.get<{ ratePerSecond: number }>("amazon:pace:confirmShipment")!.ratePerSecond).toBe(0.5);
    // The bucket refills at 0.5/s once Amazon said so: the 11th call waited 2 s, not 500 ms.
    expect(slept).toEqual([2000]);
    expect(fake.throttled).toBe(0);
  });

  it("honours a 429: a short wait is waited out once, a long one goes back to the core with its Retry-After", async () => {
    const { fake, connector, window, slept } = setup();
    const { br } = await importExamples(connector, window());
    fake.failNext({
      status: 429,
      body: { errors: [{ code: "QuotaExceeded", message: "You exceeded your quota for the requested resource." }] },
      operation: "confirmShipment",
    });
    expect(await connector.ship(deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>)).toEqual({ state: "delivered", reference: "1" });
    expect(slept).toEqual([500]);
    expect(fake.apiRequests("confirmShipment").map((r) => r.status)).toEqual([429, 204]);

    fake.failNext({
      status: 429,
      body: { errors: [{ code: "QuotaExceeded", message: "You exceeded your quota for the requested resource." }] },
      operation: "searchOrders",
    });
    const error = await rejection(connector.fetchOrders(window(), null));
    expect(error.message).toBe("Amazon searchOrders 429 QuotaExceeded: You exceeded your quota for the requested resource.");
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBeNull();
    // The bucket is empty now: the next search waits one token (1 / 0.0056 s) without a call.
    const calls = fake.apiRequests("searchOrders").length;
    const paced = await rejection(connector.fetchOrders(window(), null));
    expect(paced.message).toMatch(/the next call fits in 179 s/);
    expect(fake.apiRequests("searchOrders")).toHaveLength(calls);

    fake.failNext({
      status: 429,
      body: { errors: [{ code: "QuotaExceeded", message: "slow down" }] },
      headers: { "Retry-After": "30" },
      operation: "confirmShipment",
    });
    const shipError = await rejection(connector.ship(deliveryFor(br, "ship") as Extract<Delivery, { kind: "ship" }>));
    expect(shipError.message).toBe("Amazon confirmShipment 429 QuotaExceeded: slow down");
    expect(shipError.retryAfterMs).toBe(30_000);

    // A throttled feed check is a check not done yet.
    fake.failNext({ status: 429, body: { errors: [{ code: "QuotaExceeded", message: "slow down" }] }, headers: { "Retry-After": "7" }, operation: "getFeed" });
    expect(await connector.checkSubmitted!(deliveryFor(br, "acknowledge"), "50001")).toEqual({ state: "pending" });
  });

  it("draws 429s from the fake when a client ignores the pace (the fake's own check)", async () => {
    const clock = { ms: START };
    const fake = createAmazonFake({ now: () => new Date(clock.ms) });
    const { connector, window } = setup({ fake, clock });
    await connector.fetchOrders(window(), null);
    const token = fake.tokens[0]!;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await fake.fetch(fake.apiRequests("searchOrders")[0]!.url, { headers: { "x-amz-access-token": token } });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    expect(fake.throttled).toBe(2);
  });
});

describe("the fake Amazon", () => {
  it("answers the models' own sandbox requests with their answers", async () => {
    const clock = { ms: START };
    const fake = createAmazonFake({ now: () => new Date(clock.ms) });
    const { connector, window } = setup({ fake, clock });
    await connector.fetchOrders(window(), null);
    const headers = { "x-amz-access-token": fake.tokens[0]!, "Content-Type": "application/json" };
    const host = "https://sellingpartnerapi-na.amazon.com";

    const sandboxSearch = await fake.fetch(
      `${host}/orders/2026-01-01/orders?createdAfter=2024-12-25T00:00:00Z&marketplaceIds=A1VC38T7YXB528` +
        "&includedData=BUYER,RECIPIENT,PROCEEDS,EXPENSE,PROMOTION,CANCELLATION,FULFILLMENT,PACKAGES",
      { headers },
    );
    expect(sandboxSearch.status).toBe(200);
    const body = (await sandboxSearch.json()) as { orders: { orderId: string }[]; pagination: { nextToken: string } };
    expect(body.orders.map((o) => o.orderId)).toEqual(["250-1234567-8901234"]);
    expect(body.pagination.nextToken).toBe("2YgYW55IGNhcm5hbCBwbGVhc3VyZS4");

    const sandbox400 = await fake.fetch(`${host}/orders/2026-01-01/orders?createdAfter=TEST_CASE_400`, { headers });
    expect(sandbox400.status).toBe(400);
    expect(await sandbox400.json()).toEqual({ errors: [{ code: "InvalidInput", message: "Invalid Input", details: "Invalid Input" }] });

    const sandboxShip = await fake.fetch(`${host}/orders/v0/orders/902-1106328-1059050/shipmentConfirmation`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        marketplaceId: "ATVPDKIKX0DER",
        packageDetail: {
          packageReferenceId: "1",
          carrierCode: "FedEx",
          carrierName: "FedEx",
          shippingMethod: "FedEx Ground",
          trackingNumber: "112345678",
          shipDate: "2022-02-11T01:00:00.000Z",
          shipFromSupplySourceId: "057d3fcc-b750-419f-bbcd-4d340c60c430",
          orderItems: [{ orderItemId: "79039765272157", quantity: 1, transparencyCodes: ["09876543211234567890"] }],
        },
      }),
    });
    expect(sandboxShip.status).toBe(204);

    const sandboxFeed = await fake.fetch(`${host}/feeds/2021-06-30/feeds/feedId1`, { headers });
    expect(((await sandboxFeed.json()) as { processingStatus: string }).processingStatus).toBe("CANCELLED");
    expect(fake.violations).toEqual([]);
  });

  it("holds requests to the models: unknown parameters, wrong types, missing token, operations not needed", async () => {
    const clock = { ms: START };
    const fake = createAmazonFake({ now: () => new Date(clock.ms) });
    const { connector, window } = setup({ fake, clock });
    await connector.fetchOrders(window(), null);
    const headers = { "x-amz-access-token": fake.tokens[0]! };
    const host = "https://sellingpartnerapi-na.amazon.com";
    expect((await fake.fetch(`${host}/orders/2026-01-01/orders?lastUpdatedAfter=2026-01-01&MaxResults=5`, { headers })).status).toBe(400);
    expect((await fake.fetch(`${host}/orders/2026-01-01/orders?lastUpdatedAfter=2026-01-01T00:00:00Z`)).status).toBe(403);
    expect((await fake.fetch(`${host}/orders/v0/orders/1/orderItems`, { headers })).status).toBe(400);
    expect(
      (
        await fake.fetch(`${host}/feeds/2021-06-30/feeds`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json" },
          body: JSON.stringify({ feedType: "POST_ORDER_ACKNOWLEDGEMENT_DATA", marketplaceIds: [], inputFeedDocumentId: "x" }),
        })
      ).status,
    ).toBe(400);
    expect(fake.violations).toEqual([
      "GET /orders/2026-01-01/orders: lastUpdatedAfter=2026-01-01 is not an ISO 8601 date-time",
      "GET /orders/2026-01-01/orders: query parameter MaxResults is not in the model of searchOrders",
      "GET /orders/2026-01-01/orders: header x-amz-access-token is required",
      "GET /orders/v0/orders/1/orderItems: getOrderItems is in the models but not an operation this connector should need",
      "POST /feeds/2021-06-30/feeds: body.marketplaceIds: at least 1 items",
    ]);
  });
});

// An Amazon source through the admin API: what a wrong setting answers, and credentials kept
// encrypted and never answered.
const ADMIN_SETTINGS = {
  refreshToken: "Atzr|IwEBIA-seller-refresh-token",
  clientId: "amzn1.application-oa2-client.0123456789abcdef",
  clientSecret: "amzn1.oa2-cs.v1.secret-value-42",
  region: "eu",
  marketplaceIds: ["A1F83G8C2ARO7P", "A1PA6795UKMFR9"],
};

describe("Amazon source settings", () => {
  it("answers 400 naming each missing or wrong setting", async () => {
    const storeId = await createStore();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ADMIN_SETTINGS, region: undefined }, "'Settings.region': region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)"],
      [
        { ...ADMIN_SETTINGS, region: "us-east-1" },
        "'Settings.region': region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)",
      ],
      [{ ...ADMIN_SETTINGS, refreshToken: "" }, "'Settings.refreshToken': refreshToken is required"],
      [{ ...ADMIN_SETTINGS, clientId: undefined }, "'Settings.clientId': clientId is required"],
      [{ ...ADMIN_SETTINGS, clientSecret: 42 }, "'Settings.clientSecret': clientSecret is required"],
      [{ ...ADMIN_SETTINGS, marketplaceIds: [] }, "'Settings.marketplaceIds': marketplaceIds must name at least one marketplace"],
      [{ ...ADMIN_SETTINGS, marketplaceIds: ["<script>"] }, "'Settings.marketplaceIds[0]': each marketplace id is Amazon's, like ATVPDKIKX0DER"],
      [{ ...ADMIN_SETTINGS, tokenUrl: "http://api.amazon.com/auth/o2/token" }, "'Settings.tokenUrl': must be an https URL"],
      [{ ...ADMIN_SETTINGS, baseUrl: "not a url" }, "'Settings.baseUrl': must be an https URL"],
    ];
    for (const [body, message] of cases) {
      const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "amazon", Name: "Amazon EU", Settings: body });
      expect(res.status, message).toBe(400);
      expect(res.json).toEqual({ Success: false, Message: message });
    }
    const none = await admin("GET", `/stores/${storeId}/sources`);
    expect(none.json.Sources).toEqual([]);
  });

  it("keeps the refresh token, client id and secret encrypted and masked", async () => {
    const storeId = await createStore();
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "amazon", Name: "Amazon EU", Settings: ADMIN_SETTINGS });
    expect(created.status).toBe(200);
    const source = created.json.Source as { SourceId: string; Type: string; Settings: Record<string, unknown> };
    expect(source.Type).toBe("amazon");
    expect(source.Settings).toMatchObject({
      refreshToken: "********",
      clientId: "********",
      clientSecret: "********",
      region: "eu",
      marketplaceIds: ["A1F83G8C2ARO7P", "A1PA6795UKMFR9"],
    });
    for (const res of [created, await admin("GET", `/stores/${storeId}/sources/${source.SourceId}`)]) {
      for (const secret of ["IwEBIA-seller-refresh-token", "0123456789abcdef", "secret-value-42"]) expect(res.text).not.toContain(secret);
    }
    const row = await (await storeD1(storeId))
      .prepare("select settings_ciphertext from sources where id = ?")
      .bind(source.SourceId)
      .first<{ settings_ciphertext: string }>();
    expect(row!.settings_ciphertext).not.toContain("Atzr");
    expect(row!.settings_ciphertext).not.toContain("amzn1");
  });

  it("answers 200 fuzzed Amazon Settings on create and PATCH with 200 or a 400 envelope, never a 5xx, and enables nothing", async () => {
    const f = fuzzer(1_406_014);
    const storeId = await createStore();
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "amazon", Name: "Amazon", Enabled: false, Settings: ADMIN_SETTINGS });
    const sourceId = (created.json.Source as { SourceId: string }).SourceId;
    const full = {
      ...ADMIN_SETTINGS,
      baseUrl: "https://sandbox.sellingpartnerapi-eu.amazon.com",
      tokenUrl: "https://api.amazon.com/auth/o2/token",
      sellerId: "A2EXAMPLE",
      cancelReason: "NoInventory",
      carrierCodes: ["DHL"],
    };
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const fuzzed = f.chance(0.8) ? f.mutate(full) : f.value();
      const res = f.chance(0.5)
        ? await send(
            failures,
            adminSent("POST", `/stores/${storeId}/sources`, toJson({ Type: "amazon", Name: `A${i}`, Enabled: false, Settings: fuzzed }), "application/json"),
          )
        : await send(failures, adminSent("PATCH", `/stores/${storeId}/sources/${sourceId}`, toJson({ Settings: fuzzed, Enabled: false }), "application/json"));
      statuses.add(res.status);
    }
    expectNoFailures(failures);
    expect([...statuses].sort()).toEqual([200, 400]);
    const enabled = await (await storeD1(storeId))
      .prepare("select count(*) as n from sources where store_id = ? and enabled = 1")
      .bind(storeId)
      .first<{ n: number }>();
    expect(enabled?.n).toBe(0);
  }, 60_000);
});
