// A Mirakl source inside real cycles: the cycle's fetch is the global one, replaced here by the
// fake Mirakl (no network), so this is what the Cron Trigger does in production. Read back as a
// client (the /v1 orders) and an operator (the admin API) see it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../../helpers/api";
import { badDaySuite, quietOtherSources } from "../../helpers/bad-day";
import { createSource, cycleAt, deliveries, fireCron, listOrders, MINUTE } from "../../helpers/sync";
import { putStock, quantities } from "../../stock/helpers";
import { createMiraklFake, MIRAKL_FAKE_HOST, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL, type MiraklFake } from "./mirakl-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

const SETTINGS = { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, carriers: { "UPS Ground": "UPS" } };
/** The suite below drives acceptance by hand; the one after it lets the hub decide (decisions 14). */
const MANUAL = { ...SETTINGS, acceptance: "manual" };

async function miraklStore() {
  let at = Date.now();
  const fake = createMiraklFake({ now: () => new Date(at) });
  vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
  const created = new Date(at - 30 * MINUTE);
  fake.orders.add({
    id: "W-1",
    createdAt: created,
    lines: [
      { sku: "SKU-1", quantity: 2, unitPrice: 15, tax: 3 },
      { sku: "SKU-2", quantity: 1, unitPrice: 40, tax: 4, shipping: 5.5 },
    ],
    address: {
      firstname: "Grace",
      lastname: "Hopper",
      street_1: "10 Navy Way",
      city: "Arlington",
      zip_code: "22202",
      state: "VA",
      country_iso_code: "USA",
      phone: "+1 703 555 0199",
    },
  });
  fake.orders.add({ id: "W-2", createdAt: new Date(at - 20 * MINUTE), lines: [{ sku: "SKU-1", quantity: 1, unitPrice: 15 }] });
  fake.orders.add({ id: "W-3", createdAt: new Date(at - 10 * MINUTE), lines: [{ sku: "SKU-2", quantity: 2, unitPrice: 40 }] });
  fake.orders.add({ id: "X-1", createdAt: new Date(at - 5 * MINUTE), state: "STAGING", lines: [{ sku: "SKU-1", quantity: 1, unitPrice: 15 }] });
  const { storeId, token } = await storeWithToken();
  await putStock(storeId, [
    { Sku: "SKU-1", Quantity: 10, Price: 15 },
    { Sku: "SKU-2", Quantity: 5, Price: 40 },
  ]);
  const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl shop", Settings: { ...MANUAL, pushStock: false } });
  const cycle = async (minutesLater: number) => {
    at += minutesLater * MINUTE;
    return cycleAt(sourceId, at);
  };
  return { fake, storeId, token, sourceId, cycle };
}

const byNumber = async (token: string) => new Map((await listOrders(token)).map((o) => [o.OrderSourceOrderNumber, o]));

describe("a Mirakl source in sync cycles", () => {
  it(
    "imports orders waiting for acceptance as New without an address; AcknowledgeOrder accepts them, the next import brings the address, a shipment goes " +
      "out",
    async () => {
      const { fake, storeId, token, sourceId, cycle } = await miraklStore();
      const first = await cycle(0);
      expect(first).toMatchObject({ error: null, fetched: 3, imported: 3 });
      let orders = await byNumber(token);
      expect([...orders.keys()].sort()).toEqual(["W-1", "W-2", "W-3"]);
      const w1 = orders.get("W-1")!;
      expect(w1).toMatchObject({
        OrderSource: "Mirakl shop",
        OrderStatus: "New",
        SourceOrderStatus: "WAITING_ACCEPTANCE",
        Street1: "",
        City: "",
        PostalCode: "",
        BuyerPhoneNumber: "",
        SubTotal: 70,
        GrandTotal: 82.5,
      });
      expect(w1.OrderItems.map((i) => [i.Sku, i.Quantity, i.UnitPrice, i.SaleTaxCost])).toEqual([
        ["SKU-1", 2, 15, 3],
        ["SKU-2", 1, 40, 4],
      ]);
      // New orders hold their stock (decisions 11).
      expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 7, "SKU-2": 2 });

      expect((await call("PUT", `/v1/${token}/Orders/${w1.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-1`)).status).toBe(200);
      expect(await cycle(2)).toMatchObject({ delivered: 1, failed: 0 });
      expect(fake.calls("OR21").map((r) => r.body)).toEqual([
        {
          order_lines: [
            { id: "W-1-1", accepted: true },
            { id: "W-1-2", accepted: true },
          ],
        },
      ]);
      // The import of the same cycle ran before the delivery: the address comes with the next one.
      await cycle(2);
      orders = await byNumber(token);
      expect(orders.get("W-1")).toMatchObject({
        OrderStatus: "Processing",
        SourceOrderStatus: "SHIPPING",
        FirstName: "Grace",
        LastName: "Hopper",
        Street1: "10 Navy Way",
        City: "Arlington",
        StateOrProvince: "VA",
        PostalCode: "22202",
        Country: "USA",
        BuyerPhoneNumber: "+1 703 555 0199",
      });

      const shipped = await call("PUT", `/v1/${token}/Orders/${w1.OrderId}/UpdateStatus`, {
        body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z999AA10123456784", DestinationShippingCarrier: "UPS Ground" },
      });
      expect(shipped.status).toBe(200);
      expect(await cycle(2)).toMatchObject({ delivered: 1, failed: 0 });
      // One package of every unit through ST01 (the fake's shop has multiple shipments), its reference made from the hub's package.
      expect(fake.calls("ST01").map((r) => r.body)).toEqual([
        {
          shipments: [
            {
              order_id: "W-1",
              shipment_lines: [
                { order_line_id: "W-1-1", quantity: 2, package_reference: expect.stringMatching(/^hub-/) },
                { order_line_id: "W-1-2", quantity: 1, package_reference: expect.stringMatching(/^hub-/) },
              ],
              tracking: { carrier_code: "UPS", tracking_number: "1Z999AA10123456784" },
              shipped: true,
            },
          ],
        },
      ]);
      expect(fake.orders.get("W-1")!.order_state).toBe("SHIPPED");
      await cycle(2);
      expect((await byNumber(token)).get("W-1")!.SourceOrderStatus).toBe("SHIPPED");
      expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered", "delivered"]);
      // The address once stored is the order's: an import never blanks it again.
      fake.orders.edit("W-1", (o) => void (o.customer!.shipping_address = null));
      await cycle(2);
      expect((await byNumber(token)).get("W-1")!.Street1).toBe("10 Navy Way");
      expect(fake.violations).toEqual([]);
    },
  );

  it("a cancelled waiting order is refused at Mirakl; refusals either side give the stock back once", async () => {
    const { fake, storeId, token, cycle } = await miraklStore();
    await cycle(0);
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 7, "SKU-2": 2 });
    const w2 = (await byNumber(token)).get("W-2")!;
    expect((await call("PUT", `/v1/${token}/Orders/${w2.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    expect(await quantities(storeId, ["SKU-1"])).toEqual({ "SKU-1": 8 });
    expect(await cycle(2)).toMatchObject({ delivered: 1, failed: 0 });
    expect(fake.calls("OR21").map((r) => r.body)).toEqual([{ order_lines: [{ id: "W-2-1", accepted: false }] }]);
    // Mirakl refuses W-3 itself (its acceptance deadline passed).
    fake.orders.edit("W-3", (o) => void (o.order_state = "REFUSED"));
    await cycle(2);
    const orders = await byNumber(token);
    expect([orders.get("W-2")!.SourceOrderStatus, orders.get("W-3")!.SourceOrderStatus]).toEqual(["REFUSED", "REFUSED"]);
    // W-2 gave its unit back when the seller cancelled it, W-3 its two when Mirakl refused it: once each.
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 8, "SKU-2": 4 });
    await cycle(2);
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 8, "SKU-2": 4 });
    expect(fake.violations).toEqual([]);
  });

  it("a shipment Mirakl refuses for good fails with Mirakl's words on the order", async () => {
    const { fake, storeId, token, sourceId, cycle } = await miraklStore();
    await cycle(0);
    const w3 = (await byNumber(token)).get("W-3")!;
    fake.orders.edit("W-3", (o) => void (o.order_state = "CANCELED"));
    await call("PUT", `/v1/${token}/Orders/${w3.OrderId}/UpdateStatus`, {
      body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1", DestinationShippingCarrier: "UPS Ground" },
    });
    expect(await cycle(2)).toMatchObject({ delivered: 0, failed: 1 });
    const [row] = await deliveries(storeId, sourceId);
    // The import before the delivery read the order CANCELED: refused without a call.
    expect(row!.LastError).toBe("Mirakl order W-3 was CANCELED at the last import: it cannot be shipped");
    expect([...fake.calls("OR21"), ...fake.calls("OR23"), ...fake.calls("OR24"), ...fake.calls("ST01")]).toEqual([]);
    expect((await byNumber(token)).get("W-3")!.SyncUserErrorMessage).toBe(row!.LastError);
  });

  it("keeps to one order poll a minute across cycles: a cycle sooner says so and imports in the next", async () => {
    const { fake, token, cycle } = await miraklStore();
    await cycle(0);
    const early = await cycle(0.5);
    expect(early.error).toMatch(
      /^import: Mirakl OR11 is polled at most once a minute \(the description's maximum\): the next poll fits in 3[01] s, so it waits for a later cycle$/,
    );
    fake.orders.add({ id: "W-9", createdAt: new Date(Date.now()), lines: [{ sku: "SKU-1", quantity: 1, unitPrice: 15 }] });
    // The import waits out the pace (the cycle stored it as the marketplace's wait), then reads W-9.
    await cycle(1);
    expect((await byNumber(token)).has("W-9")).toBe(true);
    expect(fake.calls("OR11").filter((r) => r.query.offset === "0" && !r.query.order_ids)).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });
});

describe("a Mirakl source in auto acceptance (decisions 14)", () => {
  it("accepts at import the lines in stock and refuses the rest through OR21; the refused units come back cancelled", async () => {
    let at = Date.now();
    const fake = createMiraklFake({ now: () => new Date(at) });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    fake.orders.add({
      id: "A-1",
      createdAt: new Date(at - 30 * MINUTE),
      lines: [
        { sku: "SKU-1", quantity: 2, unitPrice: 15 },
        { sku: "SKU-2", quantity: 3, unitPrice: 40 },
        { sku: "FREE-1", quantity: 4, unitPrice: 5 },
      ],
    });
    fake.orders.add({ id: "A-2", createdAt: new Date(at - 20 * MINUTE), lines: [{ sku: "SKU-1", quantity: 8, unitPrice: 15 }] });
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "SKU-1", Quantity: 10, Price: 15 },
      { Sku: "SKU-2", Quantity: 2, Price: 40 },
    ]);
    const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl auto", Settings: { ...SETTINGS, pushStock: false } });
    const cycle = async (minutesLater: number) => {
      at += minutesLater * MINUTE;
      return cycleAt(sourceId, at);
    };
    // One cycle imports both orders and delivers the acknowledgements the import queued.
    expect(await cycle(0)).toMatchObject({ error: null, imported: 2, delivered: 2, failed: 0 });
    // A-1: SKU-1 has 10 (2 ordered), SKU-2 has 2 (3 ordered), FREE-1 is not tracked. A-2 comes after A-1 took 2 of SKU-1: 8 left, 8 ordered.
    expect(fake.calls("OR21").map((r) => [r.path, r.body])).toEqual([
      [
        "/api/orders/A-1/accept",
        {
          order_lines: [
            { id: "A-1-1", accepted: true },
            { id: "A-1-2", accepted: false },
            { id: "A-1-3", accepted: true },
          ],
        },
      ],
      ["/api/orders/A-2/accept", { order_lines: [{ id: "A-2-1", accepted: true }] }],
    ]);
    const rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => [d.Kind, d.Status])).toEqual([
      ["acknowledge", "delivered"],
      ["acknowledge", "delivered"],
    ]);
    const message = "Mirakl order A-1: accepted the lines in stock and refused line A-1-2 (Sku SKU-2: 3 ordered, 2 in stock)";
    let orders = await byNumber(token);
    expect(orders.get("A-1")!.SyncUserErrorMessage).toBe(message);
    expect(orders.get("A-2")!.SyncUserErrorMessage).toBeNull();
    expect(orders.get("A-1")!.OrderStatus).toBe("New");

    // The next import reads the refused line and cancels its units in the hub.
    await cycle(2);
    orders = await byNumber(token);
    expect(orders.get("A-1")!.SourceOrderStatus).toBe("SHIPPING");
    expect(orders.get("A-1")!.OrderItems.map((i) => [i.Sku, i.Quantity, i.QuantityCancelled])).toEqual([
      ["SKU-1", 2, 0],
      ["SKU-2", 3, 3],
      ["FREE-1", 4, 0],
    ]);
    expect(orders.get("A-2")!.SourceOrderStatus).toBe("SHIPPING");
    // SKU-1: 10 - 2 - 8. SKU-2: the refused line of 3 took the 2 there were, and gives back those 2, not 3.
    expect(await quantities(storeId, ["SKU-1", "SKU-2"])).toEqual({ "SKU-1": 0, "SKU-2": 2 });
    // An integrator's AcknowledgeOrder afterwards calls nothing.
    expect((await call("PUT", `/v1/${token}/Orders/${orders.get("A-2")!.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-2`)).status).toBe(200);
    await cycle(2);
    expect(fake.calls("OR21")).toHaveLength(2);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered", "delivered", "notApplicable"]);
    expect(fake.violations).toEqual([]);
  });

  it("in manual mode the import queues nothing: an order waits for AcknowledgeOrder", async () => {
    const fake = createMiraklFake({ now: () => new Date() });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    fake.orders.add({ id: "M-1", createdAt: new Date(Date.now() - 30 * MINUTE), lines: [{ sku: "SKU-2", quantity: 3, unitPrice: 40 }] });
    const { storeId } = await storeWithToken();
    await putStock(storeId, [{ Sku: "SKU-2", Quantity: 1, Price: 40 }]);
    const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl manual", Settings: { ...MANUAL, pushStock: false } });
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ error: null, imported: 1, delivered: 0 });
    expect(fake.calls("OR21")).toEqual([]);
    expect(await deliveries(storeId, sourceId)).toEqual([]);
  });
});

describe("Mirakl source settings through the admin API", () => {
  it("answers 400 naming the field for a bad baseUrl, key, shop, acceptance or carrier map; masks the key", async () => {
    const { storeId } = await storeWithToken();
    const attempt = (settings: Record<string, unknown>) => admin("POST", `/stores/${storeId}/sources`, { Type: "mirakl", Name: "M", Settings: settings });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ apiKey: MIRAKL_FAKE_KEY }, /baseUrl/],
      [{ ...SETTINGS, baseUrl: "http://marketplace.fake.mirakl.net" }, /baseUrl.*https/],
      [{ baseUrl: MIRAKL_FAKE_URL }, /apiKey is required/],
      [{ ...SETTINGS, apiKey: "two words" }, /apiKey must be printable ASCII without spaces/],
      [{ ...SETTINGS, shopId: "2001" }, /shopId must be a number/],
      [{ ...SETTINGS, shopId: 0 }, /shopId must be 1 or more/],
      [{ ...SETTINGS, acceptance: "sometimes" }, /acceptance/],
      [{ ...SETTINGS, carriers: { UPS: "" } }, /carriers/],
      [{ ...SETTINGS, carriers: ["UPS"] }, /carriers/],
      [{ ...SETTINGS, region: "eu" }, /region/],
    ];
    for (const [settings, message] of cases) {
      const res = await attempt(settings);
      expect(res.status, JSON.stringify(settings)).toBe(400);
      expect(res.json.Message, JSON.stringify(settings)).toMatch(message);
    }
    const ok = await attempt({ ...SETTINGS, shopId: 2001, acceptance: "manual", defaultCarrierCode: "UPS" });
    expect(ok.status, ok.text).toBe(200);
    const source = ok.json.Source as { SourceId: string; Settings: Record<string, unknown> };
    expect(source.Settings).toEqual({
      baseUrl: MIRAKL_FAKE_URL,
      apiKey: "********",
      shopId: 2001,
      acceptance: "manual",
      carriers: { "UPS Ground": "UPS" },
      defaultCarrierCode: "UPS",
    });
    // Another host for the key needs the key again (decisions 6).
    const moved = await admin("PATCH", `/stores/${storeId}/sources/${source.SourceId}`, {
      Settings: { ...SETTINGS, apiKey: undefined, baseUrl: "https://other.mirakl.net" },
    });
    expect(moved.status).toBe(400);
    expect(moved.json.Message).toMatch(/apiKey/);
  });
});

describe("a Mirakl source on a bad day", () => {
  badDaySuite({
    type: "mirakl",
    settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, pushStock: false },
    hosts: [MIRAKL_FAKE_HOST],
    fake: (now) => {
      const fake = createMiraklFake({ now });
      fake.orders.add({ id: "BD-1", createdAt: new Date(now().getTime() - 30 * MINUTE), lines: [{ sku: "SKU-1", quantity: 1, unitPrice: 15 }] });
      fake.orders.add({ id: "BD-2", createdAt: new Date(now().getTime() - 20 * MINUTE), lines: [{ sku: "SKU-2", quantity: 1, unitPrice: 15 }] });
      return fake;
    },
    orderList: { operation: "OR11" },
    token: null,
    pausedBy: { operation: "OR11" },
    // A line's taxes as an object, not the list the description has: a TypeError in mapping.
    spoilRecord(fake) {
      (fake as MiraklFake).orders.edit("BD-1", (o) => void (o.order_lines![0]!.taxes = { amount: 1 } as never));
      return "BD-1";
    },
  });

  it("a cron cycle of a Mirakl source answering 500 ends and says why; the next imports", async () => {
    await quietOtherSources();
    const fake = createMiraklFake();
    fake.orders.add({ id: "C-1", createdAt: new Date(Date.now() - 10 * MINUTE), lines: [{ sku: "SKU-1", quantity: 1, unitPrice: 15 }] });
    fake.failNext({ status: 500, operation: "OR11" });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "mirakl",
      Name: "Mirakl 500",
      Settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY, pushStock: false },
    });
    await fireCron(Date.now());
    const status = ((await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { LastError: string } }).Status;
    expect(status.LastError).toBe("import: Mirakl OR11 500 fault 500");
    await fireCron(Date.now() + 16 * MINUTE);
    expect((await listOrders(token)).map((o) => o.OrderSourceOrderNumber)).toContain("C-1");
  });
});
