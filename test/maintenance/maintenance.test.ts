// The maintenance switch reaches every isolate in time (decisions 1: every /v1 request answers 503
// with Retry-After "within 10 seconds of being flipped"; the README promises 5). An isolate that
// read the switch just before another isolate flipped it is played here by this isolate: its
// cache is filled with "off", then the switch is written straight into D1, as the admin request
// of another isolate writes it, and the clock is moved on. The Worker runs in this isolate, so a
// frozen Date is its clock too.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";

const RANGE = "fromDate=2026-01-01&toDate=2026-12-31";

/** Each test starts an hour after the last one ended: the clock never runs backwards. */
let NOW = 1_800_000_000_000;
beforeEach(() => {
  NOW += 7_200_000;
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW);
});
afterEach(async () => {
  vi.setSystemTime(NOW + 3_600_000);
  // Written by this isolate's own admin call, so its cache is off again at once.
  expect((await admin("PUT", "/maintenance", { Enabled: false })).status).toBe(200);
  vi.useRealTimers();
});

/** What another isolate's PUT /admin/v1/maintenance leaves in D1. */
async function flipElsewhere(enabled: boolean, message = "") {
  await env.DB.prepare(
    "insert into settings (key, value, updated_at) values ('maintenance', ?1, ?2) on conflict(key) do update set value = ?1, updated_at = ?2",
  )
    .bind(JSON.stringify({ enabled, message }), Date.now())
    .run();
}

describe("maintenance reaches an isolate that cached the switch", () => {
  it("answers 503 with Retry-After 60 at the latest 10 seconds after another isolate switched it on", async () => {
    const { token } = await storeWithToken();
    const path = `/v1/${token}/Orders/count?${RANGE}`;
    // This isolate reads "off" and may keep it for a while.
    expect((await call("GET", path)).status).toBe(200);
    await flipElsewhere(true, "Back at 02:00 UTC.");
    // (No admin read here: GET /admin/v1/maintenance reads D1 fresh and would refresh this
    // isolate's cache, which is the very thing under test.)
    vi.setSystemTime(NOW + 10_000);
    for (const [method, p] of [
      ["GET", path],
      ["PUT", "/v1/Authorization"],
    ] as const) {
      const res = await call(method, p);
      expect(res.status, p).toBe(503);
      expect(res.json).toEqual({ Success: false, Message: "Back at 02:00 UTC." });
      // wrangler.toml's MAINTENANCE_RETRY_AFTER_SECONDS, as the README's Configuration table gives it.
      expect(res.headers.get("Retry-After")).toBe("60");
    }
    expect((await admin("GET", "/maintenance")).json.Maintenance).toEqual({ Enabled: true, Message: "Back at 02:00 UTC." });
  });

  it("keeps the README's promise of 5 seconds, both ways", async () => {
    const { token } = await storeWithToken();
    const path = `/v1/${token}/Orders/count?${RANGE}`;
    expect((await call("GET", path)).status).toBe(200);
    await flipElsewhere(true);
    vi.setSystemTime(NOW + 5_000);
    const on = await call("GET", path);
    expect(on.status).toBe(503);
    expect(on.json).toEqual({ Success: false, Message: "The service is offline for maintenance; try again later." });
    expect(on.headers.get("Retry-After")).toBe("60");

    // Switched off elsewhere: this isolate serves again within 5 seconds.
    await flipElsewhere(false);
    vi.setSystemTime(NOW + 10_000);
    const back = await call("GET", path);
    expect(back.status).toBe(200);
    expect(back.json).toEqual({ Success: true, Message: "", Count: 0 });
  });

  it("keeps admin routes up while /v1 is in maintenance", async () => {
    await flipElsewhere(true);
    vi.setSystemTime(NOW + 10_000);
    expect((await call("GET", "/v1/anything/Orders/count")).status).toBe(503);
    const stores = await admin("GET", "/stores");
    expect(stores.status).toBe(200);
    expect(stores.json.Success).toBe(true);
  });
});
