// eBay's stock and price calls against the fake eBay, which holds each request to the published
// Sell Inventory API description (test/marketplaces/ebay/ebay-listings-fake.ts): getOffers for the offers a
// price goes to, bulkUpdatePriceQuantity for up to 25 SKUs a call, per-SKU answers.
import { afterEach, describe, expect, it, vi } from "vitest";
import { MarketplaceError, type ListingUpdate } from "../../../src/marketplaces/connector";
import { createEbayConnector } from "../../../src/marketplaces/ebay/ebay.connector";
import { createEbayFake, EBAY_FAKE_CLIENT_ID, EBAY_FAKE_CLIENT_SECRET, EBAY_FAKE_REFRESH_TOKEN, type EbayFake, type EbayFakeOptions } from "./ebay-fake";
import { storeWithToken } from "../../helpers/api";
import { createSource, cycleAt } from "../../helpers/sync";
import { listings, putInventory, putStock } from "../../stock/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const SETTINGS = { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" };
const INVENTORY_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.inventory";
const FULFILLMENT_SCOPE = "https://api.ebay.com/oauth/api_scope/sell.fulfillment";
const START = Date.parse("2026-03-01T12:00:00Z");

function setup(opts: EbayFakeOptions = {}) {
  const now = () => new Date(START);
  const fake = createEbayFake({ now, ...opts });
  const connector = createEbayConnector({ sourceId: "source-1", settings: SETTINGS, fetch: fake.fetch, now });
  return { fake, push: connector.listings! };
}

const update = (sku: string, quantity: number | null, price: number | null, currency = "USD"): ListingUpdate => ({ sku, quantity, price, currency });
const bulkCalls = (fake: EbayFake) => fake.requestsOf("inventory").filter((r) => r.operationId === "bulkUpdatePriceQuantity");
const offerCalls = (fake: EbayFake) => fake.requestsOf("inventory").filter((r) => r.operationId === "getOffers");

describe("eBay stock and price", () => {
  it("sends quantities and prices of many SKUs in one bulkUpdatePriceQuantity, prices to the published offers getOffers names", async () => {
    const { fake, push } = setup();
    expect(push.batchSize).toBe(25);
    const outcomes = await push.push([update("MUG 1/A", 7, 19.99), update("CUP", 3, null), update("BOWL", null, 5)]);
    expect(fake.violations).toEqual([]);
    expect(Object.fromEntries(outcomes)).toEqual({ "MUG 1/A": { state: "accepted" }, CUP: { state: "accepted" }, BOWL: { state: "accepted" } });
    // A token of its own, asked for sell.inventory only.
    const tokenForms = fake.requestsOf("token").map((r) => new URLSearchParams(r.rawBody).get("scope"));
    expect(tokenForms).toEqual([INVENTORY_SCOPE]);
    expect(offerCalls(fake).map((r) => r.rawQuery)).toEqual(["?sku=MUG%201%2FA&marketplace_id=EBAY_US", "?sku=BOWL&marketplace_id=EBAY_US"]);
    const [bulk] = bulkCalls(fake);
    expect(bulkCalls(fake)).toHaveLength(1);
    expect(bulk!.method).toBe("POST");
    expect(bulk!.path).toBe("/sell/inventory/v1/bulk_update_price_quantity");
    expect(bulk!.headers["content-type"]).toBe("application/json");
    const requests = (bulk!.body as { requests: { sku?: string; shipToLocationAvailability?: unknown; offers?: { offerId: string; price: unknown }[] }[] })
      .requests;
    expect(requests).toHaveLength(3);
    expect(requests[0]).toMatchObject({
      sku: "MUG 1/A",
      shipToLocationAvailability: { quantity: 7 },
      offers: [{ price: { value: "19.99", currency: "USD" } }],
    });
    expect(requests[1]).toEqual({ sku: "CUP", shipToLocationAvailability: { quantity: 3 } });
    expect(requests[2]!.sku).toBeUndefined();
    expect(requests[2]!.offers).toHaveLength(1);
    expect(requests[2]!.offers![0]!.price).toEqual({ value: "5", currency: "USD" });
    expect([fake.item("MUG 1/A"), fake.item("CUP"), fake.item("BOWL")]).toEqual([
      { quantity: 7, price: "19.99", currency: "USD" },
      { quantity: 3 },
      { price: "5", currency: "USD" },
    ]);
  });

  it("reports an unknown SKU per SKU (getOffers 404, or the bulk answer's 404), and refuses a price with no published offer", async () => {
    const { fake, push } = setup({ listings: { knownSkus: ["A", "DRAFT"], unpublishedSkus: ["DRAFT"] } });
    const outcomes = await push.push([update("A", 1, null), update("GHOST", 2, null), update("GHOST2", 2, 3), update("DRAFT", 4, 6)]);
    expect(fake.violations).toEqual([]);
    expect(outcomes.get("A")).toEqual({ state: "accepted" });
    expect(outcomes.get("GHOST")).toMatchObject({ state: "unknownSku" });
    expect((outcomes.get("GHOST") as { message: string }).message).toContain("25702");
    expect(outcomes.get("GHOST2")).toMatchObject({ state: "unknownSku" });
    expect((outcomes.get("GHOST2") as { message: string }).message).toContain("404");
    // DRAFT's quantity is taken; its price has no published offer to go to.
    expect(outcomes.get("DRAFT")).toEqual({
      state: "refused",
      message: "eBay has no published offer of SKU DRAFT on EBAY_US to take a price",
      quantityAccepted: true,
      priceAccepted: false,
    });
    expect(fake.item("DRAFT")).toEqual({ quantity: 4 });
    expect(bulkCalls(fake)).toHaveLength(1);
    expect(bulkCalls(fake)[0]!.status).toBe(207);
  });

  it("throws a retryable error when eBay throttles, and the fake refuses a batch over 25", async () => {
    const { fake, push } = setup({ listings: { callsPerMinute: 1 } });
    await push.push([update("A", 1, null)]);
    const error = await push.push([update("B", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).status).toBe(429);
    expect((error as MarketplaceError).retryable).toBe(true);

    const tokenAnswer = await fake.fetch("https://api.ebay.com/identity/v1/oauth2/token", {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${EBAY_FAKE_CLIENT_ID}:${EBAY_FAKE_CLIENT_SECRET}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: EBAY_FAKE_REFRESH_TOKEN, scope: INVENTORY_SCOPE }).toString(),
    });
    const token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
    const requests = Array.from({ length: 26 }, (_, i) => ({ sku: `S${i}`, shipToLocationAvailability: { quantity: 1 } }));
    const tooMany = await fake.fetch("https://api.ebay.com/sell/inventory/v1/bulk_update_price_quantity", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ requests }),
    });
    expect(tooMany.status).toBe(400);
    expect(fake.violations.join()).toContain("requests holds 26; the description takes up to 25");
  });

  it("a seller whose consent lacks sell.inventory still gets a token for orders; the push is refused with eBay's words", async () => {
    const { fake, push } = setup({ consentedScopes: [FULFILLMENT_SCOPE] });
    const error = await push.push([update("A", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).retryable).toBe(false);
    expect((error as MarketplaceError).message).toContain("invalid_scope");
    expect(bulkCalls(fake)).toHaveLength(0);
  });
});

describe("an eBay source's cycle", () => {
  it("sends each changed SKU once in batches of 25, reports unknown SKUs without retrying them, waits out a 429", async () => {
    let at = Date.now();
    const skus = Array.from({ length: 30 }, (_, i) => `SKU-${String(i).padStart(2, "0")}`);
    const fake = createEbayFake({ now: () => new Date(at), listings: { knownSkus: skus.slice(0, 29), callsPerMinute: 26 } });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    await putStock(
      storeId,
      skus.map((Sku, i) => ({ Sku, Quantity: i, Price: 10 + i })),
    );
    const sourceId = await createSource(storeId, { Type: "ebay", Name: "eBay US", Settings: SETTINGS });

    // 26 inventory calls a minute: 25 getOffers and the first bulk call are taken, the next
    // getOffers is throttled, so the last five wait for a later cycle.
    const first = await cycleAt(sourceId, at);
    expect(first.error).toContain("429");
    expect(first.listingsAccepted).toBe(25);
    expect(bulkCalls(fake)).toHaveLength(1);
    expect((await listings(storeId, sourceId, "?status=pending")).Listings.map((l) => [l.Sku, l.Attempts])).toEqual([
      ["SKU-25", 1],
      ["SKU-26", 1],
      ["SKU-27", 1],
      ["SKU-28", 1],
      ["SKU-29", 1],
    ]);
    at += 30 * 60_000;
    const second = await cycleAt(sourceId, at);
    expect(second.error).toBeNull();
    expect(fake.violations).toEqual([]);
    const sizes = bulkCalls(fake)
      .filter((r) => r.status === 200 || r.status === 207)
      .map((r) => (r.body as { requests: unknown[] }).requests.length);
    expect(sizes.every((n) => n <= 25)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(29);
    expect(fake.item("SKU-07")).toEqual({ quantity: 7, price: "17", currency: "USD" });
    const shown = await listings(storeId, sourceId);
    expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 29, UnknownSku: 1, Refused: 0 });
    const ghost = (await listings(storeId, sourceId, "?status=unknownSku")).Listings;
    expect(ghost.map((l) => l.Sku)).toEqual(["SKU-29"]);
    expect(ghost[0]!.LastError).toContain("25702");

    // Nothing goes again: the unknown SKU is not retried, the accepted ones are settled.
    const calls = fake.requestsOf("inventory").length;
    at += 60 * 60_000;
    await cycleAt(sourceId, at);
    expect(fake.requestsOf("inventory")).toHaveLength(calls);

    // A new quantity goes out alone, in one call, without asking for offers.
    await putInventory(token, [{ Sku: "SKU-03", Quantity: 40 }]);
    at += 60 * 60_000;
    await cycleAt(sourceId, at);
    expect(
      fake
        .requestsOf("inventory")
        .slice(calls)
        .map((r) => `${r.operationId}:${r.rawBody}`),
    ).toEqual([`bulkUpdatePriceQuantity:${JSON.stringify({ requests: [{ sku: "SKU-03", shipToLocationAvailability: { quantity: 40 } }] })}`]);
    expect(fake.item("SKU-03")).toEqual({ quantity: 40, price: "13", currency: "USD" });
  });
});
