// Revocation must not be lost when a key's RateLimiter cannot be reached: the admin call fails
// with 503 and changes nothing, so repeating it finishes the job.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { app } from "../../src/app";
import { normalizeRequest } from "../../src/http/normalize";
import { ADMIN_KEY, admin, BASE, call, storeWithToken } from "../helpers/api";

const brokenLimiter = {
  getByName: () => new Proxy({}, { get: () => () => Promise.reject(new Error("Durable Object reset because its code was updated.")) }),
} as unknown as Env["RATE_LIMITER"];

async function adminWithBrokenLimiter(method: string, path: string) {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const ctx = createExecutionContext();
  const request = new Request(`${BASE}/admin/v1${path}`, { method, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const response = await app.fetch(normalizeRequest(request), { ...env, RATE_LIMITER: brokenLimiter }, ctx);
  await waitOnExecutionContext(ctx);
  logged.mockRestore();
  return { status: response.status, headers: response.headers, json: (await response.json()) as { Success: boolean; Message: string } };
}

const count = (token: string) => call("GET", `/v1/${token}/Orders/count?fromDate=2026-01-01&toDate=2027-01-01`);

describe("revocation when the limiter is unreachable", () => {
  it("DELETE of a key answers 503, leaves the key usable in D1 and the limiter, and a retry revokes it", async () => {
    const { key, token } = await storeWithToken();
    const failed = await adminWithBrokenLimiter("DELETE", `/consumer-keys/${key.ConsumerKeyId}`);
    expect(failed.status).toBe(503);
    expect(failed.json).toMatchObject({ Success: false });
    expect(failed.json.Message).toMatch(/rate limiter could not be reached; nothing was changed/);
    expect(failed.headers.get("Retry-After")).toBe("1");
    const row = await env.DB.prepare("select revoked_at from consumer_keys where id = ?").bind(key.ConsumerKeyId).first();
    expect(row).toEqual({ revoked_at: null });
    expect((await count(token)).status).toBe(200);

    const retried = await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`);
    expect(retried.status).toBe(200);
    expect((await count(token)).status).toBe(401);
  });

  it("DELETE of a store answers 503 and keeps the store, so that a retry can still revoke its keys", async () => {
    const { storeId, token } = await storeWithToken();
    const failed = await adminWithBrokenLimiter("DELETE", `/stores/${storeId}`);
    expect(failed.status).toBe(503);
    expect((await admin("GET", `/stores/${storeId}`)).status).toBe(200);

    expect((await admin("DELETE", `/stores/${storeId}`)).status).toBe(200);
    expect((await admin("GET", `/stores/${storeId}`)).status).toBe(404);
    expect((await count(token)).status).toBe(401);
  });
});
