// What an operator controls of a move (decisions 10, issue 34): a store over its limits moves like
// any other and its limits still refuse new writes after; two move requests at once start one move
// (the other 409); DELETE /admin/v1/stores/:storeId/move gives up a move that has not switched
// (the store stays where it was, the partial copy, the change log and the triggers' switches are
// removed) and answers 409 once it has switched.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { admin, call, insert, sampleOrder, storeWithToken } from "../helpers/api";
import { d1, shardOf } from "../helpers/shards";

vi.setConfig({ testTimeout: 120_000 });

interface Move {
  Status: string;
  Phase: string;
  FromShard: string;
  ToShard: string;
  RowsCopied: number;
  Error: string | null;
}

const mover = (storeId: string) => env.STORE_MOVER.getByName(storeId);

async function moveOf(storeId: string): Promise<Move> {
  const res = await admin("GET", `/stores/${storeId}/move`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { Move: Move }).Move;
}

async function finish(storeId: string): Promise<Move> {
  for (let i = 0; i < 300; i++) {
    const move = await moveOf(storeId);
    if (move.Status === "completed" || move.Status === "failed") return move;
    await mover(storeId).advance(storeId, 0);
  }
  throw new Error("the move never finished");
}

async function count(shard: string, sql: string, storeId: string): Promise<number> {
  return (await d1(shard).prepare(`select count(*) as n from (${sql})`).bind(storeId).first<{ n: number }>())!.n;
}

/** Everything of the store one database holds, and what a move left there. */
async function traces(shard: string, storeId: string) {
  return {
    orders: await count(shard, "select 1 from orders where store_id = ?1", storeId),
    items: await count(shard, "select 1 from order_items i join orders o on o.id = i.order_id where o.store_id = ?1", storeId),
    products: await count(shard, "select 1 from products where store_id = ?1", storeId),
    stores: await count(shard, "select 1 from stores where id = ?1", storeId),
    log: await count(shard, "select 1 from move_log where store_id = ?1", storeId),
    capture: await count(shard, "select 1 from move_capture where store_id = ?1", storeId),
    fences: await count(shard, "select 1 from store_fences where store_id = ?1", storeId),
  };
}

async function storeWithOrders(n: number) {
  const { storeId, token } = await storeWithToken();
  for (let i = 0; i < n; i++)
    await insert(token, { OrderSourceOrderNumber: `C-${i}`, OrderItems: [{ Sku: `S-${i}`, Name: "Mug", Quantity: 1, UnitPrice: 5 }] });
  const from = await shardOf(storeId);
  const to = ["SHARD_1", "SHARD_2", "SHARD_3"].find((s) => s !== from)!;
  await mover(storeId).configure({ rows: 2, changes: 50, fewChanges: 10, graceMs: 0, removeRows: 50, manual: true });
  return { storeId, token, from, to };
}

describe("a store over its limits", () => {
  it("moves like any other, and its limits still refuse new writes after", async () => {
    const { storeId, token, from, to } = await storeWithOrders(5);
    const products = await admin("PUT", `/stores/${storeId}/products`, {
      Products: ["A", "B", "C"].map((sku) => ({
        Sku: sku,
        Title: sku,
        Price: 1,
        Link: `https://shop.example/${sku}`,
        ImageLink: `https://shop.example/${sku}.jpg`,
        Availability: "in stock",
      })),
    });
    expect(products.status, products.text).toBe(200);
    // Limits lowered below what the store holds: nothing is removed, nothing more is added.
    const lowered = await admin("PATCH", `/stores/${storeId}`, { Limits: { Orders: 2, OrderItems: 3, Products: 1, StoredBytes: 100 } });
    expect(lowered.status, lowered.text).toBe(200);
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    const done = await finish(storeId);
    expect(done).toMatchObject({ Status: "completed", Error: null });
    expect(await shardOf(storeId)).toBe(to);
    expect(await traces(to, storeId)).toEqual({ orders: 5, items: 5, products: 3, stores: 1, log: 0, capture: 0, fences: 0 });
    expect(await traces(from, storeId)).toEqual({ orders: 0, items: 0, products: 0, stores: 0, log: 0, capture: 0, fences: 0 });
    // Its limits as they were set, in the directory and in the new shard's triggers.
    const store = (await admin("GET", `/stores/${storeId}`)).json.Store as { Limits: Record<string, number>; Usage: Record<string, number> };
    expect(store.Limits).toMatchObject({ Orders: 2, OrderItems: 3, Products: 1, StoredBytes: 100 });
    expect(store.Usage).toMatchObject({ Orders: 5, OrderItems: 5, Products: 3 });
    const refused = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder() });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.Message).toMatch(/^Store limit reached: (Orders|StoredBytes)/);
    const product = await admin("PUT", `/stores/${storeId}/products`, {
      Products: [{ Sku: "D", Title: "D", Price: 1, Link: "https://shop.example/D", ImageLink: "https://shop.example/D.jpg", Availability: "in stock" }],
    });
    expect(product.status, product.text).toBe(400);
    expect(await traces(to, storeId)).toMatchObject({ orders: 5, products: 3 });
  });
});

describe("two move requests at once", () => {
  it("start one move: one answers 200, the other 409, and the move saved is the one answered", async () => {
    const { storeId, from } = await storeWithOrders(2);
    const others = ["SHARD_1", "SHARD_2", "SHARD_3"].filter((s) => s !== from);
    const answers = await Promise.all(others.map((shard) => admin("POST", `/stores/${storeId}/move`, { Shard: shard })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const won = answers.find((a) => a.status === 200)!;
    const lost = answers.find((a) => a.status === 409)!;
    expect(lost.json.Message).toContain("already moving");
    const target = (won.json.Move as Move).ToShard;
    expect((await moveOf(storeId)).ToShard).toBe(target);
    expect(await finish(storeId)).toMatchObject({ Status: "completed" });
    expect(await shardOf(storeId)).toBe(target);
  });
});

describe("DELETE /admin/v1/stores/:storeId/move", () => {
  it("gives up a move that has not switched: the store stays, the partial copy, log and switches are removed, and it can move again", async () => {
    const { storeId, token, from, to } = await storeWithOrders(8);
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    for (let i = 0; i < 4; i++) await mover(storeId).advance(storeId, 0);
    const copying = await moveOf(storeId);
    expect(copying).toMatchObject({ Status: "copying", Phase: "copy" });
    // A write during the copy: logged in the old shard.
    await insert(token, { OrderSourceOrderNumber: "DURING" });
    expect((await traces(to, storeId)).orders).toBeGreaterThan(0);
    expect((await traces(from, storeId)).log).toBeGreaterThan(0);

    const given = await admin("DELETE", `/stores/${storeId}/move`);
    expect(given.status, given.text).toBe(200);
    expect(given.json.Move).toMatchObject({ Status: "copying", Phase: "abandon", FromShard: from, ToShard: to });
    // Asked again while it is being given up: the same answer.
    expect((await admin("DELETE", `/stores/${storeId}/move`)).status).toBe(200);
    const failed = await finish(storeId);
    expect(failed.Status).toBe("failed");
    expect(failed.Error).toContain("given up");
    expect(await shardOf(storeId)).toBe(from);
    expect(await traces(to, storeId)).toEqual({ orders: 0, items: 0, products: 0, stores: 0, log: 0, capture: 0, fences: 0 });
    expect(await traces(from, storeId)).toEqual({ orders: 9, items: 9, products: 0, stores: 1, log: 0, capture: 0, fences: 0 });
    // Writes go on where it lives, unlogged; a finished move cannot be given up.
    await insert(token, { OrderSourceOrderNumber: "AFTER" });
    expect((await traces(from, storeId)).log).toBe(0);
    expect((await admin("DELETE", `/stores/${storeId}/move`)).status).toBe(409);
    // And it can move again, to the end.
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    expect(await finish(storeId)).toMatchObject({ Status: "completed" });
    expect(await traces(to, storeId)).toEqual({ orders: 10, items: 10, products: 0, stores: 1, log: 0, capture: 0, fences: 0 });
  });

  it("gives up a move whose writes are held (fenced, not switched): writes are taken again at once", async () => {
    const { storeId, token, from, to } = await storeWithOrders(3);
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    for (let i = 0; i < 50 && (await moveOf(storeId)).Phase !== "drain"; i++) await mover(storeId).advance(storeId, 0);
    expect(await moveOf(storeId)).toMatchObject({ Status: "switching", Phase: "drain" });
    expect((await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder() })).status).toBe(503);
    expect((await admin("DELETE", `/stores/${storeId}/move`)).status).toBe(200);
    expect(await finish(storeId)).toMatchObject({ Status: "failed" });
    expect(await shardOf(storeId)).toBe(from);
    await insert(token, { OrderSourceOrderNumber: "TAKEN" });
    expect(await traces(from, storeId)).toMatchObject({ orders: 4, fences: 0, capture: 0, log: 0 });
    expect(await traces(to, storeId)).toMatchObject({ orders: 0, stores: 0 });
  });

  it("answers 409 once the move has switched, 404 for a store never moved, and the OpenAPI document lists it", async () => {
    const { storeId, to } = await storeWithOrders(2);
    expect((await admin("DELETE", `/stores/${storeId}/move`)).status).toBe(404);
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    for (let i = 0; i < 50 && (await moveOf(storeId)).Phase !== "grants"; i++) await mover(storeId).advance(storeId, 0);
    const late = await admin("DELETE", `/stores/${storeId}/move`);
    expect(late.status, late.text).toBe(409);
    expect(late.json.Message).toContain("switched");
    expect(await finish(storeId)).toMatchObject({ Status: "completed" });
    expect(await shardOf(storeId)).toBe(to);
    const doc = JSON.parse((await call("GET", "/openapi.json")).text) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths["/admin/v1/stores/{storeId}/move"]!.delete!.responses)).toEqual(expect.arrayContaining(["200", "404", "409"]));
  });
});
