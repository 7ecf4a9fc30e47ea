// The overviews, read in a fixed number of D1 statements whatever a store holds: orders come
// from the day-count tables the orders triggers keep (never from orders), sources' health from the
// 20 cycle summaries each keeps, the backlog from outbox counts by state, feeds from their rows.
// The hub: one statement in the directory and seven in each shard (at once), for any number of
// stores; a store: 9, in its shard (src/db/shards.ts). Open returns are counted along the returns'
// (store, status) index: the returns the seller still has to act on, not the store's history. Each table's statement lives with
// its owner; this module only asks and assembles.
import type { Db } from "../db/client";
import { directoryDb, shardDb, shardNames } from "../db/shards";
import { countsBySource, type OutboxCounts } from "../outbox/outbox.queries";
import { ordersPerSourceDay, ordersPerStatus, ordersTodayAndWeek } from "../orders/orders.queries";
import { ORDER_STATUSES } from "../orders/orders.schemas";
import { feedsForOverview } from "../feeds/feeds.queries";
import { listStores, type StoreRow } from "../stores/stores.queries";
import { readCycles, type CycleSummary } from "../sources/cycle-summary";
import { countSetAside } from "../sources/set-aside.queries";
import { countSetAsideReturns } from "../sources/set-aside-returns.queries";
import { openReturnsOf } from "../returns/returns.queries";
import { sourcesForOverview } from "../sources/sources.queries";
import { toWireDate } from "../lib/dates";
import type { AttentionItem, FeedHealth, HubOverview, SourceHealth, StoreOverview } from "./overview.schemas";

const DAY_MS = 86_400_000;
/** The store overview's chart spans 30 days, today included. */
export const CHART_DAYS = 30;
const dayOf = (ms: number) => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type SourceRow = Awaited<ReturnType<typeof sourcesForOverview>>[number];
type FeedRow = Awaited<ReturnType<typeof feedsForOverview>>[number];

const outcomeOf = (c: CycleSummary) => ({
  DateStarted: toWireDate(c.startedAt),
  DateEnded: toWireDate(c.endedAt),
  OrdersImported: c.imported,
  OrdersSetAside: c.setAside,
  Delivered: c.delivered,
  DeliveriesFailed: c.failed,
  Error: c.error,
});

/** A source's health from its kept cycles (newest first) and its outbox and set-aside counts. */
export function sourceHealthOf(
  row: SourceRow,
  outbox: OutboxCounts | undefined,
  setAside: number | undefined,
  returnsSetAside = 0,
): SourceHealth & { cycles: CycleSummary[] } {
  const cycles = readCycles(row.recentCycles);
  const streak = cycles.findIndex((c) => c.error === null);
  const failed = streak === -1 ? cycles.length : streak;
  return {
    SourceId: row.id,
    Name: row.name,
    Type: row.type,
    Enabled: row.enabled,
    LastCycle: cycles[0] ? outcomeOf(cycles[0]) : null,
    FailedCycles: failed,
    FailingSince: failed > 0 ? toWireDate(cycles[failed - 1]!.startedAt) : null,
    DeliveriesPending: outbox?.pending ?? 0,
    DeliveriesSubmitted: outbox?.submitted ?? 0,
    DeliveriesFailed: outbox?.failed ?? 0,
    SetAside: setAside ?? 0,
    ReturnsSetAside: returnsSetAside,
    cycles,
  };
}

const feedHealthOf = (f: FeedRow): FeedHealth => ({
  FeedId: f.id,
  Name: f.name,
  Status: f.status,
  StatusMessage: f.statusMessage,
  Score: f.score,
  DateLastCompiled: toWireDate(f.dateLastCompiled),
  CompilationTotalCount: f.totalCount,
  CompilationValidCount: f.validCount,
  CompilationWarningCount: f.warningCount,
  CompilationErrorCount: f.errorCount,
});

/** What needs the operator first: failing sources (longest failing first), failed deliveries (most first), failed compiles. */
function attentionOf(stores: { store: Pick<StoreRow, "id" | "name">; sources: SourceHealth[]; feeds: FeedHealth[] }[]): AttentionItem[] {
  const failing: AttentionItem[] = [];
  const deliveries: AttentionItem[] = [];
  const compiles: AttentionItem[] = [];
  for (const { store, sources, feeds } of stores) {
    const base = { StoreId: store.id, StoreName: store.name, FeedId: null };
    for (const s of sources) {
      if (s.Enabled && s.FailedCycles > 0) {
        failing.push({
          ...base,
          Kind: "SourceFailing",
          SourceId: s.SourceId,
          Name: s.Name,
          Count: s.FailedCycles,
          Since: s.FailingSince,
          Detail: s.LastCycle?.Error ?? "",
        });
      }
      if (s.DeliveriesFailed > 0) {
        deliveries.push({
          ...base,
          Kind: "DeliveriesFailed",
          SourceId: s.SourceId,
          Name: s.Name,
          Count: s.DeliveriesFailed,
          Since: null,
          Detail: `${s.DeliveriesFailed === 1 ? "1 delivery" : `${s.DeliveriesFailed} deliveries`} to ${s.Name} failed for good.`,
        });
      }
    }
    for (const f of feeds) {
      if (f.Status === "Failed")
        compiles.push({ ...base, Kind: "CompileFailed", SourceId: null, FeedId: f.FeedId, Name: f.Name, Count: 1, Since: null, Detail: f.StatusMessage });
    }
  }
  failing.sort((a, b) => String(a.Since).localeCompare(String(b.Since)));
  deliveries.sort((a, b) => b.Count - a.Count);
  return [...failing, ...deliveries, ...compiles];
}

/** Outbox and set-aside counts of these sources, and the open returns of their stores: four statements, whatever their number. */
async function backlogOf(db: Db, sourceIds: string[], storeIds: string[]) {
  const [outbox, setAside, returnsSetAside, openReturns] = await Promise.all([
    countsBySource(db, sourceIds),
    countSetAside(db, sourceIds),
    countSetAsideReturns(db, sourceIds),
    openReturnsOf(db, storeIds),
  ]);
  return { outbox, setAside, returnsSetAside, openReturns };
}

/**
 * The hub: stores from the directory, the rest from every shard at once (five statements each),
 * each shard's rows kept only for the stores living in it (a moving store has a copy elsewhere).
 */
export async function hubOverview(env: Env, now: number): Promise<HubOverview> {
  const today = dayOf(now);
  const weekStart = today - 6 * DAY_MS;
  const stores = await listStores(directoryDb(env));
  const home = new Map(stores.map((store) => [store.id, store.shard]));
  const parts = await Promise.all(
    shardNames(env).map(async (shard) => {
      const db = shardDb(env, shard);
      const lives = (row: { storeId: string }) => home.get(row.storeId) === shard;
      const [counts, sourceRows, feedRows] = await Promise.all([
        ordersTodayAndWeek(db, today, weekStart),
        sourcesForOverview(db, null),
        feedsForOverview(db, null),
      ]);
      const sources = sourceRows.filter(lives);
      const living = stores.filter((store) => store.shard === shard).map((store) => store.id);
      return {
        counts: counts.filter(lives),
        sourceRows: sources,
        feedRows: feedRows.filter(lives),
        ...(await backlogOf(
          db,
          sources.map((s) => s.id),
          living,
        )),
      };
    }),
  );
  const orders = new Map(parts.flatMap((p) => p.counts).map((c) => [c.storeId, c]));
  const sourceRows = parts.flatMap((p) => p.sourceRows);
  const feedRows = parts.flatMap((p) => p.feedRows);
  const outbox = new Map(parts.flatMap((p) => [...p.outbox]));
  const setAside = new Map(parts.flatMap((p) => [...p.setAside]));
  const returnsSetAside = new Map(parts.flatMap((p) => [...p.returnsSetAside]));
  const openReturns = new Map(parts.flatMap((p) => [...p.openReturns]));
  const perStore = stores.map((store) => {
    const sources = sourceRows
      .filter((s) => s.storeId === store.id)
      .map((s) => sourceHealthOf(s, outbox.get(s.id), setAside.get(s.id), returnsSetAside.get(s.id)));
    const feeds = feedRows.filter((f) => f.storeId === store.id).map(feedHealthOf);
    const counts = orders.get(store.id);
    return { store, sources, feeds, today: counts?.today ?? 0, week: counts?.week ?? 0, waiting: counts?.waiting ?? 0 };
  });
  return {
    DateGenerated: new Date(now).toISOString(),
    Today: isoDay(today),
    Attention: attentionOf(perStore),
    Stores: perStore.map(({ store, sources, feeds, today: ordersToday, week, waiting }) => ({
      StoreId: store.id,
      Name: store.name,
      OrdersToday: ordersToday,
      OrdersLast7Days: week,
      OrdersNew: waiting,
      DeliveriesPending: sources.reduce((n, s) => n + s.DeliveriesPending, 0),
      DeliveriesFailed: sources.reduce((n, s) => n + s.DeliveriesFailed, 0),
      SetAside: sources.reduce((n, s) => n + s.SetAside, 0),
      OpenReturns: openReturns.get(store.id) ?? 0,
      Sources: sources.map(({ cycles: _, ...health }) => health),
      Feeds: feeds,
    })),
  };
}

export async function storeOverview(db: Db, store: StoreRow, now: number): Promise<StoreOverview> {
  const today = dayOf(now);
  const first = today - (CHART_DAYS - 1) * DAY_MS;
  const [perDay, statuses, sourceRows, feedRows] = await Promise.all([
    ordersPerSourceDay(db, store.id, first),
    ordersPerStatus(db, store.id),
    sourcesForOverview(db, store.id),
    feedsForOverview(db, store.id),
  ]);
  const { outbox, setAside, returnsSetAside, openReturns } = await backlogOf(
    db,
    sourceRows.map((s) => s.id),
    [store.id],
  );
  const sources = sourceRows.map((s) => sourceHealthOf(s, outbox.get(s.id), setAside.get(s.id), returnsSetAside.get(s.id)));
  const feeds = feedRows.map(feedHealthOf);
  const days = Array.from({ length: CHART_DAYS }, (_, i) => first + i * DAY_MS);
  const names = [...new Set(perDay.map((r) => r.orderSource))].sort();
  const series = names.map((name) => ({
    OrderSource: name,
    Counts: days.map((d) => perDay.filter((r) => r.orderSource === name && r.day === d).reduce((n, r) => n + r.n, 0)),
  }));
  const totals = days.map((_, i) => series.reduce((n, s) => n + s.Counts[i]!, 0));
  const byStatus = new Map(statuses.map((s) => [s.status, s.n]));
  return {
    StoreId: store.id,
    Name: store.name,
    DateGenerated: new Date(now).toISOString(),
    Today: isoDay(today),
    OrdersToday: totals[CHART_DAYS - 1]!,
    OrdersLast7Days: totals.slice(-7).reduce((n, t) => n + t, 0),
    OrdersPerDay: { Days: days.map(isoDay), Sources: series, Totals: totals },
    OrderStatuses: ORDER_STATUSES.map((status) => ({ Status: status, Count: byStatus.get(status) ?? 0 })),
    Deliveries: {
      Pending: sources.reduce((n, s) => n + s.DeliveriesPending, 0),
      Submitted: sources.reduce((n, s) => n + s.DeliveriesSubmitted, 0),
      Failed: sources.reduce((n, s) => n + s.DeliveriesFailed, 0),
    },
    SetAside: sources.reduce((n, s) => n + s.SetAside, 0),
    OpenReturns: openReturns.get(store.id) ?? 0,
    ReturnsSetAside: sources.reduce((n, s) => n + s.ReturnsSetAside, 0),
    Sources: sources.map(({ cycles, ...health }) => ({ ...health, Cycles: cycles.map(outcomeOf).reverse() })),
    Feeds: feeds,
    Attention: attentionOf([{ store, sources, feeds }]),
  };
}
