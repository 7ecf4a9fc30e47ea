// TikTok Shop stock and price call by call against the fake: each Sku's product and SKU ids found
// with SearchProducts and kept, the warehouses read with InventorySearch, one UpdateInventory and
// one UpdatePrice per product with all of its due SKUs, every warehouse listed; what TikTok or the
// description refuses is refused for that Sku, a throttled call stops the push with what was taken
// kept.
import { describe, expect, it } from "vitest";
import type { ListingUpdate } from "../../../src/marketplaces/connector";
import { rejection } from "../../helpers/rejection";
import type { SampleProduct } from "./tiktok-products-fake";
import { HOUR, setup } from "./tiktok-setup";

const PRODUCTS: SampleProduct[] = [
  {
    id: "1729000000000000001",
    skus: [
      { id: "1730000000000000011", sellerSku: "TEE-S", price: 1999, warehouses: { "7000000000000000001": 5 } },
      { id: "1730000000000000012", sellerSku: "TEE-M", price: 1999, warehouses: { "7000000000000000001": 7 } },
      { id: "1730000000000000013", sellerSku: "TEE-L", price: 1999, warehouses: { "7000000000000000001": 9 } },
    ],
  },
  {
    id: "1729000000000000002",
    skus: [{ id: "1730000000000000021", sellerSku: "MUG", price: 1200, warehouses: { "7000000000000000001": 3, "7000000000000000002": 40 } }],
  },
  {
    id: "1729000000000000003",
    status: "SELLER_DEACTIVATED",
    skus: [{ id: "1730000000000000031", sellerSku: "OLD", price: 500, warehouses: { "7000000000000000001": 1 } }],
  },
];

const update = (sku: string, quantity: number | null, price: number | null, currency = "USD"): ListingUpdate => ({ sku, quantity, price, currency });

function listingsSetup(settings: Record<string, unknown> = {}) {
  const s = setup({ orders: [], fake: { products: structuredClone(PRODUCTS) } });
  return { ...s, listings: s.make(settings).listings! };
}

describe("TikTok Shop stock and price", () => {
  it("sends each product's due SKUs in one inventory and one price call, every warehouse listed, after looking their ids up once", async () => {
    const { fake, listings, make } = listingsSetup();
    const outcomes = await listings.push([update("TEE-S", 11, 21.5), update("TEE-L", 0, null), update("MUG", null, 13)]);
    expect(Object.fromEntries(outcomes)).toEqual({ "TEE-S": { state: "accepted" }, "TEE-L": { state: "accepted" }, MUG: { state: "accepted" } });
    expect(fake.requestsOf("api").map((r) => [r.operationId, r.body])).toEqual([
      ["SearchProducts", { seller_skus: ["TEE-S", "TEE-L", "MUG"] }],
      ["InventorySearch", { sku_ids: ["1730000000000000011", "1730000000000000013"] }],
      [
        "UpdateInventory",
        {
          skus: [
            { id: "1730000000000000011", inventory: [{ warehouse_id: "7000000000000000001", quantity: 11 }] },
            { id: "1730000000000000013", inventory: [{ warehouse_id: "7000000000000000001", quantity: 0 }] },
          ],
        },
      ],
      ["UpdatePrice", { skus: [{ id: "1730000000000000011", price: { amount: "21.5", currency: "USD" } }] }],
      ["UpdatePrice", { skus: [{ id: "1730000000000000021", price: { amount: "13", currency: "USD" } }] }],
    ]);
    expect(fake.requestsOf("api", "UpdateInventory")[0]!.path).toBe("/product/202309/products/1729000000000000001/inventory/update");
    expect([fake.products.sku("TEE-S"), fake.products.sku("MUG")!.price]).toEqual([
      { productId: "1729000000000000001", skuId: "1730000000000000011", price: "21.50", currency: "USD", warehouses: { "7000000000000000001": 11 } },
      "13.00",
    ]);

    // The next cycle goes straight to the product: the ids are kept.
    await make().listings!.push([update("TEE-S", 2, null)]);
    expect(fake.requestsOf("api", "SearchProducts")).toHaveLength(1);
    expect(fake.products.sku("TEE-S")!.warehouses).toEqual({ "7000000000000000001": 2 });
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("sets a SKU stocked in several warehouses only through the Settings' warehouseId, the others sent as TikTok has them", async () => {
    const without = listingsSetup();
    const refused = await without.listings.push([update("MUG", 8, 14)]);
    expect(refused.get("MUG")).toEqual({
      state: "refused",
      message:
        "the SKU is stocked in TikTok warehouses 7000000000000000001, 7000000000000000002: set the source's warehouseId to the one the hub's quantity is for",
      quantityAccepted: false,
      priceAccepted: true,
    });
    expect(without.fake.requestsOf("api", "UpdateInventory")).toHaveLength(0);

    const withIt = listingsSetup({ warehouseId: "7000000000000000002" });
    expect(await withIt.listings.push([update("MUG", 8, null)])).toEqual(new Map([["MUG", { state: "accepted" }]]));
    expect(withIt.fake.requestsOf("api", "UpdateInventory").map((r) => r.body)).toEqual([
      {
        skus: [
          {
            id: "1730000000000000021",
            inventory: [
              { warehouse_id: "7000000000000000001", quantity: 3 },
              { warehouse_id: "7000000000000000002", quantity: 8 },
            ],
          },
        ],
      },
    ]);
    expect(withIt.fake.products.sku("MUG")!.warehouses).toEqual({ "7000000000000000001": 3, "7000000000000000002": 8 });
    expect(withIt.fake.violations).toEqual([]);
  });

  it("reports an unknown SKU, refuses what TikTok or its description would refuse, and keeps the part taken", async () => {
    const { fake, listings, make } = listingsSetup();
    const outcomes = await listings.push([update("NOPE", 1, null), update("OLD", 4, null), update("TEE-S", 100_000, 25), update("TEE-M", 3, 30, "EUR")]);
    expect(Object.fromEntries(outcomes)).toEqual({
      NOPE: { state: "unknownSku", message: "No product of this TikTok shop has a SKU with seller_sku NOPE" },
      OLD: {
        state: "refused",
        message: expect.stringMatching(
          new RegExp(
            "^TikTok 12019006 on UpdateInventory: The product 1729000000000000003 is in status SELLER_DEACTIVATED; " +
              "only ACTIVATE products can be updated\\. \\(request_id \\w+\\)$",
          ),
        ),
        quantityAccepted: false,
        priceAccepted: false,
      },
      "TEE-S": { state: "refused", message: "TikTok takes a quantity of at most 99,999, not 100000", quantityAccepted: false, priceAccepted: true },
      "TEE-M": {
        state: "refused",
        message: "the TikTok SKU is priced in USD, the product in EUR: the price is not sent",
        quantityAccepted: true,
        priceAccepted: false,
      },
    });
    expect(fake.products.sku("TEE-M")!.warehouses).toEqual({ "7000000000000000001": 3 });
    expect(fake.products.sku("TEE-S")!.price).toBe("25.00");

    // TikTok's refusal of a product forgets its SKU's ids: the next push looks it up again.
    fake.products.setStatus("1729000000000000003", "ACTIVATE");
    expect(await make().listings!.push([update("OLD", 4, null)])).toEqual(new Map([["OLD", { state: "accepted" }]]));
    expect(fake.requestsOf("api", "SearchProducts").map((r) => r.body)).toEqual([{ seller_skus: ["NOPE", "OLD", "TEE-S", "TEE-M"] }, { seller_skus: ["OLD"] }]);
    expect(fake.violations).toEqual([]);
  });

  it("refuses the SKUs an UpdateInventory answer lists in errors, with TikTok's words per warehouse", async () => {
    const { fake, listings } = listingsSetup();
    fake.failNext({
      status: 200,
      operation: "UpdateInventory",
      body: {
        code: 0,
        message: "Success",
        data: {
          errors: [
            {
              code: 12019010,
              message: "Inventory update failed.",
              detail: { sku_id: "1730000000000000012", extra_errors: [{ code: 12019011, message: "warehouse missing", warehouse_id: "7000000000000000009" }] },
            },
          ],
        },
      },
    });
    const outcomes = await listings.push([update("TEE-S", 1, null), update("TEE-M", 2, null)]);
    expect(Object.fromEntries(outcomes)).toEqual({
      "TEE-S": { state: "accepted" },
      "TEE-M": {
        state: "refused",
        message: "TikTok 12019010 on UpdateInventory: Inventory update failed. (7000000000000000009: 12019011 warehouse missing)",
        quantityAccepted: false,
        priceAccepted: false,
      },
    });
  });

  it("stops the push on throttling with what TikTok took kept, and fails the whole push when nothing was taken", async () => {
    const { fake, listings } = listingsSetup();
    fake.failNext({ status: 429, operation: "UpdatePrice", headers: { "Retry-After": "20" } });
    const outcomes = await listings.push([update("TEE-S", 4, 22), update("MUG", null, 15)]);
    const tee = outcomes.get("TEE-S")!;
    expect([tee.state, "quantityAccepted" in tee && tee.quantityAccepted, "priceAccepted" in tee && tee.priceAccepted]).toEqual(["retry", true, false]);
    expect(tee.state === "retry" && tee.error?.retryAfterMs).toBe(20_000);
    expect(outcomes.get("MUG")!.state).toBe("retry");
    expect(fake.requestsOf("api", "UpdatePrice")).toHaveLength(1);

    fake.failNext({ status: 503, operation: "InventorySearch" });
    const down = await rejection(listings.push([update("TEE-L", 1, null)]));
    expect([down.retryable, down.message.replace(/ \(request_id \w+\)/, "")]).toEqual([true, "TikTok 36009003 on InventorySearch (HTTP 503): Internal error."]);
  });

  it("looks a SKU's ids up again after a day (a SKU may have moved to another product)", async () => {
    const { fake, listings, make, advance } = listingsSetup();
    await listings.push([update("TEE-S", 1, null)]);
    advance(23 * HOUR);
    await make().listings!.push([update("TEE-S", 2, null)]);
    advance(2 * HOUR);
    await make().listings!.push([update("TEE-S", 3, null)]);
    expect(fake.requestsOf("api", "SearchProducts")).toHaveLength(2);
    expect(fake.products.sku("TEE-S")!.warehouses).toEqual({ "7000000000000000001": 3 });
  });
});
