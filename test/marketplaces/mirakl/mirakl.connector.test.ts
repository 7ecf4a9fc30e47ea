// The Mirakl connector call by call against the fake Mirakl (mirakl-fake.ts), which holds every
// request to Mirakl's published description: the order list and its pages, the mapping of what
// it sends (and what it cannot), acceptance, shipment and cancellation through the order's
// states, the pace, and the bad days.
import { describe, expect, it } from "vitest";
import {
  MarketplaceError,
  type AcknowledgeDelivery,
  type CancelDelivery,
  type Connector,
  type DeliveryOrder,
  type ImportedOrder,
  type OrderPage,
  type ShipDelivery,
  type Shipment,
} from "../../../src/marketplaces/connector";
import { createMiraklConnector } from "../../../src/marketplaces/mirakl/mirakl.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { createMiraklFake, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL, miraklPagesForEver, type MiraklFakeOptions } from "./mirakl-fake";
import { deliveryOrder, importAll } from "../fake-kit/connector-calls";
import type { FakeOrderSpec } from "./mirakl-orders-fake";

const START = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
const WINDOW = { since: new Date(START - 24 * 60 * MINUTE), until: new Date(START) };

function setup(settings: Record<string, unknown> = {}, fakeOptions: MiraklFakeOptions = {}) {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createMiraklFake({ now, ...fakeOptions });
  const storage = memoryStorage();
  const connector = createMiraklConnector(
    { sourceId: "source-1", settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, carriers: { UPS: "UPS" }, ...settings }, fetch: fake.fetch, now },
    storage,
  );
  return {
    fake,
    connector,
    storage,
    advance(ms: number) {
      nowMs += ms;
    },
    at: () => nowMs,
  };
}

const line = (sku: string, quantity = 1, unitPrice = 10) => ({ sku, quantity, unitPrice });
const order = (id: string, minutesAgo: number, spec: Partial<FakeOrderSpec> = {}): FakeOrderSpec => ({
  id,
  createdAt: new Date(START - minutesAgo * MINUTE),
  lines: [line("SKU-A")],
  ...spec,
});

const deliveryOf = (o: ImportedOrder): DeliveryOrder => deliveryOrder(o);
let nextId = 1;
const base = (o: DeliveryOrder) => ({ id: nextId++, idempotencyKey: "source-1-1", order: o, earlier: [] });
const ackOf = (o: DeliveryOrder): AcknowledgeDelivery => ({ ...base(o), kind: "acknowledge", sellerOrderNumber: null });
const shipOf = (o: DeliveryOrder, shipment: Partial<Omit<Shipment, "lines">> = {}): ShipDelivery => ({
  ...base(o),
  kind: "ship",
  shipment: {
    trackingNumber: "1Z999",
    carrier: "UPS",
    shippingMethod: null,
    shippedAt: new Date(START),
    ...shipment,
    lines: o.lines.map((l) => ({ sourceLineId: l.sourceLineId, quantity: l.quantity })),
  },
});
const cancelOf = (o: DeliveryOrder): CancelDelivery => ({ ...base(o), kind: "cancel", reason: "Canceled by seller" });

async function imported(connector: Connector, id: string): Promise<ImportedOrder> {
  const page = await connector.fetchOrders(WINDOW, null);
  const found = page.orders.find((o) => o.sourceOrderNumber === id);
  if (!found) throw new Error(`order ${id} not in the page: ${JSON.stringify(page.setAside)}`);
  return found;
}

describe("Mirakl orders in (OR11)", () => {
  it("asks for the window by update date, tax excluded, 100 a page, with the shop key raw in Authorization", async () => {
    const { fake, connector } = setup({ shopId: 2001 }, { shopId: 2001, otherShops: [2002] });
    fake.orders.add(order("A-1", 30));
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders.map((o) => o.sourceOrderNumber)).toEqual(["A-1"]);
    expect(page.nextCursor).toBeNull();
    const [call] = fake.calls("OR11");
    expect(call!.method).toBe("GET");
    expect(call!.path).toBe("/api/orders");
    expect(call!.query).toEqual({
      start_update_date: "2026-02-28T12:00:00.000Z",
      end_update_date: "2026-03-01T12:00:00.000Z",
      order_tax_mode: "TAX_EXCLUDED",
      max: "100",
      offset: "0",
      shop_id: "2001",
    });
    expect(call!.headers.authorization).toBe(MIRAKL_FAKE_KEY);
    expect(call!.headers.accept).toBe("application/json");
    expect(fake.violations).toEqual([]);
  });

  it("maps lines, prices, promotions, taxes and shipping; the address stays blank until the order is accepted", async () => {
    const { fake, connector, advance } = setup();
    fake.orders.add(
      order("B-1", 30, {
        lines: [
          { sku: "SKU-A", quantity: 2, unitPrice: 12.5, tax: 5, shipping: 4.99, shippingTax: 1 },
          { sku: "SKU-B", quantity: 3, unitPrice: 10, tax: 5.4, promotion: 3 },
        ],
        address: {
          firstname: "Ada",
          lastname: "King",
          street_1: "1 Main St",
          city: "Springfield",
          zip_code: "12345",
          country_iso_code: "USA",
          state: "IL",
          phone: "+1 217 555 0101",
        },
      }),
    );
    const waiting = await imported(connector, "B-1");
    expect(waiting).toMatchObject({
      sourceOrderNumber: "B-1",
      sourceCustomerOrderNumber: "B-1",
      sourceOrderStatus: "WAITING_ACCEPTANCE",
      createdAt: new Date(START - 30 * MINUTE),
      buyerEmail: "notification+b-1@notification.mirakl.net",
      buyerPhone: "",
      subTotal: 52,
      shippingTotal: 4.99,
      shippingTaxTotal: 1,
      grandTotal: 68.39,
      sourceData: { state: "WAITING_ACCEPTANCE" },
    });
    // The customer's name only: Mirakl answers the address null before acceptance.
    expect(waiting.shipTo).toEqual({
      firstName: "Smith",
      lastName: "Taylor",
      companyName: null,
      street1: "",
      street2: "",
      city: "",
      stateOrProvince: "",
      postalCode: "",
      country: "",
    });
    expect(waiting.items).toEqual([
      { sourceLineId: "B-1-1", sku: "SKU-A", name: "Product SKU-A", quantity: 2, unitPrice: 12.5, saleTaxCost: 5, discount: "0.00" },
      { sourceLineId: "B-1-2", sku: "SKU-B", name: "Product SKU-B", quantity: 3, unitPrice: 10, saleTaxCost: 5.4, discount: "3.00" },
    ]);

    expect(await connector.acknowledge(ackOf(deliveryOf(waiting)))).toEqual({ state: "delivered" });
    advance(MINUTE);
    const accepted = await imported(connector, "B-1");
    expect(accepted.sourceOrderStatus).toBe("SHIPPING");
    expect(accepted.buyerPhone).toBe("+1 217 555 0101");
    expect(accepted.shipTo).toEqual({
      firstName: "Ada",
      lastName: "King",
      companyName: "LIMARK Company",
      street1: "1 Main St",
      street2: "1st floor, One article per box",
      city: "Springfield",
      stateOrProvince: "IL",
      postalCode: "12345",
      country: "USA",
    });
    expect(fake.violations).toEqual([]);
  });

  it("reads an operator that answers prices tax included the same", async () => {
    const { fake, connector } = setup({}, { orders: { taxIncludedAlways: true } });
    fake.orders.add(order("T-1", 30, { lines: [{ sku: "SKU-A", quantity: 2, unitPrice: 12.5, tax: 5, shipping: 4.99, shippingTax: 1 }] }));
    const o = await imported(connector, "T-1");
    expect([o.subTotal, o.shippingTotal, o.shippingTaxTotal, o.grandTotal, o.items[0]!.unitPrice, o.items[0]!.saleTaxCost]).toEqual([
      25, 4.99, 1, 35.99, 12.5, 5,
    ]);
  });

  it("pages by offset and steps back when orders leave the window while it is read: none is skipped", async () => {
    const { fake, connector, advance } = setup();
    for (let i = 0; i < 250; i++) fake.orders.add(order(`P-${String(i).padStart(3, "0")}`, 600 - i));
    const seen = new Set<string>();
    const first = await connector.fetchOrders(WINDOW, null);
    first.orders.forEach((o) => seen.add(o.sourceOrderNumber));
    expect(first.orders).toHaveLength(100);
    expect(first.nextCursor).toBe("offset=100;total=250");
    // Five orders of the first page change at Mirakl: their update date is now after the window.
    advance(1000);
    for (const id of ["P-000", "P-010", "P-020", "P-030", "P-040"]) fake.orders.edit(id, (o) => void (o.order_state = "SHIPPING"));
    // The rest of the window, from the second page on.
    const rest = await importAll({ fetchOrders: (w, cursor) => connector.fetchOrders(w, cursor ?? first.nextCursor) }, WINDOW);
    rest.forEach((page) => page.orders.forEach((o) => seen.add(o.sourceOrderNumber)));
    const offsets = fake
      .calls("OR11")
      .slice(1)
      .map((r) => r.query.offset);
    // Page 2 (offset 100) reports 245: the read goes back 5 and on from there.
    expect(offsets).toEqual(["100", "95", "195"]);
    expect(seen.size).toBe(250);
    expect(fake.violations).toEqual([]);
  });

  it("polls at most once a minute; the pages of one poll follow at once", async () => {
    const { fake, connector, advance } = setup();
    for (let i = 0; i < 120; i++) fake.orders.add(order(`Q-${i}`, 300 - i));
    const first = await connector.fetchOrders(WINDOW, null);
    expect((await connector.fetchOrders(WINDOW, first.nextCursor)).orders).toHaveLength(20);
    advance(30_000);
    const early = await connector.fetchOrders(WINDOW, null).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(MarketplaceError);
    expect(early).toMatchObject({ status: 429, retryable: true, retryAfterMs: 30_000 });
    expect((early as Error).message).toBe(
      "Mirakl OR11 is polled at most once a minute (the description's maximum): the next poll fits in 30 s, so it waits for a later cycle",
    );
    expect(fake.calls("OR11")).toHaveLength(2);
    advance(30_000);
    expect((await connector.fetchOrders(WINDOW, null)).orders).toHaveLength(100);
    expect(fake.violations).toEqual([]);
  });

  it("imports orders it already has again (Mirakl reaches back before start_update_date) and leaves STAGING orders for later", async () => {
    const { fake, connector } = setup();
    fake.orders.add(order("S-1", 30, { state: "STAGING" }));
    fake.orders.add(order("S-2", 30));
    // Changed 3 minutes before the window starts: Mirakl's margin still sends it.
    fake.orders.add(order("S-3", 24 * 60 + 3));
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders.map((o) => o.sourceOrderNumber)).toEqual(["S-3", "S-2"]);
  });

  it("sets aside what it cannot map, tolerates unknown states and new fields, and imports the rest of the page", async () => {
    const { fake, connector } = setup();
    fake.orders.add(order("U-1", 40));
    fake.orders.add(order("U-2", 39));
    fake.orders.add(order("U-3", 38));
    fake.orders.add(order("U-4", 37));
    fake.orders.add(order("U-5", 36));
    fake.orders.add(order("U-6", 35));
    fake.orders.edit("U-1", (o) => void (o.order_lines![0]!.offer_sku = ""));
    fake.orders.edit("U-2", (o) => void (o.order_lines![0]!.quantity = 0));
    fake.orders.edit("U-3", (o) => void (o.created_date = "yesterday"));
    fake.orders.edit("U-4", (o) => void ((o.order_lines![0] as Record<string, unknown>).price = "ten"));
    fake.orders.edit("U-5", (o) => Object.assign(o, { order_state: "WAITING_REFUND_APPROVAL", brand_new_field: { nested: [1, 2] } }));
    fake.orders.edit("U-6", (o) => void (o.order_lines = {} as never));
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.orders.map((o) => [o.sourceOrderNumber, o.sourceOrderStatus])).toEqual([["U-5", "WAITING_REFUND_APPROVAL"]]);
    expect(page.setAside.map((s) => [s.sourceOrderNumber, s.reason])).toEqual([
      ["U-1", "Mirakl order U-1 line U-1-1 has no offer_sku"],
      ["U-2", "Mirakl order U-2 line U-2-1: quantity 0 is not a positive integer"],
      ["U-3", 'Mirakl order U-3: created_date "yesterday" is not a date'],
      ["U-4", 'Mirakl order U-4 line U-4-1 price: amount "ten" is not a number'],
      ["U-6", "Mirakl order U-6 has no order lines"],
    ]);
    expect((page.setAside[0]!.record as { order_id: string }).order_id).toBe("U-1");
    // The operator's retry maps the record again.
    expect(connector.remap(page.setAside[0]!.record)).toMatchObject({ reason: "Mirakl order U-1 line U-1-1 has no offer_sku" });
  });

  it("follows a total_count that never ends page by page (the engine's to stop); an empty page ends the window", async () => {
    const endless = setup();
    endless.fake.failNext(miraklPagesForEver(false));
    const cursors: (string | null)[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 3; i++) {
      const page: OrderPage = await endless.connector.fetchOrders(WINDOW, cursor);
      expect(page.setAside.map((s) => s.reason)).toEqual([`Mirakl order ENDLESS-${i} has no order lines`]);
      cursors.push((cursor = page.nextCursor));
    }
    expect(cursors).toEqual(["offset=1;total=1000000", "offset=2;total=1000000", "offset=3;total=1000000"]);
    const empty = setup();
    empty.fake.failNext(miraklPagesForEver(true));
    expect(await empty.connector.fetchOrders(WINDOW, null)).toEqual({ orders: [], setAside: [], nextCursor: null });
    // A cursor that is not the connector's own ends the window: no retry can read it.
    await expect(empty.connector.fetchOrders(WINDOW, "?page=2")).rejects.toMatchObject({
      retryable: false,
      message: 'Mirakl OR11: the page cursor "?page=2" is not one this connector made',
    });
  });

  it("ends the window on nonsense: no order list, or no total_count", async () => {
    for (const body of [{ total_count: 3 }, { orders: [] }, { orders: "none", total_count: 1 }, [1, 2]]) {
      const { fake, connector } = setup();
      fake.failNext({ status: 200, body, operation: "OR11" });
      const error = await connector.fetchOrders(WINDOW, null).catch((e: unknown) => e);
      expect(error).toMatchObject({ message: "Mirakl OR11 answered nonsense: no orders list with a total_count", retryable: true });
    }
  });
});

describe("Mirakl acceptance, shipment and cancellation", () => {
  it("accepts every line with OR21 on AcknowledgeOrder; an order past acceptance is not applicable", async () => {
    const { fake, connector, advance } = setup({ acceptance: "manual" });
    fake.orders.add(order("C-1", 30, { lines: [line("SKU-A", 2), line("SKU-B")] }));
    const o = deliveryOf(await imported(connector, "C-1"));
    expect(await connector.acknowledge(ackOf(o))).toEqual({ state: "delivered" });
    const [accept] = fake.calls("OR21");
    expect([accept!.method, accept!.path]).toEqual(["PUT", "/api/orders/C-1/accept"]);
    expect(accept!.body).toEqual({
      order_lines: [
        { id: "C-1-1", accepted: true },
        { id: "C-1-2", accepted: true },
      ],
    });
    expect(fake.orders.get("C-1")!.order_state).toBe("SHIPPING");
    // Acknowledged again after the import saw it accepted: nothing to send.
    advance(MINUTE);
    const again = deliveryOf(await imported(connector, "C-1"));
    expect(await connector.acknowledge(ackOf(again))).toEqual({
      state: "notApplicable",
      reason: "Mirakl order C-1 was SHIPPING at the last import: only an order waiting for acceptance is accepted",
    });
    // Accepted at Mirakl since the import (the operator's back office): the refusal is read against the state.
    expect(await connector.acknowledge(ackOf(o))).toEqual({
      state: "notApplicable",
      reason: "Mirakl order C-1 is already SHIPPING: accepted before the hub's call",
    });
    expect(fake.calls("OR21").map((r) => r.status)).toEqual([204, 400]);
    expect(fake.violations).toEqual([]);
  });

  it("an order Mirakl refused cannot be acknowledged: a refusal for good, with Mirakl's words", async () => {
    const { fake, connector } = setup();
    fake.orders.add(order("C-2", 30));
    const o = deliveryOf(await imported(connector, "C-2"));
    fake.orders.edit("C-2", (x) => void (x.order_state = "REFUSED"));
    const error = await connector.acknowledge(ackOf(o)).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toBe(
      "Mirakl order C-2 is REFUSED: it can no longer be accepted (Mirakl OR21 400 ORDER_INVALID_STATE: order C-2 is REFUSED, not in the expected state for " +
        "OR21)",
    );
  });

  it("ships a whole order where the shop has no multiple shipments (ST01 refused): OR23 with the mapped carrier code, then OR24", async () => {
    const { fake, connector } = setup({ carriers: { "UPS Ground": "UPS", "Fed-Ex": "FEDEX" } }, { orders: { multiShipment: false } });
    fake.orders.add(order("D-1", 30, { state: "SHIPPING" }));
    const o = deliveryOf(await imported(connector, "D-1"));
    expect(await connector.ship(shipOf(o, { carrier: "ups ground", trackingNumber: "1Z999AA1" }))).toEqual({ state: "delivered", warning: null });
    const [tracking] = fake.calls("OR23");
    expect([tracking!.method, tracking!.path, tracking!.body]).toEqual([
      "PUT",
      "/api/orders/D-1/tracking",
      { carrier_code: "UPS", tracking_number: "1Z999AA1" },
    ]);
    const [ship] = fake.calls("OR24");
    expect([ship!.method, ship!.path, ship!.rawBody]).toEqual(["PUT", "/api/orders/D-1/ship", ""]);
    expect(fake.orders.get("D-1")).toMatchObject({ order_state: "SHIPPED", shipping_carrier_code: "UPS", shipping_tracking: "1Z999AA1" });
    expect(fake.violations).toEqual([]);
  });

  it("names a carrier the source does not map by carrier_name (with a warning), and uses the default code when none is named", async () => {
    const { fake, connector } = setup({ carriers: { UPS: "UPS" }, defaultCarrierCode: "DHL" }, { orders: { multiShipment: false } });
    fake.orders.add(order("D-2", 30, { state: "SHIPPING" }));
    fake.orders.add(order("D-3", 29, { state: "SHIPPING" }));
    const page = await connector.fetchOrders(WINDOW, null);
    const [d2, d3] = page.orders.map(deliveryOf);
    expect(await connector.ship(shipOf(d2!, { carrier: "Speedy Mail", trackingNumber: "SM-1" }))).toEqual({
      state: "delivered",
      warning: "carrier \"Speedy Mail\" is not in the source's carriers: sent to Mirakl as an unregistered carrier's name",
    });
    expect(await connector.ship(shipOf(d3!, { carrier: null, trackingNumber: "JD01" }))).toEqual({ state: "delivered", warning: null });
    expect(fake.calls("OR23").map((r) => r.body)).toEqual([
      { carrier_name: "Speedy Mail", tracking_number: "SM-1" },
      { carrier_code: "DHL", tracking_number: "JD01" },
    ]);
  });

  it("refuses a tracking number without any carrier; ships without tracking by OR24 alone", async () => {
    const { fake, connector } = setup({}, { orders: { multiShipment: false } });
    fake.orders.add(order("D-4", 30, { state: "SHIPPING" }));
    fake.orders.add(order("D-5", 29, { state: "SHIPPING" }));
    const [d4, d5] = (await connector.fetchOrders(WINDOW, null)).orders.map(deliveryOf);
    await expect(connector.ship(shipOf(d4!, { carrier: null, trackingNumber: "X1" }))).rejects.toMatchObject({
      retryable: false,
      message: "Mirakl cannot send tracking number X1 of order D-4 without a carrier: name the carrier, or set the source's defaultCarrierCode",
    });
    expect(await connector.ship(shipOf(d5!, { carrier: null, trackingNumber: null }))).toEqual({ state: "delivered", warning: null });
    expect(fake.calls("OR23")).toHaveLength(0);
    expect(fake.calls("OR24").map((r) => r.path)).toEqual(["/api/orders/D-5/ship"]);
  });

  it("ships an order still waiting: accepts it first, waits for the customer's payment, and never repeats a call that went through", async () => {
    const { fake, connector } = setup({}, { orders: { holdForPayment: true, multiShipment: false } });
    fake.orders.add(order("E-1", 30, { lines: [line("SKU-A"), line("SKU-B", 2)] }));
    const delivery = shipOf(deliveryOf(await imported(connector, "E-1")));
    const waiting = await connector.ship(delivery).catch((e: unknown) => e);
    expect(waiting).toMatchObject({ retryable: true, retryAfterMs: 15 * MINUTE });
    expect((waiting as Error).message).toBe(
      "Mirakl order E-1 is WAITING_DEBIT_PAYMENT (the customer's payment is pending): OR23 is tried again once Mirakl moves it to SHIPPING",
    );
    expect(fake.calls("OR21").map((r) => r.body)).toEqual([
      {
        order_lines: [
          { id: "E-1-1", accepted: true },
          { id: "E-1-2", accepted: true },
        ],
      },
    ]);
    fake.orders.paid("E-1");
    expect(await connector.ship(delivery)).toEqual({ state: "delivered", warning: null });
    // The retry did not accept again.
    expect(fake.calls("OR21")).toHaveLength(1);
    expect(fake.calls("OR23").map((r) => r.status)).toEqual([400, 204]);
    expect(fake.calls("OR24").map((r) => r.status)).toEqual([204]);
    expect(fake.orders.get("E-1")!.order_state).toBe("SHIPPED");
    expect(fake.violations).toEqual([]);
  });

  it("a shipment Mirakl already has is delivered; a second one on a shipped order corrects the tracking only", async () => {
    const { fake, connector, advance } = setup({}, { orders: { multiShipment: false } });
    fake.orders.add(order("F-1", 30, { state: "SHIPPING" }));
    const o = deliveryOf(await imported(connector, "F-1"));
    expect(await connector.ship(shipOf(o))).toEqual({ state: "delivered", warning: null });
    // The same shipment again (a cycle cut off after OR24): Mirakl refuses OR24, the order is SHIPPED.
    expect(await connector.ship(shipOf(o))).toEqual({ state: "delivered", warning: "Mirakl order F-1 was already shipped" });
    advance(MINUTE);
    const shipped = deliveryOf(await imported(connector, "F-1"));
    expect(await connector.ship(shipOf(shipped, { trackingNumber: "1Z-NEW" }))).toEqual({ state: "delivered", warning: null });
    expect(fake.calls("OR24")).toHaveLength(2);
    expect(fake.orders.get("F-1")!.shipping_tracking).toBe("1Z-NEW");
  });

  it("cancels: an order waiting for acceptance is refused (OR21), an accepted one cancelled (OR29), a shipped one not at all", async () => {
    const { fake, connector } = setup();
    fake.orders.add(order("G-1", 30, { lines: [line("SKU-A"), line("SKU-B")] }));
    fake.orders.add(order("G-2", 29, { state: "SHIPPING" }));
    fake.orders.add(order("G-3", 28, { state: "SHIPPED" }));
    fake.orders.add(order("G-4", 27, { state: "SHIPPING" }));
    const [g1, g2, g3, g4] = (await connector.fetchOrders(WINDOW, null)).orders.map(deliveryOf);
    expect(await connector.cancel(cancelOf(g1!))).toEqual({ state: "delivered" });
    expect(fake.calls("OR21").map((r) => r.body)).toEqual([
      {
        order_lines: [
          { id: "G-1-1", accepted: false },
          { id: "G-1-2", accepted: false },
        ],
      },
    ]);
    expect(fake.orders.get("G-1")!.order_state).toBe("REFUSED");
    expect(await connector.cancel(cancelOf(g2!))).toEqual({ state: "delivered" });
    expect(fake.calls("OR29").map((r) => [r.method, r.path, r.rawBody])).toEqual([["PUT", "/api/orders/G-2/cancel", ""]]);
    expect(fake.orders.get("G-2")!.order_state).toBe("CANCELED");
    await expect(connector.cancel(cancelOf(g3!))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/^Mirakl order G-3 is SHIPPED: a shipped order cannot be cancelled/),
    });
    fake.orders.edit("G-4", (x) => void (x.order_state = "CANCELED"));
    expect(await connector.cancel(cancelOf(g4!))).toEqual({ state: "delivered", warning: "Mirakl order G-4 was already CANCELED" });
    expect(fake.violations).toEqual([]);
  });
});

describe("Mirakl on a bad day", () => {
  it("hands a 429's Retry-After on, retries 5xx and lost connections, and takes a refused key as final", async () => {
    const { fake, connector, advance } = setup({}, { orders: { multiShipment: false } });
    fake.orders.add(order("H-1", 30, { state: "SHIPPING" }));
    fake.failNext({ status: 429, headers: { "Retry-After": "120" }, operation: "OR11" });
    await expect(connector.fetchOrders(WINDOW, null)).rejects.toMatchObject({ status: 429, retryable: true, retryAfterMs: 120_000 });
    advance(MINUTE);
    fake.failNext({ status: 503, body: "<html>Service Unavailable</html>", operation: "OR11" });
    await expect(connector.fetchOrders(WINDOW, null)).rejects.toMatchObject({
      status: 503,
      retryable: true,
      message: "Mirakl OR11 503 <html>Service Unavailable</html>",
    });
    advance(MINUTE);
    fake.failNextWithError({ operation: "OR11" });
    await expect(connector.fetchOrders(WINDOW, null)).rejects.toMatchObject({
      status: null,
      retryable: true,
      message: "Mirakl OR11 GET /api/orders failed: Network connection lost.",
    });
    advance(MINUTE);
    const o = deliveryOf(await imported(connector, "H-1"));
    fake.failNext({ status: 500, operation: "OR24" });
    const shipment = shipOf(o);
    await expect(connector.ship(shipment)).rejects.toMatchObject({ status: 500, retryable: true });
    // The tracking went through before the 500: the retry sends OR24 only.
    expect(await connector.ship(shipment)).toEqual({ state: "delivered", warning: null });
    expect(fake.calls("OR23")).toHaveLength(1);

    const wrongKey = createMiraklConnector(
      { sourceId: "s", settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: "not-the-key" }, fetch: fake.fetch, now: () => new Date(START + 10 * MINUTE) },
      memoryStorage(),
    );
    await expect(wrongKey.fetchOrders(WINDOW, null)).rejects.toMatchObject({
      status: 401,
      retryable: false,
      message: "Mirakl OR11 401 Unauthorized: the API key is not valid",
    });
    expect(fake.violations).toEqual([]);
  });

  it("follows no redirect: the shop key never reaches another host", async () => {
    const { fake, connector } = setup();
    fake.failNext({ status: 302, headers: { Location: "https://collector.example/steal" }, operation: "OR11" });
    await expect(connector.fetchOrders(WINDOW, null)).rejects.toMatchObject({
      retryable: true,
      message: 'Mirakl OR11 GET /api/orders answered 302 redirecting to "https://collector.example/steal"; marketplace calls never follow a redirect',
    });
  });
});

describe("the fake Mirakl holds every request to the description", () => {
  it("refuses a Bearer key, a parameter or value the description does not list, a body that misses a field, a file in another format", async () => {
    const { fake } = setup();
    fake.orders.add(order("V-1", 30));
    const send = (path: string, init: RequestInit = {}) =>
      fake.fetch(`${MIRAKL_FAKE_URL}${path}`, {
        ...init,
        headers: { Authorization: MIRAKL_FAKE_KEY, Accept: "application/json", ...(init.headers as Record<string, string>) },
      });
    const statuses = [
      (await send("/api/orders?offset=0", { headers: { Authorization: `Bearer ${MIRAKL_FAKE_KEY}` } })).status,
      (await send("/api/orders?order_state_codes=SHIPPING,LOST")).status,
      (await send("/api/orders?page_size=10")).status,
      (await send("/api/orders?start_update_date=yesterday")).status,
      (await send("/api/orders?max=500")).status,
      (
        await send("/api/orders/V-1/accept", {
          method: "PUT",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ order_lines: [{ id: "V-1-1" }] }),
        })
      ).status,
      (await send("/api/orders/V-1/ship", { method: "PUT", body: "{}" })).status,
      (await send("/api/orders/V-1/accept", { method: "POST" })).status,
      (
        await send("/api/offers", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ offers: [{ shop_sku: "A", price: 1 }] }),
        })
      ).status,
    ];
    const form = new FormData();
    form.append("file", new Blob(["sku;qty\nA;1\n"]), "stock.csv");
    statuses.push((await send("/api/offers/stock/imports", { method: "POST", body: form })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    expect(fake.violations).toEqual([
      "GET /api/orders: Authorization carries the shop key raw (an apiKey scheme), not as a Bearer token",
      "GET /api/orders: order_state_codes: LOST is not one of STAGING, WAITING_ACCEPTANCE, WAITING_DEBIT, WAITING_DEBIT_PAYMENT, SHIPPING, SHIPPED, " +
        "TO_COLLECT, RECEIVED, CLOSED, REFUSED, CANCELED",
      "GET /api/orders: query parameter page_size is not in the description of OR11",
      "GET /api/orders: start_update_date=yesterday is not a date-time",
      "GET /api/orders: max=500 must be 1..100",
      "PUT /api/orders/V-1/accept: body.order_lines[0].accepted: required by the description, missing",
      "PUT /api/orders/V-1/ship: OR24 takes no body",
      "POST /api/orders/V-1/accept: OR21 takes PUT",
      "POST /api/offers: body.offers[0].product_id: required by the description, missing",
      "POST /api/offers: body.offers[0].product_id_type: required by the description, missing",
      "POST /api/offers: body.offers[0].state_code: required by the description, missing",
      "POST /api/offers: body.offers[0].update_delete: required by the description, missing",
      'POST /api/offers/stock/imports: the file\'s header must be "offer-sku";"quantity";"warehouse-code";"update-delete", got sku;qty',
    ]);
    // Nothing the refused calls asked for happened.
    expect(fake.orders.get("V-1")!.order_state).toBe("WAITING_ACCEPTANCE");
    expect(fake.offers.imports).toEqual([]);
  });

  it("answers the documented OR11 example's shape: the connector maps the description's own order", async () => {
    const { fake, connector } = setup();
    const documented = (await import("./mirakl-description.json")).default.examples.OR11.orders[0] as Record<string, unknown>;
    fake.failNext({ status: 200, body: { orders: [documented], total_count: 1 }, operation: "OR11" });
    const page = await connector.fetchOrders(WINDOW, null);
    expect(page.setAside).toEqual([]);
    expect(page.orders[0]).toMatchObject({
      sourceOrderNumber: "Order_00010-A",
      sourceCustomerOrderNumber: "Order_00010",
      sourceOrderStatus: "RECEIVED",
      buyerUserId: "Customer_id_001",
      paymentType: expect.any(String),
    });
    // RECEIVED: every unit shipped; its cancellation and refund are amount-only (quantity 0).
    expect(page.orders[0]!.items).toEqual([
      {
        sourceLineId: "Order_00010-A-1",
        sku: "S2000",
        name: "Breville Cafe Roma Stainless Espresso/Cappuccino Machine - ESP8C",
        quantity: 3,
        quantityShipped: 3,
        unitPrice: 55,
        saleTaxCost: 20,
        discount: "0.00",
      },
    ]);
    // 6.82 + taxes 0.41 + 0.41; shipping 1.79 + 2.24 + 2.24.
    expect(page.orders[0]!.refunds).toEqual([
      {
        sourceRefundId: "f029dc92-e5ae-4b89-b342-cf254ddd4b4d",
        createdAt: new Date("2022-08-04T09:40:41Z"),
        reason: "19",
        lines: [{ sourceLineId: "Order_00010-A-1", quantity: 0, amount: 7.64 }],
        shippingAmount: 6.27,
        currency: "USD",
      },
    ]);
    expect(page.orders[0]!.shipTo).toMatchObject({ street1: "113 MacDougal Street", city: "New York", postalCode: "NY 10012", country: "USA" });
  });
});
