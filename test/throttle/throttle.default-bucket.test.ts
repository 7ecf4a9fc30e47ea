// The bucket a key gets when the operator sets none (decisions 5, spec 8): 50 calls, draining
// 2 a second. Every other test key overrides BucketSize and LeakRatePerSecond, so these are the
// tests that exercise the default itself, through whole requests. The Durable Objects run in this
// isolate, so a frozen Date freezes the bucket's clock too and every count below is exact.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, call, createStore, tokenFor } from "../helpers/api";

const NOW = 1_800_000_000_000;
const COUNT = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

const limits = (res: { headers: Headers }) => [res.headers.get("X-RateLimit-Limit"), res.headers.get("X-RateLimit-Remaining")];

/** A key created the way an operator does who names no bucket: no BucketSize, no LeakRatePerSecond. */
async function keyWithoutOverrides(storeId: string) {
  const res = await admin("POST", `/stores/${storeId}/consumer-keys`, { Name: "default bucket", Scopes: ["OrdersRead"], Lifespan: "NeverExpires" });
  expect(res.status).toBe(200);
  expect(res.json.ConsumerKey).toMatchObject({ BucketSize: null, LeakRatePerSecond: null });
  return res.json.ConsumerKey as { ConsumerKeyId: string; Key: string };
}

async function burst(token: string, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await call("GET", `/v1/${token}${COUNT}`));
  return out;
}

async function expectDefaultBucket(token: string) {
  const admitted = await burst(token, 50);
  expect(admitted.map((r) => r.status)).toEqual(Array(50).fill(200));
  expect(admitted.map(limits)).toEqual(Array.from({ length: 50 }, (_, i) => ["50", String(49 - i)]));

  const refused = await call("GET", `/v1/${token}${COUNT}`);
  expect(refused.status).toBe(429);
  expect(refused.json).toEqual({ Success: false, Message: "The call limit was exceeded; retry after 1 second." });
  expect(refused.headers.get("Retry-After")).toBe("1");
  expect(limits(refused)).toEqual(["50", "0"]);

  // 2 a second: the next call fits 500 ms after the burst, not a millisecond earlier.
  vi.setSystemTime(NOW + 499);
  expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(429);
  vi.setSystemTime(NOW + 500);
  const next = await call("GET", `/v1/${token}${COUNT}`);
  expect(next.status).toBe(200);
  expect(next.json).toEqual({ Success: true, Message: "", Count: 0 });
  expect(limits(next)).toEqual(["50", "0"]);
  expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(429);
  // Ten seconds later 20 calls have drained.
  vi.setSystemTime(NOW + 10_500);
  expect(limits(await call("GET", `/v1/${token}${COUNT}`))).toEqual(["50", "19"]);
}

describe("the default bucket", () => {
  it("admits 50 calls of a key created without overrides, refuses the 51st with Retry-After 1, and admits one more after 500 ms", async () => {
    const storeId = await createStore("Default bucket");
    const key = await keyWithoutOverrides(storeId);
    await expectDefaultBucket(await tokenFor(key.Key));
  });

  it("gives the same bucket to a key whose limiter reads its grant from D1 (never told by the admin API)", async () => {
    const storeId = await createStore("Default bucket from D1");
    const key = await keyWithoutOverrides(storeId);
    // Forget what the admin API told the key's object, as a reset of its storage would.
    await runInDurableObject(env.RATE_LIMITER.getByName(key.ConsumerKeyId), (_instance, state) => {
      state.storage.kv.delete("grant");
    });
    await expectDefaultBucket(await tokenFor(key.Key));
  });
});
