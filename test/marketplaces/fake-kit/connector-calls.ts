// What a connector test does around a connector the way the sync engine would: import a window
// page by page (each page counted as written), and build the order a delivery names from an imported order.
import type { Connector, DeliveryOrder, ImportedOrder, ImportWindow, OrderPage } from "../../../src/marketplaces/connector";

/** Every page of `window`, in order; `between` runs after each page; an import past `maxPages` pages fails the test. */
export async function importAll(
  connector: Pick<Connector, "fetchOrders">,
  window: ImportWindow,
  opts: { between?: (page: number) => void; maxPages?: number } = {},
): Promise<OrderPage[]> {
  const pages: OrderPage[] = [];
  let cursor: string | null = null;
  do {
    const page: OrderPage = await connector.fetchOrders(window, cursor);
    // Written, as the engine would write it before asking for the next page, every report applied.
    page.written?.(new Set());
    pages.push(page);
    cursor = page.nextCursor;
    opts.between?.(pages.length);
    if (pages.length > (opts.maxPages ?? 20)) throw new Error("the import does not end");
  } while (cursor !== null);
  return pages;
}

/** The order as a delivery hands it to the connector: every line, with the seller's number when acknowledged. */
export function deliveryOrder(order: ImportedOrder, sellerOrderNumber: string | null = null): DeliveryOrder {
  return {
    sourceOrderNumber: order.sourceOrderNumber,
    sourceCustomerOrderNumber: order.sourceCustomerOrderNumber,
    sellerOrderNumber,
    sourceData: order.sourceData ?? {},
    lines: order.items.map((i) => ({ sourceLineId: i.sourceLineId, sku: i.sku, quantity: i.quantity })),
  };
}
