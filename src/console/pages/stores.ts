// Console pages: the store list, creating a store, one store's settings (rename, PII masking,
// delete with confirmation).
import { html } from "hono/html";
import { enc, str, type C, type Kit, type Router, type Row } from "../kit";
import { checkbox, csrfField, field, formError, page, table, when, type Notice } from "../layout";

export function storePages(router: Router, kit: Kit) {
  const { api, ctxOf, back, failed, form, loadStore, storeNav, storeCrumbs } = kit;

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

}
