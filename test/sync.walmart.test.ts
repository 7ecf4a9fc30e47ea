// The Walmart connector inside a real cycle: the cycle's fetch is the global one, replaced here by
// the fake Walmart of test/fakes (no network), so this is what the cron would do in production.
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, storeWithToken } from "./helpers/api";
import { createSource, cycleAt, deliveries, listOrders } from "./helpers/sync";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET } from "./fakes/walmart-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a Walmart source in a sync cycle", () => {
  it("imports Walmart's orders and delivers an acknowledgement to it", async () => {
    const fake = createWalmartFake();
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "walmart",
      Name: "Walmart US",
      Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    });

    const first = await cycleAt(sourceId, Date.now());
    expect(first.error).toBeNull();
    expect(first.imported).toBeGreaterThan(0);
    const orders = await listOrders(token);
    expect(orders).toHaveLength(first.imported);
    expect(orders.every((o) => o.OrderSource === "Walmart US" && o.OrderStatus === "New" && o.SyncStatus === "Enabled")).toBe(true);

    const order = orders[0]!;
    expect((await call("PUT", `/v1/${token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-9`)).status).toBe(200);
    const second = await cycleAt(sourceId, Date.now());
    expect(second.delivered).toBe(1);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered"]);
    const acks = fake.apiRequests().filter((r) => r.method === "POST" && r.path.endsWith("/acknowledge"));
    expect(acks.map((r) => r.path)).toEqual([`/v3/orders/${encodeURIComponent(order.OrderSourceOrderNumber)}/acknowledge`]);
    expect(fake.violations).toEqual([]);
  });
});
