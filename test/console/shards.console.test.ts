// The console's Database card (issue 19): a store's settings page names its shard, offers a move
// to every other shard that takes stores, starts one through the admin API, shows its progress,
// offers to give it up before it switches (issue 34), and says why a move is refused.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, storeWithToken } from "../helpers/api";
import { collect, send, signIn } from "./helpers";

describe("console: a store's shard and its move", () => {
  it("shows the shard, moves the store to the one chosen, and reports the move", async () => {
    const { storeId } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const page = await send("GET", `/console/stores/${storeId}/settings`, { cookie });
    expect(page.status).toBe(200);
    const from = (JSON.parse((await admin("GET", `/stores/${storeId}`)).text) as { Store: { Shard: string } }).Store.Shard;
    expect((await collect(page.text, "#store-shard"))[0]).toBe(from);
    // Every shard that takes stores but this one, the directory never.
    const offered = await collect(page.text, 'select[name="Shard"] option', "value");
    expect(offered.sort()).toEqual(["SHARD_1", "SHARD_2", "SHARD_3"].filter((s) => s !== from));
    const to = offered[0]!;

    // Driven by the test alone (no alarm), so the move is still before its switch when given up.
    await env.STORE_MOVER.getByName(storeId).configure({ manual: true });
    const posted = await send("POST", `/console/stores/${storeId}/move`, { cookie, form: { _csrf: csrf, Shard: to } });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toContain("done=moving");
    await env.STORE_MOVER.getByName(storeId).advance(storeId, 0);
    const after = await send("GET", `/console/stores/${storeId}/settings`, { cookie });
    const status = (await collect(after.text, "#move-status"))[0]!;
    expect(status).toContain(`Moving from ${from} to ${to}`);
    expect(status).toMatch(/copying \(copy\)/);
    // No second move is offered while one runs; giving it up is, before it switches.
    expect(await collect(after.text, 'select[name="Shard"]')).toHaveLength(0);
    expect(await collect(after.text, 'form[action$="/move/give-up"] button')).toEqual(["Give up the move"]);

    const given = await send("POST", `/console/stores/${storeId}/move/give-up`, { cookie, form: { _csrf: csrf } });
    expect(given.status).toBe(303);
    expect(given.headers.get("location")).toContain("done=move-given-up");
    for (let i = 0; i < 20; i++) await env.STORE_MOVER.getByName(storeId).advance(storeId, 0);
    const settled = await send("GET", `/console/stores/${storeId}/settings`, { cookie });
    expect((await collect(settled.text, "#move-status"))[0]).toContain(`Last move from ${from} to ${to}: failed`);
    expect((await collect(settled.text, "#store-shard"))[0]).toBe(from);
    expect(await collect(settled.text, 'form[action$="/move/give-up"]')).toHaveLength(0);
    // A move may be started again.
    expect(await collect(settled.text, 'select[name="Shard"]')).toHaveLength(1);
  });

  it("says why a move is refused, at the form", async () => {
    const { storeId } = await storeWithToken();
    const { cookie, csrf } = await signIn();
    const refused = await send("POST", `/console/stores/${storeId}/move`, { cookie, form: { _csrf: csrf, Shard: "SHARD_9" } });
    expect(refused.status).toBe(400);
    const message = (await collect(refused.text, '[role="alert"], .error, .form-error')).join(" ");
    expect(message).toContain("SHARD_9");
    expect(message).toContain("not one of this hub's shards");
  });
});
