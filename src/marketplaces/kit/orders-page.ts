// A page of marketplace records split into orders and set-aside orders, one record at a time:
// whatever a record makes the mapper throw (its own Unmappable, or a TypeError of a field that
// is not the shape the marketplace publishes) sets that record aside with the reason, and the
// rest of the page is imported (decisions 6). Unmappable is the one way a mapper says "not this
// record"; the same reading serves the operator's retry (Connector.remap).
import { MarketplaceError, type ImportedOrder, type OrderPage, type SetAsideOrder } from "../connector";

/** Why a record cannot become an order: the data will not change on a retry. */
export class Unmappable extends Error {
  override name = "Unmappable";
}

/** How a connector reads one record of its order list. */
export interface OrderReader {
  /** The record as an order; throws Unmappable (or anything else) when it cannot be one. */
  map(record: unknown): ImportedOrder;
  /** The number the set-aside row is kept under, read from whatever the record is ("" when none). */
  numberOf(record: unknown): string;
  /** The reason the operator reads, from the mapper's message and that number. */
  reason(message: string, orderNumber: string): string;
}

/** The record as an order, or set aside with the reason whatever the mapper threw. */
export function readOrder(reader: OrderReader, record: unknown): ImportedOrder | SetAsideOrder {
  try {
    return reader.map(record);
  } catch (error) {
    let orderNumber = "";
    try {
      orderNumber = reader.numberOf(record);
    } catch {
      // A record too odd even for its number is kept under "".
    }
    const message = error instanceof Unmappable ? error.message : `the record does not have the shape the marketplace publishes (${thrownText(error)})`;
    return { sourceOrderNumber: orderNumber, reason: reader.reason(message, orderNumber), record };
  }
}

/**
 * The orders and set-aside orders of one page's records. `records` not being a list is the
 * answer's fault, not a record's: a retryable MarketplaceError naming `label`.
 */
export function splitPage(reader: OrderReader, records: unknown, label: string): Pick<OrderPage, "orders" | "setAside"> {
  if (!Array.isArray(records)) throw new MarketplaceError(`${label}: the answer's order list is not a list`, 200, true);
  const page: Pick<OrderPage, "orders" | "setAside"> = { orders: [], setAside: [] };
  for (const record of records as unknown[]) {
    const read = readOrder(reader, record);
    if (isSetAside(read)) page.setAside.push(read);
    else page.orders.push(read);
  }
  return page;
}

export function isSetAside(value: ImportedOrder | SetAsideOrder): value is SetAsideOrder {
  return "reason" in value && "record" in value;
}

function thrownText(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return "an unreadable error";
  }
}
