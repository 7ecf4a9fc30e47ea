// Leases as a client and an operator meet them, through whole requests: this isolate's Worker is
// one lease holder, and a LeaseBook driven from the test plays a second isolate against the same
// key's RateLimiter (the trips authorize.ts makes, made by hand). The rate-limit fields are read
// back with a structured-field parser (test/helpers/rate-limit-fields.ts).
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/app";
import { normalizeRequest } from "../../src/http/normalize";
import { LEASE_MS, type LeaseRecord } from "../../src/throttle/lease";
import { LeaseBook } from "../../src/throttle/lease-book";
import type { TripAnswer } from "../../src/throttle/rate-limiter";
import { admin, BASE, call, createKey, createStore, nextIp, sampleOrder, tokenFor } from "../helpers/api";
import { readRateLimit } from "../helpers/rate-limit-fields";

const NOW = 1_800_000_000_000;
const COUNT = "/Orders/count?fromDate=2026-01-01&toDate=2027-01-01";
const DEFAULT = { bucketSize: 50, leakRatePerSecond: 2 };

afterEach(() => {
  vi.useRealTimers();
});

function freeze(at = NOW) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
}

async function keyWithToken(bucket = DEFAULT) {
  const storeId = await createStore();
  const key = await createKey(storeId, bucket);
  return { storeId, key, token: await tokenFor(key.Key) };
}

/** A call of another isolate: from its book's lease, or by the trip authorize.ts would make. */
async function otherIsolate(book: LeaseBook, keyId: string, scope = "OrdersRead"): Promise<{ allowed: boolean; via: "lease" | "object"; answer?: TripAnswer }> {
  const now = Date.now();
  const local = book.admit(keyId, scope, now);
  if (local.kind === "admit") return { allowed: true, via: "lease" };
  if (local.kind === "refuse") return { allowed: false, via: "lease" };
  const report = book.release(keyId, now);
  const answer = await env.RATE_LIMITER.getByName(keyId).trip({
    keyId,
    scope,
    holder: book.holder,
    admit: true,
    want: book.want(keyId, LEASE_MS),
    ...(report ? { report } : {}),
  });
  if (answer.lease) book.accept(keyId, answer.lease.terms, answer.lease.grant, now, Date.now());
  return { allowed: answer.admission.allowed, via: "object", answer };
}

/** The leases the key's object holds outstanding. */
function leasesOf(keyId: string): Promise<LeaseRecord[]> {
  return runInDurableObject(env.RATE_LIMITER.getByName(keyId), (_o, state) => state.storage.kv.get<LeaseRecord[]>("leases") ?? []);
}

/** The Worker with a RATE_LIMITER namespace that counts the round trips made through it (one namespace object: one lease book). */
function countingNamespace() {
  const trips: string[] = [];
  const namespace = {
    getByName(name: string) {
      const stub = env.RATE_LIMITER.getByName(name);
      return {
        trip: (request: Parameters<typeof stub.trip>[0]) => {
          trips.push(name);
          return stub.trip(request);
        },
        admitAnonymous: () => stub.admitAnonymous(),
        viewAnonymous: () => stub.viewAnonymous(),
      };
    },
  } as unknown as Env["RATE_LIMITER"];
  async function fetch(path: string) {
    const ctx = createExecutionContext();
    const response = await app.fetch(normalizeRequest(new Request(BASE + path)), { ...env, RATE_LIMITER: namespace }, ctx);
    await waitOnExecutionContext(ctx);
    await response.text();
    return response;
  }
  return { trips, fetch };
}

describe("calls admitted from the isolate's lease", () => {
  it("a key called twice a second makes at most 10 round trips per 100 calls, every call admitted with the exact bucket's numbers", async () => {
    const { token } = await keyWithToken();
    freeze();
    const worker = countingNamespace();
    const answers = [];
    for (let i = 0; i < 100; i++) {
      vi.setSystemTime(NOW + i * 500);
      answers.push(await worker.fetch(`/v1/${token}${COUNT}`));
    }
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(answers.map((r) => r.headers.get("X-RateLimit-Remaining"))).toEqual(Array(100).fill("49"));
    expect(worker.trips.length).toBeLessThanOrEqual(10);
    expect(worker.trips.length).toBeGreaterThanOrEqual(8);
  });

  it("the Worker's own requests take from one lease: the object sees no trip between them", async () => {
    const { key, token } = await keyWithToken({ bucketSize: 10_000, leakRatePerSecond: 1_000 });
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
    const held = await leasesOf(key.ConsumerKeyId);
    expect(held).toHaveLength(1);
    for (let i = 0; i < 10; i++) expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
    expect(await leasesOf(key.ConsumerKeyId)).toEqual(held);
  });
});

describe("concurrent calls of one key in one isolate", () => {
  it("take turns for the object and share its leases: 80 at one moment admit exactly the 50 the bucket holds", async () => {
    const { key, token } = await keyWithToken();
    freeze();
    const answers = await Promise.all(Array.from({ length: 80 }, () => call("GET", `/v1/${token}${COUNT}`)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(50);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(30);
    // No lease was lost on the way: none is left outstanding but the one this isolate holds.
    expect((await leasesOf(key.ConsumerKeyId)).length).toBeLessThanOrEqual(1);
  });
});

describe("two lease holders on one key's bucket", () => {
  it("admit no more than capacity + rate x elapsed between them, and at most a lease less", async () => {
    const { key, token } = await keyWithToken();
    freeze();
    const other = new LeaseBook("other-isolate");
    let admitted = 0;
    for (let i = 0; i < 60; i++) {
      if ((await call("GET", `/v1/${token}${COUNT}`)).status === 200) admitted += 1;
      if ((await otherIsolate(other, key.ConsumerKeyId)).allowed) admitted += 1;
    }
    // At one moment: 50 at most; the other isolate's lease may hold back up to 12.
    expect(admitted).toBeLessThanOrEqual(50);
    expect(admitted).toBeGreaterThanOrEqual(50 - 12);
    // Ten seconds more, both calling every 100 ms: 20 more drain in.
    for (let t = 100; t <= 10_000; t += 100) {
      vi.setSystemTime(NOW + t);
      if ((await call("GET", `/v1/${token}${COUNT}`)).status === 200) admitted += 1;
      if ((await otherIsolate(other, key.ConsumerKeyId)).allowed) admitted += 1;
    }
    expect(admitted).toBeLessThanOrEqual(70);
    expect(admitted).toBeGreaterThanOrEqual(70 - 2 * 12);
  });
});

describe("a grant change while another isolate holds a lease", () => {
  it("revocation answers once the other isolate reports its lease; then its next call and the Worker's are refused though both held leases", async () => {
    const { key, token } = await keyWithToken();
    const other = new LeaseBook("other-isolate");
    expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
    expect(await otherIsolate(other, key.ConsumerKeyId)).toMatchObject({ allowed: true, via: "object" });
    expect(await otherIsolate(other, key.ConsumerKeyId)).toMatchObject({ allowed: true, via: "lease" });

    let answered = false;
    const revoking = admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The other isolate cannot know yet: its lease still admits, so the DELETE must not have answered.
    expect(answered).toBe(false);
    expect(await otherIsolate(other, key.ConsumerKeyId)).toMatchObject({ allowed: true, via: "lease" });
    // Its next trip (here: handing its lease back, as a write's or an expiry's would) ends the wait.
    const report = other.release(key.ConsumerKeyId, Date.now())!;
    const back = await env.RATE_LIMITER.getByName(key.ConsumerKeyId).trip({
      keyId: key.ConsumerKeyId,
      scope: "OrdersRead",
      holder: other.holder,
      admit: true,
      want: 100,
      report,
    });
    expect(back.admission).toMatchObject({ allowed: false, reason: "revoked" });
    expect(back.lease).toBeNull();
    expect((await revoking).status).toBe(200);

    const refused = await call("GET", `/v1/${token}${COUNT}`, { headers: { "cf-connecting-ip": nextIp() } });
    expect(refused.status).toBe(401);
    expect(refused.json.Message).toMatch(/revoked/);
    expect(await otherIsolate(other, key.ConsumerKeyId)).toMatchObject({ allowed: false, via: "object" });
    expect(await leasesOf(key.ConsumerKeyId)).toEqual([]);
  });

  it("without a report, revocation answers when the other isolate's lease has expired, and never later than one lease", async () => {
    const { key } = await keyWithToken();
    const other = new LeaseBook("silent-isolate");
    await otherIsolate(other, key.ConsumerKeyId);
    const [lease] = await leasesOf(key.ConsumerKeyId);
    const started = Date.now();
    expect((await admin("DELETE", `/consumer-keys/${key.ConsumerKeyId}`)).status).toBe(200);
    const answeredAt = Date.now();
    expect(answeredAt).toBeGreaterThanOrEqual(lease!.expiresAt);
    expect(answeredAt - started).toBeLessThanOrEqual(LEASE_MS + 1_000);
    // The isolate's own clock has run out its lease too: it must ask, and is refused.
    expect(other.admit(key.ConsumerKeyId, "OrdersRead", Date.now()).kind).toBe("trip");
    expect(await otherIsolate(other, key.ConsumerKeyId)).toMatchObject({ allowed: false, via: "object" });
  });

  it(
    "a write in this isolate answers once the other isolate's lease (issued before the write's bookmark) has ended, and the key then gets no " + "leases",
    async () => {
      const { key, token } = await keyWithToken();
      const other = new LeaseBook("reading-isolate");
      expect((await call("GET", `/v1/${token}${COUNT}`)).status).toBe(200);
      await otherIsolate(other, key.ConsumerKeyId);
      let answered = false;
      const writing = call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ OrderSourceOrderNumber: "RYW-LEASE" }) }).then((res) => {
        answered = true;
        return res;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(answered).toBe(false);
      const report = other.release(key.ConsumerKeyId, Date.now())!;
      const next = await env.RATE_LIMITER.getByName(key.ConsumerKeyId).trip({
        keyId: key.ConsumerKeyId,
        scope: "OrdersRead",
        holder: other.holder,
        admit: true,
        want: 100,
        report,
      });
      expect((await writing).status).toBe(200);
      // The other isolate's read starts at the write's bookmark, and it asks the object for each call from now on.
      expect(next.admission).toMatchObject({ allowed: true, bookmark: expect.any(String) });
      expect(next.lease).toBeNull();
      const list = await call("GET", `/v1/${token}/Orders?page=1&pageSize=100&fromDate=2000-01-01&toDate=2100-01-01`);
      expect((list.json.Orders as { OrderSourceOrderNumber: string }[]).map((o) => o.OrderSourceOrderNumber)).toEqual(["RYW-LEASE"]);
    },
  );
});

describe("the rate-limit fields, read as structured fields", () => {
  it("show the same numbers as X-RateLimit-* whether the call was admitted by the object, from the lease, refused, or answered before any bucket", async () => {
    const { token } = await keyWithToken({ ...DEFAULT });
    freeze();
    const first = await call("GET", `/v1/${token}${COUNT}`);
    const second = await call("GET", `/v1/${token}${COUNT}`);
    expect(readRateLimit(first.headers)).toEqual({
      policy: { name: "bucket", q: 50, w: 25 },
      current: { name: "bucket", r: 49, t: 1 },
      legacy: { limit: 50, remaining: 49, reset: 1 },
    });
    expect(readRateLimit(second.headers)).toEqual({
      policy: { name: "bucket", q: 50, w: 25 },
      current: { name: "bucket", r: 48, t: 1 },
      legacy: { limit: 50, remaining: 48, reset: 1 },
    });
    const rest = [];
    for (let i = 0; i < 48; i++) rest.push(await call("GET", `/v1/${token}${COUNT}`));
    expect(readRateLimit(rest.at(-1)!.headers).current).toEqual({ name: "bucket", r: 0, t: 25 });
    const refused = await call("GET", `/v1/${token}${COUNT}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(readRateLimit(refused.headers)).toEqual({
      policy: { name: "bucket", q: 50, w: 25 },
      current: { name: "bucket", r: 0, t: 25 },
      legacy: { limit: 50, remaining: 0, reset: 25 },
    });
    // 10.2 s later 20.4 have drained: this call leaves 14.8 + 0.5 s of backlog, shown as 16; 19 whole calls remain.
    vi.setSystemTime(NOW + 10_200);
    const later = readRateLimit((await call("GET", `/v1/${token}${COUNT}`)).headers);
    expect(later.current).toEqual({ name: "bucket", r: 19, t: 16 });
    expect(later.legacy).toEqual({ limit: 50, remaining: 19, reset: 16 });

    const early = await call("GET", "/v1/no/such/thing", { headers: { "cf-connecting-ip": nextIp() } });
    expect(early.status).toBe(404);
    expect(readRateLimit(early.headers)).toEqual({
      policy: { name: "bucket", q: 50, w: 25 },
      current: { name: "bucket", r: 50, t: 0 },
      legacy: { limit: 50, remaining: 50, reset: 0 },
    });
  });

  it("carries a key's own bucket: q its size, w the seconds it takes to drain", async () => {
    const { token } = await keyWithToken({ bucketSize: 120, leakRatePerSecond: 0.5 });
    const fields = readRateLimit((await call("GET", `/v1/${token}${COUNT}`)).headers);
    expect(fields.policy).toEqual({ name: "bucket", q: 120, w: 240 });
    expect(fields.current).toEqual({ name: "bucket", r: 119, t: 2 });
    expect(fields.legacy).toEqual({ limit: 120, remaining: 119, reset: 2 });
  });
});
