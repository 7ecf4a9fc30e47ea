// The Shopify connector call by call against the fake Shopify of test/marketplaces/shopify, which checks every
// query and mutation against the GraphQL Admin API 2026-01 schema extract and runs it over
// fixtures in the schema's shape. No sync core involved: the connector's methods are called
// directly, with the fake's clock and a sleep that moves it.
import { parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import type {
  CancelDelivery,
  DeliveryOrder,
  EarlierDelivery,
  ImportedOrder,
  OrderPage,
  SetAsideOrder,
  ShipDelivery,
} from "../../../src/marketplaces/connector";
import {
  FULFILLMENT_CREATE_MUTATION,
  FULFILLMENT_ORDER_LINES_QUERY,
  FULFILLMENT_STATE_QUERY,
  ORDERS_QUERY,
  ORDER_CANCEL_MUTATION,
  ORDER_CANCELLED_QUERY,
  ORDER_LINES_QUERY,
  ORDER_PROGRESS_QUERY,
  TRACKING_UPDATE_MUTATION,
} from "../../../src/marketplaces/shopify/shopify.graphql";
import { createShopifyConnector } from "../../../src/marketplaces/shopify/shopify.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { admin, createStore } from "../../helpers/api";
import { adminSent, expectNoFailures, fuzzer, send, toJson } from "../../helpers/fuzz";
import { badDay } from "../fake-kit/faults";
import { createShopifyFake, shopifyPagesForEver, shopifySchema, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN, type ShopifyFake } from "./shopify-fake";
import { ordersUpdatedFrom, shopifyOrder, type Json, type LineSpec } from "./shopify-fixtures";
import { rejection } from "../../helpers/rejection";
import { deliveryOrder as sellerDeliveryOrder, importAll as importPages } from "../fake-kit/connector-calls";

const START = Date.parse("2026-03-01T12:00:00Z");
const WINDOW = { since: new Date("2026-03-01T10:00:00Z"), until: new Date("2026-03-01T12:00:00Z") };

interface SetupOptions {
  orders?: Json[];
  settings?: Record<string, unknown>;
  maximumAvailable?: number;
  restoreRate?: number;
}

function setup(opts: SetupOptions = {}) {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createShopifyFake({
    orders: opts.orders ?? ordersUpdatedFrom("2026-03-01T10:00:00Z", 3),
    now,
    maximumAvailable: opts.maximumAvailable,
    restoreRate: opts.restoreRate,
  });
  const sleeps: number[] = [];
  const storage = memoryStorage();
  const connector = createShopifyConnector(
    { sourceId: "source-1", settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN, ...opts.settings }, fetch: fake.fetch, now },
    storage,
    {
      sleep: async (ms) => {
        sleeps.push(ms);
        nowMs += ms;
      },
    },
  );
  return {
    fake,
    connector,
    sleeps,
    storage,
    advance(ms: number) {
      nowMs += ms;
    },
  };
}

const importAll = (connector: ReturnType<typeof setup>["connector"]) => importPages(connector, WINDOW, { maxPages: 50 });

async function imported(connector: ReturnType<typeof setup>["connector"], n: number): Promise<ImportedOrder> {
  const all = (await importAll(connector)).flatMap((p) => p.orders);
  const order = all.find((o) => o.sourceOrderNumber === String(5000000000 + n));
  if (!order) throw new Error(`order ${n} was not imported`);
  return order;
}

const deliveryOrder = (order: ImportedOrder) => sellerDeliveryOrder(order, "SO-1");

function shipDelivery(order: DeliveryOrder, shipment: Partial<ShipDelivery["shipment"]> = {}, earlier: EarlierDelivery[] = [], id = 7): ShipDelivery {
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    kind: "ship",
    order,
    earlier,
    shipment: {
      trackingNumber: "1Z999AA10123456784",
      carrier: "UPS",
      shippingMethod: "Ground",
      shippedAt: new Date("2026-03-01T11:30:00Z"),
      lines: order.lines.map((l) => ({ sourceLineId: l.sourceLineId, quantity: l.quantity })),
      ...shipment,
    },
  };
}

function cancelDelivery(order: DeliveryOrder, earlier: EarlierDelivery[] = []): CancelDelivery {
  return { id: 9, idempotencyKey: "source-1-9", kind: "cancel", order, earlier, reason: "Canceled by seller" };
}

const numbers = (pages: OrderPage[]) => pages.flatMap((p) => p.orders.map((o) => o.sourceOrderNumber));
const fulfillmentsOf = (fake: ShopifyFake, n: number) => fake.order(n).fulfillments as Json[];

describe("the fake Shopify holds requests to the schema extract", () => {
  it("accepts every query and mutation the connector sends", () => {
    const schema = shopifySchema();
    for (const text of [
      ORDERS_QUERY,
      ORDER_LINES_QUERY,
      FULFILLMENT_STATE_QUERY,
      FULFILLMENT_ORDER_LINES_QUERY,
      FULFILLMENT_CREATE_MUTATION,
      TRACKING_UPDATE_MUTATION,
      ORDER_CANCEL_MUTATION,
      ORDER_CANCELLED_QUERY,
      ORDER_PROGRESS_QUERY,
    ]) {
      expect(validate(schema, parse(text)).map((e) => e.message)).toEqual([]);
    }
  });

  it("answers a query the schema rejects with errors and records it", async () => {
    const { fake } = setup();
    const send = (query: string) =>
      fake.fetch(`https://${SHOPIFY_FAKE_SHOP}/admin/api/2026-01/graphql.json`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": SHOPIFY_FAKE_TOKEN },
        body: JSON.stringify({ query }),
      });
    // An unknown field, a deprecated one (totalPrice: use totalPriceSet), and a selection inside a
    // type the extract leaves out (Customer is an opaque scalar here).
    for (const query of [
      "{ orders(first: 1, sortKey: UPDATED_AT) { nodes { id totalPrices } } }",
      "{ orders(first: 1, sortKey: UPDATED_AT) { nodes { id totalPrice } } }",
      "{ orders(first: 1, sortKey: UPDATED_AT) { nodes { customer { id } } } }",
    ]) {
      const answer = (await (await send(query)).json()) as { errors?: { message: string }[]; data?: unknown };
      expect(answer.data).toBeUndefined();
      expect(answer.errors?.length).toBeGreaterThan(0);
    }
    expect(fake.violations).toHaveLength(3);
    expect(fake.violations[0]).toContain('Cannot query field "totalPrices" on type "Order"');
    expect(fake.violations[1]).toContain("totalPrice is deprecated");
    expect(fake.violations[2]).toContain('Field "customer" must not have a selection since type "Customer" has no subfields');
  });
});

describe("Shopify import", () => {
  it("pages the orders updated in the window by updated_at, oldest first, with Shopify's cursors", async () => {
    const inWindow = ordersUpdatedFrom("2026-03-01T10:00:00Z", 23, 1);
    const before = shopifyOrder({ n: 90, updatedAt: "2026-03-01T09:59:59Z" });
    const atUntil = shopifyOrder({ n: 91, updatedAt: "2026-03-01T12:00:00Z" });
    const { fake, connector } = setup({ orders: [atUntil, ...inWindow.reverse(), before] });
    const pages = await importAll(connector);

    expect(pages.map((p) => p.orders.length)).toEqual([10, 10, 3]);
    expect(numbers(pages)).toEqual(Array.from({ length: 23 }, (_, i) => String(5000000001 + i)));
    expect(pages.map((p) => p.nextCursor === null)).toEqual([false, false, true]);
    const calls = fake.callsOf("orders");
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call.variables.query).toBe("updated_at:>='2026-03-01T10:00:00Z' updated_at:<'2026-03-01T12:00:00Z'");
      expect(call.operationName).toBe("ShopifyOrders");
    }
    expect(calls[0]!.variables.after).toBeNull();
    expect(calls[1]!.variables.after).toBe(pages[0]!.nextCursor);
    expect(fake.violations).toEqual([]);
  });

  it("rounds a window's bounds outwards to whole seconds", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders({ since: new Date("2026-03-01T10:00:00.900Z"), until: new Date("2026-03-01T11:59:59.001Z") }, null);
    expect(fake.calls[0]!.variables.query).toBe("updated_at:>='2026-03-01T10:00:00Z' updated_at:<'2026-03-01T12:00:00Z'");
  });

  it("keeps paging a fixed window while orders change under it", async () => {
    const { fake, connector, advance } = setup({ orders: ordersUpdatedFrom("2026-03-01T10:00:00Z", 15) });
    const first = await connector.fetchOrders(WINDOW, null);
    // An order of the first page changes: it now lies after `until`, the next window's business.
    advance(30_000);
    fake.touch(2);
    const second = await connector.fetchOrders(WINDOW, first.nextCursor);
    expect(numbers([first])).toHaveLength(10);
    expect(numbers([second])).toEqual(["5000000011", "5000000012", "5000000013", "5000000014", "5000000015"]);
    expect(second.nextCursor).toBeNull();
    expect(fake.violations).toEqual([]);
  });

  it("maps every field the service keeps, in the shop's currency", async () => {
    const { connector } = setup();
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.setAside).toEqual([]);
    expect(page.orders[0]).toEqual({
      sourceOrderNumber: "5000000001",
      sourceCustomerOrderNumber: "#1001",
      sourceOrderStatus: "UNFULFILLED",
      createdAt: new Date("2026-03-01T10:00:00Z"),
      buyerEmail: "buyer1@example.com",
      buyerPhone: "+44 7700 900123",
      buyerUserId: null,
      shipTo: {
        firstName: "Ada",
        lastName: "Lovelace",
        companyName: "Analytical Engines Ltd",
        street1: "12 St James's Square",
        street2: "Flat 3",
        city: "London",
        stateOrProvince: "ENG",
        postalCode: "SW1Y 4JH",
        country: "GB",
      },
      shippingMethod: "Standard",
      shippingServiceName: "Standard",
      shippingServiceValue: "STANDARD",
      paymentType: "shopify_payments",
      paymentTransactionId: null,
      isPrime: false,
      subTotal: 42.5,
      shippingTotal: 5,
      shippingTaxTotal: 1,
      giftWrapTotal: 0,
      giftWrapTaxTotal: 0,
      grandTotal: 57,
      items: [
        { sourceLineId: "gid://shopify/LineItem/101", sku: "MUG-BLUE", name: "Mug - Blue", quantity: 2, unitPrice: 12.5, saleTaxCost: 4.5, discount: "2.50" },
        { sourceLineId: "gid://shopify/LineItem/102", sku: "TEE-L", name: "T-shirt - L", quantity: 1, unitPrice: 20, saleTaxCost: 4, discount: "0.00" },
      ],
      sourceData: { orderId: "gid://shopify/Order/5000000001" },
    });
  });

  it("imports redacted personal data as Shopify gives it", async () => {
    const order = shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z", address: "redacted", email: null, phone: null });
    const { connector } = setup({ orders: [order] });
    const [mapped] = (await connector.fetchOrders(WINDOW, null)).orders;
    expect(mapped!.buyerEmail).toBe("");
    expect(mapped!.buyerPhone).toBe("");
    expect(mapped!.shipTo).toEqual({
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
    expect(mapped!.items.map((i) => i.sku)).toEqual(["MUG-BLUE", "TEE-L"]);
  });

  it("reads three-decimal currencies without losing the last digit", async () => {
    const lines: LineSpec[] = [{ sku: "DATES", name: "Dates", quantity: 3, price: "1.125", tax: "0.169" }];
    const order = shopifyOrder({
      n: 1,
      updatedAt: "2026-03-01T10:00:00Z",
      currency: "KWD",
      lines,
      shipping: { title: "Local", code: null, price: "0.750", tax: "0.000" },
    });
    // The fixture's totals are in cents; set them as Shopify would for KWD.
    (order.subtotalPriceSet as Json).shopMoney = { amount: "3.375", currencyCode: "KWD" };
    (order.totalPriceSet as Json).shopMoney = { amount: "4.294", currencyCode: "KWD" };
    const { connector } = setup({ orders: [order] });
    const [mapped] = (await connector.fetchOrders(WINDOW, null)).orders;
    expect(mapped!.subTotal).toBe(3.375);
    expect(mapped!.grandTotal).toBe(4.294);
    expect(mapped!.shippingTotal).toBe(0.75);
    expect(mapped!.shippingServiceValue).toBe("Local");
    expect(mapped!.items[0]).toMatchObject({ unitPrice: 1.125, saleTaxCost: 0.169, discount: "0.00" });
  });

  it("fetches the line items beyond the first five of an order", async () => {
    const lines: LineSpec[] = Array.from({ length: 45 }, (_, i) => ({ sku: `SKU-${i + 1}`, name: `Item ${i + 1}`, quantity: 1, price: "1.00" }));
    const { fake, connector } = setup({ orders: [shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z", lines })] });
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders[0]!.items.map((i) => i.sku)).toEqual(lines.map((l) => l.sku));
    expect(fake.calls.map((c) => c.operationName)).toEqual(["ShopifyOrders", "ShopifyOrderLines"]);
    expect(fake.calls[1]!.variables.id).toBe("gid://shopify/Order/5000000001");
    expect(fake.violations).toEqual([]);
  });

  it("sets aside an order with a line without SKU and imports the rest of its page", async () => {
    const bad = shopifyOrder({
      n: 2,
      updatedAt: "2026-03-01T10:01:00Z",
      lines: [
        { sku: "MUG-BLUE", name: "Mug - Blue", quantity: 1, price: "12.50" },
        { sku: null, name: "Gift wrap", quantity: 1, price: "3.00" },
      ],
    });
    const orders = [shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z" }), bad, shopifyOrder({ n: 3, updatedAt: "2026-03-01T10:02:00Z" })];
    const { connector } = setup({ orders });
    const page = await connector.fetchOrders(WINDOW, null);

    expect(page.orders.map((o) => o.sourceOrderNumber)).toEqual(["5000000001", "5000000003"]);
    expect(page.setAside).toHaveLength(1);
    const aside = page.setAside[0]!;
    expect(aside.sourceOrderNumber).toBe("5000000002");
    expect(aside.reason).toBe("order #1002 line 2 (Gift wrap) has no SKU");
    const record = aside.record as Json;
    expect(record.id).toBe("gid://shopify/Order/5000000002");
    expect(((record.lineItems as Json).nodes as Json[]).map((l) => l.sku)).toEqual(["MUG-BLUE", null]);

    // The operator's retry maps the record again: still set aside, then mapped once fixed.
    expect((connector.remap(record) as SetAsideOrder).reason).toBe("order #1002 line 2 (Gift wrap) has no SKU");
    const fixed = structuredClone(record);
    ((fixed.lineItems as Json).nodes as Json[])[1]!.sku = "GIFT-WRAP";
    const remapped = connector.remap(fixed) as ImportedOrder;
    expect(remapped.items.map((i) => i.sku)).toEqual(["MUG-BLUE", "GIFT-WRAP"]);
    expect(remapped.sourceOrderNumber).toBe("5000000002");
  });

  it("sets aside an order with more line items than the service keeps", async () => {
    const lines: LineSpec[] = Array.from({ length: 501 }, (_, i) => ({ sku: `S${i}`, name: `I${i}`, quantity: 1, price: "1.00" }));
    const { connector } = setup({ orders: [shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z", lines })], maximumAvailable: 20_000 });
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders).toEqual([]);
    expect(page.setAside.map((s) => s.reason)).toEqual(["order #1001 has more than 500 line items"]);
  });

  it("sets aside an unreadable amount or date, and an order without lines", async () => {
    const badAmount = shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z" });
    ((badAmount.lineItems as Json[])[0]!.originalUnitPriceSet as Json).shopMoney = { amount: "12,50", currencyCode: "USD" };
    const badDate = shopifyOrder({ n: 2, updatedAt: "2026-03-01T10:01:00Z" });
    badDate.createdAt = "yesterday";
    const noLines = shopifyOrder({ n: 3, updatedAt: "2026-03-01T10:02:00Z", lines: [] });
    const { connector } = setup({ orders: [badAmount, badDate, noLines] });
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.setAside.map((s) => [s.sourceOrderNumber, s.reason])).toEqual([
      ["5000000001", 'order #1001 line 1 (Mug - Blue) price: amount "12,50" is not a number'],
      ["5000000002", 'order #1002: createdAt "yesterday" is not a date'],
      ["5000000003", "order #1003 has no line items"],
    ]);
  });

  it("says CANCELLED for a cancelled order and Shopify's fulfilment status otherwise", async () => {
    const cancelled = shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z" });
    cancelled.cancelledAt = "2026-03-01T10:00:00Z";
    const fulfilled = shopifyOrder({ n: 2, updatedAt: "2026-03-01T10:01:00Z" });
    fulfilled.displayFulfillmentStatus = "FULFILLED";
    const { connector } = setup({ orders: [cancelled, fulfilled] });
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders.map((o) => o.sourceOrderStatus)).toEqual(["CANCELLED", "FULFILLED"]);
  });
});

describe("Shopify throttling", () => {
  it("paces a long import so that no call is ever throttled", async () => {
    // A small bucket: 1,000 points, 50 a second; a page asks for most of it.
    const { fake, connector, sleeps } = setup({ orders: ordersUpdatedFrom("2026-03-01T10:00:00Z", 60), maximumAvailable: 1000, restoreRate: 50 });
    const pages = await importAll(connector);

    expect(numbers(pages)).toHaveLength(60);
    const calls = fake.callsOf("orders");
    expect(calls).toHaveLength(6);
    expect(calls.filter((c) => c.throttled)).toEqual([]);
    for (const call of calls) expect(call.availableBefore).toBeGreaterThanOrEqual(call.requestedCost!);
    // It waited only as long as the bucket needed: a page asks 603 points and spends 303, so after
    // the first two pages each waits (603 - 300) / 50 s.
    expect(calls.map((c) => [c.requestedCost, c.actualCost])).toEqual(Array(6).fill([603, 303]));
    expect(sleeps).toEqual([4180, 6060, 6060, 6060]);
    for (const call of calls.slice(2)) expect(call.availableBefore - call.requestedCost!).toBeLessThan(50);
    expect(fake.violations).toEqual([]);
  });

  it("paces an operation it has not seen yet for Shopify's single-query ceiling, then remembers its cost", async () => {
    const { fake, connector, sleeps, storage } = setup({ orders: ordersUpdatedFrom("2026-03-01T10:00:00Z", 30), maximumAvailable: 1000, restoreRate: 100 });
    const orders = (await importAll(connector)).flatMap((p) => p.orders);
    const waitsBefore = sleeps.length;
    // Right after the import the bucket is low; the first fulfilment read waits instead of being refused.
    await connector.ship(shipDelivery(deliveryOrder(orders[0]!)));
    await connector.cancel(cancelDelivery(deliveryOrder(orders[1]!)));
    expect(fake.calls.filter((c) => c.throttled)).toEqual([]);
    expect(sleeps.length).toBeGreaterThan(waitsBefore);
    // What each operation costs outlives the cycle: the source's storage keeps it.
    const remembered = storage.get<Record<string, number>>("shopify:query-costs")!;
    expect(Object.keys(remembered).sort()).toEqual([
      "ShopifyFulfillmentCreate",
      "ShopifyFulfillmentState",
      "ShopifyOrderCancel",
      "ShopifyOrderCancelled",
      "ShopifyOrders",
    ]);
    for (const call of fake.calls) expect(remembered[call.operationName!]).toBe(call.requestedCost);
    expect(fake.calls.map((c) => c.operationName)).toEqual([
      "ShopifyOrders",
      "ShopifyOrders",
      "ShopifyOrders",
      "ShopifyFulfillmentState",
      "ShopifyFulfillmentCreate",
      "ShopifyOrderCancelled",
      "ShopifyOrderCancel",
    ]);
  });

  it("retries a THROTTLED answer after the time the restore rate says", async () => {
    const { fake, connector, sleeps } = setup();
    fake.setAvailable(0);
    const page = await connector.fetchOrders(WINDOW, null);

    expect(page.orders).toHaveLength(3);
    const calls = fake.callsOf("orders");
    expect(calls.map((c) => c.throttled)).toEqual([true, false]);
    const cost = calls[0]!.requestedCost!;
    // Empty bucket, 100 points a second: the cost's worth of seconds.
    expect(sleeps).toEqual([Math.ceil(cost * 10)]);
    expect(calls[1]!.at - calls[0]!.at).toBe(Math.ceil(cost * 10));
  });

  it("hands a long wait back to the caller as a retryable error with the wait", async () => {
    const { fake, connector, sleeps } = setup({ restoreRate: 10 });
    fake.setAvailable(0);
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    const cost = fake.calls[0]!.requestedCost!;
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(cost * 100);
    expect(error.message).toBe("Shopify ShopifyOrders: Throttled");
    expect(sleeps).toEqual([]);
    expect(fake.calls).toHaveLength(1);
  });

  it("waits before a call the bucket cannot cover rather than being refused", async () => {
    const { fake, connector, sleeps } = setup();
    await connector.fetchOrders(WINDOW, null);
    const cost = fake.calls[0]!.requestedCost!;
    // The shop's bucket is drained by another app: the next answer reports it, and the call after waits.
    fake.setAvailable(cost + 5);
    await connector.fetchOrders(WINDOW, null);
    await connector.fetchOrders(WINDOW, null);
    expect(fake.calls.map((c) => c.throttled)).toEqual([false, false, false]);
    expect(sleeps).toHaveLength(1);
    expect(fake.calls[2]!.availableBefore).toBeGreaterThanOrEqual(cost);
  });

  it("reads a 429 with Retry-After as retryable with that wait", async () => {
    const { fake, connector } = setup();
    fake.failNext({ status: 429, body: { errors: "Exceeded 2 calls per second for api client." }, headers: { "Retry-After": "2.0" } });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.status).toBe(429);
    expect(error.message).toBe("Shopify ShopifyOrders 429 Exceeded 2 calls per second for api client.");
  });
});

describe("Shopify errors", () => {
  it("reports a refused access token without retrying", async () => {
    const { fake, connector } = setup({ settings: { accessToken: "shpat_revoked" } });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Shopify ShopifyOrders 401 [API] Invalid API key or access token (unrecognized login or wrong password)");
    expect(fake.calls).toHaveLength(1);
  });

  it("does not retry a schema error, and names Shopify's message", async () => {
    const { fake, connector } = setup();
    fake.failNext({
      status: 200,
      body: { errors: [{ message: "Field 'legacyResourceId' doesn't exist on type 'Order'", extensions: { code: "undefinedField" } }] },
    });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Shopify ShopifyOrders: Field 'legacyResourceId' doesn't exist on type 'Order' (undefinedField)");
    expect(fake.calls).toHaveLength(1);
  });

  it("does not retry MAX_COST_EXCEEDED", async () => {
    const { fake, connector } = setup();
    fake.failNext({
      status: 200,
      body: { errors: [{ message: "Query cost is 1302, which exceeds the single query max cost limit (1000).", extensions: { code: "MAX_COST_EXCEEDED" } }] },
    });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("(MAX_COST_EXCEEDED)");
  });

  it("retries Shopify's own failures: 5xx, INTERNAL_SERVER_ERROR, broken answers, the network", async () => {
    const { fake, connector } = setup();
    fake.failNext({ status: 503, body: "<html>Service Unavailable</html>" });
    fake.failNext({
      status: 200,
      body: { errors: [{ message: "Internal error. Looks like something went wrong on our end.", extensions: { code: "INTERNAL_SERVER_ERROR" } }] },
    });
    fake.failNext({ status: 200, body: '{"data": {"orders"' });
    fake.failNextWithError();
    fake.failNext({ status: 200, body: { data: null } });
    const errors = [];
    for (let i = 0; i < 5; i++) errors.push(await rejection(connector.fetchOrders(WINDOW, null)));
    expect(errors.map((e) => e.retryable)).toEqual([true, true, true, true, true]);
    expect(errors.map((e) => e.message)).toEqual([
      "Shopify ShopifyOrders 503 <html>Service Unavailable</html>",
      "Shopify ShopifyOrders: Internal error. Looks like something went wrong on our end. (INTERNAL_SERVER_ERROR)",
      "Shopify ShopifyOrders: the 200 answer is not JSON",
      "Shopify POST /admin/api/2026-01/graphql.json failed: Network connection lost.",
      "Shopify ShopifyOrders: the answer has no data",
    ]);
    // And then it works again.
    expect((await connector.fetchOrders(WINDOW, null)).orders).toHaveLength(3);
  });

  it("reads the next page a bad day names, repeating or never ending: the engine's to stop", async () => {
    for (const [repeating, expected] of [
      [true, ["again", "again", "again"]],
      [false, ["page-0", "page-1", "page-2"]],
    ] as const) {
      const { fake, connector } = setup();
      fake.failNext(shopifyPagesForEver(repeating));
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

  it("reads an answer of the wrong shape without breaking: set aside, defaults, or a retryable error", async () => {
    const { fake, connector } = setup();
    const answer = (nodes: unknown[], pageInfo: unknown = { hasNextPage: "yes", endCursor: 7 }) => ({ data: { orders: { pageInfo, nodes } } });
    fake.failNext({
      status: 200,
      body: answer([
        { id: 5, legacyResourceId: { a: 1 }, name: ["x"] },
        {
          legacyResourceId: "77",
          name: 42,
          createdAt: "2026-03-01T10:00:00Z",
          lineItems: { nodes: [null, { id: "gid://shopify/LineItem/1", sku: "A", quantity: 2 }] },
        },
        {
          legacyResourceId: "78",
          createdAt: "2026-03-01T10:00:00Z",
          email: 5,
          shippingAddress: "somewhere",
          shippingLine: [],
          paymentGatewayNames: "shopify_payments",
          totalPriceSet: { shopMoney: { amount: { value: 1 } } },
          lineItems: {
            nodes: [
              {
                id: "gid://shopify/LineItem/2",
                sku: "B",
                name: 9,
                quantity: 1,
                originalUnitPriceSet: { shopMoney: { amount: "3.00" } },
                taxLines: "none",
                discountAllocations: {},
              },
            ],
          },
        },
        {
          legacyResourceId: "79",
          createdAt: "2026-03-01T10:00:00Z",
          lineItems: { nodes: [{ id: "gid://shopify/LineItem/3", sku: "C", quantity: "2" }] },
        },
      ]),
    });
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.nextCursor).toBeNull();
    expect(page.setAside.map((s) => [s.sourceOrderNumber, s.reason])).toEqual([
      ["unknown", "the order has no numeric id"],
      ["77", "order 77 line 1 has no id"],
      ["78", 'order 78 total: amount {"value":1} is not a number'],
      ["79", 'order 79 line 1: quantity "2" is not a positive integer'],
    ]);

    const fixed = structuredClone(page.setAside[2]!.record) as Json;
    delete fixed.totalPriceSet;
    expect(connector.remap(fixed)).toMatchObject({
      sourceOrderNumber: "78",
      sourceCustomerOrderNumber: null,
      buyerEmail: "",
      paymentType: null,
      shippingMethod: "",
      shipTo: { firstName: "", street1: "", country: "", companyName: null },
      items: [{ sourceLineId: "gid://shopify/LineItem/2", sku: "B", name: "", quantity: 1, unitPrice: 3, saleTaxCost: 0, discount: "0.00" }],
    });
    expect(connector.remap(null)).toMatchObject({ sourceOrderNumber: "unknown", reason: "the order has no numeric id" });
    expect(connector.remap("text")).toMatchObject({ sourceOrderNumber: "unknown" });

    fake.failNext({ status: 200, body: answer([null]) });
    const error = await rejection(connector.fetchOrders(WINDOW, null));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("Shopify ShopifyOrders: the answer lists something that is not an order");
    fake.failNext({ status: 200, body: { data: { orders: { nodes: "none" } } } });
    expect((await rejection(connector.fetchOrders(WINDOW, null))).message).toBe("Shopify ShopifyOrders: the answer has no orders");
  });

  it("calls the shop's own domain, or the baseUrl a test double sits at, with the token", async () => {
    const { fake, connector } = setup();
    await connector.fetchOrders(WINDOW, null);
    expect(fake.violations).toEqual([]);

    let seen = "";
    const elsewhere = createShopifyFake({ host: "shopify-double.example:8443", orders: [] });
    const viaBase = createShopifyConnector(
      {
        sourceId: "s",
        settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN, baseUrl: "https://shopify-double.example:8443/" },
        fetch: (input, init) => {
          seen = new Request(input, init).url;
          return elsewhere.fetch(input, init);
        },
        now: () => new Date(START),
      },
      memoryStorage(),
    );
    expect(await viaBase.fetchOrders(WINDOW, null)).toEqual({ orders: [], setAside: [], nextCursor: null });
    expect(seen).toBe("https://shopify-double.example:8443/admin/api/2026-01/graphql.json");
    expect(elsewhere.violations).toEqual([]);
  });

  it("refuses settings it cannot use when the connector is built", () => {
    const fake = createShopifyFake();
    expect(() =>
      createShopifyConnector(
        { sourceId: "s", settings: { shopDomain: "example.com", accessToken: "x" }, fetch: fake.fetch, now: () => new Date() },
        memoryStorage(),
      ),
    ).toThrow("Shopify settings of source s are invalid: shopDomain: must be the shop's permanent domain, <shop>.myshopify.com");
  });
});

describe("Shopify shipments", () => {
  it("stops reading an order's fulfilment state whose next page repeats or never ends, and sends nothing", async () => {
    for (const cursor of [() => "same-page", (n: number) => `page-${n}`]) {
      const { fake, connector } = setup();
      const order = deliveryOrder(await imported(connector, 1));
      const gid = order.sourceData.orderId;
      fake.failNext(
        badDay.endlessPages(
          (n) => ({
            data: {
              order: {
                cancelledAt: null,
                fulfillments: [],
                fulfillmentOrders: { pageInfo: { hasNextPage: true, endCursor: cursor(n) }, nodes: [] },
              },
            },
          }),
          { operation: "ShopifyFulfillmentState" },
        ),
      );
      const before = fake.calls.length;
      const failure = await rejection(connector.ship(shipDelivery(order)));
      expect(failure.message).toMatch(
        /^Shopify order #1001's fulfillment orders: (the marketplace named the same next page twice|more than 40 pages, more than the hub reads)$/,
      );
      expect(failure.retryable).toBe(false);
      // Every call after the import was a page of the fulfilment state; none created anything.
      expect(fake.calls.length - before).toBeLessThanOrEqual(40);
      expect(fake.calls.slice(before).every((c) => c.status === 200 && c.fields.length === 0)).toBe(true);
      expect(gid).toMatch(/^gid:\/\/shopify\/Order\//);
    }
  });

  it("has no acknowledgement: NotApplicable, without a call", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const calls = fake.calls.length;
    const outcome = await connector.acknowledge({ id: 1, idempotencyKey: "source-1-1", kind: "acknowledge", order, earlier: [], sellerOrderNumber: "SO-1" });
    expect(outcome).toEqual({
      state: "notApplicable",
      reason: "Shopify has no acknowledgement of an order: its orders are open for fulfilment as they arrive",
    });
    expect(connector.capabilities).toEqual({ acknowledge: false, ship: true, shipLines: true, cancel: true, cancelLines: false });
    expect(fake.calls).toHaveLength(calls);
  });

  it("fulfils some lines of an order over its open fulfillment order, with tracking, not notifying", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const outcome = await connector.ship(shipDelivery(order, { lines: [{ sourceLineId: "gid://shopify/LineItem/101", quantity: 1 }] }));

    expect(outcome).toEqual({ state: "delivered", reference: "gid://shopify/Fulfillment/900001", warning: null });
    const [create] = fake.callsOf("fulfillmentCreate");
    expect(create!.variables).toEqual({
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: "gid://shopify/FulfillmentOrder/11",
            fulfillmentOrderLineItems: [{ id: "gid://shopify/FulfillmentOrderLineItem/101", quantity: 1 }],
          },
        ],
        notifyCustomer: false,
        trackingInfo: { number: "1Z999AA10123456784", company: "UPS" },
      },
    });
    expect(fake.order(1).displayFulfillmentStatus).toBe("PARTIALLY_FULFILLED");
    expect(fulfillmentsOf(fake, 1)[0]!.trackingInfo).toEqual([{ number: "1Z999AA10123456784", company: "UPS", url: null }]);

    // The rest of the order later: only what remains open is fulfilled.
    const rest = await connector.ship(shipDelivery(order, {}, [], 8));
    expect(rest).toEqual({
      state: "delivered",
      reference: "gid://shopify/Fulfillment/900001 gid://shopify/Fulfillment/900002",
      warning: "1 unit(s) of the shipment were already fulfilled in Shopify",
    });
    expect(fake.callsOf("fulfillmentCreate")[1]!.variables.fulfillment).toMatchObject({
      lineItemsByFulfillmentOrder: [
        {
          fulfillmentOrderId: "gid://shopify/FulfillmentOrder/11",
          fulfillmentOrderLineItems: [
            { id: "gid://shopify/FulfillmentOrderLineItem/101", quantity: 1 },
            { id: "gid://shopify/FulfillmentOrderLineItem/102", quantity: 1 },
          ],
        },
      ],
    });
    expect(fake.order(1).displayFulfillmentStatus).toBe("FULFILLED");
    expect(fake.violations).toEqual([]);
  });

  it("creates one fulfillment per location and notifies when the settings say so", async () => {
    const { fake, connector } = setup({
      orders: [shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z", twoLocations: true })],
      settings: { notifyCustomer: true },
    });
    const order = deliveryOrder(await imported(connector, 1));
    const outcome = await connector.ship(shipDelivery(order, { trackingNumber: null, carrier: null }));

    expect(outcome).toEqual({ state: "delivered", reference: "gid://shopify/Fulfillment/900001 gid://shopify/Fulfillment/900002", warning: null });
    const creates = fake.callsOf("fulfillmentCreate").map((c) => c.variables.fulfillment as Json);
    expect(creates.map((c) => (c.lineItemsByFulfillmentOrder as Json[])[0]!.fulfillmentOrderId)).toEqual([
      "gid://shopify/FulfillmentOrder/11",
      "gid://shopify/FulfillmentOrder/12",
    ]);
    expect(creates.map((c) => c.notifyCustomer)).toEqual([true, true]);
    // No tracking given: no trackingInfo sent (Shopify allows a fulfillment without one).
    expect(creates.map((c) => "trackingInfo" in c)).toEqual([false, false]);
    expect(fake.violations).toEqual([]);
  });

  it("corrects the tracking of an earlier shipment with fulfillmentTrackingInfoUpdate", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const first = await connector.ship(shipDelivery(order));
    expect(first).toMatchObject({ state: "delivered", reference: "gid://shopify/Fulfillment/900001" });

    const earlier: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "gid://shopify/Fulfillment/900001" }];
    const second = await connector.ship(shipDelivery(order, { trackingNumber: "794698765432", carrier: "FedEx" }, earlier, 8));

    expect(second).toEqual({ state: "delivered", reference: "gid://shopify/Fulfillment/900001" });
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(1);
    const [update] = fake.callsOf("fulfillmentTrackingInfoUpdate");
    expect(update!.variables).toEqual({
      fulfillmentId: "gid://shopify/Fulfillment/900001",
      trackingInfoInput: { number: "794698765432", company: "FedEx" },
      notifyCustomer: false,
    });
    expect(fulfillmentsOf(fake, 1)[0]!.trackingInfo).toEqual([{ number: "794698765432", company: "FedEx", url: null }]);

    // The same correction again changes nothing and calls no mutation.
    await connector.ship(shipDelivery(order, { trackingNumber: "794698765432", carrier: "FedEx" }, earlier, 9));
    expect(fake.callsOf("fulfillmentTrackingInfoUpdate")).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("finds its own fulfillment again when a create's answer was lost", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    await connector.ship(shipDelivery(order));
    // The core never heard the answer and tries the same delivery again.
    const again = await connector.ship(shipDelivery(order));
    expect(again).toEqual({ state: "delivered", reference: "gid://shopify/Fulfillment/900001" });
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(1);
    expect(fulfillmentsOf(fake, 1)).toHaveLength(1);
  });

  it("warns, without overwriting, when the merchant fulfilled the order in Shopify", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    await connector.ship(shipDelivery(order, { trackingNumber: "MERCHANT-1", carrier: "DHL Express" }));
    const ours = await connector.ship(shipDelivery(order, {}, [], 8));
    expect(ours).toEqual({
      state: "delivered",
      reference: null,
      warning: "Shopify shows the shipment's units fulfilled already, not by this service; their tracking was left as Shopify has it",
    });
    expect(fake.callsOf("fulfillmentTrackingInfoUpdate")).toHaveLength(0);
  });

  it("matches the lines of an order a client inserted by SKU", async () => {
    const { fake, connector } = setup();
    const inserted: DeliveryOrder = {
      sourceOrderNumber: "5000000002",
      sourceCustomerOrderNumber: null,
      sellerOrderNumber: null,
      sourceData: {},
      lines: [
        { sourceLineId: "", sku: "TEE-L", quantity: 1 },
        { sourceLineId: "", sku: "MUG-BLUE", quantity: 2 },
      ],
    };
    const outcome = await connector.ship(shipDelivery(inserted, { lines: [] }));
    expect(outcome).toMatchObject({ state: "delivered", reference: "gid://shopify/Fulfillment/900001" });
    expect(fake.callsOf("order")[0]!.variables.id).toBe("gid://shopify/Order/5000000002");
    expect(fake.order(2).displayFulfillmentStatus).toBe("FULFILLED");
  });

  it("waits for a fulfillment order on hold, and refuses one another service fulfils", async () => {
    const held = shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z", fulfillmentOrderStatus: "ON_HOLD" });
    const elsewhere = shopifyOrder({ n: 2, updatedAt: "2026-03-01T10:01:00Z", fulfillmentOrderStatus: "INCOMPLETE" });
    const { fake, connector } = setup({ orders: [held, elsewhere] });
    const onHold = await rejection(connector.ship(shipDelivery(deliveryOrder(await imported(connector, 1)))));
    expect(onHold.retryable).toBe(true);
    expect(onHold.message).toBe("Shopify order #1001: fulfillment order gid://shopify/FulfillmentOrder/11 is ON_HOLD");
    const refused = await rejection(connector.ship(shipDelivery(deliveryOrder(await imported(connector, 2)))));
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain("fulfillment order gid://shopify/FulfillmentOrder/21 (INCOMPLETE) cannot be fulfilled by this app");
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(0);
  });

  it("refuses to ship a cancelled order or a line Shopify does not have", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const unknown = await rejection(connector.ship(shipDelivery(order, { lines: [{ sourceLineId: "gid://shopify/LineItem/999", quantity: 1 }] })));
    expect(unknown.retryable).toBe(false);
    expect(unknown.message).toBe("Shopify order #1001 has no line item gid://shopify/LineItem/999");
    fake.touch(1, (o) => {
      o.cancelledAt = "2026-03-01T11:00:00Z";
    });
    const cancelled = await rejection(connector.ship(shipDelivery(order)));
    expect(cancelled.retryable).toBe(false);
    expect(cancelled.message).toBe("Shopify order #1001 was cancelled in Shopify at 2026-03-01T11:00:00Z: there is nothing to fulfil");
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(0);
  });

  it("turns userErrors into a MarketplaceError with Shopify's message, not retried", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    fake.rejectNext("fulfillmentCreate", [{ field: ["fulfillment", "trackingInfo", "number"], message: "Tracking number is invalid." }]);
    const error = await rejection(connector.ship(shipDelivery(order)));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Shopify fulfillmentCreate refused: Tracking number is invalid. (fulfillment.trackingInfo.number)");
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(1);

    const earlier: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "gid://shopify/Fulfillment/123" }];
    await connector.ship(shipDelivery(order));
    const update = await rejection(connector.ship(shipDelivery(order, { trackingNumber: "NEW" }, earlier, 8)));
    expect(update.message).toBe("Shopify fulfillmentTrackingInfoUpdate refused: Fulfillment does not exist. (fulfillmentId)");
  });

  it("needs a Shopify id for an order it did not import", async () => {
    const { connector } = setup();
    const order: DeliveryOrder = { sourceOrderNumber: "#1001", sourceCustomerOrderNumber: null, sellerOrderNumber: null, sourceData: {}, lines: [] };
    const error = await rejection(connector.ship(shipDelivery(order)));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("must carry Shopify's numeric order id as OrderSourceOrderNumber");
  });
});

describe("Shopify cancellation", () => {
  it("submits orderCancel as a job and reports it delivered once the order shows cancelled", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const outcome = await connector.cancel(cancelDelivery(order));

    expect(outcome.state).toBe("submitted");
    const job = (outcome as { reference: string }).reference;
    expect(job).toMatch(/^gid:\/\/shopify\/Job\/[0-9a-f-]{36}$/);
    const [call] = fake.callsOf("orderCancel");
    expect(call!.variables).toEqual({
      orderId: "gid://shopify/Order/5000000001",
      reason: "OTHER",
      restock: false,
      refundMethod: { originalPaymentMethodsRefund: false },
      notifyCustomer: false,
      staffNote: "Canceled by seller",
    });

    expect(await connector.checkSubmitted!(cancelDelivery(order), job)).toEqual({ state: "pending" });
    fake.completeJobs();
    expect(await connector.checkSubmitted!(cancelDelivery(order), job)).toEqual({ state: "delivered", reference: job });
    expect(fake.order(1).cancelledAt).not.toBeNull();
    expect(fake.violations).toEqual([]);
  });

  it("refunds, restocks and notifies only when the settings say so", async () => {
    const { fake, connector } = setup({ settings: { cancelReason: "INVENTORY", cancelRefund: true, cancelRestock: true, cancelNotifyCustomer: true } });
    const order = deliveryOrder(await imported(connector, 1));
    await connector.cancel(cancelDelivery(order));
    expect(fake.callsOf("orderCancel")[0]!.variables).toMatchObject({
      reason: "INVENTORY",
      restock: true,
      refundMethod: { originalPaymentMethodsRefund: true },
      notifyCustomer: true,
    });
  });

  it("takes an order Shopify already shows cancelled as delivered, without cancelling again", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    fake.touch(1, (o) => {
      o.cancelledAt = "2026-03-01T11:00:00Z";
    });
    expect(await connector.cancel(cancelDelivery(order))).toEqual({ state: "delivered", reference: null });
    expect(fake.callsOf("orderCancel")).toHaveLength(0);
  });

  it("turns orderCancelUserErrors into a MarketplaceError with the code, not retried", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    fake.rejectNext("orderCancel", [{ code: "NO_REFUND_PERMISSION", field: ["refundMethod"], message: "You don't have permission to refund." }]);
    const error = await rejection(connector.cancel(cancelDelivery(order)));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Shopify orderCancel refused: NO_REFUND_PERMISSION: You don't have permission to refund. (refundMethod)");
    fake.rejectNext("orderCancel", [{ code: "INTERNAL_ERROR", field: null, message: "Something went wrong." }]);
    expect((await rejection(connector.cancel(cancelDelivery(order)))).retryable).toBe(true);
  });

  it("reports a job that never cancels the order as rejected after an hour", async () => {
    const { fake, connector, advance, storage } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const outcome = (await connector.cancel(cancelDelivery(order))) as { reference: string };
    fake.dropJobs();
    advance(59 * 60_000);
    expect(await connector.checkSubmitted!(cancelDelivery(order), outcome.reference)).toEqual({ state: "pending" });
    advance(2 * 60_000);
    expect(await connector.checkSubmitted!(cancelDelivery(order), outcome.reference)).toEqual({
      state: "rejected",
      message: `Shopify's cancellation job ${outcome.reference} did not cancel order #1001 within 60 minutes`,
    });
    expect(storage.list("shopify:cancel-job:")).toEqual([]);
  });
});

describe("Shopify source settings", () => {
  const good = { shopDomain: "Hub-Test.myshopify.com", accessToken: "shpat_0123456789abcdef", notifyCustomer: true };

  it("creates a source with the token kept secret", async () => {
    const storeId = await createStore();
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "shopify", Name: "My Shopify", Settings: good });
    expect(created.status).toBe(200);
    expect((created.json.Source as { Settings: Record<string, unknown> }).Settings).toEqual({
      shopDomain: "Hub-Test.myshopify.com",
      accessToken: "********",
      notifyCustomer: true,
    });
    expect(created.text).not.toContain("shpat_0123456789abcdef");
  });

  it("answers 400 naming the setting that is missing or wrong", async () => {
    const storeId = await createStore();
    const cases: [Record<string, unknown>, string][] = [
      [{ accessToken: "shpat_x" }, "'Settings.shopDomain' is required"],
      [{ ...good, shopDomain: "shop.example.com" }, "'Settings.shopDomain': must be the shop's permanent domain, <shop>.myshopify.com"],
      [{ ...good, shopDomain: "https://hub-test.myshopify.com" }, "'Settings.shopDomain': must be the shop's permanent domain, <shop>.myshopify.com"],
      [{ shopDomain: "hub-test.myshopify.com" }, "'Settings.accessToken' is required"],
      [{ ...good, accessToken: "  " }, "'Settings.accessToken': is required: the Admin API access token of the shop's custom app"],
      [{ ...good, accessToken: "shpat x" }, "'Settings.accessToken': must be printable ASCII without spaces"],
      [{ ...good, apiVersion: "2026-02" }, "'Settings.apiVersion': must be a Shopify API version such as 2026-01 (YYYY-01, -04, -07 or -10)"],
      [{ ...good, baseUrl: "http://localhost:8787" }, "'Settings.baseUrl': must be an https URL"],
      [{ ...good, cancelReason: "BORED" }, "'Settings.cancelReason'"],
      [{ ...good, cancelRefund: "yes" }, "'Settings.cancelRefund'"],
      [{ ...good, apiKey: "x" }, "apiKey"],
    ];
    for (const [settings, message] of cases) {
      const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "shopify", Name: "S", Settings: settings });
      expect(res.status, JSON.stringify(settings)).toBe(400);
      expect(res.json.Message).toContain(message);
    }
    const list = await admin("GET", `/stores/${storeId}/sources`);
    expect(list.json.Sources).toEqual([]);
  });

  it("never answers a 5xx to fuzzed Settings", async () => {
    const f = fuzzer(10_2026);
    const storeId = await createStore("Fuzz Shopify");
    const base = {
      shopDomain: "hub-test.myshopify.com",
      accessToken: "shpat_x",
      apiVersion: "2026-01",
      baseUrl: "https://shopify.example",
      notifyCustomer: false,
      cancelReason: "OTHER",
      cancelRefund: false,
      cancelRestock: false,
      cancelNotifyCustomer: false,
    };
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) {
      const body = toJson({ Type: "shopify", Name: `F${i}`, Enabled: false, Settings: f.chance(0.8) ? f.mutate(base) : f.value() });
      statuses.add((await send(failures, adminSent("POST", `/stores/${storeId}/sources`, body, "application/json"))).status);
    }
    expectNoFailures(failures);
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});

describe("Shopify by package (decisions 12)", () => {
  it("sends two packages as two fulfillments with only their lines and units; a correction of package 1 updates package 1's fulfillment only", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector, 1));
    const [mug, tee] = order.lines;
    const first = await connector.ship(
      shipDelivery(order, { shipmentId: "shp_1", trackingNumber: "1Z0000000000000001", lines: [{ sourceLineId: mug!.sourceLineId, quantity: 1 }] }),
    );
    expect(first).toMatchObject({ state: "delivered", reference: "gid://shopify/Fulfillment/900001" });
    const afterOne: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "gid://shopify/Fulfillment/900001", shipmentId: "shp_1" }];
    const second = await connector.ship(
      shipDelivery(
        order,
        { shipmentId: "shp_2", trackingNumber: "1Z0000000000000002", lines: [{ sourceLineId: tee!.sourceLineId, quantity: 1 }] },
        afterOne,
        8,
      ),
    );
    expect(second).toMatchObject({ state: "delivered", reference: "gid://shopify/Fulfillment/900002" });
    const creates = fake
      .callsOf("fulfillmentCreate")
      .map(
        (c) =>
          JSON.parse(JSON.stringify(c.variables)) as { fulfillment: { lineItemsByFulfillmentOrder: { fulfillmentOrderLineItems: { quantity: number }[] }[] } },
      );
    expect(creates.map((c) => c.fulfillment.lineItemsByFulfillmentOrder.flatMap((g) => g.fulfillmentOrderLineItems.map((l) => l.quantity)))).toEqual([
      [1],
      [1],
    ]);

    // Package 1 corrected while one mug is still open: its own fulfillment gets the number, nothing is created.
    const afterTwo: EarlierDelivery[] = [...afterOne, { kind: "ship", state: "delivered", reference: "gid://shopify/Fulfillment/900002", shipmentId: "shp_2" }];
    const correction = await connector.ship(
      shipDelivery(
        order,
        { shipmentId: "shp_1", trackingNumber: "1Z0000000000000009", lines: [{ sourceLineId: mug!.sourceLineId, quantity: 1 }] },
        afterTwo,
        9,
      ),
    );
    expect(correction).toEqual({ state: "delivered", reference: "gid://shopify/Fulfillment/900001" });
    expect(fake.callsOf("fulfillmentCreate")).toHaveLength(2);
    expect(fake.callsOf("fulfillmentTrackingInfoUpdate").map((c) => (c.variables as { fulfillmentId: string }).fulfillmentId)).toEqual([
      "gid://shopify/Fulfillment/900001",
    ]);
    expect(fulfillmentsOf(fake, 1).map((f) => (f.trackingInfo as { number: string }[])[0]?.number)).toEqual(["1Z0000000000000009", "1Z0000000000000002"]);
    expect(fake.violations).toEqual([]);
  });

  it("a line cancellation is not Shopify's to take here: cancelLines is false", () => {
    const { connector } = setup();
    expect(connector.capabilities).toMatchObject({ shipLines: true, cancelLines: false });
  });
});

describe("Shopify by line in: what Shopify's admin did (decisions 12 and 13)", () => {
  // The admin's changes are dated the fake's now (START), the end of WINDOW: a later window takes them.
  const LATER = { since: WINDOW.since, until: new Date(START + 3_600_000) };
  const importLater = (connector: ReturnType<typeof setup>["connector"]) => importPages(connector, LATER, { maxPages: 50 });
  const importedLater = async (connector: ReturnType<typeof setup>["connector"], n: number) =>
    (await importLater(connector)).flatMap((p) => p.orders).find((o) => o.sourceOrderNumber === String(5000000000 + n))!;
  const progressCalls = (fake: ShopifyFake) => fake.calls.filter((c) => c.operationName === "ShopifyOrderProgress").map((c) => c.variables.id);

  it("reads an order again only when Shopify shows units fulfilled, refunded or removed, or money refunded; an untouched order reports nothing by line", async () => {
    const { fake, connector } = setup({ orders: ordersUpdatedFrom("2026-03-01T10:00:00Z", 4) });
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 1 }], { number: "794600000001", company: "FedEx" });
    // An amount-only refund (a goodwill gesture on shipping): no line moves, the order shows PARTIALLY_REFUNDED.
    fake.refundInAdmin(3, [], "4.00", "Goodwill");
    const pages = await importLater(connector);
    expect(progressCalls(fake).sort()).toEqual(["gid://shopify/Order/5000000001", "gid://shopify/Order/5000000003"]);
    const byN = (n: number) => pages.flatMap((p) => p.orders).find((o) => o.sourceOrderNumber === String(5000000000 + n))!;
    expect(byN(2)).not.toHaveProperty("shipments");
    expect(byN(2)).not.toHaveProperty("refunds");
    expect(byN(2).items.map((i) => [i.quantityShipped, i.quantityCancelled])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    const one = byN(1);
    expect(one.items.map((i) => [i.sku, i.quantityShipped, i.quantityCancelled])).toEqual([
      ["MUG-BLUE", 1, 0],
      ["TEE-L", 0, 0],
    ]);
    expect(one.shipments).toEqual([
      {
        sourceShipmentId: "gid://shopify/Fulfillment/900001",
        trackingNumber: "794600000001",
        carrier: "FedEx",
        shippingMethod: null,
        shippedAt: new Date(START),
        lines: [{ sourceLineId: "gid://shopify/LineItem/101", quantity: 1 }],
      },
    ]);
    expect(byN(3).refunds).toEqual([
      { sourceRefundId: "gid://shopify/Refund/8001", createdAt: new Date(START), reason: "Goodwill", lines: [], shippingAmount: 4, currency: "USD" },
    ]);
    expect(byN(3).items.map((i) => [i.quantityShipped, i.quantityCancelled])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("counts a refunded unit against the shipped ones, a removed unshipped unit as cancelled, and no cancelled fulfillment as a package", async () => {
    const { fake, connector } = setup({
      orders: [
        shopifyOrder({
          n: 1,
          updatedAt: "2026-03-01T10:00:00Z",
          lines: [
            { sku: "MUG-BLUE", name: "Mug - Blue", quantity: 3, price: "10.00", tax: "3.00" },
            { sku: "TEE-L", name: "T-shirt - L", quantity: 2, price: "20.00" },
          ],
        }),
      ],
    });
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 2 }], { number: "1Z0000000000000001", company: "UPS" });
    const voided = fake.fulfilInAdmin(1, [{ line: 1, quantity: 1 }], { number: "1Z0000000000000002", company: "UPS" });
    // One shipped mug refunded without restock: the third mug is still to ship, not cancelled.
    fake.refundInAdmin(1, [{ line: 0, quantity: 1, restockType: "NO_RESTOCK" }]);
    fake.touch(1, (order) => {
      // The T-shirt's fulfillment was cancelled, and one T-shirt removed by an order edit (no refund).
      const f = (order.fulfillments as Json[]).find((x) => x.id === voided)!;
      f.status = "CANCELLED";
      const tee = (order.lineItems as Json[])[1]!;
      tee.currentQuantity = 1;
    });
    const order = await importedLater(connector, 1);
    expect(order.items.map((i) => [i.sku, i.quantity, i.quantityShipped, i.quantityCancelled])).toEqual([
      ["MUG-BLUE", 3, 2, 0],
      ["TEE-L", 2, 0, 1],
    ]);
    expect(order.shipments!.map((s) => [s.sourceShipmentId, s.lines.map((l) => l.quantity)])).toEqual([["gid://shopify/Fulfillment/900001", [2]]]);
    expect(order.refunds!.map((r) => [r.lines, r.shippingAmount])).toEqual([[[{ sourceLineId: "gid://shopify/LineItem/101", quantity: 1, amount: 11 }], 0]]);
    expect(fake.violations).toEqual([]);
  });

  it("leaves the counts out when one query cannot read every package or refund, and a refund whose lines it cannot all read", async () => {
    const many: LineSpec[] = Array.from({ length: 11 }, (_, i) => ({ sku: `SKU-${i + 1}`, name: `Item ${i + 1}`, quantity: 1, price: "1.00" }));
    const { fake, connector } = setup({
      orders: [
        shopifyOrder({ n: 1, updatedAt: "2026-03-01T10:00:00Z", lines: [{ sku: "PEG", name: "Peg", quantity: 12, price: "1.00" }] }),
        shopifyOrder({ n: 2, updatedAt: "2026-03-01T10:01:00Z", lines: many }),
      ],
    });
    for (let i = 0; i < 10; i++) fake.fulfilInAdmin(1, [{ line: 0, quantity: 1 }], { number: `TRACK-${i + 1}`, company: "UPS" });
    fake.refundInAdmin(
      2,
      many.map((_, line) => ({ line, quantity: 1, restockType: "CANCEL" as const })),
    );
    const one = await importedLater(connector, 1);
    // Ten packages read (the query's limit): more may exist, so the count stays the hub's.
    expect(one.shipments).toHaveLength(10);
    expect(one.items.map((i) => [i.quantityShipped, i.quantityCancelled])).toEqual([[undefined, undefined]]);
    const two = await importedLater(connector, 2);
    expect(two).not.toHaveProperty("refunds");
    expect(two.items.every((i) => i.quantityCancelled === undefined)).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it("reads nothing by line from a follow-up answer that is nonsense or fails, and retries a page whose follow-up Shopify could not answer", async () => {
    const { fake, connector } = setup({ orders: ordersUpdatedFrom("2026-03-01T10:00:00Z", 1) });
    fake.fulfilInAdmin(1, [{ line: 0, quantity: 2 }], { number: "1Z0000000000000001", company: "UPS" });
    fake.refundInAdmin(1, [{ line: 0, quantity: 1, restockType: "RETURN" }]);
    fake.failNext({ status: 200, body: { data: { order: { fulfillments: "none", refunds: null } } }, operation: "ShopifyOrderProgress" });
    const order = await importedLater(connector, 1);
    expect([order.shipments, order.refunds, order.items.map((i) => [i.quantityShipped, i.quantityCancelled])]).toEqual([
      undefined,
      undefined,
      [
        [undefined, undefined],
        [undefined, undefined],
      ],
    ]);
    fake.failNext({ status: 503, body: "<html>Service Unavailable</html>", operation: "ShopifyOrderProgress" });
    await expect(connector.fetchOrders(LATER, null)).rejects.toMatchObject({ retryable: true });
    const again = await importedLater(connector, 1);
    expect(again.items.map((i) => [i.quantityShipped, i.quantityCancelled])).toEqual([
      [2, 0],
      [0, 0],
    ]);
    expect(again.refunds!.map((r) => r.lines.map((l) => [l.quantity, l.amount]))).toEqual([[[1, 13.5]]]);
  });
});
