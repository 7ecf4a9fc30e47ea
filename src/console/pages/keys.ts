// Console pages: a store's consumer keys: list, create (the key shown once, with a copy button),
// revoke with confirmation.
import { html } from "hono/html";
import { SCOPES } from "../../auth/scopes";
import { LIFESPANS } from "../../auth/tokens";
import { enc, str, type C, type Kit, type Router, type Row } from "../kit";
import { checkbox, csrfField, field, formError, page, select, table, when, type Notice } from "../layout";

export function keyPages(router: Router, kit: Kit) {
  const { api, ctxOf, back, failed, form, loadStore, storeNav, storeCrumbs } = kit;

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

}
