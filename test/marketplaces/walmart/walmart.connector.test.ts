import { describe, it, expect } from "vitest";
import {
  MarketplaceError,
  type AcknowledgeDelivery,
  type CancelDelivery,
  type Connector,
  type DeliveryOrder,
  type ImportedOrder,
  type OrderPage,
  type SetAsideOrder,
  type ShipDelivery,
  type Shipment,
} from "../../../src/marketplaces/connector";
import { createWalmartConnector } from "../../../src/marketplaces/walmart/walmart.connector";
import { walmartSettingsSchema } from "../../../src/marketplaces/walmart/walmart.settings";
import { mapWalmartOrder } from "../../../src/marketplaces/walmart/walmart.mapping";
import type { WalmartOrder } from "../../../src/marketplaces/walmart/walmart.types";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET, type WalmartFake, walmartPagesForEver } from "./walmart-fake";
import extracted from "./walmart-examples.json";
import { rejection } from "../../helpers/rejection";

const START = Date.parse("2026-03-01T12:00:00Z");
const WINDOW = { since: new Date("2026-02-28T00:00:00Z"), until: new Date("2026-03-01T11:58:00Z") };

function setup(settings: Record<string, unknown> = {}) {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createWalmartFake({ now });
  const connector = createWalmartConnector({
    sourceId: "source-1",
    settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET, ...settings },
    fetch: fake.fetch,
    now,
  });
  return {
    fake,
    connector,
    advance(ms: number) {
      nowMs += ms;
    },
  };
}

async function firstOrder(connector: Connector): Promise<ImportedOrder> {
  const page = await connector.fetchOrders(WINDOW, null);
  return page.orders[0]!;
}

function deliveryOf(order: ImportedOrder, sellerOrderNumber: string | null = "SO-1001"): DeliveryOrder {
  return {
    sourceOrderNumber: order.sourceOrderNumber,
    sourceCustomerOrderNumber: order.sourceCustomerOrderNumber,
    sellerOrderNumber,
    sourceData: {},
    lines: order.items.map((i) => ({ sourceLineId: i.sourceLineId, sku: i.sku, quantity: i.quantity })),
  };
}

const base = (order: DeliveryOrder) => ({ id: 1, idempotencyKey: "source-1-1", order, earlier: [] });
const ackOf = (order: DeliveryOrder): AcknowledgeDelivery => ({ ...base(order), kind: "acknowledge", sellerOrderNumber: order.sellerOrderNumber });
/** A shipment of every line of the order, whole, as the sync makes it today. */
const shipOf = (order: DeliveryOrder, shipment: Omit<Shipment, "lines">): ShipDelivery => ({
  ...base(order),
  kind: "ship",
  shipment: { ...shipment, lines: order.lines.map((l) => ({ sourceLineId: l.sourceLineId, quantity: l.quantity })) },
});
const cancelOf = (order: DeliveryOrder): CancelDelivery => ({ ...base(order), kind: "cancel", reason: "Canceled by seller" });

const tokenRequests = (fake: WalmartFake) => fake.requests.filter((r) => r.operationId === "tokenAPI");

describe("Walmart token", () => {
  it("asks for a token with Basic auth and a client_credentials form, then reuses it", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders(WINDOW, null);
    await connector.fetchOrders(WINDOW, null);

    const tokens = tokenRequests(fake);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.method).toBe("POST");
    expect(tokens[0]!.headers.authorization).toBe(`Basic ${btoa(`${WALMART_FAKE_CLIENT_ID}:${WALMART_FAKE_CLIENT_SECRET}`)}`);
    expect(tokens[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(tokens[0]!.rawBody).toBe("grant_type=client_credentials");

    const calls = fake.apiRequests();
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.headers["wm_sec.access_token"]).toBe(fake.tokens[0]);
      expect(call.headers["wm_svc.name"]).toBe("Walmart Marketplace");
      expect(call.headers.accept).toBe("application/json");
    }
    const ids = fake.requests.map((r) => r.headers["wm_qos.correlation_id"]);
    expect(new Set(ids).size).toBe(fake.requests.length);
    expect(fake.violations).toEqual([]);
  });

  it("renews the token shortly before Walmart's 900 s run out, without a 401", async () => {
    const { fake, connector, advance } = setup();
    await connector.fetchOrders(WINDOW, null);
    advance(900_000 - 30_000);
    await connector.fetchOrders(WINDOW, null);

    expect(fake.tokens).toHaveLength(2);
    expect(fake.apiRequests().map((r) => r.status)).toEqual([200, 200]);
    expect(fake.apiRequests()[1]!.headers["wm_sec.access_token"]).toBe(fake.tokens[1]);
  });

  it("drops a token Walmart rejects with 401 and retries once with a fresh one", async () => {
    const { fake, connector } = setup();
    const order = await firstOrder(connector);
    fake.expireTokens();
    await connector.acknowledge(ackOf(deliveryOf(order)));

    expect(fake.requests.map((r) => [r.operationId, r.status])).toEqual([
      ["tokenAPI", 200],
      ["getAllOrders", 200],
      ["acknowledgeOrders", 401],
      ["tokenAPI", 200],
      ["acknowledgeOrders", 200],
    ]);
    expect(fake.requests.at(-1)!.headers["wm_sec.access_token"]).toBe(fake.tokens[1]);
    expect(fake.violations).toEqual([]);
  });

  it("gives up after one retry when the fresh token is refused too", async () => {
    const { fake, connector } = setup();
    const order = await firstOrder(connector);
    fake.failNext({ status: 401 });
    fake.failNext({ status: 401 });
    const error = await rejection(connector.acknowledge(ackOf(deliveryOf(order))));

    expect(error.status).toBe(401);
    expect(fake.apiRequests().filter((r) => r.operationId === "acknowledgeOrders")).toHaveLength(2);
  });

  it("reports refused credentials from the token call", async () => {
    const { connector } = setup({ clientSecret: "wrong" });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.status).toBe(401);
    expect(error.message).toContain("Invalid client credentials");
  });
});

describe("Walmart fetchOrders", () => {
  it("lists GET /v3/orders modified since the cursor, reaching back over Walmart's 180 days", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders(WINDOW, null);

    const [call] = fake.apiRequests();
    expect(call!.method).toBe("GET");
    expect(call!.path).toBe("/v3/orders");
    expect(call!.query).toEqual({
      lastModifiedStartDate: "2026-02-28T00:00:00.000Z",
      lastModifiedEndDate: "2026-03-01T11:58:00.000Z",
      createdStartDate: "2025-09-02",
      limit: "100",
    });
    expect(fake.violations).toEqual([]);
  });

  it("maps the documented example order", async () => {
    const { connector } = setup();
    const page = await connector.fetchOrders(WINDOW, null);

    expect(page.orders).toHaveLength(10);
    expect(page.orders[0]).toEqual({
      sourceOrderNumber: "1796277083022",
      sourceCustomerOrderNumber: "5281956426648",
      sourceOrderStatus: "Created",
      createdAt: new Date(1568466571000),
      buyerEmail: "3A31739D8B0A45A1B23F7F8C81C8747F@relay.walmart.com",
      buyerPhone: "3155598681",
      buyerUserId: null,
      shipTo: {
        firstName: "Kathryn",
        lastName: "Cole",
        companyName: null,
        street1: "3258BWarners rd",
        street2: "Garage",
        city: "Warners",
        stateOrProvince: "NY",
        postalCode: "13164",
        country: "USA",
      },
      shippingMethod: "Value",
      shippingServiceName: "Value",
      shippingServiceValue: "VALUE",
      paymentType: null,
      paymentTransactionId: null,
      isPrime: false,
      subTotal: 10,
      shippingTotal: 0,
      shippingTaxTotal: 0,
      giftWrapTotal: 0,
      giftWrapTaxTotal: 0,
      grandTotal: 10.8,
      items: [
        {
          sourceLineId: "4",
          sku: "test1",
          name: "Beba Bean Pee-pee Teepee Airplane - Blue - Laundry Bag",
          quantity: 1,
          unitPrice: 10,
          saleTaxCost: 0.8,
          discount: "0.00",
          quantityShipped: 0,
          quantityCancelled: 0,
        },
      ],
      shipments: [],
    });
    // The second documented order's only line is Cancelled.
    expect(page.orders[1]!.sourceOrderNumber).toBe("3796235970012");
    expect(page.orders[1]!.sourceOrderStatus).toBe("Cancelled");
  });

  it("follows meta.nextCursor to the second page and stops there", async () => {
    const { fake, connector } = setup();
    const first = await connector.fetchOrders(WINDOW, null);
    expect(first.nextCursor).toBe(
      "?limit=10&hasMoreElements=true&soIndex=31&poIndex=10&partnerId=100009&sellerId=8&createdStartDate=2013-08-16&createdEndDate=2019-09-17T18:47:03.703Z",
    );

    const second = await connector.fetchOrders(WINDOW, first.nextCursor);
    expect(fake.apiRequests()[1]!.url).toBe(`https://marketplace.walmartapis.com/v3/orders${first.nextCursor}`);
    expect(second.nextCursor).toBeNull();
    expect(second.orders).toHaveLength(10);
    // Page two carries the documented released orders: item, shipping charge and their taxes.
    const order = second.orders[0]!;
    expect(order.sourceOrderNumber).toBe("4792982839409");
    expect(order.shipTo.firstName).toBe("SFirst1340778269137n");
    expect(order.shipTo.lastName).toBe("SLast1340778269137n");
    expect(order.shippingMethod).toBe("Express");
    expect(order.items).toEqual([
      {
        sourceLineId: "3",
        sku: "StressTestHome_29",
        name: "Dummystresstest_MP_Home_29",
        quantity: 1,
        unitPrice: 99,
        saleTaxCost: 7.92,
        discount: "0.00",
        quantityShipped: 0,
        quantityCancelled: 0,
      },
    ]);
    expect([order.subTotal, order.shippingTotal, order.shippingTaxTotal, order.grandTotal]).toEqual([99, 60, 0, 166.92]);
    expect(fake.violations).toEqual([]);
  });

  it("reads the next page a bad day names, repeating or never ending: the engine's to stop", async () => {
    for (const [repeating, expected] of [
      [true, [0, 0, 0].map(() => "?limit=100&hasMoreElements=true&soIndex=100&poIndex=100")],
      [false, [100, 200, 300].map((i) => `?limit=100&hasMoreElements=true&soIndex=${i}&poIndex=100`)],
    ] as const) {
      const { fake, connector } = setup();
      fake.failNext(walmartPagesForEver(repeating));
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

  it("reads Walmart's 404 CONTENT_NOT_FOUND as an empty page", async () => {
    const { fake, connector } = setup();
    fake.failNext({ status: 404 });
    expect(await connector.fetchOrders(WINDOW, null)).toEqual({ orders: [], setAside: [], nextCursor: null });
  });

  it("sets aside a record of any shape the mapping trips on, naming the TypeError", () => {
    const { connector } = setup();
    const released = extracted.operations.find((o) => o.operationId === "getAllReleasedOrders")!;
    const example = (released.responseExamples as { default: { list: { elements: { order: WalmartOrder[] } } } }).default.list.elements.order[0]!;
    const spoiled: [string, (order: Record<string, unknown> & WalmartOrder) => void][] = [
      ["an orderLine object", (o) => (o.orderLines = { orderLine: { lineNumber: "1" } as never })],
      ["an orderLine [null]", (o) => (o.orderLines = { orderLine: [null] as never })],
      ["a charge that is a number", (o) => (o.orderLines!.orderLine![0]!.charges = { charge: 5 as never })],
    ];
    for (const [what, spoil] of spoiled) {
      const record = structuredClone(example) as Record<string, unknown> & WalmartOrder;
      spoil(record);
      const read = connector.remap(record) as SetAsideOrder;
      expect([what, read.sourceOrderNumber, read.reason]).toEqual([
        what,
        example.purchaseOrderId,
        expect.stringMatching(/^Walmart the record does not have the shape the marketplace publishes \(TypeError: /),
      ]);
      expect(read.record).toBe(record);
    }
  });

  it("adds shipping taxes, several lines and discounts up in cents", () => {
    const released = extracted.operations.find((o) => o.operationId === "getAllReleasedOrders")!;
    const example = (released.responseExamples as { default: { list: { elements: { order: WalmartOrder[] } } } }).default.list.elements.order[0]!;
    const order = structuredClone(example);
    const line = order.orderLines!.orderLine![0]!;
    line.charges!.charge![1]!.tax = { taxName: "Tax2", taxAmount: { currency: "USD", amount: 4.8 } };
    const second = structuredClone(line);
    second.lineNumber = "4";
    second.orderLineQuantity = { unitOfMeasurement: "EACH", amount: "3" };
    second.charges!.charge = [
      {
        chargeType: "PRODUCT",
        chargeName: "ItemPrice",
        chargeAmount: { currency: "USD", amount: 0.3 },
        tax: { taxName: "Tax1", taxAmount: { currency: "USD", amount: 0.1 } },
      },
      { chargeType: "PRODUCT", chargeName: "SubscriptionDiscount", chargeAmount: { currency: "USD", amount: -0.1 } },
    ];
    second.orderLineStatuses = { orderLineStatus: [{ status: "Acknowledged", statusQuantity: { unitOfMeasurement: "EACH", amount: "3" } }] };
    order.orderLines!.orderLine!.push(second);

    const mapped = mapWalmartOrder(order);
    expect(mapped.items[1]).toMatchObject({ sourceLineId: "4", quantity: 3, unitPrice: 0.1, saleTaxCost: 0.1, discount: "0.10" });
    expect(mapped.subTotal).toBe(99.2);
    expect(mapped.shippingTotal).toBe(60);
    expect(mapped.shippingTaxTotal).toBe(4.8);
    expect(mapped.grandTotal).toBe(99.2 + 7.92 + 0.1 + 60 + 4.8);
    // Line 3 still waits for acknowledgement, so the order does.
    expect(mapped.sourceOrderStatus).toBe("Created");
  });
});

describe("Walmart acknowledge, ship, cancel", () => {
  it("acknowledges with POST /v3/orders/{purchaseOrderId}/acknowledge and no body", async () => {
    const { fake, connector } = setup();
    await connector.acknowledge(ackOf(deliveryOf(await firstOrder(connector))));

    const call = fake.apiRequests().at(-1)!;
    expect([call.method, call.path, call.rawBody, call.status]).toEqual(["POST", "/v3/orders/1796277083022/acknowledge", "", 200]);
    expect(fake.violations).toEqual([]);
  });

  it("ships every line as Shipped with epoch-ms ship time, carrier and tracking", async () => {
    const { fake, connector } = setup();
    const shippedAt = new Date("2026-03-01T10:15:00Z");
    await connector.ship(
      shipOf(deliveryOf(await firstOrder(connector)), {
        trackingNumber: "1Z999AA10123456784",
        carrier: "ups",
        shippingMethod: "Value",
        shippedAt,
      }),
    );

    const call = fake.apiRequests().at(-1)!;
    expect(call.path).toBe("/v3/orders/1796277083022/shipping");
    expect(call.headers["content-type"]).toBe("application/json");
    expect(call.status).toBe(200);
    expect(call.body).toEqual({
      orderShipment: {
        orderLines: {
          orderLine: [
            {
              lineNumber: "4",
              sellerOrderId: "SO-1001",
              orderLineStatuses: {
                orderLineStatus: [
                  {
                    status: "Shipped",
                    statusQuantity: { unitOfMeasurement: "EACH", amount: "1" },
                    trackingInfo: {
                      shipDateTime: shippedAt.getTime(),
                      carrierName: { carrier: "UPS" },
                      methodCode: "Value",
                      trackingNumber: "1Z999AA10123456784",
                    },
                  },
                ],
              },
            },
          ],
        },
      },
    });
    expect(fake.violations).toEqual([]);
  });

  it("names a carrier outside Walmart's list as otherCarrier and falls back to the order number", async () => {
    const { fake, connector } = setup();
    const order = await firstOrder(connector);
    await connector.ship(
      shipOf(deliveryOf(order, null), {
        trackingNumber: "PN123",
        carrier: "Pony Express",
        shippingMethod: null,
        shippedAt: new Date(START),
      }),
    );

    const line = (
      fake.apiRequests().at(-1)!.body as {
        orderShipment: { orderLines: { orderLine: { sellerOrderId: string; orderLineStatuses: { orderLineStatus: { trackingInfo: unknown }[] } }[] } };
      }
    ).orderShipment.orderLines.orderLine[0]!;
    expect(line.sellerOrderId).toBe("1796277083022");
    expect(line.orderLineStatuses.orderLineStatus[0]!.trackingInfo).toMatchObject({
      carrierName: { otherCarrier: "Pony Express" },
      methodCode: "Standard",
    });
    expect(fake.violations).toEqual([]);
  });

  it("refuses to ship without a tracking number before calling Walmart", async () => {
    const { fake, connector } = setup();
    const order = await firstOrder(connector);
    const error = await rejection(
      connector.ship(shipOf(deliveryOf(order), { trackingNumber: null, carrier: "UPS", shippingMethod: null, shippedAt: new Date(START) })),
    );
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("tracking number");
    expect(fake.apiRequests()).toHaveLength(1);
  });

  it("cancels every line with a documented cancellation reason", async () => {
    const { fake, connector } = setup();
    await connector.cancel(cancelOf(deliveryOf(await firstOrder(connector))));

    const call = fake.apiRequests().at(-1)!;
    expect(call.path).toBe("/v3/orders/1796277083022/cancel");
    expect(call.status).toBe(200);
    expect(call.body).toEqual({
      orderCancellation: {
        orderLines: {
          orderLine: [
            {
              lineNumber: "4",
              orderLineStatuses: {
                orderLineStatus: [
                  {
                    status: "Cancelled",
                    cancellationReason: "SELLER_CANCEL_OUT_OF_STOCK",
                    statusQuantity: { unitOfMeasurement: "EACH", amount: "1" },
                  },
                ],
              },
            },
          ],
        },
      },
    });
    expect(fake.violations).toEqual([]);
  });

  it("uses the cancellation reason a source's settings choose", async () => {
    const { fake, connector } = setup({ cancellationReason: "CUSTOMER_REQUESTED_SELLER_TO_CANCEL" });
    await connector.cancel(cancelOf(deliveryOf(await firstOrder(connector))));
    expect(JSON.stringify(fake.apiRequests().at(-1)!.body)).toContain('"cancellationReason":"CUSTOMER_REQUESTED_SELLER_TO_CANCEL"');
    expect(fake.violations).toEqual([]);
  });
});

describe("Walmart errors", () => {
  function ship(s: ReturnType<typeof setup>, order: ImportedOrder) {
    return s.connector.ship(
      shipOf(deliveryOf(order), {
        trackingNumber: "1Z1",
        carrier: "UPS",
        shippingMethod: "Value",
        shippedAt: new Date(START),
      }),
    );
  }

  it("a 400 is not retryable and carries Walmart's code and description", async () => {
    const s = setup();
    const order = await firstOrder(s.connector);
    s.fake.failNext({
      status: 400,
      body: {
        errors: [
          {
            code: "INVALID_REQUEST_CONTENT.GMP_ORDER_API",
            field: "trackingNumber",
            description: "Tracking number is not valid for carrier UPS",
            info: "Tracking number is not valid for carrier UPS",
            severity: "ERROR",
            category: "DATA",
          },
        ],
      },
    });
    const error = await rejection(ship(s, order));
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.retryAfterMs).toBeNull();
    expect(error.message).toBe("Walmart 400 INVALID_REQUEST_CONTENT.GMP_ORDER_API: Tracking number is not valid for carrier UPS (trackingNumber)");
  });

  it("a 429 is retryable and passes Retry-After on in milliseconds", async () => {
    const s = setup();
    s.fake.failNext({ status: 429, headers: { "Retry-After": "30" } });
    const error = await rejection(s.connector.fetchOrders(WINDOW, null));
    expect([error.status, error.retryable, error.retryAfterMs]).toEqual([429, true, 30_000]);
    expect(error.message).toContain("REQUEST_THRESHOLD_VIOLATED");
  });

  it("a 500 is retryable", async () => {
    const s = setup();
    const order = await firstOrder(s.connector);
    s.fake.failNext({ status: 500 });
    const error = await rejection(ship(s, order));
    expect([error.status, error.retryable]).toEqual([500, true]);
  });

  it("a network failure is retryable and has no status", async () => {
    const s = setup();
    const order = await firstOrder(s.connector);
    s.fake.failNextWithError();
    const error = await rejection(ship(s, order));
    expect([error.status, error.retryable]).toEqual([null, true]);
    expect(error.message).toContain("Network connection lost.");
  });

  it("a timeout is retryable and says so", async () => {
    const s = setup();
    s.fake.failNextWithError({ error: new DOMException("The operation was aborted due to timeout", "TimeoutError") });
    const error = await rejection(s.connector.fetchOrders(WINDOW, null));
    expect([error.status, error.retryable]).toEqual([null, true]);
    expect(error.message).toBe("Walmart GET /v3/orders failed: no answer within 10 s");
  });

  it("a failing token call is reported like any other call", async () => {
    const s = setup();
    s.fake.failNext({ status: 503, target: "token" });
    const error = await rejection(s.connector.fetchOrders(WINDOW, null));
    expect([error.status, error.retryable]).toEqual([503, true]);
  });
});

describe("Walmart settings", () => {
  it("fills the defaults and keeps https only", () => {
    expect(walmartSettingsSchema.parse({ clientId: "id", clientSecret: "secret" })).toEqual({
      clientId: "id",
      clientSecret: "secret",
      baseUrl: "https://marketplace.walmartapis.com",
      serviceName: "Walmart Marketplace",
      cancellationReason: "SELLER_CANCEL_OUT_OF_STOCK",
    });
    expect(walmartSettingsSchema.parse({ clientId: "id", clientSecret: "s", baseUrl: "https://sandbox.walmartapis.com/" }).baseUrl).toBe(
      "https://sandbox.walmartapis.com",
    );
    expect(walmartSettingsSchema.safeParse({ clientId: "id", clientSecret: "s", baseUrl: "http://sandbox.walmartapis.com" }).success).toBe(false);
    expect(walmartSettingsSchema.safeParse({ clientId: "id", clientSecret: "s", cancellationReason: "BORED" }).success).toBe(false);
    expect(walmartSettingsSchema.safeParse({ clientId: "id", clientSecret: "s", clientID: "typo" }).success).toBe(false);
  });

  it("refuses to build a connector without credentials, naming the field", () => {
    let error: unknown;
    try {
      createWalmartConnector({ sourceId: "s-9", settings: { clientId: "id" }, fetch: createWalmartFake().fetch, now: () => new Date() });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).retryable).toBe(false);
    expect((error as MarketplaceError).message).toContain("clientSecret");
  });
});

describe("Walmart fake", () => {
  async function call(fake: WalmartFake, method: string, path: string, body?: unknown, token?: string) {
    const headers: Record<string, string> = {
      Accept: "application/json",
      "WM_SVC.NAME": "test",
      "WM_QOS.CORRELATION_ID": crypto.randomUUID(),
    };
    if (token) headers["WM_SEC.ACCESS_TOKEN"] = token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fake.fetch(`https://marketplace.walmartapis.com${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async function token(fake: WalmartFake): Promise<string> {
    const response = await fake.fetch("https://marketplace.walmartapis.com/v3/token", {
      method: "POST",
      headers: {
        Accept: "application/json",
        Authorization: `Basic ${btoa(`${WALMART_FAKE_CLIENT_ID}:${WALMART_FAKE_CLIENT_SECRET}`)}`,
        "Content-Type": "application/x-www-form-urlencoded",
        "WM_SVC.NAME": "test",
        "WM_QOS.CORRELATION_ID": crypto.randomUUID(),
      },
      body: "grant_type=client_credentials",
    });
    return ((await response.json()) as { access_token: string }).access_token;
  }

  it("accepts the documented request examples of shipping and cancel", async () => {
    const fake = createWalmartFake();
    const t = await token(fake);
    for (const id of ["shippingUpdates", "cancelOrderLines"]) {
      const op = extracted.operations.find((o) => o.operationId === id)!;
      await call(fake, "POST", op.path.replace("{purchaseOrderId}", "1796277083022"), op.requestBody!.example, t);
    }
    expect(fake.violations).toEqual([]);
  });

  it("answers 400 and records a violation for a body, header or query the description does not allow", async () => {
    const fake = createWalmartFake();
    const t = await token(fake);
    const shipping = extracted.operations.find((o) => o.operationId === "shippingUpdates")!;
    const body = structuredClone(shipping.requestBody!.example) as {
      orderShipment: { orderLines: { orderLine: { orderLineStatuses: { orderLineStatus: Record<string, unknown>[] } }[] } };
    };
    delete body.orderShipment.orderLines.orderLine[0]!.orderLineStatuses.orderLineStatus[0]!.trackingInfo;

    expect((await call(fake, "POST", "/v3/orders/1796277083022/shipping", body, t)).status).toBe(400);
    expect((await call(fake, "GET", "/v3/orders?since=2026-01-01", undefined, t)).status).toBe(400);
    expect((await call(fake, "GET", "/v3/orders")).status).toBe(400);
    expect(fake.violations).toEqual([
      "POST /v3/orders/1796277083022/shipping: body.orderShipment.orderLines.orderLine[0].orderLineStatuses.orderLineStatus[0].trackingInfo: required by " +
        "the description, missing",
      "GET /v3/orders: query parameter since is not in the description of /v3/orders",
      "GET /v3/orders: header WM_SEC.ACCESS_TOKEN is required",
    ]);
  });
});
