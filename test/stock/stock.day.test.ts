// A whole day through the Cron Trigger (decisions 11): the seller's system sets the stock with PUT
// Inventory, orders arrive from two marketplaces (Shopify's fake and the simulated one) and lower
// it, each marketplace is sent the new quantity once, and a cancellation gives it back.
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, storeWithToken } from "../helpers/api";
import { createSource, fireCron, listOrders, MINUTE, received, simulatedWindow, type WireOrder } from "../helpers/sync";
import { createShopifyFake, SHOPIFY_FAKE_SHOP, SHOPIFY_FAKE_TOKEN, type ShopifyFake } from "../marketplaces/shopify/shopify-fake";
import { shopifyOrder } from "../marketplaces/shopify/shopify-fixtures";
import { putInventory, putStock, quantities } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

/** What the simulated marketplace sells (src/marketplaces/simulated/simulated.orders.ts). */
const SKUS = [
  "MUG-BLU-12",
  "TEE-BLK-M",
  "BTL-STL-750",
  "LMP-DSK-LED",
  "BAG-CNV-TOTE",
  "NTB-A5-DOT",
  "CBL-USBC-2M",
  "SCK-WOOL-L",
  "CND-SOY-LAV",
  "PLN-CER-S",
  "HDP-BT-NC",
  "KTL-ELC-1L",
];
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Every quantity each marketplace was sent, per Sku, in order. */
async function sentQuantities(fake: ShopifyFake, storeId: string, simulatedId: string) {
  const shopify: Record<string, number[]> = {};
  const itemSku = new Map(SKUS.map((sku, i) => [`gid://shopify/InventoryItem/${7000 + i}`, sku]));
  for (const c of fake.callsOf("inventorySetQuantities")) {
    for (const q of (c.variables.stock as { quantities: { inventoryItemId: string; quantity: number }[] }).quantities) {
      (shopify[itemSku.get(q.inventoryItemId)!] ??= []).push(q.quantity);
    }
  }
  const simulated: Record<string, number[]> = {};
  for (const r of (await received(storeId, simulatedId)).filter((r) => r.Operation === "pushListings")) {
    for (const item of r.Body.items as { sku: string; quantity: number | null }[]) if (item.quantity !== null) (simulated[item.sku] ??= []).push(item.quantity);
  }
  return { shopify, simulated };
}

function unitsBySku(orders: WireOrder[]): Record<string, number> {
  const units: Record<string, number> = {};
  for (const o of orders) for (const i of o.OrderItems) units[i.Sku] = (units[i.Sku] ?? 0) + i.Quantity;
  return units;
}

describe("one stock across two marketplaces, through the cron", () => {
  it("sets, lowers, sends each new quantity once to each marketplace, and gives a cancellation back", async () => {
    const t0 = Date.now() - 30 * MINUTE;
    const shopifyOrders = [
      shopifyOrder({
        n: 1,
        createdAt: iso(t0),
        updatedAt: iso(t0 + MINUTE),
        lines: [
          { sku: "MUG-BLU-12", name: "Mug", quantity: 2, price: "12.50" },
          { sku: "TEE-BLK-M", name: "Tee", quantity: 1, price: "19.99" },
        ],
      }),
      shopifyOrder({
        n: 2,
        createdAt: iso(t0),
        updatedAt: iso(t0 + 2 * MINUTE),
        lines: [{ sku: "HDP-BT-NC", name: "Headphones", quantity: 1, price: "89.99" }],
      }),
    ];
    const fake = createShopifyFake({
      orders: shopifyOrders,
      listings: { variants: SKUS.map((sku, i) => ({ sku, id: 5000 + i, productId: 6000 + i, inventoryItemId: 7000 + i, price: "1.00", available: { 1: 0 } })) },
    });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();

    // Morning: the catalog, then the seller's system sets the stock.
    await putStock(
      storeId,
      SKUS.map((Sku) => ({ Sku, Price: 10 })),
    );
    const set = await putInventory(
      token,
      SKUS.map((Sku) => ({ Sku, Quantity: 40 })),
    );
    expect(set.status).toBe(200);
    expect(set.json.Updated).toBe(12);

    await createSource(storeId, { Type: "shopify", Name: "Shopify", Settings: { shopDomain: SHOPIFY_FAKE_SHOP, accessToken: SHOPIFY_FAKE_TOKEN } });
    const simulatedId = await createSource(storeId, { Name: "Simulated", Settings: simulatedWindow(6) });

    // Two cycles: each imports its orders; the second tells each marketplace what the other sold.
    await fireCron();
    await fireCron(Date.now() + 15 * MINUTE);
    const orders = await listOrders(token);
    expect(orders.filter((o) => o.OrderSource === "Shopify")).toHaveLength(2);
    expect(orders.filter((o) => o.OrderSource === "Simulated")).toHaveLength(6);
    const units = unitsBySku(orders);
    const expected = Object.fromEntries(SKUS.map((sku) => [sku, 40 - (units[sku] ?? 0)]));
    expect(await quantities(storeId, SKUS)).toEqual(expected);

    let sent = await sentQuantities(fake, storeId, simulatedId);
    for (const sku of SKUS) {
      for (const marketplace of ["shopify", "simulated"] as const) {
        const values = sent[marketplace][sku] ?? [];
        // The last value each marketplace was sent is the stock, and no value was sent twice.
        expect(values.at(-1), `${marketplace} ${sku}`).toBe(expected[sku]);
        expect(new Set(values).size, `${marketplace} ${sku}: ${values.join(",")}`).toBe(values.length);
      }
      expect(fake.variant(sku)!.available).toEqual({ 1: expected[sku] });
    }
    expect(fake.violations).toEqual([]);
    const before = JSON.stringify(sent);

    // A quiet cycle: nothing changed, nothing is sent.
    await fireCron(Date.now() + 30 * MINUTE);
    expect(JSON.stringify(await sentQuantities(fake, storeId, simulatedId))).toBe(before);

    // Afternoon: the seller cancels Shopify's headphones order; both marketplaces get one back, once.
    const headphones = orders.find((o) => o.OrderSourceOrderNumber === "5000000002")!;
    expect((await call("PUT", `/v1/${token}/Orders/${headphones.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    expect((await quantities(storeId, ["HDP-BT-NC"]))["HDP-BT-NC"]).toBe(expected["HDP-BT-NC"]! + 1);
    await fireCron(Date.now() + 45 * MINUTE);
    sent = await sentQuantities(fake, storeId, simulatedId);
    const previous = JSON.parse(before) as typeof sent;
    for (const marketplace of ["shopify", "simulated"] as const) {
      for (const sku of SKUS) {
        const added = (sent[marketplace][sku] ?? []).slice((previous[marketplace][sku] ?? []).length);
        expect(added, `${marketplace} ${sku}`).toEqual(sku === "HDP-BT-NC" ? [expected[sku]! + 1] : []);
      }
    }
    expect(fake.variant("HDP-BT-NC")!.available).toEqual({ 1: expected["HDP-BT-NC"]! + 1 });
    expect(fake.violations).toEqual([]);
  });
});
