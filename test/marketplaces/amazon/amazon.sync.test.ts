// The Amazon connector inside real cycles: the cycle's fetch is the global one, replaced here by
// the fake Amazon of test/marketplaces/amazon (no network), so this is what the cron would do in production.
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../../helpers/api";
import { storeD1 } from "../../helpers/shards";
import { createSource, cycleAt, deliveries, fireCron, listOrders } from "../../helpers/sync";
import { AMAZON_FAKE_CLIENT_ID, AMAZON_FAKE_CLIENT_SECRET, AMAZON_FAKE_REFRESH_TOKEN, createAmazonFake } from "./amazon-fake";
import { badDay } from "../fake-kit/faults";
import { adminReadStatuses, badDaySuite, quietOtherSources } from "../../helpers/bad-day";

afterEach(() => {
  vi.restoreAllMocks();
});

const HOUR = 3_600_000;
/** A source on the fake Amazon, selling in the models' four marketplaces. */
const SETTINGS = {
  refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
  clientId: AMAZON_FAKE_CLIENT_ID,
  clientSecret: AMAZON_FAKE_CLIENT_SECRET,
  region: "na",
  marketplaceIds: ["ATVPDKIKX0DER", "A1F83G8C2ARO7P", "A1VC38T7YXB528", "A2Q3Y263D00KWC"],
};

/**
 * A store with an Amazon source on `fake`, whose orders (the models') changed an hour ago, inside
 * the first cycle's look-back; `unshipped` waits for the seller.
 */
async function amazonSource(fake: ReturnType<typeof createAmazonFake>, unshipped: string) {
  for (const order of fake.orders) order.lastUpdatedTime = new Date(Date.now() - HOUR).toISOString();
  fake.touch(unshipped, new Date(Date.now() - HOUR), (o) => (o.fulfillment!.fulfillmentStatus = "UNSHIPPED"));
  vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
  const { storeId, token } = await storeWithToken();
  const sourceId = await createSource(storeId, { Type: "amazon", Name: "Amazon", Settings: SETTINGS });
  return { storeId, token, sourceId };
}

describe("an Amazon source in sync cycles", () => {
  it(
    "imports the seller's orders, sets aside one it cannot map, ships one, and keeps the feed's acknowledgement and cancellation Submitted until Amazon " +
      "has processed them",
    async () => {
      const fake = createAmazonFake();
      // One more order of the seller's, whose line has lost its SKU.
      const broken = structuredClone(fake.orders.find((o) => o.orderId === "202-7654321-1098765")!);
      broken.orderId = "202-0000000-0000001";
      delete (broken.orderItems[0]!.product as Record<string, unknown>).sellerSku;
      fake.orders.push(broken);
      // Amazon's examples are all shipped already (every unit fulfilled), which the hub reads as
      // shipped (decisions 12): the American, British and Japanese orders wait to be shipped here.
      for (const number of ["123-4567890-1234567", "202-7654321-1098765", "250-1234567-8901234"]) {
        const order = fake.orders.find((o) => o.orderId === number)! as unknown as {
          fulfillment: { fulfillmentStatus: string };
          orderItems: { quantityOrdered: number; fulfillment?: { quantityFulfilled: number; quantityUnfulfilled: number } }[];
        };
        order.fulfillment.fulfillmentStatus = "UNSHIPPED";
        for (const item of order.orderItems)
          if (item.fulfillment) item.fulfillment = { ...item.fulfillment, quantityFulfilled: 0, quantityUnfulfilled: item.quantityOrdered };
      }
      const { storeId, token, sourceId } = await amazonSource(fake, "202-7654321-1098765");

      await fireCron();
      const orders = await listOrders(token);
      const byNumber = new Map(orders.map((o) => [o.OrderSourceOrderNumber, o]));
      expect([...byNumber.keys()].sort()).toEqual(["123-4567890-1234567", "171-2345678-9012345", "202-7654321-1098765", "250-1234567-8901234"]);
      const us = byNumber.get("123-4567890-1234567")!;
      expect(us).toMatchObject({ OrderSource: "Amazon", OrderStatus: "New", SourceOrderStatus: "UNSHIPPED", GrandTotal: 154.99, IsMarketplacePrime: true });
      const search = fake.apiRequests("searchOrders")[0]!;
      expect(Date.parse(search.query.lastUpdatedBefore!)).toBeLessThanOrEqual(Date.now() - 120_000);
      const aside = await (await storeD1(storeId))
        .prepare("select order_source_order_number as n, reason from set_aside_orders where source_id = ?")
        .bind(sourceId)
        .all();
      expect(aside.results).toEqual([{ n: "202-0000000-0000001", reason: "Amazon order 202-0000000-0000001 item 20276543210987 has no sellerSku" }]);

      // A client acknowledges the Brazilian order, cancels the British one, ships the American one
      // and the Japanese one (which Amazon fulfils itself).
      const br = byNumber.get("171-2345678-9012345")!;
      const uk = byNumber.get("202-7654321-1098765")!;
      const jp = byNumber.get("250-1234567-8901234")!;
      expect((await call("PUT", `/v1/${token}/Orders/${br.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=SO-1`)).status).toBe(200);
      expect((await call("PUT", `/v1/${token}/Orders/${uk.OrderId}/UpdateStatus`, { body: { OrderStatus: "Canceled" } })).status).toBe(200);
      for (const o of [us, jp]) {
        const res = await call("PUT", `/v1/${token}/Orders/${o.OrderId}/UpdateStatus`, {
          body: {
            OrderStatus: "Shipped",
            ShipmentTrackingNumber: "1Z999AA10123456784",
            DateShipped: "2026-03-01T10:00:00Z",
            DestinationShippingCarrier: "UPS",
          },
        });
        expect(res.status, res.text).toBe(200);
      }

      await fireCron();
      const statusOf = async () => Object.fromEntries((await deliveries(storeId, sourceId)).map((d) => [`${d.OrderId}:${d.Kind}`, d.Status]));
      expect(await statusOf()).toEqual({
        [`${br.OrderId}:acknowledge`]: "submitted",
        [`${uk.OrderId}:cancel`]: "submitted",
        [`${us.OrderId}:ship`]: "delivered",
        [`${jp.OrderId}:ship`]: "notApplicable",
      });
      expect(fake.apiRequests("confirmShipment").map((r) => r.path)).toEqual(["/orders/v0/orders/123-4567890-1234567/shipmentConfirmation"]);
      expect(fake.feeds).toHaveLength(2);
      const rows = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/deliveries`)).json.Deliveries as Record<string, unknown>[];
      const row = (orderId: string) => rows.find((r) => r.OrderId === orderId)!;
      expect(row(jp.OrderId).Warning).toBe("Amazon fulfils order 250-1234567-8901234 itself (FBA): only Amazon ships it, so nothing was sent");
      expect(new Set([row(br.OrderId).Reference, row(uk.OrderId).Reference])).toEqual(new Set(fake.feeds.map((f) => f.feedId)));

      // Amazon has not processed the feeds yet: a later cycle leaves them Submitted.
      await fireCron();
      expect((await statusOf())[`${br.OrderId}:acknowledge`]).toBe("submitted");

      await fake.processFeeds();
      await fireCron();
      expect(await statusOf()).toMatchObject({ [`${br.OrderId}:acknowledge`]: "delivered", [`${uk.OrderId}:cancel`]: "delivered" });
      expect(fake.orders.find((o) => o.orderId === "202-7654321-1098765")!.fulfillment!.fulfillmentStatus).toBe("CANCELLED");
      expect(fake.violations).toEqual([]);
      expect(fake.throttled).toBe(0);
    },
  );

  it("spreads a backlog larger than searchOrders' burst over later cycles, without a 429 and without holding back shipments", async () => {
    const start = Date.now();
    let offset = 0;
    const fake = createAmazonFake({ now: () => new Date(Date.now() + offset) });
    // 2,050 orders changed in the last hour: 21 pages of 100, one more than the burst of 20.
    const template = fake.orders.find((o) => o.orderId === "171-2345678-9012345")!;
    fake.orders.length = 0;
    for (let i = 0; i < 2_050; i++) {
      const order = structuredClone(template);
      order.orderId = `171-${String(1_000_000 + i)}-${String(9_000_000 + i)}`;
      order.orderItems[0]!.orderItemId = String(40_000_000_000_000 + i);
      order.lastUpdatedTime = new Date(start - HOUR + i * 1000).toISOString();
      fake.orders.push(order);
    }
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "amazon",
      Name: "Amazon BR",
      Settings: {
        refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
        clientId: AMAZON_FAKE_CLIENT_ID,
        clientSecret: AMAZON_FAKE_CLIENT_SECRET,
        region: "na",
        marketplaceIds: ["A2Q3Y263D00KWC"],
      },
    });
    const count = async () =>
      (await (await storeD1(storeId)).prepare("select count(*) as n from orders where source_id = ?").bind(sourceId).first<{ n: number }>())!.n;

    const first = await cycleAt(sourceId, start);
    expect(first.imported).toBe(2_000);
    expect(first.error).toMatch(/Amazon searchOrders is paced at 0\.0056 calls\/s \(burst 20\): the next call fits in 1\d\d s, so it waits for a later cycle/);
    expect(await count()).toBe(2_000);

    // A shipment made meanwhile goes out in the next cycle although the import still waits.
    const [shipped] = await listOrders(token, "page=1&pageSize=1&fromDate=2000-01-01&toDate=2100-01-01");
    const res = await call("PUT", `/v1/${token}/Orders/${shipped!.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "Shipped", ShipmentTrackingNumber: "BR123456789", DateShipped: "2026-03-01T10:00:00Z", DestinationShippingCarrier: "Correios" },
    });
    expect(res.status).toBe(200);
    offset = 60_000;
    const second = await cycleAt(sourceId, start + 60_000);
    expect(second.imported).toBe(0);
    expect(second.delivered).toBe(1);
    expect(second.error).toMatch(/the next call fits in 1\d\d s/);
    expect(fake.apiRequests("searchOrders")).toHaveLength(20);

    offset = 185_000;
    const third = await cycleAt(sourceId, start + 185_000);
    // The orders are done; the returns report created in the first cycle is still queued at Amazon:
    // asked after by its id each cycle, never created again.
    expect(third.error).toBe("returns import: Amazon returns report 70001 is IN_QUEUE; the next cycle asks after it again");
    expect(fake.apiRequests("createReport")).toHaveLength(1);
    expect(third.imported).toBe(50);
    expect(await count()).toBe(2_050);
    // Page 21 came with the first window's token: the window was not started again.
    const calls = fake.apiRequests("searchOrders");
    expect(calls).toHaveLength(21);
    expect(calls[20]!.query.paginationToken).toBeDefined();
    expect(calls[20]!.query.lastUpdatedBefore).toBe(calls[0]!.query.lastUpdatedBefore);
    expect(fake.throttled).toBe(0);
    expect(fake.violations).toEqual([]);
  }, 120_000);
});

describe("an Amazon source on a bad day", () => {
  badDaySuite({
    type: "amazon",
    settings: SETTINGS,
    hosts: ["api.amazon.com", "sellingpartnerapi-na.amazon.com"],
    fake(now) {
      const fake = createAmazonFake({ now });
      // The models' orders, changed an hour ago (inside the first cycle's look-back).
      for (const order of fake.orders) order.lastUpdatedTime = new Date(Date.now() - HOUR).toISOString();
      return fake;
    },
    orderList: { operation: "searchOrders" },
    token: { target: "token" },
    pausedBy: null,
    // programs: 5 where the model has a list: a TypeError in mapping.
    spoilRecord(fake) {
      const order = (fake as ReturnType<typeof createAmazonFake>).orders.find((o) => o.orderId === "202-7654321-1098765")!;
      (order as Record<string, unknown>).programs = 5;
      return "202-7654321-1098765";
    },
  });
});

describe("an Amazon delivery told to wait 9,000,000,000,000 s", () => {
  it("waits one hour at most: the deliveries list still answers, and the shipment goes out after the hour", async () => {
    await quietOtherSources();
    let ahead = 0;
    const fake = createAmazonFake({ now: () => new Date(Date.now() + ahead) });
    const { storeId, token, sourceId } = await amazonSource(fake, "123-4567890-1234567");
    await fireCron();
    const order = (await listOrders(token)).find((o) => o.OrderSourceOrderNumber === "123-4567890-1234567")!;
    const shipped = await call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "Shipped", ShipmentTrackingNumber: "1Z999AA10123456784", DateShipped: "2026-03-01T10:00:00Z", DestinationShippingCarrier: "UPS" },
    });
    expect(shipped.status).toBe(200);
    fake.failNext({ ...badDay.hugeRetryAfter(), operation: "confirmShipment" });
    const before = Date.now();
    await fireCron();

    const listed = await admin("GET", `/stores/${storeId}/sources/${sourceId}/deliveries`);
    expect(listed.status).toBe(200);
    const [row] = listed.json.Deliveries as { Status: string; DateNextAttempt: string; LastError: string }[];
    expect(row!.Status).toBe("pending");
    expect(row!.LastError).toMatch(/^Amazon confirmShipment 429 /);
    const next = Date.parse(row!.DateNextAttempt);
    expect(next).toBeGreaterThanOrEqual(before + HOUR - 60_000);
    expect(next).toBeLessThanOrEqual(Date.now() + HOUR + 60_000);
    expect(Object.entries(await adminReadStatuses(storeId, sourceId)).filter(([, status]) => status >= 500)).toEqual([]);

    ahead = HOUR + 16 * 60_000;
    await fireCron(Date.now() + ahead);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered"]);
    expect(fake.apiRequests("confirmShipment").map((r) => r.status)).toEqual([429, 204]);
  });
});
