// Console pages: a store's webhook endpoints (add, with the secret shown once; rotate the secret;
// disable or enable; delete) and each endpoint's recent deliveries with their status codes, a
// failed one retried. Mounted at /console/stores/:storeId/webhooks; everything goes through the
// admin API's webhook routes (src/webhooks/webhooks.routes.ts).
import { EVENT_TYPES } from "../../webhooks/webhooks.schemas";
import { ReadError, Checkbox, CopyField, Field, PostForm, StoreNav, Table, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, formOf, text, withStore, type C } from "../context";
import type { NewWebhook, Webhook, WebhookDelivery } from "../wire";

/** Deliveries shown per endpoint: the newest. */
const RECENT = 20;

const webhooksBase = (c: C) => `${storeBase(c.var.store)}/webhooks`;
const webhooksApi = (c: C) => `/stores/${enc(c.var.store.StoreId)}/webhooks`;

async function webhooksPage(c: C) {
  const store = c.var.store;
  const base = webhooksBase(c);
  const res = await c.var.api.call<{ Webhooks: Webhook[] }>("GET", webhooksApi(c));
  const hooks = res.ok ? res.data.Webhooks : [];
  const recent = await Promise.all(
    hooks.map((h) => c.var.api.call<{ Deliveries: WebhookDelivery[] }>("GET", `${webhooksApi(c)}/${enc(h.WebhookId)}/deliveries`)),
  );
  return c.render(
    <>
      <StoreNav store={store} current="Webhooks" />
      <ReadError res={res} />
      {hooks.length === 0 ? <p class="empty">Webhooks: no endpoint yet.</p> : null}
      {hooks.map((h, i) => {
        const deliveries = recent[i]!;
        const hookBase = `${base}/${enc(h.WebhookId)}`;
        return (
          <section class="card" aria-labelledby={`wh-${i}-h`}>
            <h2 id={`wh-${i}-h`}>{h.Description || h.Url}</h2>
            <dl class="facts">
              <dt>URL</dt>
              <dd>
                <code>{h.Url}</code>
              </dd>
              <dt>WebhookId</dt>
              <dd>
                <code>{h.WebhookId}</code>
              </dd>
              <dt>Events</dt>
              <dd>{h.Events.join(", ")}</dd>
              <dt>State</dt>
              <dd>{h.Enabled ? "Enabled" : `Disabled${h.DisabledReason ? `: ${h.DisabledReason}` : " by an operator"}`}</dd>
              {h.PreviousSecretExpiresAt ? (
                <>
                  <dt>Previous secret</dt>
                  <dd>still signs until {when(h.PreviousSecretExpiresAt)}</dd>
                </>
              ) : null}
            </dl>
            <div class="actions">
              <PostForm action={`${hookBase}/enabled`} name={`enabled-${i}`}>
                <input type="hidden" name="Enabled" value={h.Enabled ? "false" : "true"} />
                <button type="submit">{h.Enabled ? "Disable" : "Enable"}</button>
              </PostForm>
              <PostForm action={`${hookBase}/rotate-secret`} name={`rotate-${i}`}>
                <button type="submit">Rotate the secret</button>
              </PostForm>
              <PostForm action={`${hookBase}/delete`} name={`delete-${i}`}>
                <button type="submit" class="danger">
                  Delete<span class="visually-hidden"> {h.Url}</span>
                </button>
              </PostForm>
            </div>
            <ReadError res={deliveries} />
            <Table
              caption={`Recent deliveries to ${h.Url}`}
              headers={["Event", "Type", "Status", "Attempts", "Last status code", "Last error", "Next attempt", ""]}
              rows={(deliveries.ok ? deliveries.data.Deliveries : []).slice(0, RECENT).map((d) => [
                <code>{d.EventId}</code>,
                d.Type,
                d.Status,
                String(d.Attempts),
                d.LastStatusCode === null ? "—" : String(d.LastStatusCode),
                d.LastError ?? "",
                when(d.NextAttemptAt),
                d.Status === "failed" ? (
                  <PostForm action={`${hookBase}/deliveries/${enc(d.EventId)}/retry`} name={`retry-${d.EventId}`}>
                    <button type="submit">
                      Retry<span class="visually-hidden"> {d.EventId}</span>
                    </button>
                  </PostForm>
                ) : (
                  ""
                ),
              ])}
              empty="no event yet."
            />
          </section>
        );
      })}
      <section class="card" aria-labelledby="add-webhook-h">
        <h2 id="add-webhook-h">Add an endpoint</h2>
        <PostForm action={base} name="add-webhook" fields={["Url", "Events", "Description"]}>
          <Field form="add-webhook" name="Url" label="URL" required type="url" hint="https:// (http:// only for localhost or 127.0.0.1)." attrs={{ maxlength: 2048 }} />
          <fieldset>
            <legend>Events</legend>
            <Checkbox form="add-webhook" name="Events" value="*" label="All events (*)" checked />
            {EVENT_TYPES.map((e) => (
              <Checkbox form="add-webhook" name="Events" value={e} label={e} />
            ))}
          </fieldset>
          <Field form="add-webhook" name="Description" label="Description" attrs={{ maxlength: 500 }} />
          <button type="submit">Add endpoint</button>
        </PostForm>
      </section>
    </>,
    {
      title: "Webhooks",
      crumbs: storeCrumbs(store),
      done: doneNotice(c, {
        enabled: () => "Endpoint enabled: what waited meanwhile goes out now.",
        disabled: () => "Endpoint disabled.",
        deleted: () => "Endpoint deleted.",
        retried: () => "The event is sent again.",
      }),
    },
  );
}

/** The secret, shown here once (after an add or a rotation): not a redirect, and never cached. */
function secretPage(c: C, hook: NewWebhook, rotated: boolean) {
  return c.render(
    <section class="card" aria-labelledby="secret-h">
      <h2 id="secret-h">{hook.Url}</h2>
      <p class="warning" role="alert">
        <strong>Copy the secret now: it will not be shown again.</strong>{" "}
        {rotated ? "The previous secret keeps signing beside it for 24 hours, so the receiver can switch without losing an event." : "The receiver verifies each event with it (any Standard Webhooks library)."}
      </p>
      <CopyField id="new-secret" label="Signing secret" value={hook.Secret} />
      <p>
        <a href={webhooksBase(c)}>Back to the webhooks</a>
      </p>
    </section>,
    { title: rotated ? "Secret rotated" : "Endpoint added", crumbs: storeCrumbs(c.var.store, ["Webhooks", webhooksBase(c)]) },
  );
}

const hookApi = (c: C) => `${webhooksApi(c)}/${enc(c.req.param("webhookId") ?? "")}`;

export const webhookPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => webhooksPage(c))
  .post("/", async (c) => {
    const body = await formOf(c);
    const events = ([] as unknown[]).concat(body.Events ?? []).map(text);
    const payload: Record<string, unknown> = { Url: text(body.Url).trim(), Events: events.includes("*") ? ["*"] : events };
    if (text(body.Description).trim()) payload.Description = text(body.Description);
    const res = await c.var.api.call<{ Webhook: NewWebhook }>("POST", webhooksApi(c), payload);
    if (!res.ok) return failed(c, webhooksPage, "add-webhook", res);
    return secretPage(c, res.data.Webhook, false);
  })
  .post("/:webhookId/rotate-secret", async (c) => {
    const res = await c.var.api.call<{ Webhook: NewWebhook }>("POST", `${hookApi(c)}/rotate-secret`);
    if (!res.ok) return failed(c, webhooksPage, "rotate", res);
    return secretPage(c, res.data.Webhook, true);
  })
  .post("/:webhookId/enabled", async (c) => {
    const enabled = text((await formOf(c)).Enabled) === "true";
    const res = await c.var.api.call("PATCH", hookApi(c), { Enabled: enabled });
    if (!res.ok) return failed(c, webhooksPage, "enabled", res);
    return back(c, webhooksBase(c), enabled ? "enabled" : "disabled");
  })
  .post("/:webhookId/delete", async (c) => {
    const res = await c.var.api.call("DELETE", hookApi(c));
    if (!res.ok) return failed(c, webhooksPage, "delete", res);
    return back(c, webhooksBase(c), "deleted");
  })
  .post("/:webhookId/deliveries/:eventId/retry", async (c) => {
    const res = await c.var.api.call("POST", `${hookApi(c)}/deliveries/${enc(c.req.param("eventId") ?? "")}/retry`);
    if (!res.ok) return failed(c, webhooksPage, "retry", res);
    return back(c, webhooksBase(c), "retried");
  });
