// The TikTok Shop connector call by call against the fake TikTok Shop of this folder, which checks
// every request against TikTok's generated SDK and verifies every signature with its own
// implementation of the algorithm: import paging and mapping, orders that wait, set-aside records,
// the signature (and what TikTok refuses: a wrong secret, a stale clock), the shop's cipher looked
// up by id, tokens (renewal before expiry, rotation kept sealed, a refused renewal remembered, an
// access token TikTok refuses renewed once), and TikTok's errors inside any status.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { OrderPage } from "../../../src/marketplaces/connector";
import { signedText, tiktokSignature } from "../../../src/marketplaces/tiktok/tiktok.sign";
import { rejection } from "../../helpers/rejection";
import {
  createTiktokFake,
  fakeSignature,
  TIKTOK_FAKE_API,
  TIKTOK_FAKE_APP_KEY,
  TIKTOK_FAKE_APP_SECRET,
  TIKTOK_FAKE_REFRESH_TOKEN,
  TIKTOK_FAKE_SHOP_CIPHER,
  TIKTOK_FAKE_SHOP_ID,
  tiktokPagesForEver,
} from "./tiktok-fake";
import { HOUR, importAll, lineId, MINUTE, orderAt, orderId, setup, START, WINDOW } from "./tiktok-setup";

const seconds = (ms: number) => Math.floor(ms / 1000);

describe("TikTok Shop signing", () => {
  it("signs path, sorted query without sign and access_token, and body, wrapped in the secret, as HMAC-SHA256 hex", async () => {
    const query = { timestamp: "1700000000", app_key: "abc", shop_cipher: "ROW_x", sign: "ignored", access_token: "ignored", page_size: "50" };
    const body = '{"update_time_ge":1}';
    expect(signedText("s3cr3t", "/order/202309/orders/search", query, body)).toBe(
      's3cr3t/order/202309/orders/searchapp_keyabcpage_size50shop_cipherROW_xtimestamp1700000000{"update_time_ge":1}s3cr3t',
    );
    // An independent HMAC (node:crypto) over the same text gives the same hex.
    const expected = createHmac("sha256", "s3cr3t")
      .update(signedText("s3cr3t", "/order/202309/orders/search", query, body))
      .digest("hex");
    expect(await tiktokSignature("s3cr3t", "/order/202309/orders/search", query, body)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it(
    "sends app_key, timestamp, shop_cipher and sign in the query, the token in x-tts-access-token, and the fake's own check of every signature " + "agrees",
    async () => {
      const { fake, connector } = setup();
      await importAll(connector);
      const [search] = fake.requestsOf("api", "GetOrderList");
      const query = new URL(search!.url).searchParams;
      expect([...query.keys()].sort()).toEqual(["app_key", "page_size", "shop_cipher", "sign", "sort_field", "sort_order", "timestamp"]);
      expect([query.get("app_key"), query.get("shop_cipher"), query.get("timestamp")]).toEqual([
        TIKTOK_FAKE_APP_KEY,
        TIKTOK_FAKE_SHOP_CIPHER,
        String(seconds(START)),
      ]);
      expect(search!.headers["x-tts-access-token"]).toMatch(/^ROW_fakeAccess1_/);
      expect(search!.headers["content-type"]).toBe("application/json");
      expect([fake.violations, fake.refusals]).toEqual([[], []]);
    },
  );

  it("is refused as TikTok refuses a wrong signature (106001) and a stale timestamp, with TikTok's code and message", async () => {
    const { fake, connector, make } = setup();
    await importAll(connector);
    // The access token kept from that import, with calls signed by another secret.
    const wrongSign = await rejection(importAll(make({ appSecret: "not-the-secret" })));
    expect([wrongSign.status, wrongSign.retryable, wrongSign.message.replace(/ \(request_id \w+\)/, "")]).toEqual([
      401,
      false,
      "TikTok 106001 on GetOrderList (HTTP 401): Invalid credentials. The 'sign' query parameter is invalid.",
    ]);
    // A connector whose clock runs 6 minutes late signs a timestamp TikTok finds stale.
    const late = await rejection(importAll(make({}, { now: () => new Date(START - 6 * MINUTE) })));
    expect([late.status, late.retryable, late.message.replace(/ \(request_id \w+\)/, "")]).toEqual([
      400,
      false,
      "TikTok 36009004 on GetOrderList (HTTP 400): Invalid timestamp. The value of the `timestamp` query parameter must not be earlier than 5 minutes " +
        "before the current time.",
    ]);
    expect(fake.violations).toEqual([]);
    expect(fake.refusals.map((r) => r.split(": ")[1]!.split(" ")[0])).toEqual(["106001", "36009004"]);
  });

  it("is refused by the token service with a wrong secret, and tries again once the secret is corrected", async () => {
    const { fake, make } = setup();
    const wrong = await rejection(importAll(make({ appSecret: "not-the-secret" })));
    expect(wrong.message).toBe(
      "TikTok refused to renew the source's access (code 36004004: Invalid app_key or app_secret.): the seller must authorise the app again and the " +
        "source's refreshToken be replaced (see the TikTok Shop source README); nothing is sent to TikTok until then",
    );
    // The refusal is remembered for that secret only: the corrected Settings ask TikTok again.
    expect((await importAll(make()))[0]!.orders).toHaveLength(1);
    expect(fake.requestsOf("auth").map((r) => r.status)).toEqual([200, 200]);
    expect(fake.violations).toEqual([]);
  });
});

describe("the fake TikTok Shop", () => {
  // The fake is held to refuse what TikTok refuses, so the connector's passing calls mean something.
  it("refuses a call without a signature, with a wrong one, a stale timestamp, an unknown token or a body signed differently", async () => {
    const now = START;
    const fake = createTiktokFake({ now: () => new Date(now) });
    // A token the fake issued, through its token service.
    const renewal = await fake.fetch(
      `https://auth.tiktok-shops.com/api/v2/token/refresh?app_key=${TIKTOK_FAKE_APP_KEY}&app_secret=${TIKTOK_FAKE_APP_SECRET}` +
        `&refresh_token=${TIKTOK_FAKE_REFRESH_TOKEN}&grant_type=refresh_token`,
    );
    const token = ((await renewal.json()) as { data: { access_token: string } }).data.access_token;
    const path = "/order/202309/orders/search";
    const body = JSON.stringify({ update_time_ge: 1 });
    async function send(query: Record<string, string>, opts: { sign?: string | null; token?: string; body?: string } = {}) {
      const params = new URLSearchParams({
        app_key: TIKTOK_FAKE_APP_KEY,
        timestamp: String(seconds(now)),
        shop_cipher: TIKTOK_FAKE_SHOP_CIPHER,
        page_size: "10",
        ...query,
      });
      const signed = opts.sign === undefined ? fakeSignature(TIKTOK_FAKE_APP_SECRET, path, params, body) : opts.sign;
      if (signed !== null) params.set("sign", signed);
      const res = await fake.fetch(`${TIKTOK_FAKE_API}${path}?${params}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "x-tts-access-token": opts.token ?? token },
        body: opts.body ?? body,
      });
      return [res.status, ((await res.json()) as { code: number }).code];
    }
    expect(await send({})).toEqual([200, 0]);
    expect(await send({}, { sign: null })).toEqual([400, 36009004]);
    expect(await send({}, { sign: "0".repeat(64) })).toEqual([401, 106001]);
    expect(await send({ timestamp: String(seconds(now - 6 * MINUTE)) })).toEqual([400, 36009004]);
    expect(await send({}, { token: "ROW_notIssued" })).toEqual([401, 36009004]);
    // The body sent is not the body signed.
    expect(await send({}, { body: JSON.stringify({ update_time_ge: 2 }) })).toEqual([401, 106001]);
    expect(fake.refusals.map((r) => r.replace(/^POST \/order\/202309\/orders\/search: /, ""))).toEqual([
      "36009004 Missing credentials. The request does not include a required signature in the query.",
      "106001 Invalid credentials. The 'sign' query parameter is invalid.",
      "36009004 Invalid timestamp. The value of the `timestamp` query parameter must not be earlier than 5 minutes before the current time.",
      "36009004 Invalid credentials. The `x-tts-access-token` header is invalid.",
      "106001 Invalid credentials. The 'sign' query parameter is invalid.",
    ]);
    // A call without `sign` breaks the SDK too.
    expect(fake.violations).toEqual(["POST /order/202309/orders/search: query parameter sign is missing"]);
  });
});

describe("TikTok Shop import", () => {
  it("searches by update time with page_token paging, reads each page's details, and maps an order", async () => {
    const orders = Array.from({ length: 60 }, (_, i) => orderAt(i + 1, {}, i === 0 ? 2 : 1));
    const { fake, connector } = setup({ orders });
    const pages = await importAll(connector);
    expect(pages.map((p) => [p.orders.length, p.setAside.length, p.nextCursor === null])).toEqual([
      [50, 0, false],
      [10, 0, true],
    ]);
    const searches = fake.requestsOf("api", "GetOrderList");
    expect(searches.map((r) => r.body)).toEqual([
      { update_time_ge: seconds(WINDOW.since.getTime()), update_time_lt: seconds(START) },
      { update_time_ge: seconds(WINDOW.since.getTime()), update_time_lt: seconds(START) },
    ]);
    expect(searches.map((r) => [r.query.page_size, r.query.sort_field, r.query.sort_order, r.query.page_token ?? null])).toEqual([
      ["50", "update_time", "ASC", null],
      ["50", "update_time", "ASC", pages[0]!.nextCursor],
    ]);
    // The fake's tokens are base64 with padding: signed and sent as they are.
    expect(pages[0]!.nextCursor).toMatch(/=$/);
    const details = fake.requestsOf("api", "GetOrderDetail");
    expect(details.map((r) => r.query.ids!.split(",").length)).toEqual([50, 10]);
    expect(details[0]!.query.ids!.split(",").slice(0, 2)).toEqual([orderId(1), orderId(2)]);

    const first = pages[0]!.orders[0]!;
    expect(first).toEqual({
      sourceOrderNumber: orderId(1),
      sourceCustomerOrderNumber: null,
      sourceOrderStatus: "AWAITING_SHIPMENT",
      createdAt: new Date("2026-02-28T01:01:00.000Z"),
      buyerEmail: "v700001@scs2.tiktok.com",
      buyerPhone: "(+1)213-555-0100",
      buyerUserId: "763038700001",
      shipTo: {
        firstName: "Ada",
        lastName: "Lovelace",
        companyName: null,
        street1: "12 Analytical Way",
        street2: "Apt 3",
        city: "Los Angeles",
        stateOrProvince: "California",
        postalCode: "90012",
        country: "US",
      },
      shippingMethod: "Standard Shipping",
      shippingServiceName: "Standard Shipping",
      shippingServiceValue: "7091146663229900545",
      paymentType: "Credit card",
      paymentTransactionId: null,
      isPrime: false,
      subTotal: 20,
      shippingTotal: 4.99,
      shippingTaxTotal: 0,
      giftWrapTotal: 0,
      giftWrapTaxTotal: 0,
      grandTotal: 26.45,
      items: [
        {
          sourceLineId: lineId(1, 1),
          sku: "SKU-1-1",
          name: "Product 1001",
          quantity: 1,
          unitPrice: 10,
          saleTaxCost: 0.73,
          discount: "0.00",
          quantityShipped: 0,
          quantityCancelled: 0,
        },
        {
          sourceLineId: lineId(1, 2),
          sku: "SKU-1-2",
          name: "Product 1002",
          quantity: 1,
          unitPrice: 10,
          saleTaxCost: 0.73,
          discount: "0.00",
          quantityShipped: 0,
          quantityCancelled: 0,
        },
      ],
      shipments: [],
      sourceData: { shippingType: "SELLER", fulfillmentType: "FULFILLMENT_BY_SELLER" },
    });
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("keeps a SKU bought twice as two lines of one unit, each with its line item id, price and discount", async () => {
    const order = orderAt(1);
    order.line_items = [
      {
        ...order.line_items![0]!,
        id: lineId(1, 1),
        seller_sku: "MUG",
        product_name: "Mug",
        sku_name: "Blue",
        original_price: "12.00",
        seller_discount: "2.00",
        sale_price: "10.00",
      },
      {
        ...order.line_items![0]!,
        id: lineId(1, 2),
        seller_sku: "MUG",
        product_name: "Mug",
        sku_name: "Blue",
        original_price: "12.00",
        seller_discount: "0.00",
        sale_price: "12.00",
      },
    ];
    const { connector } = setup({ orders: [order] });
    const [page] = await importAll(connector);
    expect(page!.orders[0]!.items.map((i) => [i.sourceLineId, i.sku, i.name, i.quantity, i.unitPrice, i.discount])).toEqual([
      [lineId(1, 1), "MUG", "Mug (Blue)", 1, 12, "2.00"],
      [lineId(1, 2), "MUG", "Mug (Blue)", 1, 12, "0.00"],
    ]);
  });

  it("leaves out orders that wait (UNPAID, ON_HOLD) and orders cancelled before payment; imports paid cancelled ones", async () => {
    const { connector } = setup({
      orders: [
        orderAt(1, { status: "UNPAID" }),
        orderAt(2, { status: "ON_HOLD" }),
        orderAt(3, { status: "CANCELLED", paid: false }),
        orderAt(4, { status: "CANCELLED" }),
        orderAt(5, { status: "IN_TRANSIT" }),
      ],
    });
    const [page] = await importAll(connector);
    expect(page!.orders.map((o) => [o.sourceOrderNumber, o.sourceOrderStatus])).toEqual([
      [orderId(4), "CANCELLED"],
      [orderId(5), "IN_TRANSIT"],
    ]);
  });

  it("sets aside a record it cannot map, with the reason, and imports the rest of its page", async () => {
    const orders = [orderAt(1), orderAt(2), orderAt(3), orderAt(4)];
    orders[1]!.line_items![0]!.seller_sku = "";
    orders[2]!.payment!.currency = "EUR";
    orders[3]!.create_time = 12;
    const { connector } = setup({ orders });
    const [page] = await importAll(connector);
    expect(page!.orders.map((o) => o.sourceOrderNumber)).toEqual([orderId(1)]);
    expect(page!.setAside.map((a) => [a.sourceOrderNumber, a.reason])).toEqual([
      [orderId(2), `TikTok order ${orderId(2)} line item ${lineId(2, 1)} has no seller_sku`],
      [orderId(3), `TikTok order ${orderId(3)} line item ${lineId(3, 1)} is in USD, the rest of the order in EUR`],
      [orderId(4), `TikTok order ${orderId(4)} create_time 12 is not a date`],
    ]);
  });

  it("follows whatever next page a bad day names (new or repeated): the engine's to stop", async () => {
    for (const [repeating, expected] of [
      [false, [btoa("page 1"), btoa("page 2"), btoa("page 3")]],
      [true, ["b3Zlcg==", "b3Zlcg==", "b3Zlcg=="]],
    ] as const) {
      const { fake, connector } = setup();
      fake.failNext(tiktokPagesForEver(repeating));
      const cursors: (string | null)[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 3; i++) {
        const page: OrderPage = await connector.fetchOrders(WINDOW, cursor);
        expect([page.orders, page.setAside.map((a) => a.reason)]).toEqual([[], ["TikTok sent an order without a numeric id (null)"]]);
        cursors.push((cursor = page.nextCursor));
      }
      expect(cursors).toEqual(expected);
    }
  });
});

describe("TikTok Shop errors", () => {
  it("reads a code other than 0 as an error naming TikTok's code and message, even inside a 200", async () => {
    const { fake, connector } = setup();
    fake.failNext({
      status: 200,
      body: { code: 12345678, message: "The order search is not available for this shop.", request_id: "20260301ABC", data: null },
      operation: "GetOrderList",
    });
    const inside = await rejection(importAll(connector));
    expect([inside.status, inside.retryable, inside.message]).toEqual([
      200,
      false,
      "TikTok 12345678 on GetOrderList: The order search is not available for this shop. (request_id 20260301ABC)",
    ]);

    fake.failNext({
      status: 429,
      body: { code: 36009002, message: "Too many requests.", request_id: "R1", data: null },
      headers: { "Retry-After": "30" },
      operation: "GetOrderList",
    });
    const throttled = await rejection(importAll(connector));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs, throttled.message]).toEqual([
      429,
      true,
      30_000,
      "TikTok 36009002 on GetOrderList (HTTP 429): Too many requests. (request_id R1)",
    ]);

    fake.failNext({ status: 200, body: "<html>gateway</html>", operation: "GetOrderList" });
    const nonsense = await rejection(importAll(connector));
    expect([nonsense.retryable, nonsense.message]).toEqual([true, "TikTok 200 on GetOrderList: the answer is not TikTok's envelope (no numeric code)"]);

    fake.failNext({ status: 200, body: { code: 0, message: "Success", data: { orders: "none" } }, operation: "GetOrderList" });
    const shape = await rejection(importAll(connector));
    expect([shape.retryable, shape.message]).toEqual([true, "TikTok GetOrderList answer's orders is not a list"]);
    expect(fake.violations).toEqual([]);
  });
});

describe("TikTok Shop shop cipher", () => {
  it("looks the cipher up by shop id among the authorised shops once, keeps it, and says which shops there are when the id is not one", async () => {
    const { fake, make } = setup();
    const byId = { shopCipher: undefined, shopId: TIKTOK_FAKE_SHOP_ID };
    await importAll(make(byId));
    await importAll(make(byId));
    const shops = fake.requestsOf("api", "GetAuthorizedShops");
    expect(shops).toHaveLength(1);
    // The authorisation call carries no shop_cipher.
    expect(Object.keys(shops[0]!.query).sort()).toEqual(["app_key", "sign", "timestamp"]);
    expect(fake.requestsOf("api", "GetOrderList").map((r) => r.query.shop_cipher)).toEqual([TIKTOK_FAKE_SHOP_CIPHER, TIKTOK_FAKE_SHOP_CIPHER]);

    const unknown = await rejection(importAll(make({ shopCipher: undefined, shopId: "123" })));
    expect([unknown.retryable, unknown.message]).toEqual([
      false,
      `TikTok: the seller authorised this app for shops 7494105515082810001 (Another Shop), ${TIKTOK_FAKE_SHOP_ID} (Fake Shop), not shop 123; check the ` +
        `source's shopId`,
    ]);
    expect(fake.violations).toEqual([]);
  });
});

describe("TikTok Shop tokens", () => {
  const renewals = (fake: ReturnType<typeof setup>["fake"]) => fake.requestsOf("auth").map((r) => r.query);

  it("renews with grant_type=refresh_token an hour before the token's expiry, with the refresh token TikTok issued last, kept sealed", async () => {
    const { fake, connector, make, advance, storage } = setup();
    await importAll(connector);
    expect(renewals(fake)).toEqual([
      { app_key: TIKTOK_FAKE_APP_KEY, app_secret: expect.any(String), refresh_token: TIKTOK_FAKE_REFRESH_TOKEN, grant_type: "refresh_token" },
    ]);
    // Six days and 22 hours later: more than an hour left, no renewal.
    advance(6 * 24 * HOUR + 22 * HOUR);
    await importAll(make());
    expect(renewals(fake)).toHaveLength(1);
    // Within the last hour of seven days: renewed, with the rotated token.
    advance(90 * MINUTE);
    await importAll(make());
    expect(renewals(fake).map((q) => q.refresh_token)).toEqual([TIKTOK_FAKE_REFRESH_TOKEN, fake.refreshTokens()[1]]);
    const kept = JSON.stringify(storage.list(""));
    expect(kept).toContain("tiktok:refreshToken");
    for (const issued of fake.refreshTokens()) expect(kept).not.toContain(issued);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it(
    "renews once when TikTok refuses the access token (105002) and goes on; a token refused again after renewal is the source's error, not a " + "loop",
    async () => {
      const { fake, connector, make } = setup();
      await importAll(connector);
      fake.expireTokens();
      await importAll(make());
      expect(fake.requestsOf("auth")).toHaveLength(2);
      expect(fake.refusals.map((r) => r.split(": ")[1])).toEqual(["105002 Expired credentials. The access token has expired."]);

      fake.failNext({ status: 401, body: { code: 105002, message: "Expired credentials.", data: null }, operation: "GetOrderList", times: 2 });
      const refused = await rejection(importAll(make()));
      expect([refused.retryable, refused.message]).toEqual([
        true,
        "TikTok 105002 on GetOrderList (HTTP 401): Expired credentials.: TikTok refused the source's access token right after renewing it; the seller may " +
          "have to authorise the app again (see the TikTok Shop source README)",
      ]);
      expect(fake.requestsOf("auth")).toHaveLength(3);
      expect(fake.violations).toEqual([]);
    },
  );

  it("remembers a refused renewal: later cycles report it without asking TikTok, until a new refresh token is entered", async () => {
    const { fake, make } = setup();
    fake.revokeRefreshTokens();
    const first = await rejection(importAll(make()));
    expect([first.retryable, first.message]).toEqual([
      true,
      "TikTok refused to renew the source's access (code 36004004: The refresh_token is invalid, expired or already used.): the seller must authorise the " +
        "app again and the source's refreshToken be replaced (see the TikTok Shop source README); nothing is sent to TikTok until then",
    ]);
    const again = await rejection(importAll(make()));
    expect(again.message).toBe(first.message);
    expect(fake.requestsOf("auth")).toHaveLength(1);
    expect(fake.requestsOf("api")).toHaveLength(0);
    const pages = await importAll(make({ refreshToken: fake.grantConsent() }));
    expect(pages[0]!.orders).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("loses no access when the renewal's answer arrives and the cycle dies: the next one renews with the newest refresh token", async () => {
    const { fake, make, advance } = setup();
    fake.cutOffAfterNextRenewal();
    const cut = await rejection(importAll(make()));
    expect(cut.message).toContain("Network connection lost");
    fake.restore();
    advance(8 * 24 * HOUR);
    await importAll(make());
    // The cut-off renewal used the first token; the next one uses the token that renewal issued.
    expect(renewals(fake).map((q) => q.refresh_token)).toEqual([TIKTOK_FAKE_REFRESH_TOKEN, fake.refreshTokens()[1]]);
    expect(fake.requestsOf("auth").map((r) => r.status)).toEqual([200, 200]);
    expect(fake.refusals).toEqual([]);
  });

  it("needs the source's sealer to keep the rotating refresh token, and asks TikTok nothing without it", async () => {
    const { fake, make } = setup();
    const error = await rejection(importAll(make({}, { secrets: null })));
    expect([error.retryable, error.message]).toEqual([false, "TikTok needs the source's secret sealer to keep its rotating refresh token"]);
    expect(fake.requests).toHaveLength(0);
  });
});
