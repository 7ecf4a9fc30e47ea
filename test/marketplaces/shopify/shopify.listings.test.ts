// Shopify's stock and price calls against the fake Shopify, which validates every document with
// graphql-js against the 2026-01 inventory-price extract and applies it to its variants.
import { describe, expect, it } from "vitest";
import { MarketplaceError, type ListingUpdate } from "../../../src/marketplaces/connector";
import { createShopifyConnector } from "../../../src/marketplaces/shopify/shopify.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN } from "./shopify-fake";
import type { FakeVariant, ShopifyListingsOptions } from "./shopify-listings-fake";

const START = Date.parse("2026-03-01T12:00:00Z");

/** Three products: a mug with two variants, a cap, a hat stocked nowhere. */
const VARIANTS: FakeVariant[] = [
  { sku: "MUG-BLU", id: 11, productId: 1, inventoryItemId: 111, price: "12.50", available: { 1: 4 } },
  { sku: "MUG-RED", id: 12, productId: 1, inventoryItemId: 112, price: "12.50", available: { 1: 4 } },
  { sku: "CAP", id: 21, productId: 2, inventoryItemId: 121, price: "9.00", available: { 1: 0, 2: 3 } },
  { sku: "HAT", id: 31, productId: 3, inventoryItemId: 131, price: "15.00", available: {} },
];

function setup(
  listings: ShopifyListingsOptions = { variants: VARIANTS },
  settings: Record<string, unknown> = {},
  bucket: { maximumAvailable?: number; restoreRate?: number } = {},
) {
  let nowMs = START;
  const fake = createShopifyFake({ now: () => new Date(nowMs), listings, ...bucket });
  const connector = createShopifyConnector(
    { sourceId: "s", settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN, ...settings }, fetch: fake.fetch, now: () => new Date(nowMs) },
    memoryStorage(),
    { sleep: async (ms) => void (nowMs += ms) },
  );
  return { fake, push: connector.listings! };
}

const update = (sku: string, quantity: number | null, price: number | null): ListingUpdate => ({ sku, quantity, price, currency: "USD" });

describe("Shopify stock and price", () => {
  it("sets quantities at the shop's one location in one inventorySetQuantities and prices per product, in one mutation", async () => {
    const { fake, push } = setup();
    expect(push.batchSize).toBe(50);
    const outcomes = await push.push([update("MUG-BLU", 7, 13), update("MUG-RED", null, 14.5), update("CAP", 2, null)]);
    expect(Object.fromEntries(outcomes)).toEqual({ "MUG-BLU": { state: "accepted" }, "MUG-RED": { state: "accepted" }, CAP: { state: "accepted" } });
    expect(fake.violations).toEqual([]);
    expect(fake.calls.map((c) => c.fields)).toEqual([["locations"], ["productVariants"], ["inventorySetQuantities", "productVariantsBulkUpdate"]]);
    const mutation = fake.calls[2]!;
    expect(mutation.variables.stock).toEqual({
      name: "available",
      reason: "correction",
      quantities: [
        { inventoryItemId: "gid://shopify/InventoryItem/111", locationId: "gid://shopify/Location/1", quantity: 7, changeFromQuantity: null },
        { inventoryItemId: "gid://shopify/InventoryItem/121", locationId: "gid://shopify/Location/1", quantity: 2, changeFromQuantity: null },
      ],
    });
    expect(mutation.query).toMatch(/@idempotent\(key: "[0-9a-f-]{36}"\)/);
    expect(mutation.variables.variants0).toEqual([
      { id: "gid://shopify/ProductVariant/11", price: "13.00" },
      { id: "gid://shopify/ProductVariant/12", price: "14.50" },
    ]);
    expect(fake.variant("MUG-BLU")).toMatchObject({ price: "13.00", available: { 1: 7 } });
    expect(fake.variant("MUG-RED")).toMatchObject({ price: "14.50", available: { 1: 4 } });
    expect(fake.variant("CAP")).toMatchObject({ price: "9.00", available: { 1: 2, 2: 3 } });
    // Within the 1,000-point ceiling the fake enforces.
    expect(mutation.requestedCost).toBeLessThanOrEqual(1000);
  });

  it("reports SKUs Shopify does not have, compares SKUs exactly, and refuses an item not stocked at the location", async () => {
    const { fake, push } = setup();
    const outcomes = await push.push([update("GHOST", 1, null), update("mug-blu", 1, null), update("HAT", 5, null), update("MUG-BLU", 3, null)]);
    expect(outcomes.get("GHOST")).toEqual({ state: "unknownSku", message: "Shopify has no variant with SKU GHOST" });
    expect(outcomes.get("mug-blu")!.state).toBe("unknownSku");
    expect(outcomes.get("HAT")).toMatchObject({ state: "refused" });
    expect((outcomes.get("HAT") as { message: string }).message).toContain("ITEM_NOT_STOCKED_AT_LOCATION");
    // Shopify applied nothing of the refused call: the mug is sent again later.
    expect(outcomes.get("MUG-BLU")).toMatchObject({ state: "retry", quantityAccepted: false });
    expect(fake.variant("MUG-BLU")!.available).toEqual({ 1: 4 });
    expect(fake.violations).toEqual([]);
  });

  it("needs Settings.locationId when the shop has several locations, and uses it without asking", async () => {
    const locations = [
      { id: 1, name: "Warehouse", isActive: true },
      { id: 2, name: "Shop floor", isActive: true },
    ];
    const several = setup({ variants: VARIANTS, locations });
    const error = await several.push.push([update("CAP", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).retryable).toBe(false);
    expect((error as Error).message).toContain("Settings.locationId");
    const chosen = setup({ variants: VARIANTS, locations }, { locationId: "gid://shopify/Location/2" });
    expect((await chosen.push.push([update("CAP", 8, null)])).get("CAP")).toEqual({ state: "accepted" });
    expect(chosen.fake.variant("CAP")!.available).toEqual({ 1: 0, 2: 8 });
    expect(chosen.fake.calls.map((c) => c.fields[0])).toEqual(["productVariants", "inventorySetQuantities"]);
  });

  it("refuses a negative price for its variant only", async () => {
    const { fake, push } = setup();
    const outcomes = await push.push([update("CAP", 1, -2), update("MUG-BLU", 1, 3)]);
    expect(outcomes.get("CAP")).toMatchObject({ state: "refused", quantityAccepted: true, priceAccepted: false });
    expect(outcomes.get("MUG-BLU")).toEqual({ state: "accepted" });
    expect(fake.variant("CAP")).toMatchObject({ price: "9.00", available: { 1: 1 } });
  });

  it("waits for the cost bucket instead of being throttled, and 50 SKUs of 50 products fit one mutation", async () => {
    const many: FakeVariant[] = Array.from({ length: 50 }, (_, i) => ({
      sku: `S${i}`,
      id: 1000 + i,
      productId: 500 + i,
      inventoryItemId: 2000 + i,
      price: "1.00",
      available: { 1: 0 },
    }));
    const { fake, push } = setup({ variants: many }, {}, { maximumAvailable: 1000, restoreRate: 50 });
    const first = await push.push(many.map((v) => update(v.sku, 5, 2)));
    expect([...first.values()].every((o) => o.state === "accepted")).toBe(true);
    const second = await push.push(many.map((v) => update(v.sku, 6, 3)));
    expect([...second.values()].every((o) => o.state === "accepted")).toBe(true);
    expect(fake.calls.filter((c) => c.throttled)).toEqual([]);
    expect(fake.violations).toEqual([]);
    expect(fake.variant("S49")).toMatchObject({ price: "3.00", available: { 1: 6 } });
  });
});
