// Walmart's stock and price calls against the fake Walmart, which holds each request to the
// published inventory and price descriptions (test/marketplaces/walmart/walmart-listings-fake.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { MarketplaceError, type ListingUpdate } from "../../../src/marketplaces/connector";
import { createWalmartConnector } from "../../../src/marketplaces/walmart/walmart.connector";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET, type WalmartFake } from "./walmart-fake";
import type { WalmartListingsOptions } from "./walmart-listings-fake";
import { storeWithToken } from "../../helpers/api";
import { createSource, cycleAt } from "../../helpers/sync";
import { putInventory, putStock } from "../../stock/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const START = Date.parse("2026-03-01T12:00:00Z");

function setup(listings: WalmartListingsOptions = {}) {
  const now = () => new Date(START);
  const fake = createWalmartFake({ now, listings });
  const connector = createWalmartConnector({
    sourceId: "source-1",
    settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    fetch: fake.fetch,
    now,
  });
  return { fake, push: connector.listings! };
}

const update = (sku: string, quantity: number | null, price: number | null, currency = "USD"): ListingUpdate => ({ sku, quantity, price, currency });
const listingCalls = (fake: WalmartFake) => fake.apiRequests().filter((r) => r.operationId === "updateInventoryForAnItem" || r.operationId === "updatePrice");

describe("Walmart stock and price", () => {
  it("sets quantity with PUT /v3/inventory and the BASE price with PUT /v3/price, as the descriptions say", async () => {
    const { fake, push } = setup();
    expect(push.batchSize).toBe(1);
    const outcomes = await push.push([update("SKU 1/A", 7, 19.99)]);
    expect(outcomes.get("SKU 1/A")).toEqual({ state: "accepted" });
    expect(fake.violations).toEqual([]);
    const [inventory, price] = listingCalls(fake);
    expect(inventory!.method).toBe("PUT");
    expect(inventory!.rawQuery).toBe("?sku=SKU%201%2FA");
    expect(inventory!.body).toEqual({ sku: "SKU 1/A", quantity: { unit: "EACH", amount: 7 } });
    expect(inventory!.headers.authorization).toBe(`Basic ${btoa(`${WALMART_FAKE_CLIENT_ID}:${WALMART_FAKE_CLIENT_SECRET}`)}`);
    expect(inventory!.headers["wm_sec.access_token"]).toBeTruthy();
    expect(price!.path).toBe("/v3/price");
    expect(price!.body).toEqual({ sku: "SKU 1/A", pricing: [{ currentPriceType: "BASE", currentPrice: { currency: "USD", amount: 19.99 } }] });
    expect(fake.item("SKU 1/A")).toEqual({ quantity: 7, price: 19.99, currency: "USD" });
  });

  it("sends only what changed: a quantity alone makes no price call", async () => {
    const { fake, push } = setup();
    await push.push([update("A", 3, null)]);
    expect(listingCalls(fake).map((r) => r.operationId)).toEqual(["updateInventoryForAnItem"]);
    await push.push([update("A", null, 4.5)]);
    expect(listingCalls(fake).map((r) => r.operationId)).toEqual(["updateInventoryForAnItem", "updatePrice"]);
  });

  it("reports a SKU Walmart has no item for, and refuses a currency Walmart does not take without calling", async () => {
    const { fake, push } = setup({ knownSkus: ["KNOWN"] });
    const outcomes = await push.push([update("GHOST", 1, 2)]);
    expect(outcomes.get("GHOST")).toMatchObject({ state: "unknownSku" });
    expect((outcomes.get("GHOST") as { message: string }).message).toContain("404");
    const euro = await push.push([update("KNOWN", 2, 9, "EUR")]);
    expect(euro.get("KNOWN")).toEqual({ state: "refused", message: "Walmart takes prices in USD or CAD, not EUR", quantityAccepted: true });
    expect(listingCalls(fake).map((r) => `${r.operationId}:${r.status}`)).toEqual(["updateInventoryForAnItem:404", "updateInventoryForAnItem:200"]);
    expect(fake.violations).toEqual([]);
  });

  it("throws a retryable error with Retry-After when Walmart throttles", async () => {
    const { push } = setup({ callsPerMinute: 1 });
    await push.push([update("A", 1, null)]);
    const error = await push.push([update("B", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).status).toBe(429);
    expect((error as MarketplaceError).retryable).toBe(true);
    expect((error as MarketplaceError).retryAfterMs).toBe(60_000);
  });
});

describe("a Walmart source's cycle", () => {
  it("sends each changed Sku once, pauses on 429 and carries on after", async () => {
    let at = Date.now();
    const fake = createWalmartFake({ now: () => new Date(at), listings: { knownSkus: ["A", "B", "C"], callsPerMinute: 3 } });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "A", Quantity: 1 },
      { Sku: "B", Quantity: 2 },
      { Sku: "C", Quantity: 3 },
      { Sku: "Z", Quantity: 4 },
    ]);
    const sourceId = await createSource(storeId, {
      Type: "walmart",
      Name: "Walmart US",
      Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    });
    // Three calls a minute: A's quantity, A's price, B's quantity; B's price is throttled.
    const first = await cycleAt(sourceId, at);
    expect(first.error).toContain("429");
    expect(first.listingsAccepted).toBe(1);
    at += 3 * 3_600_000;
    const later = await cycleAt(sourceId, at);
    expect(later.error).toContain("429");
    at += 3 * 3_600_000;
    const last = await cycleAt(sourceId, at);
    expect(fake.violations).toEqual([]);
    expect([fake.item("A"), fake.item("B"), fake.item("C")]).toEqual([
      { quantity: 1, price: 10, currency: "USD" },
      { quantity: 2, price: 10, currency: "USD" },
      { quantity: 3, price: 10, currency: "USD" },
    ]);
    expect(last.error).toBeNull();
    const calls = listingCalls(fake)
      .filter((r) => r.status === 200)
      .map((r) => (r.body as { sku: string }).sku);
    // B's quantity was taken before its price was throttled: only its price goes again, after C
    // (B waits out its back-off, C was due since the first cycle).
    expect(calls).toEqual(["A", "A", "B", "C", "C", "B"]);
    // A new quantity goes out alone; nothing else is sent again.
    await putInventory(token, [{ Sku: "B", Quantity: 9 }]);
    at += 3 * 3_600_000;
    await cycleAt(sourceId, at);
    expect(
      listingCalls(fake)
        .filter((r) => r.status === 200)
        .map((r) => r.rawBody)
        .at(-1),
    ).toBe(JSON.stringify({ sku: "B", quantity: { unit: "EACH", amount: 9 } }));
    expect(listingCalls(fake).filter((r) => r.status === 200)).toHaveLength(7);
    expect(fake.violations).toEqual([]);
  });
});
