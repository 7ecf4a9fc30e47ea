// Direct reads and writes of the test database, for asserting the state a request left behind.
import { env } from "cloudflare:workers";

export async function countRows(table: "orders" | "order_items" | "outbox" | "stores" | "consumer_keys" | "products", storeId?: string): Promise<number> {
  if (storeId && table === "order_items") {
    const row = await env.DB.prepare("select count(*) as n from order_items i join orders o on o.id = i.order_id where o.store_id = ?")
      .bind(storeId)
      .first<{ n: number }>();
    return row?.n ?? 0;
  }
  const row = storeId
    ? await env.DB.prepare(`select count(*) as n from ${table} where store_id = ?`).bind(storeId).first<{ n: number }>()
    : await env.DB.prepare(`select count(*) as n from ${table}`).first<{ n: number }>();
  return row?.n ?? 0;
}

/** A marketplace source of the store, written straight into D1: orders whose OrderSource is its Name are claimed by it. */
export async function insertSource(storeId: string, name: string): Promise<string> {
  const id = `src_${Math.random().toString(36).slice(2, 10)}`;
  const now = Date.now();
  await env.DB.prepare(
    "insert into sources (id, store_id, type, name, enabled, settings_ciphertext, created_at, updated_at) values (?, ?, 'simulated', ?, 1, 'x.y', ?, ?)",
  )
    .bind(id, storeId, name, now, now)
    .run();
  return id;
}

export interface OutboxRow {
  id: number;
  order_id: number;
  source_id: string;
  kind: string;
  payload: string;
  state: string;
}

export async function outboxOf(orderId: string | number): Promise<OutboxRow[]> {
  const { results } = await env.DB.prepare("select * from outbox where order_id = ? order by id").bind(Number(orderId)).all<OutboxRow>();
  return results;
}

export async function orderRow(orderId: string | number): Promise<Record<string, unknown> | null> {
  return env.DB.prepare("select * from orders where id = ?").bind(Number(orderId)).first();
}
