// The sync core's rules of decisions 6 and issue 8, through the cron handler, the source's
// Durable Object and the admin routes: set-aside orders, NotApplicable, Submitted, each call's
// outcome recorded before the next (a round cut off after k calls), renames and deletions,
// claimed inserted orders, ImportFrom, and the last 20 cycles.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { setAsideAnswer } from "../../src/sources/sources.schemas";
import type { Connector } from "../../src/marketplaces/connector";
import { createSimulatedConnector } from "../../src/marketplaces/simulated/simulated.connector";
import { orderNumberOf } from "../../src/marketplaces/simulated/simulated.mapping";
import { kvStorage, memoryStorage } from "../../src/marketplaces/storage";
import { runSourceCycle } from "../../src/sync/cycle";
import { importOrders } from "../../src/sync/importer";
import { recordJson } from "../../src/sources/set-aside.queries";
import { admin, ADMIN_KEY, call, insert, storeWithToken } from "../helpers/api";
import { shardOf, storeD1, storeDrizzle } from "../helpers/shards";
import { createSource, cycleAt, deliveries, fireCron, listOrders, MINUTE, patchSource, received, simulatedWindow, type WireOrder } from "../helpers/sync";

const ack = (token: string, order: { OrderId: string }, number: string) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=${number}`);
const ship = (token: string, order: { OrderId: string }, tracking: string | null) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/UpdateStatus`, {
    body: {
      OrderStatus: "SHIPPED",
      ...(tracking ? { ShipmentTrackingNumber: tracking } : {}),
      DateShipped: "2026-11-20T12:00:00Z",
      DestinationShippingCarrier: "UPS",
    },
  });

async function sourceView(storeId: string, sourceId: string) {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}`);
  expect(res.status).toBe(200);
  return res.json.Source as { Status: Record<string, unknown> & { RecentCycles: Record<string, unknown>[] } };
}

type SetAsideWire = z.input<typeof setAsideAnswer>;
async function setAside(storeId: string, sourceId: string): Promise<SetAsideWire[]> {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`);
  expect(res.status).toBe(200);
  return res.json.SetAside as SetAsideWire[];
}

/** A store with a simulated source whose `count` orders are imported. */
async function importedStore(count: number, settings: Record<string, unknown> = {}) {
  const { storeId, token } = await storeWithToken();
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(count), ...settings } });
  await cycleAt(sourceId, Date.now());
  const orders = await listOrders(token);
  expect(orders).toHaveLength(count);
  return { storeId, token, sourceId, orders };
}

describe("set-aside orders", () => {
  it("sets aside every 4th order, imports the rest of the page, moves the cursor, and lets the operator list, retry and dismiss them", async () => {
    const { storeId, token } = await storeWithToken();
    // 12 orders at one per 5 minutes; order indexes are multiples of 1 on a 5-minute grid, so
    // exactly 3 of 12 consecutive indexes are divisible by 4.
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(12), malformedEvery: 4 } });
    await fireCron();

    expect(await listOrders(token)).toHaveLength(9);
    const aside = await setAside(storeId, sourceId);
    expect(aside).toHaveLength(3);
    for (const order of aside) {
      expect(order.Reason).toMatch(/^line \d+ has no SKU$/);
      expect(order.RecordTruncated).toBe(false);
      // The marketplace's own record, with the empty SKU the reason names.
      const record = order.Record as { sourceOrderNumber: string; items: { sku: string }[] };
      expect(record.sourceOrderNumber).toBe(order.OrderSourceOrderNumber);
      expect(record.items.some((i) => i.sku === "")).toBe(true);
    }
    let view = await sourceView(storeId, sourceId);
    expect(view.Status).toMatchObject({ SetAside: 3, ImportedTotal: 9, LastError: null });
    // The cursor moved past the bad orders: the next cycle does not stop on them.
    expect(view.Status.Cursor).not.toBeNull();
    expect(view.Status.RecentCycles[0]).toMatchObject({ OrdersFetched: 9, OrdersSetAside: 3, OrdersImported: 9 });

    // Retried while the marketplace still sends a line without a SKU: they stay, with the reason.
    const still = await admin("POST", `/stores/${storeId}/sources/${sourceId}/set-aside/retry`);
    expect(still.json.Message).toBe("");
    expect(still.json).toMatchObject({ Success: true, Retried: 3, Imported: 0, StillSetAside: 3 });
    expect(await setAside(storeId, sourceId)).toHaveLength(3);

    // Dismissed: gone from the list and the count; a second dismissal is 404.
    const dismissed = aside[0]!.OrderSourceOrderNumber;
    expect((await admin("DELETE", `/stores/${storeId}/sources/${sourceId}/set-aside/${dismissed}`)).json).toEqual({ Success: true, Message: "" });
    const again = await admin("DELETE", `/stores/${storeId}/sources/${sourceId}/set-aside/${dismissed}`);
    expect(again.status).toBe(404);
    expect(again.json.Message).toContain(dismissed);

    // The marketplace fixed its data: a retry imports the other two with all their lines.
    await patchSource(storeId, sourceId, { Settings: { malformedEvery: null } });
    const fixed = await admin("POST", `/stores/${storeId}/sources/${sourceId}/set-aside/retry`);
    expect(fixed.json.Message).toBe("");
    expect(fixed.json).toMatchObject({ Success: true, Retried: 2, Imported: 2, StillSetAside: 0, SetAside: [] });
    const orders = await listOrders(token);
    expect(orders).toHaveLength(11);
    expect(orders.map((o) => o.OrderSourceOrderNumber)).not.toContain(dismissed);
    expect(orders.every((o) => o.OrderItems.every((i) => i.Sku !== ""))).toBe(true);
    view = await sourceView(storeId, sourceId);
    expect(view.Status.SetAside).toBe(0);
  });

  it("keeps at most 64 KiB of a record, cut on a character boundary and marked truncated", () => {
    const small = recordJson({ a: "é".repeat(10) });
    expect(small).toEqual({ text: `{"a":"${"é".repeat(10)}"}`, truncated: false });
    const big = recordJson({ note: "é".repeat(40_000) });
    expect(big.truncated).toBe(true);
    expect(new TextEncoder().encode(big.text).byteLength).toBeLessThanOrEqual(65_536);
    expect(new TextEncoder().encode(big.text).byteLength).toBeGreaterThan(65_530);
    expect(big.text).not.toContain("\uFFFD");
  });

  it("answers 404 for another store's source, 400 for a bad retry body", async () => {
    const { storeId, sourceId } = await importedStore(1);
    const { storeId: other } = await storeWithToken();
    expect((await admin("GET", `/stores/${other}/sources/${sourceId}/set-aside`)).status).toBe(404);
    const bad = await admin("POST", `/stores/${storeId}/sources/${sourceId}/set-aside/retry`, { OrderSourceOrderNumbers: "all" });
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toMatch(/OrderSourceOrderNumbers/);
  });

  it("reads a retry body as every JSON body is read (Content-Type, Unicode), and a body left out retries all", async () => {
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(12), malformedEvery: 4 } });
    await fireCron();
    expect(await setAside(storeId, sourceId)).toHaveLength(3);
    const path = `/admin/v1/stores/${storeId}/sources/${sourceId}/set-aside/retry`;
    const auth = { authorization: `Bearer ${ADMIN_KEY}` };
    const untyped = await call("POST", path, { headers: auth, raw: '{"OrderSourceOrderNumbers":["SIM-1"]}' });
    expect(untyped.status).toBe(400);
    expect(untyped.json?.Message).toBe("Send the request body as JSON with the header Content-Type: application/json.");
    const surrogate = await call("POST", path, { headers: { ...auth, "content-type": "application/json" }, raw: '{"OrderSourceOrderNumbers":["\\ud800"]}' });
    expect(surrogate.status).toBe(400);
    expect(surrogate.json?.Message).toBe("'OrderSourceOrderNumbers[0]' is not valid Unicode text (it holds an unpaired surrogate)");
    const notJson = await call("POST", path, { headers: { ...auth, "content-type": "application/json" }, raw: "{" });
    expect(notJson.status).toBe(400);
    expect(notJson.json?.Message).toBe("The request body is not valid JSON.");
    const leftOut = await call("POST", path, { headers: auth, raw: " \n" });
    expect(leftOut.status).toBe(200);
    expect(leftOut.json).toMatchObject({ Success: true, Retried: 3, Imported: 0, StillSetAside: 3 });
  });
});

describe("capabilities and asynchronous operations", () => {
  it("completes a delivery the marketplace has no operation for as notApplicable, with the reason, and sends the next", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1, { unsupportedOperations: ["acknowledge"] });
    await ack(token, orders[0]!, "PO-1");
    await ship(token, orders[0]!, "TRK-1");
    const summary = await cycleAt(sourceId, Date.now());
    expect(summary).toMatchObject({ notApplicable: 1, delivered: 1, failed: 0, retrying: 0 });
    const rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => [d.Kind, d.Status, d.Attempts])).toEqual([
      ["acknowledge", "notApplicable", 0],
      ["ship", "delivered", 1],
    ]);
    expect((rows[0] as unknown as { Warning: string }).Warning).toBe("The marketplace has no order acknowledgement.");
    expect((await received(storeId, sourceId)).map((r) => r.Operation)).toEqual(["ship"]);
    expect((await listOrders(token))[0]!.SyncUserErrorMessage).toBeNull();
    // Never retried: a later cycle sends nothing.
    await cycleAt(sourceId, Date.now() + 60 * MINUTE);
    expect(await received(storeId, sourceId)).toHaveLength(1);
  });

  it("keeps a row Submitted until the marketplace confirms it, and the order's later rows wait for it", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1, { asynchronous: { operations: ["acknowledge"], checksBeforeResult: 2 } });
    await ack(token, orders[0]!, "PO-1");
    await ship(token, orders[0]!, "TRK-1");
    const t0 = Date.now();
    expect(await cycleAt(sourceId, t0)).toMatchObject({ submitted: 1, delivered: 0 });
    let rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => d.Status)).toEqual(["submitted", "pending"]);
    const reference = (rows[0] as unknown as { Reference: string }).Reference;
    expect(reference).toMatch(/^SIM-SUB-\d+$/);

    // Asked once: still processing; the shipment still waits.
    await cycleAt(sourceId, t0 + 15 * MINUTE);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["submitted", "pending"]);
    // Asked twice: confirmed, and the shipment goes out in the same cycle.
    expect(await cycleAt(sourceId, t0 + 30 * MINUTE)).toMatchObject({ delivered: 2 });
    rows = await deliveries(storeId, sourceId);
    expect(rows.map((d) => d.Status)).toEqual(["delivered", "delivered"]);
    expect((rows[0] as unknown as { Reference: string }).Reference).toBe(reference);
    expect((await received(storeId, sourceId)).map((r) => `${r.Operation}:${r.Answer}`)).toEqual([
      "acknowledge:202",
      "checkSubmitted:200",
      "checkSubmitted:200",
      "ship:200",
    ]);
  });

  it("fails a submitted row the marketplace rejects, with its message on the order, and holds what follows", async () => {
    const probe = await importedStore(1);
    const number = probe.orders[0]!.OrderSourceOrderNumber;
    await patchSource(probe.storeId, probe.sourceId, { Settings: { asynchronous: { operations: ["ship"] }, rejectOrderNumbers: [number] } });
    await ship(probe.token, probe.orders[0]!, "TRK-1");
    expect(await cycleAt(probe.sourceId, Date.now())).toMatchObject({ submitted: 1 });
    expect(await cycleAt(probe.sourceId, Date.now() + 15 * MINUTE)).toMatchObject({ failed: 1 });
    const [row] = await deliveries(probe.storeId, probe.sourceId);
    expect(row).toMatchObject({ Status: "failed" });
    expect(row!.LastError).toBe(`Simulated marketplace rejected SIM-SUB-1: order ${number} cannot be updated (ship refused)`);
    expect((await listOrders(probe.token))[0]!.SyncUserErrorMessage).toBe(row!.LastError);
  });

  it("keeps the marketplace's warning and reference of a delivered row", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(1);
    await ship(token, orders[0]!, null);
    await cycleAt(sourceId, Date.now());
    const [row] = (await deliveries(storeId, sourceId)) as unknown as { Status: string; Warning: string; Reference: string }[];
    expect(row).toMatchObject({ Status: "delivered", Warning: "Shipped without a tracking number: the buyer sees none." });
    expect(row!.Reference).toMatch(/^SIM-\d+$/);
  });
});

describe("each call recorded before the next", () => {
  for (const k of [1, 37, 99]) {
    it(
      `a round cut off after ${k} calls (a D1 error) leaves each row delivered exactly once, plus the one call in flight, harmless by its idempotency ` + `key`,
      async () => {
        const { storeId, token, sourceId, orders } = await importedStore(100);
        for (let i = 0; i < orders.length; i += 20) {
          await Promise.all(orders.slice(i, i + 20).map((order, j) => ack(token, order, `PO-${i + j}`)));
        }
        // D1 fails on the (k+1)-th outcome write: the marketplace has had k+1 calls by then.
        let writes = 0;
        const shard = await shardOf(storeId);
        const failing = new Proxy(env[shard], {
          get(target, prop) {
            if (prop === "prepare") {
              return (query: string) => {
                if (/^update "outbox"/.test(query) && ++writes > k) throw new Error("D1_ERROR: the database went away");
                return target.prepare(query);
              };
            }
            const value = Reflect.get(target, prop, target) as unknown;
            return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
        const stub = env.SOURCE_SYNC.getByName(sourceId);
        await expect(
          runInDurableObject(stub, (_instance, state) =>
            runSourceCycle(sourceId, storeId, { env: { ...env, [shard]: failing }, storage: kvStorage(state.storage.kv), now: Date.now() }),
          ),
        ).rejects.toThrow("the database went away");
        expect(await received(storeId, sourceId)).toHaveLength(k + 1);
        expect((await deliveries(storeId, sourceId)).filter((d) => d.Status === "delivered")).toHaveLength(k);

        // The next cycle repeats only the call whose outcome was lost, and sends the rest once.
        await cycleAt(sourceId, Date.now());
        const calls = await received(storeId, sourceId);
        expect(calls).toHaveLength(101);
        const applied = calls.filter((c) => !(c as unknown as { Duplicate: boolean }).Duplicate);
        expect(applied).toHaveLength(100);
        expect(new Set(applied.map((c) => c.OrderSourceOrderNumber)).size).toBe(100);
        const repeated = calls.filter((c) => (c as unknown as { Duplicate: boolean }).Duplicate);
        expect(repeated).toHaveLength(1);
        expect(repeated[0]!.OrderSourceOrderNumber).toBe(calls[k]!.OrderSourceOrderNumber);
        const keyOf = (c: unknown) => (c as { IdempotencyKey: string }).IdempotencyKey;
        expect(keyOf(repeated[0])).toBe(keyOf(calls[k]));
        expect(keyOf(repeated[0])).toMatch(new RegExp(`^${sourceId}-\\d+$`));
        expect((await deliveries(storeId, sourceId)).every((d) => d.Status === "delivered")).toBe(true);
      },
    );
  }
});

describe("renames, deletions and claimed orders", () => {
  it("a source renamed while its import runs imports each order once, under the new name", async () => {
    const { storeId, token } = await storeWithToken();
    const settings = { ...simulatedWindow(30), pageSize: 10 };
    const sourceId = await createSource(storeId, { Name: "Before", Settings: settings });
    const real = createSimulatedConnector({ sourceId, settings, fetch, now: () => new Date() }, memoryStorage());
    let pages = 0;
    const renaming: Connector = {
      ...real,
      async fetchOrders(window, cursor) {
        // The operator renames the source between the first and second page.
        if (++pages === 2) await patchSource(storeId, sourceId, { Name: "After" });
        return real.fetchOrders(window, cursor);
      },
    };
    const result = await importOrders(await storeDrizzle(storeId), { id: sourceId, storeId, cursorAt: null }, renaming, Date.now());
    expect(result.imported).toBe(30);
    // And a cycle fetching the whole window again finds them all.
    await (await storeD1(storeId)).prepare("update sources set cursor_at = null where id = ?").bind(sourceId).run();
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ fetched: 30, imported: 0 });
    const orders = await listOrders(token);
    expect(orders).toHaveLength(30);
    expect(new Set(orders.map((o) => o.OrderSource))).toEqual(new Set(["After"]));
  });

  it("a delivery for an order whose source was deleted fails at once, saying so", async () => {
    const { storeId, token, sourceId, orders } = await importedStore(2);
    const [a, b] = orders as [WireOrder, WireOrder];
    await ack(token, a, "PO-A");
    expect((await admin("DELETE", `/stores/${storeId}/sources/${sourceId}`)).status).toBe(200);
    const message = "The order's marketplace source was deleted; nothing can be delivered to it.";
    // What was pending when it went: failed, and the order says why.
    let byId = new Map((await listOrders(token)).map((o) => [o.OrderId, o]));
    expect(byId.get(a.OrderId)!.SyncUserErrorMessage).toBe(message);
    // A change made afterwards is taken, and fails at once instead of pending forever.
    expect((await ack(token, b, "PO-B")).status).toBe(200);
    byId = new Map((await listOrders(token)).map((o) => [o.OrderId, o]));
    expect(byId.get(b.OrderId)).toMatchObject({ OrderStatus: "Processing", SyncStatus: "Disabled", SyncUserErrorMessage: message });
    const { results: rows } = await (await storeD1(storeId))
      .prepare("select state, last_error from outbox where source_id = ? order by id")
      .bind(sourceId)
      .all<{ state: string; last_error: string }>();
    expect(rows).toEqual([
      { state: "failed", last_error: message },
      { state: "failed", last_error: message },
    ]);
  });

  it("an order inserted through InsertOrder and claimed by the source keeps its own lines when the marketplace's copy is imported", async () => {
    const { storeId, token } = await storeWithToken();
    const settings = simulatedWindow(2);
    const sourceId = await createSource(storeId, { Name: "Claimer", Settings: settings });
    const k = Date.parse(settings.endAt) / (5 * MINUTE);
    const id = await insert(token, {
      OrderSource: "Claimer",
      OrderSourceOrderNumber: orderNumberOf(sourceId, k),
      OrderItems: [{ Sku: "CLIENT-1", Name: "The client's line", Quantity: 1, UnitPrice: 5 }],
    });
    await cycleAt(sourceId, Date.now());
    await cycleAt(sourceId, Date.now());
    const orders = await listOrders(token);
    expect(orders).toHaveLength(2);
    const claimed = orders.find((o) => o.OrderId === id)!;
    expect(claimed.SyncStatus).toBe("Enabled");
    expect(claimed.OrderItems.map((i) => i.Sku)).toEqual(["CLIENT-1"]);
  });
});

describe("cursor control and cycle history", () => {
  it("PATCH ImportFrom makes the source import again from that date, once each", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(6) });
    await cycleAt(sourceId, Date.now());
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ fetched: 0 });
    const from = new Date(Date.now() - 2 * 24 * 3_600_000).toISOString();
    const patched = await patchSource(storeId, sourceId, { ImportFrom: from });
    expect((patched.Status as { Cursor: string }).Cursor).toBe(from);
    expect(await cycleAt(sourceId, Date.now())).toMatchObject({ fetched: 6, imported: 0 });
    expect(await listOrders(token)).toHaveLength(6);

    for (const bad of ["2999-01-01", "yesterday", "2000-01-01"]) {
      const res = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { ImportFrom: bad });
      expect(res.status).toBe(400);
      expect(res.json.Message).toMatch(/ImportFrom/);
    }
  });

  it("keeps the last 20 cycle summaries, newest first, so an operator sees when the marketplace started failing", async () => {
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(1) });
    let at = Date.now();
    for (let i = 0; i < 18; i++) await cycleAt(sourceId, (at += MINUTE));
    await patchSource(storeId, sourceId, { Settings: { fault: { kind: "http500", operations: ["fetchOrders"] } } });
    for (let i = 0; i < 4; i++) await cycleAt(sourceId, (at += MINUTE));
    const cycles = (await sourceView(storeId, sourceId)).Status.RecentCycles;
    expect(cycles).toHaveLength(20);
    expect(cycles.slice(0, 4).every((c) => /^import: Simulated marketplace 500/.test(c.Error as string))).toBe(true);
    expect(cycles.slice(4).every((c) => c.Error === null)).toBe(true);
    const starts = cycles.map((c) => Date.parse(c.DateStarted as string));
    expect(starts).toEqual([...starts].sort((x, y) => y - x));
    expect(starts[0]).toBe(at);
  });
});
