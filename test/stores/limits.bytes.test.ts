// A store's stored bytes have a limit like its counts (issue 20): orders with their lines, the
// outbox and products count what they hold, so one key cannot fill the database with a few
// thousand orders of half a megabyte each. The database's triggers keep and enforce it.
import { describe, expect, it } from "vitest";
import { admin, call, sampleOrder, storeWithToken } from "../helpers/api";
import { countRows } from "../helpers/db";

async function usage(storeId: string) {
  const res = await admin("GET", `/stores/${storeId}`);
  return res.json.Store as { Limits: Record<string, number>; Usage: Record<string, number> };
}

/** An order of about `kb` KiB: 100 lines with long names. */
const heavyOrder = (kb: number) =>
  sampleOrder({ OrderItems: Array.from({ length: 100 }, (_, i) => ({ Sku: `SKU-${i}`, Name: "n".repeat(kb * 10), Quantity: 1, UnitPrice: 1 })) });

describe("the StoredBytes limit", () => {
  it("has a default, is shown with what the store holds, and counts an order's lines", async () => {
    const { storeId, token } = await storeWithToken();
    const before = await usage(storeId);
    expect(before.Limits.StoredBytes).toBe(2_000_000_000);
    expect(before.Usage.StoredBytes).toBe(0);
    expect((await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: heavyOrder(20) })).status).toBe(200);
    const after = (await usage(storeId)).Usage.StoredBytes;
    // 100 names of 200 bytes each, plus the order's own fields.
    expect(after).toBeGreaterThan(20_000);
    expect(after).toBeLessThan(30_000);
  });

  it("refuses an order that would pass it with a 400 naming it, storing nothing; products count too; deletes give room back", async () => {
    const { storeId, token } = await storeWithToken();
    expect((await admin("PATCH", `/stores/${storeId}`, { Limits: { StoredBytes: 60_000 } })).status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: heavyOrder(20) })).status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: heavyOrder(20) })).status).toBe(200);
    const over = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: heavyOrder(20) });
    expect(over.status).toBe(400);
    expect(over.json.Message).toMatch(
      /^Store limit reached: StoredBytes\. This store already holds its limit of 60000 bytes of stored data, so nothing of this request was stored/,
    );
    expect(await countRows("orders", storeId)).toBe(2);
    expect(await countRows("order_items", storeId)).toBe(200);

    const big = [1, 2, 3].map((i) => ({ Sku: `BIG-${i}`, Title: "t", Description: "d".repeat(10_000) }));
    const products = await admin("PUT", `/stores/${storeId}/products`, { Products: big });
    expect(products.status).toBe(400);
    expect(products.json.Message).toMatch(/^Store limit reached: StoredBytes\./);
    expect(await countRows("products", storeId)).toBe(0);

    expect((await admin("PATCH", `/stores/${storeId}`, { Limits: { StoredBytes: 1_000_000_000_000 } })).status).toBe(200);
    expect((await admin("PUT", `/stores/${storeId}/products`, { Products: big })).status).toBe(200);
    const held = (await usage(storeId)).Usage.StoredBytes!;
    expect((await admin("DELETE", `/stores/${storeId}/products/BIG-1`)).status).toBe(200);
    expect(held - (await usage(storeId)).Usage.StoredBytes!).toBeGreaterThan(10_000);
  });
});
