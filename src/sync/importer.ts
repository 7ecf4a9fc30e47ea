// Import: every page the connector hands over is written with one db.batch of three statements,
// whatever the page size: the whole page travels as one JSON parameter and SQLite's json_each
// unpacks it (D1 binds at most 100 parameters a statement, which would otherwise mean one
// statement per order or two). The upsert on the unique index orders_store_source_number makes
// a page written twice (a re-run, or a cycle cut off and started again) leave each order once.
import type { Db } from "../db/client";
import type { Connector, ImportedOrder, OrderPage } from "./connector";

/** How far before the cursor each fetch starts: marketplaces index late and clocks differ. */
export const OVERLAP_MS = 10 * 60_000;
/** A source's first fetch looks back this far (Walmart's own default window is 7 days). */
export const FIRST_LOOKBACK_MS = 7 * 24 * 60 * 60_000;

export interface ImportSource {
  id: string;
  storeId: string;
  name: string;
  cursorAt: number | null;
}

/** Where an unfinished import stands: the window it fetches and the marketplace's next page. */
export interface ImportProgress {
  since: number;
  cursor: string;
  /** The cursor the source takes once this import completes. */
  cursorAt: number;
}

export interface ImportResult {
  fetched: number;
  imported: number;
  pages: number;
  /** Set when the page budget ran out first: the next invocation resumes from here. */
  unfinished: ImportProgress | null;
  /** The new cursor once complete: the time the fetch started (orders changed later are the next cycle's). */
  cursorAt: number;
}

/** Pages one invocation imports (100 orders each by default) before handing over to the next. */
export const MAX_PAGES_PER_INVOCATION = 200;

export function importSince(cursorAt: number | null, now: number): number {
  return cursorAt === null ? now - FIRST_LOOKBACK_MS : cursorAt - OVERLAP_MS;
}

export interface ImportOptions {
  /** Continue an import an earlier invocation left unfinished. */
  resume?: ImportProgress | null;
  /** Called after each page is written, with where the next invocation would resume. */
  onProgress?: (progress: ImportProgress | null) => void;
  /** Called with each page's count of new orders (they count even if a later page fails). */
  onImported?: (count: number) => void;
  maxPages?: number;
}

/**
 * Fetches and writes pages until the marketplace has no more, or the page budget is spent (a
 * backlog larger than one invocation's CPU then spreads over several, each resuming where the
 * last one wrote its last page).
 */
export async function importOrders(
  db: Db,
  source: ImportSource,
  connector: Connector,
  now: number,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const resume = options.resume ?? null;
  const since = resume ? resume.since : importSince(source.cursorAt, now);
  const result: ImportResult = { fetched: 0, imported: 0, pages: 0, unfinished: null, cursorAt: resume ? resume.cursorAt : now };
  let cursor: string | null = resume ? resume.cursor : null;
  do {
    if (result.pages >= (options.maxPages ?? MAX_PAGES_PER_INVOCATION)) {
      result.unfinished = { since, cursor: cursor!, cursorAt: result.cursorAt };
      return result;
    }
    const page: OrderPage = await connector.fetchOrders(new Date(since), cursor);
    result.pages += 1;
    result.fetched += page.orders.length;
    if (page.orders.length > 0) {
      const count = await writePage(db, source, page.orders, now);
      result.imported += count;
      options.onImported?.(count);
    }
    cursor = page.nextCursor;
    options.onProgress?.(cursor === null ? null : { since, cursor, cursorAt: result.cursorAt });
  } while (cursor !== null);
  return result;
}

/** Writes one page; answers how many of its orders were new. */
export async function writePage(db: Db, source: ImportSource, page: ImportedOrder[], now: number): Promise<number> {
  const rows = JSON.stringify(page.map(toRow));
  // Plain D1 statements: drizzle 0.45's batch cannot carry a raw `sql` statement with parameters.
  const d1 = db.$client;
  const [existing] = await d1.batch<{ n: number }>([
    d1.prepare(COUNT_KNOWN).bind(source.storeId, source.name, rows),
    d1.prepare(UPSERT_ORDERS).bind(source.storeId, source.id, source.name, now, rows),
    d1.prepare(INSERT_ITEMS).bind(rows, source.storeId, source.name),
  ]);
  return page.length - (existing?.results[0]?.n ?? 0);
}

const COUNT_KNOWN = `select count(*) as n from orders
  where store_id = ?1 and order_source = ?2 and order_source_order_number in (select value ->> 'number' from json_each(?3))`;

function toRow(order: ImportedOrder) {
  return {
    number: order.sourceOrderNumber,
    customerNumber: order.sourceCustomerOrderNumber,
    status: order.sourceOrderStatus,
    createdAt: order.createdAt.getTime(),
    email: order.buyerEmail,
    phone: order.buyerPhone,
    buyerUserId: order.buyerUserId,
    ...order.shipTo,
    shippingMethod: order.shippingMethod,
    shippingServiceName: order.shippingServiceName,
    shippingServiceValue: order.shippingServiceValue,
    paymentType: order.paymentType,
    paymentTransactionId: order.paymentTransactionId,
    isPrime: order.isPrime,
    subTotal: order.subTotal,
    shippingTotal: order.shippingTotal,
    shippingTaxTotal: order.shippingTaxTotal,
    giftWrapTotal: order.giftWrapTotal,
    giftWrapTaxTotal: order.giftWrapTaxTotal,
    grandTotal: order.grandTotal,
    items: order.items,
  };
}

// A new order starts New. A known one only takes the marketplace's status word (the client owns
// OrderStatus), and an order inserted by a client under this source's name before the source
// existed is claimed by it.
const UPSERT_ORDERS = `insert into orders (
    store_id, source_id, order_source, order_source_order_number, order_source_customer_order_number,
    status, source_order_status, buyer_email_address, buyer_phone_number, buyer_user_id,
    first_name, last_name, ship_to_company_name, street1, street2, city, state_or_province, postal_code, country,
    shipping_method, shipping_service_name, shipping_service_value, destination_shipping_carrier,
    payment_type, payment_transaction_id, is_marketplace_prime,
    grand_total, sub_total, shipping_total, shipping_tax_total, gift_wrap_total, gift_wrap_tax_total,
    date_created_in_order_source, date_updated)
  select ?1, ?2, ?3, o ->> 'number', o ->> 'customerNumber',
    'New', o ->> 'status', o ->> 'email', o ->> 'phone', o ->> 'buyerUserId',
    o ->> 'firstName', o ->> 'lastName', o ->> 'companyName', o ->> 'street1', coalesce(o ->> 'street2', ''),
    o ->> 'city', o ->> 'stateOrProvince', o ->> 'postalCode', o ->> 'country',
    o ->> 'shippingMethod', coalesce(o ->> 'shippingServiceName', ''), coalesce(o ->> 'shippingServiceValue', ''), '',
    o ->> 'paymentType', o ->> 'paymentTransactionId', o ->> 'isPrime',
    o ->> 'grandTotal', o ->> 'subTotal', o ->> 'shippingTotal', o ->> 'shippingTaxTotal', o ->> 'giftWrapTotal', o ->> 'giftWrapTaxTotal',
    o ->> 'createdAt', ?4
  from (select value as o from json_each(?5)) where true
  on conflict (store_id, order_source, order_source_order_number) do update set
    source_order_status = excluded.source_order_status,
    source_id = coalesce(orders.source_id, excluded.source_id),
    date_updated = max(excluded.date_updated, orders.date_updated + 1)
  where orders.source_order_status is not excluded.source_order_status or orders.source_id is null`;

// Lines are matched by the marketplace's line id, so a page written again adds none twice; the
// upsert and this insert share the batch, so no order is ever seen without its lines. CROSS JOIN
// pins the loop order (SQLite never reorders it): page first, then one index probe per order.
// Left to the planner, it scanned every order of the source once per page, quadratic in the
// source's size (a 10,000-order import took minutes).
const INSERT_ITEMS = `insert into order_items (order_id, source_line_id, sku, name, quantity, unit_price, sale_tax_cost, discount)
  select orders.id, line.value ->> 'sourceLineId', line.value ->> 'sku', line.value ->> 'name', line.value ->> 'quantity',
    line.value ->> 'unitPrice', line.value ->> 'saleTaxCost', coalesce(line.value ->> 'discount', '0')
  from json_each(?1) as page
    cross join orders
    cross join json_each(page.value, '$.items') as line
  where orders.store_id = ?2 and orders.order_source = ?3 and orders.order_source_order_number = page.value ->> 'number'
    and not exists (select 1 from order_items as known
      where known.order_id = orders.id and known.source_line_id = line.value ->> 'sourceLineId')`;
