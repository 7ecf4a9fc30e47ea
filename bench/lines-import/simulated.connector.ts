// Bench only: what bench/sync.bench.mjs builds in place of src/marketplaces/simulated/simulated.connector.ts
// (an [alias] of "./simulated/simulated.connector" in that bench's own wrangler config, so the
// registry, and with it the cycle the cron runs, builds this one). It is the simulated connector
// unchanged unless a source's Settings.lineChanges holds the bench's marker keys:
// - "bench:3-lines": every order the marketplace sends has exactly 3 lines of 3 units each;
// - "bench:moved" (with "bench:3-lines"): the marketplace now reports line-level changes of its own
//   on every order (decisions 12): 1 or 2 packages (the second on every other order) and 1 or 2
//   cancelled units, as lines' quantityShipped and quantityCancelled and as shipments.
// The markers are ordinary lineChanges keys (no order is numbered so), so the service's own Settings
// validation takes them. Nothing under src/ refers to this file.
import type { ConnectorContext, ImportedOrder, ImportedShipment } from "../../src/marketplaces/connector";
import { createSimulatedConnector as simulatedConnector } from "../../src/marketplaces/simulated/simulated.connector";
import type { SourceStorage } from "../../src/marketplaces/storage";

export * from "../../src/marketplaces/simulated/simulated.connector";

const THREE_LINES = "bench:3-lines";
const MOVED = "bench:moved";

/** Order k's 3 lines, each of 3 units, with the Skus and prices of the order as the simulator drew it. */
function threeLines(order: ImportedOrder): ImportedOrder {
  const items = [0, 1, 2].map((i) => {
    const drawn = order.items[i % order.items.length]!;
    return { ...drawn, sourceLineId: String(i + 1), quantity: 3, discount: "0.00" };
  });
  const subTotal = Math.round(items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0) * 100) / 100;
  return { ...order, items, subTotal, grandTotal: Math.round((subTotal + order.shippingTotal) * 100) / 100 };
}

/**
 * What the marketplace reports of order k's lines now: package 1 holds 2 units of line 1 and 1 of
 * line 2; on an odd k package 2 holds 1 unit of line 3; 1 unit of line 2 is cancelled, and on a k
 * divisible by 3 one of line 3 too.
 */
function moved(order: ImportedOrder, k: number): ImportedOrder {
  const shipments: ImportedShipment[] = [
    {
      sourceShipmentId: `BENCH-PKG-${order.sourceOrderNumber}-1`,
      trackingNumber: `BENCHTRK${k}A`,
      carrier: "UPS",
      shippingMethod: order.shippingMethod,
      shippedAt: new Date(order.createdAt.getTime() + 3_600_000),
      lines: [
        { sourceLineId: "1", quantity: 2 },
        { sourceLineId: "2", quantity: 1 },
      ],
    },
  ];
  if (k % 2 === 1) {
    shipments.push({
      sourceShipmentId: `BENCH-PKG-${order.sourceOrderNumber}-2`,
      trackingNumber: `BENCHTRK${k}B`,
      carrier: "USPS",
      shippingMethod: order.shippingMethod,
      shippedAt: new Date(order.createdAt.getTime() + 7_200_000),
      lines: [{ sourceLineId: "3", quantity: 1 }],
    });
  }
  const shipped = (line: string) => shipments.reduce((n, s) => n + (s.lines.find((l) => l.sourceLineId === line)?.quantity ?? 0), 0);
  const cancelled: Record<string, number> = { "1": 0, "2": 1, "3": k % 3 === 0 ? 1 : 0 };
  return {
    ...order,
    items: order.items.map((item) => ({ ...item, quantityShipped: shipped(item.sourceLineId), quantityCancelled: cancelled[item.sourceLineId] ?? 0 })),
    shipments,
  };
}

export function createSimulatedConnector(ctx: ConnectorContext, storage: SourceStorage): ReturnType<typeof simulatedConnector> {
  const connector = simulatedConnector(ctx, storage);
  const marks = (ctx.settings.lineChanges ?? {}) as Record<string, unknown>;
  if (!(THREE_LINES in marks)) return connector;
  const reportMoves = MOVED in marks;
  return {
    ...connector,
    async fetchOrders(window, cursor) {
      const page = await connector.fetchOrders(window, cursor);
      const orders = page.orders.map((order) => {
        const shaped = threeLines(order);
        return reportMoves ? moved(shaped, Number(order.sourceOrderNumber.split("-").pop())) : shaped;
      });
      return { ...page, orders };
    },
  };
}
