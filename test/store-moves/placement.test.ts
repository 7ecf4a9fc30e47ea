// Where a new store goes (issue 19, decisions 10): the shard with the fewest orders that is not
// draining, or the one the operator names; Store.Shard in every store answer; GET /admin/v1/shards
// with what each shard holds. This file's databases start empty, so every count is known.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { leastFilled } from "../../src/stores/placement";
import { admin, ADMIN_KEY, BASE, createKey, insert, tokenFor } from "../helpers/api";
import { databasesWith } from "../helpers/shards";
import { product, putProducts } from "../feeds/feeds-helpers";

interface WireShard {
  Shard: string;
  Stores: number;
  Orders: number;
  OrderItems: number;
  Products: number;
  Draining: boolean;
}

async function shards(): Promise<WireShard[]> {
  const res = await admin("GET", "/shards");
  expect(res.status, res.text).toBe(200);
  return res.json.Shards as WireShard[];
}

/** A store created without naming a shard: where the hub put it. */
async function placed(name: string): Promise<{ storeId: string; shard: string; token: string }> {
  const res = await admin("POST", "/stores", { Name: name });
  expect(res.status, res.text).toBe(200);
  const store = res.json.Store as { StoreId: string; Shard: string };
  const token = await tokenFor((await createKey(store.StoreId)).Key);
  return { storeId: store.StoreId, shard: store.Shard, token };
}

/** `count` orders of one line of quantity 1, through PUT /v1/{token}/Orders/InsertOrder. */
async function orders(token: string, count: number, lines = 1) {
  for (let i = 0; i < count; i++) {
    await insert(token, { OrderItems: Array.from({ length: lines }, (_, k) => ({ Sku: `L${k}`, Name: "Line", Quantity: 1, UnitPrice: 1 })) });
  }
}

/** The Worker with DRAINING_SHARDS set, as a deployment with that variable answers. */
async function withDraining(draining: string, method: string, path: string, body?: unknown) {
  const ctx = createExecutionContext();
  const request = new Request(`${BASE}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, DRAINING_SHARDS: draining as Env["DRAINING_SHARDS"] }, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) as Record<string, unknown> & { Success: boolean; Message: string } };
}

describe("placement and GET /admin/v1/shards", () => {
  it("lists the directory (always draining) and three empty shards before any store", async () => {
    expect(await shards()).toEqual([
      { Shard: "DB", Stores: 0, Orders: 0, OrderItems: 0, Products: 0, Draining: true },
      { Shard: "SHARD_1", Stores: 0, Orders: 0, OrderItems: 0, Products: 0, Draining: false },
      { Shard: "SHARD_2", Stores: 0, Orders: 0, OrderItems: 0, Products: 0, Draining: false },
      { Shard: "SHARD_3", Stores: 0, Orders: 0, OrderItems: 0, Products: 0, Draining: false },
    ]);
  });

  it("places each new store on the shard with the fewest orders (fewer stores, then name order, on a tie), and counts what each shard holds", async () => {
    // All empty: the first in name order.
    const a = await placed("Placement A");
    expect(a.shard).toBe("SHARD_1");
    await orders(a.token, 3, 2);
    // SHARD_2 and SHARD_3 hold no orders and no store: the first of them.
    const b = await placed("Placement B");
    expect(b.shard).toBe("SHARD_2");
    await orders(b.token, 1);
    const c = await placed("Placement C");
    expect(c.shard).toBe("SHARD_3");
    await orders(c.token, 2);
    // Orders 3, 1, 2: SHARD_2, twice, though it then holds the most stores.
    const d = await placed("Placement D");
    expect(d.shard).toBe("SHARD_2");
    const e = await placed("Placement E");
    expect(e.shard).toBe("SHARD_2");
    await putProducts(c.storeId, [product("P1"), product("P2"), product("P3"), product("P4")]);

    expect(await shards()).toEqual([
      { Shard: "DB", Stores: 0, Orders: 0, OrderItems: 0, Products: 0, Draining: true },
      { Shard: "SHARD_1", Stores: 1, Orders: 3, OrderItems: 6, Products: 0, Draining: false },
      { Shard: "SHARD_2", Stores: 3, Orders: 1, OrderItems: 1, Products: 0, Draining: false },
      { Shard: "SHARD_3", Stores: 1, Orders: 2, OrderItems: 2, Products: 4, Draining: false },
    ]);
    // Each store's rows are where its answer says.
    for (const store of [a, b, c]) expect(await databasesWith("select 1 from orders where store_id = ?", store.storeId)).toEqual([store.shard]);

    // Four more orders in SHARD_2 (5 in all) make SHARD_3 (2) the least filled.
    await orders(d.token, 4);
    expect((await placed("Placement F")).shard).toBe("SHARD_3");

    // A deleted store leaves its shard's counts at once (its rows wait for the purge).
    expect((await admin("DELETE", `/stores/${a.storeId}`)).status).toBe(200);
    expect((await shards()).find((s) => s.Shard === "SHARD_1")).toEqual({
      Shard: "SHARD_1",
      Stores: 0,
      Orders: 0,
      OrderItems: 0,
      Products: 0,
      Draining: false,
    });
    expect((await placed("Placement G")).shard).toBe("SHARD_1");
  });

  it("places a store on the shard the operator names, whatever its fill, and answers Store.Shard in create, get and list", async () => {
    const res = await admin("POST", "/stores", { Name: "Named shard", Shard: "SHARD_1", MaskBuyerPii: true });
    expect(res.status).toBe(200);
    const store = res.json.Store as { StoreId: string; Shard: string };
    expect(store.Shard).toBe("SHARD_1");
    expect(((await admin("GET", `/stores/${store.StoreId}`)).json.Store as { Shard: string }).Shard).toBe("SHARD_1");
    const listed = (await admin("GET", "/stores")).json.Stores as { StoreId: string; Shard: string }[];
    expect(listed.find((s) => s.StoreId === store.StoreId)?.Shard).toBe("SHARD_1");
    // A change of name leaves it where it is.
    const patched = await admin("PATCH", `/stores/${store.StoreId}`, { Name: "Renamed" });
    expect((patched.json.Store as { Shard: string }).Shard).toBe("SHARD_1");
    // Every store in the list names one of the shards.
    expect(new Set(listed.map((s) => s.Shard))).toEqual(new Set(["SHARD_1", "SHARD_2", "SHARD_3"]));
    // The directory holds it, and its shard holds the copy its rows' keys need.
    expect(await databasesWith("select 1 from stores where id = ?", store.StoreId)).toEqual(["DB", "SHARD_1"]);
  });

  it.each([
    ["an unknown shard", { Shard: "SHARD_9" }, "Shard 'SHARD_9' is not one of this hub's shards: DB, SHARD_1, SHARD_2, SHARD_3."],
    ["a lower-case name", { Shard: "shard_1" }, "Shard 'shard_1' is not one of this hub's shards: DB, SHARD_1, SHARD_2, SHARD_3."],
    ["the directory", { Shard: "DB" }, "Shard 'DB' is draining: no new store is placed on it."],
  ])("refuses %s with 400 naming the shards, creating nothing", async (_, body, message) => {
    const before = ((await admin("GET", "/stores")).json.Stores as unknown[]).length;
    const res = await admin("POST", "/stores", { Name: "Nowhere", ...body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ Success: false, Message: message });
    expect(((await admin("GET", "/stores")).json.Stores as unknown[]).length).toBe(before);
  });

  it.each([
    ["a number", 1],
    ["an empty string", ""],
    ["65 characters", "S".repeat(65)],
  ])("refuses a Shard that is %s with 400 naming the field", async (_, shard) => {
    const res = await admin("POST", "/stores", { Name: "Bad shard", Shard: shard });
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toContain("'Shard'");
  });
});

describe("a draining shard (DRAINING_SHARDS)", () => {
  it("is skipped by placement though it is the least filled, refused when named, and listed as draining", async () => {
    // The earlier tests left orders 0, 5 and 2 in SHARD_1, SHARD_2 and SHARD_3.
    const listed = await withDraining("SHARD_1", "GET", "/shards");
    const views = listed.json.Shards as WireShard[];
    expect(views.map((s) => [s.Shard, s.Draining])).toEqual([
      ["DB", true],
      ["SHARD_1", true],
      ["SHARD_2", false],
      ["SHARD_3", false],
    ]);
    expect(views.find((s) => s.Shard === "SHARD_1")!.Orders).toBe(0);
    const created = await withDraining("SHARD_1", "POST", "/stores", { Name: "Not on a draining shard" });
    expect(created.status).toBe(200);
    expect((created.json.Store as { Shard: string }).Shard).toBe("SHARD_3");
    // Without the variable the same hub places it there.
    expect((await admin("POST", "/stores", { Name: "On SHARD_1 again" })).json.Store).toMatchObject({ Shard: "SHARD_1" });

    const named = await withDraining(" SHARD_1 , SHARD_3", "POST", "/stores", { Name: "Named draining", Shard: "SHARD_3" });
    expect(named.status).toBe(400);
    expect(named.json).toEqual({ Success: false, Message: "Shard 'SHARD_3' is draining: no new store is placed on it." });
  });

  it("answers 503 with Retry-After when every shard is draining, creating nothing", async () => {
    const before = ((await admin("GET", "/stores")).json.Stores as unknown[]).length;
    const res = await withDraining("SHARD_1,SHARD_2,SHARD_3", "POST", "/stores", { Name: "Nowhere to go" });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toMatch(/^Every shard is draining/);
    expect(((await admin("GET", "/stores")).json.Stores as unknown[]).length).toBe(before);
  });
});

describe("leastFilled", () => {
  const view = (shard: string, orders: number, stores: number, draining = false) => ({ shard, orders, stores, orderItems: 0, products: 0, draining });
  it("takes the fewest orders, then the fewest stores, then the first listed, never a draining shard", () => {
    expect(leastFilled([view("DB", 0, 0, true), view("SHARD_1", 5, 1), view("SHARD_2", 4, 9), view("SHARD_3", 4, 9)])).toBe("SHARD_2");
    expect(leastFilled([view("SHARD_1", 4, 2), view("SHARD_2", 4, 1)])).toBe("SHARD_2");
    expect(leastFilled([view("SHARD_1", 0, 0, true), view("SHARD_2", 1_000_000, 50)])).toBe("SHARD_2");
    expect(leastFilled([view("DB", 0, 0, true), view("SHARD_1", 0, 0, true)])).toBeUndefined();
  });
});
