// The console's Webhooks tab through whole requests in workerd (signed in, each form with its CSRF
// token): an endpoint added with its secret shown once, its recent deliveries with their status
// codes, the secret rotated, the endpoint disabled and enabled, deleted, a failed delivery sent
// again from its retry form; what each form did is what the admin API then answers, and bad input
// on each form is a 4xx whose message the page shows at that form. The HTML is read with workerd's
// HTMLRewriter (./helpers.ts), the events by the standardwebhooks library.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, insert, storeWithToken } from "../helpers/api";
import { createWebhook, deliverAt, deliveries, webhook } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified } from "../webhooks/webhook-receiver";
import { collect, definitionLists, send, signIn, tableRows } from "./helpers";

beforeAll(installReceiver);

const pageOf = (storeId: string) => `/console/stores/${storeId}/webhooks`;

/** What an operator reads on the Webhooks tab (or on the page a form answered with). */
async function read(html: string) {
  return {
    /** Each endpoint's facts: URL, WebhookId, Events, State. */
    endpoints: await definitionLists(html, "section.card dl.facts"),
    /** The recent deliveries' rows: Event, Type, Status, Attempts, Last status code, Last error, Next attempt, (Retry). */
    rows: await tableRows(html, "table"),
    /** The forms' targets and buttons. */
    actions: await collect(html, "form[method=post]", "action"),
    buttons: await collect(html, "main form button"),
    /** Every error shown, and the id of the element that shows it (which tells the form). */
    errors: await collect(html, '[role="alert"].error'),
    errorIds: await collect(html, '[role="alert"].error', "id"),
    done: (await collect(html, 'p.done[role="status"]'))[0],
    secret: (await collect(html, "input#new-secret", "value"))[0],
  };
}

/** Endpoints as the admin API lists them. */
async function listed(storeId: string) {
  const res = await admin("GET", `/stores/${storeId}/webhooks`);
  expect(res.status).toBe(200);
  return res.json.Webhooks as { WebhookId: string; Url: string; Enabled: boolean; DisabledReason: string | null }[];
}

describe("console: webhooks", () => {
  it("adds an endpoint (secret shown once), lists its deliveries with status codes, rotates the secret (both verify)", async () => {
    const { storeId, token } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const hook = receiver();
    const page = pageOf(storeId);

    const empty = await read((await send("GET", page, { cookie })).text);
    expect(empty.endpoints).toEqual([]);
    expect(empty.buttons).toContain("Add endpoint");

    const added = await send("POST", page, { cookie, form: { _csrf: csrf, Url: hook.url, Events: ["order.created", "order.cancelled"], Description: "ERP" } });
    expect(added.status).toBe(200);
    expect(added.headers.get("cache-control")).toMatch(/no-store/);
    const shown = await read(added.text);
    const secret = shown.secret!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await collect(added.text, "p.warning")).toEqual([expect.stringContaining("Copy the secret now: it will not be shown again.")]);

    // Shown once: the list never carries it again.
    const list = await send("GET", page, { cookie });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(secret);
    const [endpoint] = (await read(list.text)).endpoints;
    expect(endpoint).toMatchObject({ URL: hook.url, Events: "order.created, order.cancelled", State: "Enabled" });
    const webhookId = endpoint!.WebhookId!;
    expect(await webhook(storeId, webhookId)).toMatchObject({ Url: hook.url, Events: ["order.created", "order.cancelled"], Enabled: true });

    // The first attempt fails with 503, the second (on the test's clock) is accepted.
    hook.answer((_, i) => new Response("", { status: i === 0 ? 503 : 200 }));
    await insert(token);
    await until(async () => (await deliveries(storeId, webhookId))[0]?.Attempts === 1);
    const [failing] = (await read((await send("GET", page, { cookie })).text)).rows;
    const eventId = (await deliveries(storeId, webhookId))[0]!.EventId;
    expect(failing!.slice(0, 6)).toEqual([eventId, "order.created", "pending", "1", "503", "The receiver answered 503."]);
    expect(failing![6]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(failing![7]).toBe("");

    const rotated = await send("POST", `${page}/${webhookId}/rotate-secret`, { cookie, form: { _csrf: csrf } });
    expect(rotated.status).toBe(200);
    const fresh = (await read(rotated.text)).secret!;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    const afterRotation = await read((await send("GET", page, { cookie })).text);
    expect(afterRotation.endpoints[0]!["Previous secret"]).toMatch(/^still signs until \d{4}-\d\d-\d\d /);
    await deliverAt(webhookId, Date.now() + 60_000);
    expect(hook.accepted).toHaveLength(1);
    // Signed with both for 24 hours: a receiver holding either secret verifies it.
    expect(verified(fresh, hook.accepted[0]!).type).toBe("order.created");
    expect(verified(secret, hook.accepted[0]!).type).toBe("order.created");
    const [delivered] = (await read((await send("GET", page, { cookie })).text)).rows;
    expect(delivered!.slice(0, 7)).toEqual([eventId, "order.created", "delivered", "2", "200", "", "—"]);
  });

  it("disables and enables an endpoint: the page and the admin API say so, and a disabled one is sent nothing", async () => {
    const { storeId, token } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const hook = receiver();
    const { WebhookId: id } = await createWebhook(storeId, hook.url);
    const page = pageOf(storeId);
    expect((await read((await send("GET", page, { cookie })).text)).buttons).toContain("Disable");

    const disabled = await send("POST", `${page}/${id}/enabled`, { cookie, form: { _csrf: csrf, Enabled: "false" } });
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get("location")).toBe(`${page}?done=disabled`);
    expect(await webhook(storeId, id)).toMatchObject({ Enabled: false, DisabledReason: null });
    const off = await read((await send("GET", disabled.headers.get("location")!, { cookie })).text);
    expect(off.done).toBe("Endpoint disabled.");
    expect(off.endpoints[0]!.State).toBe("Disabled by an operator");
    expect(off.buttons).toContain("Enable");
    expect(off.buttons).not.toContain("Disable");

    // While disabled an order records nothing for it.
    await insert(token);
    expect(await deliveries(storeId, id)).toEqual([]);
    expect(hook.all).toHaveLength(0);

    const enabled = await send("POST", `${page}/${id}/enabled`, { cookie, form: { _csrf: csrf, Enabled: "true" } });
    expect(enabled.status).toBe(303);
    expect(enabled.headers.get("location")).toBe(`${page}?done=enabled`);
    expect(await webhook(storeId, id)).toMatchObject({ Enabled: true, DisabledReason: null });
    const on = await read((await send("GET", enabled.headers.get("location")!, { cookie })).text);
    expect(on.done).toBe("Endpoint enabled: what waited meanwhile goes out now.");
    expect(on.endpoints[0]!.State).toBe("Enabled");
    expect(on.buttons).toContain("Disable");
    // Enabled again, the next order goes out.
    await insert(token);
    await until(() => hook.accepted.length === 1);
    expect((await listed(storeId)).map((w) => [w.WebhookId, w.Enabled])).toEqual([[id, true]]);
  });

  it("deletes an endpoint: gone from the page and from the admin API, the other one kept", async () => {
    const { storeId } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const kept = await createWebhook(storeId, receiver().url);
    const gone = await createWebhook(storeId, receiver().url);
    const page = pageOf(storeId);
    const before = await read((await send("GET", page, { cookie })).text);
    expect(before.endpoints.map((e) => e.WebhookId).sort()).toEqual([kept.WebhookId, gone.WebhookId].sort());
    expect(before.actions).toContain(`${page}/${gone.WebhookId}/delete`);

    const deleted = await send("POST", `${page}/${gone.WebhookId}/delete`, { cookie, form: { _csrf: csrf } });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe(`${page}?done=deleted`);
    const after = await read((await send("GET", deleted.headers.get("location")!, { cookie })).text);
    expect(after.done).toBe("Endpoint deleted.");
    expect(after.endpoints.map((e) => e.WebhookId)).toEqual([kept.WebhookId]);
    expect(after.actions).not.toContain(`${page}/${gone.WebhookId}/delete`);
    expect((await listed(storeId)).map((w) => w.WebhookId)).toEqual([kept.WebhookId]);
    const got = await admin("GET", `/stores/${storeId}/webhooks/${gone.WebhookId}`);
    expect(got.status).toBe(404);
    expect(got.json).toMatchObject({ Success: false, Message: `No webhook with WebhookId '${gone.WebhookId}' in store '${storeId}'.` });
    expect((await admin("GET", `/stores/${storeId}/webhooks/${gone.WebhookId}/deliveries`)).status).toBe(404);
  });

  it("the retry form sends a failed delivery again: pending with an attempt due at once, then delivered under the same webhook-id", async () => {
    const { storeId, token } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const hook = receiver();
    const { WebhookId: id, Secret: secret } = await createWebhook(storeId, hook.url);
    const page = pageOf(storeId);
    // 410: the event fails at once and the endpoint is disabled.
    hook.answer(410);
    await insert(token);
    await until(async () => (await deliveries(storeId, id, "failed")).length === 1);
    const [failed] = await deliveries(storeId, id);
    const retry = `${page}/${id}/deliveries/${failed!.EventId}/retry`;
    const shown = await read((await send("GET", page, { cookie })).text);
    expect(shown.rows).toEqual([
      [failed!.EventId, "order.created", "failed", "1", "410", "410 Gone: the endpoint is disabled.", "—", `Retry ${failed!.EventId}`],
    ]);
    expect(shown.actions).toContain(retry);
    expect(shown.endpoints[0]!.State).toBe("Disabled: The receiver answered 410 Gone.");

    // Not while the endpoint is disabled: said at the retry form, nothing changed.
    const refused = await send("POST", retry, { cookie, form: { _csrf: csrf } });
    expect(refused.status).toBe(400);
    const said = await read(refused.text);
    expect(said.errors).toEqual([`Webhook '${id}' is disabled; enable it (PATCH Enabled: true) before retrying its events.`]);
    expect(said.errorIds).toEqual([`retry-${failed!.EventId}-error`]);
    expect((await deliveries(storeId, id))[0]).toMatchObject({ Status: "failed", Attempts: 1 });

    expect((await send("POST", `${page}/${id}/enabled`, { cookie, form: { _csrf: csrf, Enabled: "true" } })).status).toBe(303);
    // The receiver holds the retried attempt until the test has read the state between.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    hook.answer(() => held.then(() => new Response("")));
    const before = Date.now();
    const retried = await send("POST", retry, { cookie, form: { _csrf: csrf } });
    expect(retried.status).toBe(303);
    expect(retried.headers.get("location")).toBe(`${page}?done=retried`);
    // Decisions 9: sent again, a fresh round of attempts; pending with its next attempt due now.
    const [pending] = await deliveries(storeId, id);
    expect(pending).toMatchObject({ EventId: failed!.EventId, Status: "pending", Attempts: 0, LastStatusCode: 410, LastError: null });
    expect(Date.parse(pending!.NextAttemptAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(pending!.NextAttemptAt!)).toBeLessThanOrEqual(Date.now());
    const notice = await read((await send("GET", retried.headers.get("location")!, { cookie })).text);
    expect(notice.done).toBe("The event is sent again.");
    expect(notice.rows[0]!.slice(0, 4)).toEqual([failed!.EventId, "order.created", "pending", "0"]);
    expect(notice.actions).not.toContain(retry);

    await until(() => hook.all.length === 2);
    answer();
    await until(async () => (await deliveries(storeId, id))[0]?.Status === "delivered");
    expect((await deliveries(storeId, id))[0]).toMatchObject({ Status: "delivered", Attempts: 1, LastStatusCode: 200, NextAttemptAt: null });
    // The same event, the same webhook-id, verified by the library.
    expect(hook.accepted.map((r) => r.headers["webhook-id"])).toEqual([failed!.EventId]);
    expect(verified(secret, hook.accepted[0]!).type).toBe("order.created");

    // Only a failed event can be retried: its form is gone, so the refusal is said at the top.
    const again = await send("POST", retry, { cookie, form: { _csrf: csrf } });
    expect(again.status).toBe(400);
    const top = await read(again.text);
    expect(top.errors).toEqual([`Event '${failed!.EventId}' is delivered; only a failed event can be retried.`]);
    expect(top.errorIds).toEqual(["webhooks-error"]);
    const unknown = await send("POST", `${page}/${id}/deliveries/msg_nope/retry`, { cookie, form: { _csrf: csrf } });
    expect(unknown.status).toBe(404);
    expect((await read(unknown.text)).errors).toEqual([`Webhook '${id}' has no event with EventId 'msg_nope'.`]);
    expect(hook.all).toHaveLength(2);
  });
});

describe("console: webhooks, bad input", () => {
  it("the add form: each refusal is a 400 naming the field, shown where it belongs, and nothing is stored", async () => {
    const { storeId } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const page = pageOf(storeId);
    const good = { _csrf: csrf, Url: receiver().url, Events: "*" };
    // What is sent, where the page says what is wrong, what it says, and the events still ticked.
    const cases: [string, Record<string, string | string[]>, string, string, string[]][] = [
      ["http", { Url: "http://erp.example/hooks" }, "add-webhook-Url-error", "'Url': must be an https:// URL", ["*"]],
      ["not a URL", { Url: "erp" }, "add-webhook-Url-error", "'Url': must be an absolute https:// URL", ["*"]],
      ["too long", { Url: `https://erp.example/${"a".repeat(2030)}` }, "add-webhook-Url-error", "'Url': must be at most 2048 characters", ["*"]],
      ["no event", { Events: [] }, "add-webhook-error", `'Events': must name at least one event, or be ["*"]`, []],
      ["unknown event", { Events: ["order.created", "order.paid"] }, "add-webhook-error", "'Events", ["order.created"]],
      ["long description", { Description: "d".repeat(501) }, "add-webhook-Description-error", "'Description'", ["*"]],
    ];
    for (const [name, change, where, message, ticked] of cases) {
      const form = { ...good, ...change };
      const res = await send("POST", page, { cookie, form });
      expect(res.status, name).toBe(400);
      const shown = await read(res.text);
      expect(shown.errorIds, name).toEqual([where]);
      expect(shown.errors[0], name).toContain(message);
      expect(shown.secret, name).toBeUndefined();
      // The form comes back as it was sent, to be mended.
      expect(await collect(res.text, "input#add-webhook-Url", "value"), name).toEqual([form.Url]);
      expect(await collect(res.text, "input#add-webhook-Description", "value"), name).toEqual([(form as { Description?: string }).Description ?? ""]);
      expect(await collect(res.text, 'input[name="Events"][checked]', "value"), name).toEqual(ticked);
    }
    expect(await listed(storeId)).toEqual([]);
  });

  it("the enable, rotate, delete and retry forms: a bad value or an unknown or another store's endpoint is a clear 4xx, nothing changes", async () => {
    const { storeId } = await storeWithToken();
    const other = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const mine = await createWebhook(storeId, receiver().url);
    const theirs = await createWebhook(other.storeId, receiver().url);
    const page = pageOf(storeId);

    for (const value of ["maybe", ""]) {
      const res = await send("POST", `${page}/${mine.WebhookId}/enabled`, { cookie, form: { _csrf: csrf, Enabled: value } });
      expect(res.status, value).toBe(400);
      const shown = await read(res.text);
      expect(shown.errors, value).toEqual(["'Enabled' must be true or false."]);
      expect(shown.errorIds, value).toEqual([`enabled-${mine.WebhookId}-error`]);
    }

    // Another store's endpoint through this store's page is as unknown as a made-up one.
    for (const target of ["wh_nope", theirs.WebhookId]) {
      const message = `No webhook with WebhookId '${target}' in store '${storeId}'.`;
      for (const [action, form] of [
        ["enabled", { _csrf: csrf, Enabled: "false" }],
        ["rotate-secret", { _csrf: csrf }],
        ["delete", { _csrf: csrf }],
        ["deliveries/msg_nope/retry", { _csrf: csrf }],
      ] as const) {
        const res = await send("POST", `${page}/${target}/${action}`, { cookie, form });
        expect(res.status, `${action} ${target}`).toBe(404);
        const shown = await read(res.text);
        expect(shown.errors, `${action} ${target}`).toEqual([message]);
        expect(shown.errorIds, `${action} ${target}`).toEqual(["webhooks-error"]);
        expect(shown.secret, `${action} ${target}`).toBeUndefined();
      }
    }

    // Without the CSRF token no form does anything.
    for (const action of ["enabled", "rotate-secret", "delete"]) {
      const res = await send("POST", `${page}/${mine.WebhookId}/${action}`, { cookie, form: { Enabled: "false" } });
      expect(res.status, action).toBe(403);
    }
    expect(await webhook(storeId, mine.WebhookId)).toMatchObject({ Enabled: true, PreviousSecretExpiresAt: null });
    expect(await webhook(other.storeId, theirs.WebhookId)).toMatchObject({ Enabled: true, PreviousSecretExpiresAt: null });
  });
});
