// Walmart by line (decisions 12): each package as its own shippingUpdates call naming only its
// lines and units, line cancellations through cancelOrderLines, and the lines Walmart reports
// shipped or cancelled (its orderLineStatuses) read back at import, against the fake that keeps
// each line's statuses as Walmart does.
import { describe, expect, it } from "vitest";
import type { CancelDelivery, Connector, DeliveryOrder, EarlierDelivery, ImportedOrder, LineQuantity, ShipDelivery } from "../../../src/marketplaces/connector";
import { createWalmartConnector } from "../../../src/marketplaces/walmart/walmart.connector";
import { rejection } from "../../helpers/rejection";
import { deliveryOrder } from "../fake-kit/connector-calls";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET, type WalmartFake } from "./walmart-fake";

const START = Date.parse("2026-03-01T12:00:00Z");
const WINDOW = { since: new Date("2026-02-28T00:00:00Z"), until: new Date("2026-03-01T11:58:00Z") };
const PO = "1796277083022";

/** The documented order 1796277083022 made a two-line order: line 4 three units, line 5 two. */
function setup() {
  const now = () => new Date(START);
  const fake = createWalmartFake({ now });
  fake.editOrder(PO, (order) => {
    const line4 = order.orderLines!.orderLine![0]!;
    line4.orderLineQuantity = { unitOfMeasurement: "EACH", amount: "3" };
    line4.orderLineStatuses = { orderLineStatus: [{ status: "Acknowledged", statusQuantity: { unitOfMeasurement: "EACH", amount: "3" } }] };
    const line5 = structuredClone(line4);
    line5.lineNumber = "5";
    line5.item = { ...line5.item, sku: "test2" };
    line5.orderLineQuantity = { unitOfMeasurement: "EACH", amount: "2" };
    line5.orderLineStatuses = { orderLineStatus: [{ status: "Acknowledged", statusQuantity: { unitOfMeasurement: "EACH", amount: "2" } }] };
    order.orderLines!.orderLine!.push(line5);
  });
  const connector = createWalmartConnector({
    sourceId: "source-1",
    settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    fetch: fake.fetch,
    now,
  });
  return { fake, connector };
}

async function imported(connector: Connector): Promise<ImportedOrder> {
  const page = await connector.fetchOrders(WINDOW, null);
  return page.orders.find((o) => o.sourceOrderNumber === PO)!;
}

let nextId = 1;
function ship(order: DeliveryOrder, shipmentId: string, trackingNumber: string, lines: LineQuantity[], earlier: EarlierDelivery[] = []): ShipDelivery {
  const id = nextId++;
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    order,
    earlier,
    kind: "ship",
    shipment: { shipmentId, trackingNumber, carrier: "UPS", shippingMethod: "Standard", shippedAt: new Date("2026-03-01T10:00:00Z"), lines },
  };
}

function cancel(order: DeliveryOrder, lines: LineQuantity[] | null): CancelDelivery {
  const id = nextId++;
  return { id, idempotencyKey: `source-1-${id}`, order, earlier: [], kind: "cancel", reason: "Out of stock", lines };
}

interface SentLine {
  lineNumber: string;
  orderLineStatuses: { orderLineStatus: { status: string; statusQuantity: { amount: string }; trackingInfo?: { trackingNumber: string } }[] };
}

/** lineNumber:amount:trackingNumber of each line a call sent, read from the body as Walmart would. */
function sentLines(fake: WalmartFake, index = -1): string[] {
  const call = fake.apiRequests().at(index)!;
  const body = JSON.parse(call.rawBody) as {
    orderShipment?: { orderLines: { orderLine: SentLine[] } };
    orderCancellation?: { orderLines: { orderLine: SentLine[] } };
  };
  const lines = (body.orderShipment ?? body.orderCancellation)!.orderLines.orderLine;
  return lines.flatMap((l) =>
    l.orderLineStatuses.orderLineStatus.map((s) => `${l.lineNumber}:${s.statusQuantity.amount}:${s.trackingInfo?.trackingNumber ?? s.status}`),
  );
}

/** status:amount:trackingNumber of each status entry of a line as the fake now holds it. */
function lineState(fake: WalmartFake, lineNumber: string): string[] {
  const line = fake.order(PO)!.orderLines!.orderLine!.find((l) => l.lineNumber === lineNumber)!;
  return line.orderLineStatuses!.orderLineStatus!.map(
    (s) => `${s.status}:${s.statusQuantity?.amount}${s.trackingInfo?.trackingNumber ? `:${s.trackingInfo.trackingNumber}` : ""}`,
  );
}

describe("Walmart ships by package", () => {
  it("sends two packages of one order as two calls, each naming only its lines and units", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector), "SO-7");
    expect(order.lines.map((l) => `${l.sourceLineId}:${l.quantity}`)).toEqual(["4:3", "5:2"]);

    expect(await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "4", quantity: 2 }]))).toEqual({ state: "delivered" });
    expect(fake.apiRequests().at(-1)!.path).toBe(`/v3/orders/${PO}/shipping`);
    expect(sentLines(fake)).toEqual(["4:2:1Z0000000000000001"]);

    const second = ship(order, "shp_2", "1Z0000000000000002", [
      { sourceLineId: "4", quantity: 1 },
      { sourceLineId: "5", quantity: 2 },
    ]);
    expect(await connector.ship(second)).toEqual({ state: "delivered" });
    expect(sentLines(fake)).toEqual(["4:1:1Z0000000000000002", "5:2:1Z0000000000000002"]);

    expect(lineState(fake, "4")).toEqual(["Shipped:2:1Z0000000000000001", "Shipped:1:1Z0000000000000002"]);
    expect(lineState(fake, "5")).toEqual(["Shipped:2:1Z0000000000000002"]);
    expect(fake.violations).toEqual([]);
  });

  it("a correction of package 2 sends package 2's lines only; Walmart, which has no tracking update, refuses it and package 1 stays", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "4", quantity: 3 }]));
    await connector.ship(ship(order, "shp_2", "1Z0000000000000002", [{ sourceLineId: "5", quantity: 2 }]));

    const earlier: EarlierDelivery[] = [
      { kind: "ship", state: "delivered", reference: null, shipmentId: "shp_1" },
      { kind: "ship", state: "delivered", reference: null, shipmentId: "shp_2" },
    ];
    const error = await rejection(connector.ship(ship(order, "shp_2", "1Z0000000000000009", [{ sourceLineId: "5", quantity: 2 }], earlier)));
    expect(sentLines(fake)).toEqual(["5:2:1Z0000000000000009"]);
    expect([error.status, error.retryable]).toEqual([400, false]);
    expect(error.message).toBe(`Walmart 400 INVALID_REQUEST_CONTENT.GMP_ORDER_API: Order ${PO} line 5 is already shipped: 2 sent, 0 open (orderLineStatus)`);
    expect(lineState(fake, "4")).toEqual(["Shipped:3:1Z0000000000000001"]);
    expect(lineState(fake, "5")).toEqual(["Shipped:2:1Z0000000000000002"]);
  });

  it("a package naming a line the order does not have is refused by Walmart, for good", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    const error = await rejection(connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "9", quantity: 1 }])));
    expect([error.status, error.retryable]).toEqual([400, false]);
    expect(error.message).toContain(`Order ${PO} has no line 9`);
    expect(lineState(fake, "4")).toEqual(["Acknowledged:3"]);
  });

  it("a package of more units than a line has left is refused, and nothing of it is recorded", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "4", quantity: 2 }]));
    const error = await rejection(
      connector.ship(
        ship(order, "shp_2", "1Z0000000000000002", [
          { sourceLineId: "5", quantity: 1 },
          { sourceLineId: "4", quantity: 2 },
        ]),
      ),
    );
    expect([error.status, error.retryable]).toEqual([400, false]);
    expect(error.message).toContain(`Order ${PO} line 4 is already shipped: 2 sent, 1 open`);
    expect(lineState(fake, "4")).toEqual(["Acknowledged:1", "Shipped:2:1Z0000000000000001"]);
    expect(lineState(fake, "5")).toEqual(["Acknowledged:2"]);
  });
});

describe("Walmart cancels by line", () => {
  it("cancels only the lines and units named, with the reason", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    expect(await connector.cancel(cancel(order, [{ sourceLineId: "5", quantity: 1 }]))).toEqual({ state: "delivered" });

    const call = fake.apiRequests().at(-1)!;
    expect(call.path).toBe(`/v3/orders/${PO}/cancel`);
    expect(JSON.parse(call.rawBody)).toEqual({
      orderCancellation: {
        orderLines: {
          orderLine: [
            {
              lineNumber: "5",
              orderLineStatuses: {
                orderLineStatus: [
                  { status: "Cancelled", cancellationReason: "SELLER_CANCEL_OUT_OF_STOCK", statusQuantity: { unitOfMeasurement: "EACH", amount: "1" } },
                ],
              },
            },
          ],
        },
      },
    });
    expect(lineState(fake, "4")).toEqual(["Acknowledged:3"]);
    expect(lineState(fake, "5")).toEqual(["Acknowledged:1", "Cancelled:1"]);
    expect(fake.violations).toEqual([]);
  });

  it("a whole-order cancellation (no lines) still names every line whole", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.cancel(cancel(order, null));
    expect(sentLines(fake)).toEqual(["4:3:Cancelled", "5:2:Cancelled"]);
  });

  it("cancelling a unit that was shipped is refused by Walmart for good", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "5", quantity: 2 }]));
    const error = await rejection(connector.cancel(cancel(order, [{ sourceLineId: "5", quantity: 1 }])));
    expect([error.status, error.retryable]).toEqual([400, false]);
    expect(error.message).toContain("line 5 is shipped and cannot be cancelled");
    expect(lineState(fake, "5")).toEqual(["Shipped:2:1Z0000000000000001"]);
  });
});

describe("Walmart lines in", () => {
  it("reads each line's shipped and cancelled units and the packages from orderLineStatuses", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "4", quantity: 1 }]));
    // Walmart's own changes: a buyer's cancellation of one unit of line 5, a package from Seller Center.
    fake.changeInWalmart(PO, { cancel: [{ lineNumber: "5", quantity: 1 }] });
    fake.changeInWalmart(PO, {
      ship: [
        { lineNumber: "4", quantity: 1 },
        { lineNumber: "5", quantity: 1 },
      ],
      trackingNumber: "9400100000000000000001",
    });

    const again = await imported(connector);
    expect(again.items.map((i) => [i.sourceLineId, i.quantity, i.quantityShipped, i.quantityCancelled])).toEqual([
      ["4", 3, 2, 0],
      ["5", 2, 1, 1],
    ]);
    expect(again.sourceOrderStatus).toBe("Acknowledged");
    expect(again.shipments).toEqual([
      {
        sourceShipmentId: null,
        trackingNumber: "1Z0000000000000001",
        carrier: "UPS",
        shippingMethod: "Standard",
        shippedAt: new Date("2026-03-01T10:00:00Z"),
        lines: [{ sourceLineId: "4", quantity: 1 }],
      },
      {
        sourceShipmentId: null,
        trackingNumber: "9400100000000000000001",
        carrier: "USPS",
        shippingMethod: "Standard",
        shippedAt: new Date(START),
        lines: [
          { sourceLineId: "4", quantity: 1 },
          { sourceLineId: "5", quantity: 1 },
        ],
      },
    ]);
  });

  it("reads a documented shipped order as one package and a cancelled one as cancelled lines", async () => {
    const { connector } = setup();
    const page = await connector.fetchOrders(WINDOW, null);
    const shipped = page.orders.find((o) => o.sourceOrderNumber === "2792338900105")!;
    expect(shipped.items.map((i) => [i.quantityShipped, i.quantityCancelled])).toEqual([[1, 0]]);
    expect(shipped.shipments).toEqual([
      {
        sourceShipmentId: null,
        trackingNumber: "123456789",
        carrier: "UPS",
        shippingMethod: "Value",
        shippedAt: new Date(1566331824000),
        lines: [{ sourceLineId: "1", quantity: 1 }],
      },
    ]);
    const cancelled = page.orders.find((o) => o.sourceOrderNumber === "3796235970012")!;
    expect(cancelled.items.map((i) => [i.quantityShipped, i.quantityCancelled])).toEqual([[0, 1]]);
    expect(cancelled.shipments).toEqual([]);
  });
});

describe("Walmart line calls on a bad day", () => {
  it("a throttled, failing or nonsense answer to a package is a MarketplaceError, and the retry sends the same package once", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    const delivery = ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: "5", quantity: 1 }]);

    fake.failNext({ status: 429, headers: { "Retry-After": "30" } });
    const throttled = await rejection(connector.ship(delivery));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 30_000]);

    fake.failNext({ status: 503 });
    const down = await rejection(connector.ship(delivery));
    expect([down.status, down.retryable]).toEqual([503, true]);

    fake.failNext({ status: 502, body: "<html>Bad Gateway</html>", headers: { "Content-Type": "text/html" } });
    const nonsense = await rejection(connector.ship(delivery));
    expect([nonsense.status, nonsense.retryable]).toEqual([502, true]);

    fake.failNextWithError();
    const lost = await rejection(connector.cancel(cancel(order, [{ sourceLineId: "4", quantity: 1 }])));
    expect([lost.status, lost.retryable]).toEqual([null, true]);

    expect(lineState(fake, "5")).toEqual(["Acknowledged:2"]);
    expect(await connector.ship(delivery)).toEqual({ state: "delivered" });
    expect(lineState(fake, "5")).toEqual(["Acknowledged:1", "Shipped:1:1Z0000000000000001"]);
    expect(lineState(fake, "4")).toEqual(["Acknowledged:3"]);
  });
});
