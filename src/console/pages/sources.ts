// Console pages: a store's marketplace sources: list, add one of each Type (a form built from its
// connector's Settings in the OpenAPI document), status with the recent cycles, deliveries with
// retry, set-aside orders (mapped again on demand, or dismissed one by one), enable or disable,
// sync now.
import { html } from "hono/html";
import type { AdminApi } from "../admin-api";
import { settingsFields, settingsFromForm, settingsSpecs, type SettingsSpec } from "../settings-form";
import { enc, str, type C, type Kit, type Router, type Row } from "../kit";
import { csrfField, field, formError, page, table, when, type Notice } from "../layout";

export function sourcePages(router: Router, kit: Kit) {
  const { api, ctxOf, back, failed, form, loadStore, storeNav, storeCrumbs } = kit;
  /** The source of the request: its console page, and its path in the admin API. */
  const sourceUrl = (c: C) => `/console/stores/${enc(c.req.param("storeId") ?? "")}/sources/${enc(c.req.param("sourceId") ?? "")}`;
  const sourceApi = (c: C) => `/stores/${enc(c.req.param("storeId") ?? "")}/sources/${enc(c.req.param("sourceId") ?? "")}`;

  let specs: Promise<SettingsSpec[]> | null = null;
  const loadSpecs = (a: AdminApi) => (specs ??= a.publicJson<Parameters<typeof settingsSpecs>[0]>("/openapi.json").then(settingsSpecs).catch((e) => {
    specs = null;
    throw e;
  }));

  async function sourcesPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    const a = api(c);
    const [res, types] = await Promise.all([a.call<{ Sources: Row[] }>("GET", `/stores/${enc(str(store.StoreId))}/sources`), loadSpecs(a)]);
    const sources = res.ok ? res.data.Sources : [];
    return c.html(
      page(
        "Marketplace sources",
        html`${storeNav(store, "Sources")}${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
${table(
  "Sources",
  ["Name", "Type", "Enabled", "Last cycle", "Imported", "Pending", "Failed", "Last error"],
  sources.map((s) => {
    const st = s.Status as Row;
    return [
      html`<a href="${base}/sources/${enc(str(s.SourceId))}">${str(s.Name)}</a>`,
      str(s.Type),
      s.Enabled ? "Yes" : "No",
      when(st.DateLastCycleEnded),
      str(st.ImportedTotal),
      str(st.DeliveriesPending),
      str(st.DeliveriesFailed),
      str(st.LastError) || "—",
    ];
  }),
  "no source yet.",
)}
${types.map((spec) => {
  const formName = `add-${spec.type}`;
  return html`<section class="card" aria-labelledby="${formName}-h">
  <h2 id="${formName}-h">Add a ${spec.type} source</h2>
  <form method="post" action="${base}/sources">${csrfField(ctx.csrf)}<input type="hidden" name="Type" value="${spec.type}">
    ${formError(ctx, formName, ["Name", ...Object.keys(spec.schema.properties ?? {}).map((k) => `Settings.${k}`)])}
    ${field(ctx, { form: formName, name: "Name", label: "Name", required: true, hint: "Orders it imports carry this as their OrderSource.", attrs: 'maxlength="200"' })}
    <fieldset><legend>Settings</legend>${settingsFields(ctx, formName, spec)}</fieldset>
    <button type="submit">Add ${spec.type} source</button>
  </form>
</section>`;
})}`,
        { ctx, crumbs: storeCrumbs(store) },
      ),
    );
  }
  router.get("/stores/:storeId/sources", (c) => sourcesPage(c));
  router.post("/stores/:storeId/sources", async (c) => {
    const body = await form(c);
    const type = str(body.Type);
    const spec = (await loadSpecs(api(c))).find((s) => s.type === type);
    const formName = `add-${type}`;
    if (!spec) return failed(c, sourcesPage, formName, { status: 400, message: `'Type' must be one of the listed types.` });
    const parsed = settingsFromForm(spec, body);
    if ("error" in parsed) return failed(c, sourcesPage, formName, { status: 400, message: parsed.error });
    const res = await api(c).call<{ Source: Row }>("POST", `/stores/${enc(c.req.param("storeId"))}/sources`, { Type: type, Name: str(body.Name), Settings: parsed.settings });
    if (!res.ok) return failed(c, sourcesPage, formName, res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}/sources/${enc(str(res.data.Source.SourceId))}`, `Source '${str(res.data.Source.Name)}' added.`);
  });

  async function sourcePage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const a = api(c);
    const path = sourceApi(c);
    const base = sourceUrl(c);
    const [res, pending, failedRows, setAside] = await Promise.all([
      a.call<{ Source: Row }>("GET", path),
      a.call<{ Deliveries: Row[] }>("GET", `${path}/deliveries?status=pending`),
      a.call<{ Deliveries: Row[] }>("GET", `${path}/deliveries?status=failed`),
      a.call<{ SetAside: Row[] }>("GET", `${path}/set-aside`),
    ]);
    if (!res.ok) return c.html(page("Source not found", html`<p class="error" role="alert">${res.message}</p>`, { ctx, crumbs: storeCrumbs(store) }), res.status === 404 ? 404 : 502);
    const s = res.data.Source;
    const st = s.Status as Row;
    const deliveryRows = (rows: Row[]) =>
      rows.map((d) => [html`<a href="/console/stores/${enc(str(store.StoreId))}/orders/${enc(str(d.OrderId))}">${str(d.OrderId)}</a>`, str(d.Kind), str(d.Attempts), when(d.DateNextAttempt), str(d.LastError) || "—"]);
    const setAsideList = setAside.ok ? setAside.data.SetAside : [];
    const cycles = (st.RecentCycles as Row[] | undefined) ?? [];
    return c.html(
      page(
        `Source: ${str(s.Name)}`,
        html`${storeNav(store, "Sources")}
<dl class="facts">
  <dt>Type</dt><dd>${str(s.Type)}</dd>
  <dt>Enabled</dt><dd>${s.Enabled ? "Yes" : "No"}</dd>
  <dt>Settings</dt><dd><code>${JSON.stringify(s.Settings)}</code></dd>
  <dt>Last cycle</dt><dd>${when(st.DateLastCycleStarted)} to ${when(st.DateLastCycleEnded)}: ${str(st.LastCycleImported)} imported</dd>
  <dt>Imported in all</dt><dd>${str(st.ImportedTotal)}</dd>
  <dt>Deliveries</dt><dd>${str(st.DeliveriesPending)} pending, ${str(st.DeliveriesSubmitted)} submitted, ${str(st.DeliveriesFailed)} failed</dd>
  <dt>Set aside</dt><dd>${str(st.SetAside)} orders the connector could not map</dd>
  <dt>Last error</dt><dd>${str(st.LastError) || "none"}</dd>
  <dt>Imported up to</dt><dd>${when(st.Cursor)}</dd>
</dl>
<div class="actions">
  <form method="post" action="${base}/sync">${csrfField(ctx.csrf)}${formError(ctx, "sync")}<button type="submit"${s.Enabled ? "" : html` disabled aria-describedby="sync-disabled"`}>Sync now</button>${s.Enabled ? "" : html`<p class="hint" id="sync-disabled">Enable the source to sync it.</p>`}</form>
  <form method="post" action="${base}/enabled">${csrfField(ctx.csrf)}${formError(ctx, "enabled")}<input type="hidden" name="Enabled" value="${s.Enabled ? "false" : "true"}"><button type="submit">${s.Enabled ? "Disable" : "Enable"} source</button></form>
</div>
<h2>Pending deliveries</h2>
${table("Pending deliveries", ["Order", "Kind", "Attempts", "Next attempt", "Last error"], pending.ok ? deliveryRows(pending.data.Deliveries) : [], "none.")}
<h2>Failed deliveries</h2>
${table("Failed deliveries", ["Order", "Kind", "Attempts", "Next attempt", "Last error"], failedRows.ok ? deliveryRows(failedRows.data.Deliveries) : [], "none.")}
${failedRows.ok && failedRows.data.Deliveries.length
  ? html`<form method="post" action="${base}/retry">${csrfField(ctx.csrf)}${formError(ctx, "retry")}<button type="submit">Retry failed deliveries</button></form>`
  : ""}
<h2>Recent cycles</h2>
${table(
  "Recent cycles",
  ["Started", "Fetched", "Imported", "Set aside", "Delivered", "Failed", "Error"],
  cycles.map((y) => [when(y.DateStarted), str(y.OrdersFetched), str(y.OrdersImported), str(y.OrdersSetAside), str(y.Delivered), str(y.DeliveriesFailed), str(y.Error) || "—"]),
  "no cycle yet.",
)}
<h2>Set-aside orders</h2>
${setAside.ok
  ? table(
      "Set-aside orders",
      ["Marketplace order", "Reason", "First seen", "Last seen", "Action"],
      setAsideList.map((o) => [
        str(o.OrderSourceOrderNumber),
        str(o.Reason),
        when(o.DateFirstSeen),
        when(o.DateLastSeen),
        html`<form method="post" action="${base}/set-aside/dismiss">${csrfField(ctx.csrf)}<input type="hidden" name="OrderSourceOrderNumber" value="${str(o.OrderSourceOrderNumber)}"><button type="submit" aria-label="Dismiss set-aside order ${str(o.OrderSourceOrderNumber)}">Dismiss</button></form>`,
      ]),
      "none.",
    )
  : html`<p class="error" role="alert">${setAside.message}</p>`}
${setAsideList.length
  ? html`<form method="post" action="${base}/set-aside/retry">${csrfField(ctx.csrf)}${formError(ctx, "set-aside")}<button type="submit">Map set-aside orders again</button></form>`
  : ""}`,
        { ctx, crumbs: [...storeCrumbs(store), ["Sources", `/console/stores/${enc(str(store.StoreId))}/sources`]] },
      ),
    );
  }
  router.get("/stores/:storeId/sources/:sourceId", (c) => sourcePage(c));
  router.post("/stores/:storeId/sources/:sourceId/sync", async (c) => {
    const res = await api(c).call<{ Sync: Row }>("POST", `/sync?sourceId=${enc(c.req.param("sourceId"))}`);
    if (!res.ok) return failed(c, sourcePage, "sync", res);
    const cycle = ((res.data.Sync.Sources as Row[]) ?? [])[0] ?? {};
    const done = cycle.Error
      ? `Sync ran with an error: ${str(cycle.Error)}`
      : `Sync done: ${str(cycle.OrdersFetched ?? 0)} orders fetched, ${str(cycle.OrdersImported ?? 0)} imported, ${str(cycle.Delivered ?? 0)} deliveries sent.`;
    return back(c, sourceUrl(c), done);
  });
  router.post("/stores/:storeId/sources/:sourceId/enabled", async (c) => {
    const body = await form(c);
    const enabled = body.Enabled === "true";
    const res = await api(c).call("PATCH", sourceApi(c), { Enabled: enabled });
    if (!res.ok) return failed(c, sourcePage, "enabled", res);
    return back(c, sourceUrl(c), `Source ${enabled ? "enabled" : "disabled"}.`);
  });
  router.post("/stores/:storeId/sources/:sourceId/retry", async (c) => {
    const res = await api(c).call<{ Retried: number }>("POST", `${sourceApi(c)}/deliveries/retry`);
    if (!res.ok) return failed(c, sourcePage, "retry", res);
    return back(c, sourceUrl(c), `${res.data.Retried} deliveries will be tried again on the next cycle.`);
  });
  // The marketplace cancelled it, or the seller handles it by hand: the order leaves the list.
  // The number travels in the form; the admin API's path then carries it encoded. A number that
  // is "." or ".." cannot be addressed there (URL parsing drops such a segment, encoded or not):
  // the API answers 404 and the page says so.
  router.post("/stores/:storeId/sources/:sourceId/set-aside/dismiss", async (c) => {
    const number = String((await form(c)).OrderSourceOrderNumber ?? "");
    const res = await api(c).call("DELETE", `${sourceApi(c)}/set-aside/${enc(number)}`);
    if (!res.ok) return failed(c, sourcePage, "set-aside", res);
    return back(c, sourceUrl(c), `Set-aside order ${number} dismissed.`);
  });
  router.post("/stores/:storeId/sources/:sourceId/set-aside/retry", async (c) => {
    const res = await api(c).call<{ Retried: number; Imported: number; StillSetAside: number }>("POST", `${sourceApi(c)}/set-aside/retry`);
    if (!res.ok) return failed(c, sourcePage, "set-aside", res);
    return back(c, sourceUrl(c), `${res.data.Retried} set-aside orders mapped again: ${res.data.Imported} imported, ${res.data.StillSetAside} still set aside.`);
  });

}
