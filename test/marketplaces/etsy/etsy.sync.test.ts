// An Etsy source through whole cycles fired by the Cron Trigger (the Worker's scheduled handler)
// and run by its Durable Object: the cycles' fetch is the global one, replaced here by the fake
// Etsy of test/marketplaces/etsy, which checks every request against Etsy's description. No network.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../../helpers/api";
import { createSource, cycleAt, deliveries, fireCron, listOrders, patchSource } from "../../helpers/sync";
import { createEtsyFake, ETSY_FAKE_KEYSTRING, ETSY_FAKE_REFRESH_TOKEN, ETSY_FAKE_SHARED_SECRET, ETSY_FAKE_SHOP_ID } from "./etsy-fake";
import { sampleReceipt } from "./etsy-receipts";
import { badDaySuite } from "../../helpers/bad-day";

afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SETTINGS = { keystring: ETSY_FAKE_KEYSTRING, sharedSecret: ETSY_FAKE_SHARED_SECRET, refreshToken: ETSY_FAKE_REFRESH_TOKEN, shopId: ETSY_FAKE_SHOP_ID };

/** Receipt n of a run, changed `n` × 20 s after `from`. */
function receipt(n: number, from: number, extra: Partial<Parameters<typeof sampleReceipt>[0]> = {}) {
  return sampleReceipt({
    receiptId: 3_200_000_000 + n,
    created: new Date(from),
    updated: new Date(from + n * 20_000),
    transactions: [{ transactionId: 4_200_000_000 + n * 10, sku: `SKU-${n}`, quantity: 1 + (n % 3), price: 1500 + n }],
    tax: 120,
    shipping: 400,
    ...extra,
  });
}

interface SourceStatus {
  ImportedTotal: number;
  SetAside: number;
  LastError: string | null;
  RecentCycles: {
    OrdersFetched: number;
    OrdersImported: number;
    OrdersSetAside: number;
    Delivered: number;
    DeliveriesNotApplicable: number;
    Error: string | null;
  }[];
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

describe("an Etsy source in sync cycles fired by the cron", () => {
  it(
    "imports two pages of receipts with one set aside, again without duplicates, ships once, says why it cannot acknowledge or cancel, and renews its " +
      "token between cycles",
    async () => {
      // The fake's clock runs `ahead` of the machine's, so a later cycle can be "hours later".
      let ahead = 0;
      const start = Date.now();
      const from = start - 60 * MINUTE;
      const receipts = Array.from({ length: 121 }, (_, i) => receipt(i + 1, from));
      // One without a Sku (set aside) and one nobody has paid yet (not imported).
      receipts[49]!.transactions![0]!.sku = "";
      receipts[120]!.status = "open";
      receipts[120]!.is_paid = false;
      const fake = createEtsyFake({ now: () => new Date(Date.now() + ahead), receipts });
      vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
      const { storeId, token } = await storeWithToken();
      const sourceId = await createSource(storeId, { Type: "etsy", Name: "Etsy Shop", Settings: SETTINGS });

      // Cycle 1: two pages.
      await fireCron(start);
      const imported = await listOrders(token);
      expect(imported).toHaveLength(119);
      expect(imported.map((o) => o.OrderSourceOrderNumber)).not.toContain("3200000050");
      expect(imported.map((o) => o.OrderSourceOrderNumber)).not.toContain("3200000121");
      const one = imported.find((o) => o.OrderSourceOrderNumber === "3200000001")!;
      expect(one).toMatchObject({
        OrderSource: "Etsy Shop",
        OrderStatus: "New",
        SourceOrderStatus: "paid",
        BuyerEmailAddress: "buyer3200000001@example.com",
        ShippingMethod: "Standard Shipping",
      });
      expect(one.OrderItems.map((i) => [i.Sku, i.Quantity])).toEqual([["SKU-1", 2]]);
      const lists = fake.requestsOf("api").filter((r) => r.operationId === "getShopReceipts");
      const since = Math.floor((start - 7 * 24 * HOUR) / 1000);
      const until = Math.floor(start / 1000);
      expect(lists.map((r) => r.rawQuery)).toEqual([
        `?min_last_modified=${since}&max_last_modified=${until}&sort_on=updated&sort_order=asc&limit=100&offset=0`,
        `?min_last_modified=${since}&max_last_modified=${until}&sort_on=updated&sort_order=asc&limit=100&offset=100`,
      ]);
      const aside = (await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).json.SetAside as {
        OrderSourceOrderNumber: string;
        Reason: string;
      }[];
      expect(aside.map((a) => [a.OrderSourceOrderNumber, a.Reason])).toEqual([["3200000050", "Etsy receipt 3200000050 transaction 4200000500 has no SKU"]]);
      let now = await status(storeId, sourceId);
      expect(now.RecentCycles[0]).toMatchObject({ OrdersFetched: 119, OrdersImported: 119, OrdersSetAside: 1, Error: null });
      expect(fake.requestsOf("token")).toHaveLength(1);

      // Cycle 2, minutes later: the same receipts again (the overlap), no duplicate, no new token.
      ahead = 5 * MINUTE;
      await fireCron(Date.now() + ahead);
      expect(await listOrders(token)).toHaveLength(119);
      now = await status(storeId, sourceId);
      expect([now.ImportedTotal, now.RecentCycles[0]!.OrdersImported, now.LastError]).toEqual([119, 0, null]);
      expect(fake.requestsOf("token")).toHaveLength(1);

      // The seller acknowledges and ships receipt 1 and cancels receipt 2.
      const two = imported.find((o) => o.OrderSourceOrderNumber === "3200000002")!;
      expect((await call("PUT", `/v1/${token}/Orders/${one.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=SO-1`)).status).toBe(200);
      const shipped = await call("PUT", `/v1/${token}/Orders/${one.OrderId}/UpdateStatus`, {
        body: { OrderStatus: "Shipped", ShipmentTrackingNumber: "9400 1118 9922 3197 4284 90", DestinationShippingCarrier: "USPS" },
      });
      expect(shipped.status).toBe(200);
      expect((await call("PUT", `/v1/${token}/Orders/${two.OrderId}/UpdateStatus`, { body: { OrderStatus: "Canceled" } })).status).toBe(200);

      // Cycle 3: the shipment goes out; acknowledgement and cancellation are NotApplicable with Etsy's reasons.
      ahead = 10 * MINUTE;
      await fireCron(Date.now() + ahead);
      const rows = await deliveries(storeId, sourceId);
      expect(rows.map((d) => [d.OrderId, d.Kind, d.Status, d.Reference, d.Warning])).toEqual([
        [one.OrderId, "acknowledge", "notApplicable", null, "Etsy's API has no order acknowledgement: a paid receipt is the seller's to fulfil as it is"],
        [one.OrderId, "ship", "delivered", "70001", null],
        [
          two.OrderId,
          "cancel",
          "notApplicable",
          null,
          "Etsy's API cannot cancel a receipt: the seller must cancel the order on Etsy (Shop Manager), which refunds the buyer",
        ],
      ]);
      const posts = () => fake.requestsOf("api").filter((r) => r.operationId === "createReceiptShipment");
      expect(posts().map((r) => r.rawBody)).toEqual(["tracking_code=9400111899223197428490&carrier_name=USPS"]);

      // Cycle 4, two hours on: the access token has run out and is renewed with the rotated refresh
      // token; the shipped receipt comes back as completed; nothing is shipped twice.
      ahead = 2 * HOUR;
      await fireCron(Date.now() + ahead);
      const tokenForms = fake.requestsOf("token").map((r) => (r.body as Record<string, string>).refresh_token);
      expect(tokenForms).toEqual([ETSY_FAKE_REFRESH_TOKEN, fake.refreshTokens()[1]]);
      expect(fake.requestsOf("token").map((r) => r.status)).toEqual([200, 200]);
      const after = await listOrders(token);
      expect(after.find((o) => o.OrderSourceOrderNumber === "3200000001")!.SourceOrderStatus).toBe("completed");
      expect(after).toHaveLength(119);
      expect(posts()).toHaveLength(1);
      expect(fake.receipts.get(3_200_000_001)!.shipments).toHaveLength(1);
      expect((await status(storeId, sourceId)).LastError).toBeNull();

      // The Durable Object keeps the rotated refresh token sealed, never in clear.
      const kept = await keptBySource(sourceId);
      expect(kept).toContain("etsy:refreshToken");
      for (const issued of fake.refreshTokens()) expect(kept).not.toContain(issued);
      expect(fake.throttled()).toBe(0);
      expect(fake.violations).toEqual([]);
    },
  );

  // Cycles of this source only (what the cron dispatches to it): the other test's source stays enabled.
  it("loses no access when a cycle is cut off right after a renewal: the next cycle renews with the new refresh token", async () => {
    let ahead = 0;
    const from = Date.now() - 30 * MINUTE;
    const fake = createEtsyFake({ now: () => new Date(Date.now() + ahead), receipts: [receipt(1, from), receipt(2, from)] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: "etsy", Name: "Etsy Cut", Settings: SETTINGS });
    await cycleAt(sourceId, Date.now());
    expect(await listOrders(token)).toHaveLength(2);

    // Two hours on the token is renewed, and the invocation dies right after Etsy's answer.
    ahead = 2 * HOUR;
    fake.cutOffAfterNextRenewal();
    const cut = await cycleAt(sourceId, Date.now() + ahead);
    expect(cut.error).toContain("Network connection lost");
    expect(fake.requestsOf("token").map((r) => r.status)).toEqual([200, 200]);
    fake.restore();

    // A receipt arrives meanwhile; the next cycle, two hours later again, renews with the token
    // the cut-off renewal issued (the one before it is used and would be refused) and imports it.
    fake.addReceipt(receipt(3, Date.now() + ahead));
    ahead = 4 * HOUR;
    const next = await cycleAt(sourceId, Date.now() + ahead);
    expect(next.error).toBeNull();
    expect(fake.requestsOf("token").map((r) => [(r.body as Record<string, string>).refresh_token, r.status])).toEqual([
      [ETSY_FAKE_REFRESH_TOKEN, 200],
      [fake.refreshTokens()[1], 200],
      [fake.refreshTokens()[2], 200],
    ]);
    expect((await listOrders(token)).map((o) => o.OrderSourceOrderNumber).sort()).toEqual(["3200000001", "3200000002", "3200000003"]);
    expect(fake.violations).toEqual([]);
  });

  it(
    "asks for every secret again to move the source to another baseUrl, and keeps renewing with the rotated token when the first refresh token is given " +
      "again",
    async () => {
      let ahead = 0;
      const from = Date.now() - 30 * MINUTE;
      const fake = createEtsyFake({ now: () => new Date(Date.now() + ahead), receipts: [receipt(1, from)] });
      vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
      const { storeId } = await storeWithToken();
      const sourceId = await createSource(storeId, { Type: "etsy", Name: "Etsy Moved", Settings: SETTINGS });
      await cycleAt(sourceId, Date.now());

      const refused = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Settings: { baseUrl: "https://etsy-gateway.example" } });
      expect(refused.status).toBe(400);
      expect(refused.json.Message).toBe(
        "Changing 'Settings.baseUrl' points the source's credentials at another host: give every secret setting again in the same request " +
          "('Settings.keystring', 'Settings.sharedSecret', 'Settings.refreshToken' missing).",
      );
      // The operator gives the secrets again: the refresh token as first entered, long since rotated.
      await patchSource(storeId, sourceId, { Settings: { ...SETTINGS, baseUrl: "https://etsy-gateway.example" } });
      ahead = 2 * HOUR;
      expect((await cycleAt(sourceId, Date.now() + ahead)).error).toBeNull();
      expect(fake.requestsOf("token").map((r) => (r.body as Record<string, string>).refresh_token)).toEqual([ETSY_FAKE_REFRESH_TOKEN, fake.refreshTokens()[1]]);
      expect(fake.requestsOf("api").at(-1)!.url.startsWith("https://etsy-gateway.example/v3/application/shops/31415926/receipts?")).toBe(true);
    },
  );

  it("reports a refused refresh token as the source's error until a new one is entered, without asking Etsy every cycle", async () => {
    const from = Date.now() - 30 * MINUTE;
    const fake = createEtsyFake({ receipts: [receipt(1, from)] });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: "etsy", Name: "Etsy Revoked", Settings: SETTINGS });
    fake.revokeRefreshTokens();

    await cycleAt(sourceId, Date.now());
    const first = await status(storeId, sourceId);
    expect(first.LastError).toBe(
      "import: Etsy refused to renew the source's access (400 invalid_grant: Invalid refresh token): the seller must authorise the app again and the " +
        "source's refreshToken be replaced (see the Etsy source README); nothing is sent to Etsy until then",
    );
    await cycleAt(sourceId, Date.now());
    expect((await status(storeId, sourceId)).LastError).toBe(first.LastError);
    expect(fake.requestsOf("token")).toHaveLength(1);

    // The seller authorises again; the operator enters the new refresh token.
    await patchSource(storeId, sourceId, { Settings: { refreshToken: fake.grantConsent() } });
    await cycleAt(sourceId, Date.now());
    expect((await status(storeId, sourceId)).LastError).toBeNull();
    expect(await listOrders(token)).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });
});

describe("an Etsy source on a bad day", () => {
  badDaySuite({
    type: "etsy",
    settings: SETTINGS,
    hosts: ["openapi.etsy.com", "api.etsy.com"],
    fake(now) {
      const from = Date.now() - 60 * MINUTE;
      return createEtsyFake({ now, receipts: [receipt(1, from), receipt(2, from)] });
    },
    orderList: { operation: "getShopReceipts" },
    token: { target: "token" },
    pausedBy: { operation: "getShopReceipts" },
  });
});
