// Every event kind of decisions 9 reaches a subscribed endpoint, recorded with the change it
// reports, signed so the standardwebhooks library verifies it, with the body the decisions give.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, insert, storeWithToken } from "../helpers/api";
import { countEverywhere } from "../helpers/shards";
import { createSource, cycleAt, patchSource, simulatedWindow } from "../helpers/sync";
import { createWebhook, deliverAt, deliveries } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified } from "./webhook-receiver";

beforeAll(installReceiver);

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The store's recorded events, in any database. */
async function countRows(storeId: string): Promise<number> {
  return countEverywhere("select count(*) as n from webhook_deliveries where store_id = ?", storeId);
}

describe("order events", () => {
  it("an inserted order reaches the endpoint as order.created, verified by the library, with the order's data", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url);
    const orderId = await insert(token, { OrderSource: "Web", OrderSourceOrderNumber: "W-1001" });
    // Woken by the insert itself: no explicit pass.
    await until(() => hook.accepted.length === 1);
    const [request] = hook.all;
    expect(request!.method).toBe("POST");
    expect(request!.redirect).toBe("manual");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const body = verified(created.Secret, request!);
    expect(body).toEqual({
      type: "order.created",
      timestamp: expect.stringMatching(ISO_Z),
      data: { StoreId: storeId, OrderId: orderId, OrderSource: "Web", OrderSourceOrderNumber: "W-1001", OrderStatus: "New" },
    });
    expect(Math.abs(Number(request!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    await until(async () => (await deliveries(storeId, created.WebhookId))[0]?.Status === "delivered");
    const [row] = await deliveries(storeId, created.WebhookId);
    expect(row).toMatchObject({
      EventId: request!.headers["webhook-id"],
      Type: "order.created",
      Status: "delivered",
      Attempts: 1,
      LastStatusCode: 200,
      NextAttemptAt: null,
    });
  });

  it("acknowledge, ship and cancel send their events with the status after the move, in the order they happened", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    // The seed's four events (a "*" endpoint also gets decisions 12's, tested below).
    const created = await createWebhook(storeId, hook.url, ["order.created", "order.acknowledged", "order.shipped", "order.cancelled"]);
    const first = await insert(token);
    const second = await insert(token);
    expect((await call("PUT", `/v1/${token}/Orders/${first}/AcknowledgeOrder?orderDestinationOrderNumber=S-1`)).status).toBe(200);
    expect((await call("PUT", `/v1/${token}/Orders/${first}/UpdateStatus`, { body: { OrderStatus: "SHIPPED", ShipmentTrackingNumber: "1Z1" } })).status).toBe(
      200,
    );
    expect((await call("PUT", `/v1/${token}/Orders/${second}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    // A repeated move changes nothing and sends nothing.
    expect((await call("PUT", `/v1/${token}/Orders/${second}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    await deliverAt(created.WebhookId);
    await until(() => hook.accepted.length === 5);
    const bodies = hook.accepted.map((r) => verified(created.Secret, r));
    const of = (orderId: string) => bodies.filter((b) => b.data.OrderId === orderId).map((b) => `${b.type}:${b.data.OrderStatus}`);
    expect(of(first)).toEqual(["order.created:New", "order.acknowledged:Processing", "order.shipped:Shipped"]);
    expect(of(second)).toEqual(["order.created:New", "order.cancelled:Canceled"]);
    expect(await countRows(storeId)).toBe(5);
  });

  it(
    "a package sends order.shipment_created with its ShipmentId and Items, a line cancellation order.items_cancelled, and order.shipped once nothing is " +
      "left",
    async () => {
      const { storeId, token } = await storeWithToken();
      const hook = receiver();
      const created = await createWebhook(storeId, hook.url, ["order.shipment_created", "order.items_cancelled", "order.shipped", "order.cancelled"]);
      const orderId = await insert(token, { OrderItems: [{ Sku: "A", Name: "A", Quantity: 3, UnitPrice: 1 }] });
      const read = async () => JSON.parse((await call("GET", `/v1/${token}/Orders/${orderId}`)).text).Orders[0];
      const item = (await read()).OrderItems[0].OrderItemId as string;
      const move = (body: Record<string, unknown>) => call("PUT", `/v1/${token}/Orders/${orderId}/UpdateStatus`, { body });
      expect((await move({ OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-1", Items: [{ OrderItemId: item, Quantity: 1 }] })).status).toBe(200);
      expect((await move({ OrderStatus: "CANCELED", Items: [{ OrderItemId: item, Quantity: 1 }] })).status).toBe(200);
      expect((await move({ OrderStatus: "SHIPPED", ShipmentTrackingNumber: "T-2" })).status).toBe(200);
      await deliverAt(created.WebhookId);
      await until(() => hook.accepted.length === 4);
      const [p1, p2] = (await read()).Shipments as { ShipmentId: string }[];
      const bodies = hook.accepted.map((r) => verified(created.Secret, r));
      const base = { StoreId: storeId, OrderId: orderId, OrderSource: "Web" };
      expect(bodies.map((b) => [b.type, b.data])).toEqual([
        [
          "order.shipment_created",
          expect.objectContaining({ ...base, OrderStatus: "New", ShipmentId: p1!.ShipmentId, Items: [{ OrderItemId: item, Quantity: 1 }] }),
        ],
        ["order.items_cancelled", expect.objectContaining({ ...base, OrderStatus: "New", Items: [{ OrderItemId: item, Quantity: 1 }] })],
        [
          "order.shipment_created",
          expect.objectContaining({ ...base, OrderStatus: "Shipped", ShipmentId: p2!.ShipmentId, Items: [{ OrderItemId: item, Quantity: 1 }] }),
        ],
        ["order.shipped", expect.objectContaining({ ...base, OrderStatus: "Shipped" })],
      ]);
      expect(await countRows(storeId)).toBe(4);
    },
  );

  it("imported orders send order.created once, however often their page is imported again", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url, ["order.created"]);
    const sourceId = await createSource(storeId, { Name: "SimMarket", Settings: simulatedWindow(3) });
    await cycleAt(sourceId, Date.now());
    // The same window again (ImportFrom moves the cursor back): the orders are known now.
    await patchSource(storeId, sourceId, { ImportFrom: new Date(Date.now() - 2 * 86_400_000).toISOString() });
    await cycleAt(sourceId, Date.now());
    await deliverAt(created.WebhookId);
    await until(() => hook.accepted.length === 3);
    const listed = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
    const orders = listed.json.Orders as { OrderId: string; OrderSourceOrderNumber: string }[];
    expect(orders).toHaveLength(3);
    const bodies = hook.accepted.map((r) => verified(created.Secret, r));
    expect(bodies.map((b) => b.type)).toEqual(["order.created", "order.created", "order.created"]);
    expect(bodies.map((b) => b.data.OrderId).sort()).toEqual(orders.map((o) => o.OrderId).sort());
    for (const b of bodies) {
      const order = orders.find((o) => o.OrderId === b.data.OrderId)!;
      expect(b.data).toEqual({
        StoreId: storeId,
        OrderId: order.OrderId,
        OrderSource: "SimMarket",
        OrderSourceOrderNumber: order.OrderSourceOrderNumber,
        OrderStatus: "New",
      });
    }
    expect(await countRows(storeId)).toBe(3);
  });

  it("a marketplace delivery that fails for good sends order.sync_failed", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url, ["order.sync_failed"]);
    const sourceId = await createSource(storeId, { Name: "SimMarket", Settings: simulatedWindow(1) });
    await cycleAt(sourceId, Date.now());
    const listed = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
    const [order] = listed.json.Orders as { OrderId: string; OrderSourceOrderNumber: string }[];
    await patchSource(storeId, sourceId, { Settings: { rejectOrderNumbers: [order!.OrderSourceOrderNumber] } });
    expect((await call("PUT", `/v1/${token}/Orders/${order!.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=S-9`)).status).toBe(200);
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ failed: 1 });
    await until(() => hook.accepted.length === 1);
    expect(verified(created.Secret, hook.accepted[0]!)).toMatchObject({
      type: "order.sync_failed",
      data: { StoreId: storeId, OrderId: order!.OrderId, OrderSourceOrderNumber: order!.OrderSourceOrderNumber, OrderStatus: "Processing" },
    });
  });
});

describe("order events of a deleted source", () => {
  it("deleting a source with an acknowledgement still to deliver sends order.sync_failed for that order", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url, ["order.sync_failed"]);
    const sourceId = await createSource(storeId, { Name: "SimMarket", Settings: simulatedWindow(2) });
    await cycleAt(sourceId, Date.now());
    const listed = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
    const [order] = listed.json.Orders as { OrderId: string }[];
    expect((await call("PUT", `/v1/${token}/Orders/${order!.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=S-7`)).status).toBe(200);
    expect((await admin("DELETE", `/stores/${storeId}/sources/${sourceId}`)).status).toBe(200);
    await until(() => hook.accepted.length === 1);
    expect(verified(created.Secret, hook.accepted[0]!).data).toMatchObject({ OrderId: order!.OrderId, OrderSource: "SimMarket", OrderStatus: "Processing" });
    expect(await countRows(storeId)).toBe(1);
  });
});

describe("feed events", () => {
  it("a compile sends feed.compiled with its Score, and a failed one feed.failed", async () => {
    const { storeId } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url, ["feed.compiled", "feed.failed"]);
    const feed = await admin("POST", `/stores/${storeId}/feeds`, { Name: "Google", Format: "csv" });
    const feedId = (feed.json.Feed as { FeedId: string }).FeedId;
    // An empty catalog: the compile fails.
    expect((await admin("POST", `/feeds/${feedId}/compile`)).status).toBe(200);
    await until(() => hook.accepted.length === 1);
    expect(verified(created.Secret, hook.accepted[0]!)).toEqual({
      type: "feed.failed",
      timestamp: expect.stringMatching(ISO_Z),
      data: { StoreId: storeId, FeedId: feedId, Name: "Google", Status: "Failed", Score: 0 },
    });
    const product = (sku: string, price: number) => ({
      Sku: sku,
      Title: `Mug ${sku}`,
      Description: "A mug",
      Price: price,
      Link: `https://shop.example/${sku}`,
      ImageLink: `https://shop.example/${sku}.jpg`,
      Availability: "in stock",
      Brand: "Acme",
      Gtin: "",
    });
    expect(
      (await admin("PUT", `/stores/${storeId}/products`, { Products: [product("A", 5), product("B", 6), product("C", 7), product("D", -1)] })).status,
    ).toBe(200);
    expect((await admin("POST", `/feeds/${feedId}/compile`)).status).toBe(200);
    await until(() => hook.accepted.length === 2);
    expect(verified(created.Secret, hook.accepted[1]!).data).toEqual({ StoreId: storeId, FeedId: feedId, Name: "Google", Status: "Completed", Score: 75 });
  });
});

describe("who gets what", () => {
  it("an endpoint gets only the events it names, and only its own store's", async () => {
    const mine = await storeWithToken();
    const other = await storeWithToken();
    const hook = receiver();
    const otherHook = receiver();
    const created = await createWebhook(mine.storeId, hook.url, ["order.cancelled"]);
    await createWebhook(other.storeId, otherHook.url, ["*"]);
    const orderId = await insert(mine.token);
    await insert(other.token);
    expect((await call("PUT", `/v1/${mine.token}/Orders/${orderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    await until(() => hook.accepted.length === 1 && otherHook.accepted.length === 1);
    await deliverAt(created.WebhookId);
    expect(hook.all.map((r) => verified(created.Secret, r).type)).toEqual(["order.cancelled"]);
    expect(hook.all.every((r) => verified(created.Secret, r).data.StoreId === mine.storeId)).toBe(true);
    expect(otherHook.all.map((r) => JSON.parse(r.body).data.StoreId)).toEqual([other.storeId]);
  });

  it("a store without endpoints writes no delivery row", async () => {
    const { storeId, token } = await storeWithToken();
    const orderId = await insert(token);
    await call("PUT", `/v1/${token}/Orders/${orderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } });
    expect(await countRows(storeId)).toBe(0);
  });
});
