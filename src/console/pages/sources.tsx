// Console pages: a store's marketplace sources: list, add one (a closed form per marketplace,
// opened by its name, built from its connector's Settings in the OpenAPI document), status with
// the recent cycles and the settings in words, deliveries with retry, stock and price per Sku
// (./listings.tsx), set-aside orders (mapped again on demand, or dismissed one by one), enable or
// disable, sync now. Mounted at /console/stores/:storeId/sources.
import type { AdminApi } from "../admin-api";
import { ReadError, Field, FormError, PostForm, StoreNav, Table, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, countParam, doneNotice, enc, failed, fieldOf, formOf, notFound, text, withStore, type C } from "../context";
import { ListingsSection, listingsFilter, loadListings } from "./listings";
import { marketplaceName, SettingsFields, settingLabel, settingsFromForm, settingsSpecs, withArticle, type SettingsSpec } from "../settings-form";
import type { Delivery, SetAsideOrder, SetAsideRetry, Source } from "../wire";

let specs: Promise<SettingsSpec[]> | null = null;
const loadSpecs = (api: AdminApi) =>
  (specs ??= api
    .publicJson<Parameters<typeof settingsSpecs>[0]>("/openapi.json")
    .then(settingsSpecs)
    .catch((e) => {
      specs = null;
      throw e;
    }));

/** The source of the request: its console page, and its path in the admin API. */
const sourceUrl = (c: C) => `${storeBase(c.var.store)}/sources/${enc(c.req.param("sourceId") ?? "")}`;
const sourceApi = (c: C) => `/stores/${enc(c.var.store.StoreId)}/sources/${enc(c.req.param("sourceId") ?? "")}`;

/** A marketplace order number as a notice may repeat it: an identifier, never a sentence. */
const ORDER_NUMBER = /^[A-Za-z0-9._:#/-]{1,64}$/;

async function sourcesPage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  const [res, types] = await Promise.all([c.var.api.call<{ Sources: Source[] }>("GET", `/stores/${enc(store.StoreId)}/sources`), loadSpecs(c.var.api)]);
  const sources = res.ok ? res.data.Sources : [];
  return c.render(
    <>
      <StoreNav store={store} current="Sources" />
      <ReadError res={res} />
      <Table
        caption="Sources"
        headers={["Name", "Marketplace", "Enabled", "Last cycle", "Imported", "Pending", "Failed", "Last error"]}
        rows={sources.map((s) => [
          <a href={`${base}/sources/${enc(s.SourceId)}`}>{s.Name}</a>,
          marketplaceName(s.Type),
          s.Enabled ? "Yes" : "No",
          when(s.Status.DateLastCycleEnded),
          String(s.Status.ImportedTotal),
          String(s.Status.DeliveriesPending),
          String(s.Status.DeliveriesFailed),
          s.Status.LastError || "—",
        ])}
        empty="no source yet."
      />
      <section aria-labelledby="add-source-h">
        <h2 id="add-source-h">Add a source</h2>
        <p class="hint">Choose the marketplace: its form opens below it.</p>
        {types.map((spec) => {
          const formName = `add-${spec.type}`;
          const name = marketplaceName(spec.type);
          // A form the API refused stays open, its error at the field.
          const open = c.var.notice.form === formName;
          return (
            <details class="card add-source" data-type={spec.type} open={open}>
              <summary id={`${formName}-h`}>{`Add ${withArticle(name)} source`}</summary>
              <PostForm action={`${base}/sources`} name={formName} fields={["Name", ...Object.keys(spec.schema.properties ?? {}).map((k) => `Settings.${k}`)]}>
                <input type="hidden" name="Type" value={spec.type} />
                <Field form={formName} name="Name" label="Name" required hint="Orders it imports carry this as their OrderSource." attrs={{ maxlength: 200 }} />
                <fieldset>
                  <legend>{`${name.charAt(0).toUpperCase()}${name.slice(1)} settings`}</legend>
                  <SettingsFields form={formName} spec={spec} />
                </fieldset>
                <button type="submit">{`Add ${withArticle(name)} source`}</button>
              </PostForm>
            </details>
          );
        })}
      </section>
    </>,
    { title: "Marketplace sources", crumbs: storeCrumbs(store) },
  );
}

async function sourcePage(c: C) {
  const store = c.var.store;
  const api = c.var.api;
  const path = sourceApi(c);
  const base = sourceUrl(c);
  const filter = listingsFilter(c);
  const [res, pending, failedRows, setAside, listings, types] = await Promise.all([
    api.call<{ Source: Source }>("GET", path),
    api.call<{ Deliveries: Delivery[] }>("GET", `${path}/deliveries?status=pending`),
    api.call<{ Deliveries: Delivery[] }>("GET", `${path}/deliveries?status=failed`),
    api.call<{ SetAside: SetAsideOrder[] }>("GET", `${path}/set-aside`),
    loadListings(c, path, filter),
    loadSpecs(api).catch(() => [] as SettingsSpec[]),
  ]);
  const crumbs = storeCrumbs(store, ["Sources", `${storeBase(store)}/sources`]);
  if (!res.ok) return notFound(c, "Source not found", res, undefined, storeCrumbs(store));
  const s = res.data.Source;
  const st = s.Status;
  const spec = types.find((t) => t.type === s.Type);
  // The API's refusal of a filter value is shown under that field of the filter form.
  if (!listings.ok && !c.var.notice.error) c.set("notice", { form: "listings", error: listings.message, field: fieldOf(listings.message) });
  const last = st.RecentCycles[0];
  const done = doneNotice(c, {
    added: () => `Source '${s.Name}' added.`,
    synced: () =>
      !last
        ? "Sync done."
        : last.Error
          ? `Sync ran with an error: ${last.Error}`
          : `Sync done: ${last.OrdersFetched} orders fetched, ${last.OrdersImported} imported, ${last.Delivered} deliveries sent.`,
    switched: () => `Source ${s.Enabled ? "enabled" : "disabled"}.`,
    retried: () => `${countParam(c, "n")} deliveries will be tried again on the next cycle.`,
    dismissed: () => {
      const number = c.req.query("order") ?? "";
      return ORDER_NUMBER.test(number) ? `Set-aside order ${number} dismissed.` : "Set-aside order dismissed.";
    },
    remapped: () =>
      `${countParam(c, "retried")} set-aside orders mapped again: ${countParam(c, "imported")} imported, ${countParam(c, "still")} still set aside.`,
  });
  const deliveryRows = (rows: Delivery[]) =>
    rows.map((d) => [
      <a href={`${storeBase(store)}/orders/${enc(d.OrderId)}`}>{d.OrderId}</a>,
      d.Kind,
      String(d.Attempts),
      when(d.DateNextAttempt),
      d.LastError || "—",
    ]);
  const setAsideList = setAside.ok ? setAside.data.SetAside : [];
  const failedList = failedRows.ok ? failedRows.data.Deliveries : [];
  return c.render(
    <>
      <StoreNav store={store} current="Sources" />
      <dl class="facts">
        <dt>Marketplace</dt>
        <dd>{marketplaceName(s.Type)}</dd>
        <dt>Enabled</dt>
        <dd>{s.Enabled ? "Yes" : "No"}</dd>
        <dt>Settings</dt>
        <dd>
          <dl class="settings" id="source-settings">
            {Object.entries(s.Settings).map(([name, value]) => (
              <>
                <dt>{settingLabel(name, spec?.schema.properties?.[name])}</dt>
                <dd>{typeof value === "string" ? value : <code>{JSON.stringify(value)}</code>}</dd>
              </>
            ))}
          </dl>
        </dd>
        <dt>Last cycle</dt>
        <dd>
          {when(st.DateLastCycleStarted)} to {when(st.DateLastCycleEnded)}: {st.LastCycleImported} imported
        </dd>
        <dt>Imported in all</dt>
        <dd>{st.ImportedTotal}</dd>
        <dt>Deliveries</dt>
        <dd>
          {st.DeliveriesPending} pending, {st.DeliveriesSubmitted} submitted, {st.DeliveriesFailed} failed
        </dd>
        <dt>Set aside</dt>
        <dd>{st.SetAside} orders the connector could not map</dd>
        <dt>Last error</dt>
        <dd>{st.LastError || "none"}</dd>
        <dt>Imported up to</dt>
        <dd>{when(st.Cursor)}</dd>
      </dl>
      <div class="actions">
        <PostForm action={`${base}/sync`} name="sync">
          <button type="submit" disabled={!s.Enabled} aria-describedby={s.Enabled ? undefined : "sync-disabled"}>
            Sync now
          </button>
          {s.Enabled ? null : (
            <p class="hint" id="sync-disabled">
              Enable the source to sync it.
            </p>
          )}
        </PostForm>
        <PostForm action={`${base}/enabled`} name="enabled">
          <input type="hidden" name="Enabled" value={s.Enabled ? "false" : "true"} />
          <button type="submit">{s.Enabled ? "Disable" : "Enable"} source</button>
        </PostForm>
      </div>
      <h2 id="pending">Pending deliveries</h2>
      <Table
        caption="Pending deliveries"
        headers={["Order", "Kind", "Attempts", "Next attempt", "Last error"]}
        rows={pending.ok ? deliveryRows(pending.data.Deliveries) : []}
        empty="none."
      />
      <h2 id="failed">Failed deliveries</h2>
      <Table caption="Failed deliveries" headers={["Order", "Kind", "Attempts", "Next attempt", "Last error"]} rows={deliveryRows(failedList)} empty="none." />
      {failedList.length ? (
        <PostForm action={`${base}/retry`} name="retry">
          <button type="submit">Retry failed deliveries</button>
        </PostForm>
      ) : null}
      <h2 id="cycles">Recent cycles</h2>
      <Table
        caption="Recent cycles"
        headers={["Started", "Fetched", "Imported", "Set aside", "Delivered", "Failed", "Error"]}
        rows={st.RecentCycles.map((y) => [
          when(y.DateStarted),
          String(y.OrdersFetched),
          String(y.OrdersImported),
          String(y.OrdersSetAside),
          String(y.Delivered),
          String(y.DeliveriesFailed),
          y.Error || "—",
        ])}
        empty="no cycle yet."
      />
      <ListingsSection res={listings} filter={filter} />
      <h2 id="set-aside">Set-aside orders</h2>
      {setAside.ok ? (
        <Table
          caption="Set-aside orders"
          headers={["Marketplace order", "Reason", "First seen", "Last seen", "Action"]}
          rows={setAsideList.map((o) => [
            o.OrderSourceOrderNumber,
            o.Reason,
            when(o.DateFirstSeen),
            when(o.DateLastSeen),
            <PostForm action={`${base}/set-aside/dismiss`} name={`dismiss-${o.OrderSourceOrderNumber}`}>
              <input type="hidden" name="OrderSourceOrderNumber" value={o.OrderSourceOrderNumber} />
              <button type="submit" aria-label={`Dismiss set-aside order ${o.OrderSourceOrderNumber}`}>
                Dismiss
              </button>
            </PostForm>,
          ])}
          empty="none."
        />
      ) : (
        <ReadError res={setAside} />
      )}
      {setAsideList.length ? (
        <PostForm action={`${base}/set-aside/retry`} name="set-aside">
          <button type="submit">Map set-aside orders again</button>
        </PostForm>
      ) : (
        <FormError form="set-aside" />
      )}
    </>,
    { title: `Source: ${s.Name}`, crumbs, done },
  );
}

export const sourcePages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => sourcesPage(c))
  .post("/", async (c) => {
    const body = await formOf(c);
    const type = text(body.Type);
    const spec = (await loadSpecs(c.var.api)).find((s) => s.type === type);
    const formName = `add-${type}`;
    if (!spec) return failed(c, sourcesPage, formName, { status: 400, message: `'Type' must be one of the listed types.` });
    const parsed = settingsFromForm(spec, body);
    if ("error" in parsed) return failed(c, sourcesPage, formName, { status: 400, message: parsed.error });
    const res = await c.var.api.call<{ Source: Source }>("POST", `/stores/${enc(c.var.store.StoreId)}/sources`, {
      Type: type,
      Name: text(body.Name),
      Settings: parsed.settings,
    });
    if (!res.ok) return failed(c, sourcesPage, formName, res);
    return back(c, `${storeBase(c.var.store)}/sources/${enc(res.data.Source.SourceId)}`, "added");
  })
  .get("/:sourceId", (c) => sourcePage(c))
  .post("/:sourceId/sync", async (c) => {
    const res = await c.var.api.call("POST", `/sync?sourceId=${enc(c.req.param("sourceId"))}`);
    if (!res.ok) return failed(c, sourcePage, "sync", res);
    return back(c, sourceUrl(c), "synced");
  })
  .post("/:sourceId/enabled", async (c) => {
    const res = await c.var.api.call("PATCH", sourceApi(c), { Enabled: (await formOf(c)).Enabled === "true" });
    if (!res.ok) return failed(c, sourcePage, "enabled", res);
    return back(c, sourceUrl(c), "switched");
  })
  .post("/:sourceId/retry", async (c) => {
    const res = await c.var.api.call<{ Retried: number }>("POST", `${sourceApi(c)}/deliveries/retry`);
    if (!res.ok) return failed(c, sourcePage, "retry", res);
    return back(c, sourceUrl(c), "retried", { n: res.data.Retried });
  })
  // The marketplace cancelled it, or the seller handles it by hand: the order leaves the list.
  // The number travels in the form; the admin API's path then carries it encoded. A number that
  // is "." or ".." cannot be addressed there (URL parsing drops such a segment, encoded or not):
  // the API answers 404 and the page says so.
  .post("/:sourceId/set-aside/dismiss", async (c) => {
    const number = text((await formOf(c)).OrderSourceOrderNumber);
    const res = await c.var.api.call("DELETE", `${sourceApi(c)}/set-aside/${enc(number)}`);
    if (!res.ok) return failed(c, sourcePage, "set-aside", res);
    return back(c, sourceUrl(c), "dismissed", { order: number });
  })
  .post("/:sourceId/set-aside/retry", async (c) => {
    const res = await c.var.api.call<SetAsideRetry>("POST", `${sourceApi(c)}/set-aside/retry`);
    if (!res.ok) return failed(c, sourcePage, "set-aside", res);
    return back(c, sourceUrl(c), "remapped", { retried: res.data.Retried, imported: res.data.Imported, still: res.data.StillSetAside });
  });
