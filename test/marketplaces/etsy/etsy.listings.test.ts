// Etsy's stock and price calls against the fake Etsy, which holds each request to Etsy's published
// Open API v3 description (test/marketplaces/etsy/etsy-listings-fake.ts): the shop's listings read once with
// their inventory to find each Sku's listing, each listing's inventory read and sent back whole
// with updateListingInventory; then whole cycles through the Worker: PUT /v1/{token}/Inventory,
// a cycle, the values on Etsy, an unknown Sku reported, throttling and nonsense survived.
import { afterEach, describe, expect, it, vi } from "vitest";
import { MarketplaceError, type ListingUpdate, type SecretSealer } from "../../../src/marketplaces/connector";
import { createEtsyConnector } from "../../../src/marketplaces/etsy/etsy.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { decryptJson, encryptJson } from "../../../src/lib/crypto";
import {
  createEtsyFake,
  ETSY_FAKE_KEYSTRING,
  ETSY_FAKE_REFRESH_TOKEN,
  ETSY_FAKE_SHARED_SECRET,
  ETSY_FAKE_SHOP_ID,
  type EtsyFake,
  type EtsyFakeOptions,
} from "./etsy-fake";
import type { SampleListing } from "./etsy-listings-fake";
import { StreamedBody } from "../fake-kit/faults";
import { storeWithToken } from "../../helpers/api";
import { createSource, cycleAt } from "../../helpers/sync";
import { listings, putInventory, putStock } from "../../stock/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const START = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
const KEY = btoa("etsy-listings-test-key-32-bytes!");
const SEALER: SecretSealer = { seal: (v) => encryptJson(KEY, v), open: (s) => decryptJson<string>(KEY, s) };
const SETTINGS = { keystring: ETSY_FAKE_KEYSTRING, sharedSecret: ETSY_FAKE_SHARED_SECRET, refreshToken: ETSY_FAKE_REFRESH_TOKEN, shopId: ETSY_FAKE_SHOP_ID };

/** A mug on its own, and a tee in two sizes whose quantity and SKU vary by size, one price for both. */
const MUG: SampleListing = { listingId: 1_100_000_001, products: [{ sku: "MUG", quantity: 5, price: 1200 }] };
const TEE: SampleListing = {
  listingId: 1_100_000_002,
  quantityOnProperty: [100],
  skuOnProperty: [100],
  products: [
    { sku: "TEE-S", quantity: 3, price: 2000, property: { propertyId: 100, name: "Size", valueId: 7001, value: "Small" } },
    { sku: "TEE-M", quantity: 4, price: 2000, property: { propertyId: 100, name: "Size", valueId: 7002, value: "Medium" } },
  ],
};
const SOLD_OUT: SampleListing = { listingId: 1_100_000_003, state: "sold_out", products: [{ sku: "CAP", quantity: 0, price: 900 }] };

/** `wrap` stands between the connector and the fake (a failure of one listing's call). */
function setup(opts: EtsyFakeOptions = {}, wrap: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch = (f) => f) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createEtsyFake({ now, listings: [MUG, TEE, SOLD_OUT], ...opts });
  const storage = memoryStorage();
  /** The connector one cycle builds (the same storage across cycles). */
  const make = () =>
    createEtsyConnector({ sourceId: "source-1", settings: SETTINGS, fetch: wrap(fake.fetch), now, secrets: SEALER }, storage, {
      sleep: async (ms) => {
        clock.ms += ms;
      },
    }).listings!;
  return { fake, make, push: make(), clock };
}

const update = (sku: string, quantity: number | null, price: number | null, currency = "USD"): ListingUpdate => ({ sku, quantity, price, currency });
const callsOf = (fake: EtsyFake, operationId: string) => fake.requestsOf("api").filter((r) => r.operationId === operationId);
const apiCalls = (fake: EtsyFake) => fake.requestsOf("api").map((r) => `${r.method} ${r.path}${r.rawQuery}`);

describe("Etsy stock and price", () => {
  it(
    "finds each Sku's listing through the shop's listings with their inventory, then reads each listing and sends it back whole with only the changed " +
      "offerings",
    async () => {
      const { fake, push } = setup();
      expect(push.batchSize).toBe(25);
      const outcomes = await push.push([update("MUG", 7, 19.99), update("TEE-S", 9, null), update("CAP", 2, null)]);
      expect(fake.violations).toEqual([]);
      expect(Object.fromEntries(outcomes)).toEqual({ MUG: { state: "accepted" }, "TEE-S": { state: "accepted" }, CAP: { state: "accepted" } });
      const shop = "/v3/application/shops/31415926/listings";
      expect(apiCalls(fake)).toEqual([
        `GET ${shop}?state=active&includes=Inventory&limit=100&offset=0`,
        `GET ${shop}?state=inactive&includes=Inventory&limit=100&offset=0`,
        `GET ${shop}?state=sold_out&includes=Inventory&limit=100&offset=0`,
        `GET ${shop}?state=draft&includes=Inventory&limit=100&offset=0`,
        "GET /v3/application/listings/1100000001/inventory",
        "PUT /v3/application/listings/1100000001/inventory",
        "GET /v3/application/listings/1100000002/inventory",
        "PUT /v3/application/listings/1100000002/inventory",
        "GET /v3/application/listings/1100000003/inventory",
        "PUT /v3/application/listings/1100000003/inventory",
      ]);
      const [mugPut, teePut] = callsOf(fake, "updateListingInventory");
      expect(mugPut!.headers["content-type"]).toBe("application/json");
      expect(mugPut!.headers["x-api-key"]).toBe(`${ETSY_FAKE_KEYSTRING}:${ETSY_FAKE_SHARED_SECRET}`);
      expect(mugPut!.headers.authorization).toMatch(/^Bearer fake-access-/);
      // Price as Etsy's float, no read-only field (product_id, offering_id, is_deleted) sent back.
      expect(mugPut!.body).toEqual({
        products: [{ sku: "MUG", property_values: [], offerings: [{ price: 19.99, quantity: 7, is_enabled: true }] }],
        price_on_property: [],
        quantity_on_property: [],
        sku_on_property: [],
      });
      // The tee's Medium goes back as it was, with its size, beside the new Small quantity.
      expect(teePut!.body).toEqual({
        products: [
          {
            sku: "TEE-S",
            property_values: [{ property_id: 100, value_ids: [7001], scale_id: null, property_name: "Size", values: ["Small"] }],
            offerings: [{ price: 20, quantity: 9, is_enabled: true }],
          },
          {
            sku: "TEE-M",
            property_values: [{ property_id: 100, value_ids: [7002], scale_id: null, property_name: "Size", values: ["Medium"] }],
            offerings: [{ price: 20, quantity: 4, is_enabled: true }],
          },
        ],
        price_on_property: [],
        quantity_on_property: [100],
        sku_on_property: [100],
      });
      expect(fake.offeringsOf("MUG")).toEqual([{ listingId: 1_100_000_001, quantity: 7, price: 1999, currency: "USD" }]);
      expect(fake.offeringsOf("TEE-S")).toEqual([{ listingId: 1_100_000_002, quantity: 9, price: 2000, currency: "USD" }]);
      expect(fake.offeringsOf("TEE-M")).toEqual([{ listingId: 1_100_000_002, quantity: 4, price: 2000, currency: "USD" }]);
      expect(fake.offeringsOf("CAP")).toEqual([{ listingId: 1_100_000_003, quantity: 2, price: 900, currency: "USD" }]);
    },
  );

  it(
    "refuses what Etsy would refuse before sending it: one Sku's price on a listing with one price for all, a price in another currency; the rest " + "goes",
    async () => {
      const { fake, push } = setup({ listings: [TEE, { listingId: 1_100_000_009, currency: "EUR", products: [{ sku: "VASE", quantity: 1, price: 3000 }] }] });
      const outcomes = await push.push([update("TEE-M", 6, 25), update("VASE", 2, 31), update("TEE-S", null, 20)]);
      expect(fake.violations).toEqual([]);
      expect(outcomes.get("TEE-M")).toEqual({
        state: "refused",
        message:
          "Etsy listing 1100000002 has one price for all its products (price_on_property is empty) and they have other SKUs than TEE-M: make the price vary " +
          "by property on Etsy",
        quantityAccepted: true,
        priceAccepted: false,
      });
      expect(outcomes.get("VASE")).toEqual({
        state: "refused",
        message: "Etsy listing 1100000009 is priced in EUR, the product in USD: the price is not sent",
        quantityAccepted: true,
        priceAccepted: false,
      });
      // The price both sizes already have changes nothing Etsy could refuse: taken.
      expect(outcomes.get("TEE-S")).toEqual({ state: "accepted" });
      expect(fake.offeringsOf("TEE-M")).toEqual([{ listingId: 1_100_000_002, quantity: 6, price: 2000, currency: "USD" }]);
      expect(fake.offeringsOf("VASE")).toEqual([{ listingId: 1_100_000_009, quantity: 2, price: 3000, currency: "EUR" }]);
    },
  );

  it("keeps each Sku's listing across cycles, reads the shop again when a Sku moved, and reports a Sku no listing has", async () => {
    const { fake, make } = setup();
    await make().push([update("MUG", 6, null)]);
    expect(callsOf(fake, "getListingsByShop")).toHaveLength(4);

    // The next cycle knows where MUG is: two calls, no shop read.
    const before = fake.requestsOf("api").length;
    expect(Object.fromEntries(await make().push([update("MUG", 5, null)]))).toEqual({ MUG: { state: "accepted" } });
    expect(
      fake
        .requestsOf("api")
        .slice(before)
        .map((r) => r.operationId),
    ).toEqual(["getListingInventory", "updateListingInventory"]);

    // The seller moved MUG to a new listing: the old one no longer has it, the shop is read again.
    fake.listing(MUG.listingId)!.inventory.products![0]!.sku = "MUG-OLD";
    fake.addListing({ listingId: 1_100_000_004, products: [{ sku: "MUG", quantity: 1, price: 1200 }] });
    const moved = await make().push([update("MUG", 4, null), update("GHOST", 1, null)]);
    expect(fake.violations).toEqual([]);
    expect(moved.get("MUG")).toEqual({ state: "accepted" });
    expect(moved.get("GHOST")).toEqual({
      state: "unknownSku",
      message: "No listing of Etsy shop 31415926 (states active, inactive, sold_out, draft) has a product with SKU GHOST",
    });
    expect(callsOf(fake, "getListingsByShop")).toHaveLength(8);
    expect(fake.offeringsOf("MUG")).toEqual([{ listingId: 1_100_000_004, quantity: 4, price: 1200, currency: "USD" }]);
    expect(fake.offeringsOf("MUG-OLD")).toEqual([{ listingId: 1_100_000_001, quantity: 5, price: 1200, currency: "USD" }]);
  });

  it(
    "keeps what Etsy took when a later call fails: a 5xx stops the push, the rest is retried; a throttled first call fails the whole push with its " + "wait",
    async () => {
      const first = setup();
      first.fake.failNext({ status: 503, operation: "updateListingInventory", body: { error: "Service Unavailable" } });
      const thrown = await first.push.push([update("MUG", 1, null)]).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(MarketplaceError);
      expect((thrown as MarketplaceError).retryable).toBe(true);
      expect((thrown as MarketplaceError).message).toContain("Service Unavailable");

      const { fake, push } = setup();
      fake.failNext({ status: 429, operation: "getListingInventory", headers: { "retry-after": "120" }, body: { error: "Exceeded per second rate limit" } });
      const throttled = await push.push([update("MUG", 1, null)]).catch((e: unknown) => e);
      expect(throttled).toBeInstanceOf(MarketplaceError);
      expect((throttled as MarketplaceError).status).toBe(429);
      expect((throttled as MarketplaceError).retryAfterMs).toBe(120_000);
      expect(callsOf(fake, "updateListingInventory")).toHaveLength(0);

      // The mug is taken, the tee's replacement fails: the mug stays accepted, the tee waits.
      const teePath = "/v3/application/listings/1100000002/inventory";
      const failing = setup(
        {},
        (f) => async (input, init) =>
          init?.method === "PUT" && new URL(String(input)).pathname === teePath
            ? new Response(JSON.stringify({ error: "Internal error" }), { status: 500 })
            : f(input, init),
      );
      const outcomes = await failing.push.push([update("MUG", 8, null), update("TEE-S", 2, null), update("CAP", 1, null)]);
      expect(outcomes.get("MUG")).toEqual({ state: "accepted" });
      expect(outcomes.get("TEE-S")).toMatchObject({ state: "retry", message: "Etsy 500 on updateListingInventory: Internal error" });
      expect((outcomes.get("TEE-S") as { error?: MarketplaceError }).error).toBeInstanceOf(MarketplaceError);
      // The push stopped there: the cap was not asked about, and waits too.
      expect(outcomes.get("CAP")).toMatchObject({ state: "retry", message: "Etsy 500 on updateListingInventory: Internal error" });
      expect(callsOf(failing.fake, "getListingInventory").map((r) => r.path)).toEqual(["/v3/application/listings/1100000001/inventory", teePath]);
      expect(failing.fake.offeringsOf("MUG")[0]!.quantity).toBe(8);
      expect(failing.fake.offeringsOf("TEE-S")[0]!.quantity).toBe(3);
      expect([...fake.violations, ...failing.fake.violations]).toEqual([]);
    },
  );

  it("sets aside a nonsense answer for that listing only, and reports Etsy's refusal of a listing or a value in Etsy's words", async () => {
    const { fake, push } = setup();
    fake.failNext({ status: 200, operation: "getListingInventory", body: new StreamedBody(64, "<html>maintenance") });
    fake.failNext({ status: 200, operation: "getListingInventory", body: { products: "none" } });
    const outcomes = await push.push([update("MUG", 2, null), update("TEE-S", 1, null), update("CAP", 3, null)]);
    expect(outcomes.get("MUG")).toEqual({ state: "retry", message: "Etsy getListingInventory answer: the 200 answer is not JSON; nothing was sent" });
    expect(outcomes.get("TEE-S")).toEqual({ state: "retry", message: "Etsy listing 1100000002: the inventory has no products list; nothing was sent" });
    expect(outcomes.get("CAP")).toEqual({ state: "accepted" });
    expect(callsOf(fake, "updateListingInventory").map((r) => r.path)).toEqual(["/v3/application/listings/1100000003/inventory"]);

    fake.failNext({ status: 422, operation: "getListingInventory", body: { error: "Listing is not editable" } });
    const refusedRead = await push.push([update("TEE-S", 1, null), update("CAP", 4, null)]);
    expect(refusedRead.get("TEE-S")).toEqual({
      state: "refused",
      message: "Etsy 422 on getListingInventory: Listing is not editable",
      quantityAccepted: false,
      priceAccepted: false,
    });
    expect(refusedRead.get("CAP")).toEqual({ state: "accepted" });

    fake.failNext({ status: 200, operation: "updateListingInventory", body: "[]" });
    fake.failNext({ status: 400, operation: "updateListingInventory", body: { error: "Quantity must be at most 999" } });
    const next = await push.push([update("MUG", 2, null), update("CAP", 5000, null)]);
    expect(next.get("MUG")).toEqual({
      state: "retry",
      message: "Etsy's answer to updateListingInventory for listing 1100000001 is no listing inventory; sent again later",
    });
    expect(next.get("CAP")).toEqual({
      state: "refused",
      message: "Etsy 400 on updateListingInventory: Quantity must be at most 999",
      quantityAccepted: false,
      priceAccepted: false,
    });
    expect(fake.violations).toEqual([]);
  });

  it("leaves the day's last 100 calls to shipments: the push stops and its stage waits an hour", async () => {
    const { fake, push } = setup({ perDay: 104 });
    const error = await push.push([update("MUG", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).message).toBe(
      "Etsy has 100 calls left today for this app (x-remaining-today); the stock push stops while 100 or fewer are left, for deliveries",
    );
    expect((error as MarketplaceError).retryAfterMs).toBe(3_600_000);
    // The shop was read (four calls); the listing was neither read nor replaced.
    expect(apiCalls(fake)).toHaveLength(4);
    expect(fake.throttled()).toBe(0);
  });

  it("a seller whose consent lacks listings_w gets Etsy's 403 with what to do, and nothing is changed", async () => {
    const { fake, push } = setup({ consentedScopes: ["transactions_r", "transactions_w", "listings_r"] });
    const error = await push.push([update("MUG", 1, null)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceError);
    expect((error as MarketplaceError).message).toBe(
      "Etsy 403 on updateListingInventory: insufficient_scope: this token does not have the scope listings_w (the seller's consent must include the scopes " +
        "listings_r and listings_w for stock and price: see the Etsy source README)",
    );
    expect(fake.offeringsOf("MUG")[0]!.quantity).toBe(5);
  });

  it("the fake refuses a body Etsy's description refuses: read-only fields, a product left out, values that break *_on_property", async () => {
    const { fake, push } = setup();
    await push.push([update("MUG", 5, null)]); // a token, and the index
    const token = callsOf(fake, "updateListingInventory")[0]!.headers.authorization!;
    const headers = { "x-api-key": `${ETSY_FAKE_KEYSTRING}:${ETSY_FAKE_SHARED_SECRET}`, Authorization: token, "Content-Type": "application/json" };
    const url = "https://openapi.etsy.com/v3/application/listings/1100000002/inventory";
    const small = {
      sku: "TEE-S",
      property_values: [{ property_id: 100, value_ids: [7001], values: ["Small"] }],
      offerings: [{ price: 20, quantity: 1, is_enabled: true }],
    };
    const medium = {
      sku: "TEE-M",
      property_values: [{ property_id: 100, value_ids: [7002], values: ["Medium"] }],
      offerings: [{ price: 20, quantity: 1, is_enabled: true }],
    };
    const put = (body: unknown, h: Record<string, string> = headers) => fake.fetch(url, { method: "PUT", headers: h, body: JSON.stringify(body) });
    const answers = [
      await put({ products: [{ ...small, product_id: 5 }, medium], quantity_on_property: [100], sku_on_property: [100] }),
      await put({ products: [small], quantity_on_property: [100], sku_on_property: [100] }),
      await put({
        products: [small, { ...medium, offerings: [{ price: 21, quantity: 1, is_enabled: true }] }],
        quantity_on_property: [100],
        sku_on_property: [100],
      }),
      await put({ products: [small, medium] }, { ...headers, "Content-Type": "application/x-www-form-urlencoded" }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect(fake.violations).toEqual([
      "PUT /v3/application/listings/1100000002/inventory: body.products[0].product_id: not a field of the description",
      "PUT /v3/application/listings/1100000002/inventory: the products sent (TEE-S#100:7001) are not the listing's (TEE-M#100:7002, TEE-S#100:7001): the " +
        "whole products array must be sent",
      "PUT /v3/application/listings/1100000002/inventory: offering prices differ while price_on_property is empty",
      "PUT /v3/application/listings/1100000002/inventory: Content-Type must be application/json, got application/x-www-form-urlencoded",
    ]);
    expect(fake.offeringsOf("TEE-S")[0]!.quantity).toBe(3);
  });
});

describe("an Etsy source's cycle", () => {
  it(
    "sends the seller's new quantity and price to Etsy in the next cycle, reports an unknown Sku, waits out throttling, survives nonsense, loses " + "nothing",
    async () => {
      // The fake's clock runs `ahead` of the machine's, so a later cycle can be "minutes later".
      let ahead = 0;
      const at = () => Date.now() + ahead;
      const fake = createEtsyFake({ now: () => new Date(at()), listings: [MUG, TEE] });
      vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
      const { storeId, token } = await storeWithToken();
      await putStock(storeId, [
        { Sku: "MUG", Quantity: 5, Price: 12 },
        { Sku: "TEE-S", Quantity: 3, Price: 20 },
        { Sku: "GHOST", Quantity: 1, Price: 5 },
      ]);
      const sourceId = await createSource(storeId, { Type: "etsy", Name: "Etsy Shop", Settings: SETTINGS });
      expect((await listings(storeId, sourceId)).Push).toBe("Enabled");

      // The seller's system sets new values; the next cycle sends them.
      const put = await putInventory(token, [
        { Sku: "MUG", Quantity: 9, Price: 14.5 },
        { Sku: "TEE-S", Quantity: 2 },
      ]);
      expect(put.status, put.text).toBe(200);
      const first = await cycleAt(sourceId, at());
      expect(first.listingsAccepted).toBe(2);
      expect(fake.offeringsOf("MUG")).toEqual([{ listingId: 1_100_000_001, quantity: 9, price: 1450, currency: "USD" }]);
      expect(fake.offeringsOf("TEE-S")).toEqual([{ listingId: 1_100_000_002, quantity: 2, price: 2000, currency: "USD" }]);
      expect(fake.offeringsOf("TEE-M")).toEqual([{ listingId: 1_100_000_002, quantity: 4, price: 2000, currency: "USD" }]);
      let shown = await listings(storeId, sourceId);
      expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 2, UnknownSku: 1, Refused: 0 });
      const ghost = shown.Listings.find((l) => l.Sku === "GHOST")!;
      expect(ghost.Status).toBe("unknownSku");
      expect(ghost.LastError).toBe("No listing of Etsy shop 31415926 (states active, inactive, sold_out, draft) has a product with SKU GHOST");
      expect(shown.Listings.find((l) => l.Sku === "MUG")).toMatchObject({ AcceptedQuantity: 9, AcceptedPrice: 14.5 });

      // Nothing changed: the next cycle sends nothing, the unknown Sku is not asked about again.
      const calls = fake.requestsOf("api").filter((r) => r.operationId !== "getShopReceipts").length;
      ahead += 15 * MINUTE;
      await cycleAt(sourceId, at());
      expect(fake.requestsOf("api").filter((r) => r.operationId !== "getShopReceipts")).toHaveLength(calls);

      // Etsy throttles the replacement for ten minutes: the Sku stays pending, the listings wait.
      await putInventory(token, [{ Sku: "MUG", Quantity: 8 }]);
      fake.failNext({ status: 429, operation: "updateListingInventory", headers: { "retry-after": "600" }, body: { error: "Exceeded per second rate limit" } });
      ahead += 15 * MINUTE;
      const throttled = await cycleAt(sourceId, at());
      expect(throttled.error).toContain("Exceeded per second rate limit");
      shown = await listings(storeId, sourceId, "?sku=MUG");
      expect(shown.Listings[0]).toMatchObject({ Status: "pending", PendingQuantity: 8, AcceptedQuantity: 9, Attempts: 1 });
      ahead += 5 * MINUTE;
      const paused = await cycleAt(sourceId, at());
      expect(paused.error).toContain("listings: the marketplace asked to wait");
      expect(fake.offeringsOf("MUG")[0]!.quantity).toBe(9);
      ahead += 10 * MINUTE;
      await cycleAt(sourceId, at());
      expect(fake.offeringsOf("MUG")[0]!.quantity).toBe(8);

      // A nonsense answer to the read: nothing is sent on it, the next try (5 minutes on) goes.
      await putInventory(token, [{ Sku: "TEE-S", Quantity: 7 }]);
      fake.failNext({ status: 200, operation: "getListingInventory", body: new StreamedBody(64, "<html>oops") });
      ahead += 15 * MINUTE;
      const nonsense = await cycleAt(sourceId, at());
      expect(nonsense.error).toBeNull();
      shown = await listings(storeId, sourceId, "?sku=TEE-S");
      expect(shown.Listings[0]).toMatchObject({
        Status: "pending",
        LastError: "Etsy getListingInventory answer: the 200 answer is not JSON; nothing was sent",
        Attempts: 1,
      });
      ahead += 15 * MINUTE;
      await cycleAt(sourceId, at());
      expect(fake.offeringsOf("TEE-S")[0]!.quantity).toBe(7);
      expect(fake.offeringsOf("TEE-M")[0]!.quantity).toBe(4);

      shown = await listings(storeId, sourceId);
      expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 2, UnknownSku: 1, Refused: 0 });
      expect(fake.violations).toEqual([]);
    },
  );
});
