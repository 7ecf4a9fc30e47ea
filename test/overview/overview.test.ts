// The overview routes (issue 24) through whole requests: the hub's and a store's numbers against
// orders seeded with known days and sources, the sources' health and what needs the operator
// first (a failing source, a failed delivery, a failed compile), and the bound: the same few D1
// statements for 5 orders as for thousands, none of which reads the orders table.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { admin, ADMIN_KEY, BASE, call, createStore, storeWithToken } from "../helpers/api";
import { DATABASES, storeD1, storeOn, type DatabaseName } from "../helpers/shards";
import { createSource, cycleAt, patchSource, simulatedWindow } from "../helpers/sync";

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `count` orders of `source` created at `at`, written straight into the store's shard (the triggers keep the day counts). */
async function seedOrders(storeId: string, source: string, count: number, at: number, status = "New") {
  await (await storeD1(storeId))
    .prepare(
      `with recursive r(i) as (select 1 union all select i + 1 from r where i < ?3)
     insert into orders (store_id, order_source, order_source_order_number, status, source_order_status, buyer_email_address, buyer_phone_number,
       first_name, last_name, street1, city, state_or_province, postal_code, country, shipping_method, grand_total, sub_total,
       date_created_in_order_source, date_updated)
     select ?1, ?2, ?2 || '-' || ?4 || '-' || i, ?5, 'x', 'b@example.com', '555', 'Jo', 'Doe', '1 Main St', 'Town', 'IL', '62701', 'US', 'Std', 10,
       10, ?4 + i, ?4 + i from r`,
    )
    .bind(storeId, source, count, at, status)
    .run();
}

interface Health {
  SourceId: string;
  Name: string;
  FailedCycles: number;
  FailingSince: string | null;
  LastCycle: { Error: string | null } | null;
  DeliveriesFailed: number;
  Cycles?: { OrdersImported: number; Error: string | null; DateStarted: string }[];
}
interface Attention {
  Kind: string;
  StoreId: string;
  SourceId: string | null;
  FeedId: string | null;
  Count: number;
  Detail: string;
}

describe("GET /admin/v1/stores/{storeId}/overview", () => {
  it("answers orders per day per source over 30 days, statuses now, and the week's and today's totals", async () => {
    const storeId = await createStore("Overview numbers");
    await seedOrders(storeId, "Alpha", 4, today);
    await seedOrders(storeId, "Beta", 2, today, "Shipped");
    await seedOrders(storeId, "Alpha", 3, today - DAY, "Processing");
    await seedOrders(storeId, "Beta", 5, today - 6 * DAY);
    await seedOrders(storeId, "Beta", 7, today - 7 * DAY, "Canceled");
    await seedOrders(storeId, "Alpha", 11, today - 29 * DAY);
    // Outside the 30 days: counted in the statuses, not in the chart.
    await seedOrders(storeId, "Alpha", 13, today - 30 * DAY);
    const res = await admin("GET", `/stores/${storeId}/overview`);
    expect(res.status).toBe(200);
    const o = res.json.Overview as {
      Today: string;
      OrdersToday: number;
      OrdersLast7Days: number;
      OrdersPerDay: { Days: string[]; Sources: { OrderSource: string; Counts: number[] }[]; Totals: number[] };
      OrderStatuses: { Status: string; Count: number }[];
    };
    expect(o.Today).toBe(isoDay(today));
    expect(o.OrdersToday).toBe(6);
    expect(o.OrdersLast7Days).toBe(14);
    expect(o.OrdersPerDay.Days).toHaveLength(30);
    expect(o.OrdersPerDay.Days[0]).toBe(isoDay(today - 29 * DAY));
    expect(o.OrdersPerDay.Days[29]).toBe(isoDay(today));
    const alpha = new Array(30).fill(0);
    alpha[0] = 11;
    alpha[28] = 3;
    alpha[29] = 4;
    const beta = new Array(30).fill(0);
    beta[22] = 7;
    beta[23] = 5;
    beta[29] = 2;
    expect(o.OrdersPerDay.Sources).toEqual([
      { OrderSource: "Alpha", Counts: alpha },
      { OrderSource: "Beta", Counts: beta },
    ]);
    expect(o.OrdersPerDay.Totals).toEqual(alpha.map((a, i) => a + beta[i]));
    expect(o.OrderStatuses).toEqual([
      { Status: "New", Count: 33 },
      { Status: "Processing", Count: 3 },
      { Status: "Shipped", Count: 2 },
      { Status: "Canceled", Count: 7 },
    ]);
  });

  it("follows an order whose status changes, and answers 404 for an unknown store", async () => {
    const { storeId, token } = await storeWithToken();
    await seedOrders(storeId, "Gamma", 2, today);
    const listed = await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=10`);
    const first = (listed.json.Orders as { OrderId: string }[])[0]!;
    expect((await call("PUT", `/v1/${token}/Orders/${first.OrderId}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    const o = (await admin("GET", `/stores/${storeId}/overview`)).json.Overview as { OrdersToday: number; OrderStatuses: { Status: string; Count: number }[] };
    expect(o.OrdersToday).toBe(2);
    expect(o.OrderStatuses.filter((s) => s.Count > 0)).toEqual([
      { Status: "New", Count: 1 },
      { Status: "Canceled", Count: 1 },
    ]);
    expect((await admin("GET", "/stores/st_nope/overview")).status).toBe(404);
  });

  it("moves a source's orders in the chart when the source is renamed (the rename rewrites their OrderSource)", async () => {
    const storeId = await createStore("Overview rename");
    const sourceId = await createSource(storeId, { Name: "Old name", Settings: simulatedWindow(3) });
    await cycleAt(sourceId, Date.now());
    const before = (await admin("GET", `/stores/${storeId}/overview`)).json.Overview as {
      OrdersPerDay: { Sources: { OrderSource: string; Counts: number[] }[] };
    };
    expect(before.OrdersPerDay.Sources.map((s) => [s.OrderSource, s.Counts.reduce((a, b) => a + b, 0)])).toEqual([["Old name", 3]]);
    await patchSource(storeId, sourceId, { Name: "New name" });
    const after = (await admin("GET", `/stores/${storeId}/overview`)).json.Overview as {
      OrdersPerDay: { Sources: { OrderSource: string; Counts: number[] }[] };
    };
    expect(after.OrdersPerDay.Sources.map((s) => [s.OrderSource, s.Counts.reduce((a, b) => a + b, 0)])).toEqual([["New name", 3]]);
  });

  it("shows each source's last cycles oldest first, a failing source with its streak, a failed delivery and a failed compile", async () => {
    const storeId = await createStore("Overview health");
    const good = await createSource(storeId, { Name: "Good market", Settings: simulatedWindow(3) });
    await cycleAt(good, Date.now());
    const bad = await createSource(storeId, { Name: "Bad market", Settings: { ...simulatedWindow(3), fault: { kind: "http500", retryAfterSeconds: 1 } } });
    await cycleAt(bad, Date.now());
    await cycleAt(bad, Date.now() + 1000);
    // A delivery the marketplace refuses for good.
    const refusing = await createSource(storeId, { Name: "Refusing market", Settings: simulatedWindow(1) });
    await cycleAt(refusing, Date.now());
    const mine = (await admin("GET", `/stores/${storeId}/orders?page=1&pageSize=50`)).json.Orders as {
      OrderId: string;
      OrderSource: string;
      OrderSourceOrderNumber: string;
    }[];
    const target = mine.find((o) => o.OrderSource === "Refusing market")!;
    await patchSource(storeId, refusing, { Settings: { rejectOrderNumbers: [target.OrderSourceOrderNumber] } });
    const { token } = await tokenFor(storeId);
    expect((await call("PUT", `/v1/${token}/Orders/${target.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-1`)).status).toBe(200);
    await cycleAt(refusing, Date.now());
    // A compile of an empty catalog fails.
    const feed = await admin("POST", `/stores/${storeId}/feeds`, { Name: "Empty feed", Format: "csv" });
    const feedId = (feed.json.Feed as { FeedId: string }).FeedId;
    expect(((await admin("POST", `/feeds/${feedId}/compile`)).json.Feed as { Status: string }).Status).toBe("Failed");

    const o = (await admin("GET", `/stores/${storeId}/overview`)).json.Overview as {
      Sources: Health[];
      Deliveries: { Pending: number; Submitted: number; Failed: number };
      Feeds: { FeedId: string; Status: string }[];
      Attention: Attention[];
    };
    const byName = new Map(o.Sources.map((s) => [s.Name, s]));
    expect(byName.get("Good market")).toMatchObject({ FailedCycles: 0, FailingSince: null, LastCycle: { Error: null } });
    expect(byName.get("Good market")!.Cycles!.map((c) => c.OrdersImported)).toEqual([3]);
    const failing = byName.get("Bad market")!;
    expect(failing.FailedCycles).toBe(2);
    expect(failing.Cycles).toHaveLength(2);
    expect(failing.FailingSince).toBe(failing.Cycles![0]!.DateStarted);
    expect(failing.LastCycle!.Error).toMatch(/500/);
    expect(byName.get("Refusing market")!.DeliveriesFailed).toBe(1);
    expect(o.Deliveries).toEqual({ Pending: 0, Submitted: 0, Failed: 1 });
    expect(o.Attention.map((a) => [a.Kind, a.SourceId ?? a.FeedId, a.Count])).toEqual([
      ["SourceFailing", bad, 2],
      ["DeliveriesFailed", refusing, 1],
      ["CompileFailed", feedId, 1],
    ]);
    expect(o.Attention[2]!.Detail).toMatch(/catalog is empty/);

    // The hub lists the same, with the store.
    const hub = (await admin("GET", "/overview")).json.Overview as { Attention: Attention[]; Stores: { StoreId: string; DeliveriesFailed: number }[] };
    const ours = hub.Attention.filter((a) => a.StoreId === storeId);
    expect(ours.map((a) => a.Kind)).toEqual(["SourceFailing", "DeliveriesFailed", "CompileFailed"]);
    expect(hub.Stores.find((s) => s.StoreId === storeId)!.DeliveriesFailed).toBe(1);
  });
});

async function tokenFor(storeId: string) {
  const key = await admin("POST", `/stores/${storeId}/consumer-keys`, { Name: "k", Scopes: ["OrdersRead", "OrdersUpdate"], Lifespan: "NeverExpires" });
  const exchanged = await call("PUT", "/v1/Authorization", { body: { ConsumerKey: (key.json.ConsumerKey as { Key: string }).Key } });
  return { token: exchanged.json.Token as string };
}

describe("GET /admin/v1/overview", () => {
  it("answers every store's orders today and over the last 7 days", async () => {
    const a = await createStore("Hub A");
    const b = await createStore("Hub B");
    await seedOrders(a, "One", 3, today);
    await seedOrders(a, "One", 4, today - 6 * DAY);
    await seedOrders(a, "One", 5, today - 7 * DAY);
    await seedOrders(a, "One", 6, today - 40 * DAY, "Processing");
    await seedOrders(b, "Two", 2, today - DAY);
    await seedOrders(b, "Two", 1, today - DAY + 60_000, "Shipped");
    const hub = (await admin("GET", "/overview")).json.Overview as {
      Today: string;
      Stores: { StoreId: string; OrdersToday: number; OrdersLast7Days: number; OrdersNew: number }[];
    };
    expect(hub.Today).toBe(isoDay(today));
    // OrdersNew: waiting to be acknowledged, whatever the day (the 5 of a week ago and more too).
    expect(hub.Stores.find((s) => s.StoreId === a)).toMatchObject({ OrdersToday: 3, OrdersLast7Days: 7, OrdersNew: 12 });
    expect(hub.Stores.find((s) => s.StoreId === b)).toMatchObject({ OrdersToday: 0, OrdersLast7Days: 3, OrdersNew: 2 });
    // Acknowledging one leaves one fewer waiting.
    const { token } = await tokenFor(a);
    const listed = await call("GET", `/v1/${token}/Orders?fromDate=2000-01-01&toDate=2100-01-01&status=NEW&pageSize=1`);
    const first = (listed.json.Orders as { OrderId: string }[])[0]!.OrderId;
    expect((await call("PUT", `/v1/${token}/Orders/${first}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-1`)).status).toBe(200);
    const again = (await admin("GET", "/overview")).json.Overview as { Stores: { StoreId: string; OrdersNew: number }[] };
    expect(again.Stores.find((s) => s.StoreId === a)!.OrdersNew).toBe(11);
    // A deleted store leaves the overview.
    expect((await admin("DELETE", `/stores/${b}`)).status).toBe(200);
    const after = (await admin("GET", "/overview")).json.Overview as { Stores: { StoreId: string }[] };
    expect(after.Stores.map((s) => s.StoreId)).not.toContain(b);
  });
});

describe("the overviews' bound", () => {
  /** The route answered with databases (the directory and every shard) that record every statement prepared (batched ones included), by database. */
  async function statementsOf(path: string) {
    const prepared = Object.fromEntries(DATABASES.map((name) => [name, [] as string[]])) as Record<DatabaseName, string[]>;
    const recording = (name: DatabaseName) =>
      new Proxy(env[name], {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop === "prepare")
            return (sql: string) => {
              prepared[name].push(sql);
              return target.prepare(sql);
            };
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    const recorded = Object.fromEntries(DATABASES.map((name) => [name, recording(name)]));
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request(`${BASE}/admin/v1${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
      { ...env, ...recorded },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status, path).toBe(200);
    return prepared;
  }
  const counts = (prepared: Record<DatabaseName, string[]>) => Object.fromEntries(Object.entries(prepared).map(([name, sqls]) => [name, sqls.length]));

  it(
    "reads the same statements for 5 orders as for 5,000 (hub: 1 in the directory and 7 per shard, store: 1 and 8 in its shard), and none of them reads " +
      "orders",
    async () => {
      // Placed by name, so which shard holds which store (and that every shard holds sources) is known.
      const small = await storeOn("SHARD_1", "Bound small");
      const large = await storeOn("SHARD_2", "Bound large");
      const third = await storeOn("SHARD_3", "Bound third");
      await createSource(third, { Name: "T", Settings: simulatedWindow(1) });
      await seedOrders(small, "S", 5, today);
      for (let d = 0; d < 50; d += 1) await seedOrders(large, d % 2 ? "L1" : "L2", 100, today - d * DAY);
      // With sources (without one, the outbox and set-aside counts are not asked at all).
      await createSource(small, { Name: "S", Settings: simulatedWindow(1) });
      await createSource(large, { Name: "L1", Settings: simulatedWindow(1) });
      const smallStore = await statementsOf(`/stores/${small}/overview`);
      const largeStore = await statementsOf(`/stores/${large}/overview`);
      // The directory answers which store and where it lives; its shard the rest.
      // Six, and the set-aside returns and open returns (decisions 13).
      expect(counts(smallStore)).toEqual({ DB: 1, SHARD_1: 8, SHARD_2: 0, SHARD_3: 0 });
      expect(counts(largeStore)).toEqual({ DB: 1, SHARD_1: 0, SHARD_2: 8, SHARD_3: 0 });
      const hub = await statementsOf("/overview");
      // The directory: the stores, then as the legacy shard 3 (no source or store lives there, so no backlog is asked); each shard 7.
      expect(counts(hub)).toEqual({ DB: 4, SHARD_1: 7, SHARD_2: 7, SHARD_3: 7 });
      for (const sql of [...Object.values(largeStore).flat(), ...Object.values(hub).flat()]) expect(sql).not.toMatch(/\b(from|join)\s+["`]?orders["`]?(\s|$)/i);

      // And the day counts are read by their primary key, never scanned.
      const largeShard = await storeD1(large);
      for (const sql of [...largeStore.SHARD_2, ...hub.SHARD_2].filter((s) => /order(_source)?_day_counts/.test(s))) {
        const params = (sql.match(/\?/g) ?? []).map((_, i) => (i === 0 ? large : today - 30 * DAY));
        const plan = await largeShard
          .prepare(`explain query plan ${sql}`)
          .bind(...(sql.includes("?1") ? [today, today - 6 * DAY] : params))
          .all<{ detail: string }>();
        const details = plan.results.map((r) => r.detail);
        expect(details.filter((d) => /day_counts/.test(d)).length, sql).toBeGreaterThan(0);
        for (const step of details.filter((d) => /day_counts/.test(d)))
          expect(step, sql).toMatch(/^SEARCH order(_source)?_day_counts USING (PRIMARY KEY|INDEX sqlite_autoindex_order(_source)?_day_counts_1) \(store_id=/);
      }
    },
  );
});
