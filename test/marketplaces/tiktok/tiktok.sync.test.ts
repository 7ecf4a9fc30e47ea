// A TikTok Shop source through whole cycles fired by the Cron Trigger (the Worker's scheduled
// handler) and run by its Durable Object: the cycles' fetch is the global one, replaced here by the
// fake TikTok Shop of this folder, which checks every request against TikTok's SDK and verifies
// every signature. Orders in, deliveries out, the rotating refresh token kept sealed, stock and
// price pushed, a refused renewal reported, and the bad days every marketplace plays. No network.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../../helpers/api";
import { badDaySuite } from "../../helpers/bad-day";
import { createSource, cycleAt, deliveries, fireCron, listOrders, patchSource } from "../../helpers/sync";
import { putInventory, putStock } from "../../stock/helpers";
import {
  createTiktokFake,
  TIKTOK_FAKE_APP_KEY,
  TIKTOK_FAKE_APP_SECRET,
  TIKTOK_FAKE_REFRESH_TOKEN,
  TIKTOK_FAKE_SHOP_ID,
  tiktokPagesForEver,
} from "./tiktok-fake";
import { sampleOrder } from "./tiktok-orders";
import { lineId, orderId, packageIdOf, USPS } from "./tiktok-setup";

afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SETTINGS = {
  appKey: TIKTOK_FAKE_APP_KEY,
  appSecret: TIKTOK_FAKE_APP_SECRET,
  refreshToken: TIKTOK_FAKE_REFRESH_TOKEN,
  shopId: TIKTOK_FAKE_SHOP_ID,
  shippingProviders: { USPS },
};

/** Order n of a run, changed n × 20 s after `from`, one unit of SKU-n at $15 + n cents. */
function order(n: number, from: number, extra: Partial<Parameters<typeof sampleOrder>[0]> = {}) {
  return sampleOrder({
    id: orderId(n),
    created: new Date(from),
    updated: new Date(from + n * 20_000),
    lines: [{ id: lineId(n, 1), sku: `SKU-${n}`, price: 1500 + n, tax: 109 }],
    shipping: 400,
    ...extra,
  });
}

interface SourceStatus {
  ImportedTotal: number;
  SetAside: number;
  LastError: string | null;
  RecentCycles: { OrdersFetched: number; OrdersImported: number; OrdersSetAside: number; Error: string | null }[];
}

async function status(storeId: string, sourceId: string): Promise<SourceStatus> {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}`);
  expect(res.status).toBe(200);
  return (res.json.Source as { Status: SourceStatus }).Status;
}

/** Everything the source's Durable Object keeps, as one string. */
async function keptBySource(sourceId: string): Promise<string> {
  return runInDurableObject(env.SOURCE_SYNC.getByName(sourceId), (_instance, state) => JSON.stringify([...state.storage.kv.list()]));
}

describe("a TikTok Shop source in sync cycles fired by the cron", () => {
  it(
    "imports two pages with one order set aside and one that waits, again without duplicates, ships and cancels once, says why it cannot acknowledge, and " +
      "renews its token days later",
    async () => {
      let ahead = 0;
      const start = Date.now();
      const from = start - 60 * MINUTE;
      const orders = Array.from({ length: 61 }, (_, i) => order(i + 1, from));
      orders[29]!.line_items![0]!.seller_sku = "";
      orders[60]!.status = "UNPAID";
      const fake = createTiktokFake({ now: () => new Date(Date.now() + ahead), orders });
      vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
      const { storeId, token } = await storeWithToken();
      const sourceId = await createSource(storeId, { Type: "tiktok", Name: "TikTok Shop US", Settings: SETTINGS });

      // Cycle 1: the shop's cipher looked up, two pages of 50 with their details.
      await fireCron(start);
      const imported = await listOrders(token);
      expect(imported).toHaveLength(59);
      const numbers = imported.map((o) => o.OrderSourceOrderNumber);
      expect(numbers).not.toContain(orderId(30));
      expect(numbers).not.toContain(orderId(61));
      const one = imported.find((o) => o.OrderSourceOrderNumber === orderId(1))!;
      expect(one).toMatchObject({
        OrderSource: "TikTok Shop US",
        OrderStatus: "New",
        SourceOrderStatus: "AWAITING_SHIPMENT",
        ShippingMethod: "Standard Shipping",
      });
      expect(one.OrderItems.map((i) => [i.Sku, i.Quantity, i.UnitPrice])).toEqual([["SKU-1", 1, 15.01]]);
      expect(fake.requestsOf("api").map((r) => r.operationId)).toEqual([
        "GetAuthorizedShops",
        "GetOrderList",
        "GetOrderDetail",
        "GetOrderList",
        "GetOrderDetail",
        "SearchReturns",
      ]);
      const aside = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).json.SetAside as {
        OrderSourceOrderNumber: string;
        Reason: string;
      }[];
      expect(aside.map((a) => [a.OrderSourceOrderNumber, a.Reason])).toEqual([
        [orderId(30), `TikTok order ${orderId(30)} line item ${lineId(30, 1)} has no seller_sku`],
      ]);
      let now = await status(storeId, sourceId);
      expect(now.RecentCycles[0]).toMatchObject({ OrdersFetched: 59, OrdersImported: 59, OrdersSetAside: 1, Error: null });

      // Cycle 2, minutes later: the same orders again (the overlap), no duplicate, no new token.
      ahead = 5 * MINUTE;
      await fireCron(Date.now() + ahead);
      expect(await listOrders(token)).toHaveLength(59);
      now = await status(storeId, sourceId);
      expect([now.ImportedTotal, now.RecentCycles[0]!.OrdersImported, now.LastError]).toEqual([59, 0, null]);
      expect(fake.requestsOf("auth")).toHaveLength(1);

      // The seller acknowledges and ships order 1 and cancels order 2.
      const two = imported.find((o) => o.OrderSourceOrderNumber === orderId(2))!;
      expect((await call("PUT", `/v1/${token}/Orders/${one.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=SO-1`)).status).toBe(200);
      const shipped = await call("PUT", `/v1/${token}/Orders/${one.OrderId}/UpdateStatus`, {
        body: { OrderStatus: "Shipped", ShipmentTrackingNumber: "9400 1118 9922 3197 4284 90", DestinationShippingCarrier: "USPS" },
      });
      expect(shipped.status).toBe(200);
      expect((await call("PUT", `/v1/${token}/Orders/${two.OrderId}/UpdateStatus`, { body: { OrderStatus: "Canceled" } })).status).toBe(200);

      // Cycle 3: the package ships, the order is cancelled, acknowledgement is NotApplicable.
      ahead = 10 * MINUTE;
      await fireCron(Date.now() + ahead);
      const rows = await deliveries(storeId, sourceId);
      expect(rows.map((d) => [d.OrderId, d.Kind, d.Status, d.Reference, d.Warning])).toEqual([
        [
          one.OrderId,
          "acknowledge",
          "notApplicable",
          null,
          "TikTok Shop has no order acknowledgement: a paid order (AWAITING_SHIPMENT) is the seller's to ship as it is",
        ],
        [one.OrderId, "ship", "delivered", packageIdOf(1), null],
        [two.OrderId, "cancel", "delivered", "410000000000000001", null],
      ]);
      expect(fake.fulfilled.map((c) => [c.operation, c.orderId, c.detail])).toEqual([
        ["CancelOrder", orderId(2), lineId(2, 1)],
        ["ShipPackage", orderId(1), `${packageIdOf(1)}: ${lineId(1, 1)} 9400111899223197428490`],
      ]);

      // Cycle 4, eight days on: the access token (seven days) is renewed with the rotated refresh
      // token; the orders come back in their new statuses; nothing is shipped twice.
      ahead = 8 * DAY;
      await fireCron(Date.now() + ahead);
      expect(fake.requestsOf("auth").map((r) => [r.query.refresh_token, r.status])).toEqual([
        [TIKTOK_FAKE_REFRESH_TOKEN, 200],
        [fake.refreshTokens()[1], 200],
      ]);
      const after = await listOrders(token);
      expect(after).toHaveLength(59);
      expect([orderId(1), orderId(2)].map((n) => after.find((o) => o.OrderSourceOrderNumber === n)!.SourceOrderStatus)).toEqual([
        "AWAITING_COLLECTION",
        "CANCELLED",
      ]);
      expect(fake.fulfilled).toHaveLength(2);
      expect((await status(storeId, sourceId)).LastError).toBeNull();

      // The Durable Object keeps the rotated refresh token sealed, never in clear.
      const kept = await keptBySource(sourceId);
      expect(kept).toContain("tiktok:refreshToken");
      for (const issued of fake.refreshTokens()) expect(kept).not.toContain(issued);
      expect([fake.violations, fake.refusals]).toEqual([[], []]);
    },
  );

  it("asks for every secret again to move the source to another baseUrl", async () => {
    const fake = createTiktokFake({ orders: [order(1, Date.now() - 30 * MINUTE)] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: "tiktok", Name: "TikTok Moved", Settings: SETTINGS });
    for (const field of ["baseUrl", "authUrl"]) {
      const refused = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Settings: { [field]: "https://tiktok-gateway.example" } });
      expect(refused.status).toBe(400);
      expect(refused.json.Message).toBe(
        `Changing 'Settings.${field}' points the source's credentials at another host: give every secret setting again in the same request ` +
          `('Settings.appSecret', 'Settings.refreshToken' missing).`,
      );
    }
    const http = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Settings: { ...SETTINGS, baseUrl: "http://tiktok-gateway.example" } });
    expect([http.status, http.json.Message]).toEqual([400, "'Settings.baseUrl': must be an https URL"]);
    await patchSource(storeId, sourceId, { Settings: { ...SETTINGS, baseUrl: "https://tiktok-gateway.example" } });
    expect((await cycleAt(sourceId, Date.now())).error).toBeNull();
    expect(fake.requestsOf("api", "GetOrderDetail").at(-1)!.url.startsWith("https://tiktok-gateway.example/order/202309/orders?")).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it("refuses Settings without a shop, and answers the secrets masked", async () => {
    const { storeId } = await storeWithToken();
    const { shopId: _shop, ...noShop } = SETTINGS;
    const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "tiktok", Name: "TikTok No Shop", Settings: noShop });
    expect([res.status, res.json.Message]).toEqual([400, "'Settings.shopCipher': shopCipher or shopId is required (the shop this source reads)"]);
    const made = await admin("POST", `/stores/${storeId}/sources`, { Type: "tiktok", Name: "TikTok Masked", Settings: SETTINGS });
    expect((made.json.Source as { Settings: Record<string, unknown> }).Settings).toMatchObject({
      appKey: TIKTOK_FAKE_APP_KEY,
      appSecret: "********",
      refreshToken: "********",
    });
  });

  it("reports a refused refresh token as the source's error until a new one is entered, without asking TikTok every cycle", async () => {
    const fake = createTiktokFake({ orders: [order(1, Date.now() - 30 * MINUTE)] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: "tiktok", Name: "TikTok Revoked", Settings: SETTINGS });
    fake.revokeRefreshTokens();
    await cycleAt(sourceId, Date.now());
    const first = await status(storeId, sourceId);
    expect(first.LastError).toBe(
      "import: TikTok refused to renew the source's access (code 36004004: The refresh_token is invalid, expired or already used.): the seller must " +
        "authorise the app again and the source's refreshToken be replaced (see the TikTok Shop source README); nothing is sent to TikTok until then",
    );
    await cycleAt(sourceId, Date.now());
    expect((await status(storeId, sourceId)).LastError).toBe(first.LastError);
    expect(fake.requestsOf("auth")).toHaveLength(1);
    await patchSource(storeId, sourceId, { Settings: { refreshToken: fake.grantConsent() } });
    await cycleAt(sourceId, Date.now());
    expect((await status(storeId, sourceId)).LastError).toBeNull();
    expect(await listOrders(token)).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("sends the seller's new quantity and price to TikTok in the next cycle and reports an unknown Sku", async () => {
    const fake = createTiktokFake({
      products: [
        { id: "1729000000000000001", skus: [{ id: "1730000000000000011", sellerSku: "TEE-S", price: 1999, warehouses: { "7000000000000000001": 5 } }] },
      ],
    });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "TEE-S", Quantity: 5, Price: 19.99 },
      { Sku: "GHOST", Quantity: 1, Price: 5 },
    ]);
    const sourceId = await createSource(storeId, { Type: "tiktok", Name: "TikTok Stock", Settings: SETTINGS });
    expect((await putInventory(token, [{ Sku: "TEE-S", Quantity: 12, Price: 17.5 }])).status).toBe(200);
    const cycle = await cycleAt(sourceId, Date.now());
    expect(cycle.listingsAccepted).toBe(1);
    expect(fake.products.sku("TEE-S")).toMatchObject({ price: "17.50", warehouses: { "7000000000000000001": 12 } });
    const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}/listings`);
    const shown = res.json as unknown as {
      Push: string;
      Counts: Record<string, number>;
      Listings: { Sku: string; Status: string; AcceptedQuantity: number | null; AcceptedPrice: number | null; LastError: string | null }[];
    };
    expect(shown.Push).toBe("Enabled");
    expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 1, UnknownSku: 1, Refused: 0 });
    expect(shown.Listings.map((l) => [l.Sku, l.Status, l.AcceptedQuantity, l.AcceptedPrice, l.LastError])).toEqual([
      ["GHOST", "unknownSku", null, null, "No product of this TikTok shop has a SKU with seller_sku GHOST"],
      ["TEE-S", "accepted", 12, 17.5, null],
    ]);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });
});

describe("a TikTok Shop source on a bad day", () => {
  it("ends a window whose next-page token comes round again, sets aside the nonsense records, and imports the next cycle", async () => {
    const fake = createTiktokFake({ orders: [order(1, Date.now() - 30 * MINUTE)] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: "tiktok", Name: "TikTok Endless", Settings: SETTINGS });
    // Two answers: the first names a token, the second (for that token) names it again.
    fake.failNext({ ...tiktokPagesForEver(true), times: 2 });
    const cycle = await cycleAt(sourceId, Date.now());
    expect(cycle.error).toBe(
      "import: the marketplace sent a next-page token it had already sent in this window; the window ended there and starts over next cycle.",
    );
    const aside = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).json.SetAside as {
      OrderSourceOrderNumber: string;
      Reason: string;
    }[];
    expect(aside.map((a) => [a.OrderSourceOrderNumber, a.Reason])).toEqual([["(no id)", "TikTok sent an order without a numeric id (null)"]]);
    // TikTok is itself again: the next cycle imports.
    expect((await cycleAt(sourceId, Date.now() + MINUTE)).error).toBeNull();
    expect((await listOrders(token)).map((o) => o.OrderSourceOrderNumber)).toEqual([orderId(1)]);
  });

  badDaySuite({
    type: "tiktok",
    settings: SETTINGS,
    hosts: ["open-api.tiktokglobalshop.com", "auth.tiktok-shops.com"],
    fake(now) {
      const from = Date.now() - 60 * MINUTE;
      return createTiktokFake({ now, orders: [order(1, from), order(2, from)] });
    },
    orderList: { operation: "GetOrderList" },
    token: { target: "auth" },
    pausedBy: { operation: "GetOrderList" },
  });
});
