// The throttle as a client meets it: whole requests through the Worker.
// The Durable Objects run in this isolate, so a frozen Date freezes the buckets' clock too and
// every count below is exact, however fast the machine.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/app";
import { issueToken } from "../../src/auth/tokens";
import { normalizeRequest } from "../../src/http/normalize";
import { admin, BASE, call, createKey, createStore, insert, nextIp, sampleOrder, storeWithToken, tokenFor } from "../helpers/api";

const NOW = 1_800_000_000_000;
const COUNT = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

/** The spec's default bucket: 50 calls, 2 per second. */
const defaultBucket = { bucketSize: 50, leakRatePerSecond: 2 };

function limits(res: { headers: Headers }) {
  return {
    limit: res.headers.get("X-RateLimit-Limit"),
    remaining: res.headers.get("X-RateLimit-Remaining"),
  };
}

async function repeat(times: number, request: () => ReturnType<typeof call>) {
  const out = [];
  for (let i = 0; i < times; i++) out.push(await request());
  return out;
}

/** The app with another RATE_LIMITER binding: one that fails, or one that records its use. */
async function callWithLimiter(limiter: Env["RATE_LIMITER"], method: string, path: string, body?: unknown, ip = nextIp()) {
  // The Worker logs the failure it hides from the client; keep the test output clean.
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const ctx = createExecutionContext();
  const request = new Request(BASE + path, {
    method,
    headers: { "content-type": "application/json", "cf-connecting-ip": ip },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await app.fetch(normalizeRequest(request), { ...env, RATE_LIMITER: limiter }, ctx);
  await waitOnExecutionContext(ctx);
  logged.mockRestore();
  return { status: response.status, headers: response.headers, json: (await response.json()) as { Success: boolean; Message: string } };
}

/** A limiter that cannot be reached: every RPC throws. */
const brokenLimiter = {
  getByName: () => new Proxy({}, { get: () => () => Promise.reject(new Error("Durable Object reset because its code was updated.")) }),
} as unknown as Env["RATE_LIMITER"];

function callWithBrokenLimiter(method: string, path: string, body?: unknown, ip?: string) {
  return callWithLimiter(brokenLimiter, method, path, body, ip);
}

/** The real limiter, noting the name of every object the request calls. */
function recordingLimiter(names: string[]) {
  return {
    getByName: (name: string) => {
      names.push(name);
      return env.RATE_LIMITER.getByName(name);
    },
  } as unknown as Env["RATE_LIMITER"];
}

describe("throttle on /v1 requests", () => {
  it("admits a burst of 50, answers the 51st with 429, the envelope and Retry-After 1, then one per 500 ms", async () => {
    const { token } = await storeWithToken(defaultBucket);
    const burst = await repeat(50, () => call("GET", `/v1/${token}${COUNT}`));
    expect(burst.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(burst.map((r) => limits(r))).toEqual(Array.from({ length: 50 }, (_, i) => ({ limit: "50", remaining: String(49 - i) })));

    const refused = await call("GET", `/v1/${token}${COUNT}`);
    expect(refused.status).toBe(429);
    expect(refused.json.Success).toBe(false);
    expect(refused.json.Message).toMatch(/call limit was exceeded; retry after 1 second/);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(limits(refused)).toEqual({ limit: "50", remaining: "0" });

    vi.setSystemTime(NOW + 499);
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(429);
    vi.setSystemTime(NOW + 500);
    const next = await call("GET", `/v1/${token}${COUNT}`);
    expect(next.status).toBe(200);
    expect(limits(next)).toEqual({ limit: "50", remaining: "0" });
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(429);
  });

  it("rounds Retry-After up to whole seconds", async () => {
    const { token } = await storeWithToken({ bucketSize: 1, leakRatePerSecond: 0.4 });
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
    vi.setSystemTime(NOW + 1);
    const refused = await call("GET", `/v1/${token}${COUNT}`);
    expect(refused.status).toBe(429);
    // 2500 ms - 1 ms to wait: 3 seconds, never 2.
    expect(refused.headers.get("Retry-After")).toBe("3");
  });

  it("shares one bucket between every token of a key, and keeps other keys apart", async () => {
    const storeId = await createStore();
    const key = await createKey(storeId, defaultBucket);
    const first = await tokenFor(key.Key);
    vi.setSystemTime(NOW + 1); // a second token of the same key (tokens differ by their time)
    const second = await tokenFor(key.Key);
    expect(second).not.toBe(first);
    await repeat(25, () => call("GET", `/v1/${first}${COUNT}`));
    await repeat(25, () => call("GET", `/v1/${second}${COUNT}`));
    expect((await call("GET", `/v1/${first}${COUNT}`)).status).toBe(429);
    expect((await call("GET", `/v1/${second}${COUNT}`)).status).toBe(429);
    const other = await storeWithToken(defaultBucket);
    expect(limits(await call("GET", `/v1/${other.token}${COUNT}`))).toEqual({ limit: "50", remaining: "49" });
  });

  it("does not execute a refused call", async () => {
    const { token } = await storeWithToken({ bucketSize: 2, leakRatePerSecond: 0.001 });
    await insert(token);
    await insert(token);
    const refused = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder() });
    expect(refused.status).toBe(429);
    vi.setSystemTime(NOW + 1_000_000);
    const count = await call("GET", `/v1/${token}${COUNT}`);
    expect(count.json.Count).toBe(2);
  });

  it("puts X-RateLimit-* on every answer after authentication: 400, 404 and scope refusals", async () => {
    const { token } = await storeWithToken({ ...defaultBucket, scopes: ["OrdersRead"] });
    const badQuery = await call("GET", `/v1/${token}/Orders/count?fromDate=yesterday&toDate=2027-01-01`);
    expect(badQuery.status).toBe(400);
    expect(limits(badQuery)).toEqual({ limit: "50", remaining: "49" });

    const missing = await call("GET", `/v1/${token}/Orders/123456789`);
    expect(missing.status).toBe(404);
    expect(limits(missing)).toEqual({ limit: "50", remaining: "48" });

    // A missing scope is refused before the bucket: it takes nothing.
    const denied = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: {} });
    expect(denied.status).toBe(401);
    expect(denied.json.Message).toBe("Authorization has been denied for this request.");
    expect(limits(denied)).toEqual({ limit: "50", remaining: "48" });
    expect(limits(await call("GET", `/v1/${token}${COUNT}`))).toEqual({ limit: "50", remaining: "47" });
  });

  it("puts X-RateLimit-* on answers refused before any bucket, without taking from one", async () => {
    const ip = nextIp();
    const headers = { "cf-connecting-ip": ip };
    const answers = [
      await call("GET", "/v1/no/such/thing", { headers }),
      await call("POST", "/v1/anything/Orders/count", { headers }),
      await call("GET", "/v1/anything/Orders/count", { headers: { ...headers, accept: "text/html" } }),
      await call("GET", "http://hub.test/v1/anything/Orders/count", { headers }),
      await call("PUT", "/v1/anything/Orders/InsertOrder", { headers, raw: "x".repeat(1024 * 1024 + 1) }),
    ];
    expect(answers.map((r) => r.status)).toEqual([404, 405, 406, 403, 413]);
    for (const answer of answers) expect(limits(answer)).toEqual({ limit: "50", remaining: "50" });
  });

  it("throttles PUT /v1/Authorization per client IP: the 51st call from one address gets 429", async () => {
    const ip = nextIp();
    const guesses = await repeat(50, () => call("PUT", "/v1/Authorization", { body: { ConsumerKey: "ofh_guess" }, headers: { "cf-connecting-ip": ip } }));
    expect(guesses.map((r) => r.status)).toEqual(Array(50).fill(401));
    expect(limits(guesses[0]!)).toEqual({ limit: "50", remaining: "49" });
    expect(limits(guesses[49]!)).toEqual({ limit: "50", remaining: "0" });

    // Even the right key is not looked at from this address now.
    const storeId = await createStore();
    const key = await createKey(storeId);
    const refused = await call("PUT", "/v1/Authorization", { body: { ConsumerKey: key.Key }, headers: { "cf-connecting-ip": ip } });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ Success: false });
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(limits(refused)).toEqual({ limit: "50", remaining: "0" });

    const elsewhere = await call("PUT", "/v1/Authorization", { body: { ConsumerKey: key.Key }, headers: { "cf-connecting-ip": nextIp() } });
    expect(elsewhere.status).toBe(200);
    expect(limits(elsewhere)).toEqual({ limit: "50", remaining: "49" });

    // The refusal is remembered by the isolate: more guesses from the address cost no RPC.
    expect((await callWithBrokenLimiter("PUT", "/v1/Authorization", { ConsumerKey: "ofh_guess" }, ip)).status).toBe(429);
    vi.setSystemTime(NOW + 500);
    expect((await callWithBrokenLimiter("PUT", "/v1/Authorization", { ConsumerKey: "ofh_guess" }, ip)).status).toBe(503);
  });

  it("answers a garbage or forged token 401 without touching the key's bucket, and throttles its sender", async () => {
    const { key, token } = await storeWithToken(defaultBucket);
    const ip = nextIp();
    const headers = { "cf-connecting-ip": ip };
    const forged = `${key.ConsumerKeyId}.${token.split(".")[1]}.0.${"A".repeat(43)}`;
    const expired = await issueToken("test-token-signing-secret-0123456789", { consumerKeyId: key.ConsumerKeyId, issuedAt: NOW - 10, expiresAt: NOW - 1 });
    const attempts = [
      await call("GET", `/v1/not-a-token${COUNT}`, { headers }),
      await call("GET", `/v1/${forged}${COUNT}`, { headers }),
      await call("GET", `/v1/${expired}${COUNT}`, { headers }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(attempts[2]!.json.Message).toMatch(/expired/);
    expect(attempts.map((r) => limits(r).remaining)).toEqual(["49", "48", "47"]);
    // The key's own bucket is untouched.
    expect(limits(await call("GET", `/v1/${token}${COUNT}`))).toEqual({ limit: "50", remaining: "49" });

    await repeat(47, () => call("GET", `/v1/not-a-token${COUNT}`, { headers }));
    const refused = await call("GET", `/v1/not-a-token${COUNT}`, { headers });
    expect(refused.status).toBe(429);
  });

  it("costs exactly one Durable Object call per authorized request, and none of a key's for a bad token", async () => {
    const { key, token } = await storeWithToken(defaultBucket);
    const names: string[] = [];
    const ok = await callWithLimiter(recordingLimiter(names), "GET", `/v1/${token}${COUNT}`);
    expect(ok.status).toBe(200);
    expect(names).toEqual([key.ConsumerKeyId]);

    names.length = 0;
    const forged = `${key.ConsumerKeyId}.${token.split(".")[1]}.0.${"A".repeat(43)}`;
    const ip = nextIp();
    expect((await callWithLimiter(recordingLimiter(names), "GET", `/v1/${forged}${COUNT}`, undefined, ip)).status).toBe(401);
    expect((await callWithLimiter(recordingLimiter(names), "GET", `/v1/garbage${COUNT}`, undefined, ip)).status).toBe(401);
    expect(names).toEqual([`ip:${ip}`, `ip:${ip}`]);
  });

  it("answers 401 to a revoked key's token on its next call, and charges the attempt to its sender", async () => {
    const { key, token } = await storeWithToken(defaultBucket);
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
    expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
    const ip = nextIp();
    const refused = await call("GET", `/v1/${token}${COUNT}`, { headers: { "cf-connecting-ip": ip } });
    expect(refused.status).toBe(401);
    expect(refused.json.Message).toMatch(/revoked/);
    expect(limits(refused)).toEqual({ limit: "50", remaining: "49" });
  });

  it("fails closed: 503 with Retry-After when the limiter cannot be reached, and the call is not executed", async () => {
    const { token } = await storeWithToken(defaultBucket);
    const res = await callWithBrokenLimiter("PUT", `/v1/${token}/Orders/InsertOrder`, sampleOrder());
    expect(res.status).toBe(503);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toMatch(/cannot check its call limit/);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect((await callWithBrokenLimiter("PUT", "/v1/Authorization", { ConsumerKey: "ofh_x" })).status).toBe(503);
    expect((await callWithBrokenLimiter("GET", `/v1/garbage${COUNT}`)).status).toBe(503);
    expect((await call("GET", `/v1/${token}${COUNT}`)).json.Count).toBe(0);
  });

  it("answers 429 from the isolate's memory of a refusal without the limiter, but never remembers an allow", async () => {
    const { token } = await storeWithToken({ bucketSize: 1, leakRatePerSecond: 1 });
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
    // Allowed a moment ago, yet an unreachable limiter still means 503.
    expect((await callWithBrokenLimiter("GET", `/v1/${token}${COUNT}`)).status).toBe(503);
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(429);
    // Refused until NOW + 1000: this isolate answers that alone.
    vi.setSystemTime(NOW + 999);
    const remembered = await callWithBrokenLimiter("GET", `/v1/${token}${COUNT}`);
    expect(remembered.status).toBe(429);
    expect(remembered.headers.get("Retry-After")).toBe("1");
    vi.setSystemTime(NOW + 1_000);
    expect((await callWithBrokenLimiter("GET", `/v1/${token}${COUNT}`)).status).toBe(503);
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
  });
});
