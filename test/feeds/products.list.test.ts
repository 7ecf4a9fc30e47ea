// GET /admin/v1/stores/:storeId/products?afterSku=&limit= (issue 22: Quantity in the operator's
// views) through whole requests: pages in Sku order continued by NextAfterSku, the limit's bounds
// and default, bad input refused naming the field, one store's products never listed in another's
// (same shard or not), Quantity as PUT /v1/{token}/Inventory left it, and the keyset read served
// by the products primary key.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { admin, ADMIN_KEY, BASE, createKey, tokenFor } from "../helpers/api";
import { putInventory, putStock } from "../stock/helpers";

interface Product {
  Sku: string;
  Title: string | null;
  Price: number | null;
  Currency: string | null;
  Quantity: number | null;
  Availability: string | null;
  [field: string]: unknown;
}
type Page = { Products: Product[]; NextAfterSku: string | null };

async function storeOn(shard: string, name: string): Promise<string> {
  const res = await admin("POST", "/stores", { Name: name, Shard: shard });
  expect(res.status, res.text).toBe(200);
  return (res.json.Store as { StoreId: string }).StoreId;
}

async function list(storeId: string, query = ""): Promise<Page> {
  const res = await admin("GET", `/stores/${storeId}/products${query}`);
  expect(res.status, res.text).toBe(200);
  return { Products: res.json.Products as Product[], NextAfterSku: res.json.NextAfterSku as string | null };
}

/** Every page from the first, following NextAfterSku: the Skus of each page. */
async function walk(storeId: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | null = null;
  do {
    const query: string = `?limit=${limit}${after === null ? "" : `&afterSku=${encodeURIComponent(after)}`}`;
    const page: Page = await list(storeId, query);
    pages.push(page.Products.map((p) => p.Sku));
    after = page.NextAfterSku;
    expect(pages.length).toBeLessThan(50);
  } while (after !== null);
  return pages;
}

const skus = (n: number, prefix = "S") => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(3, "0")}`);

describe("GET /admin/v1/stores/:storeId/products", () => {
  it("pages the catalog in Sku order by afterSku, each product as the single-product route shows it", async () => {
    const storeId = await storeOn("SHARD_1", "List order");
    // Given out of order; a Sku's bytes decide (upper case before lower case), and a slash or an
    // accent is only a character.
    await putStock(storeId, [
      { Sku: "b-2", Quantity: 4, Price: 2.5, Currency: "EUR", Availability: "in stock" },
      { Sku: "A/1", Quantity: 0 },
      { Sku: "Ć-3", Price: 7 },
      { Sku: "B-1", Quantity: 12 },
      { Sku: "A-9" },
      { Sku: "a-0", Quantity: 1 },
    ]);

    expect(await walk(storeId, 2)).toEqual([
      ["A-9", "A/1"],
      ["B-1", "a-0"],
      ["b-2", "Ć-3"],
    ]);
    // A last page that is full says so: no pointer to an empty page.
    expect(await walk(storeId, 3)).toEqual([
      ["A-9", "A/1", "B-1"],
      ["a-0", "b-2", "Ć-3"],
    ]);
    expect(await walk(storeId, 4)).toEqual([
      ["A-9", "A/1", "B-1", "a-0"],
      ["b-2", "Ć-3"],
    ]);
    const second = await list(storeId, `?limit=2&afterSku=${encodeURIComponent("A/1")}`);
    expect(second.NextAfterSku).toBe("a-0");
    // afterSku need not be a Sku the store holds: the page starts after where it would sort.
    expect((await list(storeId, "?afterSku=B")).Products.map((p) => p.Sku)).toEqual(["B-1", "a-0", "b-2", "Ć-3"]);
    expect(await list(storeId, `?afterSku=${encodeURIComponent("Ć-3")}`)).toEqual({ Products: [], NextAfterSku: null });

    // Quantity (null: not tracked) and Price, and every other field, as GET .../products/:sku answers.
    const all = (await list(storeId)).Products;
    expect(all.map((p) => [p.Sku, p.Quantity, p.Price, p.Currency, p.Availability])).toEqual([
      ["A-9", null, 10, null, null],
      ["A/1", 0, 10, null, null],
      ["B-1", 12, 10, null, null],
      ["a-0", 1, 10, null, null],
      ["b-2", 4, 2.5, "EUR", "in stock"],
      ["Ć-3", null, 7, null, null],
    ]);
    for (const product of all) {
      const one = await admin("GET", `/stores/${storeId}/products/${encodeURIComponent(product.Sku)}`);
      expect(one.json.Product).toEqual(product);
    }
  });

  it("answers 50 a page by default and takes 1 to 200", async () => {
    const storeId = await storeOn("SHARD_2", "List sizes");
    const all = skus(201);
    await putStock(
      storeId,
      all.map((Sku, i) => ({ Sku, Quantity: i })),
    );

    const first = await list(storeId);
    expect(first.Products.map((p) => p.Sku)).toEqual(all.slice(0, 50));
    expect(first.NextAfterSku).toBe("S050");
    expect(first.Products[49]!.Quantity).toBe(49);

    const most = await list(storeId, "?limit=200");
    expect(most.Products).toHaveLength(200);
    expect(most.NextAfterSku).toBe("S200");
    expect(await list(storeId, "?limit=200&afterSku=S200")).toMatchObject({ NextAfterSku: null, Products: [{ Sku: "S201", Quantity: 200 }] });

    const one = await list(storeId, "?limit=1");
    expect(one.Products.map((p) => p.Sku)).toEqual(["S001"]);
    expect(one.NextAfterSku).toBe("S001");
    expect(await walk(storeId, 200)).toEqual([all.slice(0, 200), ["S201"]]);
  });

  it("refuses a bad limit or afterSku with a 400 naming the field, and an unknown store with a 404", async () => {
    const storeId = await storeOn("SHARD_1", "List bad input");
    await putStock(storeId, [{ Sku: "A" }]);
    const bad: [string, string][] = [
      ["?limit=0", "limit"],
      ["?limit=201", "limit"],
      ["?limit=-1", "limit"],
      ["?limit=1.5", "limit"],
      ["?limit=abc", "limit"],
      ["?limit=", "limit"],
      ["?limit=1e2", "limit"],
      ["?limit=99999999999", "limit"],
      ["?limit=2&limit=3", "limit"],
      ["?afterSku=", "afterSku"],
      [`?afterSku=${"x".repeat(101)}`, "afterSku"],
      ["?afterSku=A&afterSku=B", "afterSku"],
    ];
    for (const [query, field] of bad) {
      const res = await admin("GET", `/stores/${storeId}/products${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.Success, query).toBe(false);
      expect(res.json.Message, query).toContain(`'${field}'`);
    }
    // The edges themselves are taken.
    expect((await admin("GET", `/stores/${storeId}/products?limit=200&afterSku=${"x".repeat(100)}`)).status).toBe(200);
    const missing = await admin("GET", "/stores/st_nosuchstore/products");
    expect(missing.status).toBe(404);
    expect(missing.json.Success).toBe(false);
  });

  it("lists only the store's own products, whether another store shares its shard or not", async () => {
    const mine = await storeOn("SHARD_3", "List mine");
    const neighbour = await storeOn("SHARD_3", "List neighbour");
    const elsewhere = await storeOn("SHARD_1", "List elsewhere");
    const empty = await storeOn("SHARD_3", "List empty");
    await putStock(mine, [
      { Sku: "SHARED", Quantity: 1 },
      { Sku: "M-1", Quantity: 2 },
    ]);
    await putStock(neighbour, [{ Sku: "SHARED", Quantity: 50 }, { Sku: "A-NEIGHBOUR", Quantity: 9 }, { Sku: "N-1" }]);
    await putStock(elsewhere, [{ Sku: "SHARED", Quantity: 70 }, { Sku: "E-1" }]);

    const page = await list(mine);
    expect(page.Products.map((p) => [p.Sku, p.Quantity])).toEqual([
      ["M-1", 2],
      ["SHARED", 1],
    ]);
    expect(page.NextAfterSku).toBeNull();
    // Paging across another store's Skus never steps into them.
    expect(await walk(mine, 1)).toEqual([["M-1"], ["SHARED"]]);
    expect((await list(neighbour)).Products.map((p) => p.Sku)).toEqual(["A-NEIGHBOUR", "N-1", "SHARED"]);
    expect(await list(empty)).toEqual({ Products: [], NextAfterSku: null });
  });

  it("shows the Quantity and Price PUT /v1/{token}/Inventory set, and null once tracking stops", async () => {
    const storeId = await storeOn("SHARD_2", "List inventory");
    await putStock(storeId, [{ Sku: "MUG", Quantity: 3 }, { Sku: "CAP" }, { Sku: "HAT", Quantity: 8 }]);
    const token = await tokenFor((await createKey(storeId, { scopes: ["InventoryUpdate"] })).Key);
    const res = await putInventory(token, [
      { Sku: "MUG", Quantity: 17, Price: 4.25 },
      { Sku: "CAP", Quantity: 0 },
      { Sku: "HAT", Quantity: null },
    ]);
    expect(res.status, res.text).toBe(200);
    expect((await list(storeId)).Products.map((p) => [p.Sku, p.Quantity, p.Price])).toEqual([
      ["CAP", 0, 10],
      ["HAT", null, 10],
      ["MUG", 17, 4.25],
    ]);
  });

  it("reads a page with one primary-key search of products, after the Sku given", async () => {
    const storeId = await storeOn("SHARD_2", "List plan");
    await putStock(
      storeId,
      skus(30).map((Sku) => ({ Sku })),
    );
    const seen: { binding: string; sql: string; params: unknown[] }[] = [];
    const bindings = Object.fromEntries(
      Object.entries(env)
        .filter(([name]) => name === "DB" || name.startsWith("SHARD_"))
        .map(([name, d1]) => [name, recording(name, d1 as D1Database, seen)]),
    );
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request(`${BASE}/admin/v1/stores/${storeId}/products?afterSku=S010&limit=5`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
      { ...env, ...bindings },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Page).Products.map((p) => p.Sku)).toEqual(["S011", "S012", "S013", "S014", "S015"]);

    const reads = seen.filter((s) => /\bfrom\s+["`]?products\b/i.test(s.sql));
    expect(reads).toHaveLength(1);
    const [read] = reads;
    expect(read!.binding).toBe("SHARD_2");
    const plan = await (env as unknown as Record<string, D1Database>)
      [read!.binding]!.prepare(`explain query plan ${read!.sql}`)
      .bind(...read!.params)
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail);
    expect(details, details.join("\n")).toHaveLength(1);
    expect(details[0]).toMatch(/^SEARCH products USING (PRIMARY KEY|INDEX sqlite_autoindex_products_1) \(store_id=\? AND sku>\?\)$/);
  });
});

/** A D1 binding that notes each statement prepared on it with the values bound to it. */
function recording(binding: string, d1: D1Database, seen: { binding: string; sql: string; params: unknown[] }[]): D1Database {
  const passThrough = <T extends object>(target: T, prop: PropertyKey) => {
    const value = Reflect.get(target, prop, target) as unknown;
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  };
  return new Proxy(d1, {
    get(target, prop) {
      if (prop !== "prepare") return passThrough(target, prop);
      return (sql: string) => {
        const entry = { binding, sql, params: [] as unknown[] };
        seen.push(entry);
        const statement = target.prepare(sql);
        return new Proxy(statement, {
          get(s, p) {
            if (p !== "bind") return passThrough(s, p);
            return (...params: unknown[]) => {
              entry.params = params;
              return s.bind(...params);
            };
          },
        });
      };
    },
  });
}
