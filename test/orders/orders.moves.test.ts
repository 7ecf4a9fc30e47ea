// AcknowledgeOrder and UpdateStatus (spec 4.5, 4.6, decisions 3): the state moves, their
// repeats, and the outbox rows they queue for the marketplace.
import { describe, expect, it } from "vitest";
import { cancel } from "../../src/orders/order-moves";
import { moveStateOf } from "../../src/orders/orders.queries";
import { applyMove } from "../../src/orders/orders.writes";
import { moveOrder } from "../../src/orders/order-move.service";
import type { WireOrder } from "../../src/orders/orders.wire";
import { call, insert, storeWithToken } from "../helpers/api";
import { countingD1, insertSource, orderRow, outboxOf } from "../helpers/db";
import { drizzleOf, storeD1, storeDrizzle } from "../helpers/shards";

const ONLY = "only CANCELLED or SHIPPED status updates are allowed";

/** A store with a marketplace source named "Mall": orders inserted with OrderSource "Mall" are claimed by it. */
async function marketplaceStore() {
  const store = await storeWithToken();
  const sourceId = await insertSource(store.storeId, "Mall");
  return { ...store, sourceId };
}

async function read(token: string, id: string): Promise<WireOrder> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status).toBe(200);
  return (res.json.Orders as WireOrder[])[0]!;
}

function acknowledge(token: string, id: string, number: string) {
  return call("PUT", `/v1/${token}/Orders/${id}/AcknowledgeOrder?orderDestinationOrderNumber=${encodeURIComponent(number)}`);
}

function updateStatus(token: string, id: string, body: Record<string, unknown>) {
  return call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body });
}

function expectOk(res: { status: number; json: unknown; text: string }) {
  expect(res.status, res.text).toBe(200);
  expect(res.json).toEqual({ Success: true, Message: "" });
}

describe("AcknowledgeOrder", () => {
  it("moves New to Processing, stores the seller's number and DateCreatedInDestination, and queues one acknowledgement", async () => {
    const { token, sourceId } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expect((await orderRow(id))!.source_id).toBe(sourceId);
    expect((await read(token, id)).SyncStatus).toBe("Enabled");
    expectOk(await acknowledge(token, id, "ERP-1"));
    const order = await read(token, id);
    expect(order.OrderStatus).toBe("Processing");
    expect(order.OrderDestinationOrderNumber).toBe("ERP-1");
    expect(order.DateCreatedInDestination).toMatch(/Z$/);
    const outbox = await outboxOf(id);
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ kind: "acknowledge", source_id: sourceId, state: "pending" });
    expect(JSON.parse(outbox[0]!.payload)).toEqual({ sellerOrderNumber: "ERP-1" });
  });

  it("answers 200 and changes nothing when acknowledged again with the same number", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await acknowledge(token, id, "ERP-1"));
    const before = await read(token, id);
    expectOk(await acknowledge(token, id, "ERP-1"));
    expect(await read(token, id)).toEqual(before);
    expect(await outboxOf(id)).toHaveLength(1);
  });

  it("replaces the number of a Processing order acknowledged with another, and forwards only the latest while the first is undelivered", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await acknowledge(token, id, "ERP-1"));
    const first = await read(token, id);
    expectOk(await acknowledge(token, id, "ERP-2"));
    const second = await read(token, id);
    expect(second.OrderStatus).toBe("Processing");
    expect(second.OrderDestinationOrderNumber).toBe("ERP-2");
    // The order entered the seller's system once; the date stays.
    expect(second.DateCreatedInDestination).toBe(first.DateCreatedInDestination);
    expect(Date.parse(second.DateUpdated!)).toBeGreaterThan(Date.parse(first.DateUpdated!));
    const outbox = await outboxOf(id);
    // The undelivered acknowledgement is replaced, not followed by a second one (issue 20).
    expect(outbox.map((r) => JSON.parse(r.payload).sellerOrderNumber)).toEqual(["ERP-2"]);
  });

  it("refuses to acknowledge a Canceled order with 400 saying why", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await updateStatus(token, id, { OrderStatus: "CANCELED" }));
    const res = await acknowledge(token, id, "ERP-1");
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toMatch(/Canceled/);
    expect((await read(token, id)).OrderDestinationOrderNumber).toBeNull();
    expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["cancel"]);
  });

  it("records a seller number on a Shipped order that has none, and refuses to change it afterwards", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z" }));
    expectOk(await acknowledge(token, id, "ERP-1"));
    expect(await read(token, id)).toMatchObject({ OrderStatus: "Shipped", OrderDestinationOrderNumber: "ERP-1" });
    expectOk(await acknowledge(token, id, "ERP-1"));
    const res = await acknowledge(token, id, "ERP-2");
    expect(res.status).toBe(400);
    expect(res.json.Message).toMatch(/Shipped/);
    expect((await read(token, id)).OrderDestinationOrderNumber).toBe("ERP-1");
    expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["ship", "acknowledge"]);
  });

  it("answers 400 naming orderDestinationOrderNumber when it is missing or blank, and 404 for an unknown order", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token);
    for (const query of ["", "?orderDestinationOrderNumber=", "?orderDestinationOrderNumber=%20%20", `?orderDestinationOrderNumber=${"x".repeat(101)}`]) {
      const res = await call("PUT", `/v1/${token}/Orders/${id}/AcknowledgeOrder${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.Message).toContain("orderDestinationOrderNumber");
    }
    expect((await read(token, id)).OrderStatus).toBe("New");
    expect((await acknowledge(token, "987654321", "ERP-1")).status).toBe(404);
  });
});

describe("UpdateStatus SHIPPED", () => {
  it.each(["New", "Processing"])("ships a %s order: tracking, date-only DateShipped as midnight UTC, carrier override", async (status) => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall", OrderStatus: status, DestinationShippingCarrier: "USPS" });
    expectOk(
      await updateStatus(token, id, { OrderStatus: "shipped", ShipmentTrackingNumber: "1Z-1", DateShipped: "2026-03-05", DestinationShippingCarrier: "FedEx" }),
    );
    const order = await read(token, id);
    expect(order).toMatchObject({
      OrderStatus: "Shipped",
      ShipmentTrackingNumber: "1Z-1",
      DateShipped: "2026-03-05T00:00:00.000Z",
      DestinationShippingCarrier: "FedEx",
    });
    const outbox = await outboxOf(id);
    expect(outbox.map((r) => r.kind)).toEqual(["ship"]);
    expect(JSON.parse(outbox[0]!.payload)).toMatchObject({ trackingNumber: "1Z-1", carrier: "FedEx", shippedAt: Date.parse("2026-03-05T00:00:00Z") });
  });

  it("keeps the source's carrier when none is given, and stamps the ship time when DateShipped is left out", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall", DestinationShippingCarrier: "USPS" });
    const before = Date.now();
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "9400" }));
    const order = await read(token, id);
    expect(order.DestinationShippingCarrier).toBe("USPS");
    expect(Date.parse(order.DateShipped!)).toBeGreaterThanOrEqual(before);
    expect(order.DateShipped).toMatch(/Z$/);
  });

  it("corrects the tracking of a Shipped order, and a repeat with the same values changes and queues nothing", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "WRONG", DateShipped: "2026-03-05T14:30:00+01:00" }));
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "RIGHT" }));
    const corrected = await read(token, id);
    expect(corrected).toMatchObject({ OrderStatus: "Shipped", ShipmentTrackingNumber: "RIGHT", DateShipped: "2026-03-05T13:30:00.000Z" });
    // The undelivered shipment is replaced by the corrected one (issue 20).
    expect((await outboxOf(id)).map((r) => [r.kind, JSON.parse(r.payload).trackingNumber])).toEqual([["ship", "RIGHT"]]);
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "RIGHT", DateShipped: "2026-03-05T13:30:00Z" }));
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED" }));
    expect(await read(token, id)).toEqual(corrected);
    expect(await outboxOf(id)).toHaveLength(1);
  });

  it("refuses to ship a Canceled order", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await updateStatus(token, id, { OrderStatus: "CANCELLED" }));
    const res = await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z" });
    expect(res.status).toBe(400);
    expect(res.json.Message).toMatch(/Canceled/);
    expect((await read(token, id)).OrderStatus).toBe("Canceled");
    expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["cancel"]);
  });
});

describe("UpdateStatus CANCELED", () => {
  it.each([
    ["New", "CANCELED"],
    ["New", "CANCELLED"],
    ["Processing", "canceled"],
    ["Processing", "Cancelled"],
  ])("cancels a %s order with %s and queues one cancellation; a repeat queues nothing", async (status, word) => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall", OrderStatus: status });
    expectOk(await updateStatus(token, id, { OrderStatus: word }));
    const order = await read(token, id);
    expect(order.OrderStatus).toBe("Canceled");
    expectOk(await updateStatus(token, id, { OrderStatus: word }));
    expect(await read(token, id)).toEqual(order);
    const outbox = await outboxOf(id);
    expect(outbox.map((r) => r.kind)).toEqual(["cancel"]);
    expect(JSON.parse(outbox[0]!.payload)).toEqual({ reason: "Canceled by seller" });
  });

  it("refuses to cancel a Shipped order", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z" }));
    const res = await updateStatus(token, id, { OrderStatus: "CANCELED" });
    expect(res.status).toBe(400);
    expect(res.json.Message).toMatch(/Shipped/);
    expect((await read(token, id)).OrderStatus).toBe("Shipped");
    expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["ship"]);
  });
});

describe("UpdateStatus with another OrderStatus", () => {
  it.each(["NEW", "PROCESSING", "Delivered", "", "SHIPPED!"])("answers %j with 400 saying only CANCELLED or SHIPPED are allowed", async (status) => {
    const { token } = await storeWithToken();
    const id = await insert(token);
    const res = await updateStatus(token, id, { OrderStatus: status });
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toContain(ONLY);
    expect(res.json.Message).toContain("OrderStatus");
    expect((await read(token, id)).OrderStatus).toBe("New");
  });

  it("answers 400 naming OrderStatus when it is missing or not a string, and the field for a bad DateShipped", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token);
    for (const body of [{}, { OrderStatus: 3 }, { OrderStatus: null }]) {
      const res = await updateStatus(token, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.Message).toContain("OrderStatus");
    }
    const date = await updateStatus(token, id, { OrderStatus: "SHIPPED", DateShipped: "2026-02-30" });
    expect(date.status).toBe(400);
    expect(date.json.Message).toContain("DateShipped");
    expect((await read(token, id)).OrderStatus).toBe("New");
  });
});

describe("orders without a source", () => {
  it("moves an order no source claims without queueing anything", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Phone" });
    expect((await orderRow(id))!.source_id).toBeNull();
    expect((await read(token, id)).SyncStatus).toBe("Disabled");
    expectOk(await acknowledge(token, id, "ERP-1"));
    expectOk(await updateStatus(token, id, { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z" }));
    expect((await read(token, id)).OrderStatus).toBe("Shipped");
    const other = await insert(token, { OrderSource: "Phone" });
    expectOk(await updateStatus(token, other, { OrderStatus: "CANCELED" }));
    expect(await outboxOf(id)).toEqual([]);
    expect(await outboxOf(other)).toEqual([]);
  });

  it("does not let a source of another store claim an order", async () => {
    const other = await marketplaceStore();
    const { token } = await storeWithToken();
    const id = await insert(token, { OrderSource: "Mall" });
    expect((await orderRow(id))!.source_id).toBeNull();
    expect((await read(token, id)).SyncStatus).toBe("Disabled");
    expectOk(await acknowledge(token, id, "ERP-1"));
    expect(await outboxOf(id)).toEqual([]);
    // The same name in the source's own store is claimed: the source is real, the store differs.
    const own = await insert(other.token, { OrderSource: "Mall" });
    expect((await orderRow(own))!.source_id).toBe(other.sourceId);
    expect((await read(other.token, own)).SyncStatus).toBe("Enabled");
  });
});

describe("concurrent moves", () => {
  it("queues one shipment when the same shipment is sent twice at once", async () => {
    const { token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    const body = { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z-SAME", DateShipped: "2026-03-05T10:00:00Z" };
    const results = await Promise.all([updateStatus(token, id, body), updateStatus(token, id, body), updateStatus(token, id, body)]);
    for (const res of results) expectOk(res);
    expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["ship"]);
  });

  it("writes neither the change nor its outbox row when the order changed since it was read", async () => {
    const { storeId, token } = await marketplaceStore();
    const id = await insert(token, { OrderSource: "Mall" });
    const db = await storeDrizzle(storeId);
    const stale = (await moveStateOf(db, storeId, id))!;
    expectOk(await acknowledge(token, id, "ERP-1"));
    const applied = await applyMove(db, stale, cancel(stale), Date.now());
    expect(applied).toBe(false);
    expect((await read(token, id)).OrderStatus).toBe("Processing");
    expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["acknowledge"]);
  });
});

describe("what a move costs", () => {
  it("ships one package with one read of the order (its lines and line changes folded into its row) and one batch, whatever the number of lines", async () => {
    for (const lines of [1, 40]) {
      const { storeId, token } = await marketplaceStore();
      const id = await insert(token, {
        OrderSource: "Mall",
        OrderItems: Array.from({ length: lines }, (_, i) => ({ Sku: `S-${i}`, Name: "n", Quantity: 2, UnitPrice: 1 })),
      });
      const counted = countingD1(await storeD1(storeId));
      await moveOrder(drizzleOf(counted.d1), storeId, id, { kind: "ship", trackingNumber: "1Z-COUNT", dateShipped: null, carrier: null });
      expect(counted.traffic.alone).toHaveLength(1);
      expect(counted.traffic.alone[0]).toMatch(/^select o\.id, .* from "orders" as o where o\.id = \? and o\.store_id = \?$/s);
      expect(counted.traffic.batches).toHaveLength(1);
      const [batch] = counted.traffic.batches;
      expect(
        batch!.map((statement) =>
          statement
            .match(/^(insert into|update|delete from) "?(\w+)"?/)
            ?.slice(1)
            .join(" "),
        ),
      ).toEqual([
        "insert into line_changes",
        "update order_items",
        "insert into webhook_deliveries",
        "delete from outbox",
        "insert into outbox",
        "update orders",
      ]);
      // Every statement of the batch runs under the same guard: the order is still as it was read.
      for (const statement of batch!) expect(statement).toMatch(/date_updated/);
      const order = await read(token, id);
      expect(order.ShipmentTrackingNumber).toBe("1Z-COUNT");
      expect(order.Shipments).toHaveLength(1);
      expect(order.Shipments[0]!.Items).toHaveLength(lines);
      expect((await outboxOf(id)).map((r) => r.kind)).toEqual(["ship"]);
    }
  });
});
