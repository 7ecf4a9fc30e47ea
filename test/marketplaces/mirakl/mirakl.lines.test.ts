// The Mirakl connector's line-level calls (decisions 12, 13, 14) against the fake Mirakl, with
// deliveries as the engine builds them (each order line with what the hub counts shipped and
// cancelled, this delivery's included; earlier deliveries with their package's ShipmentId and
// reference): packages through ST01 and their corrections through ST23, a whole order where the
// shop has no multiple shipments, line cancellations through OR30 (or a refusal through OR21
// while the order waits), acceptance by stock, refunds through OR28, returns in through RT11,
// what OR11 then reports per line, and the bad days of these calls.
import { describe, expect, it } from "vitest";
import type {
  AcknowledgeDelivery,
  CancelDelivery,
  DeliveryLine,
  DeliveryOrder,
  EarlierDelivery,
  ImportedOrder,
  LineQuantity,
  RefundDelivery,
  ShipDelivery,
} from "../../../src/marketplaces/connector";
import { createMiraklConnector } from "../../../src/marketplaces/mirakl/mirakl.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { deliveryOrder } from "../fake-kit/connector-calls";
import { createMiraklFake, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL, type MiraklFakeOptions } from "./mirakl-fake";
import type { FakeOrderSpec } from "./mirakl-orders-fake";

const START = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
const WINDOW = { since: new Date(START - 24 * 60 * MINUTE), until: new Date(START) };

function setup(settings: Record<string, unknown> = {}, fakeOptions: MiraklFakeOptions = {}, wrap?: (f: typeof fetch) => typeof fetch) {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createMiraklFake({ now, ...fakeOptions });
  const storage = memoryStorage();
  const connector = createMiraklConnector(
    {
      sourceId: "source-1",
      settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, carriers: { UPS: "UPS" }, ...settings },
      fetch: wrap ? wrap(fake.fetch) : fake.fetch,
      now,
    },
    storage,
  );
  return {
    fake,
    connector,
    advance(ms: number) {
      nowMs += ms;
    },
    /** Every order of the window, as the import maps them (the poll paced a minute apart). */
    async imported(): Promise<Map<string, ImportedOrder>> {
      nowMs += MINUTE;
      const page = await connector.fetchOrders({ since: WINDOW.since, until: new Date(nowMs) }, null);
      expect(page.setAside).toEqual([]);
      return new Map(page.orders.map((o) => [o.sourceOrderNumber, o]));
    },
  };
}

const line = (sku: string, quantity = 1, unitPrice = 10, extra: Partial<FakeOrderSpec["lines"][number]> = {}) => ({ sku, quantity, unitPrice, ...extra });
const order = (id: string, spec: Partial<FakeOrderSpec> = {}): FakeOrderSpec => ({
  id,
  createdAt: new Date(START - 30 * MINUTE),
  lines: [line("SKU-A")],
  ...spec,
});

let nextId = 1;
/** The order as a delivery hands it: each line with the units shipped and cancelled so far (this delivery's included). */
function orderOf(o: ImportedOrder, counts: Record<string, { shipped?: number; cancelled?: number }> = {}): DeliveryOrder {
  const base = deliveryOrder(o);
  return {
    ...base,
    lines: base.lines.map((l) => ({ ...l, quantityShipped: counts[l.sourceLineId]?.shipped ?? 0, quantityCancelled: counts[l.sourceLineId]?.cancelled ?? 0 })),
  };
}
const pkg = (
  o: DeliveryOrder,
  shipmentId: string,
  lines: LineQuantity[],
  earlier: EarlierDelivery[] = [],
  tracking: { carrier?: string | null; trackingNumber?: string | null } = {},
): ShipDelivery => ({
  id: nextId++,
  idempotencyKey: `source-1-${nextId}`,
  order: o,
  earlier,
  kind: "ship",
  shipment: { shipmentId, trackingNumber: "1Z999", carrier: "UPS", shippingMethod: null, shippedAt: new Date(START), ...tracking, lines },
});
const cancelLines = (o: DeliveryOrder, lines: LineQuantity[] | null, reason = "Out of stock"): CancelDelivery => ({
  id: nextId++,
  idempotencyKey: `source-1-${nextId}`,
  order: o,
  earlier: [],
  kind: "cancel",
  reason,
  lines,
});
const ack = (o: DeliveryOrder): AcknowledgeDelivery => ({
  id: nextId++,
  idempotencyKey: `source-1-${nextId}`,
  order: o,
  earlier: [],
  kind: "acknowledge",
  sellerOrderNumber: null,
});

describe("Mirakl packages (ST01)", () => {
  it("sends each package with only its lines and units; a correction of package 2 changes package 2 only (ST23)", async () => {
    const { fake, connector, imported } = setup();
    fake.orders.add(order("P-1", { state: "SHIPPING", lines: [line("SKU-A", 2), line("SKU-B", 1)] }));
    const o = (await imported()).get("P-1")!;
    const first = await connector.ship(pkg(orderOf(o, { "P-1-1": { shipped: 1 } }), "S1", [{ sourceLineId: "P-1-1", quantity: 1 }]));
    expect(first).toEqual({ state: "delivered", reference: "SHIP-1", warning: null });
    expect(fake.orders.get("P-1")!.order_state).toBe("SHIPPING");
    const second = await connector.ship(
      pkg(
        orderOf(o, { "P-1-1": { shipped: 2 }, "P-1-2": { shipped: 1 } }),
        "S2",
        [
          { sourceLineId: "P-1-1", quantity: 1 },
          { sourceLineId: "P-1-2", quantity: 1 },
        ],
        [{ kind: "ship", state: "delivered", reference: "SHIP-1", shipmentId: "S1" }],
        { carrier: "UPS", trackingNumber: "1Z-TWO" },
      ),
    );
    expect(second).toEqual({ state: "delivered", reference: "SHIP-2", warning: null });
    expect(fake.calls("ST01").map((r) => r.body)).toEqual([
      {
        shipments: [
          {
            order_id: "P-1",
            shipment_lines: [{ order_line_id: "P-1-1", quantity: 1, package_reference: "hub-S1" }],
            tracking: { carrier_code: "UPS", tracking_number: "1Z999" },
            shipped: true,
          },
        ],
      },
      {
        shipments: [
          {
            order_id: "P-1",
            shipment_lines: [
              { order_line_id: "P-1-1", quantity: 1, package_reference: "hub-S2" },
              { order_line_id: "P-1-2", quantity: 1, package_reference: "hub-S2" },
            ],
            tracking: { carrier_code: "UPS", tracking_number: "1Z-TWO" },
            shipped: true,
          },
        ],
      },
    ]);
    // Every unit shipped: Mirakl ships the order.
    expect(fake.orders.get("P-1")!.order_state).toBe("SHIPPED");

    const correction = pkg(
      orderOf(o, { "P-1-1": { shipped: 2 }, "P-1-2": { shipped: 1 } }),
      "S2",
      [
        { sourceLineId: "P-1-1", quantity: 1 },
        { sourceLineId: "P-1-2", quantity: 1 },
      ],
      [
        { kind: "ship", state: "delivered", reference: "SHIP-1", shipmentId: "S1" },
        { kind: "ship", state: "delivered", reference: "SHIP-2", shipmentId: "S2" },
      ],
      { carrier: "UPS", trackingNumber: "1Z-FIXED" },
    );
    expect(await connector.ship(correction)).toEqual({ state: "delivered", reference: "SHIP-2", warning: null });
    expect(fake.calls("ST23").map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/api/shipments/tracking", { shipments: [{ id: "SHIP-2", tracking: { carrier_code: "UPS", tracking_number: "1Z-FIXED" } }] }],
    ]);
    expect(fake.orders.lines.shipments.map((s) => [s.id, s.tracking?.tracking_number])).toEqual([
      ["SHIP-1", "1Z999"],
      ["SHIP-2", "1Z-FIXED"],
    ]);
    expect(fake.calls("ST01")).toHaveLength(2);
    expect(fake.violations).toEqual([]);

    // OR11 now reports every unit shipped.
    const after = (await imported()).get("P-1")!;
    expect(after.items.map((i) => [i.sourceLineId, i.quantityShipped, i.quantityCancelled])).toEqual([
      ["P-1-1", 2, undefined],
      ["P-1-2", 1, undefined],
    ]);
  });

  it(
    "reads ST01's 201 per shipment: this order's error refuses the package with Mirakl's words, another order's success or error is not this " + "one's",
    async () => {
      const { fake, connector, imported } = setup();
      fake.orders.add(order("P-2", { state: "SHIPPING", lines: [line("SKU-A", 2)] }));
      const o = orderOf((await imported()).get("P-2")!, { "P-2-1": { shipped: 2 } });
      // More units than are left: Mirakl answers 201 with the error.
      const tooMany = pkg(o, "S1", [{ sourceLineId: "P-2-1", quantity: 3 }]);
      await expect(connector.ship(tooMany)).rejects.toMatchObject({
        retryable: false,
        message: "Mirakl ST01 refused the package of lines P-2-1 x3: SHIPMENT_QUANTITY_INVALID: 3 unit(s) of order line P-2-1, 2 left to ship",
      });
      expect(fake.calls("ST01").map((r) => r.status)).toEqual([201]);
      expect(fake.orders.lines.shipments).toEqual([]);
      // An answer holding another order's success and this order's error.
      fake.failNext({
        status: 201,
        body: { shipment_success: [{ id: "SHIP-X", order_id: "OTHER-1" }], shipment_errors: [{ order_id: "P-2", message: "ORDER_INVALID_STATE" }] },
        operation: "ST01",
      });
      await expect(connector.ship(pkg(o, "S2", [{ sourceLineId: "P-2-1", quantity: 2 }]))).rejects.toMatchObject({
        retryable: false,
        message: expect.stringContaining("ORDER_INVALID_STATE"),
      });
      // And this order's success beside another's error.
      fake.failNext({
        status: 201,
        body: { shipment_success: [{ id: "SHIP-Y", order_id: "P-2" }], shipment_errors: [{ order_id: "OTHER-2", message: "ORDER_NOT_FOUND" }] },
        operation: "ST01",
      });
      expect(await connector.ship(pkg(o, "S3", [{ sourceLineId: "P-2-1", quantity: 2 }]))).toEqual({ state: "delivered", reference: "SHIP-Y", warning: null });
      // Neither: nonsense, tried again.
      fake.failNext({ status: 201, body: { shipment_success: [], shipment_errors: [] }, operation: "ST01" });
      await expect(connector.ship(pkg(o, "S4", [{ sourceLineId: "P-2-1", quantity: 2 }]))).rejects.toMatchObject({
        retryable: true,
        message: "Mirakl ST01 answered nonsense: neither a shipment_success nor a shipment_error for the order",
      });
      expect(fake.violations).toEqual([]);
    },
  );

  it(
    "a shop without multiple shipments: the whole order goes through OR23 + OR24 (and so for a day), a part package is refused with Mirakl's " + "words",
    async () => {
      const { fake, connector, imported } = setup({}, { orders: { multiShipment: false } });
      fake.orders.add(order("P-3", { state: "SHIPPING", lines: [line("SKU-A", 2), line("SKU-B")] }));
      fake.orders.add(order("P-4", { state: "SHIPPING", lines: [line("SKU-A", 2), line("SKU-B")] }));
      const orders = await imported();
      const part = pkg(orderOf(orders.get("P-3")!, { "P-3-1": { shipped: 1 } }), "S1", [{ sourceLineId: "P-3-1", quantity: 1 }]);
      await expect(connector.ship(part)).rejects.toMatchObject({
        retryable: false,
        message: "Mirakl ST01 400 SHIPMENT_MULTIPLE_DISABLED: multiple shipments are not enabled for this shop",
      });
      const whole = (id: string) =>
        pkg(orderOf(orders.get(id)!, { [`${id}-1`]: { shipped: 2 }, [`${id}-2`]: { shipped: 1 } }), "S9", [
          { sourceLineId: `${id}-1`, quantity: 2 },
          { sourceLineId: `${id}-2`, quantity: 1 },
        ]);
      expect(await connector.ship(whole("P-3"))).toEqual({ state: "delivered", warning: null });
      expect(await connector.ship(whole("P-4"))).toEqual({ state: "delivered", warning: null });
      // ST01 asked twice (the part, then the first whole order); the second whole order went straight to OR23 + OR24.
      expect(fake.calls("ST01").map((r) => r.status)).toEqual([400, 400]);
      expect(fake.calls("OR24").map((r) => r.path)).toEqual(["/api/orders/P-3/ship", "/api/orders/P-4/ship"]);
      expect(fake.orders.get("P-4")!.order_state).toBe("SHIPPED");
    },
  );

  it("a whole order goes through ST01 where the shop has multiple shipments; one still waiting is accepted first", async () => {
    const { fake, connector, imported } = setup();
    fake.orders.add(order("P-5", { lines: [line("SKU-A", 2)] }));
    const o = orderOf((await imported()).get("P-5")!, { "P-5-1": { shipped: 2 } });
    expect(await connector.ship(pkg(o, "S1", [{ sourceLineId: "P-5-1", quantity: 2 }]))).toEqual({ state: "delivered", reference: "SHIP-1", warning: null });
    expect(fake.calls("OR21").map((r) => r.body)).toEqual([{ order_lines: [{ id: "P-5-1", accepted: true }] }]);
    expect(fake.calls("OR24")).toHaveLength(0);
    expect(fake.orders.get("P-5")!.order_state).toBe("SHIPPED");
  });

  it("never makes a package twice: after a lost ST01 answer the retry finds it through ST11 by its reference", async () => {
    let lose = true;
    const { fake, connector, imported } = setup({}, {}, (f) => async (input, init) => {
      const answer = await f(input, init);
      const method = input instanceof Request ? input.method : (init?.method ?? "GET");
      if (lose && new URL(input instanceof Request ? input.url : String(input)).pathname === "/api/shipments" && method === "POST") {
        lose = false;
        throw new TypeError("Network connection lost.");
      }
      return answer;
    });
    fake.orders.add(order("P-6", { state: "SHIPPING", lines: [line("SKU-A", 3)] }));
    const delivery = pkg(orderOf((await imported()).get("P-6")!, { "P-6-1": { shipped: 1 } }), "S1", [{ sourceLineId: "P-6-1", quantity: 1 }]);
    await expect(connector.ship(delivery)).rejects.toMatchObject({ retryable: true });
    expect(await connector.ship(delivery)).toEqual({
      state: "delivered",
      reference: "SHIP-1",
      warning: "Mirakl shipment SHIP-1 was made by an earlier call whose answer was lost",
    });
    expect(fake.calls("ST01")).toHaveLength(1);
    expect(fake.calls("ST11").map((r) => r.query)).toEqual([{ order_id: "P-6", limit: "100" }]);
    expect(fake.orders.lines.shipments).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });
});

describe("Mirakl line cancellations (OR30) and refusals (OR21)", () => {
  it("cancels units of a line with their share of price, shipping and taxes and the operator's reason code; OR11 then counts them", async () => {
    const { fake, connector, imported } = setup();
    fake.orders.add(order("C-1", { state: "SHIPPING", lines: [line("SKU-A", 3, 10, { tax: 6, shipping: 3, shippingTax: 0.6 }), line("SKU-B", 1)] }));
    const o = orderOf((await imported()).get("C-1")!, { "C-1-1": { cancelled: 2 } });
    const outcome = await connector.cancel(cancelLines(o, [{ sourceLineId: "C-1-1", quantity: 2 }], "out of stock"));
    expect(outcome).toEqual({ state: "delivered", reference: "CANCEL-1", warning: null });
    expect(fake.calls("RE01")).toHaveLength(1);
    const [call] = fake.calls("OR30");
    expect([call!.method, call!.path]).toEqual(["PUT", "/api/orders/cancel"]);
    // 2 of 3 units: 20.00 of 30.00, 2.00 of 3.00 shipping, 4.00 of 6.00 tax, 0.40 of 0.60 shipping tax; "Out of stock" is code 35.
    expect(call!.body).toEqual({
      order_tax_mode: "TAX_EXCLUDED",
      cancelations: [
        {
          order_line_id: "C-1-1",
          quantity: 2,
          amount: 20,
          shipping_amount: 2,
          reason_code: "35",
          currency_iso_code: "USD",
          taxes: [{ code: "TAXDEFAULT", amount: 4 }],
          shipping_taxes: [{ code: "TAXDEFAULT", amount: 0.4 }],
        },
      ],
    });
    // Words that match no reason: the operator's first CANCELATION reason the shop may use, with a warning; RE01 is not read again.
    const o2 = orderOf((await imported()).get("C-1")!, { "C-1-1": { cancelled: 3 } });
    expect(await connector.cancel(cancelLines(o2, [{ sourceLineId: "C-1-1", quantity: 1 }], "Customer changed mind"))).toEqual({
      state: "delivered",
      reference: "CANCEL-2",
      warning: 'reason "Customer changed mind" is none of Mirakl\'s CANCELATION reasons: sent as 34 (Cancelled by the client prior to shipping)',
    });
    expect(fake.calls("RE01")).toHaveLength(1);
    const after = (await imported()).get("C-1")!;
    expect(after.items.map((i) => [i.sourceLineId, i.quantityCancelled])).toEqual([
      ["C-1-1", 3],
      ["C-1-2", undefined],
    ]);
    expect(fake.orders.get("C-1")!.order_lines!.map((l) => l.order_line_state)).toEqual(["CANCELED", "SHIPPING"]);
    expect(fake.violations).toEqual([]);
  });

  it("refuses the named lines of an order waiting for acceptance and accepts the rest (OR21); part of a line is refused with the reason", async () => {
    const { fake, connector, imported } = setup({ acceptance: "manual" });
    fake.orders.add(order("C-2", { lines: [line("SKU-A", 2), line("SKU-B")] }));
    const o = orderOf((await imported()).get("C-2")!);
    await expect(connector.cancel(cancelLines(o, [{ sourceLineId: "C-2-1", quantity: 1 }]))).rejects.toMatchObject({
      retryable: false,
      message: "Mirakl order C-2 waits for acceptance: Mirakl refuses whole lines only (OR21), not 1 unit(s) of line C-2-1",
    });
    expect(await connector.cancel(cancelLines(o, [{ sourceLineId: "C-2-2", quantity: 1 }]))).toEqual({
      state: "delivered",
      warning: "Mirakl order C-2: lines C-2-2 refused, the others accepted (OR21 takes a decision for every line)",
    });
    expect(fake.calls("OR21").map((r) => r.body)).toEqual([
      {
        order_lines: [
          { id: "C-2-1", accepted: true },
          { id: "C-2-2", accepted: false },
        ],
      },
    ]);
    expect(fake.orders.get("C-2")!.order_lines!.map((l) => l.order_line_state)).toEqual(["SHIPPING", "REFUSED"]);
    const after = (await imported()).get("C-2")!;
    expect(after.items.map((i) => [i.sourceLineId, i.quantityCancelled])).toEqual([
      ["C-2-1", undefined],
      ["C-2-2", 1],
    ]);
    expect(fake.calls("OR30")).toHaveLength(0);
  });

  it("a whole-order cancellation (no lines, or every unit) still goes through OR29; a shipped line is not cancelled", async () => {
    const { fake, connector, imported } = setup();
    fake.orders.add(order("C-3", { state: "SHIPPING", lines: [line("SKU-A", 2)] }));
    fake.orders.add(order("C-4", { state: "SHIPPING", lines: [line("SKU-A", 1), line("SKU-B", 1)] }));
    const orders = await imported();
    expect(await connector.cancel(cancelLines(orderOf(orders.get("C-3")!, { "C-3-1": { cancelled: 2 } }), [{ sourceLineId: "C-3-1", quantity: 2 }]))).toEqual({
      state: "delivered",
    });
    expect(fake.calls("OR29").map((r) => r.path)).toEqual(["/api/orders/C-3/cancel"]);
    await connector.ship(pkg(orderOf(orders.get("C-4")!, { "C-4-1": { shipped: 1 } }), "S1", [{ sourceLineId: "C-4-1", quantity: 1 }]));
    const c4 = orderOf((await imported()).get("C-4")!, { "C-4-1": { shipped: 1, cancelled: 1 } });
    await expect(connector.cancel(cancelLines(c4, [{ sourceLineId: "C-4-1", quantity: 1 }]))).rejects.toMatchObject({
      retryable: false,
      message: "Mirakl line C-4-1 of order C-4 is SHIPPED: it cannot be cancelled",
    });
    expect(fake.calls("OR30")).toHaveLength(0);
  });
});

describe("Mirakl acceptance by stock (decisions 14)", () => {
  /** The order as the engine hands it over: each line with what it took when its Sku had `stock` for the order (null: not tracked), its lines served in order. */
  const stocked = (o: DeliveryOrder, stock: Record<string, number | null>): DeliveryOrder => {
    const left = new Map<string, number>();
    return {
      ...o,
      lines: o.lines.map((l): DeliveryLine => {
        const had = stock[l.sku];
        if (had === null || had === undefined) return { ...l, stockTaken: had };
        const have = left.get(l.sku) ?? had;
        left.set(l.sku, Math.max(0, have - l.quantity));
        return { ...l, stockTaken: Math.min(l.quantity, have) };
      }),
    };
  };

  it("accepts the lines whose Sku has the units (or is not tracked) and refuses the rest, saying why", async () => {
    const { fake, connector, imported } = setup({ acceptance: "auto" });
    fake.orders.add(order("K-1", { lines: [line("SKU-A", 2), line("SKU-B", 5), line("SKU-C", 1), line("SKU-A", 1)] }));
    const o = stocked(orderOf((await imported()).get("K-1")!), { "SKU-A": 2, "SKU-B": 4, "SKU-C": null });
    expect(await connector.acknowledge(ack(o))).toEqual({
      state: "delivered",
      warning:
        "Mirakl order K-1: accepted the lines in stock and refused line K-1-2 (Sku SKU-B: 5 ordered, 4 in stock), line K-1-4 (Sku SKU-A: 1 ordered, 0 in " +
        "stock)",
    });
    expect(fake.calls("OR21").map((r) => r.body)).toEqual([
      {
        order_lines: [
          { id: "K-1-1", accepted: true },
          { id: "K-1-2", accepted: false },
          { id: "K-1-3", accepted: true },
          { id: "K-1-4", accepted: false },
        ],
      },
    ]);
    expect(fake.orders.get("K-1")!.order_lines!.map((l) => l.order_line_state)).toEqual(["SHIPPING", "REFUSED", "SHIPPING", "REFUSED"]);
  });

  it("refuses the whole order where the shop cannot accept part of one; manual mode accepts every line whatever the stock", async () => {
    const { fake, connector, imported } = setup({ acceptance: "auto" }, { orders: { partialAcceptanceDisabled: true } });
    fake.orders.add(order("K-2", { lines: [line("SKU-A", 1), line("SKU-B", 1)] }));
    const o = stocked(orderOf((await imported()).get("K-2")!), { "SKU-A": 5, "SKU-B": 0 });
    expect(await connector.acknowledge(ack(o))).toEqual({
      state: "delivered",
      warning: "Mirakl order K-2: refused as a whole (the shop cannot accept part of an order) for line K-2-2 (Sku SKU-B: 1 ordered, 0 in stock)",
    });
    expect(fake.calls("OR21").map((r) => r.status)).toEqual([400, 204]);
    expect(fake.orders.get("K-2")!.order_state).toBe("REFUSED");

    const manual = setup({ acceptance: "manual" });
    manual.fake.orders.add(order("K-3", { lines: [line("SKU-A", 1), line("SKU-B", 1)] }));
    const m = stocked(orderOf((await manual.imported()).get("K-3")!), { "SKU-A": 0, "SKU-B": 0 });
    expect(await manual.connector.acknowledge(ack(m))).toEqual({ state: "delivered" });
    expect(manual.fake.calls("OR21").map((r) => r.body)).toEqual([
      {
        order_lines: [
          { id: "K-3-1", accepted: true },
          { id: "K-3-2", accepted: true },
        ],
      },
    ]);
  });
});

describe("Mirakl refunds (OR28)", () => {
  const refundOf = (o: DeliveryOrder, lines: RefundDelivery["lines"], shippingAmount = 0, reason = "Item returned"): RefundDelivery => ({
    id: nextId++,
    idempotencyKey: `source-1-${nextId}`,
    order: o,
    earlier: [],
    kind: "refund",
    lines,
    shippingAmount,
    total: lines.reduce((a, l) => a + l.amount, 0) + shippingAmount,
    currency: "USD",
    reason,
    return: null,
  });

  it("refunds by line with the amounts asked and the operator's reason; the next import reports it under the same reference", async () => {
    const { fake, connector, imported } = setup();
    fake.orders.add(order("R-1", { state: "SHIPPED", lines: [line("SKU-A", 2, 10, { tax: 4 }), line("SKU-B", 1, 5)] }));
    const o = orderOf((await imported()).get("R-1")!);
    const outcome = await connector.refund!(
      refundOf(
        o,
        [
          { sourceLineId: "R-1-1", sku: "SKU-A", quantity: 1, amount: 12 },
          { sourceLineId: "R-1-2", sku: "SKU-B", quantity: 0, amount: 2.5 },
        ],
        1.5,
      ),
    );
    expect(outcome).toEqual({ state: "delivered", reference: "REFUND-1", warning: null });
    const [call] = fake.calls("OR28");
    expect([call!.method, call!.path, call!.body]).toEqual([
      "PUT",
      "/api/orders/refund",
      {
        order_tax_mode: "TAX_INCLUDED",
        refunds: [
          { order_line_id: "R-1-1", amount: 12, shipping_amount: 1.5, reason_code: "17", quantity: 1, currency_iso_code: "USD" },
          { order_line_id: "R-1-2", amount: 2.5, shipping_amount: 0, reason_code: "17", currency_iso_code: "USD" },
        ],
      },
    ]);
    const after = (await imported()).get("R-1")!;
    expect(after.refunds).toEqual([
      {
        sourceRefundId: "REFUND-1",
        createdAt: new Date(START + MINUTE),
        reason: "17",
        lines: [
          { sourceLineId: "R-1-1", quantity: 1, amount: 12 },
          { sourceLineId: "R-1-2", quantity: 0, amount: 2.5 },
        ],
        shippingAmount: 1.5,
        currency: "USD",
      },
    ]);
    // More than the line has left to refund: Mirakl's refusal, for good.
    await expect(connector.refund!(refundOf(o, [{ sourceLineId: "R-1-1", sku: "SKU-A", quantity: 1, amount: 20 }]))).rejects.toMatchObject({
      retryable: false,
      message: "Mirakl OR28 400 REFUND_AMOUNT_INVALID: 20 is more than line R-1-1 has left to refund",
    });
    expect(fake.violations).toEqual([]);
  });

  it("never refunds twice: after a lost OR28 answer the retry finds the refund on the order", async () => {
    let lose = true;
    const { fake, connector, imported } = setup({}, {}, (f) => async (input, init) => {
      const answer = await f(input, init);
      if (lose && new URL(input instanceof Request ? input.url : String(input)).pathname === "/api/orders/refund") {
        lose = false;
        throw new TypeError("Network connection lost.");
      }
      return answer;
    });
    fake.orders.add(order("R-2", { state: "SHIPPED", lines: [line("SKU-A", 1, 10)] }));
    const delivery = refundOf(orderOf((await imported()).get("R-2")!), [{ sourceLineId: "R-2-1", sku: "SKU-A", quantity: 1, amount: 10 }]);
    await expect(connector.refund!(delivery)).rejects.toMatchObject({ retryable: true });
    expect(await connector.refund!(delivery)).toEqual({
      state: "delivered",
      reference: "REFUND-1",
      warning: "Mirakl refund REFUND-1 was made by an earlier call whose answer was lost",
    });
    expect(fake.calls("OR28")).toHaveLength(1);
  });
});

describe("Mirakl returns in (RT11)", () => {
  it("reads the window by last update in seek pages, maps the states, sets aside what it cannot read, and polls every 15 minutes", async () => {
    const { fake, connector, advance } = setup();
    const returns = connector.returns;
    if (!returns || "notApplicable" in returns) throw new Error("Mirakl reads returns");
    fake.orders.add(order("T-1", { state: "SHIPPED", lines: [line("SKU-A", 2), line("SKU-B")] }));
    const states = ["WAITING_ACCEPTANCE", "IN_PROGRESS", "RECEIVED", "REFUSED", "CLOSED", "NO_RECEPTION", "CANCELED", "LOST_IN_SPACE"];
    for (const [i, state] of states.entries())
      fake.orders.lines.addReturn({
        id: `RET-${i + 1}`,
        orderId: "T-1",
        state,
        lines: [{ lineId: "T-1-1", quantity: 1, reason: "RETURN_BROKEN_ITEM" }],
        createdAt: new Date(START - (60 - i) * MINUTE),
      });
    for (let i = 0; i < 100; i++)
      fake.orders.lines.addReturn({
        id: `BULK-${i}`,
        orderId: "T-1",
        state: "CLOSED",
        lines: [{ lineId: "T-1-2", quantity: 1 }],
        createdAt: new Date(START - 50 * MINUTE),
      });
    // One outside the window (updated after its end).
    advance(MINUTE);
    fake.orders.lines.addReturn({ id: "LATE", orderId: "T-1", lines: [{ lineId: "T-1-1", quantity: 1 }] });
    const first = await returns.fetchReturns(WINDOW, null);
    expect(first.returns).toHaveLength(99);
    expect(first.setAside).toEqual([
      {
        sourceReturnNumber: "RET-8",
        sourceOrderNumber: "T-1",
        reason: 'Mirakl return RET-8 is in state "LOST_IN_SPACE", which the connector does not know',
        record: expect.objectContaining({ id: "RET-8" }),
      },
    ]);
    expect(first.returns.slice(0, 7).map((r) => [r.sourceReturnNumber, r.sourceStatus, r.state])).toEqual([
      ["RET-1", "WAITING_ACCEPTANCE", "Requested"],
      ["RET-2", "IN_PROGRESS", "Approved"],
      ["RET-3", "RECEIVED", "Received"],
      ["RET-4", "REFUSED", "Rejected"],
      ["RET-5", "CLOSED", "Closed"],
      ["RET-6", "NO_RECEPTION", "Closed"],
      ["RET-7", "CANCELED", "Closed"],
    ]);
    expect(first.returns[0]).toEqual({
      sourceReturnNumber: "RET-1",
      sourceOrderNumber: "T-1",
      state: "Requested",
      sourceStatus: "WAITING_ACCEPTANCE",
      requestedAt: new Date(START - 60 * MINUTE),
      reason: "RETURN_BROKEN_ITEM",
      lines: [{ sourceReturnLineId: "T-1-1", sourceLineId: "T-1-1", quantity: 1, reason: "RETURN_BROKEN_ITEM" }],
      sourceData: { rma: "RMA-RET-1" },
      record: expect.objectContaining({ id: "RET-1" }),
    });
    expect(first.nextCursor).not.toBeNull();
    const second = await returns.fetchReturns(WINDOW, first.nextCursor);
    expect(second.returns.map((r) => r.sourceReturnNumber)).toEqual(["BULK-92", "BULK-93", "BULK-94", "BULK-95", "BULK-96", "BULK-97", "BULK-98", "BULK-99"]);
    expect(second.nextCursor).toBeNull();
    const calls = fake.calls("RT11");
    expect(calls[0]!.query).toEqual({ return_last_updated_from: "2026-02-28T12:00:00.000Z", return_last_updated_to: "2026-03-01T12:00:00.000Z", limit: "100" });
    expect(Object.keys(calls[1]!.query)).toEqual(["page_token", "limit"]);
    // The operator's retry maps the record again.
    expect(returns.remap(first.setAside[0]!.record)).toMatchObject({ sourceReturnNumber: "RET-8" });
    // The next poll waits 15 minutes.
    advance(5 * MINUTE);
    await expect(returns.fetchReturns({ since: WINDOW.until, until: new Date(START + 6 * MINUTE) }, null)).rejects.toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 10 * MINUTE,
    });
    advance(10 * MINUTE);
    const next = await returns.fetchReturns({ since: WINDOW.until, until: new Date(START + 16 * MINUTE) }, null);
    expect(next.returns.map((r) => r.sourceReturnNumber)).toEqual(["LATE"]);
    expect(fake.violations).toEqual([]);
  });
});

describe("Mirakl line-level calls on a bad day", () => {
  it("429 with Retry-After, 5xx and nonsense on ST01, OR30, OR28, RE01 and RT11 are tried again; nothing is made twice", async () => {
    const { fake, connector, imported, advance } = setup();
    fake.orders.add(order("B-1", { state: "SHIPPING", lines: [line("SKU-A", 3)] }));
    const o = (await imported()).get("B-1")!;
    const ship = pkg(orderOf(o, { "B-1-1": { shipped: 1 } }), "S1", [{ sourceLineId: "B-1-1", quantity: 1 }]);
    fake.failNext({ status: 429, headers: { "Retry-After": "30" }, operation: "ST01" });
    await expect(connector.ship(ship)).rejects.toMatchObject({ status: 429, retryable: true, retryAfterMs: 30_000 });
    fake.failNext({ status: 502, operation: "ST01" });
    await expect(connector.ship(ship)).rejects.toMatchObject({ status: 502, retryable: true });
    fake.failNext({ status: 201, body: "<html>oops</html>", operation: "ST01" });
    await expect(connector.ship(ship)).rejects.toMatchObject({ retryable: true });
    expect((await connector.ship(ship)).state).toBe("delivered");
    expect(fake.orders.lines.shipments).toHaveLength(1);

    const cancel = cancelLines(orderOf(o, { "B-1-1": { shipped: 1, cancelled: 1 } }), [{ sourceLineId: "B-1-1", quantity: 1 }]);
    fake.failNext({ status: 503, operation: "RE01" });
    await expect(connector.cancel(cancel)).rejects.toMatchObject({ status: 503, retryable: true });
    fake.failNext({ status: 200, body: { cancelations: "none" }, operation: "OR30" });
    await expect(connector.cancel(cancel)).rejects.toMatchObject({ retryable: true, message: "Mirakl OR30 answered nonsense: no cancelations list" });
    // The retry looks for a cancellation the nonsense answer may have hidden, finds none, and sends OR30 again.
    expect(await connector.cancel(cancel)).toEqual({ state: "delivered", reference: "CANCEL-2", warning: null });
    expect(fake.calls("OR30").map((r) => r.status)).toEqual([200, 200]);
    expect(fake.orders.get("B-1")!.order_lines![0]!.cancelations).toHaveLength(1);

    fake.failNext({ status: 500, operation: "OR28" });
    const refund: RefundDelivery = {
      id: nextId++,
      idempotencyKey: "k",
      order: orderOf(o),
      earlier: [],
      kind: "refund",
      lines: [{ sourceLineId: "B-1-1", sku: "SKU-A", quantity: 1, amount: 10 }],
      shippingAmount: 0,
      total: 10,
      currency: null,
      reason: "Item returned",
      return: null,
    };
    await expect(connector.refund!(refund)).rejects.toMatchObject({ status: 500, retryable: true });
    expect(await connector.refund!(refund)).toEqual({ state: "delivered", reference: "REFUND-3", warning: null });

    const returns = connector.returns as Exclude<typeof connector.returns, { notApplicable: string } | undefined>;
    fake.failNext({ status: 200, body: { data: "nothing" }, operation: "RT11" });
    await expect(returns.fetchReturns(WINDOW, null)).rejects.toMatchObject({ retryable: true, message: "Mirakl RT11 answered nonsense: no data list" });
    advance(15 * MINUTE);
    fake.failNext({ status: 429, headers: { "Retry-After": "300" }, operation: "RT11" });
    await expect(returns.fetchReturns(WINDOW, null)).rejects.toMatchObject({ status: 429, retryable: true, retryAfterMs: 300_000 });
    expect(fake.violations).toEqual([]);
  });
});

describe("the fake Mirakl holds the line-level requests to the description", () => {
  it(
    "refuses a shipment line without quantity, a cancellation without reason_code, a refund without shipping_amount, and a returns parameter it does not " +
      "list",
    async () => {
      const { fake } = setup();
      const send = (method: string, path: string, body?: unknown) =>
        fake.fetch(`${MIRAKL_FAKE_URL}${path}`, {
          method,
          headers: { Authorization: MIRAKL_FAKE_KEY, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await send("POST", "/api/shipments", { shipments: [{ order_id: "X-1", shipment_lines: [{ order_line_id: "X-1-1" }] }] })).status).toBe(400);
      expect((await send("PUT", "/api/orders/cancel", { cancelations: [{ order_line_id: "X-1-1", quantity: 1, amount: 1, shipping_amount: 0 }] })).status).toBe(
        400,
      );
      expect((await send("PUT", "/api/orders/refund", { refunds: [{ order_line_id: "X-1-1", amount: 1, reason_code: "17" }] })).status).toBe(400);
      expect((await send("GET", "/api/returns?updated_since=2026-03-01T00:00:00Z")).status).toBe(400);
      expect((await send("GET", "/api/returns?limit=500")).status).toBe(400);
      expect(fake.violations).toEqual([
        "POST /api/shipments: body.shipments[0].shipment_lines[0].quantity: required by the description, missing",
        "PUT /api/orders/cancel: body.cancelations[0].reason_code: required by the description, missing",
        "PUT /api/orders/refund: body.refunds[0].shipping_amount: required by the description, missing",
        "GET /api/returns: query parameter updated_since is not in the description of RT11",
        "GET /api/returns: limit=500 must be 1..100",
      ]);
    },
  );
});
