// Console pages: the hub overview (the console's home: what arrived, what is stuck, what failed,
// for every store) and a store's overview (its first tab), both drawn from the admin API's
// overview routes. Every chart has the table of its numbers beside it.
import type { FC } from "hono/jsx";
import { HBars, Legend, StackedBars } from "../charts";
import { ReadError, Checkbox, Field, PostForm, ProblemsLink, StoreNav, Table, storeBase, when } from "../components";
import { doneNotice, enc, type C } from "../context";
import type { AttentionItem, HubOverview, StoreOverview } from "../wire";

const KIND_LABELS: Record<AttentionItem["Kind"], string> = {
  SourceFailing: "Source failing",
  DeliveriesFailed: "Deliveries failed",
  CompileFailed: "Compile failed",
};

/** Where each item is mended: the source's page (its failed deliveries), or the feed's. */
function mendUrl(a: AttentionItem): string {
  const store = `/console/stores/${enc(a.StoreId)}`;
  if (a.Kind === "CompileFailed") return `${store}/feeds/${enc(a.FeedId ?? "")}`;
  return `${store}/sources/${enc(a.SourceId ?? "")}${a.Kind === "DeliveriesFailed" ? "#failed" : ""}`;
}

/** "1 cycle", "3 cycles". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How long ago an instant was, from the answer's own clock. */
export function ago(iso: string | null, nowIso: string): string {
  if (!iso) return "never";
  const minutes = Math.max(0, Math.round((Date.parse(nowIso) - Date.parse(iso)) / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

/** The hub lists this many items at most; the rest are counted (each store's overview lists its own). */
const ATTENTION_SHOWN = 25;

const Attention: FC<{ items: AttentionItem[]; now: string; withStore: boolean }> = ({ items: all, now, withStore }) => {
  const items = all.slice(0, ATTENTION_SHOWN);
  return (
    <section aria-labelledby="attention-h">
      <h2 id="attention-h">Needs attention</h2>
      {items.length === 0 ? (
        <p class="all-clear">Nothing needs you: every source's last cycle went through, no delivery failed for good, no compile failed.</p>
      ) : (
        <ul class="attention">
          {items.map((a) => (
            <li data-kind={a.Kind}>
              <span class="kind">{KIND_LABELS[a.Kind]}:</span>
              <a href={mendUrl(a)}>{withStore ? `${a.Name} (${a.StoreName})` : a.Name}</a>
              {a.Kind === "SourceFailing" ? ` — ${plural(a.Count, "cycle")} in a row since ${when(a.Since)} (${ago(a.Since, now)})` : ""}
              {a.Detail ? (
                <>
                  <br />
                  <span class="hint">{a.Detail.length > 300 ? `${a.Detail.slice(0, 299)}…` : a.Detail}</span>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {all.length > items.length ? <p>{`And ${all.length - items.length} more: each store's overview lists its own.`}</p> : null}
    </section>
  );
};

/** Each source's last cycle: its outcome and age, and how long it has been failing. */
const SourcesHealth: FC<{ store: HubOverview["Stores"][number]; now: string }> = ({ store, now }) =>
  store.Sources.length === 0 ? (
    <>none</>
  ) : (
    <ul class="plain">
      {store.Sources.map((s) => (
        <li>
          {`${s.Name}: `}
          {!s.LastCycle
            ? "no cycle yet"
            : s.FailedCycles > 0
              ? `failing (${plural(s.FailedCycles, "cycle")} since ${when(s.FailingSince)})`
              : `went through ${ago(s.LastCycle.DateEnded, now)}`}
          {s.Enabled ? "" : ", disabled"}
        </li>
      ))}
    </ul>
  );

/** A store's orders waiting to be acknowledged, linked to its order list filtered to them. */
const NewOrders: FC<{ store: HubOverview["Stores"][number] }> = ({ store }) =>
  store.OrdersNew > 0 ? <a href={`/console/stores/${enc(store.StoreId)}/orders?status=New`}>{String(store.OrdersNew)}</a> : <>0</>;

export async function hubPage(c: C) {
  const res = await c.var.api.call<{ Overview: HubOverview }>("GET", "/overview");
  const o = res.ok ? res.data.Overview : null;
  const stores = o?.Stores ?? [];
  const now = o?.DateGenerated ?? new Date().toISOString();
  const waiting = stores.reduce((n, s) => n + s.OrdersNew, 0);
  return c.render(
    <>
      <ReadError res={res} />
      {o ? (
        <ul class="stats" aria-label="At a glance">
          <li id="hub-waiting">
            <strong>{waiting}</strong> {waiting === 1 ? "order waits" : "orders wait"} to be acknowledged (New)
          </li>
          <li>
            <strong>{stores.reduce((n, s) => n + s.OrdersToday, 0)}</strong> orders today
          </li>
          <li>
            <strong>{stores.reduce((n, s) => n + s.DeliveriesFailed, 0)}</strong> deliveries failed
          </li>
        </ul>
      ) : null}
      {o ? <Attention items={o.Attention} now={o.DateGenerated} withStore /> : null}
      {stores.length ? (
        <section aria-labelledby="week-h">
          <h2 id="week-h">Orders in the last 7 days</h2>
          <div class="pair">
            <div class="figure">
              <HBars id="hub-week" title="Orders in the last 7 days, by store" rows={stores.map((s) => ({ label: s.Name, value: s.OrdersLast7Days }))} />
            </div>
            <Table
              caption="Orders by store"
              id="hub-week-table"
              headers={["Store", "Today", "Last 7 days", "New (to acknowledge)"]}
              rows={stores.map((s) => [s.Name, String(s.OrdersToday), String(s.OrdersLast7Days), <NewOrders store={s} />])}
            />
          </div>
        </section>
      ) : null}
      <Table
        caption="Stores"
        id="hub-stores"
        headers={[
          "Name",
          "New (to acknowledge)",
          "Orders today",
          "Last 7 days",
          "Sources",
          "Deliveries pending",
          "Deliveries failed",
          "Set aside",
          "Open returns",
          "Feeds",
        ]}
        rows={stores.map((s) => [
          <a href={`/console/stores/${enc(s.StoreId)}`}>{s.Name}</a>,
          <NewOrders store={s} />,
          String(s.OrdersToday),
          String(s.OrdersLast7Days),
          <SourcesHealth store={s} now={now} />,
          String(s.DeliveriesPending),
          String(s.DeliveriesFailed),
          String(s.SetAside),
          String(s.OpenReturns),
          s.Feeds.length
            ? s.Feeds.map((f) => `${f.Name}: Score ${f.Score}, ${f.Status}${f.DateLastCompiled ? `, compiled ${when(f.DateLastCompiled)}` : ""}`).join("; ")
            : "none",
        ])}
        empty="no store yet; create one below."
      />
      <section class="card" aria-labelledby="create-store-h">
        <h2 id="create-store-h">Create a store</h2>
        <PostForm action="/console/stores" name="create-store" fields={["Name"]}>
          <Field form="create-store" name="Name" label="Name" required attrs={{ maxlength: 200 }} />
          <Checkbox form="create-store" name="MaskBuyerPii" label="Mask buyer e-mail and phone in answers" />
          <button type="submit">Create store</button>
        </PostForm>
      </section>
    </>,
    { title: "Hub overview", done: doneNotice(c, { deleted: () => "Store deleted." }) },
  );
}

const shortDay = (day: string) => day.slice(5);

/**
 * A label for each cycle's bar that no other bar of the chart shares: its start's hour and minute
 * (UTC), with the seconds when two cycles started in the same minute, and a number after it when
 * they started in the same second.
 */
export function cycleLabels(starts: (string | null)[]): string[] {
  const minute = starts.map((d) => (d ? d.slice(11, 16) : "—"));
  const second = starts.map((d, i) => (d && minute.filter((m) => m === minute[i]).length > 1 ? d.slice(11, 19) : minute[i]!));
  return second.map((label, i) => {
    const same = second.filter((l) => l === label).length;
    return same > 1 ? `${label} #${second.slice(0, i + 1).filter((l) => l === label).length}` : label;
  });
}

export async function storeOverviewPage(c: C) {
  const store = c.var.store;
  const res = await c.var.api.call<{ Overview: StoreOverview }>("GET", `/stores/${enc(store.StoreId)}/overview`);
  const done = doneNotice(c, { created: () => `Store '${store.Name}' created.` });
  if (!res.ok) {
    return c.render(
      <>
        <StoreNav store={store} current="Overview" />
        <ReadError res={res} />
      </>,
      { title: `Store: ${store.Name}`, crumbs: [["Hub overview", "/console"]], done },
    );
  }
  const o = res.data.Overview;
  const perDay = o.OrdersPerDay;
  const base = storeBase(store);
  return c.render(
    <>
      <StoreNav store={store} current="Overview" />
      <ul class="stats" aria-label="At a glance">
        <li>
          <strong>{o.OrdersToday}</strong> orders today
        </li>
        <li>
          <strong>{o.OrdersLast7Days}</strong> in the last 7 days
        </li>
        <li>
          <strong>{o.Deliveries.Pending + o.Deliveries.Submitted}</strong> deliveries waiting
        </li>
        <li>
          <strong>{o.Deliveries.Failed}</strong> deliveries failed
        </li>
        <li>
          <strong>{o.SetAside}</strong> orders set aside
        </li>
        <li>
          <a href={`${base}/returns`}>
            <strong>{o.OpenReturns}</strong> open returns
          </a>
        </li>
      </ul>
      <Attention items={o.Attention} now={o.DateGenerated} withStore={false} />

      <section aria-labelledby="per-day-h">
        <h2 id="per-day-h">Orders per day, last 30 days</h2>
        <div class="pair">
          <div class="figure">
            <Legend chart="orders-per-day" names={perDay.Sources.map((s) => s.OrderSource)} />
            <StackedBars
              id="orders-per-day"
              title="Orders per day and source over the last 30 days (UTC days, by creation at the marketplace)"
              columns={perDay.Days}
              series={perDay.Sources.map((s) => ({ name: s.OrderSource, values: s.Counts }))}
              labelEvery={5}
              labelOf={shortDay}
            />
          </div>
          <Table
            caption="Orders per day and source"
            id="orders-per-day-table"
            headers={["Day", ...perDay.Sources.map((s) => s.OrderSource), "Total"]}
            rows={perDay.Days.map((day, i) => [day, ...perDay.Sources.map((s) => String(s.Counts[i])), String(perDay.Totals[i])])}
          />
        </div>
      </section>

      <section aria-labelledby="statuses-h">
        <h2 id="statuses-h">Order statuses now</h2>
        <div class="pair">
          <div class="figure">
            <HBars id="order-statuses" title="Orders by status now" rows={o.OrderStatuses.map((s) => ({ label: s.Status, value: s.Count }))} />
          </div>
          <Table
            caption="Orders by status"
            id="order-statuses-table"
            headers={["Status", "Orders"]}
            rows={o.OrderStatuses.map((s) => [s.Status, String(s.Count)])}
          />
        </div>
      </section>

      <section aria-labelledby="sources-h">
        <h2 id="sources-h">Sources</h2>
        {o.Sources.length === 0 ? (
          <p class="empty">
            No source yet: <a href={`${base}/sources`}>add one</a>.
          </p>
        ) : null}
        {o.Sources.map((s, n) => {
          const chart = `cycles-${n + 1}`;
          const kinds = ["Imported", "Set aside", "Delivered", "Failed deliveries"];
          const labels = cycleLabels(s.Cycles.map((y) => y.DateStarted));
          return (
            <div class="source-health" role="group" aria-labelledby={`${chart}-h`}>
              <h3 id={`${chart}-h`}>
                <a href={`${base}/sources/${enc(s.SourceId)}`}>{s.Name}</a> ({s.Type}
                {s.Enabled ? "" : ", disabled"})
              </h3>
              <p>
                {s.LastCycle
                  ? `Last cycle ${ago(s.LastCycle.DateEnded, o.DateGenerated)}: ` +
                    `${s.LastCycle.Error ? `failed (${s.LastCycle.Error.slice(0, 200)})` : "went through"}.`
                  : "No cycle yet."}
                {s.FailedCycles > 0 ? ` Failing for ${plural(s.FailedCycles, "cycle")} in a row, since ${when(s.FailingSince)}.` : ""}
                {` Backlog: ${s.DeliveriesPending} pending, ${s.DeliveriesSubmitted} submitted, ${s.DeliveriesFailed} failed; ${s.SetAside} set aside.`}
              </p>
              {s.Cycles.length ? (
                <div class="pair">
                  <div class="figure">
                    <Legend chart={chart} names={kinds} />
                    <StackedBars
                      id={chart}
                      title={`${s.Name}: the last ${s.Cycles.length} cycles, oldest first (✕ marks a failed cycle)`}
                      columns={s.Cycles.map((y) => y.DateStarted ?? "")}
                      series={[
                        { name: kinds[0]!, values: s.Cycles.map((y) => y.OrdersImported) },
                        { name: kinds[1]!, values: s.Cycles.map((y) => y.OrdersSetAside) },
                        { name: kinds[2]!, values: s.Cycles.map((y) => y.Delivered) },
                        { name: kinds[3]!, values: s.Cycles.map((y) => y.DeliveriesFailed) },
                      ]}
                      labelEvery={5}
                      labelOf={(_, i) => labels[i] ?? ""}
                      marks={s.Cycles.map((y) => (y.Error ? "✕" : null))}
                    />
                  </div>
                  <Table
                    caption={`${s.Name}: last cycles`}
                    headers={["Started", ...kinds, "Outcome"]}
                    rows={s.Cycles.map((y) => [
                      when(y.DateStarted),
                      String(y.OrdersImported),
                      String(y.OrdersSetAside),
                      String(y.Delivered),
                      String(y.DeliveriesFailed),
                      <span class="wrap">{y.Error ? `Failed: ${y.Error.slice(0, 200)}` : "Went through"}</span>,
                    ])}
                  />
                </div>
              ) : null}
            </div>
          );
        })}
      </section>

      <section aria-labelledby="backlog-h">
        <h2 id="backlog-h">Delivery backlog</h2>
        <Table
          caption="Deliveries by source"
          headers={["Source", "Pending", "Submitted", "Failed", "Set aside"]}
          rows={[
            ...o.Sources.map((s) => [
              <a href={`${base}/sources/${enc(s.SourceId)}#pending`}>{s.Name}</a>,
              String(s.DeliveriesPending),
              String(s.DeliveriesSubmitted),
              s.DeliveriesFailed ? <a href={`${base}/sources/${enc(s.SourceId)}#failed`}>{String(s.DeliveriesFailed)}</a> : "0",
              String(s.SetAside),
            ]),
            ...(o.Sources.length
              ? [["All sources", String(o.Deliveries.Pending), String(o.Deliveries.Submitted), String(o.Deliveries.Failed), String(o.SetAside)]]
              : []),
          ]}
          empty="no source, nothing to deliver."
        />
      </section>

      <section aria-labelledby="feeds-h">
        <h2 id="feeds-h">Feeds</h2>
        {o.Feeds.length ? (
          <div class="pair">
            <div class="figure">
              <HBars id="feed-scores" title="Feeds' Score (0 to 100)" rows={o.Feeds.map((f) => ({ label: f.Name, value: f.Score }))} max={100} />
            </div>
            <Table
              caption="Feeds"
              id="feeds-table"
              headers={["Feed", "Status", "Score", "Rows valid", "With warnings", "With errors", "Compiled"]}
              rows={o.Feeds.map((f) => [
                <a href={`${base}/feeds/${enc(f.FeedId)}`}>{f.Name}</a>,
                f.Status,
                String(f.Score),
                String(f.CompilationValidCount),
                <ProblemsLink href={`${base}/feeds/${enc(f.FeedId)}`} count={f.CompilationWarningCount} what="warnings" feed={f.Name} />,
                <ProblemsLink href={`${base}/feeds/${enc(f.FeedId)}`} count={f.CompilationErrorCount} what="errors" feed={f.Name} />,
                when(f.DateLastCompiled),
              ])}
            />
          </div>
        ) : (
          <p class="empty">
            No feed yet: <a href={`${base}/feeds`}>create one</a>.
          </p>
        )}
      </section>
    </>,
    { title: `Store: ${store.Name}`, crumbs: [["Hub overview", "/console"]], done },
  );
}
