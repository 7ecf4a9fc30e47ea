// /admin/v1 (decisions 8): operator credential, stores, consumer keys, maintenance state.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, admin, call, createStore, nextIp } from "../helpers/api";

interface WireStore {
  StoreId: string;
  Name: string;
  MaskBuyerPii: boolean;
  DateCreated: string;
  Shard: string;
}

interface WireKey {
  ConsumerKeyId: string;
  StoreId: string;
  Name: string;
  Scopes: string[];
  Lifespan: string;
  BucketSize: number | null;
  LeakRatePerSecond: number | null;
  DateCreated: string;
  DateRevoked: string | null;
  Key?: string;
}

describe("operator credential", () => {
  const routes: [string, string][] = [
    ["GET", "/admin/v1/stores"],
    ["POST", "/admin/v1/stores"],
    ["GET", "/admin/v1/stores/st_x"],
    ["PATCH", "/admin/v1/stores/st_x"],
    ["DELETE", "/admin/v1/stores/st_x"],
    ["POST", "/admin/v1/stores/st_x/consumer-keys"],
    ["GET", "/admin/v1/stores/st_x/consumer-keys"],
    ["DELETE", "/admin/v1/consumer-keys/ck_x"],
    ["PUT", "/admin/v1/maintenance"],
    ["GET", "/admin/v1/maintenance"],
    ["GET", "/admin/v1/no-such-route"],
    ["PUT", "/admin/v1/stores"],
  ];

  it.each([
    ["no Authorization", {}],
    ["a wrong key", { authorization: "Bearer not-the-admin-key" }],
    ["the key without Bearer", { authorization: ADMIN_KEY }],
    ["a key with a suffix", { authorization: `Bearer ${ADMIN_KEY}x` }],
    ["a consumer token scheme", { authorization: "Basic dGVzdDp0ZXN0" }],
  ])("answers 403 to %s on every admin route, known or not", async (_, headers: Record<string, string>) => {
    for (const [method, path] of routes) {
      const res = await call(method, path, { headers, body: method === "GET" || method === "DELETE" ? undefined : { Name: "x", Enabled: true } });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.Success).toBe(false);
      expect(res.json.Message).toMatch(/administrators/);
    }
    // Nothing was created.
    const stores = await admin("GET", "/stores");
    expect((stores.json.Stores as WireStore[]).filter((s) => s.Name === "x")).toEqual([]);
  });

  it("answers an unknown admin route 404 and a wrong method 405 once the key is right", async () => {
    expect((await admin("GET", "/no-such-route")).status).toBe(404);
    const res = await admin("PUT", "/stores");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toMatch(/POST/);
  });
});

describe("stores", () => {
  it("creates, gets, lists, patches and deletes a store", async () => {
    const created = await admin("POST", "/stores", { Name: "Corner shop", MaskBuyerPii: true });
    expect(created.status).toBe(200);
    const store = created.json.Store as WireStore;
    expect(store).toEqual({
      StoreId: expect.stringMatching(/^st_/),
      Name: "Corner shop",
      MaskBuyerPii: true,
      DateCreated: expect.stringMatching(/Z$/),
      // Placed by the hub on one of the shards (never the directory): test/store-moves/ checks which.
      Shard: expect.stringMatching(/^SHARD_[123]$/),
      // The defaults (issue 12): far above what a real seller holds.
      Limits: { Orders: 2000000, OrderItems: 10000000, Products: 2000000, Feeds: 200, Sources: 200, ConsumerKeys: 200, StoredBytes: 2000000000 },
      Usage: { Orders: 0, OrderItems: 0, Products: 0, Feeds: 0, Sources: 0, ConsumerKeys: 0, StoredBytes: 0 },
    });

    const got = await admin("GET", `/stores/${store.StoreId}`);
    expect(got.json.Store).toEqual(store);
    const { Usage: _usage, ...listed } = store as WireStore & { Usage: unknown };
    expect((await admin("GET", "/stores")).json.Stores as WireStore[]).toContainEqual(listed);

    const patched = await admin("PATCH", `/stores/${store.StoreId}`, { Name: "Corner shop Ltd" });
    expect(patched.status).toBe(200);
    expect(patched.json.Store).toEqual({ ...store, Name: "Corner shop Ltd" });
    const unmasked = await admin("PATCH", `/stores/${store.StoreId}`, { MaskBuyerPii: false });
    expect(unmasked.json.Store).toEqual({ ...store, Name: "Corner shop Ltd", MaskBuyerPii: false });
    expect((await admin("GET", `/stores/${store.StoreId}`)).json.Store).toEqual(unmasked.json.Store);

    const deleted = await admin("DELETE", `/stores/${store.StoreId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.Success).toBe(true);
    expect(deleted.json.Message).toMatch(/purged in the background/);
    expect((await admin("GET", `/stores/${store.StoreId}`)).status).toBe(404);
    expect((await admin("GET", "/stores")).json.Stores as WireStore[]).not.toContainEqual(expect.objectContaining({ StoreId: store.StoreId }));
    expect((await admin("DELETE", `/stores/${store.StoreId}`)).status).toBe(404);
    expect((await admin("PATCH", `/stores/${store.StoreId}`, { Name: "Back" })).status).toBe(404);
    expect((await admin("POST", `/stores/${store.StoreId}/consumer-keys`, { Name: "k", Scopes: ["OrdersRead"], Lifespan: "7Days" })).status).toBe(404);
  });

  it("defaults MaskBuyerPii to false", async () => {
    const res = await admin("POST", "/stores", { Name: "Plain" });
    expect((res.json.Store as WireStore).MaskBuyerPii).toBe(false);
  });

  it.each([
    ["missing Name", {}, "Name"],
    ["empty Name", { Name: "  " }, "Name"],
    ["Name not a string", { Name: 5 }, "Name"],
    ["Name over 200 characters", { Name: "n".repeat(201) }, "Name"],
    ["MaskBuyerPii not a boolean", { Name: "S", MaskBuyerPii: "yes" }, "MaskBuyerPii"],
  ])("refuses a store with %s, naming the field", async (_, body, field) => {
    const before = ((await admin("GET", "/stores")).json.Stores as unknown[]).length;
    const res = await admin("POST", "/stores", body);
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toContain(`'${field}'`);
    expect(((await admin("GET", "/stores")).json.Stores as unknown[]).length).toBe(before);
  });

  it("refuses a patch with a bad field, and answers 404 for an unknown store", async () => {
    const storeId = await createStore();
    const res = await admin("PATCH", `/stores/${storeId}`, { MaskBuyerPii: 1 });
    expect(res.status).toBe(400);
    expect(res.json.Message).toContain("'MaskBuyerPii'");
    expect((await admin("GET", "/stores/st_nope")).status).toBe(404);
  });
});

describe("consumer keys", () => {
  it("creates a key whose Key is shown once, with BucketSize and LeakRatePerSecond stored", async () => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/consumer-keys`, {
      Name: "ERP connector",
      Scopes: ["OrdersRead", "OrdersUpdate", "OrdersRead"],
      Lifespan: "14Days",
      BucketSize: 20,
      LeakRatePerSecond: 0.5,
    });
    expect(res.status).toBe(200);
    const key = res.json.ConsumerKey as WireKey;
    expect(key).toEqual({
      ConsumerKeyId: expect.stringMatching(/^ck_/),
      StoreId: storeId,
      Name: "ERP connector",
      Scopes: ["OrdersRead", "OrdersUpdate"],
      Lifespan: "14Days",
      BucketSize: 20,
      LeakRatePerSecond: 0.5,
      DateCreated: expect.stringMatching(/Z$/),
      DateRevoked: null,
      Key: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
    });
    const row = await env.DB.prepare("select bucket_size, leak_rate_per_second from consumer_keys where id = ?").bind(key.ConsumerKeyId).first();
    expect(row).toEqual({ bucket_size: 20, leak_rate_per_second: 0.5 });

    const listed = await admin("GET", `/stores/${storeId}/consumer-keys`);
    expect(listed.status).toBe(200);
    const keys = listed.json.ConsumerKeys as WireKey[];
    expect(keys).toHaveLength(1);
    const { Key: secret, ...withoutSecret } = key;
    expect(keys[0]).toEqual(withoutSecret);
    expect(listed.text).not.toContain(secret!);
    expect(listed.text).not.toMatch(/hash/i);
    expect(listed.text).not.toMatch(/[0-9a-f]{64}/);

    // The key works for a token.
    const token = await call("PUT", "/v1/Authorization", { body: { ConsumerKey: secret }, headers: { "cf-connecting-ip": nextIp() } });
    expect(token.status).toBe(200);
  });

  it("leaves BucketSize and LeakRatePerSecond null when not given (the defaults apply)", async () => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/consumer-keys`, { Name: "k", Scopes: ["FeedsRead"], Lifespan: "NeverExpires" });
    expect(res.json.ConsumerKey).toMatchObject({ BucketSize: null, LeakRatePerSecond: null });
  });

  it("revokes a key: DateRevoked set, its tokens and the key itself refused", async () => {
    const storeId = await createStore();
    const created = (await admin("POST", `/stores/${storeId}/consumer-keys`, { Name: "k", Scopes: ["OrdersRead"], Lifespan: "NeverExpires" })).json
      .ConsumerKey as WireKey;
    const token = (await call("PUT", "/v1/Authorization", { body: { ConsumerKey: created.Key }, headers: { "cf-connecting-ip": nextIp() } })).json
      .Token as string;
    const revoked = await admin("DELETE", `/consumer-keys/${created.ConsumerKeyId}`);
    expect(revoked.status).toBe(200);
    expect((revoked.json.ConsumerKey as WireKey).DateRevoked).toMatch(/Z$/);
    expect(revoked.json.ConsumerKey).not.toHaveProperty("Key");
    const listed = (await admin("GET", `/stores/${storeId}/consumer-keys`)).json.ConsumerKeys as WireKey[];
    expect(listed[0]!.DateRevoked).toBe((revoked.json.ConsumerKey as WireKey).DateRevoked);
    expect((await call("GET", `/v1/${token}/Orders/count?fromDate=2026-01-01&toDate=2026-01-02`, { headers: { "cf-connecting-ip": nextIp() } })).status).toBe(
      401,
    );
    expect((await call("PUT", "/v1/Authorization", { body: { ConsumerKey: created.Key }, headers: { "cf-connecting-ip": nextIp() } })).status).toBe(401);
    // Revoking again is harmless and keeps the first revocation time.
    const again = await admin("DELETE", `/consumer-keys/${created.ConsumerKeyId}`);
    expect(again.status).toBe(200);
    expect((again.json.ConsumerKey as WireKey).DateRevoked).toBe((revoked.json.ConsumerKey as WireKey).DateRevoked);
    expect((await admin("DELETE", "/consumer-keys/ck_unknown")).status).toBe(404);
  });

  it.each([
    ["missing Name", { Scopes: ["OrdersRead"], Lifespan: "7Days" }, "Name"],
    ["missing Scopes", { Name: "k", Lifespan: "7Days" }, "Scopes"],
    ["empty Scopes", { Name: "k", Scopes: [], Lifespan: "7Days" }, "Scopes"],
    ["an unknown scope", { Name: "k", Scopes: ["OrdersDelete"], Lifespan: "7Days" }, "Scopes[0]"],
    ["missing Lifespan", { Name: "k", Scopes: ["OrdersRead"] }, "Lifespan"],
    ["an unknown Lifespan", { Name: "k", Scopes: ["OrdersRead"], Lifespan: "1Day" }, "Lifespan"],
    ["BucketSize 0", { Name: "k", Scopes: ["OrdersRead"], Lifespan: "7Days", BucketSize: 0 }, "BucketSize"],
    ["BucketSize 2.5", { Name: "k", Scopes: ["OrdersRead"], Lifespan: "7Days", BucketSize: 2.5 }, "BucketSize"],
    ["LeakRatePerSecond negative", { Name: "k", Scopes: ["OrdersRead"], Lifespan: "7Days", LeakRatePerSecond: -1 }, "LeakRatePerSecond"],
    ["LeakRatePerSecond a string", { Name: "k", Scopes: ["OrdersRead"], Lifespan: "7Days", LeakRatePerSecond: "2" }, "LeakRatePerSecond"],
  ])("refuses a key with %s, naming the field, creating nothing", async (_, body, field) => {
    const storeId = await createStore();
    const res = await admin("POST", `/stores/${storeId}/consumer-keys`, body);
    expect(res.status).toBe(400);
    expect(res.json.Success).toBe(false);
    expect(res.json.Message).toContain(`'${field}'`);
    expect((await admin("GET", `/stores/${storeId}/consumer-keys`)).json.ConsumerKeys).toEqual([]);
  });
});

describe("maintenance state", () => {
  it("validates the switch and reads back what was set", async () => {
    const bad = await admin("PUT", "/maintenance", { Enabled: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toContain("'Enabled'");
    const missing = await admin("PUT", "/maintenance", {});
    expect(missing.json.Message).toContain("'Enabled'");
    const off = await admin("PUT", "/maintenance", { Enabled: false, Message: "" });
    expect(off.json.Maintenance).toEqual({ Enabled: false, Message: "" });
    expect((await admin("GET", "/maintenance")).json.Maintenance).toEqual({ Enabled: false, Message: "" });
  });
});
