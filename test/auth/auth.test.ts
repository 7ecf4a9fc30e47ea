// PUT /v1/Authorization, tokens, revocation, scopes and store isolation: decisions 4.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { issueToken } from "../../src/auth/tokens";
import { admin, call, createKey, createStore, insert, nextIp, sampleOrder, storeWithToken, tokenFor } from "../helpers/api";
import { countRows } from "../helpers/db";

const DAY = 86_400_000;
const DENIED = "Authorization has been denied for this request.";
const RANGE = "fromDate=2026-01-01&toDate=2026-12-31";

function authorize(consumerKey: unknown) {
  return call("PUT", "/v1/Authorization", { body: { ConsumerKey: consumerKey }, headers: { "cf-connecting-ip": nextIp() } });
}

/** A request under its own client address, so per-address throttling of failed tokens never interferes. */
function get(path: string) {
  return call("GET", path, { headers: { "cf-connecting-ip": nextIp() } });
}

/** The issue time carried by a token: <consumerKeyId>.<iat36>.<exp36>.<hmac>. */
function issuedAtOf(token: string): number {
  return parseInt(token.split(".")[1]!, 36);
}

describe("PUT /v1/Authorization", () => {
  it("answers a token and a null TokenExpirationDate for a NeverExpires key", async () => {
    const storeId = await createStore();
    const key = await createKey(storeId, { lifespan: "NeverExpires" });
    const res = await authorize(key.Key);
    expect(res.status).toBe(200);
    expect(res.json.Success).toBe(true);
    expect(res.json.Message).toBe("");
    expect(res.json.TokenExpirationDate).toBeNull();
    expect(res.json.Token).toMatch(/^[A-Za-z0-9._~-]+$/);
    expect(Object.keys(res.json).sort()).toEqual(["Message", "Success", "Token", "TokenExpirationDate"]);
  });

  it.each([
    ["7Days", 7],
    ["14Days", 14],
    ["30Days", 30],
  ])("counts a %s lifespan from generation and answers the expiry as ISO ...Z", async (lifespan, days) => {
    const storeId = await createStore();
    const key = await createKey(storeId, { lifespan });
    const before = Date.now();
    const res = await authorize(key.Key);
    const after = Date.now();
    expect(res.status).toBe(200);
    const expiry = res.json.TokenExpirationDate as string;
    expect(expiry).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const issuedAt = issuedAtOf(res.json.Token as string);
    expect(issuedAt).toBeGreaterThanOrEqual(before);
    expect(issuedAt).toBeLessThanOrEqual(after);
    expect(Date.parse(expiry) - issuedAt).toBe(days * DAY);
    // And the token works now.
    expect((await get(`/v1/${res.json.Token}/Orders/count?${RANGE}`)).status).toBe(200);
  });

  it("answers 401 for an unknown, malformed or missing key", async () => {
    for (const consumerKey of ["ofh_unknownunknownunknownunknownunknown00000", "x", "'; select * from consumer_keys; --", "ü".repeat(150), "ofh_\ud800"]) {
      const res = await authorize(consumerKey);
      // JSON.stringify escapes the lone surrogate: a raw one in a failure label breaks the reporter.
      expect(res.status, JSON.stringify(consumerKey)).toBe(401);
      expect(res.json.Success).toBe(false);
      expect(res.json.Message).toMatch(/consumer key/i);
      expect(res.json.Token).toBeUndefined();
    }
    for (const body of [{}, { ConsumerKey: "" }, { ConsumerKey: 42 }, { ConsumerKey: "k".repeat(201) }]) {
      const res = await call("PUT", "/v1/Authorization", { body, headers: { "cf-connecting-ip": nextIp() } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.Message).toContain("ConsumerKey");
    }
  });

  it("answers 401 for a revoked key", async () => {
    const storeId = await createStore();
    const key = await createKey(storeId);
    expect((await authorize(key.Key)).status).toBe(200);
    expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
    const res = await authorize(key.Key);
    expect(res.status).toBe(401);
    expect(res.json.Success).toBe(false);
  });

  it("answers 401 for a key of a deleted store", async () => {
    const storeId = await createStore();
    const key = await createKey(storeId);
    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    expect((await authorize(key.Key)).status).toBe(401);
  });
});

describe("tokens", () => {
  it("refuses an expired token with 401 saying so", async () => {
    const { key } = await storeWithToken({ lifespan: "7Days" });
    const issuedAt = Date.now() - 8 * DAY;
    const expired = await issueToken(env.TOKEN_SIGNING_SECRET, { consumerKeyId: key.ConsumerKeyId, issuedAt, expiresAt: issuedAt + 7 * DAY });
    const res = await get(`/v1/${expired}/Orders/count?${RANGE}`);
    expect(res.status).toBe(401);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toMatch(/expired/);
    // The same key's fresh token still works: only the expired one is refused.
    const live = await issueToken(env.TOKEN_SIGNING_SECRET, { consumerKeyId: key.ConsumerKeyId, issuedAt: Date.now(), expiresAt: Date.now() + DAY });
    expect((await get(`/v1/${live}/Orders/count?${RANGE}`)).status).toBe(200);
  });

  it("refuses a token signed with another secret, or altered", async () => {
    const { key, token } = await storeWithToken();
    const forged = await issueToken("not-the-secret", { consumerKeyId: key.ConsumerKeyId, issuedAt: Date.now(), expiresAt: null });
    const [id, iat, , sig] = token.split(".");
    const extended = `${id}.${iat}.${(Date.now() + 1000 * DAY).toString(36)}.${sig}`;
    for (const bad of [forged, extended, token.slice(0, -1), "garbage", "-", `${token}x`]) {
      const res = await get(`/v1/${bad}/Orders/count?${RANGE}`);
      expect(res.status, bad).toBe(401);
      expect(res.json.Message).toMatch(/token/);
    }
  });

  it("stops a revoked key's token on its next call", async () => {
    const { key, token } = await storeWithToken();
    expect((await get(`/v1/${token}/Orders/count?${RANGE}`)).status).toBe(200);
    const revoke = await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`);
    expect(revoke.status).toBe(200);
    const res = await get(`/v1/${token}/Orders/count?${RANGE}`);
    expect(res.status).toBe(401);
    expect(res.json.Message).toMatch(/revoked/);
  });

  it("stops every token of a deleted store", async () => {
    const { storeId, token } = await storeWithToken();
    const second = await tokenFor((await createKey(storeId)).Key);
    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    for (const t of [token, second]) expect((await get(`/v1/${t}/Orders/count?${RANGE}`)).status).toBe(401);
  });

  it("keeps consumer keys only as hashes", async () => {
    const storeId = await createStore();
    const key = await createKey(storeId);
    const { results } = await env.DB.prepare("select * from consumer_keys where id = ?").bind(key.ConsumerKeyId).all<Record<string, unknown>>();
    expect(results).toHaveLength(1);
    const row = results[0]!;
    for (const value of Object.values(row)) expect(String(value)).not.toContain(key.Key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key.Key));
    expect(row.key_hash).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
  });
});

describe("scopes", () => {
  const routes = async (token: string, orderId: string, feedId: string) => [
    { scope: "OrdersRead", method: "GET", path: `/v1/${token}/Orders/count?${RANGE}` },
    { scope: "OrdersRead", method: "GET", path: `/v1/${token}/Orders?${RANGE}&page=1&pageSize=10` },
    { scope: "OrdersRead", method: "GET", path: `/v1/${token}/Orders/${orderId}` },
    { scope: "OrdersCreate", method: "PUT", path: `/v1/${token}/Orders/InsertOrder`, body: sampleOrder() },
    { scope: "OrdersUpdate", method: "PUT", path: `/v1/${token}/Orders/${orderId}/AcknowledgeOrder?orderDestinationOrderNumber=S-1` },
    { scope: "OrdersUpdate", method: "PUT", path: `/v1/${token}/Orders/${orderId}/UpdateStatus`, body: { OrderStatus: "SHIPPED" } },
    { scope: "FeedsRead", method: "GET", path: `/v1/${token}/feeds/count` },
    { scope: "FeedsRead", method: "GET", path: `/v1/${token}/feeds?page=1&pageSize=10` },
    { scope: "FeedsRead", method: "GET", path: `/v1/${token}/feeds/${feedId}` },
    { scope: "FeedsRead", method: "GET", path: `/v1/${token}/feeds/${feedId}/download` },
    { scope: "InventoryUpdate", method: "PUT", path: `/v1/${token}/Inventory`, body: { Items: [{ Sku: "S-1", Quantity: 1 }] } },
  ];
  /** Routes per scope (decisions 4): 3 read orders, 1 creates, 2 update, 4 read feeds, 1 sets stock (decisions 11). */
  const ROUTES_OF = { OrdersRead: 3, OrdersCreate: 1, OrdersUpdate: 2, FeedsRead: 4, InventoryUpdate: 1 } as const;

  /** A store with an order and a compiled feed, so that every route with its scope answers 200. */
  async function stocked() {
    const full = await storeWithToken();
    const orderId = await insert(full.token);
    const products = await admin("PUT", `/stores/${full.storeId}/products`, {
      Products: [
        {
          Sku: "S-1",
          Title: "Mug",
          Description: "A mug",
          Link: "https://shop.example/s1",
          ImageLink: "https://shop.example/s1.jpg",
          Price: 5,
          Availability: "in_stock",
        },
      ],
    });
    expect(products.status).toBe(200);
    const feed = await admin("POST", `/stores/${full.storeId}/feeds`, { Name: "Scoped", Format: "csv" });
    const feedId = (feed.json.Feed as { FeedId: string }).FeedId;
    expect((await admin("POST", `/feeds/${feedId}/compile`)).json.Feed).toMatchObject({ Status: "Completed" });
    return { ...full, orderId, feedId };
  }

  it("answers 401 with the exact Message when the key lacks the endpoint's scope, and 200 when it has it", async () => {
    const scopes = ["OrdersRead", "OrdersCreate", "OrdersUpdate", "FeedsRead", "InventoryUpdate"] as const;
    const { storeId, orderId, feedId } = await stocked();
    for (const scope of scopes) {
      // A key of the same store holding every scope but this one.
      const limited = await tokenFor((await createKey(storeId, { scopes: scopes.filter((s) => s !== scope) })).Key);
      const only = await tokenFor((await createKey(storeId, { scopes: [scope] })).Key);
      const needing = (await routes(limited, orderId, feedId)).filter((route) => route.scope === scope);
      expect(needing, scope).toHaveLength(ROUTES_OF[scope]);
      for (const route of needing) {
        const res = await call(route.method, route.path, { body: route.body });
        expect(res.status, `${route.method} ${route.path} without ${scope}`).toBe(401);
        expect(res.json).toEqual({ Success: false, Message: DENIED });
      }
      const answers = [];
      for (const route of await routes(only, orderId, feedId)) {
        const res = await call(route.method, route.path, { body: route.body });
        answers.push([route.scope === scope, res.status] as const);
        if (route.scope === scope) expect(res.status, `${route.method} ${route.path} with ${scope}: ${res.text.slice(0, 200)}`).toBe(200);
        else expect(res.json, `${route.method} ${route.path} with only ${scope}`).toEqual({ Success: false, Message: DENIED });
      }
      expect(answers.filter(([own]) => own).map(([, status]) => status)).toEqual(Array(ROUTES_OF[scope]).fill(200));
      expect(answers.filter(([own]) => !own).map(([, status]) => status)).toEqual(Array(11 - ROUTES_OF[scope]).fill(401));
    }
  });

  it("checks the scope before validating the request", async () => {
    const { token } = await storeWithToken({ scopes: ["FeedsRead"] });
    const res = await call("GET", `/v1/${token}/Orders/count`);
    expect(res.status).toBe(401);
    expect(res.json.Message).toBe(DENIED);
  });
});

describe("store isolation", () => {
  it("never lets one store's token see or change another store's orders", async () => {
    const a = await storeWithToken();
    const b = await storeWithToken();
    const orderId = await insert(a.token, { DateCreatedInOrderSource: "2026-03-01T10:00:00Z", OrderSourceOrderNumber: "SHARED-1" });
    const before = await call("GET", `/v1/${a.token}/Orders/${orderId}`);

    expect((await call("GET", `/v1/${b.token}/Orders/${orderId}`)).status).toBe(404);
    expect((await call("GET", `/v1/${b.token}/Orders/count?${RANGE}`)).json.Count).toBe(0);
    expect((await call("GET", `/v1/${b.token}/Orders?${RANGE}&page=1&pageSize=100`)).json.Orders).toEqual([]);
    const notFound = { Success: false, Message: `No order with OrderId '${orderId}' exists in this store.` };
    const ack = await call("PUT", `/v1/${b.token}/Orders/${orderId}/AcknowledgeOrder?orderDestinationOrderNumber=EVIL`);
    expect(ack.status).toBe(404);
    expect(ack.json).toEqual(notFound);
    const ship = await call("PUT", `/v1/${b.token}/Orders/${orderId}/UpdateStatus`, { body: { OrderStatus: "CANCELLED" } });
    expect(ship.status).toBe(404);
    expect(ship.json).toEqual(notFound);

    // The same marketplace order number is a different order in another store.
    const bOrder = await insert(b.token, { OrderSourceOrderNumber: "SHARED-1" });
    expect(bOrder).not.toBe(orderId);
    expect((await call("GET", `/v1/${a.token}/Orders/${orderId}`)).json).toEqual(before.json);
    expect(await countRows("orders", a.storeId)).toBe(1);
    expect(await countRows("orders", b.storeId)).toBe(1);
  });
});
