// /console: the operator console. Server-rendered pages with plain forms (POST, then a redirect
// to the page with what was done), a little script for the copy button and the compile progress
// (public/console/console.js). Every read and write goes through the admin API in-process
// (admin-api.ts), so what a page shows is what the API answers; its errors are shown in words
// next to the form or field that caused them.
import type { Context } from "hono";
import { csrf } from "hono/csrf";
import { html } from "hono/html";
import { secureHeaders } from "hono/secure-headers";
import { createRouter, type AppEnv } from "../http/create-router";
import { limitBody, MiB } from "../http/transport";
import { adminApi, type AdminApi, type AppFetch } from "./admin-api";
import { checkbox, csrfField, field, fieldOf, formError, page, select, table, when, type Notice, type PageContext } from "./layout";
import { csrfMatches, endSession, readSession, startSession, type Session } from "./session";
import { settingsFields, settingsFromForm, settingsSpecs, type SettingsSpec } from "./settings-form";

type C = Context<AppEnv>;
type Row = Record<string, unknown>;

const SCOPES = ["FeedsRead", "OrdersCreate", "OrdersRead", "OrdersUpdate"];
const LIFESPANS = ["NeverExpires", "7Days", "14Days", "30Days"];
const ORDER_STATUSES = ["New", "Processing", "Shipped", "Canceled"];
const ORDERS_PER_PAGE = 25;

const enc = encodeURIComponent;
const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));

export function consoleRoutes(appFetch: AppFetch) {
  const api = (c: C) => adminApi(c, appFetch);
  const sessions = new WeakMap<Request, Session>();
  const session = (c: C) => sessions.get(c.req.raw)!;
  const ctxOf = (c: C, notice: Notice = {}): PageContext => ({
    csrf: session(c).csrf,
    notice: { done: c.req.query("done"), ...notice },
  });
  const back = (c: C, to: string, done: string) => c.redirect(`${to}${to.includes("?") ? "&" : "?"}done=${enc(done)}`, 303);

  /** A failed action: the page again, with the API's words next to the form (or field) that caused them. */
  function failed(c: C, render: (c: C, notice: Notice) => Promise<Response>, form: string, result: { status: number; message: string }) {
    return render(c, { form, error: result.message, field: fieldOf(result.message) }).then((response) => {
      return new Response(response.body, { status: result.status >= 400 && result.status < 500 ? result.status : 502, headers: response.headers });
    });
  }

  async function form(c: C): Promise<Record<string, string | File | (string | File)[]>> {
    return (await c.req.parseBody({ all: true })) as Record<string, string | File | (string | File)[]>;
  }

  const router = createRouter();

  router.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
      referrerPolicy: "same-origin",
    }),
    // A form posted from another origin is refused before anything else (Origin / Sec-Fetch-Site).
    csrf(),
    limitBody(16 * MiB),
    async (c, next) => {
      c.header("Cache-Control", "no-store");
      await next();
    },
  );

  // ---- Sign in and out ----------------------------------------------------------------------
  const loginPage = (c: C, error?: string, status: 200 | 401 = 200) =>
    c.html(
      page(
        "Sign in",
        html`<form method="post" action="/console/login" class="card narrow">
  <p>Sign in with the service's admin key (the <code>ADMIN_API_KEY</code> secret). The key is exchanged for a session cookie that lasts 8 hours; the browser never keeps the key.</p>
  <div class="field">
    <label for="login-key">Admin key</label>
    <input id="login-key" name="key" type="password" autocomplete="current-password" required${error ? html` aria-invalid="true" aria-describedby="login-error"` : ""}>
    ${error ? html`<p class="error" role="alert" id="login-error">${error}</p>` : ""}
  </div>
  <button type="submit">Sign in</button>
</form>`,
      ),
      status,
    );

  router.get("/login", async (c) => {
    if (await readSession(c)) return c.redirect("/console", 303);
    return loginPage(c);
  });

  router.post("/login", async (c) => {
    const body = await form(c);
    const key = typeof body.key === "string" ? body.key.trim() : "";
    // The key is checked by the admin API itself: 200 on a harmless read means it is the key.
    const probe = key ? await adminApi(c, appFetch, key).call("GET", "/maintenance") : { ok: false as const, status: 403, message: "" };
    if (!probe.ok) return loginPage(c, key ? "That admin key is not valid. Check the ADMIN_API_KEY secret." : "Enter the admin key.", 401);
    await startSession(c);
    return c.redirect("/console", 303);
  });

  // Everything below needs a session; a state-changing request also needs its CSRF token.
  router.use("*", async (c, next) => {
    const current = await readSession(c);
    if (!current) {
      if (c.req.method === "GET") return c.redirect("/console/login", 303);
      return c.text("Your session has ended; sign in again.", 401);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const body = await form(c);
      if (!csrfMatches(current, body._csrf ?? c.req.header("x-csrf-token"))) {
        return c.text("This form has expired or did not come from the console; reload the page and try again.", 403);
      }
    }
    sessions.set(c.req.raw, current);
    await next();
  });

  router.post("/logout", (c) => {
    endSession(c);
    return c.redirect("/console/login", 303);
  });

  // ---- Stores -------------------------------------------------------------------------------
  async function storesPage(c: C, notice: Notice = {}) {
    const ctx = ctxOf(c, notice);
    const res = await api(c).call<{ Stores: Row[] }>("GET", "/stores");
    const stores = res.ok ? res.data.Stores : [];
    return c.html(
      page(
        "Stores",
        html`${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
${table(
  "Stores",
  ["Name", "StoreId", "Buyer PII masked", "Created"],
  stores.map((s) => [html`<a href="/console/stores/${enc(str(s.StoreId))}">${str(s.Name)}</a>`, html`<code>${str(s.StoreId)}</code>`, s.MaskBuyerPii ? "Yes" : "No", when(s.DateCreated)]),
  "no store yet; create one below.",
)}
<section class="card" aria-labelledby="create-store-h">
  <h2 id="create-store-h">Create a store</h2>
  <form method="post" action="/console/stores">
    ${csrfField(ctx.csrf)}${formError(ctx, "create-store", ["Name"])}
    ${field(ctx, { form: "create-store", name: "Name", label: "Name", required: true, attrs: 'maxlength="200"' })}
    ${checkbox({ form: "create-store", name: "MaskBuyerPii", label: "Mask buyer e-mail and phone in answers" })}
    <button type="submit">Create store</button>
  </form>
</section>`,
        { ctx },
      ),
    );
  }
  router.get("/", (c) => storesPage(c));
  router.post("/stores", async (c) => {
    const body = await form(c);
    const res = await api(c).call<{ Store: Row }>("POST", "/stores", { Name: str(body.Name), MaskBuyerPii: body.MaskBuyerPii === "on" });
    if (!res.ok) return failed(c, storesPage, "create-store", res);
    return back(c, `/console/stores/${enc(str(res.data.Store.StoreId))}`, `Store '${str(res.data.Store.Name)}' created.`);
  });

  async function loadStore(c: C): Promise<{ store: Row } | Response> {
    const res = await api(c).call<{ Store: Row }>("GET", `/stores/${enc(c.req.param("storeId") ?? "")}`);
    if (!res.ok) return c.html(page("Store not found", html`<p class="error" role="alert">${res.message}</p><p><a href="/console">All stores</a></p>`, { ctx: ctxOf(c) }), res.status === 404 ? 404 : 502);
    return { store: res.data.Store };
  }

  const storeNav = (store: Row, current: string) => {
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    const items: [string, string][] = [["Settings", base], ["Consumer keys", `${base}/keys`], ["Sources", `${base}/sources`], ["Orders", `${base}/orders`], ["Feeds", `${base}/feeds`]];
    return html`<nav aria-label="Store" class="tabs"><ul>${items.map(
      ([label, href]) => html`<li><a href="${href}"${label === current ? html` aria-current="page"` : ""}>${label}</a></li>`,
    )}</ul></nav>`;
  };
  const storeCrumbs = (store: Row): [string, string][] => [["Stores", "/console"], [str(store.Name), `/console/stores/${enc(str(store.StoreId))}`]];

  async function storePage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    return c.html(
      page(
        `Store: ${str(store.Name)}`,
        html`${storeNav(store, "Settings")}
<dl class="facts"><dt>StoreId</dt><dd><code>${str(store.StoreId)}</code></dd><dt>Created</dt><dd>${when(store.DateCreated)}</dd></dl>
<section class="card" aria-labelledby="rename-h">
  <h2 id="rename-h">Rename</h2>
  <form method="post" action="${base}/rename">${csrfField(ctx.csrf)}${formError(ctx, "rename", ["Name"])}
    ${field(ctx, { form: "rename", name: "Name", label: "Name", required: true, value: str(store.Name), attrs: 'maxlength="200"' })}
    <button type="submit">Save name</button>
  </form>
</section>
<section class="card" aria-labelledby="pii-h">
  <h2 id="pii-h">Buyer PII masking</h2>
  <form method="post" action="${base}/masking">${csrfField(ctx.csrf)}${formError(ctx, "masking")}
    <p>Masking is <strong>${store.MaskBuyerPii ? "on" : "off"}</strong>: orders answer the buyer's e-mail and phone ${store.MaskBuyerPii ? "masked" : "in full"}.</p>
    <input type="hidden" name="MaskBuyerPii" value="${store.MaskBuyerPii ? "false" : "true"}">
    <button type="submit">Turn masking ${store.MaskBuyerPii ? "off" : "on"}</button>
  </form>
</section>
<section class="card danger" aria-labelledby="delete-h">
  <h2 id="delete-h">Delete this store</h2>
  <p>Every token of its consumer keys stops working at once.</p>
  <p><a class="button danger" href="${base}/delete">Delete store…</a></p>
</section>`,
        { ctx, crumbs: [["Stores", "/console"]] },
      ),
    );
  }
  router.get("/stores/:storeId", (c) => storePage(c));
  router.post("/stores/:storeId/rename", async (c) => {
    const body = await form(c);
    const res = await api(c).call("PATCH", `/stores/${enc(c.req.param("storeId"))}`, { Name: str(body.Name) });
    if (!res.ok) return failed(c, storePage, "rename", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}`, "Name saved.");
  });
  router.post("/stores/:storeId/masking", async (c) => {
    const body = await form(c);
    const res = await api(c).call("PATCH", `/stores/${enc(c.req.param("storeId"))}`, { MaskBuyerPii: body.MaskBuyerPii === "true" });
    if (!res.ok) return failed(c, storePage, "masking", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}`, `Buyer PII masking is ${body.MaskBuyerPii === "true" ? "on" : "off"}.`);
  });
  async function deleteStorePage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const ctx = ctxOf(c, notice);
    const base = `/console/stores/${enc(str(loaded.store.StoreId))}`;
    return c.html(
      page(
        `Delete store ${str(loaded.store.Name)}?`,
        html`<form method="post" action="${base}/delete" class="card danger">${csrfField(ctx.csrf)}${formError(ctx, "delete-store")}
  <p>The store <strong>${str(loaded.store.Name)}</strong> will be deleted and every token of its keys refused from now on. Its orders stay in the database but no key can read them.</p>
  <button type="submit" class="danger">Yes, delete the store</button> <a href="${base}">Cancel</a>
</form>`,
        { ctx, crumbs: storeCrumbs(loaded.store) },
      ),
    );
  }
  router.get("/stores/:storeId/delete", (c) => deleteStorePage(c));
  router.post("/stores/:storeId/delete", async (c) => {
    const res = await api(c).call("DELETE", `/stores/${enc(c.req.param("storeId"))}`);
    if (!res.ok) return failed(c, deleteStorePage, "delete-store", res);
    return back(c, "/console", "Store deleted.");
  });

  // ---- Consumer keys ------------------------------------------------------------------------
  async function keysPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    const res = await api(c).call<{ ConsumerKeys: Row[] }>("GET", `/stores/${enc(str(store.StoreId))}/consumer-keys`);
    const keys = res.ok ? res.data.ConsumerKeys : [];
    return c.html(
      page(
        "Consumer keys",
        html`${storeNav(store, "Consumer keys")}${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
${table(
  "Consumer keys",
  ["Name", "ConsumerKeyId", "Scopes", "Lifespan", "Bucket", "Created", "Revoked", ""],
  keys.map((k) => [
    str(k.Name),
    html`<code>${str(k.ConsumerKeyId)}</code>`,
    (k.Scopes as string[]).join(", "),
    str(k.Lifespan),
    `${str(k.BucketSize ?? 50)} calls, ${str(k.LeakRatePerSecond ?? 2)}/s`,
    when(k.DateCreated),
    when(k.DateRevoked),
    k.DateRevoked ? "" : html`<a href="${base}/keys/${enc(str(k.ConsumerKeyId))}/revoke">Revoke<span class="visually-hidden"> ${str(k.Name)}</span>…</a>`,
  ]),
  "no key yet.",
)}
<section class="card" aria-labelledby="create-key-h">
  <h2 id="create-key-h">Create a consumer key</h2>
  <form method="post" action="${base}/keys">${csrfField(ctx.csrf)}${formError(ctx, "create-key", ["Name", "Lifespan", "BucketSize", "LeakRatePerSecond"])}
    ${field(ctx, { form: "create-key", name: "Name", label: "Name", required: true, attrs: 'maxlength="200"' })}
    <fieldset><legend>Scopes</legend>${SCOPES.map((s) => checkbox({ form: "create-key", name: "Scopes", value: s, label: s, checked: true }))}</fieldset>
    ${select(ctx, { form: "create-key", name: "Lifespan", label: "Lifespan of its tokens", required: true, value: "NeverExpires", options: LIFESPANS.map((l) => [l, l]) })}
    ${field(ctx, { form: "create-key", name: "BucketSize", label: "Bucket size (calls)", type: "number", hint: "Default 50.", attrs: 'min="1" step="1"' })}
    ${field(ctx, { form: "create-key", name: "LeakRatePerSecond", label: "Leak rate (calls a second)", type: "number", hint: "Default 2.", attrs: 'min="0.001" step="any"' })}
    <button type="submit">Create key</button>
  </form>
</section>`,
        { ctx, crumbs: storeCrumbs(store) },
      ),
    );
  }
  router.get("/stores/:storeId/keys", (c) => keysPage(c));
  router.post("/stores/:storeId/keys", async (c) => {
    const body = await form(c);
    const scopes = ([] as unknown[]).concat(body.Scopes ?? []).map(str);
    const payload: Row = { Name: str(body.Name), Scopes: scopes, Lifespan: str(body.Lifespan) };
    for (const name of ["BucketSize", "LeakRatePerSecond"]) if (str(body[name]).trim()) payload[name] = Number(body[name]);
    const res = await api(c).call<{ ConsumerKey: Row }>("POST", `/stores/${enc(c.req.param("storeId"))}/consumer-keys`, payload);
    if (!res.ok) return failed(c, keysPage, "create-key", res);
    const key = res.data.ConsumerKey;
    const ctx = ctxOf(c);
    // Shown here once: not a redirect, and never cached.
    return c.html(
      page(
        "Consumer key created",
        html`<section class="card" aria-labelledby="key-h">
  <h2 id="key-h">${str(key.Name)}</h2>
  <p class="warning" role="alert"><strong>Copy the key now: it will not be shown again.</strong> Only its SHA-256 is stored.</p>
  <div class="field">
    <label for="new-key">Consumer key</label>
    <div class="copy-row"><input id="new-key" type="text" readonly value="${str(key.Key)}" class="mono"><button type="button" data-copy="new-key">Copy</button></div>
    <p class="hint" aria-live="polite" id="new-key-copied"></p>
  </div>
  <p>Scopes: ${(key.Scopes as string[]).join(", ")}. Lifespan: ${str(key.Lifespan)}.</p>
  <p><a href="/console/stores/${enc(c.req.param("storeId"))}/keys">Back to the keys</a></p>
</section>`,
        { ctx },
      ),
    );
  });
  async function revokePage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const ctx = ctxOf(c, notice);
    const base = `/console/stores/${enc(str(loaded.store.StoreId))}`;
    const keyId = c.req.param("keyId") ?? "";
    return c.html(
      page(
        "Revoke this key?",
        html`<form method="post" action="${base}/keys/${enc(keyId)}/revoke" class="card danger">${csrfField(ctx.csrf)}${formError(ctx, "revoke")}
  <p>Key <code>${keyId}</code> will be refused from its next call, with every token made from it. This cannot be undone.</p>
  <button type="submit" class="danger">Yes, revoke the key</button> <a href="${base}/keys">Cancel</a>
</form>`,
        { ctx, crumbs: storeCrumbs(loaded.store) },
      ),
    );
  }
  router.get("/stores/:storeId/keys/:keyId/revoke", (c) => revokePage(c));
  router.post("/stores/:storeId/keys/:keyId/revoke", async (c) => {
    const res = await api(c).call("DELETE", `/consumer-keys/${enc(c.req.param("keyId"))}`);
    if (!res.ok) return failed(c, revokePage, "revoke", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}/keys`, "Key revoked.");
  });

  // ---- Marketplace sources ------------------------------------------------------------------
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
    const path = `/stores/${enc(str(store.StoreId))}/sources/${enc(c.req.param("sourceId") ?? "")}`;
    const base = `/console${path}`;
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
      ["Marketplace order", "Reason", "First seen", "Last seen"],
      setAsideList.map((o) => [str(o.OrderSourceOrderNumber), str(o.Reason), when(o.DateFirstSeen), when(o.DateLastSeen)]),
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
  const sourceUrl = (c: C) => `/console/stores/${enc(c.req.param("storeId") ?? "")}/sources/${enc(c.req.param("sourceId") ?? "")}`;
  const sourceApi = (c: C) => `/stores/${enc(c.req.param("storeId") ?? "")}/sources/${enc(c.req.param("sourceId") ?? "")}`;
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

  router.post("/stores/:storeId/sources/:sourceId/set-aside/retry", async (c) => {
    const res = await api(c).call<{ Retried: number; Imported: number; StillSetAside: number }>("POST", `${sourceApi(c)}/set-aside/retry`);
    if (!res.ok) return failed(c, sourcePage, "set-aside", res);
    return back(c, sourceUrl(c), `${res.data.Retried} set-aside orders mapped again: ${res.data.Imported} imported, ${res.data.StillSetAside} still set aside.`);
  });

  // ---- Orders -------------------------------------------------------------------------------
  async function ordersPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const q = { orderNumber: c.req.query("orderNumber") ?? "", status: c.req.query("status") ?? "", fromDate: c.req.query("fromDate") ?? "", toDate: c.req.query("toDate") ?? "" };
    const pageNo = Math.max(1, Math.floor(Number(c.req.query("page") ?? "1")) || 1);
    const params = new URLSearchParams({ page: String(pageNo), pageSize: String(ORDERS_PER_PAGE) });
    for (const [k, v] of Object.entries(q)) if (v.trim()) params.set(k, v.trim());
    // A day picked as "Created to" includes that whole day.
    if (/^\d{4}-\d{2}-\d{2}$/.test(q.toDate.trim())) params.set("toDate", `${q.toDate.trim()}T23:59:59.999Z`);
    const res = await api(c).call<{ Orders: Row[] }>("GET", `/stores/${enc(str(store.StoreId))}/orders?${params}`);
    const orders = res.ok ? res.data.Orders : [];
    const searchCtx: PageContext = res.ok ? ctx : { ...ctx, notice: { ...ctx.notice, form: "search", error: res.message, field: fieldOf(res.message) } };
    const link = (p: number) => {
      const l = new URLSearchParams(params);
      l.set("page", String(p));
      l.delete("pageSize");
      return `?${l}`;
    };
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    return c.html(
      page(
        "Orders",
        html`${storeNav(store, "Orders")}
<form method="get" class="card search" role="search" aria-label="Orders">
  ${formError(searchCtx, "search", ["orderNumber", "status", "fromDate", "toDate"])}
  ${field(searchCtx, { form: "search", name: "orderNumber", label: "Order number", value: q.orderNumber, hint: "Marketplace number, seller number or OrderId, exactly." })}
  ${select(searchCtx, { form: "search", name: "status", label: "Status", value: q.status, options: [["", "Any"], ...ORDER_STATUSES.map((s): [string, string] => [s, s])] })}
  ${field(searchCtx, { form: "search", name: "fromDate", label: "Created from", type: "date", value: q.fromDate })}
  ${field(searchCtx, { form: "search", name: "toDate", label: "Created to", type: "date", value: q.toDate, hint: "Days are UTC; both days are included." })}
  <button type="submit">Search</button>
</form>
${table(
  `Orders, page ${pageNo}`,
  ["OrderId", "Marketplace number", "Source", "Status", "Created", "Total", "Buyer"],
  orders.map((o) => [
    html`<a href="${base}/orders/${enc(str(o.OrderId))}">${str(o.OrderId)}</a>`,
    str(o.OrderSourceOrderNumber),
    str(o.OrderSource),
    str(o.OrderStatus),
    when(o.DateCreatedInOrderSource),
    str(o.GrandTotal),
    `${str(o.FirstName)} ${str(o.LastName)}`,
  ]),
  "no order matches.",
)}
<nav aria-label="Pages" class="pager">
  ${pageNo > 1 ? html`<a href="${link(pageNo - 1)}" rel="prev">Previous page</a>` : ""}
  ${orders.length === ORDERS_PER_PAGE && !q.orderNumber ? html`<a href="${link(pageNo + 1)}" rel="next">Next page</a>` : ""}
</nav>`,
        { ctx, crumbs: storeCrumbs(store) },
      ),
    );
  }
  router.get("/stores/:storeId/orders", (c) => ordersPage(c));
  router.get("/stores/:storeId/orders/:orderId", async (c) => {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c);
    const res = await api(c).call<{ Order: Row; Deliveries: Row[] }>("GET", `/stores/${enc(str(store.StoreId))}/orders/${enc(c.req.param("orderId"))}`);
    const crumbs: [string, string][] = [...storeCrumbs(store), ["Orders", `/console/stores/${enc(str(store.StoreId))}/orders`]];
    if (!res.ok) return c.html(page("Order not found", html`<p class="error" role="alert">${res.message}</p>`, { ctx, crumbs }), res.status === 404 ? 404 : 502);
    const o = res.data.Order;
    const facts: [string, unknown][] = [
      ["Status", o.OrderStatus],
      ["Source", `${str(o.OrderSource)} ${str(o.OrderSourceOrderNumber)}`],
      ["Seller number", o.OrderDestinationOrderNumber ?? "—"],
      ["Created at the marketplace", when(o.DateCreatedInOrderSource)],
      ["Updated", when(o.DateUpdated)],
      ["Shipped", when(o.DateShipped)],
      ["Tracking", o.ShipmentTrackingNumber ?? "—"],
      ["Buyer", `${str(o.FirstName)} ${str(o.LastName)}, ${str(o.BuyerEmailAddress)}, ${str(o.BuyerPhoneNumber)}`],
      ["Ship to", [o.ShipToCompanyName, o.Street1, o.Street2, o.City, o.StateOrProvince, o.PostalCode, o.Country].filter((v) => v).map(str).join(", ")],
      ["Shipping", `${str(o.ShippingMethod)} ${str(o.ShippingServiceName)}`],
      ["Totals", `Grand ${str(o.GrandTotal)}, sub ${str(o.SubTotal)}, shipping ${str(o.ShippingTotal)}`],
      ["Sync", `${str(o.SyncStatus)}${o.SyncUserErrorMessage ? `: ${str(o.SyncUserErrorMessage)}` : ""}`],
    ];
    return c.html(
      page(
        `Order ${str(o.OrderId)}`,
        html`${storeNav(store, "Orders")}
<dl class="facts">${facts.map(([k, v]) => html`<dt>${k}</dt><dd>${str(v)}</dd>`)}</dl>
${table("Items", ["Sku", "Name", "Quantity", "Unit price", "Tax", "Discount"], (o.OrderItems as Row[]).map((i) => [str(i.Sku), str(i.Name), str(i.Quantity), str(i.UnitPrice), str(i.SaleTaxCost), str(i.Discount)]))}
${table(
  "Deliveries to the marketplace",
  ["Kind", "Status", "Attempts", "Created", "Delivered", "Last error"],
  res.data.Deliveries.map((d) => [str(d.Kind), str(d.Status), str(d.Attempts), when(d.DateCreated), when(d.DateDelivered), str(d.LastError) || "—"]),
  "none.",
)}`,
        { ctx, crumbs },
      ),
    );
  });

  // ---- Feeds --------------------------------------------------------------------------------
  async function feedsPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const a = api(c);
    const sid = enc(str(store.StoreId));
    const [res, count] = await Promise.all([a.call<{ Feeds: Row[] }>("GET", `/stores/${sid}/feeds`), a.call<{ Count: number }>("GET", `/stores/${sid}/products/count`)]);
    const feeds = res.ok ? res.data.Feeds : [];
    const base = `/console/stores/${sid}`;
    return c.html(
      page(
        "Feeds",
        html`${storeNav(store, "Feeds")}${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
${table(
  "Feeds",
  ["Name", "Format", "Status", "Score", "Valid", "Warnings", "Errors", "Compiled"],
  feeds.map((f) => [
    html`<a href="${base}/feeds/${enc(str(f.FeedId))}">${str(f.Name)}</a>`,
    str(f.Format),
    str(f.Status),
    str(f.Score),
    str(f.CompilationValidCount),
    str(f.CompilationWarningCount),
    str(f.CompilationErrorCount),
    when(f.DateLastCompiled),
  ]),
  "no feed yet.",
)}
<section class="card" aria-labelledby="create-feed-h">
  <h2 id="create-feed-h">Create a feed</h2>
  <form method="post" action="${base}/feeds">${csrfField(ctx.csrf)}${formError(ctx, "create-feed", ["Name", "Format", "Template", "Columns", "CompileIntervalMinutes"])}
    ${field(ctx, { form: "create-feed", name: "Name", label: "Name", required: true, attrs: 'maxlength="200"' })}
    ${select(ctx, { form: "create-feed", name: "Format", label: "Format", required: true, value: "csv", options: [["csv", "CSV"], ["tsv", "TSV"]] })}
    ${select(ctx, { form: "create-feed", name: "Template", label: "Template", value: "google-shopping", options: [["google-shopping", "Google Shopping"]] })}
    <div class="field">
      <label for="create-feed-Columns">Columns <span class="optional">(optional: instead of the template's)</span></label>
      <p class="hint" id="create-feed-Columns-hint">One a line: <code>header=Field</code>, e.g. <code>id=Sku</code>.</p>
      <textarea id="create-feed-Columns" name="Columns" rows="4" aria-describedby="create-feed-Columns-hint"></textarea>
      ${ctx.notice.form === "create-feed" && ctx.notice.field === "Columns" ? html`<p class="error" role="alert">${ctx.notice.error}</p>` : ""}
    </div>
    ${field(ctx, { form: "create-feed", name: "CompileIntervalMinutes", label: "Compile every (minutes)", type: "number", hint: "At least 15; empty: only when asked.", attrs: 'min="15" step="1"' })}
    <button type="submit">Create feed</button>
  </form>
</section>
<section class="card" aria-labelledby="catalog-h">
  <h2 id="catalog-h">Catalog</h2>
  <p>${count.ok ? `${count.data.Count} products.` : count.message}</p>
  <form method="post" action="${base}/catalog" enctype="multipart/form-data">${csrfField(ctx.csrf)}${formError(ctx, "catalog", ["file"])}
    <div class="field"><label for="catalog-file">CSV file with a header row (Sku, Title, Description, Link, ImageLink, Price, Availability, …)</label>
    <input id="catalog-file" name="file" type="file" accept=".csv,text/csv" required></div>
    <button type="submit">Upload products</button>
  </form>
</section>`,
        { ctx, crumbs: storeCrumbs(store) },
      ),
    );
  }
  router.get("/stores/:storeId/feeds", (c) => feedsPage(c));
  router.post("/stores/:storeId/feeds", async (c) => {
    const body = await form(c);
    const payload: Row = { Name: str(body.Name), Format: str(body.Format) };
    const columns = str(body.Columns)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    if (columns.length) {
      const bad = columns.find((l) => !/^[^=]+=.+$/.test(l));
      if (bad) return failed(c, feedsPage, "create-feed", { status: 400, message: `'Columns': the line '${bad}' is not header=Field.` });
      payload.Columns = columns.map((l) => ({ Header: l.slice(0, l.indexOf("=")).trim(), Field: l.slice(l.indexOf("=") + 1).trim() }));
    } else if (str(body.Template)) payload.Template = str(body.Template);
    if (str(body.CompileIntervalMinutes).trim()) payload.CompileIntervalMinutes = Number(body.CompileIntervalMinutes);
    const res = await api(c).call<{ Feed: Row }>("POST", `/stores/${enc(c.req.param("storeId"))}/feeds`, payload);
    if (!res.ok) return failed(c, feedsPage, "create-feed", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}/feeds/${enc(str(res.data.Feed.FeedId))}`, `Feed '${str(res.data.Feed.Name)}' created.`);
  });
  router.post("/stores/:storeId/catalog", async (c) => {
    const body = await form(c);
    const file = body.file;
    if (!(file instanceof File) || file.size === 0) return failed(c, feedsPage, "catalog", { status: 400, message: "Choose a CSV file to upload." });
    const response = await api(c).raw("PUT", `/stores/${enc(c.req.param("storeId"))}/products`, { body: file.stream(), contentType: "text/csv" });
    const json = (await response.json().catch(() => null)) as Row | null;
    if (response.status !== 200 || !json) return failed(c, feedsPage, "catalog", { status: response.status, message: str(json?.Message) || `The service answered ${response.status}.` });
    const rejected = Number(json.RowsRejected);
    const first = (json.Rejections as Row[])[0];
    return back(
      c,
      `/console/stores/${enc(c.req.param("storeId"))}/feeds`,
      `${str(json.RowsUpserted)} products stored, ${rejected} rejected${first ? ` (row ${str(first.Row)}: ${str(first.Message)})` : ""}.`,
    );
  });

  const feedApi = (c: C) => `/feeds/${enc(c.req.param("feedId") ?? "")}`;
  async function feedPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const res = await api(c).call<{ Feed: Row }>("GET", feedApi(c));
    const crumbs: [string, string][] = [...storeCrumbs(store), ["Feeds", `/console/stores/${enc(str(store.StoreId))}/feeds`]];
    if (!res.ok || res.data.Feed.StoreId !== store.StoreId) {
      return c.html(page("Feed not found", html`<p class="error" role="alert">${res.ok ? "No such feed in this store." : res.message}</p>`, { ctx, crumbs }), 404);
    }
    const f = res.data.Feed;
    const base = `/console/stores/${enc(str(store.StoreId))}/feeds/${enc(str(f.FeedId))}`;
    const percent = f.Status === "Completed" || f.Status === "Failed" ? 100 : 0;
    return c.html(
      page(
        `Feed: ${str(f.Name)}`,
        html`${storeNav(store, "Feeds")}
<dl class="facts" id="feed-facts">
  <dt>Status</dt><dd id="feed-status">${str(f.Status)}${f.StatusMessage ? `: ${str(f.StatusMessage)}` : ""}</dd>
  <dt>Format</dt><dd>${str(f.Format)} (${f.Columns ? (f.Columns as Row[]).length : 0} columns; template ${str(f.Template)})</dd>
  <dt>Score</dt><dd id="feed-score">${str(f.Score)}</dd>
  <dt>Products</dt><dd id="feed-counts">${str(f.CompilationTotalCount)} read: ${str(f.CompilationValidCount)} valid (${str(f.CompilationWarningCount)} with warnings), ${str(f.CompilationErrorCount)} with errors</dd>
  <dt>File</dt><dd>${f.DateLastCompiled ? html`<a href="${base}/download" download>${str(f.FileName)}</a> (${str(f.FileSize)} bytes, compiled ${when(f.DateLastCompiled)})` : "not compiled yet"}</dd>
  <dt>Schedule</dt><dd>${f.CompileIntervalMinutes ? `every ${str(f.CompileIntervalMinutes)} minutes` : "only when asked"}</dd>
</dl>
<section class="card" aria-labelledby="compile-h">
  <h2 id="compile-h">Compile</h2>
  <form method="post" action="${base}/compile" data-compile="${base}/progress">${csrfField(ctx.csrf)}${formError(ctx, "compile")}
    <button type="submit">Compile now</button>
  </form>
  <div class="field">
    <label for="compile-progress">Progress</label>
    <progress id="compile-progress" max="100" value="${percent}" aria-describedby="compile-percent">${percent} %</progress>
    <p id="compile-percent" aria-live="polite">${percent} %</p>
  </div>
  <p class="error" role="alert" id="compile-error" hidden></p>
</section>
${table(
  "First problems of the last compile",
  ["Sku", "Errors", "Warnings"],
  ((f.Issues as Row[]) ?? []).map((i) => [str(i.Sku), (i.Errors as string[]).join("; ") || "—", (i.Warnings as string[]).join("; ") || "—"]),
  "none.",
)}`,
        { ctx, crumbs },
      ),
    );
  }
  router.get("/stores/:storeId/feeds/:feedId", (c) => feedPage(c));
  router.post("/stores/:storeId/feeds/:feedId/compile", async (c) => {
    const res = await api(c).call<{ Feed: Row }>("POST", `${feedApi(c)}/compile`);
    if (c.req.header("x-requested-with") === "fetch") {
      return c.json(res.ok ? { ok: true, status: res.data.Feed.Status } : { ok: false, message: res.message }, res.ok ? 200 : 400);
    }
    if (!res.ok) return failed(c, feedPage, "compile", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}/feeds/${enc(c.req.param("feedId"))}`, `Compile ${str(res.data.Feed.Status).toLowerCase()}.`);
  });
  // What the progress bar polls: the feed's status and how far the compile has read the catalog.
  router.get("/stores/:storeId/feeds/:feedId/progress", async (c) => {
    const a = api(c);
    const [feed, progress, count] = await Promise.all([
      a.call<{ Feed: Row }>("GET", feedApi(c)),
      a.call<{ Compile: Row | null }>("GET", `${feedApi(c)}/compile`),
      a.call<{ Count: number }>("GET", `/stores/${enc(c.req.param("storeId"))}/products/count`),
    ]);
    if (!feed.ok) return c.json({ ok: false, message: feed.message }, 404);
    const running = progress.ok && progress.data.Compile ? Boolean(progress.data.Compile.Running) : false;
    const rows = progress.ok && progress.data.Compile ? Number(progress.data.Compile.RowsCompiled) : 0;
    const total = count.ok ? count.data.Count : 0;
    const status = str(feed.data.Feed.Status);
    const finished = !running && status !== "Compiling";
    const percent = finished ? 100 : total > 0 ? Math.min(99, Math.floor((rows / total) * 100)) : 0;
    return c.json({ ok: true, status, running, percent, message: str(feed.data.Feed.StatusMessage) });
  });
  router.get("/stores/:storeId/feeds/:feedId/download", async (c) => {
    const response = await api(c).raw("GET", `${feedApi(c)}/download`);
    if (response.status !== 200) {
      const json = (await response.json().catch(() => null)) as Row | null;
      return c.html(page("Download", html`<p class="error" role="alert">${str(json?.Message) || `The service answered ${response.status}.`}</p>`, { ctx: ctxOf(c) }), 404);
    }
    const headers = new Headers();
    for (const name of ["content-type", "content-disposition", "content-length"]) {
      const value = response.headers.get(name);
      if (value) headers.set(name, value);
    }
    headers.set("cache-control", "no-store");
    return new Response(response.body, { status: 200, headers });
  });

  // ---- Maintenance --------------------------------------------------------------------------
  async function maintenancePage(c: C, notice: Notice = {}) {
    const ctx = ctxOf(c, notice);
    const res = await api(c).call<{ Maintenance: { Enabled: boolean; Message: string } }>("GET", "/maintenance");
    const m = res.ok ? res.data.Maintenance : null;
    return c.html(
      page(
        "Maintenance",
        html`${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
<p id="maintenance-state">Maintenance is <strong>${m?.Enabled ? "on" : "off"}</strong>${m?.Enabled ? html`: every /v1 call answers 503${m.Message ? html` with “${m.Message}”` : ""}.` : "."}</p>
<section class="card" aria-labelledby="maint-h">
  <h2 id="maint-h">${m?.Enabled ? "Turn maintenance off" : "Turn maintenance on"}</h2>
  <form method="post" action="/console/maintenance">${csrfField(ctx.csrf)}${formError(ctx, "maintenance", ["Message"])}
    <input type="hidden" name="Enabled" value="${m?.Enabled ? "false" : "true"}">
    ${m?.Enabled ? "" : field(ctx, { form: "maintenance", name: "Message", label: "Message to clients", hint: "Shown in every 503 while maintenance is on.", attrs: 'maxlength="500"' })}
    <button type="submit">${m?.Enabled ? "Turn maintenance off" : "Turn maintenance on"}</button>
  </form>
</section>`,
        { ctx },
      ),
    );
  }
  router.get("/maintenance", (c) => maintenancePage(c));
  router.post("/maintenance", async (c) => {
    const body = await form(c);
    const enabled = body.Enabled === "true";
    const payload: Row = { Enabled: enabled };
    if (enabled && str(body.Message).trim()) payload.Message = str(body.Message).trim();
    const res = await api(c).call("PUT", "/maintenance", payload);
    if (!res.ok) return failed(c, maintenancePage, "maintenance", res);
    return back(c, "/console/maintenance", `Maintenance is ${enabled ? "on" : "off"}.`);
  });

  return router;
}

