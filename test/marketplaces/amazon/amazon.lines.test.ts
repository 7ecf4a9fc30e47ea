// Amazon by line (decisions 12): each package is one confirmShipment naming only its order items
// and quantities under a packageReferenceId of its own (a correction reuses its package's), line
// cancellations are NotApplicable (cancelLines false), and the items Amazon reports shipped or
// cancelled and its packages are read back at import, against the fake that keeps each order's
// packages and refuses more units than an item has left.
import { describe, expect, it } from "vitest";
import type { Connector, DeliveryOrder, EarlierDelivery, ImportedOrder, LineQuantity, ShipDelivery } from "../../../src/marketplaces/connector";
import { createAmazonConnector } from "../../../src/marketplaces/amazon/amazon.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { rejection } from "../../helpers/rejection";
import { deliveryOrder } from "../fake-kit/connector-calls";
import { AMAZON_FAKE_CLIENT_ID, AMAZON_FAKE_CLIENT_SECRET, AMAZON_FAKE_REFRESH_TOKEN, createAmazonFake, type AmazonFake } from "./amazon-fake";

const START = Date.parse("2026-03-01T12:00:00Z");
const SINCE = new Date("2024-12-01T00:00:00Z");
const ORDER = "171-2345678-9012345";

/** The models' unshipped Brazilian order made a two-item order: item A three units, item B two. */
function setup() {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createAmazonFake({ now });
  const order = fake.orders.find((o) => o.orderId === ORDER)!;
  const a = order.orderItems[0]!;
  a.quantityOrdered = 3;
  a.fulfillment = { quantityFulfilled: 0, quantityUnfulfilled: 3 };
  const b = structuredClone(a);
  b.orderItemId = "17123456789013";
  b.quantityOrdered = 2;
  b.fulfillment = { quantityFulfilled: 0, quantityUnfulfilled: 2 };
  (b.product as { sellerSku: string }).sellerSku = "SECOND-SKU";
  order.orderItems.push(b);
  const connector = createAmazonConnector(
    {
      sourceId: "source-1",
      settings: {
        refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
        clientId: AMAZON_FAKE_CLIENT_ID,
        clientSecret: AMAZON_FAKE_CLIENT_SECRET,
        region: "na",
        marketplaceIds: ["A2Q3Y263D00KWC", "ATVPDKIKX0DER", "A1F83G8C2ARO7P"],
      },
      fetch: fake.fetch,
      now,
    },
    memoryStorage(),
    { sleep: async (ms) => void (clock.ms += ms) },
  );
  const window = () => ({ since: SINCE, until: new Date(clock.ms - 2 * 60_000) });
  return { fake, connector, clock, window };
}

const A = "17123456789012";
const B = "17123456789013";

async function imported(connector: Connector, window: { since: Date; until: Date }, id = ORDER): Promise<ImportedOrder> {
  const orders: ImportedOrder[] = [];
  let cursor: string | null = null;
  do {
    const page = await connector.fetchOrders(window, cursor);
    orders.push(...page.orders);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return orders.find((o) => o.sourceOrderNumber === id)!;
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
    shipment: { shipmentId, trackingNumber, carrier: "UPS", shippingMethod: "Ground", shippedAt: new Date("2026-03-01T10:00:00Z"), lines },
  };
}

/** packageReferenceId, trackingNumber and orderItemId:quantity of each confirmShipment, read from its body. */
function confirmed(fake: AmazonFake): string[] {
  return fake.apiRequests("confirmShipment").map((r) => {
    const body = JSON.parse(r.rawBody) as {
      packageDetail: { packageReferenceId: string; trackingNumber: string; orderItems: { orderItemId: string; quantity: number }[] };
    };
    const d = body.packageDetail;
    return `${r.status} ${d.packageReferenceId} ${d.trackingNumber} ${d.orderItems.map((i) => `${i.orderItemId}:${i.quantity}`).join(",")}`;
  });
}

describe("Amazon ships by package", () => {
  it("confirms two packages of one order as two calls, each with its items, quantities and its own packageReferenceId", async () => {
    const { fake, connector, window } = setup();
    const order = deliveryOrder(await imported(connector, window()));
    const first = await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 2 }]));
    expect(first).toEqual({ state: "delivered", reference: "1" });
    const earlier: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "1", shipmentId: "shp_1" }];
    const second = await connector.ship(
      ship(
        order,
        "shp_2",
        "1Z0000000000000002",
        [
          { sourceLineId: A, quantity: 1 },
          { sourceLineId: B, quantity: 2 },
        ],
        earlier,
      ),
    );
    expect(second).toEqual({ state: "delivered", reference: "2" });

    expect(confirmed(fake)).toEqual([`204 1 1Z0000000000000001 ${A}:2`, `204 2 1Z0000000000000002 ${A}:1,${B}:2`]);
    expect(fake.apiRequests("confirmShipment").map((r) => r.path)).toEqual([
      `/orders/v0/orders/${ORDER}/shipmentConfirmation`,
      `/orders/v0/orders/${ORDER}/shipmentConfirmation`,
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("a correction of package 2 confirms package 2's items again under its own packageReferenceId, leaving package 1", async () => {
    const { fake, connector, window } = setup();
    const order = deliveryOrder(await imported(connector, window()));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 3 }]));
    const afterOne: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "1", shipmentId: "shp_1" }];
    await connector.ship(ship(order, "shp_2", "1Z0000000000000002", [{ sourceLineId: B, quantity: 2 }], afterOne));
    const afterTwo: EarlierDelivery[] = [...afterOne, { kind: "ship", state: "delivered", reference: "2", shipmentId: "shp_2" }];

    const outcome = await connector.ship(ship(order, "shp_2", "1Z0000000000000009", [{ sourceLineId: B, quantity: 2 }], afterTwo));
    expect(outcome).toEqual({ state: "delivered", reference: "2" });
    expect(confirmed(fake).at(-1)).toBe(`204 2 1Z0000000000000009 ${B}:2`);
    const packages = fake.shipments.get(ORDER)!;
    expect([...packages.keys()]).toEqual(["1", "2"]);
    expect(packages.get("1")!.trackingNumber).toBe("1Z0000000000000001");
    expect(packages.get("2")!.trackingNumber).toBe("1Z0000000000000009");
    expect(fake.violations).toEqual([]);
  });

  it("a correction of a shipment delivered before packages (no shipmentId) edits package 1, not a second package", async () => {
    const { fake, connector, window } = setup();
    const order = deliveryOrder(await imported(connector, window()));
    const whole = [
      { sourceLineId: A, quantity: 3 },
      { sourceLineId: B, quantity: 2 },
    ];
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", whole));
    const legacy: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: null }];
    expect(await connector.ship(ship(order, "shp_9", "1Z0000000000000009", whole, legacy))).toEqual({ state: "delivered", reference: "1" });
    expect([...fake.shipments.get(ORDER)!.keys()]).toEqual(["1"]);
  });

  it("a package of more units than an item has left, or of an item not in the order, is refused for good and records nothing", async () => {
    const { fake, connector, window } = setup();
    const order = deliveryOrder(await imported(connector, window()));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 2 }]));
    const earlier: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "1", shipmentId: "shp_1" }];

    const tooMany = await rejection(connector.ship(ship(order, "shp_2", "1Z0000000000000002", [{ sourceLineId: A, quantity: 2 }], earlier)));
    expect([tooMany.status, tooMany.retryable]).toEqual([400, false]);
    expect(tooMany.message).toBe(`Amazon confirmShipment 400 InvalidInput: Order ${ORDER} item ${A}: quantity 2 is more than the 1 left to ship`);

    const unknown = await rejection(connector.ship(ship(order, "shp_2", "1Z0000000000000002", [{ sourceLineId: "99999999999999", quantity: 1 }], earlier)));
    expect([unknown.status, unknown.retryable]).toEqual([400, false]);
    expect(unknown.message).toContain(`order ${ORDER} has no item 99999999999999`);
    expect([...fake.shipments.get(ORDER)!.keys()]).toEqual(["1"]);
  });

  it("a line cancellation is not Amazon's to take: cancelLines is false", () => {
    const { connector } = setup();
    expect(connector.capabilities).toMatchObject({ shipLines: true, cancel: true, cancelLines: false });
  });
});

describe("Amazon lines in", () => {
  it("reads quantityFulfilled, an item's cancellation and the packages (PACKAGES data) back", async () => {
    const { fake, connector, clock, window } = setup();
    const order = deliveryOrder(await imported(connector, window()));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 2 }]));
    fake.cancelItemInAmazon(ORDER, B);
    clock.ms += 5 * 60_000;

    const again = await imported(connector, window());
    expect(again.sourceOrderStatus).toBe("PARTIALLY_SHIPPED");
    expect(again.items.map((i) => [i.sourceLineId, i.quantity, i.quantityShipped, i.quantityCancelled])).toEqual([
      [A, 3, 2, 0],
      [B, 2, 0, 2],
    ]);
    expect(again.shipments).toEqual([
      {
        sourceShipmentId: "1",
        trackingNumber: "1Z0000000000000001",
        carrier: "UPS",
        shippingMethod: "Ground",
        shippedAt: new Date("2026-03-01T10:00:00Z"),
        lines: [{ sourceLineId: A, quantity: 2 }],
      },
    ]);
    const query = new URL(fake.apiRequests("searchOrders").at(-1)!.url).searchParams;
    expect(query.get("includedData")).toBe("BUYER,RECIPIENT,PROCEEDS,FULFILLMENT,PAYMENT,CANCELLATION,PACKAGES");
    expect(fake.violations).toEqual([]);
  });

  it("reads the models' shipped order as its documented package", async () => {
    const { connector, window } = setup();
    const us = await imported(connector, window(), "123-4567890-1234567");
    expect(us.items.map((i) => [i.sourceLineId, i.quantityShipped, i.quantityCancelled])).toEqual([
      ["12345678901234", 2, 0],
      ["12345678901235", 1, 0],
    ]);
    expect(
      us.shipments?.map((s) => [s.sourceShipmentId, s.trackingNumber, s.carrier, s.lines.map((l) => `${l.sourceLineId}:${l.quantity}`).join(",")]),
    ).toEqual([["PKG-2024-001", "1Z999AA1234567890", "UPS", "12345678901234:2,12345678901235:1"]]);
  });
});

describe("Amazon packages on a bad day", () => {
  it("a throttled, failing or nonsense answer to a package is a MarketplaceError, and the retry confirms the package once", async () => {
    const { fake, connector, window } = setup();
    const order = deliveryOrder(await imported(connector, window()));
    const delivery = ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: B, quantity: 1 }]);

    fake.failNext({ status: 429, headers: { "Retry-After": "30" }, operation: "confirmShipment" });
    const throttled = await rejection(connector.ship(delivery));
    expect([throttled.status, throttled.retryable]).toEqual([429, true]);

    fake.failNext({ status: 503, operation: "confirmShipment" });
    const down = await rejection(connector.ship(delivery));
    expect([down.status, down.retryable]).toEqual([503, true]);

    fake.failNext({ status: 500, body: "<html>oops</html>", operation: "confirmShipment" });
    const nonsense = await rejection(connector.ship(delivery));
    expect([nonsense.status, nonsense.retryable]).toEqual([500, true]);

    expect(fake.shipments.get(ORDER)).toBeUndefined();
    expect(await connector.ship(delivery)).toEqual({ state: "delivered", reference: "1" });
    expect([...fake.shipments.get(ORDER)!.keys()]).toEqual(["1"]);
    expect(confirmed(fake).at(-1)).toBe(`204 1 1Z0000000000000001 ${B}:1`);
  });
});
