// Every statement on refunds and refund_lines (decisions 13): the reads an order's answer, a
// return's total and a delivery need; a seller's refund recorded with its limits checked inside
// the batch; refunds the marketplace reports, recorded once; the purge of a deleted store's.
//
// A refund's limits (a line's refunds never add up to more than its paid amount or its quantity,
// the shipping's never to more than the shipping paid) are checked again by the INSERT itself, in
// the batch that records it: two refunds racing are serialised by D1, and the second finds the
// first's lines. Statements that follow in the batch find the refund by `last_write`, a value
// unique to that batch, so a repeated call (whose insert did nothing) adds nothing after it either.
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { idIn } from "../db/sql";
import { refundLines, refunds, type RefundLineRow, type RefundRow } from "../db/schema";
import { CENT_TOLERANCE } from "./refund-rules";

export interface RefundView extends RefundRow {
  lines: RefundLineRow[];
}

/** What a line's buyer paid, in SQL over order_items `i` (refund-rules.ts's paidFor). */
const PAID_SQL = (i: string) => `round(${i}.unit_price * ${i}.quantity - coalesce(cast(${i}.discount as real), 0) + ${i}.sale_tax_cost, 2)`;

/** The refunds of these orders with their lines, oldest first, per order. Two statements, one round trip. */
export async function refundsOfOrders(db: Db, orderIds: number[]): Promise<Map<number, RefundView[]>> {
  const out = new Map<number, RefundView[]>();
  if (orderIds.length === 0) return out;
  const [heads, lines] = await db.batch([
    db.select().from(refunds).where(idIn(refunds.orderId, orderIds)).orderBy(asc(refunds.orderId), asc(refunds.id)),
    db
      .select()
      .from(refundLines)
      .where(sql`${refundLines.refundId} in (select ${refunds.id} from ${refunds} where ${idIn(refunds.orderId, orderIds)})`)
      .orderBy(asc(refundLines.refundId), asc(refundLines.id)),
  ]);
  const byRefund = new Map<number, RefundLineRow[]>();
  for (const line of lines) byRefund.set(line.refundId, [...(byRefund.get(line.refundId) ?? []), line]);
  for (const head of heads) out.set(head.orderId, [...(out.get(head.orderId) ?? []), { ...head, lines: byRefund.get(head.id) ?? [] }]);
  return out;
}

/** One refund of the order found by its request key (a repeated call), or null. */
export async function refundByRequestKey(db: Db, orderId: number, requestKey: string): Promise<RefundView | null> {
  const [head] = await db
    .select()
    .from(refunds)
    .where(and(eq(refunds.orderId, orderId), eq(refunds.requestKey, requestKey)));
  if (!head) return null;
  const lines = await db.select().from(refundLines).where(eq(refundLines.refundId, head.id)).orderBy(asc(refundLines.id));
  return { ...head, lines };
}

/** The refunds recorded against these returns: each return's total (a statement for a caller's batch; read with totalsByReturn). */
export function refundTotalsQuery(db: Db, returnIds: number[]) {
  return db
    .select({ returnId: refunds.returnId, total: sql<number>`sum(${refunds.total})` })
    .from(refunds)
    .where(idIn(refunds.returnId, returnIds))
    .groupBy(refunds.returnId);
}

export function totalsByReturn(rows: { returnId: number | null; total: number }[]): Map<number, number> {
  return new Map(rows.map((r) => [r.returnId!, Math.round(r.total * 100) / 100]));
}

/** A seller's refund as its batch writes it. */
export interface HubRefundWrite {
  storeId: string;
  orderId: number;
  returnId: number | null;
  requestKey: string;
  /** Unique to this batch: the statements after the insert find the refund by it. */
  lastWrite: string;
  /** Pending when there is a marketplace to tell; NotApplicable when there is none (an inserted order). */
  status: "Pending" | "NotApplicable";
  reason: string;
  shippingAmount: number;
  total: number;
  lines: { orderItemId: number; quantity: number; amount: number }[];
  at: number;
}

/**
 * The refund and its lines, as two statements for the caller's batch. The insert happens only if
 * the order is this store's, every line is the order's, and no line, nor the shipping, would be
 * refunded beyond what was paid or ordered, counting every refund recorded before it in D1; a
 * refund with the same request key is left as it is (the repeat records nothing).
 */
export function hubRefundStatements(db: Db, w: HubRefundWrite): D1PreparedStatement[] {
  const d1 = db.$client;
  const lines = JSON.stringify(w.lines.map((l) => [l.orderItemId, l.quantity, l.amount]));
  const refunded = (what: "quantity" | "amount") => `coalesce((select sum(rl.${what}) from refund_lines as rl where rl.order_item_id = i.id), 0)`;
  const insert = `insert into refunds (store_id, order_id, return_id, origin, source_refund_id, request_key, status, reason, shipping_amount, total,
    currency, date_created, last_write)
    select ?1, o.id, ?3, 'hub', null, ?4, ?5, ?6, ?7, ?8, null, ?9, ?10
    from orders as o
    where o.id = ?2 and o.store_id = ?1
      and (select count(*) from json_each(?11) as l join order_items as i on i.id = l.value ->> 0 and i.order_id = o.id) = json_array_length(?11)
      and not exists (select 1 from json_each(?11) as l join order_items as i on i.id = l.value ->> 0
        where ${refunded("quantity")} + (l.value ->> 1) > i.quantity
           or ${refunded("amount")} + (l.value ->> 2) > ${PAID_SQL("i")} + ${CENT_TOLERANCE})
      and coalesce((select sum(r.shipping_amount) from refunds as r where r.order_id = o.id), 0) + ?7 <= o.shipping_total + o.shipping_tax_total +
        ${CENT_TOLERANCE}
    on conflict (order_id, request_key) do nothing`;
  const insertLines = `insert into refund_lines (refund_id, order_item_id, quantity, amount)
    select r.id, l.value ->> 0, l.value ->> 1, l.value ->> 2 from refunds as r, json_each(?2) as l
    where r.order_id = ?1 and r.last_write = ?3 order by l.key`;
  return [
    d1.prepare(insert).bind(w.storeId, w.orderId, w.returnId, w.requestKey, w.status, w.reason, w.shippingAmount, w.total, w.at, w.lastWrite, lines),
    d1.prepare(insertLines).bind(w.orderId, lines, w.lastWrite),
  ];
}

/** SQL: the refund of order `orderId` that the batch `lastWrite` inserted exists (a guard for the statements after it). */
export function refundWritten(orderId: number, lastWrite: string): SQL {
  return sql`exists (select 1 from ${refunds} where ${refunds.orderId} = ${orderId} and ${refunds.lastWrite} = ${lastWrite})`;
}

/** The refund the batch `lastWrite` inserted, as a FROM and WHERE for a statement that reads its id (the outbox row's payload). */
export function refundOfWrite(orderId: number, lastWrite: string): { from: SQL; where: SQL; id: SQL } {
  return { from: sql`${refunds}`, where: sql`${refunds.orderId} = ${orderId} and ${refunds.lastWrite} = ${lastWrite}`, id: sql`${refunds.id}` };
}

/** A refund the marketplace reported, as an import writes it: keyed by its order's number at the source. */
export interface ImportedRefundWrite {
  orderNumber: string;
  /** The marketplace's return it settles, when it came with one (the return is written earlier in the batch). */
  returnNumber: string | null;
  sourceRefundId: string;
  createdAt: number;
  reason: string | null;
  shippingAmount: number;
  currency: string | null;
  lines: { sourceLineId: string; quantity: number; amount: number }[];
}

/**
 * Refunds reported by the marketplace of source `?2`, for orders the batch already holds (the
 * order page's upsert runs before). A refund the order has under the same marketplace id (one the
 * hub sent and the marketplace now reports, or one imported before) is left as it is. Lines that
 * name no line of the order are left out of the lines; the total keeps what the marketplace said.
 */
export function importedRefundStatements(
  db: Db,
  source: { id: string; storeId: string },
  rows: ImportedRefundWrite[],
  lastWrite: string,
): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  const d1 = db.$client;
  const json = JSON.stringify(
    rows.map((r) => ({
      order: r.orderNumber,
      ret: r.returnNumber,
      id: r.sourceRefundId,
      at: r.createdAt,
      reason: r.reason ?? "",
      shipping: r.shippingAmount,
      currency: r.currency,
      total: Math.round((r.lines.reduce((n, l) => n + l.amount, 0) + r.shippingAmount) * 100) / 100,
      lines: r.lines.map((l) => [l.sourceLineId, l.quantity, l.amount]),
    })),
  );
  const orderOf =
    `(select o.id from orders as o where o.store_id = ?1 and o.order_source = (select name from sources where id = ?2) and ` +
    `o.order_source_order_number = f.value ->> 'order')`;
  const insert = `insert into refunds (store_id, order_id, return_id, origin, source_refund_id, request_key, status, reason, shipping_amount, total,
    currency, date_created, last_write)
    select ?1, ${orderOf}, (select id from returns where store_id = ?1 and source_id = ?2 and source_return_number = f.value ->> 'ret'),
      'marketplace', f.value ->> 'id', null, 'Refunded', f.value ->> 'reason', f.value ->> 'shipping', f.value ->> 'total', f.value ->> 'currency',
        f.value ->> 'at', ?3
    from json_each(?4) as f where ${orderOf} is not null
    on conflict (order_id, source_refund_id) do nothing`;
  const insertLines = `insert into refund_lines (refund_id, order_item_id, quantity, amount)
    select r.id, i.id, l.value ->> 1, l.value ->> 2
    from json_each(?4) as f cross join json_each(f.value -> 'lines') as l
      cross join refunds as r cross join order_items as i
    where r.order_id = ${orderOf} and r.source_refund_id = f.value ->> 'id' and r.last_write = ?3
      and i.order_id = r.order_id and i.source_line_id = l.value ->> 0`;
  return [d1.prepare(insert).bind(source.storeId, source.id, lastWrite, json), d1.prepare(insertLines).bind(source.storeId, source.id, lastWrite, json)];
}

/** SQL: ids of the orders (of `orderIds`, a subquery) given a refund by the batch `lastWrite`. */
export function ordersRefundedBy(lastWrite: string, orderIds: SQL): SQL {
  return sql`(select ${refunds.orderId} from ${refunds} where ${refunds.orderId} in ${orderIds} and ${refunds.lastWrite} = ${lastWrite})`;
}

/** What a refund delivery sends: the refund, its lines with the marketplace's line ids, and the return it names. */
export interface RefundForDelivery {
  id: number;
  reason: string;
  shippingAmount: number;
  total: number;
  currency: string | null;
  returnId: number | null;
  lines: { sourceLineId: string; sku: string; quantity: number; amount: number }[];
}

/** The refunds of these ids, for their deliveries (lines of an inserted order are numbered in order, as its deliveries are). */
export async function refundsForDelivery(db: Db, refundIds: number[]): Promise<Map<number, RefundForDelivery>> {
  const out = new Map<number, RefundForDelivery>();
  if (refundIds.length === 0) return out;
  const [heads, lines] = await db.batch([
    db.select().from(refunds).where(inArray(refunds.id, refundIds)),
    db
      .select({
        refundId: refundLines.refundId,
        quantity: refundLines.quantity,
        amount: refundLines.amount,
        sku: sql<string>`i.sku`,
        sourceLineId: sql<string>`coalesce(i.source_line_id, (select count(*) from order_items as j where j.order_id = i.order_id and j.id <= i.id))`,
      })
      .from(refundLines)
      .innerJoin(sql`order_items as i`, sql`i.id = ${refundLines.orderItemId}`)
      .where(idIn(refundLines.refundId, refundIds))
      .orderBy(asc(refundLines.refundId), asc(refundLines.id)),
  ]);
  for (const head of heads) {
    out.set(head.id, {
      id: head.id,
      reason: head.reason,
      shippingAmount: head.shippingAmount,
      total: head.total,
      currency: head.currency,
      returnId: head.returnId,
      lines: [],
    });
  }
  for (const line of lines)
    out.get(line.refundId)?.lines.push({ sourceLineId: String(line.sourceLineId), sku: line.sku, quantity: line.quantity, amount: line.amount });
  return out;
}

/** A purge of a deleted store, or a move's cleanup: the refunds of these orders (a subquery) and their lines, lines first. */
export function deleteRefundsOfOrders(db: Db, orderIds: SQL) {
  return [
    db.delete(refundLines).where(sql`${refundLines.refundId} in (select ${refunds.id} from ${refunds} where ${refunds.orderId} in ${orderIds})`),
    db.delete(refunds).where(sql`${refunds.orderId} in ${orderIds}`),
  ] as const;
}
