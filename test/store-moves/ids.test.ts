// Ids unique across shards (issue 19): each shard hands out orders', lines', outbox rows' and
// webhook events' ids from its own epoch (epoch * 2^34 upward), the directory issuing epochs in
// the order shards take their first store. This file's databases start empty, so the first ids
// are known exactly.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, insert, tokenFor } from "../helpers/api";
import { d1, storeOn, type DatabaseName } from "../helpers/shards";
import { createWebhook } from "../helpers/webhooks";
import { installReceiver, receiver, until } from "../webhooks/webhook-receiver";
import { createSource, cycleAt, simulatedWindow } from "../helpers/sync";

beforeAll(installReceiver);

/** Ids per epoch: 2^34. */
const EPOCH = 17_179_869_184;

async function storeWithToken(shard: DatabaseName) {
  const storeId = await storeOn(shard);
  return { storeId, token: await tokenFor((await createKey(storeId)).Key) };
}

async function epochOf(shard: string): Promise<number> {
  const row = await env.DB.prepare("select epoch from shard_epochs where shard = ?").bind(shard).first<{ epoch: number }>();
  return row!.epoch;
}

/** Every id of `table` in `shard` lies in the shard's epoch: [epoch * 2^34 + 1, (epoch + 1) * 2^34). */
async function idsIn(shard: DatabaseName, table: string): Promise<number[]> {
  const { results } = await d1(shard).prepare(`select id from ${table} order by id`).all<{ id: number }>();
  return results.map((r) => r.id);
}

describe("order ids across shards", () => {
  it("gives the first store's shard epoch 1 and the next shard epoch 2, so their first orders are 2^34 + 1 and 2^35 + 1 (answered as strings)", async () => {
    // Placed by name in this order: SHARD_2 takes its first store before SHARD_1.
    const first = await storeWithToken("SHARD_2");
    const second = await storeWithToken("SHARD_1");
    expect(await epochOf("SHARD_2")).toBe(1);
    expect(await epochOf("SHARD_1")).toBe(2);
    expect(await insert(first.token)).toBe("17179869185");
    expect(await insert(second.token)).toBe("34359738369");
    expect(await insert(first.token)).toBe("17179869186");
    // A second store on a shard shares its epoch: no new one is issued.
    const third = await storeWithToken("SHARD_2");
    expect(await insert(third.token)).toBe("17179869187");
    const { results } = await env.DB.prepare("select shard, epoch from shard_epochs order by epoch").all();
    expect(results).toEqual([
      { shard: "SHARD_2", epoch: 1 },
      { shard: "SHARD_1", epoch: 2 },
    ]);
    // The id a client gets back reads its order back.
    const read = await call("GET", `/v1/${second.token}/Orders/34359738369`);
    expect(read.status).toBe(200);
    expect(String((read.json.Orders as { OrderId: unknown }[])[0]!.OrderId)).toBe("34359738369");
  });

  it("keeps every id of orders, lines, outbox rows and webhook events distinct across three shards, each within its shard's epoch", async () => {
    const stores = [await storeWithToken("SHARD_1"), await storeWithToken("SHARD_2"), await storeWithToken("SHARD_3")];
    const shards: DatabaseName[] = ["SHARD_1", "SHARD_2", "SHARD_3"];
    const orderIds: string[] = [];
    for (const [i, store] of stores.entries()) {
      const hook = receiver();
      await createWebhook(store.storeId, hook.url, ["order.created"]);
      const sourceId = await createSource(store.storeId, { Name: "Mall", Settings: simulatedWindow(2) });
      await cycleAt(sourceId, Date.now());
      for (let n = 0; n < 3; n++)
        orderIds.push(
          await insert(store.token, {
            OrderItems: [
              { Sku: "A", Name: "A", Quantity: 1, UnitPrice: 1 },
              { Sku: "B", Name: "B", Quantity: 1, UnitPrice: 1 },
            ],
          }),
        );
      const imported = (await call("GET", `/v1/${store.token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`)).json.Orders as {
        OrderId: number;
        OrderSource: string;
      }[];
      for (const order of imported.filter((o) => o.OrderSource === "Mall")) {
        expect(
          (await call("PUT", `/v1/${store.token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-${i}-${order.OrderId}`)).status,
        ).toBe(200);
      }
      await until(() => hook.accepted.length >= 3);
    }
    expect(await epochOf("SHARD_3")).toBe(3);
    for (const table of ["orders", "order_items", "outbox", "webhook_deliveries"]) {
      const all: number[] = [];
      for (const shard of shards) {
        const ids = await idsIn(shard, table);
        expect(ids.length, `${table} in ${shard}`).toBeGreaterThan(0);
        const epoch = await epochOf(shard);
        for (const id of ids) {
          expect(id, `${table} ${id} in ${shard} (epoch ${epoch})`).toBeGreaterThan(epoch * EPOCH);
          expect(id, `${table} ${id} in ${shard} (epoch ${epoch})`).toBeLessThan((epoch + 1) * EPOCH);
        }
        all.push(...ids);
      }
      expect(new Set(all).size, table).toBe(all.length);
    }
    // The ids the API answered are the stored ones, each in one shard only.
    expect(new Set(orderIds).size).toBe(9);
    for (const id of orderIds) expect(Number(id)).toBeGreaterThan(EPOCH);
  });
});
