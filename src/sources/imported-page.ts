// A source's imported page as one write: its orders (src/orders/orders.writes.ts), the refunds the
// marketplace reports with them (decisions 13) and the orders the connector could not map (set
// aside, src/sources/set-aside.queries.ts) in one D1 batch, with the acknowledgements of new orders
// the connector decides by the stock their lines took (decisions 14), then what the marketplace
// reports of the orders' lines (decisions 12), applied as moves. The
// sync engine's import writes each page through here, and so does the operator's retry of
// set-aside orders, which maps the kept records again with the source's connector as it is now.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { orders, refunds } from "../db/schema";
import { randomId } from "../lib/crypto";
import { importPageStatements, touchOrdersIn } from "../orders/orders.writes";
import { orderWriteOf, type NewWireOrder, type OrderWrite } from "../orders/orders.wire";
import { importedRefundStatements, ordersRefundedBy, type ImportedRefundWrite } from "../refunds/refunds.queries";
import { orderRefundedEvents, toD1 } from "../webhooks/webhook-deliveries.queries";
import type { Connector, ImportedOrder, ImportedRefund, OrderPage, SetAsideOrder } from "../marketplaces/connector";
import { acceptOnImportStatement } from "../outbox/outbox.queries";
import { listSetAside, setAsideStatements } from "./set-aside.queries";
import { applyMarketplaceLines } from "../orders/order-move.service";
import type { MarketplaceLines } from "../orders/order-moves";

/** What of a source an imported page is written for. */
export interface ImportSource {
  id: string;
  storeId: string;
  cursorAt: number | null;
}

/** What writing a page did: orders that were new, and orders whose lines the marketplace's report moved. */
export interface PageWritten {
  imported: number;
  linesMoved: number;
  /** Orders (source order numbers) whose line report is still not applied: other requests kept changing them. */
  unapplied: string[];
}

/**
 * Writes one page (its orders and its set-aside orders) in one batch; then what the marketplace
 * reports of the page's orders' lines (decisions 12: shipped and cancelled units, packages) in one
 * read and one batch more, only for a page that reports any (src/orders/order-move.service.ts).
 */
export async function writePage(
  db: Db,
  source: ImportSource,
  page: Pick<OrderPage, "orders" | "setAside">,
  now: number,
  acceptOnImport?: Connector["acceptOnImport"],
): Promise<PageWritten> {
  const refunded = page.orders.flatMap((order) => refundWrites(order.sourceOrderNumber, null, order.refunds));
  const statements = [
    ...(page.orders.length > 0
      ? importPageStatements(
          db,
          source,
          page.orders.map((order) => toWrite(order, now)),
          now,
        )
      : []),
    // After the orders and their lines: a refund names both.
    ...importedRefundsStatements(db, source, refunded, randomId("rw"), now),
    ...setAsideStatements(db, source, page, now),
    ...acceptanceStatements(db, source, page.orders, acceptOnImport, now),
  ];
  if (statements.length === 0) return { imported: 0, linesMoved: 0, unapplied: [] };
  const [existing] = await db.$client.batch<{ n: number }>(statements);
  const imported = page.orders.length > 0 ? page.orders.length - (existing?.results[0]?.n ?? 0) : 0;
  const reports = new Map(
    page.orders.flatMap((order) => {
      const report = lineReportOf(order);
      return report ? [[order.sourceOrderNumber, report] as const] : [];
    }),
  );
  const lines = reports.size > 0 ? await applyMarketplaceLines(db, source, reports, now) : { moved: 0, unapplied: [] };
  return { imported, linesMoved: lines.moved, unapplied: lines.unapplied };
}

/**
 * Decisions 14: the acknowledgement queued for each of the page's orders that waits for the
 * seller's acceptance (the connector's acceptOnImport), last in the page's batch: the lines'
 * insert before it has recorded what each line took (order_items.stock_taken), which decides
 * the acceptance when the row is delivered. Only orders new to the hub get a row
 * (acceptOnImportStatement).
 */
function acceptanceStatements(
  db: Db,
  source: ImportSource,
  imported: ImportedOrder[],
  acceptOnImport: Connector["acceptOnImport"],
  now: number,
): D1PreparedStatement[] {
  const waiting = acceptOnImport ? imported.filter((order) => acceptOnImport(order)).map((order) => order.sourceOrderNumber) : [];
  return waiting.length > 0 ? [acceptOnImportStatement(db.$client, source, waiting, now)] : [];
}

/** The refunds the marketplace reports with an order or with one of its returns, as rows to write. */
export function refundWrites(orderNumber: string, returnNumber: string | null, reported: ImportedRefund[] = []): ImportedRefundWrite[] {
  return reported.map((f) => ({
    orderNumber,
    returnNumber,
    sourceRefundId: f.sourceRefundId,
    createdAt: f.createdAt.getTime(),
    reason: f.reason,
    shippingAmount: f.shippingAmount,
    currency: f.currency,
    lines: f.lines,
  }));
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

/** What the order reports of its lines (ImportedOrder's optional fields of decisions 12), or null when nothing. */
export function lineReportOf(order: ImportedOrder): MarketplaceLines | null {
  const counted = order.items.some((item) => item.quantityShipped !== undefined || item.quantityCancelled !== undefined);
  if (!counted && order.shipments === undefined) return null;
  return {
    items: order.items.map((item) => ({ sourceLineId: item.sourceLineId, quantityShipped: item.quantityShipped, quantityCancelled: item.quantityCancelled })),
    ...(order.shipments
      ? {
          shipments: order.shipments.map((s) => ({
            sourceShipmentId: s.sourceShipmentId,
            trackingNumber: s.trackingNumber,
            carrier: s.carrier,
            shippingMethod: s.shippingMethod,
            shippedAt: s.shippedAt && !Number.isNaN(s.shippedAt.getTime()) ? s.shippedAt.getTime() : null,
            lines: s.lines,
          })),
        }
      : {}),
  };
}

/**
 * An imported order in the interface's words, for the one builder of a new order's row
 * (src/orders/orders.wire.ts's orderWriteOf). It arrives New, without seller data.
 */
export function asWireOrder(order: ImportedOrder): NewWireOrder {
  return {
    OrderSourceOrderNumber: order.sourceOrderNumber,
    OrderSourceCustomerOrderNumber: order.sourceCustomerOrderNumber,
    BuyerEmailAddress: order.buyerEmail,
    BuyerPhoneNumber: order.buyerPhone,
    BuyerUserId: order.buyerUserId,
    FirstName: order.shipTo.firstName,
    LastName: order.shipTo.lastName,
    ShipToCompanyName: order.shipTo.companyName,
    Street1: order.shipTo.street1,
    Street2: order.shipTo.street2,
    City: order.shipTo.city,
    StateOrProvince: order.shipTo.stateOrProvince,
    PostalCode: order.shipTo.postalCode,
    Country: order.shipTo.country,
    ShippingMethod: order.shippingMethod,
    ShippingServiceName: order.shippingServiceName,
    ShippingServiceValue: order.shippingServiceValue,
    PaymentType: order.paymentType,
    PaymentTransactionId: order.paymentTransactionId,
    IsMarketplacePrime: order.isPrime,
    GrandTotal: order.grandTotal,
    SubTotal: order.subTotal,
    ShippingTotal: order.shippingTotal,
    ShippingTaxTotal: order.shippingTaxTotal,
    GiftWrapTotal: order.giftWrapTotal,
    GiftWrapTaxTotal: order.giftWrapTaxTotal,
    DateCreatedInOrderSource: order.createdAt.getTime(),
    OrderItems: order.items.map((item) => ({
      Sku: item.sku,
      Name: item.name,
      Quantity: item.quantity,
      UnitPrice: item.unitPrice,
      SaleTaxCost: item.saleTaxCost,
      Discount: item.discount,
    })),
  };
}

/** An imported order's row: the interface's Order with the marketplace's own facts. */
export function toWrite(order: ImportedOrder, now: number): OrderWrite {
  return orderWriteOf(asWireOrder(order), now, {
    sourceOrderStatus: order.sourceOrderStatus,
    sourceData: order.sourceData && Object.keys(order.sourceData).length > 0 ? JSON.stringify(order.sourceData) : null,
    lineIds: order.items.map((item) => item.sourceLineId),
  });
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
    await writePage(db, source, { orders: orders.slice(i, i + 100), setAside: setAside.slice(i, i + 100) }, now, connector.acceptOnImport?.bind(connector));
  }
  return { retried: rows.length - truncated, imported: orders.length, stillSetAside: setAside.length + truncated };
}
