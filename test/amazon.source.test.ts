// An Amazon source through the admin API: what a wrong setting answers, and credentials kept
// encrypted and never answered.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../src/db/client";
import { admin, createStore } from "./helpers/api";
import { adminSent, expectNoFailures, fuzzer, send, toJson } from "./helpers/fuzz";

const settings = {
  refreshToken: "Atzr|IwEBIA-seller-refresh-token",
  clientId: "amzn1.application-oa2-client.0123456789abcdef",
  clientSecret: "amzn1.oa2-cs.v1.secret-value-42",
  region: "eu",
  marketplaceIds: ["A1F83G8C2ARO7P", "A1PA6795UKMFR9"],
};

describe("Amazon source settings", () => {
  it("answers 400 naming each missing or wrong setting", async () => {
    const storeId = await createStore();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...settings, region: undefined }, "'Settings.region': region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)"],
      [{ ...settings, region: "us-east-1" }, "'Settings.region': region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)"],
      [{ ...settings, refreshToken: "" }, "'Settings.refreshToken': refreshToken is required"],
      [{ ...settings, clientId: undefined }, "'Settings.clientId': clientId is required"],
      [{ ...settings, clientSecret: 42 }, "'Settings.clientSecret': clientSecret is required"],
      [{ ...settings, marketplaceIds: [] }, "'Settings.marketplaceIds': marketplaceIds must name at least one marketplace"],
      [{ ...settings, marketplaceIds: ["<script>"] }, "'Settings.marketplaceIds[0]': each marketplace id is Amazon's, like ATVPDKIKX0DER"],
      [{ ...settings, tokenUrl: "http://api.amazon.com/auth/o2/token" }, "'Settings.tokenUrl': must be an https URL"],
      [{ ...settings, baseUrl: "not a url" }, "'Settings.baseUrl': must be an https URL"],
    ];
    for (const [body, message] of cases) {
      const res = await admin("POST", `/stores/${storeId}/sources`, { Type: "amazon", Name: "Amazon EU", Settings: body });
      expect(res.status, message).toBe(400);
      expect(res.json).toEqual({ Success: false, Message: message });
    }
    const none = await admin("GET", `/stores/${storeId}/sources`);
    expect(none.json.Sources).toEqual([]);
  });

  it("keeps the refresh token, client id and secret encrypted and masked", async () => {
    const storeId = await createStore();
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "amazon", Name: "Amazon EU", Settings: settings });
    expect(created.status).toBe(200);
    const source = created.json.Source as { SourceId: string; Type: string; Settings: Record<string, unknown> };
    expect(source.Type).toBe("amazon");
    expect(source.Settings).toMatchObject({
      refreshToken: "********",
      clientId: "********",
      clientSecret: "********",
      region: "eu",
      marketplaceIds: ["A1F83G8C2ARO7P", "A1PA6795UKMFR9"],
    });
    for (const res of [created, await admin("GET", `/stores/${storeId}/sources/${source.SourceId}`)]) {
      for (const secret of ["IwEBIA-seller-refresh-token", "0123456789abcdef", "secret-value-42"]) expect(res.text).not.toContain(secret);
    }
    const [row] = await getDb(env).all<{ settings_ciphertext: string }>(`select settings_ciphertext from sources where id = '${source.SourceId}'` as never);
    expect(row!.settings_ciphertext).not.toContain("Atzr");
    expect(row!.settings_ciphertext).not.toContain("amzn1");
  });

  it("answers 200 fuzzed Amazon Settings on create and PATCH with 200 or a 400 envelope, never a 5xx, and enables nothing", async () => {
    const f = fuzzer(1_406_014);
    const storeId = await createStore();
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "amazon", Name: "Amazon", Enabled: false, Settings: settings });
    const sourceId = (created.json.Source as { SourceId: string }).SourceId;
    const full = { ...settings, baseUrl: "https://sandbox.sellingpartnerapi-eu.amazon.com", tokenUrl: "https://api.amazon.com/auth/o2/token", sellerId: "A2EXAMPLE", cancelReason: "NoInventory", carrierCodes: ["DHL"] };
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const fuzzed = f.chance(0.8) ? f.mutate(full) : f.value();
      const res = f.chance(0.5)
        ? await send(failures, adminSent("POST", `/stores/${storeId}/sources`, toJson({ Type: "amazon", Name: `A${i}`, Enabled: false, Settings: fuzzed }), "application/json"))
        : await send(failures, adminSent("PATCH", `/stores/${storeId}/sources/${sourceId}`, toJson({ Settings: fuzzed, Enabled: false }), "application/json"));
      statuses.add(res.status);
    }
    expectNoFailures(failures);
    expect([...statuses].sort()).toEqual([200, 400]);
    const enabled = await env.DB.prepare("select count(*) as n from sources where store_id = ? and enabled = 1").bind(storeId).first<{ n: number }>();
    expect(enabled?.n).toBe(0);
  }, 60_000);
});
