// The service-side items of issue 20 that are each one small rule: what a 500 logs, and more below.
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { ADMIN_KEY, BASE, nextIp, storeWithToken } from "../helpers/api";
import { shardOf } from "../helpers/shards";
import { createSource } from "../helpers/sync";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The Worker with some bindings replaced, as a request reaches it. */
async function fetchWith(bindings: Partial<Env>, request: Request) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, ...bindings }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const unreachableDb = {
  prepare() {
    throw new Error("D1 is unreachable");
  },
  batch() {
    throw new Error("D1 is unreachable");
  },
} as unknown as D1Database;

describe("what a 500 logs", () => {
  it("names the route pattern, never the path that holds the token", async () => {
    const { storeId, token } = await storeWithToken();
    const logged: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args));
    // The store's shard is down: the count reads there.
    const shard = await shardOf(storeId);
    const res = await fetchWith({ [shard]: unreachableDb }, new Request(`${BASE}/v1/${token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01`));
    expect(res.status).toBe(500);
    const text = logged.map((args) => args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ")).join("\n");
    expect(text).toContain("unhandled error GET /v1/:token/orders/count");
    expect(text).not.toContain(token);
  });
});

describe("secrets too short to protect anything", () => {
  const base64 = (bytes: number) => btoa("k".repeat(bytes));
  const cases: [string, Partial<Env>, string][] = [
    ["a missing ADMIN_API_KEY", { ADMIN_API_KEY: undefined as unknown as string }, "ADMIN_API_KEY"],
    ["a 31-byte ADMIN_API_KEY", { ADMIN_API_KEY: "a".repeat(31) }, "ADMIN_API_KEY"],
    ["a 20-byte TOKEN_SIGNING_SECRET", { TOKEN_SIGNING_SECRET: "t".repeat(20) }, "TOKEN_SIGNING_SECRET"],
    ["a SOURCE_SETTINGS_KEY of 16 bytes", { SOURCE_SETTINGS_KEY: base64(16) }, "SOURCE_SETTINGS_KEY"],
    ["a SOURCE_SETTINGS_KEY that is not base64", { SOURCE_SETTINGS_KEY: "!".repeat(44) }, "SOURCE_SETTINGS_KEY"],
  ];
  for (const [what, bindings, name] of cases) {
    it(`${what}: every request is refused with 503, and the log names it`, async () => {
      const logged: string[] = [];
      vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
      for (const path of ["/admin/v1/stores", "/v1/Authorization", "/console/login"]) {
        const res = await fetchWith(bindings, new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${"a".repeat(31)}` } }));
        expect(res.status, path).toBe(503);
        const body = (await res.json()) as { Success: boolean; Message: string };
        expect(body).toEqual({
          Success: false,
          Message: "The service is not configured: a secret it needs is missing, short or unusable. Its operator must set it (see docs/security.md).",
        });
        expect(body.Message).not.toContain(name);
      }
      expect(logged.some((line) => line.includes(name) && /32 (random )?bytes/.test(line))).toBe(true);
    });
  }

  it("a SOURCE_SETTINGS_KEY the cipher cannot use (35 bytes, 24 bytes) is refused at start-up, never a 500 at source creation", async () => {
    // 35 bytes: what the old example file's placeholder decoded to. The check took it (>= 32), AES-GCM did not.
    for (const bytes of [35, 24, 33, 64]) {
      const logged: string[] = [];
      vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
      const { storeId } = await storeWithToken();
      const res = await fetchWith(
        { SOURCE_SETTINGS_KEY: base64(bytes) },
        new Request(`${BASE}/admin/v1/stores/${storeId}/sources`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ Type: "simulated", Name: `Sim ${bytes}`, Settings: {} }),
        }),
      );
      expect(res.status, `${bytes} bytes`).toBe(503);
      expect(logged.some((line) => line.includes("SOURCE_SETTINGS_KEY") && line.includes(`${bytes} bytes`) && line.includes("exactly 32"))).toBe(true);
      vi.restoreAllMocks();
    }
  });

  it(
    "a SOURCE_SETTINGS_KEY of 32 bytes with the newline `openssl rand -base64 32` prints is the key the cipher uses: sources are created and " + "read",
    async () => {
      const key = `${base64(32)}\n`;
      const { storeId } = await storeWithToken();
      const created = await fetchWith(
        { SOURCE_SETTINGS_KEY: key },
        new Request(`${BASE}/admin/v1/stores/${storeId}/sources`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ Type: "simulated", Name: "Sim newline", Settings: {} }),
        }),
      );
      expect(created.status, await created.clone().text()).toBe(200);
      const sourceId = ((await created.json()) as { Source: { SourceId: string } }).Source.SourceId;
      const read = await fetchWith(
        { SOURCE_SETTINGS_KEY: key },
        new Request(`${BASE}/admin/v1/stores/${storeId}/sources/${sourceId}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
      );
      expect(read.status, await read.clone().text()).toBe(200);
    },
  );

  it("the placeholders of .dev.vars.example run nothing: each is refused with a message saying it is the example's placeholder", async () => {
    const example = Object.fromEntries(
      env.TEST_DEV_VARS_EXAMPLE.split("\n")
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    ) as Record<string, string>;
    expect(Object.keys(example).sort()).toEqual(["ADMIN_API_KEY", "SOURCE_SETTINGS_KEY", "TOKEN_SIGNING_SECRET"]);
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
    const res = await fetchWith(example, new Request(`${BASE}/admin/v1/stores`, { headers: { authorization: `Bearer ${example.ADMIN_API_KEY}` } }));
    expect(res.status).toBe(503);
    for (const name of ["ADMIN_API_KEY", "TOKEN_SIGNING_SECRET", "SOURCE_SETTINGS_KEY"]) {
      expect(
        logged.some((line) => line.includes(`${name} is the placeholder of .dev.vars.example`)),
        name,
      ).toBe(true);
    }
  });

  it("32 bytes are enough", async () => {
    const res = await fetchWith(
      { ADMIN_API_KEY: "a".repeat(32), TOKEN_SIGNING_SECRET: "t".repeat(32), SOURCE_SETTINGS_KEY: base64(32) },
      new Request(`${BASE}/admin/v1/stores`, { headers: { authorization: `Bearer ${"a".repeat(32)}` } }),
    );
    expect(res.status).toBe(200);
  });
});

/** A console form post from the console's own origin, from one client address. */
function consolePost(path: string, body: BodyInit, contentType: string, ip: string) {
  return exports.default.fetch(
    new Request(BASE + path, { method: "POST", body, redirect: "manual", headers: { origin: BASE, "content-type": contentType, "cf-connecting-ip": ip } }),
  );
}
const signInWith = (key: string, ip = nextIp()) => consolePost("/console/login", new URLSearchParams({ key }), "application/x-www-form-urlencoded", ip);

describe("console sign-in with odd input", () => {
  it("a key with a character above U+00FF, or a CR/LF, is a wrong key (401), not a 500", async () => {
    for (const key of ["ключ-админа", "€uro-key", "key\r\nX-Injected: 1", "key\nmore"]) {
      const res = await signInWith(key);
      expect(res.status, JSON.stringify(key)).toBe(401);
      expect(await res.text()).toContain("That admin key is not valid");
    }
  });

  it("a malformed multipart body is a 400, not a 500", async () => {
    const res = await consolePost("/console/login", "--x\r\nContent-Disposition: form-data\r\n\r\nno end", "multipart/form-data; boundary=x", nextIp());
    expect(res.status).toBe(400);
  });
});

describe("admin key failures per client address", () => {
  it("are limited: after 20 wrong keys an address gets 429 with Retry-After, even for the right key; other addresses are not affected", async () => {
    const ip = nextIp();
    const wrong = () =>
      exports.default.fetch(new Request(`${BASE}/admin/v1/stores`, { headers: { authorization: "Bearer wrong-key", "cf-connecting-ip": ip } }));
    for (let i = 0; i < 10; i++) expect((await wrong()).status).toBe(403);
    // Failed console sign-ins count against the same address.
    for (let i = 0; i < 10; i++) expect((await signInWith("wrong-key", ip)).status).toBe(401);
    const limited = await wrong();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const right = await exports.default.fetch(
      new Request(`${BASE}/admin/v1/stores`, { headers: { authorization: `Bearer ${ADMIN_KEY}`, "cf-connecting-ip": ip } }),
    );
    expect(right.status).toBe(429);
    expect((await signInWith(ADMIN_KEY, ip)).status).toBe(429);
    const elsewhere = await exports.default.fetch(
      new Request(`${BASE}/admin/v1/stores`, { headers: { authorization: `Bearer ${ADMIN_KEY}`, "cf-connecting-ip": nextIp() } }),
    );
    expect(elsewhere.status).toBe(200);
  });

  it("per-address limiter objects delete their storage once idle", async () => {
    const ip = nextIp();
    const res = await exports.default.fetch(new Request(`${BASE}/admin/v1/stores`, { headers: { authorization: "Bearer wrong-key", "cf-connecting-ip": ip } }));
    expect(res.status).toBe(403);
    const stub = env.RATE_LIMITER.getByName(`ip:${ip}`);
    const keys = () => runInDurableObject(stub, (_instance, state) => [...state.storage.kv.list()].length);
    expect(await keys()).toBeGreaterThan(0);
    // One failure refills in 5 s; the alarm set for then finds the object idle and empties it
    // (run here in case it has not fired by itself yet).
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    await runDurableObjectAlarm(stub);
    expect(await keys()).toBe(0);
  });
});

describe("admin JSON bodies", () => {
  const big = (bytes: number) => JSON.stringify({ Name: "Store", Padding: "x".repeat(bytes) });
  const send = (body: BodyInit, headers: Record<string, string> = {}) =>
    exports.default.fetch(
      new Request(`${BASE}/admin/v1/stores`, {
        method: "POST",
        body,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", ...headers },
      }),
    );
  const streamOf = (text: string) => new Response(text).body!;

  it("are read up to 1 MiB, not 100: 413 for a larger one, declared or streamed", async () => {
    const declared = await send(big(2 * 1024 * 1024));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ Success: false, Message: "The request body is larger than 1 MiB." });
    const streamed = await send(streamOf(big(2 * 1024 * 1024)));
    expect(streamed.status).toBe(413);
    // A body under the cap is read as before (the unknown field is ignored).
    expect((await send(big(1000))).status).toBe(200);
    expect((await send(streamOf(big(1000)))).status).toBe(200);
  });

  it("the set-aside retry body too", async () => {
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId);
    const res = await exports.default.fetch(
      new Request(`${BASE}/admin/v1/stores/${storeId}/sources/${sourceId}/set-aside/retry`, {
        method: "POST",
        body: streamOf(JSON.stringify({ OrderNumbers: ["x".repeat(2 * 1024 * 1024)] })),
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      }),
    );
    expect(res.status).toBe(413);
  });
});
