// The console's webhook section through whole requests in workerd: an endpoint added from the
// store's Webhooks tab shows its secret once, its recent deliveries with their status codes, a
// failed one retried, the secret rotated, the endpoint disabled and enabled; what each form does
// is what the admin API then answers.
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, BASE, insert, storeWithToken } from "../helpers/api";
import { deliverAt, deliveries, webhook } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified } from "../fakes/webhook-receiver";

beforeAll(installReceiver);

async function send(method: string, path: string, init: { form?: Record<string, string | string[]>; cookie?: string } = {}) {
  const headers = new Headers({ origin: BASE });
  if (init.cookie) headers.set("cookie", init.cookie);
  let body: URLSearchParams | undefined;
  if (init.form) {
    body = new URLSearchParams();
    for (const [k, v] of Object.entries(init.form)) for (const one of ([] as string[]).concat(v)) body.append(k, one);
    headers.set("content-type", "application/x-www-form-urlencoded");
  }
  const response = await exports.default.fetch(new Request(BASE + path, { method, headers, body, redirect: "manual" }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function signIn() {
  const res = await send("POST", "/console/login", { form: { key: ADMIN_KEY } });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  const home = await send("GET", "/console", { cookie });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)![1]!;
  return { cookie, csrf };
}

const secretIn = (html: string) => /value="(whsec_[A-Za-z0-9+/=]+)"/.exec(html)?.[1];

describe("console: webhooks", () => {
  it("adds an endpoint (secret shown once), lists its deliveries with status codes, rotates (both secrets verify), disables", async () => {
    const { storeId, token } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const hook = receiver();
    const page = `/console/stores/${storeId}/webhooks`;

    const refused = await send("POST", page, { cookie, form: { _csrf: csrf, Url: "http://erp.example/hooks", Events: "*" } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("must be an https:// URL");

    const added = await send("POST", page, { cookie, form: { _csrf: csrf, Url: hook.url, Events: ["order.created", "order.cancelled"], Description: "ERP" } });
    expect(added.status).toBe(200);
    const secret = secretIn(added.text)!;
    expect(secret).toMatch(/^whsec_/);
    const listed = await send("GET", page, { cookie });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain(hook.url);
    expect(listed.text).not.toContain(secret);
    const webhookId = /<code>(wh_[A-Za-z0-9_-]+)<\/code>/.exec(listed.text)![1]!;
    expect((await webhook(storeId, webhookId)).Events).toEqual(["order.created", "order.cancelled"]);

    // One event fails for good (410 answers are not retried... use 500 eight times instead? no: a 410 disables).
    hook.answer((_, i) => new Response("", { status: i === 0 ? 503 : 200 }));
    await insert(token);
    await until(async () => (await deliveries(storeId, webhookId))[0]?.Attempts === 1);
    const withDelivery = await send("GET", page, { cookie });
    expect(withDelivery.text).toContain("<td>503</td>");
    expect(withDelivery.text).toContain("The receiver answered 503.");

    const rotated = await send("POST", `${page}/${webhookId}/rotate-secret`, { cookie, form: { _csrf: csrf } });
    expect(rotated.status).toBe(200);
    const fresh = secretIn(rotated.text)!;
    expect(fresh).not.toBe(secret);
    await deliverAt(webhookId, Date.now() + 60_000);
    expect(hook.accepted).toHaveLength(1);
    expect(verified(fresh, hook.accepted[0]!).type).toBe("order.created");
    expect(verified(secret, hook.accepted[0]!).type).toBe("order.created");
    expect((await send("GET", page, { cookie })).text).toContain("<td>200</td>");

    const disabled = await send("POST", `${page}/${webhookId}/enabled`, { cookie, form: { _csrf: csrf, Enabled: "false" } });
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get("location")).toBe(`${page}?done=disabled`);
    expect((await webhook(storeId, webhookId)).Enabled).toBe(false);
    expect((await send("GET", `${page}?done=disabled`, { cookie })).text).toContain("Endpoint disabled.");
  });
});
