// Amazon's stock and price calls against the fake Amazon, which holds each patchListingsItem to
// the Listings Items model (path, query, token, body schema, usage plan) and the offer attributes
// the reference README gives (test/marketplaces/amazon/amazon-listings-fake.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { MarketplaceError, type ListingUpdate } from "../../../src/marketplaces/connector";
import { createAmazonConnector } from "../../../src/marketplaces/amazon/amazon.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import {
  AMAZON_FAKE_CLIENT_ID,
  AMAZON_FAKE_CLIENT_SECRET,
  AMAZON_FAKE_REFRESH_TOKEN,
  createAmazonFake,
  type AmazonFake,
  type AmazonFakeOptions,
} from "./amazon-fake";
import { AMAZON_FAKE_SELLER_ID } from "./amazon-listings-fake";
import { storeWithToken } from "../../helpers/api";
import { createSource, cycleAt } from "../../helpers/sync";
import { listings, putInventory, putStock } from "../../stock/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const US = "ATVPDKIKX0DER";
const SETTINGS = {
  refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
  clientId: AMAZON_FAKE_CLIENT_ID,
  clientSecret: AMAZON_FAKE_CLIENT_SECRET,
  region: "na",
  marketplaceIds: [US, "A1F83G8C2ARO7P"],
  sellerId: AMAZON_FAKE_SELLER_ID,
};
const START = Date.parse("2026-03-01T12:00:00Z");

function setup(opts: AmazonFakeOptions = {}, settings: Record<string, unknown> = {}) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createAmazonFake({ now, ...opts });
  const connector = createAmazonConnector({ sourceId: "source-1", settings: { ...SETTINGS, ...settings }, fetch: fake.fetch, now }, memoryStorage(), {
    sleep: async (ms) => {
      clock.ms += ms;
    },
  });
  return { fake, push: connector.listings! };
}

const update = (sku: string, quantity: number | null, price: number | null, currency = "USD"): ListingUpdate => ({ sku, quantity, price, currency });
const patches = (fake: AmazonFake) => fake.apiRequests("patchListingsItem");

describe("Amazon stock and price", () => {
  it("patches the offer attributes of one SKU a call, as the model and the reference README say", async () => {
    const { fake, push } = setup();
    expect(push.batchSize).toBe(1);
    const outcomes = await push.push([update("MUG 1/A", 7, 19.99)]);
    expect(fake.violations).toEqual([]);
    expect(outcomes.get("MUG 1/A")).toEqual({ state: "accepted" });
    const [call] = patches(fake);
    expect(call!.method).toBe("PATCH");
    expect(call!.path).toBe(`/listings/2021-08-01/items/${AMAZON_FAKE_SELLER_ID}/MUG%201%2FA`);
    expect(call!.rawQuery).toBe(`?marketplaceIds=${US}`);
    expect(call!.headers["x-amz-access-token"]).toBeTruthy();
    expect(call!.body).toEqual({
      productType: "PRODUCT",
      patches: [
        { op: "merge", path: "/attributes/fulfillment_availability", value: [{ fulfillment_channel_code: "DEFAULT", quantity: 7 }] },
        {
          op: "merge",
          path: "/attributes/purchasable_offer",
          value: [{ marketplace_id: US, currency: "USD", our_price: [{ schedule: [{ value_with_tax: 19.99 }] }] }],
        },
      ],
    });
    expect(fake.item("MUG 1/A")).toEqual({ quantity: 7, price: 19.99, currency: "USD" });
    // Only what changed: a quantity alone patches one attribute.
    await push.push([update("CUP", 3, null)]);
    expect((patches(fake)[1]!.body as { patches: { path: string }[] }).patches.map((p) => p.path)).toEqual(["/attributes/fulfillment_availability"]);
  });

  it("reports a SKU Amazon has no listing for, refuses an INVALID submission with its issues, and needs the sellerId", async () => {
    const { fake, push } = setup({ listings: { knownSkus: ["A", "BAD"], invalidSkus: ["BAD"] } });
    const outcomes = await push.push([update("GHOST", 1, null)]);
    expect(outcomes.get("GHOST")).toMatchObject({ state: "unknownSku" });
    expect((outcomes.get("GHOST") as { message: string }).message).toContain("404");
    const bad = await push.push([update("BAD", 1, 2)]);
    expect(bad.get("BAD")).toEqual({ state: "refused", message: "Amazon answered INVALID for SKU BAD: 90000900 The attributes are invalid." });
    expect(fake.violations).toEqual([]);

    const without = setup({}, { sellerId: undefined });
    const refused = await without.push.push([update("A", 1, null)]);
    expect(refused.get("A")).toMatchObject({ state: "refused" });
    expect((refused.get("A") as { message: string }).message).toContain("sellerId");
    expect(patches(without.fake)).toHaveLength(0);
  });

  it("keeps to the usage plan (burst 5, then 5 a second) and throws a retryable error on a 429 it cannot wait out", async () => {
    const { fake, push } = setup();
    for (const sku of ["A", "B", "C", "D", "E", "F", "G"]) await push.push([update(sku, 1, null)]);
    expect(fake.violations).toEqual([]);
    expect(patches(fake).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
    fake.failNext({ target: "api", operation: "patchListingsItem", status: 429, headers: { "Retry-After": "600" }, times: 2 });
    const error = await push.push([update("H", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).status).toBe(429);
    expect((error as MarketplaceError).retryable).toBe(true);
  });
});

describe("an Amazon source's cycle", () => {
  it("sends each changed SKU once, reports an unknown SKU without retrying it, and leaves what the pace does not allow to a later cycle", async () => {
    let at = Date.now();
    // Amazon states 0.01 calls/s for this seller: the burst of 5 goes, the rest waits.
    const fake = createAmazonFake({ now: () => new Date(at), rates: { patchListingsItem: 0.01 }, listings: { knownSkus: ["A", "B", "C", "D", "E", "F"] } });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    await putStock(
      storeId,
      ["A", "B", "C", "D", "E", "F", "Z"].map((Sku, i) => ({ Sku, Quantity: i + 1, Price: 20 + i })),
    );
    const sourceId = await createSource(storeId, { Type: "amazon", Name: "Amazon US", Settings: SETTINGS });

    const first = await cycleAt(sourceId, at);
    expect(first.error).toContain("patchListingsItem");
    expect(first.listingsAccepted).toBe(5);
    expect((await listings(storeId, sourceId, "?status=pending")).Listings.map((l) => l.Sku)).toEqual(["F", "Z"]);
    at += 60 * 60_000;
    await cycleAt(sourceId, at);
    expect(fake.violations).toEqual([]);
    const shown = await listings(storeId, sourceId);
    expect(shown.Push).toBe("Enabled");
    expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 6, UnknownSku: 1, Refused: 0 });
    expect((await listings(storeId, sourceId, "?status=unknownSku")).Listings[0]!.LastError).toContain("does not exist");
    expect(fake.item("F")).toEqual({ quantity: 6, price: 25, currency: "USD" });
    expect(patches(fake).filter((r) => r.status === 200)).toHaveLength(6);

    // Nothing goes again, the unknown SKU included; a new quantity goes out alone.
    const sent = patches(fake).length;
    at += 60 * 60_000;
    await cycleAt(sourceId, at);
    expect(patches(fake)).toHaveLength(sent);
    await putInventory(token, [{ Sku: "B", Quantity: 40 }]);
    at += 60 * 60_000;
    await cycleAt(sourceId, at);
    expect(
      patches(fake)
        .slice(sent)
        .map((r) => JSON.stringify(r.body)),
    ).toEqual([
      JSON.stringify({
        productType: "PRODUCT",
        patches: [{ op: "merge", path: "/attributes/fulfillment_availability", value: [{ fulfillment_channel_code: "DEFAULT", quantity: 40 }] }],
      }),
    ]);
  });
});
