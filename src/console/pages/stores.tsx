// Console pages: the store list, creating a store, one store's settings (rename, PII masking,
// delete with confirmation).
import { Checkbox, Field, PostForm, StoreNav, Table, ApiError, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, formOf, text, withStore, type C } from "../context";
import type { Store } from "../wire";

async function storesPage(c: C) {
  const res = await c.var.api.call<{ Stores: Store[] }>("GET", "/stores");
  const stores = res.ok ? res.data.Stores : [];
  return c.render(
    <>
      <ApiError res={res} />
      <Table
        caption="Stores"
        headers={["Name", "StoreId", "Buyer PII masked", "Created"]}
        rows={stores.map((s) => [<a href={storeBase(s)}>{s.Name}</a>, <code>{s.StoreId}</code>, s.MaskBuyerPii ? "Yes" : "No", when(s.DateCreated)])}
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
    { title: "Stores", done: doneNotice(c, { deleted: () => "Store deleted." }) },
  );
}

function storePage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  const done = doneNotice(c, {
    created: () => `Store '${store.Name}' created.`,
    renamed: () => "Name saved.",
    masking: () => `Buyer PII masking is ${store.MaskBuyerPii ? "on" : "off"}.`,
  });
  return c.render(
    <>
      <StoreNav store={store} current="Settings" />
      <dl class="facts">
        <dt>StoreId</dt>
        <dd>
          <code>{store.StoreId}</code>
        </dd>
        <dt>Created</dt>
        <dd>{when(store.DateCreated)}</dd>
      </dl>
      <section class="card" aria-labelledby="rename-h">
        <h2 id="rename-h">Rename</h2>
        <PostForm action={`${base}/rename`} name="rename" fields={["Name"]}>
          <Field form="rename" name="Name" label="Name" required value={store.Name} attrs={{ maxlength: 200 }} />
          <button type="submit">Save name</button>
        </PostForm>
      </section>
      <section class="card" aria-labelledby="pii-h">
        <h2 id="pii-h">Buyer PII masking</h2>
        <PostForm action={`${base}/masking`} name="masking">
          <p>
            Masking is <strong>{store.MaskBuyerPii ? "on" : "off"}</strong>: orders answer the buyer's e-mail and phone {store.MaskBuyerPii ? "masked" : "in full"}.
          </p>
          <input type="hidden" name="MaskBuyerPii" value={store.MaskBuyerPii ? "false" : "true"} />
          <button type="submit">Turn masking {store.MaskBuyerPii ? "off" : "on"}</button>
        </PostForm>
      </section>
      <section class="card danger" aria-labelledby="delete-h">
        <h2 id="delete-h">Delete this store</h2>
        <p>Every token of its consumer keys stops working at once.</p>
        <p>
          <a class="button danger" href={`${base}/delete`}>
            Delete store…
          </a>
        </p>
      </section>
    </>,
    { title: `Store: ${store.Name}`, crumbs: [["Stores", "/console"]], done },
  );
}

function deleteStorePage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  return c.render(
    <PostForm action={`${base}/delete`} name="delete-store" class="card danger">
      <p>
        The store <strong>{store.Name}</strong> will be deleted and every token of its keys refused from now on. Its orders stay in the database but no key can read them.
      </p>
      <button type="submit" class="danger">
        Yes, delete the store
      </button>{" "}
      <a href={base}>Cancel</a>
    </PostForm>,
    { title: `Delete store ${store.Name}?`, crumbs: storeCrumbs(store) },
  );
}

const storeApi = (c: C) => `/stores/${enc(c.req.param("storeId") ?? "")}`;

export const storePages = consoleRouter()
  .get("/", (c) => storesPage(c))
  .post("/stores", async (c) => {
    const body = await formOf(c);
    const res = await c.var.api.call<{ Store: Store }>("POST", "/stores", { Name: text(body.Name), MaskBuyerPii: body.MaskBuyerPii === "on" });
    if (!res.ok) return failed(c, storesPage, "create-store", res);
    return back(c, storeBase(res.data.Store), "created");
  })
  .get("/stores/:storeId", withStore, (c) => storePage(c))
  .post("/stores/:storeId/rename", withStore, async (c) => {
    const res = await c.var.api.call<{ Store: Store }>("PATCH", storeApi(c), { Name: text((await formOf(c)).Name) });
    if (!res.ok) return failed(c, storePage, "rename", res);
    return back(c, storeBase(c.var.store), "renamed");
  })
  .post("/stores/:storeId/masking", withStore, async (c) => {
    const res = await c.var.api.call<{ Store: Store }>("PATCH", storeApi(c), { MaskBuyerPii: (await formOf(c)).MaskBuyerPii === "true" });
    if (!res.ok) return failed(c, storePage, "masking", res);
    return back(c, storeBase(c.var.store), "masking");
  })
  .get("/stores/:storeId/delete", withStore, (c) => deleteStorePage(c))
  .post("/stores/:storeId/delete", withStore, async (c) => {
    const res = await c.var.api.call("DELETE", storeApi(c));
    if (!res.ok) return failed(c, deleteStorePage, "delete-store", res);
    return back(c, "/console", "deleted");
  });
