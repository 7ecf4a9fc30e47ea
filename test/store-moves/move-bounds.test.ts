// The work a move does stays inside what production allows (issue 34, "Bounded work a move does"):
// a copy batch is bounded by bytes as well as rows, so orders of 500 lines each never bind more
// than D1's 2 MB in one value, and every run of the mover (one invocation: an alarm, or an
// advance) asks at most Cloudflare's 1,000 D1 queries and 10,000 subrequests, handing the rest of
// the move to its next run. The mover counts what each run asked (src/store-moves/invocation.ts)
// and keeps it; the test reads those figures and checks the move's result through the API.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { d1, shardOf } from "../helpers/shards";

vi.setConfig({ testTimeout: 300_000 });

const mover = (storeId: string) => env.STORE_MOVER.getByName(storeId);

/** `orders` orders of the store written straight into its shard, each with `lines` lines of a 200-character name. */
async function seed(storeId: string, orders: number, lines: number): Promise<string> {
  const shard = await shardOf(storeId);
  const now = Date.parse("2026-03-01T10:00:00Z");
  await d1(shard)
    .prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
       insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address,
         buyer_phone_number, first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method,
         grand_total, sub_total, date_created_in_order_source, date_updated)
       select ?1, 'Bulk', 'BULK-' || i, 'New', 'New', 'b' || i || '@example.com', '555-010-0000', 'Jane', 'Doe', '1 Main St', 'Springfield',
         'IL', '62701', 'US', 'Standard', 10, 10, ?3, ?3 from r`,
    )
    .bind(storeId, orders, now)
    .run();
  await d1(shard)
    .prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?2)
       insert into order_items (order_id, sku, name, quantity, unit_price)
       select o.id, 'SKU-' || r.i, printf('%.200c', 'L'), 1, 1 from orders o, r where o.store_id = ?1`,
    )
    .bind(storeId, lines)
    .run();
  return shard;
}

async function moveOf(storeId: string) {
  return (
    JSON.parse((await admin("GET", `/stores/${storeId}/move`)).text) as { Move: { Status: string; Phase: string; RowsCopied: number; Error: string | null } }
  ).Move;
}

async function lineCount(shard: string, storeId: string): Promise<number> {
  return (await d1(shard)
    .prepare("select count(*) as n from order_items i join orders o on o.id = i.order_id where o.store_id = ?1")
    .bind(storeId)
    .first<{ n: number }>())!.n;
}

describe("a move's batches and runs", () => {
  it("copies orders of 500 lines each in batches that bind at most 2 MB a value, every run under the per-invocation limits", async () => {
    const { storeId, token } = await storeWithToken();
    const from = await seed(storeId, 40, 500);
    expect(await lineCount(from, storeId)).toBe(20_000);
    const to = ["SHARD_1", "SHARD_2", "SHARD_3"].find((s) => s !== from)!;
    // Production batches (200 orders, 1 MB); no grace, so the test need not wait 30 s.
    await mover(storeId).configure({ graceMs: 0, manual: true });
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    for (let i = 0; i < 50 && (await moveOf(storeId)).Status !== "completed"; i++) await mover(storeId).advance(storeId, 20_000);
    const move = await moveOf(storeId);
    expect(move).toMatchObject({ Status: "completed", Error: null });
    expect(move.RowsCopied).toBe(20_040);
    expect(await lineCount(to, storeId)).toBe(20_000);
    expect(await lineCount(from, storeId)).toBe(0);
    const runs = await mover(storeId).runs();
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) {
      expect(run.largestValueBytes).toBeLessThanOrEqual(2_000_000);
      expect(run.d1Queries).toBeLessThanOrEqual(1_000);
      expect(run.subrequests).toBeLessThanOrEqual(10_000);
    }
    // 40 orders of ~150 KB each with their lines: 5.5 MB, more than one value could take.
    expect(Math.max(...runs.map((r) => r.largestValueBytes))).toBeGreaterThan(500_000);
    const read = await call("GET", `/v1/${token}/Orders?fromDate=2026-03-01&toDate=2026-03-02&page=1&pageSize=1`);
    expect(read.status).toBe(200);
    expect((read.json.Orders as { OrderItems: unknown[] }[])[0]!.OrderItems).toHaveLength(500);
  });

  it("stops a run before 1,000 D1 queries and goes on in the next", async () => {
    const { storeId } = await storeWithToken();
    const from = await seed(storeId, 400, 1);
    const to = ["SHARD_1", "SHARD_2", "SHARD_3"].find((s) => s !== from)!;
    // One order a batch: 400 copy steps, several D1 queries each, far more than one run may ask.
    await mover(storeId).configure({ rows: 1, graceMs: 0, manual: true });
    expect((await admin("POST", `/stores/${storeId}/move`, { Shard: to })).status).toBe(200);
    await mover(storeId).advance(storeId, 600_000);
    const first = (await mover(storeId).runs()).at(-1)!;
    expect(first.d1Queries).toBeGreaterThan(800);
    expect(first.d1Queries).toBeLessThanOrEqual(1_000);
    expect(await moveOf(storeId)).toMatchObject({ Status: "copying", Phase: "copy" });
    for (let i = 0; i < 20 && (await moveOf(storeId)).Status !== "completed"; i++) await mover(storeId).advance(storeId, 600_000);
    expect(await moveOf(storeId)).toMatchObject({ Status: "completed", RowsCopied: 800 });
    for (const run of await mover(storeId).runs()) expect(run.d1Queries).toBeLessThanOrEqual(1_000);
    expect(await lineCount(to, storeId)).toBe(400);
  });
});
