import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MarketplaceError, type Connector } from "../../src/marketplaces/connector";
import { createSimulatedConnector } from "../../src/marketplaces/simulated/simulated.connector";
import { memoryStorage } from "../../src/marketplaces/storage";
import { importOrders } from "../../src/sync/importer";
import { admin, call, storeWithToken } from "../helpers/api";
import { storeD1, storeDrizzle } from "../helpers/shards";
import { createSource, cycleAt, fireCron, listOrders, patchSource, queuedCycleEnded, simulatedWindow } from "../helpers/sync";
import { LIMITS, mark, since } from "../helpers/invocation-meter";

describe("import from the simulated marketplace", () => {
  it("imports through the Cron Trigger: each order New, with the marketplace's number and status, several lines, SyncStatus Enabled", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Name: "Simazon", Settings: simulatedWindow(12) });

    await fireCron();

    const orders = await listOrders(token);
    expect(orders).toHaveLength(12);
    for (const order of orders) {
      expect(order.OrderStatus).toBe("New");
      expect(order.SourceOrderStatus).toBe("Created");
      expect(order.OrderSource).toBe("Simazon");
      expect(order.OrderSourceOrderNumber).toMatch(/^SIM[0-9A-Z]{7}-\d+$/);
      expect(order.SyncStatus).toBe("Enabled");
      expect(order.OrderItems.length).toBeGreaterThanOrEqual(1);
      // Masked contact, as marketplaces hand it to sellers.
      expect(order.BuyerEmailAddress).toMatch(/@relay\.marketplace\.example$/);
      expect(order.BuyerPhoneNumber).toMatch(/^\*\*\*-\*\*\*-\d{4}$/);
      const items = order.OrderItems as unknown as { UnitPrice: number; Quantity: number; SaleTaxCost: number; Discount: string }[];
      const subTotal = items.reduce((n, i) => n + i.UnitPrice * i.Quantity - Number(i.Discount), 0);
      expect(order.SubTotal).toBeCloseTo(subTotal, 2);
      const tax = items.reduce((n, i) => n + i.SaleTaxCost, 0);
      const parts = [order.SubTotal, tax, order.ShippingTotal, order.ShippingTaxTotal, order.GiftWrapTotal, order.GiftWrapTaxTotal] as number[];
      expect(order.GrandTotal).toBeCloseTo(
        parts.reduce((a, b) => a + b, 0),
        2,
      );
    }
    // Realistic variety over a dozen orders: several lines somewhere, different buyers.
    expect(orders.some((o) => o.OrderItems.length > 1)).toBe(true);
    expect(new Set(orders.map((o) => o.BuyerEmailAddress)).size).toBeGreaterThan(1);

    const status = await admin("GET", `/stores/${storeId}/sources/${sourceId}`);
    const source = status.json.Source as { Status: Record<string, unknown> };
    expect(source.Status.LastCycleImported).toBe(12);
    expect(source.Status.ImportedTotal).toBe(12);
    expect(source.Status.DateLastCycleEnded).not.toBeNull();
    expect(source.Status.LastError).toBeNull();
  });

  it("is deterministic per source id and differs between sources", async () => {
    const settings = simulatedWindow(3);
    const page = (id: string) =>
      createSimulatedConnector({ sourceId: id, settings, fetch, now: () => new Date() }, memoryStorage()).fetchOrders(
        { since: new Date(0), until: new Date() },
        null,
      );
    const [a, again, b] = await Promise.all([page("src_a"), page("src_a"), page("src_b")]);
    expect(again).toEqual(a);
    expect(b.orders.map((o) => o.sourceOrderNumber)).not.toEqual(a.orders.map((o) => o.sourceOrderNumber));
  });

  it("leaves each order once when a cycle runs twice", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(7) });
    const first = await cycleAt(sourceId, Date.now());
    const second = await cycleAt(sourceId, Date.now());
    expect(first.imported).toBe(7);
    // The second fetch overlaps the first (cursor minus the overlap window) and finds them again.
    expect(second.fetched).toBe(0);
    expect(second.imported).toBe(0);
    const orders = await listOrders(token);
    expect(orders).toHaveLength(7);
    // Forgetting the cursor re-fetches everything: still once each, lines not doubled.
    const before = orders.map((o) => o.OrderItems.length);
    await (await storeD1(storeId)).prepare("update sources set cursor_at = null where id = ?").bind(sourceId).run();
    const third = await cycleAt(sourceId, Date.now());
    expect(third.fetched).toBe(7);
    expect(third.imported).toBe(0);
    const after = await listOrders(token);
    expect(after.map((o) => o.OrderItems.length)).toEqual(before);
  });

  it("leaves each order once when a cycle is cut off half way and the next one fetches again", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(25), pageSize: 10 } });
    const source = { id: sourceId, storeId, cursorAt: null };
    const real = createSimulatedConnector({ sourceId, settings: { ...simulatedWindow(25), pageSize: 10 }, fetch, now: () => new Date() }, memoryStorage());
    let pages = 0;
    const cutOff: Connector = {
      ...real,
      async fetchOrders(since, cursor) {
        pages += 1;
        if (pages === 3) throw new MarketplaceError("connection reset", null, true);
        return real.fetchOrders(since, cursor);
      },
    };
    await expect(importOrders(await storeDrizzle(storeId), source, cutOff, Date.now())).rejects.toThrow("connection reset");
    expect(await listOrders(token)).toHaveLength(20);

    // The cursor did not move, so the next cycle starts over; the upsert leaves each order once.
    const next = await cycleAt(sourceId, Date.now());
    expect(next.fetched).toBe(25);
    expect(next.imported).toBe(5);
    const orders = await listOrders(token);
    expect(orders).toHaveLength(25);
    expect(new Set(orders.map((o) => o.OrderSourceOrderNumber)).size).toBe(25);
    const { results: items } = await (await storeD1(storeId))
      .prepare(
        "select count(*) as n, count(distinct order_id || ':' || source_line_id) as d from order_items where order_id in (select id from orders where " +
          "source_id = ?)",
      )
      .bind(sourceId)
      .all<{ n: number; d: number }>();
    expect(items[0]!.n).toBe(items[0]!.d);
  });

  it("reports SyncStatus Disabled while the source is disabled, and the cron skips it", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(3) });
    await cycleAt(sourceId, Date.now());
    await patchSource(storeId, sourceId, { Enabled: false, Settings: simulatedWindow(6) });
    expect((await listOrders(token)).map((o) => o.SyncStatus)).toEqual(["Disabled", "Disabled", "Disabled"]);
    await fireCron();
    expect(await listOrders(token)).toHaveLength(3);
    const manual = await admin("POST", `/sync?sourceId=${sourceId}`);
    expect(manual.status).toBe(400);
    expect(manual.json.Message).toMatch(/disabled/);

    await patchSource(storeId, sourceId, { Enabled: true });
    expect((await listOrders(token)).map((o) => o.SyncStatus)).toEqual(["Enabled", "Enabled", "Enabled"]);
  });

  it("POST /admin/v1/sync?sourceId= runs one cycle now and answers its summary", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(4) });
    const res = await admin("POST", `/sync?SourceId=${sourceId}`);
    expect(res.status).toBe(200);
    const sync = res.json.Sync as { OrdersImported: number; Sources: { SourceId: string; OrdersImported: number; Error: string | null }[] };
    expect(sync.OrdersImported).toBe(4);
    expect(sync.Sources).toEqual([expect.objectContaining({ SourceId: sourceId, OrdersImported: 4, Error: null })]);
    expect(await listOrders(token)).toHaveLength(4);

    expect((await admin("POST", "/sync?sourceId=src_nope")).status).toBe(404);
    expect((await call("POST", "/admin/v1/sync")).status).toBe(403);
    // The benchmark's routes are served only by its own entry (bench/sync-worker.ts), never by the production Worker.
    expect((await admin("POST", `/bench/baseline-import?sourceId=${sourceId}`)).status).toBe(404);
  });

  it("records the marketplace's error on the source when listing fails, and imports once it recovers", async () => {
    const { storeId, token } = await storeWithToken();
    const window = simulatedWindow(3);
    const sourceId = await createSource(storeId, { Settings: { ...window, fault: { kind: "http500", operations: ["fetchOrders"] } } });
    const failed = await cycleAt(sourceId, Date.now());
    expect(failed.error).toMatch(/import: Simulated marketplace 500/);
    expect(await listOrders(token)).toHaveLength(0);
    const source = (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { LastError: string } };
    expect(source.Status.LastError).toMatch(/500/);

    await patchSource(storeId, sourceId, { Settings: { fault: null } });
    const ok = await cycleAt(sourceId, Date.now());
    expect(ok.error).toBeNull();
    expect(await listOrders(token)).toHaveLength(3);
  });
});

describe("an import larger than one invocation", () => {
  it("reads at most 200 pages a cycle, going on in as many invocations as they need, and the next cycle (not an alarm) goes on where it stopped", async () => {
    const { storeId, token } = await storeWithToken();
    // 230 orders one per page: one window reads 200 pages.
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(230), pageSize: 1 } });
    const stub = env.SOURCE_SYNC.getByName(sourceId);
    const from = mark();
    const first = await stub.runCycle(sourceId);
    // A page writes about eight statements: some 110 pages fit one invocation's 1,000 D1 queries.
    expect(first).toMatchObject({ more: true, continues: true, error: null });
    expect(first.imported).toBeGreaterThan(50);
    expect(first.imported).toBeLessThan(200);
    // The cycle goes on in the source's alarm, now, up to the window's 200th page.
    await queuedCycleEnded(sourceId);
    const parts = since(from, "SourceSync.");
    expect(parts.map((p) => p.label)).toEqual(["SourceSync.runCycle", ...parts.slice(1).map(() => "SourceSync.alarm")]);
    for (const part of parts) expect(part.d1Queries).toBeLessThanOrEqual(LIMITS.d1Queries);
    const cycles = (
      (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as {
        Status: { RecentCycles: { OrdersImported: number; Continues: boolean; Error: string | null }[] };
      }
    ).Status.RecentCycles;
    expect(cycles).toHaveLength(parts.length);
    expect(cycles.reduce((n, c) => n + c.OrdersImported, 0)).toBe(200);
    expect(cycles.map((c) => c.Continues)).toEqual([false, ...cycles.slice(1).map(() => true)]);
    expect(cycles[0]!.Error).toBe("import: the window ended after 200 pages (the most one window reads); the next cycle goes on from there.");
    const source = (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { Cursor: string | null } };
    expect(source.Status.Cursor).toBeNull();
    // No alarm carries it on back to back.
    expect(await runDurableObjectAlarm(stub)).toBe(false);

    expect(await stub.runCycle(sourceId)).toMatchObject({ imported: 30, more: false, continues: false, error: null });
    const orders = await listOrders(token);
    expect(orders).toHaveLength(230);
    expect(new Set(orders.map((o) => o.OrderSourceOrderNumber)).size).toBe(230);
    const after = (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { Cursor: string | null; ImportedTotal: number } };
    expect(after.Status.ImportedTotal).toBe(230);
    expect(after.Status.Cursor).not.toBeNull();
  });
});
