// eBay by line (decisions 12): each package is one createShippingFulfillment naming only its
// lineItems and quantities, a correction of package 2 names package 2's lines only, line
// cancellations are NotApplicable (the Post-Order cancellation is of whole orders), and the
// lines eBay reports fulfilled or cancelled are read back at import, against the fake that keeps
// each line's fulfilled units (IN_PROGRESS until every unit is in a fulfillment).
import { describe, expect, it } from "vitest";
import type { Connector, DeliveryOrder, EarlierDelivery, ImportedOrder, LineQuantity, ShipDelivery } from "../../../src/marketplaces/connector";
import { createEbayConnector } from "../../../src/marketplaces/ebay/ebay.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { rejection } from "../../helpers/rejection";
import { deliveryOrder, importAll } from "../fake-kit/connector-calls";
import { createEbayFake, EBAY_FAKE_CLIENT_ID, EBAY_FAKE_CLIENT_SECRET, EBAY_FAKE_REFRESH_TOKEN, type EbayFake } from "./ebay-fake";
import { orderIdOf, sampleOrder } from "./ebay-orders";

const START = Date.parse("2026-03-01T12:00:00.000Z");
const clock = { ms: START };
/** The window the core would import now; an order the fake changed is in it once the clock moved on. */
const window = () => ({ since: new Date("2026-02-28T00:00:00.000Z"), until: new Date(clock.ms - 2 * 60_000) });
const ORDER = orderIdOf(7);
const A = "10000000071";
const B = "10000000072";

function setup() {
  const created = new Date("2026-02-28T02:00:00.000Z");
  const order = sampleOrder({
    orderId: ORDER,
    created,
    modified: new Date(created.getTime() + 5 * 60_000),
    lines: [
      { lineItemId: A, quantity: 3, unitPrice: "5.00" },
      { lineItemId: B, quantity: 1, unitPrice: "9.00" },
    ],
  });
  clock.ms = START;
  const now = () => new Date(clock.ms);
  const fake = createEbayFake({ now, orders: [order] });
  const connector = createEbayConnector(
    {
      sourceId: "source-1",
      settings: { clientId: EBAY_FAKE_CLIENT_ID, clientSecret: EBAY_FAKE_CLIENT_SECRET, refreshToken: EBAY_FAKE_REFRESH_TOKEN, marketplaceId: "EBAY_US" },
      fetch: fake.fetch,
      now,
    },
    memoryStorage(),
  );
  return { fake, connector };
}

async function imported(connector: Connector): Promise<ImportedOrder> {
  const pages = await importAll(connector, window());
  return pages.flatMap((p) => p.orders).find((o) => o.sourceOrderNumber === ORDER)!;
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
    shipment: { shipmentId, trackingNumber, carrier: "UPS", shippingMethod: null, shippedAt: new Date("2026-03-01T10:30:00.000Z"), lines },
  };
}

/** trackingNumber and lineItemId:quantity of each createShippingFulfillment, read from its body. */
function fulfilments(fake: EbayFake): string[] {
  return fake
    .requestsOf("fulfillment")
    .filter((r) => r.method === "POST")
    .map((r) => {
      const body = JSON.parse(r.rawBody) as { trackingNumber?: string; lineItems: { lineItemId: string; quantity: number }[] };
      return `${r.status} ${body.trackingNumber} ${body.lineItems.map((l) => `${l.lineItemId}:${l.quantity}`).join(",")}`;
    });
}

const lineStatus = (fake: EbayFake) => fake.orders.get(ORDER)!.lineItems!.map((l) => `${l.lineItemId}:${l.lineItemFulfillmentStatus}`);

describe("eBay ships by package", () => {
  it("sends two packages of one order as two fulfillments, each with only its lines and units", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    expect(await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 2 }]))).toEqual({
      state: "delivered",
      reference: "1Z0000000000000001",
      warning: null,
    });
    expect(lineStatus(fake)).toEqual([`${A}:IN_PROGRESS`, `${B}:NOT_STARTED`]);
    const earlier: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "1Z0000000000000001", shipmentId: "shp_1" }];
    await connector.ship(
      ship(
        order,
        "shp_2",
        "1Z0000000000000002",
        [
          { sourceLineId: A, quantity: 1 },
          { sourceLineId: B, quantity: 1 },
        ],
        earlier,
      ),
    );

    expect(fulfilments(fake)).toEqual([`201 1Z0000000000000001 ${A}:2`, `201 1Z0000000000000002 ${A}:1,${B}:1`]);
    expect(lineStatus(fake)).toEqual([`${A}:FULFILLED`, `${B}:FULFILLED`]);
    expect(fake.orders.get(ORDER)!.orderFulfillmentStatus).toBe("FULFILLED");
    expect(fake.violations).toEqual([]);
  });

  it("a second package under the same tracking number as the first is sent, not taken for a repeat of it", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 3 }]));
    const earlier: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "1Z0000000000000001", shipmentId: "shp_1" }];
    const error = await rejection(connector.ship(ship(order, "shp_2", "1Z0000000000000001", [{ sourceLineId: B, quantity: 1 }], earlier)));
    // eBay takes one fulfillment per tracking number: the fake answers 409 as eBay would.
    expect(error.status).toBe(409);
    expect(fulfilments(fake)).toEqual([`201 1Z0000000000000001 ${A}:3`, `409 1Z0000000000000001 ${B}:1`]);
  });

  it("a correction of package 2 sends package 2's lines only, beside package 2, and says eBay keeps the old number", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 3 }]));
    const afterOne: EarlierDelivery[] = [{ kind: "ship", state: "delivered", reference: "1Z0000000000000001", shipmentId: "shp_1" }];
    await connector.ship(ship(order, "shp_2", "1Z0000000000000002", [{ sourceLineId: B, quantity: 1 }], afterOne));
    const afterTwo: EarlierDelivery[] = [...afterOne, { kind: "ship", state: "delivered", reference: "1Z0000000000000002", shipmentId: "shp_2" }];

    const outcome = await connector.ship(ship(order, "shp_2", "1Z0000000000000009", [{ sourceLineId: B, quantity: 1 }], afterTwo));
    expect(outcome).toEqual({
      state: "delivered",
      reference: "1Z0000000000000009",
      warning: "every line was already shipped on eBay: the corrected tracking number was added beside the earlier one, which eBay keeps",
    });
    expect(fulfilments(fake).at(-1)).toBe(`201 1Z0000000000000009 ${B}:1`);
    expect(fake.fulfillments.get(ORDER)!.map((f) => `${f.fulfillmentId} ${f.lineItems.map((l) => `${l.lineItemId}:${l.quantity}`).join(",")}`)).toEqual([
      `1Z0000000000000001 ${A}:3`,
      `1Z0000000000000002 ${B}:1`,
      `1Z0000000000000009 ${B}:1`,
    ]);
  });

  it("a line cancellation is not eBay's to take: cancelLines is false", () => {
    const { connector } = setup();
    expect(connector.capabilities).toMatchObject({ shipLines: true, cancel: true, cancelLines: false });
  });
});

describe("eBay lines in", () => {
  it("reads FULFILLED lines as shipped, NOT_STARTED as not, and leaves an IN_PROGRESS line's count to the hub", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    await connector.ship(ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 1 }]));
    clock.ms += 10 * 60_000;
    const first = await imported(connector);
    expect(first.items.map((i) => [i.sourceLineId, i.quantityShipped, i.quantityCancelled])).toEqual([
      [A, undefined, undefined],
      [B, 0, undefined],
    ]);
    fake.touch(ORDER, (o) => {
      o.lineItems![1]!.lineItemFulfillmentStatus = "FULFILLED";
    });
    clock.ms += 10 * 60_000;
    const second = await imported(connector);
    expect(second.items.map((i) => [i.sourceLineId, i.quantityShipped])).toEqual([
      [A, undefined],
      [B, 1],
    ]);
  });

  it("reads an order eBay cancelled as every unit not shipped cancelled", async () => {
    const { fake, connector } = setup();
    fake.touch(ORDER, (o) => {
      o.cancelStatus = { cancelState: "CANCELED", cancelRequests: [] };
    });
    clock.ms += 10 * 60_000;
    const order = await imported(connector);
    expect(order.items.map((i) => [i.sourceLineId, i.quantityShipped, i.quantityCancelled])).toEqual([
      [A, 0, 3],
      [B, 0, 1],
    ]);
  });
});

describe("eBay packages on a bad day", () => {
  it("a throttled, failing or nonsense answer to a package is a MarketplaceError, and the retry sends the package once", async () => {
    const { fake, connector } = setup();
    const order = deliveryOrder(await imported(connector));
    const delivery = ship(order, "shp_1", "1Z0000000000000001", [{ sourceLineId: A, quantity: 1 }]);
    fake.failNext({ target: "fulfillment", operation: "createShippingFulfillment", status: 429, headers: { "Retry-After": "120" } });
    const throttled = await rejection(connector.ship(delivery));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 120_000]);
    fake.failNext({ target: "fulfillment", operation: "createShippingFulfillment", status: 503 });
    expect((await rejection(connector.ship(delivery))).retryable).toBe(true);
    fake.failNext({ target: "fulfillment", operation: "createShippingFulfillment", status: 502, body: "<html>Bad Gateway</html>" });
    expect((await rejection(connector.ship(delivery))).retryable).toBe(true);

    expect(fake.fulfillments.get(ORDER) ?? []).toEqual([]);
    expect((await connector.ship(delivery)).state).toBe("delivered");
    expect(fake.fulfillments.get(ORDER)!.map((f) => f.fulfillmentId)).toEqual(["1Z0000000000000001"]);
    expect(lineStatus(fake)).toEqual([`${A}:IN_PROGRESS`, `${B}:NOT_STARTED`]);
  });
});
