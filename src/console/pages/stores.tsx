// Console pages: the hub overview (home) with creating a store, a store's overview (its first
// tab), one store's settings (rename, PII masking, its shard, a move to another and giving it up
// before it switches, delete with confirmation).
import { Field, PostForm, Select, StoreNav, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, formOf, text, withStore, type C } from "../context";
import type { ShardView, Store, StoreMove } from "../wire";
import { hubPage, storeOverviewPage } from "./overview";

async function storePage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  const done = doneNotice(c, {
    renamed: () => "Name saved.",
    masking: () => `Buyer PII masking is ${store.MaskBuyerPii ? "on" : "off"}.`,
    moving: () => "The move has started; this page shows how far it is.",
    "move-given-up": () => "The move is being given up: the store stays where it is and the partial copy is removed.",
  });
  const [shards, move] = await Promise.all([
    c.var.api.call<{ Shards: ShardView[] }>("GET", "/shards"),
    c.var.api.call<{ Move: StoreMove }>("GET", `/stores/${enc(store.StoreId)}/move`),
  ]);
  const targets = shards.ok ? shards.data.Shards.filter((s) => !s.Draining && s.Shard !== store.Shard) : [];
  const last = move.ok ? move.data.Move : null;
  const moving = last !== null && (last.Status === "copying" || last.Status === "switching");
  // Switched once the directory names the new shard (DELETE .../move then answers 409).
  const switched = last !== null && last.DateSwitched !== null;
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
            Masking is <strong>{store.MaskBuyerPii ? "on" : "off"}</strong>: orders answer the buyer's e-mail and phone{" "}
            {store.MaskBuyerPii ? "masked" : "in full"}.
          </p>
          <input type="hidden" name="MaskBuyerPii" value={store.MaskBuyerPii ? "false" : "true"} />
          <button type="submit">Turn masking {store.MaskBuyerPii ? "off" : "on"}</button>
        </PostForm>
      </section>
      <section class="card" aria-labelledby="shard-h">
        <h2 id="shard-h">Database</h2>
        <p>
          The store's data lives in shard <strong id="store-shard">{store.Shard}</strong>.
        </p>
        {last && (
          <p id="move-status">
            {moving ? "Moving" : "Last move"} from <strong>{last.FromShard}</strong> to <strong>{last.ToShard}</strong>: {last.Status} ({last.Phase}),{" "}
            {last.RowsCopied} rows copied, {last.ChangesApplied} changes replayed, {last.RowsRemoved} removed
            {last.WriteHoldMs !== null ? `, writes held ${last.WriteHoldMs} ms` : ""}.{last.Error ? ` Last error: ${last.Error}` : ""}
          </p>
        )}
        {moving && !switched && last.Phase !== "abandon" && (
          <PostForm action={`${base}/move/give-up`} name="give-up-move">
            <p class="hint">The move has not switched yet: giving it up keeps the store where it is and removes the partial copy.</p>
            <button type="submit" class="danger">
              Give up the move
            </button>
          </PostForm>
        )}
        {!moving && targets.length > 0 && (
          <PostForm action={`${base}/move`} name="move" fields={["Shard"]}>
            <Select
              form="move"
              name="Shard"
              label="Move to shard"
              options={targets.map((t) => [t.Shard, `${t.Shard} (${t.Stores} stores, ${t.Orders} orders)`] as const)}
            />
            <p class="hint">Reads go on throughout; writes answer 503 with Retry-After for the few seconds of the switch.</p>
            <button type="submit">Move the store</button>
          </PostForm>
        )}
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
    { title: "Store settings", crumbs: storeCrumbs(store), done },
  );
}

function deleteStorePage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  return c.render(
    <PostForm action={`${base}/delete`} name="delete-store" class="card danger">
      <p>
        The store <strong>{store.Name}</strong> will be deleted and every token of its keys refused from now on. Its orders stay in the database but no key can
        read them.
      </p>
      <button type="submit" class="danger">
        Yes, delete the store
      </button>{" "}
      <a href={`${base}/settings`}>Cancel</a>
    </PostForm>,
    { title: `Delete store ${store.Name}?`, crumbs: storeCrumbs(store) },
  );
}

const storeApi = (c: C) => `/stores/${enc(c.req.param("storeId") ?? "")}`;

export const storePages = consoleRouter()
  .get("/", (c) => hubPage(c))
  .post("/stores", async (c) => {
    const body = await formOf(c);
    const res = await c.var.api.call<{ Store: Store }>("POST", "/stores", { Name: text(body.Name), MaskBuyerPii: body.MaskBuyerPii === "on" });
    if (!res.ok) return failed(c, hubPage, "create-store", res);
    return back(c, storeBase(res.data.Store), "created");
  })
  .get("/stores/:storeId", withStore, (c) => storeOverviewPage(c))
  .get("/stores/:storeId/settings", withStore, (c) => storePage(c))
  .post("/stores/:storeId/rename", withStore, async (c) => {
    const res = await c.var.api.call<{ Store: Store }>("PATCH", storeApi(c), { Name: text((await formOf(c)).Name) });
    if (!res.ok) return failed(c, storePage, "rename", res);
    return back(c, `${storeBase(c.var.store)}/settings`, "renamed");
  })
  .post("/stores/:storeId/masking", withStore, async (c) => {
    const res = await c.var.api.call<{ Store: Store }>("PATCH", storeApi(c), { MaskBuyerPii: (await formOf(c)).MaskBuyerPii === "true" });
    if (!res.ok) return failed(c, storePage, "masking", res);
    return back(c, `${storeBase(c.var.store)}/settings`, "masking");
  })
  .post("/stores/:storeId/move", withStore, async (c) => {
    const res = await c.var.api.call<{ Move: StoreMove }>("POST", `${storeApi(c)}/move`, { Shard: text((await formOf(c)).Shard) });
    if (!res.ok) return failed(c, storePage, "move", res);
    return back(c, `${storeBase(c.var.store)}/settings`, "moving");
  })
  .post("/stores/:storeId/move/give-up", withStore, async (c) => {
    const res = await c.var.api.call<{ Move: StoreMove }>("DELETE", `${storeApi(c)}/move`);
    if (!res.ok) return failed(c, storePage, "give-up-move", res);
    return back(c, `${storeBase(c.var.store)}/settings`, "move-given-up");
  })
  .get("/stores/:storeId/delete", withStore, (c) => deleteStorePage(c))
  .post("/stores/:storeId/delete", withStore, async (c) => {
    const res = await c.var.api.call("DELETE", storeApi(c));
    if (!res.ok) return failed(c, deleteStorePage, "delete-store", res);
    return back(c, "/console", "deleted");
  });
