// Console pages: a store's consumer keys: list, create (the key shown once, with a copy button),
// revoke with confirmation. Mounted at /console/stores/:storeId/keys.
import { SCOPES } from "../../auth/scopes";
import { LIFESPANS } from "../../auth/tokens";
import { ReadError, Checkbox, CopyField, Field, PostForm, Select, StoreNav, Table, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, formOf, text, withStore, type C } from "../context";
import type { ConsumerKey, NewConsumerKey } from "../wire";

async function keysPage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  const res = await c.var.api.call<{ ConsumerKeys: ConsumerKey[] }>("GET", `/stores/${enc(store.StoreId)}/consumer-keys`);
  const keys = res.ok ? res.data.ConsumerKeys : [];
  return c.render(
    <>
      <StoreNav store={store} current="Consumer keys" />
      <ReadError res={res} />
      <Table
        caption="Consumer keys"
        headers={["Name", "ConsumerKeyId", "Scopes", "Lifespan", "Bucket", "Created", "Revoked", ""]}
        rows={keys.map((k) => [
          k.Name,
          <code>{k.ConsumerKeyId}</code>,
          k.Scopes.join(", "),
          k.Lifespan,
          `${k.BucketSize ?? 50} calls, ${k.LeakRatePerSecond ?? 2}/s`,
          when(k.DateCreated),
          when(k.DateRevoked),
          k.DateRevoked ? (
            ""
          ) : (
            <a href={`${base}/keys/${enc(k.ConsumerKeyId)}/revoke`}>
              Revoke<span class="visually-hidden"> {k.Name}</span>…
            </a>
          ),
        ])}
        empty="no key yet."
      />
      <section class="card" aria-labelledby="create-key-h">
        <h2 id="create-key-h">Create a consumer key</h2>
        <PostForm action={`${base}/keys`} name="create-key" fields={["Name", "Lifespan", "BucketSize", "LeakRatePerSecond"]}>
          <Field form="create-key" name="Name" label="Name" required attrs={{ maxlength: 200 }} />
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <Checkbox form="create-key" name="Scopes" value={s} label={s} checked />
            ))}
          </fieldset>
          <Select
            form="create-key"
            name="Lifespan"
            label="Lifespan of its tokens"
            required
            value="NeverExpires"
            options={LIFESPANS.map((l) => [l, l] as const)}
          />
          <Field form="create-key" name="BucketSize" label="Bucket size (calls)" type="number" hint="Default 50." attrs={{ min: 1, step: 1 }} />
          <Field
            form="create-key"
            name="LeakRatePerSecond"
            label="Leak rate (calls a second)"
            type="number"
            hint="Default 2."
            attrs={{ min: 0.001, step: "any" }}
          />
          <button type="submit">Create key</button>
        </PostForm>
      </section>
    </>,
    { title: "Consumer keys", crumbs: storeCrumbs(store), done: doneNotice(c, { revoked: () => "Key revoked." }) },
  );
}

/** The new key, shown here once: not a redirect, and never cached. */
function createdPage(c: C, key: NewConsumerKey) {
  return c.render(
    <section class="card" aria-labelledby="key-h">
      <h2 id="key-h">{key.Name}</h2>
      <p class="warning" role="alert">
        <strong>Copy the key now: it will not be shown again.</strong> Only its SHA-256 is stored.
      </p>
      <CopyField id="new-key" label="Consumer key" value={key.Key} />
      <p>
        Scopes: {key.Scopes.join(", ")}. Lifespan: {key.Lifespan}.
      </p>
      <p>
        <a href={`${storeBase(c.var.store)}/keys`}>Back to the keys</a>
      </p>
    </section>,
    { title: "Consumer key created" },
  );
}

function revokePage(c: C) {
  const store = c.var.store;
  const keyId = c.req.param("keyId") ?? "";
  const keys = `${storeBase(store)}/keys`;
  return c.render(
    <PostForm action={`${keys}/${enc(keyId)}/revoke`} name="revoke" class="card danger">
      <p>
        Key <code>{keyId}</code> will be refused from its next call, with every token made from it. This cannot be undone.
      </p>
      <button type="submit" class="danger">
        Yes, revoke the key
      </button>{" "}
      <a href={keys}>Cancel</a>
    </PostForm>,
    { title: "Revoke this key?", crumbs: storeCrumbs(store) },
  );
}

export const keyPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => keysPage(c))
  .post("/", async (c) => {
    const body = await formOf(c);
    const payload: Record<string, unknown> = {
      Name: text(body.Name),
      Scopes: ([] as unknown[]).concat(body.Scopes ?? []).map(text),
      Lifespan: text(body.Lifespan),
    };
    for (const name of ["BucketSize", "LeakRatePerSecond"]) if (text(body[name]).trim()) payload[name] = Number(body[name]);
    const res = await c.var.api.call<{ ConsumerKey: NewConsumerKey }>("POST", `/stores/${enc(c.var.store.StoreId)}/consumer-keys`, payload);
    if (!res.ok) return failed(c, keysPage, "create-key", res);
    return createdPage(c, res.data.ConsumerKey);
  })
  .get("/:keyId/revoke", (c) => revokePage(c))
  .post("/:keyId/revoke", async (c) => {
    const res = await c.var.api.call("DELETE", `/consumer-keys/${enc(c.req.param("keyId"))}`);
    if (!res.ok) return failed(c, revokePage, "revoke", res);
    return back(c, `${storeBase(c.var.store)}/keys`, "revoked");
  });
