// The console's Catalog tab (issue 22: Quantity in the operator's views) through whole requests in
// workerd: the products table shows the Quantity the admin API reports after PUT
// /v1/{token}/Inventory (blank when not tracked), pages by Next, looks a product up by Sku, and
// shows the API's refusals where they belong. The HTML is read with workerd's own HTMLRewriter
// (./helpers.ts), never with the console's code.
import { describe, expect, it } from "vitest";
import { admin, createKey, createStore, tokenFor } from "../helpers/api";
import { putInventory, putStock } from "../stock/helpers";
import { collect, definitionLists, send, signIn, tableRows } from "./helpers";

/** Price with its currency and two decimals, in one column (issue 34). */
const HEADERS = ["Sku", "Title", "Price", "Quantity", "Availability"];

describe("console: the Catalog tab", () => {
  it("shows each product's Quantity as the admin API reports it after PUT Inventory, blank when not tracked", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console catalog");
    const other = await createStore("Console catalog other");
    await putStock(storeId, [
      { Sku: "MUG", Title: "Mug", Quantity: 3, Price: 12.5, Currency: "EUR", Availability: "in stock" },
      { Sku: "CAP", Title: "Cap", Quantity: 9 },
      { Sku: "HAT", Title: "Hat" },
    ]);
    await putStock(other, [{ Sku: "ELSEWHERE", Quantity: 1 }]);
    const token = await tokenFor((await createKey(storeId, { scopes: ["InventoryUpdate"] })).Key);
    const inventory = await putInventory(token, [
      { Sku: "MUG", Quantity: 17, Price: 11 },
      { Sku: "CAP", Quantity: 0 },
    ]);
    expect(inventory.status, inventory.text).toBe(200);

    const page = await send("GET", `/console/stores/${storeId}/catalog`, { cookie });
    expect(page.status).toBe(200);
    expect(await collect(page.text, "table#products caption")).toEqual(["Products"]);
    expect(await collect(page.text, "table#products thead th")).toEqual(HEADERS);
    expect(await collect(page.text, "table#products thead th", "scope")).toEqual(HEADERS.map(() => "col"));
    const rows = await tableRows(page.text, "table#products");
    expect(rows).toEqual([
      ["CAP", "Cap", "10.00", "0", "—"],
      ["HAT", "Hat", "10.00", "", "—"],
      ["MUG", "Mug", "11.00 EUR", "17", "in stock"],
    ]);

    // The same Skus and Quantities as the admin API's list answers.
    const api = await admin("GET", `/stores/${storeId}/products`);
    const listed = api.json.Products as { Sku: string; Quantity: number | null }[];
    expect(rows.map((r) => [r[0], r[3]])).toEqual(listed.map((p) => [p.Sku, p.Quantity === null ? "" : String(p.Quantity)]));

    // The tab is the current one, and says how many products there are.
    expect(await collect(page.text, 'nav[aria-label="Store"] a[aria-current="page"]')).toEqual(["Catalog"]);
    expect((await collect(page.text, "#catalog-count"))[0]).toMatch(/^3 products\./);
    // No pages to go to.
    expect(await collect(page.text, 'nav[aria-label="Product pages"] a')).toEqual([]);
  });

  it("pages by Next and back to the first products", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console catalog pages");
    const skus = Array.from({ length: 103 }, (_, i) => `P${String(i + 1).padStart(3, "0")}`);
    await putStock(
      storeId,
      skus.map((Sku, i) => ({ Sku, Quantity: i })),
    );

    const first = await send("GET", `/console/stores/${storeId}/catalog`, { cookie });
    const firstRows = await tableRows(first.text, "table#products");
    expect(firstRows).toHaveLength(100);
    expect(firstRows.map((r) => r[0])).toEqual(skus.slice(0, 100));
    expect(firstRows[99]![3]).toBe("99");
    expect(await collect(first.text, 'nav[aria-label="Product pages"] a')).toEqual(["Next products"]);
    const next = (await collect(first.text, 'nav[aria-label="Product pages"] a', "href"))[0]!;
    expect(new URL(next, "https://hub.test").searchParams.get("afterSku")).toBe("P100");

    const second = await send("GET", next.replace(/#.*$/, ""), { cookie });
    expect(second.status).toBe(200);
    expect(await tableRows(second.text, "table#products")).toEqual([
      ["P101", "Product P101", "10.00", "100", "—"],
      ["P102", "Product P102", "10.00", "101", "—"],
      ["P103", "Product P103", "10.00", "102", "—"],
    ]);
    expect(await collect(second.text, "table#products caption")).toEqual(["Products after Sku P100"]);
    expect(await collect(second.text, 'nav[aria-label="Product pages"] a')).toEqual(["First products"]);

    // An afterSku the API refuses is shown in its words.
    const bad = await send("GET", `/console/stores/${storeId}/catalog?afterSku=${"x".repeat(101)}`, { cookie });
    expect((await collect(bad.text, 'main p[role="alert"]')).join(" ")).toContain("'afterSku'");
    expect(await tableRows(bad.text, "table#products")).toEqual([]);
  });

  it("looks a product up by Sku, and says at the field when the store has no such Sku", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console catalog lookup");
    const other = await createStore("Console catalog lookup other");
    await putStock(storeId, [{ Sku: "A/1", Title: "Slashed", Quantity: 4, Brand: "Acme", Colour: "red" }, { Sku: "B-2" }]);
    await putStock(other, [{ Sku: "THEIRS", Quantity: 2 }]);

    const page = await send("GET", `/console/stores/${storeId}/catalog?sku=${encodeURIComponent("A/1")}`, { cookie });
    expect(page.status).toBe(200);
    const [facts] = await definitionLists(page.text, "#product-facts");
    expect(facts).toMatchObject({ Sku: "A/1", Title: "Slashed", Quantity: "4", Price: "10.00", Brand: "Acme", "Other columns": "Colour: red" });
    expect(await collect(page.text, 'input[name="sku"]', "value")).toEqual(["A/1"]);
    // Each Sku of the table links to its lookup.
    const links = await collect(page.text, "table#products a", "href");
    expect(links.map((href) => new URL(href, "https://hub.test").searchParams.get("sku"))).toEqual(["A/1", "B-2"]);

    const untracked = await send("GET", `/console/stores/${storeId}/catalog?sku=B-2`, { cookie });
    expect((await definitionLists(untracked.text, "#product-facts"))[0]).toMatchObject({ Sku: "B-2", Quantity: "not tracked" });

    // Another store's Sku is not this store's.
    const missing = await send("GET", `/console/stores/${storeId}/catalog?sku=THEIRS`, { cookie });
    expect(await collect(missing.text, "#product-facts")).toEqual([]);
    expect(await collect(missing.text, "#lookup-sku-error")).toEqual(["No product with Sku 'THEIRS' in this store."]);
    expect(await collect(missing.text, 'input[name="sku"]', "aria-invalid")).toEqual(["true"]);
    expect(await collect(missing.text, 'input[name="sku"]', "aria-describedby")).toEqual(["lookup-sku-hint lookup-sku-error"]);
    // The list is still there.
    expect((await tableRows(missing.text, "table#products")).map((r) => r[0])).toEqual(["A/1", "B-2"]);
  });

  it("answers 404 for a store that does not exist, and sends a signed-out browser to sign in", async () => {
    const { cookie } = await signIn();
    expect((await send("GET", "/console/stores/st_nosuchstore/catalog", { cookie })).status).toBe(404);
    const storeId = await createStore("Console catalog closed");
    const closed = await send("GET", `/console/stores/${storeId}/catalog`);
    expect(closed.status).toBe(303);
    expect(closed.headers.get("location")).toBe("/console/login");
  });
});
