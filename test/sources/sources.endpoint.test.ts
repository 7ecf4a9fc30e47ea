// Changing where a source's credentials go (decisions 6): a PATCH of an endpoint setting
// (baseUrl, tokenUrl, shopDomain) without every secret of the source given again is refused with
// 400, so a leaked admin key cannot point stored marketplace credentials at a host of its own.
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, storeWithToken } from "../helpers/api";
import { createSource, cycleAt } from "../helpers/sync";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET } from "../marketplaces/walmart/walmart-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

const walmart = { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET };

describe("an endpoint change without the secrets", () => {
  it("is refused for Walmart's baseUrl, and the next cycle sends nothing to the new host", async () => {
    const fake = createWalmartFake();
    const hosts: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      hosts.push(new URL(new Request(input as RequestInfo, init).url).host);
      return fake.fetch(input as RequestInfo, init);
    });
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: "walmart", Name: "Walmart US", Settings: walmart });
    const path = `/stores/${storeId}/sources/${sourceId}`;

    const refused = await admin("PATCH", path, { Settings: { baseUrl: "https://collector.example" } });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      Success: false,
      Message:
        "Changing 'Settings.baseUrl' points the source's credentials at another host: give every secret setting again in the same request " +
        "('Settings.clientId', 'Settings.clientSecret' missing).",
    });
    // One secret is not enough, and the mask an answer shows is no secret.
    const partial = await admin("PATCH", path, { Settings: { baseUrl: "https://collector.example", clientSecret: "x", clientId: "********" } });
    expect(partial.status).toBe(400);
    expect(partial.json.Message).toMatch(/'Settings\.clientId' missing/);
    // Removing it (back to the default host) is a change too.
    expect((await admin("PATCH", path, { Settings: { baseUrl: null } })).status).toBe(200);

    await cycleAt(sourceId, Date.now());
    expect(hosts.length).toBeGreaterThan(0);
    expect(hosts.filter((h) => h === "collector.example")).toEqual([]);

    // With the secrets again it is the owner's pairing: taken. Other settings need nothing.
    expect((await admin("PATCH", path, { Settings: { cancellationReason: "SELLER_CANCEL_PRICING_ERROR" } })).status).toBe(200);
    const taken = await admin("PATCH", path, { Settings: { baseUrl: "https://marketplace.walmartapis.com", ...walmart } });
    expect(taken.status).toBe(200);
  });

  it("is refused for Shopify's shopDomain and eBay's tokenUrl too", async () => {
    const { storeId } = await storeWithToken();
    const shopify = await createSource(storeId, {
      Type: "shopify",
      Name: "Shop",
      Settings: { shopDomain: "hub-test.myshopify.com", accessToken: "shpat_fake_admin_token_0123456789" },
    });
    const moved = await admin("PATCH", `/stores/${storeId}/sources/${shopify}`, { Settings: { shopDomain: "other-shop.myshopify.com" } });
    expect(moved.status).toBe(400);
    expect(moved.json.Message).toMatch(/^Changing 'Settings\.shopDomain' .*'Settings\.accessToken' missing/);
    const same = await admin("PATCH", `/stores/${storeId}/sources/${shopify}`, { Settings: { shopDomain: "hub-test.myshopify.com" } });
    expect(same.status).toBe(200);

    const ebay = await createSource(storeId, {
      Type: "ebay",
      Name: "eBay",
      Settings: { clientId: "id", clientSecret: "secret", refreshToken: "refresh", marketplaceId: "EBAY_US" },
    });
    const token = await admin("PATCH", `/stores/${storeId}/sources/${ebay}`, { Settings: { tokenUrl: "https://collector.example/token", clientId: "id" } });
    expect(token.status).toBe(400);
    expect(token.json.Message).toMatch(/'Settings\.clientSecret', 'Settings\.refreshToken' missing/);
  });
});
