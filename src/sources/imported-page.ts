// A source's imported page as one write: its orders (src/orders/orders.writes.ts), the refunds the
// marketplace reports with them (decisions 13) and the orders the connector could not map (set
// aside, src/sources/set-aside.queries.ts) in one D1 batch. The
// sync engine's import writes each page through here, and so does the operator's retry of
// set-aside orders, which maps the kept records again with the source's connector as it is now.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { orders, refunds } from "../db/schema";
import { randomId } from "../lib/crypto";
import { importPageStatements, touchOrdersIn, type OrderWrite } from "../orders/orders.writes";
import { importedRefundStatements, ordersRefundedBy, type ImportedRefundWrite } from "../refunds/refunds.queries";
import { orderRefundedEvents, toD1 } from "../webhooks/webhook-deliveries.queries";
import type { Connector, ImportedOrder, OrderPage, SetAsideOrder } from "../marketplaces/connector";
import { listSetAside, setAsideStatements } from "./set-aside.queries";

/** What of a source an imported page is written for. */
export interface ImportSource {
  id: string;
  storeId: string;
  cursorAt: number | null;
}

/** Writes one page (its orders and its set-aside orders); answers how many of its orders were new. */
export async function writePage(db: Db, source: ImportSource, page: Pick<OrderPage, "orders" | "setAside">, now: number): Promise<number> {
  const refunded: ImportedRefundWrite[] = page.orders.flatMap((order) =>
    (order.refunds ?? []).map((f) => ({
      orderNumber: order.sourceOrderNumber,
      returnNumber: null,
      sourceRefundId: f.sourceRefundId,
      createdAt: f.createdAt.getTime(),
      reason: f.reason,
      shippingAmount: f.shippingAmount,
      currency: f.currency,
      lines: f.lines,
    })),
  );
  const statements = [
    ...(page.orders.length > 0 ? importPageStatements(db, source, page.orders.map(toWrite), now) : []),
    // After the orders and their lines: a refund names both.
    ...importedRefundsStatements(db, source, refunded, randomId("rw"), now),
    ...setAsideStatements(db, source, page, now),
  ];
  if (statements.length === 0) return 0;
  const [existing] = await db.$client.batch<{ n: number }>(statements);
  return page.orders.length > 0 ? page.orders.length - (existing?.results[0]?.n ?? 0) : 0;
}

/**
 * The refunds a marketplace reports (with its orders or its returns), for the batch that holds
 * their orders: the refunds, their order.refunded events, and their orders' DateUpdated.
 */
export function importedRefundsStatements(db: Db, source: ImportSource, rows: ImportedRefundWrite[], lastWrite: string, now: number): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  const orderIds = sql`(select ${orders.id} from ${orders} where ${orders.storeId} = ${source.storeId}
    and ${orders.orderSource} = (select name from sources where id = ${source.id})
    and ${orders.orderSourceOrderNumber} in (select value from json_each(${JSON.stringify([...new Set(rows.map((r) => r.orderNumber))])})))`;
  return [
    ...importedRefundStatements(db, source, rows, lastWrite),
    toD1(db, orderRefundedEvents(db, now, sql`${refunds.orderId} in ${orderIds} and ${refunds.lastWrite} = ${lastWrite}`)),
    toD1(db, touchOrdersIn(db, ordersRefundedBy(lastWrite, orderIds), now)),
  ];
}

/** An imported order as the order write statement takes it: New, no seller data yet. */
export function toWrite(order: ImportedOrder): OrderWrite {
  return {
    orderSourceOrderNumber: order.sourceOrderNumber,
    orderSourceCustomerOrderNumber: order.sourceCustomerOrderNumber,
    orderDestinationOrderNumber: null,
    status: "New",
    sourceOrderStatus: order.sourceOrderStatus,
    buyerEmailAddress: order.buyerEmail,
    buyerPhoneNumber: order.buyerPhone,
    buyerUserId: order.buyerUserId,
    firstName: order.shipTo.firstName,
    lastName: order.shipTo.lastName,
    shipToCompanyName: order.shipTo.companyName,
    street1: order.shipTo.street1,
    street2: order.shipTo.street2 ?? "",
    city: order.shipTo.city,
    stateOrProvince: order.shipTo.stateOrProvince,
    postalCode: order.shipTo.postalCode,
    country: order.shipTo.country,
    shippingMethod: order.shippingMethod,
    shippingServiceName: order.shippingServiceName ?? "",
    shippingServiceValue: order.shippingServiceValue ?? "",
    destinationShippingCarrier: "",
    paymentType: order.paymentType,
    paymentTransactionId: order.paymentTransactionId,
    isMarketplacePrime: order.isPrime,
    grandTotal: order.grandTotal,
    subTotal: order.subTotal,
    shippingTotal: order.shippingTotal,
    shippingTaxTotal: order.shippingTaxTotal,
    giftWrapTotal: order.giftWrapTotal,
    giftWrapTaxTotal: order.giftWrapTaxTotal,
    shipmentTrackingNumber: null,
    syncUserErrorMessage: null,
    sourceData: order.sourceData && Object.keys(order.sourceData).length > 0 ? JSON.stringify(order.sourceData) : null,
    dateCreatedInOrderSource: order.createdAt.getTime(),
    dateCreatedInDestination: null,
    dateShipped: null,
    items: order.items.map((item) => ({
      sourceLineId: item.sourceLineId,
      sku: item.sku,
      name: item.name,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      saleTaxCost: item.saleTaxCost,
      discount: item.discount ?? "0",
    })),
  };
}

export interface SetAsideRetry {
  /** Set-aside orders mapped again. */
  retried: number;
  /** Of those, imported now (and no longer set aside). */
  imported: number;
  /** Still set aside: the reason the mapping gave this time, or a record cut at 64 KiB. */
  stillSetAside: number;
}

/**
 * The operator's retry (decisions 6): each set-aside order's record is mapped again by the
 * source's connector (fixed since, or the marketplace's data fixed since). Those that map are
 * written like an imported page and leave the set-aside list; the others keep their row with
 * the new reason. A record cut at 64 KiB cannot be mapped from here: import its window again
 * (ImportFrom) instead.
 */
export async function retrySetAside(db: Db, source: ImportSource, connector: Connector, now: number, numbers: string[] | null): Promise<SetAsideRetry> {
  const named = numbers === null ? null : new Set(numbers);
  const rows = (await listSetAside(db, source.id, 1000)).filter((r) => named === null || named.has(r.orderSourceOrderNumber));
  const orders: ImportedOrder[] = [];
  const setAside: SetAsideOrder[] = [];
  let truncated = 0;
  for (const row of rows) {
    if (row.recordTruncated) {
      truncated += 1;
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(row.record);
    } catch {
      setAside.push({ sourceOrderNumber: row.orderSourceOrderNumber, reason: "the kept record is not JSON", record: row.record });
      continue;
    }
    const mapped = connector.remap(record);
    if ("reason" in mapped) setAside.push({ ...mapped, sourceOrderNumber: row.orderSourceOrderNumber });
    else if (mapped.sourceOrderNumber !== row.orderSourceOrderNumber) {
      setAside.push({ sourceOrderNumber: row.orderSourceOrderNumber, reason: `the record maps to another order (${mapped.sourceOrderNumber})`, record });
    } else orders.push(mapped);
  }
  for (let i = 0; i < Math.max(orders.length, setAside.length); i += 100) {
    await writePage(db, source, { orders: orders.slice(i, i + 100), setAside: setAside.slice(i, i + 100) }, now);
  }
  return { retried: rows.length - truncated, imported: orders.length, stillSetAside: setAside.length + truncated };
}
