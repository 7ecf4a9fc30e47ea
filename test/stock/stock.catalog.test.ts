// Quantity in the catalog and PUT /v1/{token}/Inventory (decisions 11).
import { describe, expect, it } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { putCsv } from "../feeds/feeds-helpers";
import { putInventory, putStock, quantityOf } from "./helpers";

describe("Quantity in the catalog", () => {
  it("takes Quantity from a JSON import and shows it on the product; absent means not tracked", async () => {
    const { storeId } = await storeWithToken();
    await putStock(storeId, [{ Sku: "MUG", Quantity: 12 }, { Sku: "CAP" }]);
    const res = await admin("GET", `/stores/${storeId}/products/MUG`);
    expect(res.status).toBe(200);
    expect(res.json.Product).toMatchObject({ Sku: "MUG", Quantity: 12, Price: 10 });
    expect(await quantityOf(storeId, "CAP")).toBeNull();
    expect((await admin("GET", `/stores/${storeId}/products/NOPE`)).status).toBe(404);
  });

  it("takes a Quantity column from a CSV import, in any spelling of the header", async () => {
    const { storeId } = await storeWithToken();
    const res = await putCsv(storeId, "sku,title,quantity\nA,Mug,3\nB,Cap,0\nC,Hat,\n");
    expect(res.status, res.text).toBe(200);
    expect(res.json.RowsUpserted).toBe(3);
    expect(await quantityOf(storeId, "A")).toBe(3);
    expect(await quantityOf(storeId, "B")).toBe(0);
    expect(await quantityOf(storeId, "C")).toBeNull();
  });

  it("refuses a Quantity that is not a whole number from 0, naming the row", async () => {
    const { storeId } = await storeWithToken();
    const res = await admin("PUT", `/stores/${storeId}/products`, {
      Products: [
        { Sku: "A", Quantity: -1 },
        { Sku: "B", Quantity: 1.5 },
        { Sku: "C", Quantity: "7 units" },
        { Sku: "D", Quantity: "7" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json.RowsUpserted).toBe(1);
    const rejections = res.json.Rejections as { Row: number; Message: string }[];
    expect(rejections.map((r) => r.Row)).toEqual([1, 2, 3]);
    for (const r of rejections) expect(r.Message).toContain("Quantity");
    expect(await quantityOf(storeId, "D")).toBe(7);
  });

  it("keeps the stock when a later import has no Quantity, and sets it when it has one", async () => {
    const { storeId } = await storeWithToken();
    await putStock(storeId, [{ Sku: "A", Quantity: 5 }]);
    await putStock(storeId, [{ Sku: "A", Title: "Renamed" }]);
    expect(await quantityOf(storeId, "A")).toBe(5);
    await putStock(storeId, [{ Sku: "A", Quantity: 2 }]);
    expect(await quantityOf(storeId, "A")).toBe(2);
  });
});

describe("PUT /v1/{token}/Inventory", () => {
  it("sets Quantity and Price of known Skus and reports unknown ones by position; the rest is applied", async () => {
    const { storeId, token } = await storeWithToken({ scopes: ["InventoryUpdate"] });
    await putStock(storeId, [{ Sku: "A", Quantity: 1 }, { Sku: "B" }, { Sku: "C", Quantity: 4, Price: 3 }]);
    const res = await putInventory(token, [
      { Sku: "A", Quantity: 9 },
      { Sku: "GHOST", Quantity: 1 },
      { Sku: "B", Quantity: 0, Price: 7.5 },
      { Sku: "C", Price: 2.25 },
      { Sku: "ALSO-GHOST" },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.json.Success).toBe(true);
    expect(res.json.Updated).toBe(3);
    expect(res.json.UnknownSkus).toEqual([
      { Index: 1, Sku: "GHOST" },
      { Index: 4, Sku: "ALSO-GHOST" },
    ]);
    expect(await quantityOf(storeId, "A")).toBe(9);
    expect(await quantityOf(storeId, "B")).toBe(0);
    const c = (await admin("GET", `/stores/${storeId}/products/C`)).json.Product as { Quantity: number; Price: number };
    expect(c).toMatchObject({ Quantity: 4, Price: 2.25 });
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
  });

  it("takes the last change of a Sku named twice, and Quantity null stops tracking", async () => {
    const { storeId, token } = await storeWithToken({ scopes: ["InventoryUpdate"] });
    await putStock(storeId, [
      { Sku: "A", Quantity: 1 },
      { Sku: "B", Quantity: 1 },
    ]);
    const res = await putInventory(token, [
      { Sku: "A", Quantity: 3 },
      { Sku: "A", Quantity: 8 },
      { Sku: "B", Quantity: null },
    ]);
    expect(res.status).toBe(200);
    expect(res.json.Updated).toBe(2);
    expect(await quantityOf(storeId, "A")).toBe(8);
    expect(await quantityOf(storeId, "B")).toBeNull();
  });

  it("needs the InventoryUpdate scope", async () => {
    const { token } = await storeWithToken({ scopes: ["OrdersRead", "OrdersCreate", "OrdersUpdate", "FeedsRead"] });
    const res = await putInventory(token, [{ Sku: "A", Quantity: 1 }]);
    expect(res.status).toBe(401);
    expect(res.json.Success).toBe(false);
  });

  it("answers 400 naming the field for more than 1,000 items, a negative or fractional Quantity, a missing Sku", async () => {
    const { storeId, token } = await storeWithToken({ scopes: ["InventoryUpdate"] });
    await putStock(storeId, [{ Sku: "A", Quantity: 1 }]);
    const cases: [unknown, string][] = [
      [Array.from({ length: 1001 }, (_, i) => ({ Sku: `S${i}`, Quantity: 1 })), "Items"],
      [[{ Sku: "A", Quantity: -1 }], "Quantity"],
      [[{ Sku: "A", Quantity: 1.5 }], "Quantity"],
      [[{ Quantity: 1 }], "Sku"],
      [[], "Items"],
    ];
    for (const [items, field] of cases) {
      const res = await putInventory(token, items as unknown[]);
      expect(res.status, JSON.stringify(items).slice(0, 80)).toBe(400);
      expect(res.json.Success).toBe(false);
      expect(res.json.Message).toContain(field);
    }
    // Nothing of a refused call is applied.
    expect(await quantityOf(storeId, "A")).toBe(1);
    const ok = await putInventory(
      token,
      Array.from({ length: 1000 }, (_, i) => ({ Sku: i === 0 ? "A" : `S${i}`, Quantity: 2 })),
    );
    expect(ok.status).toBe(200);
    expect((ok.json.UnknownSkus as unknown[]).length).toBe(999);
    expect(await quantityOf(storeId, "A")).toBe(2);
  });

  it("answers 413 for a body over 1 MiB, like every /v1 call", async () => {
    const { token } = await storeWithToken({ scopes: ["InventoryUpdate"] });
    const big = JSON.stringify({ Items: [{ Sku: "A", Quantity: 1, Pad: "x".repeat(1024 * 1024) }] });
    const res = await call("PUT", `/v1/${token}/inventory`, { raw: big, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
  });
});

describe("hostile input", () => {
  it("PUT Inventory and the listings view answer every malformed request with a 4xx naming the field, never a 5xx", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [{ Sku: "A", Quantity: 1 }]);
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "S", Settings: {} });
    const sourcePath = `/stores/${storeId}/sources/${(created.json.Source as { SourceId: string }).SourceId}`;
    const values: unknown[] = [null, true, 42, -1, 1e308, "1", "", "x".repeat(200), "\uD800", [], {}, [1], { Sku: "A" }, "<script>", "__proto__"];
    const failures: string[] = [];
    const bodies: unknown[] = [
      null,
      [],
      "text",
      { Items: null },
      { Items: {} },
      { Items: [null] },
      { Items: [{ Sku: "A", Extra: 1 }] },
      { Items: [{ Sku: "A" }], More: 1 },
    ];
    for (const v of values) {
      bodies.push({ Items: [{ Sku: v, Quantity: 1 }] }, { Items: [{ Sku: "A", Quantity: v }] }, { Items: [{ Sku: "A", Price: v }] }, { Items: v });
    }
    for (const body of bodies) {
      const res = await call("PUT", `/v1/${token}/Inventory`, { body });
      if (
        res.status >= 500 ||
        (res.status !== 200 && !(res.status === 400 && res.json?.Success === false && typeof res.json.Message === "string" && res.json.Message.length > 0))
      ) {
        failures.push(`${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    for (const query of [
      "?status=nope",
      "?limit=0",
      "?limit=1001",
      "?limit=abc",
      "?sku=",
      `?sku=${"x".repeat(101)}`,
      "?after=%00",
      "?sku=%F0%9F%98%80",
      "?status=accepted&limit=1&after=zz",
    ]) {
      const res = await admin("GET", `${sourcePath}/listings${query}`);
      if (res.status >= 500 || (res.status !== 200 && res.status !== 400)) failures.push(`listings${query} -> ${res.status}`);
    }
    expect(failures).toEqual([]);
    expect(await quantityOf(storeId, "A")).toBeGreaterThanOrEqual(0);
  });
});
