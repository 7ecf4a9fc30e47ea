// Nothing an operator or a client does during a move is undone by it (decisions 10, issue 34):
// each test holds the mover between what a step read and what it writes from that read (the
// test-only hook of src/store-moves/move.ts, or the key-creation route between its read of the
// store and its write), acts in that window through the API, and then checks what a client sees
// once the move is over: a key revoked stays revoked, a store deleted stays deleted, a key created
// follows the store, and a change of MaskBuyerPii or Limits holds in the new shard.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { moveTestHooks, type MovePhase } from "../../src/store-moves/move";
import { admin, call, insert, sampleOrder, storeWithToken, tokenFor } from "../helpers/api";
import { d1, shardOf } from "../helpers/shards";

vi.setConfig({ testTimeout: 120_000 });

interface Move {
  Status: string;
  Phase: string;
  Error: string | null;
}

const mover = (storeId: string) => env.STORE_MOVER.getByName(storeId);

async function moveOf(storeId: string): Promise<Move> {
  const res = await admin("GET", `/stores/${storeId}/move`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { Move: Move }).Move;
}

/** Steps the move (one step a call) until its next step is `phase`. */
async function stepUntil(storeId: string, phase: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await moveOf(storeId)).Phase === phase) return;
    await mover(storeId).advance(storeId, 0);
  }
  throw new Error(`the move never reached ${phase}`);
}

async function finish(storeId: string): Promise<Move> {
  for (let i = 0; i < 200; i++) {
    const move = await moveOf(storeId);
    if (move.Status === "completed" || move.Status === "failed") return move;
    await mover(storeId).advance(storeId, 0);
  }
  throw new Error("the move never finished");
}

/** Holds the mover's next `phase` step between its read and its write; `act` runs in that window. */
async function heldStep(storeId: string, phase: MovePhase, act: () => Promise<void>): Promise<void> {
  let reached!: () => void;
  let release!: () => void;
  const atWindow = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let fired = false;
  moveTestHooks.between = async (at, id) => {
    if (at !== phase || id !== storeId || fired) return;
    fired = true;
    reached();
    await released;
  };
  const running = mover(storeId).advance(storeId, 0);
  await atWindow;
  try {
    await act();
  } finally {
    release();
  }
  await running;
  expect(fired).toBe(true);
}

afterEach(() => {
  moveTestHooks.between = undefined;
  vi.restoreAllMocks();
});

const listOrders = (token: string) => call("GET", `/v1/${token}/Orders?fromDate=2026-01-01&toDate=2026-12-31&page=1&pageSize=100`);

/** A store with three orders, a second key, a small-batch mover with no grace, and the shard it goes to. */
async function movingStore(options: { maskBuyerPii?: boolean } = {}) {
  const { storeId, key, token } = await storeWithToken(options);
  for (let i = 0; i < 3; i++) await insert(token, { OrderSourceOrderNumber: `R-${i}`, BuyerEmailAddress: "jane.doe@example.com" });
  const from = await shardOf(storeId);
  const to = ["SHARD_1", "SHARD_2", "SHARD_3"].find((s) => s !== from)!;
  // Driven step by step by the test alone: no alarm runs the move meanwhile.
  await mover(storeId).configure({ rows: 2, changes: 50, fewChanges: 10, graceMs: 0, removeRows: 50, manual: true });
  const started = await admin("POST", `/stores/${storeId}/move`, { Shard: to });
  expect(started.status, started.text).toBe(200);
  return { storeId, key, token, from, to };
}

describe("a key revoked while the store moves", () => {
  it("stays revoked when it was revoked between the fence step's read of the keys and its grants", async () => {
    const { storeId, key, token } = await movingStore();
    await stepUntil(storeId, "fence");
    await heldStep(storeId, "fence", async () => {
      expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
      expect((await listOrders(token)).status).toBe(401);
    });
    // Reads go on while the store switches: not for a revoked key.
    expect((await listOrders(token)).status).toBe(401);
    expect((await finish(storeId)).Status).toBe("completed");
    expect((await listOrders(token)).status).toBe(401);
  });

  it("stays revoked when it was revoked between the grants step's read of the keys and its grants", async () => {
    const { storeId, key, token } = await movingStore();
    await stepUntil(storeId, "grants");
    await heldStep(storeId, "grants", async () => {
      expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
    });
    expect((await finish(storeId)).Status).toBe("completed");
    const res = await listOrders(token);
    expect(res.status, res.text).toBe(401);
  });
});

describe("a store deleted while it moves", () => {
  it("stays deleted when it was deleted between the grants step's read and its grants: its tokens read nothing", async () => {
    const { storeId, token } = await movingStore();
    await stepUntil(storeId, "grants");
    await heldStep(storeId, "grants", async () => {
      expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    });
    await finish(storeId);
    const res = await listOrders(token);
    expect(res.status, res.text).toBe(401);
    expect(res.text).not.toContain("jane.doe@example.com");
  });
});

describe("a key created while the store moves", () => {
  it("follows the store to its new shard even when its route read the store before the switch and wrote after the grants", async () => {
    const { storeId, to } = await movingStore();
    await stepUntil(storeId, "flip");
    // The key route is held after it read the store (still in the old shard) and before it
    // writes the key: its SHA-256 is the step in between.
    // Flags polled on each side's own timers: a promise resolved from the test's request would
    // not wake the route's.
    const gate = { reached: false, released: false };
    const digest = crypto.subtle.digest.bind(crypto.subtle);
    vi.spyOn(crypto.subtle, "digest").mockImplementation(async (algorithm, data) => {
      if (!gate.reached) {
        gate.reached = true;
        while (!gate.released) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return digest(algorithm, data);
    });
    const creating = admin("POST", `/stores/${storeId}/consumer-keys`, {
      Name: "made mid-move",
      Scopes: ["OrdersRead", "OrdersCreate"],
      Lifespan: "NeverExpires",
    });
    while (!gate.reached) await new Promise((resolve) => setTimeout(resolve, 5));
    vi.restoreAllMocks();
    // Meanwhile the move switches and tells every key it knows of the new shard.
    await stepUntil(storeId, "grace");
    gate.released = true;
    const created = await creating;
    expect(created.status, created.text).toBe(200);
    expect((await finish(storeId)).Status).toBe("completed");
    expect(await shardOf(storeId)).toBe(to);

    const token = await tokenFor((created.json.ConsumerKey as { Key: string }).Key);
    const inserted = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ OrderSourceOrderNumber: "AFTER-1" }) });
    expect(inserted.status, inserted.text).toBe(200);
    const listed = await listOrders(token);
    expect(listed.status).toBe(200);
    expect((listed.json.Orders as unknown[]).length).toBe(4);
    const row = await d1(to).prepare("select count(*) as n from orders where store_id = ?1").bind(storeId).first<{ n: number }>();
    expect(row!.n).toBe(4);
  });
});

describe("a store changed while it switches", () => {
  it("keeps a MaskBuyerPii and Limits change made between the flip's read and its write", async () => {
    const { storeId, token, to } = await movingStore();
    await stepUntil(storeId, "flip");
    await heldStep(storeId, "flip", async () => {
      const patched = await admin("PATCH", `/stores/${storeId}`, { MaskBuyerPii: true, Limits: { Orders: 4 } });
      expect(patched.status, patched.text).toBe(200);
    });
    expect((await finish(storeId)).Status).toBe("completed");
    expect(await shardOf(storeId)).toBe(to);
    // The directory and what /v1 serves agree: masked.
    expect((await admin("GET", `/stores/${storeId}`)).json.Store).toMatchObject({ MaskBuyerPii: true, Limits: { Orders: 4 } });
    const orders = (await listOrders(token)).json.Orders as { BuyerEmailAddress: string }[];
    expect(orders.map((o) => o.BuyerEmailAddress)).toEqual(["j***@example.com", "j***@example.com", "j***@example.com"]);
    // The limit, in the new shard: one more order fits, the next is refused.
    await insert(token);
    const over = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ OrderSourceOrderNumber: "OVER" }) });
    expect(over.status, over.text).toBe(400);
    expect(over.json.Message).toContain("Store limit reached: Orders");
  });
});
