// The webhook admin routes of decisions 9: the secret shown once, rotation (both secrets sign for
// 24 hours, then only the new one), the list and changes, and bad input refused with the
// envelope, nothing stored.
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, insert, storeWithToken } from "../helpers/api";
import { countEverywhere, storeD1 } from "../helpers/shards";
import { fireCron } from "../helpers/sync";
import { createWebhook, deliverAt, deliveries } from "../helpers/webhooks";
import { installReceiver, receiver, until, verified } from "./webhook-receiver";

beforeAll(installReceiver);

const HOUR = 3_600_000;

/** The store's endpoints in any database (its shard, or wherever a purge might leave one). */
async function webhookRows(storeId: string): Promise<number> {
  return countEverywhere("select count(*) as n from webhooks where store_id = ?", storeId);
}

describe("endpoints", () => {
  it("creates an endpoint whose Secret, whsec_ and 32 random bytes in base64, is shown only in that answer", async () => {
    const { storeId } = await storeWithToken();
    const res = await admin("POST", `/stores/${storeId}/webhooks`, {
      Url: "https://erp.example/hooks",
      Events: ["order.created", "order.shipped", "order.created"],
      Description: "ERP",
    });
    expect(res.status).toBe(200);
    const created = res.json.Webhook as Record<string, unknown>;
    expect(created).toMatchObject({
      Url: "https://erp.example/hooks",
      Events: ["order.created", "order.shipped"],
      Description: "ERP",
      Enabled: true,
      DisabledReason: null,
      StoreId: storeId,
    });
    const secret = created.Secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice(6))).toHaveLength(32);
    // Stored only as ciphertext.
    const stored = await (await storeD1(storeId)).prepare("select * from webhooks where id = ?").bind(created.WebhookId).first<Record<string, string>>();
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    const got = await admin("GET", `/stores/${storeId}/webhooks/${created.WebhookId}`);
    expect(got.json.Webhook).not.toHaveProperty("Secret");
    const listed = await admin("GET", `/stores/${storeId}/webhooks`);
    expect((listed.json.Webhooks as unknown[]).map((w) => (w as { WebhookId: string }).WebhookId)).toEqual([created.WebhookId]);
    expect(listed.text).not.toContain(secret.slice(6));
  });

  it("PATCH changes Url, Events, Description and Enabled; DELETE removes the endpoint and its deliveries", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, "https://erp.example/a");
    const patched = await admin("PATCH", `/stores/${storeId}/webhooks/${created.WebhookId}`, {
      Url: hook.url,
      Events: ["*", "order.created"],
      Description: "moved",
      Enabled: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.json.Webhook).toMatchObject({ Url: hook.url, Events: ["*"], Description: "moved", Enabled: false, DisabledReason: null });
    await insert(token);
    expect(await deliveries(storeId, created.WebhookId)).toHaveLength(0);
    await admin("PATCH", `/stores/${storeId}/webhooks/${created.WebhookId}`, { Enabled: true });
    await insert(token);
    await until(() => hook.accepted.length === 1);
    expect((await admin("DELETE", `/stores/${storeId}/webhooks/${created.WebhookId}`)).status).toBe(200);
    expect((await admin("GET", `/stores/${storeId}/webhooks/${created.WebhookId}`)).status).toBe(404);
    expect(await countEverywhere("select count(*) as n from webhook_deliveries where webhook_id = ?", created.WebhookId)).toBe(0);
  });
});

describe("a deleted store", () => {
  it("the cron's purge removes its endpoints and their events with the store", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    await createWebhook(storeId, hook.url);
    await insert(token);
    await insert(token);
    await until(() => hook.accepted.length === 2);
    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    for (let run = 0; run < 3 && (await webhookRows(storeId)) > 0; run++) await fireCron();
    expect(await webhookRows(storeId)).toBe(0);
    // Nothing of the store is left in the directory or in any shard (its copy of the store row included).
    expect(await countEverywhere("select count(*) as n from webhook_deliveries where store_id = ?", storeId)).toBe(0);
    expect(await countEverywhere("select count(*) as n from stores where id = ?", storeId)).toBe(0);
  });
});

describe("rotation", () => {
  it("after a rotation both secrets sign for 24 hours (two v1 signatures), then only the new one", async () => {
    const { storeId, token } = await storeWithToken();
    const hook = receiver();
    const created = await createWebhook(storeId, hook.url);
    const rotated = await admin("POST", `/stores/${storeId}/webhooks/${created.WebhookId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const fresh = (rotated.json.Webhook as { Secret: string }).Secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(created.Secret);
    const expires = Date.parse((rotated.json.Webhook as { PreviousSecretExpiresAt: string }).PreviousSecretExpiresAt);
    expect(Math.abs(expires - (Date.now() + 24 * HOUR))).toBeLessThan(60_000);
    expect((await admin("GET", `/stores/${storeId}/webhooks/${created.WebhookId}`)).json.Webhook).not.toHaveProperty("Secret");

    await insert(token);
    await until(() => hook.accepted.length === 1);
    const during = hook.accepted[0]!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verified(created.Secret, during).type).toBe("order.created");
    expect(verified(fresh, during).type).toBe("order.created");

    // The next event's first attempt fails; its retry is made a day and an hour later.
    hook.answer((_, i) => new Response("", { status: i === 1 ? 500 : 200 }));
    await insert(token);
    await until(async () => (await deliveries(storeId, created.WebhookId)).some((d) => d.Attempts === 1 && d.Status === "pending"));
    await deliverAt(created.WebhookId, expires + HOUR);
    expect(hook.accepted).toHaveLength(2);
    const after = hook.accepted[1]!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verified(fresh, after).type).toBe("order.created");
    expect(() => new Webhook(created.Secret).verify(after.body, after.headers)).toThrow(/No matching signature/);
  });
});

describe("bad input", () => {
  const cases: [string, unknown, RegExp][] = [
    ["an http URL", { Url: "http://erp.example/hooks", Events: ["*"] }, /^'Url': must be an https:\/\/ URL$/],
    ["a URL that is not one", { Url: "erp.example/hooks", Events: ["*"] }, /^'Url': must be an absolute https:\/\/ URL$/],
    ["a URL over 2,048 characters", { Url: `https://erp.example/${"a".repeat(2029)}`, Events: ["*"] }, /^'Url': must be at most 2048 characters$/],
    [
      "an unknown event",
      { Url: "https://erp.example/hooks", Events: ["order.created", "order.deleted"] },
      /^'Events\[1\]': .*"order\.created".*"feed\.failed".*"\*"/,
    ],
    ["no events", { Url: "https://erp.example/hooks", Events: [] }, /^'Events': must name at least one event/],
    ["no Url", { Events: ["*"] }, /^'Url' is required$/],
  ];
  for (const [what, body, message] of cases) {
    it(`refuses ${what} with 400 naming the field, and stores nothing`, async () => {
      const { storeId } = await storeWithToken();
      const res = await admin("POST", `/stores/${storeId}/webhooks`, body);
      expect(res.status).toBe(400);
      expect(res.json.Success).toBe(false);
      expect(res.json.Message).toMatch(message);
      expect(await webhookRows(storeId)).toBe(0);
    });
  }

  it("accepts a URL of exactly 2,048 characters, and https on the machine itself (localhost, 127.0.0.1, [::1]) for local work", async () => {
    const { storeId } = await storeWithToken();
    for (const url of [
      `https://erp.example/${"a".repeat(2028)}`,
      "https://localhost:3000/hooks",
      "https://127.0.0.1/hooks",
      "https://[::1]:8443/hooks",
      "https://93.184.215.14/hooks",
    ]) {
      const res = await admin("POST", `/stores/${storeId}/webhooks`, { Url: url, Events: ["*"] });
      expect(res.status, `${url}: ${res.text}`).toBe(200);
    }
    expect(await webhookRows(storeId)).toBe(5);
  });

  // Decisions 9 (updated): receivers a hostile operator or a stolen admin key could aim at the
  // hub's own network, at a cloud metadata service or at a credential-carrying URL.
  const refused: [string, string, RegExp][] = [
    ["http:// on loopback", "http://127.0.0.1/hooks", /must be an https:\/\/ URL/],
    ["http:// on localhost", "http://localhost:3000/hooks", /must be an https:\/\/ URL/],
    ["a user and password", "https://user:secret@erp.example/hooks", /must not carry a user name or password/],
    ["a user name alone", "https://user@erp.example/hooks", /must not carry a user name or password/],
    ["an empty user part", "https://@erp.example/hooks", /must not carry a user name or password/],
    ["the metadata address", "https://169.254.169.254/latest/meta-data", /private, link-local or unique-local/],
    ["10/8", "https://10.0.0.8/hooks", /private, link-local or unique-local/],
    ["172.16/12", "https://172.31.255.1/hooks", /private, link-local or unique-local/],
    ["192.168/16", "https://192.168.1.10/hooks", /private, link-local or unique-local/],
    ["fc00::/7", "https://[fd12:3456::1]/hooks", /private, link-local or unique-local/],
    ["fe80::/10", "https://[fe80::1]/hooks", /private, link-local or unique-local/],
    ["an IPv4-mapped private address", "https://[::ffff:10.0.0.1]/hooks", /private, link-local or unique-local/],
    ["an IPv4-mapped metadata address", "https://[::ffff:a9fe:a9fe]/hooks", /private, link-local or unique-local/],
    ["the unspecified address", "https://0.0.0.0/hooks", /private, link-local or unique-local/],
    ["a hexadecimal host", "https://0x7f000001/hooks", /numeric host written other than as four decimal numbers/],
    ["a decimal host", "https://2130706433/hooks", /numeric host written other than as four decimal numbers/],
    ["an octal host", "https://0177.0.0.1/hooks", /numeric host written other than as four decimal numbers/],
    ["a short host", "https://127.1/hooks", /numeric host written other than as four decimal numbers/],
    ["a mixed host", "https://0xa9.254.0251.254/hooks", /numeric host written other than as four decimal numbers/],
    ["a percent-encoded host", "https://%31%32%37.0.0.1/hooks", /numeric host written other than as four decimal numbers/],
    ["a host with a trailing dot", "https://127.0.0.1./hooks", /numeric host written other than as four decimal numbers/],
    ["a tab inside", "https://12\t7.0.0.1/hooks", /must not contain spaces or control characters/],
  ];
  for (const [what, url, message] of refused) {
    it(`refuses a receiver URL with ${what}: 400 naming Url, nothing stored, on create and on PATCH`, async () => {
      const { storeId } = await storeWithToken();
      const created = await admin("POST", `/stores/${storeId}/webhooks`, { Url: url, Events: ["*"] });
      expect(created.status, created.text).toBe(400);
      expect(created.json.Message).toMatch(/^'Url': /);
      expect(created.json.Message).toMatch(message);
      expect(await webhookRows(storeId)).toBe(0);
      const hook = await createWebhook(storeId, "https://erp.example/hooks");
      const patched = await admin("PATCH", `/stores/${storeId}/webhooks/${hook.WebhookId}`, { Url: url });
      expect(patched.status, patched.text).toBe(400);
      expect(patched.json.Message).toMatch(/^'Url': /);
      expect((await admin("GET", `/stores/${storeId}/webhooks/${hook.WebhookId}`)).json.Webhook).toMatchObject({ Url: "https://erp.example/hooks" });
    });
  }

  it("a PATCH with bad input changes nothing", async () => {
    const { storeId } = await storeWithToken();
    const created = await createWebhook(storeId, "https://erp.example/hooks", ["order.created"]);
    for (const body of [{ Url: "http://erp.example/x" }, { Events: ["nope"] }, { Enabled: "yes" }, { Secret: "whsec_x" }]) {
      const res = await admin("PATCH", `/stores/${storeId}/webhooks/${created.WebhookId}`, body);
      expect(res.status).toBe(400);
      expect(res.json.Success).toBe(false);
    }
    expect((await admin("GET", `/stores/${storeId}/webhooks/${created.WebhookId}`)).json.Webhook).toMatchObject({
      Url: "https://erp.example/hooks",
      Events: ["order.created"],
      Enabled: true,
    });
  });

  it("another store's webhook is a 404 on every route, and is left as it was", async () => {
    const mine = await storeWithToken();
    const other = await storeWithToken();
    const theirs = await createWebhook(other.storeId, "https://other.example/hooks");
    const base = `/stores/${mine.storeId}/webhooks/${theirs.WebhookId}`;
    for (const [method, path, body] of [
      ["GET", base],
      ["PATCH", base, { Enabled: false }],
      ["DELETE", base],
      ["POST", `${base}/rotate-secret`],
      ["GET", `${base}/deliveries`],
      ["POST", `${base}/deliveries/msg_x/retry`],
    ] as [string, string, unknown?][]) {
      const res = await admin(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toEqual({ Success: false, Message: `No webhook with WebhookId '${theirs.WebhookId}' in store '${mine.storeId}'.` });
    }
    expect((await admin("GET", `/stores/${other.storeId}/webhooks/${theirs.WebhookId}`)).json.Webhook).toMatchObject({
      Enabled: true,
      PreviousSecretExpiresAt: null,
    });
    expect((await admin("POST", `/stores/st_unknown/webhooks`, { Url: "https://x.example", Events: ["*"] })).status).toBe(404);
  });

  it("the deliveries list refuses an unknown status and an unknown event id is a 404", async () => {
    const { storeId } = await storeWithToken();
    const created = await createWebhook(storeId, "https://erp.example/hooks");
    const res = await admin("GET", `/stores/${storeId}/webhooks/${created.WebhookId}/deliveries?status=lost`);
    expect(res.status).toBe(400);
    expect(res.json.Message).toMatch(/^'status': .*"pending".*"delivered".*"failed"/);
    const retry = await admin("POST", `/stores/${storeId}/webhooks/${created.WebhookId}/deliveries/msg_unknown/retry`);
    expect(retry.status).toBe(404);
    expect(retry.json.Message).toBe(`Webhook '${created.WebhookId}' has no event with EventId 'msg_unknown'.`);
  });
});

describe("OpenAPI document", () => {
  it("documents every webhook route with its answer", async () => {
    const res = await call("GET", "/openapi.json");
    const paths = (JSON.parse(res.text) as { paths: Record<string, Record<string, { tags?: string[] }>> }).paths;
    const base = "/admin/v1/stores/{storeId}/webhooks";
    const expected: [string, string][] = [
      [base, "post"],
      [base, "get"],
      [`${base}/{webhookId}`, "get"],
      [`${base}/{webhookId}`, "patch"],
      [`${base}/{webhookId}`, "delete"],
      [`${base}/{webhookId}/rotate-secret`, "post"],
      [`${base}/{webhookId}/deliveries`, "get"],
      [`${base}/{webhookId}/deliveries/{eventId}/retry`, "post"],
    ];
    for (const [path, method] of expected) expect(paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(["Webhooks"]);
  });
});
