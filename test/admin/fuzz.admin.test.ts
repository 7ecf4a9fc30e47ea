// "No input may produce a 500" (decisions 1) for the operator routes: stores, consumer keys,
// maintenance, sources (each Type's Settings, PATCH merges, deliveries, retry, received) and
// POST /sync. A seeded PRNG makes every run send the same requests.
import { afterAll, describe, expect, it } from "vitest";
import { admin, createStore } from "../helpers/api";
import { countRows } from "../helpers/db";
import { storeD1 } from "../helpers/shards";
import { adminSent, expectNoFailures, fuzzer, send, toJson } from "../helpers/fuzz";

const SCOPES = ["FeedsRead", "OrdersCreate", "OrdersRead", "OrdersUpdate"];

async function sourceCount(storeId: string): Promise<number> {
  const row = await (await storeD1(storeId)).prepare("select count(*) as n from sources where store_id = ?").bind(storeId).first<{ n: number }>();
  return row?.n ?? 0;
}

afterAll(async () => {
  // The fuzz may have switched maintenance on with a valid body; leave it off for whoever follows.
  await admin("PUT", "/maintenance", { Enabled: false });
});

describe("fuzz: stores, consumer keys, maintenance", () => {
  it("answers 400 requests of malformed stores and keys with the envelope, never a 5xx", async () => {
    const f = fuzzer(20261122);
    const storeId = await createStore("Fuzz stores");
    const failures: string[] = [];
    const storeBase = { Name: "Shop", MaskBuyerPii: true };
    const keyBase = { Name: "key", Scopes: SCOPES, Lifespan: "7Days", BucketSize: 50, LeakRatePerSecond: 2 };
    const maintenanceBase = { Enabled: false, Message: "Back soon." };
    for (let i = 0; i < 400; i++) {
      const ct = f.contentType();
      const r = f.random();
      if (r < 0.2) await send(failures, adminSent("POST", "/stores", f.body(storeBase), ct));
      else if (r < 0.35) await send(failures, adminSent("PATCH", `/stores/${f.segment([storeId])}`, f.body(storeBase), ct));
      else if (r < 0.42) await send(failures, adminSent(f.pick(["GET", "DELETE", "PUT", "HEAD"]), `/stores/${f.segment(["st_nope"])}`, undefined, undefined));
      else if (r < 0.7) {
        const body = f.chance(0.3) ? toJson({ ...keyBase, Scopes: [f.value(), ...SCOPES.slice(f.int(4))] }) : f.body(keyBase);
        await send(failures, adminSent("POST", `/stores/${f.segment([storeId])}/consumer-keys`, body, ct));
      } else if (r < 0.78) await send(failures, adminSent("GET", `/stores/${f.segment([storeId])}/consumer-keys`, undefined, undefined));
      else if (r < 0.85) await send(failures, adminSent("DELETE", `/consumer-keys/${f.segment(["ck_nope"])}`, undefined, undefined));
      else {
        // Enabled stays false: a valid body must not switch the /v1 routes of other files off.
        const body = f.chance(0.8) ? toJson({ ...f.mutate(maintenanceBase), Enabled: f.chance(0.5) ? false : f.value() }) : f.pick(["{", "", "[]"]);
        const sent = body.includes('"Enabled":true') ? body.replace('"Enabled":true', '"Enabled":false') : body;
        await send(failures, adminSent("PUT", "/maintenance", sent, ct));
      }
    }
    expectNoFailures(failures);
  });

  it("stores nothing for a malformed store or key", async () => {
    const storeId = await createStore("Fuzz nothing stored");
    const stores = await countRows("stores");
    for (const body of [{ Name: "" }, { Name: null }, { Name: ["a"] }, { Name: "x".repeat(201) }, { Name: "ok", MaskBuyerPii: "yes" }]) {
      expect((await admin("POST", "/stores", body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(await countRows("stores")).toBe(stores);
    for (const body of [
      { Name: "k", Scopes: [], Lifespan: "7Days" },
      { Name: "k", Scopes: ["Everything"], Lifespan: "7Days" },
      { Name: "k", Scopes: SCOPES, Lifespan: "constructor" },
      { Name: "k", Scopes: SCOPES, Lifespan: "7Days", BucketSize: 0 },
      { Name: "k", Scopes: SCOPES, Lifespan: "7Days", LeakRatePerSecond: "2" },
    ]) {
      const res = await admin("POST", `/stores/${storeId}/consumer-keys`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.Message.length).toBeGreaterThan(0);
    }
    expect(await countRows("consumer_keys", storeId)).toBe(0);
  });
});

describe("unpaired surrogates in admin bodies", () => {
  it("refuses a lone surrogate in a store, key, source or maintenance body with 400 naming the field, instead of storing U+FFFD", async () => {
    const storeId = await createStore("Fuzz surrogates");
    const stores = await countRows("stores");
    const cases: [string, string, unknown, RegExp][] = [
      ["POST", "/stores", { Name: "Shop \ud800" }, /'Name' is not valid Unicode/],
      ["PATCH", `/stores/${storeId}`, { Name: "\udc00Shop" }, /'Name' is not valid Unicode/],
      ["POST", `/stores/${storeId}/consumer-keys`, { Name: "k\ud83d", Scopes: SCOPES, Lifespan: "7Days" }, /'Name' is not valid Unicode/],
      ["POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Sim\ud800", Enabled: false }, /'Name' is not valid Unicode/],
      [
        "POST",
        `/stores/${storeId}/sources`,
        { Type: "simulated", Name: "Sim", Enabled: false, Settings: { rejectOrderNumbers: ["A", "\udfff"] } },
        /'Settings.rejectOrderNumbers\[1\]' is not valid Unicode/,
      ],
      [
        "POST",
        `/stores/${storeId}/sources`,
        { Type: "walmart", Name: "W", Enabled: false, Settings: { clientId: "id\ud800", clientSecret: "s" } },
        /'Settings.clientId' is not valid Unicode/,
      ],
      ["PUT", "/maintenance", { Enabled: false, Message: "Back \ud800 soon" }, /'Message' is not valid Unicode/],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await admin(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.json.Message).toMatch(message);
    }
    expect(await countRows("stores")).toBe(stores);
    expect((await admin("GET", `/stores/${storeId}`)).json.Store).toMatchObject({ Name: "Fuzz surrogates" });
    expect(await countRows("consumer_keys", storeId)).toBe(0);
    expect(await sourceCount(storeId)).toBe(0);
    // A paired surrogate (an emoji) is text like any other and reads back as sent.
    const emoji = await admin("PATCH", `/stores/${storeId}`, { Name: "Shop 😀" });
    expect(emoji.status).toBe(200);
    expect((await admin("GET", `/stores/${storeId}`)).json.Store).toMatchObject({ Name: "Shop 😀" });
  });
});

describe("fuzz: sources", () => {
  it("answers malformed sources, Settings of every Type, PATCH merges, deliveries, retry and received without a 5xx", async () => {
    const f = fuzzer(7_450_311);
    const storeId = await createStore("Fuzz sources");
    const simulated = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Sim", Enabled: false, Settings: { ordersPerHour: 1 } });
    const walmart = await admin("POST", `/stores/${storeId}/sources`, {
      Type: "walmart",
      Name: "Walmart",
      Enabled: false,
      Settings: { clientId: "id", clientSecret: "secret", baseUrl: "https://marketplace.example" },
    });
    expect([simulated.status, walmart.status]).toEqual([200, 200]);
    const ids = [(simulated.json.Source as { SourceId: string }).SourceId, (walmart.json.Source as { SourceId: string }).SourceId];
    const settingsOf = {
      simulated: {
        ordersPerHour: 6,
        startAt: "2026-01-01T00:00:00Z",
        endAt: "2026-01-02T00:00:00Z",
        pageSize: 10,
        fault: { kind: "http500", retryAfterSeconds: 1, operations: ["acknowledge"] },
        rejectOrderNumbers: ["A"],
      },
      walmart: {
        clientId: "id",
        clientSecret: "secret",
        baseUrl: "https://marketplace.example",
        serviceName: "W",
        cancellationReason: "SELLER_CANCEL_OUT_OF_STOCK",
      },
    } as const;
    const failures: string[] = [];
    for (let i = 0; i < 400; i++) {
      const type = f.pick(["simulated", "walmart"] as const);
      const settings = f.chance(0.7) ? f.mutate(settingsOf[type]) : f.value();
      // Every source the fuzz creates is disabled, so no cycle (and no network) ever runs it.
      const base = { Type: f.chance(0.9) ? type : f.value(), Name: `S${f.int(30)}`, Settings: settings, Enabled: false };
      const ct = f.contentType();
      const r = f.random();
      const sourcePath = () => `/stores/${f.segment([storeId])}/sources/${f.segment(ids)}`;
      if (r < 0.3) {
        let body = f.body(base).replace('"Enabled":true', '"Enabled":false');
        // A body that lost its Enabled would create an enabled source (the default): put it back.
        if (body.startsWith('{"') && !body.includes('"Enabled":')) body = `{"Enabled":false,${body.slice(1)}`;
        await send(failures, adminSent("POST", `/stores/${f.segment([storeId])}/sources`, body, ct));
      } else if (r < 0.6) {
        const patch = f.mutate({ Name: `P${f.int(30)}`, Settings: f.chance(0.7) ? f.mutate(settingsOf[type]) : f.value() }, ["Enabled"]);
        if (patch.Enabled === true) patch.Enabled = false;
        await send(failures, adminSent("PATCH", sourcePath(), f.chance(0.9) ? toJson(patch) : f.body({}), ct));
      } else if (r < 0.7) {
        await send(
          failures,
          adminSent(
            "GET",
            `${sourcePath()}/deliveries?` +
              f.pick(["", "status=failed", "status=pending", "status=FAILED", "status=constructor", "status=", "status=a&status=b", "status=%00"]),
            undefined,
            undefined,
          ),
        );
      } else if (r < 0.78) {
        await send(failures, adminSent("POST", `${sourcePath()}/deliveries/retry`, f.chance(0.5) ? f.body({}) : undefined, ct));
      } else if (r < 0.86) {
        await send(failures, adminSent("GET", `${sourcePath()}/received`, undefined, undefined));
      } else if (r < 0.93) {
        await send(
          failures,
          adminSent(f.pick(["GET", "HEAD", "PUT"]), f.chance(0.5) ? sourcePath() : `/stores/${f.segment([storeId])}/sources`, undefined, undefined),
        );
      } else {
        await send(failures, adminSent("DELETE", `/stores/${f.segment([storeId])}/sources/${f.segment(["src_nope"])}`, undefined, undefined));
      }
    }
    expectNoFailures(failures);
    const enabled = await (await storeD1(storeId))
      .prepare("select count(*) as n from sources where store_id = ? and enabled = 1")
      .bind(storeId)
      .first<{ n: number }>();
    expect(enabled?.n).toBe(0);
  });

  it("stores nothing for a source whose Type, Name or Settings are refused", async () => {
    const storeId = await createStore("Fuzz sources nothing stored");
    for (const body of [
      { Type: "constructor", Name: "a" },
      { Type: "__proto__", Name: "a" },
      { Type: "simulated", Name: "" },
      { Type: "simulated", Name: "a", Settings: [] },
      { Type: "simulated", Name: "a", Settings: { ordersPerHour: -1 } },
      // Positive but so small that the order interval was Infinity: every import then failed in D1.
      { Type: "simulated", Name: "a", Settings: { ordersPerHour: 5e-324 } },
      { Type: "simulated", Name: "a", Settings: { ordersPerHour: 0.0009 } },
      { Type: "simulated", Name: "a", Settings: { unknown: 1 } },
      { Type: "walmart", Name: "a", Settings: { clientId: "x" } },
      { Type: "walmart", Name: "a", Settings: { clientId: "x", clientSecret: "y", baseUrl: "http://plain.example" } },
    ]) {
      const res = await admin("POST", `/stores/${storeId}/sources`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.Success).toBe(false);
    }
    expect(await sourceCount(storeId)).toBe(0);
  });

  it("refuses Settings over 64 KiB (a 500 kB rejectOrderNumbers) with 400, on create and on a PATCH merge", async () => {
    const storeId = await createStore("Fuzz big settings");
    // Under the 1 MiB a JSON body may hold (a larger one is 413 before it is read), over the Settings cap.
    const big = { rejectOrderNumbers: ["x".repeat(500_000)] };
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Big", Enabled: false, Settings: big });
    expect(created.status).toBe(400);
    expect(created.json.Message).toMatch(/'Settings' must be at most 65536 bytes/);
    expect(await sourceCount(storeId)).toBe(0);
    const walmart = await admin("POST", `/stores/${storeId}/sources`, {
      Type: "walmart",
      Name: "W",
      Enabled: false,
      Settings: { clientId: "c", clientSecret: "s".repeat(100_000) },
    });
    expect(walmart.status).toBe(400);
    const small = await admin("POST", `/stores/${storeId}/sources`, {
      Type: "simulated",
      Name: "Small",
      Enabled: false,
      Settings: { rejectOrderNumbers: ["A"] },
    });
    const id = (small.json.Source as { SourceId: string }).SourceId;
    const patched = await admin("PATCH", `/stores/${storeId}/sources/${id}`, { Settings: big });
    expect(patched.status).toBe(400);
    expect((await admin("GET", `/stores/${storeId}/sources/${id}`)).json.Source).toMatchObject({ Settings: { rejectOrderNumbers: ["A"] } });
  });

  it("concurrent creates of one source Name leave one row and answer 200 and 400", async () => {
    const storeId = await createStore("Fuzz concurrent sources");
    const body = { Type: "simulated", Name: "Twin", Enabled: false };
    const answers = await Promise.all([admin("POST", `/stores/${storeId}/sources`, body), admin("POST", `/stores/${storeId}/sources`, body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.json.Message).toMatch(/already has a source named 'Twin'/);
    expect(await sourceCount(storeId)).toBe(1);
  });

  it("concurrent renames of two sources onto one new Name answer 200 and 400 and leave the names unique", async () => {
    const storeId = await createStore("Fuzz concurrent renames");
    const ids: string[] = [];
    for (const Name of ["One", "Two"]) {
      const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name, Enabled: false });
      ids.push((res.json.Source as { SourceId: string }).SourceId);
    }
    const answers = await Promise.all(ids.map((id) => admin("PATCH", `/stores/${storeId}/sources/${id}`, { Name: "Same" })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const { results } = await (await storeD1(storeId))
      .prepare("select name from sources where store_id = ? order by name")
      .bind(storeId)
      .all<{ name: string }>();
    expect(results.map((r) => r.name).sort()).toEqual(answers[0]!.status === 200 ? ["Same", "Two"] : ["One", "Same"]);
  });

  it("lists a store with 120 sources (more than D1's 100 bound parameters a statement)", async () => {
    const storeId = await createStore("Fuzz many sources");
    for (let i = 0; i < 120; i++) {
      const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: `Many ${i}`, Enabled: false });
      expect(res.status).toBe(200);
    }
    const list = await admin("GET", `/stores/${storeId}/sources`);
    expect(list.status, list.text.slice(0, 200)).toBe(200);
    expect((list.json.Sources as unknown[]).length).toBe(120);
  });

  it("a PATCH that renames a source onto a taken Name answers 400 and changes nothing", async () => {
    const storeId = await createStore("Fuzz rename");
    const a = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "A", Enabled: false });
    await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "B", Enabled: false });
    const id = (a.json.Source as { SourceId: string }).SourceId;
    const res = await admin("PATCH", `/stores/${storeId}/sources/${id}`, { Name: "B", Settings: { ordersPerHour: 2 } });
    expect(res.status).toBe(400);
    const after = await admin("GET", `/stores/${storeId}/sources/${id}`);
    expect((after.json.Source as { Name: string; Settings: Record<string, unknown> }).Name).toBe("A");
    expect((after.json.Source as { Settings: Record<string, unknown> }).Settings).toEqual({});
  });
});

describe("fuzz: POST /admin/v1/sync", () => {
  it("answers odd sourceId values without a 5xx", async () => {
    const f = fuzzer(99);
    const storeId = await createStore("Fuzz sync");
    const off = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Off", Enabled: false });
    const offId = (off.json.Source as { SourceId: string }).SourceId;
    const failures: string[] = [];
    for (let i = 0; i < 120; i++) {
      const query = f.pick([
        `sourceId=${offId}`,
        `SOURCEID=${offId}`,
        "sourceId=",
        "sourceId=src_nope",
        "sourceId=%ED%A0%80",
        "sourceId=%00",
        `sourceId=${"a".repeat(5000)}`,
        `sourceId=${offId}&sourceId=${offId}`,
        "sourceId=__proto__",
        "sourceId='%3B%20DROP%20TABLE%20sources%3B--",
        "sourceId",
        "%",
        // Every source of this file is disabled: a run of all of them reaches no marketplace.
        "",
        "other=1",
      ]);
      await send(
        failures,
        adminSent(f.pick(["POST", "POST", "POST", "GET", "PUT"]), `/sync?${query}`, f.chance(0.3) ? f.body({}) : undefined, f.contentType()),
      );
    }
    expectNoFailures(failures);
  });
});
