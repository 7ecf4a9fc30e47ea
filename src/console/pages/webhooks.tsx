// Console pages: a store's webhook endpoints (add, with the secret shown once; rotate the secret;
// disable or enable; delete) and each endpoint's recent deliveries with their status codes, a
// failed one retried. Mounted at /console/stores/:storeId/webhooks; everything goes through the
// admin API's webhook routes (src/webhooks/webhooks.routes.ts). Each endpoint's forms are named
// after its WebhookId (a retry form after its EventId), so a refusal is shown at the form it came
// from; one whose form is no longer on the page (an endpoint deleted meanwhile, an event no longer
// failed) is shown at the top.
import { EVENT_TYPES } from "../../webhooks/webhooks.schemas";
import { ReadError, Checkbox, CopyField, Field, PostForm, StoreNav, Table, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, formOf, text, withStore, type C } from "../context";
import type { NewWebhook, Webhook, WebhookDelivery } from "../wire";

/** Deliveries shown per endpoint: the newest. */
const RECENT = 20;

const webhooksBase = (c: C) => `${storeBase(c.var.store)}/webhooks`;
const webhooksApi = (c: C) => `/stores/${enc(c.var.store.StoreId)}/webhooks`;

/** The name of an endpoint's form (enabled, rotate, delete) and of a delivery's retry form. */
const hookForm = (kind: "enabled" | "rotate" | "delete", webhookId: string) => `${kind}-${webhookId}`;
const retryForm = (eventId: string) => `retry-${eventId}`;

/** What a refused add form held, shown again so the operator mends it rather than types it anew. */
interface AddForm {
  Url: string;
  Events: string[];
  Description: string;
}

async function webhooksPage(c: C, add: AddForm = { Url: "", Events: ["*"], Description: "" }) {
  const store = c.var.store;
  const base = webhooksBase(c);
  const res = await c.var.api.call<{ Webhooks: Webhook[] }>("GET", webhooksApi(c));
  const hooks = res.ok ? res.data.Webhooks : [];
  const recent = await Promise.all(
    hooks.map((h) => c.var.api.call<{ Deliveries: WebhookDelivery[] }>("GET", `${webhooksApi(c)}/${enc(h.WebhookId)}/deliveries`)),
  );
  const shown = recent.map((r) => (r.ok ? r.data.Deliveries : []).slice(0, RECENT));
  const forms = new Set([
    "add-webhook",
    ...hooks.flatMap((h) => [hookForm("enabled", h.WebhookId), hookForm("rotate", h.WebhookId), hookForm("delete", h.WebhookId)]),
    ...shown
      .flat()
      .filter((d) => d.Status === "failed")
      .map((d) => retryForm(d.EventId)),
  ]);
  const notice = c.var.notice;
  const orphan = notice.form && notice.error && !forms.has(notice.form) ? notice.error : undefined;
  return c.render(
    <>
      <StoreNav store={store} current="Webhooks" />
      <ReadError res={res} />
      {orphan ? (
        <p class="error" role="alert" id="webhooks-error">
          {orphan}
        </p>
      ) : null}
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
              <PostForm action={`${hookBase}/enabled`} name={hookForm("enabled", h.WebhookId)}>
                <input type="hidden" name="Enabled" value={h.Enabled ? "false" : "true"} />
                <button type="submit">{h.Enabled ? "Disable" : "Enable"}</button>
              </PostForm>
              <PostForm action={`${hookBase}/rotate-secret`} name={hookForm("rotate", h.WebhookId)}>
                <button type="submit">Rotate the secret</button>
              </PostForm>
              <PostForm action={`${hookBase}/delete`} name={hookForm("delete", h.WebhookId)}>
                <button type="submit" class="danger">
                  Delete<span class="visually-hidden"> {h.Url}</span>
                </button>
              </PostForm>
            </div>
            <ReadError res={deliveries} />
            <Table
              caption={`Recent deliveries to ${h.Url}`}
              headers={["Event", "Type", "Status", "Attempts", "Last status code", "Last error", "Next attempt", ""]}
              rows={shown[i]!.map((d) => [
                <code>{d.EventId}</code>,
                d.Type,
                d.Status,
                String(d.Attempts),
                d.LastStatusCode === null ? "—" : String(d.LastStatusCode),
                d.LastError ?? "",
                when(d.NextAttemptAt),
                d.Status === "failed" ? (
                  <PostForm action={`${hookBase}/deliveries/${enc(d.EventId)}/retry`} name={retryForm(d.EventId)}>
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
        {/* Events has no field of its own to show an error under: its refusal shows at the form's top. */}
        <PostForm action={base} name="add-webhook" fields={["Url", "Description"]}>
          <Field
            form="add-webhook"
            name="Url"
            label="URL"
            required
            type="url"
            value={add.Url}
            hint="https:// only; no user or password, no private or link-local IP address (https://localhost works for local tests)."
            attrs={{ maxlength: 2048 }}
          />
          <fieldset>
            <legend>Events</legend>
            <Checkbox form="add-webhook" name="Events" value="*" label="All events (*)" checked={add.Events.includes("*")} />
            {EVENT_TYPES.map((e) => (
              <Checkbox form="add-webhook" name="Events" value={e} label={e} checked={add.Events.includes(e)} />
            ))}
          </fieldset>
          <Field form="add-webhook" name="Description" label="Description" value={add.Description} attrs={{ maxlength: 500 }} />
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
        {rotated
          ? "The previous secret keeps signing beside it for 24 hours, so the receiver can switch without losing an event."
          : "The receiver verifies each event with it (any Standard Webhooks library)."}
      </p>
      <CopyField id="new-secret" label="Signing secret" value={hook.Secret} />
      <p>
        <a href={webhooksBase(c)}>Back to the webhooks</a>
      </p>
    </section>,
    { title: rotated ? "Secret rotated" : "Endpoint added", crumbs: storeCrumbs(c.var.store, ["Webhooks", webhooksBase(c)]) },
  );
}

const webhookId = (c: C) => c.req.param("webhookId") ?? "";
const hookApi = (c: C) => `${webhooksApi(c)}/${enc(webhookId(c))}`;

export const webhookPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => webhooksPage(c))
  .post("/", async (c) => {
    const body = await formOf(c);
    const events = ([] as unknown[]).concat(body.Events ?? []).map(text);
    const payload: Record<string, unknown> = { Url: text(body.Url).trim(), Events: events.includes("*") ? ["*"] : events };
    if (text(body.Description).trim()) payload.Description = text(body.Description);
    const res = await c.var.api.call<{ Webhook: NewWebhook }>("POST", webhooksApi(c), payload);
    if (!res.ok) return failed(c, (c) => webhooksPage(c, { Url: text(body.Url), Events: events, Description: text(body.Description) }), "add-webhook", res);
    return secretPage(c, res.data.Webhook, false);
  })
  .post("/:webhookId/rotate-secret", async (c) => {
    const res = await c.var.api.call<{ Webhook: NewWebhook }>("POST", `${hookApi(c)}/rotate-secret`);
    if (!res.ok) return failed(c, webhooksPage, hookForm("rotate", webhookId(c)), res);
    return secretPage(c, res.data.Webhook, true);
  })
  .post("/:webhookId/enabled", async (c) => {
    const form = hookForm("enabled", webhookId(c));
    const value = text((await formOf(c)).Enabled);
    // The form's own buttons send one of the two; anything else is refused, not read as "false".
    if (value !== "true" && value !== "false") return failed(c, webhooksPage, form, { status: 400, message: "'Enabled' must be true or false." });
    const enabled = value === "true";
    const res = await c.var.api.call("PATCH", hookApi(c), { Enabled: enabled });
    if (!res.ok) return failed(c, webhooksPage, form, res);
    return back(c, webhooksBase(c), enabled ? "enabled" : "disabled");
  })
  .post("/:webhookId/delete", async (c) => {
    const res = await c.var.api.call("DELETE", hookApi(c));
    if (!res.ok) return failed(c, webhooksPage, hookForm("delete", webhookId(c)), res);
    return back(c, webhooksBase(c), "deleted");
  })
  .post("/:webhookId/deliveries/:eventId/retry", async (c) => {
    const eventId = c.req.param("eventId") ?? "";
    const res = await c.var.api.call("POST", `${hookApi(c)}/deliveries/${enc(eventId)}/retry`);
    if (!res.ok) return failed(c, webhooksPage, retryForm(eventId), res);
    return back(c, webhooksBase(c), "retried");
  });
