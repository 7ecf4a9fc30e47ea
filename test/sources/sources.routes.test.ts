import { describe, expect, it } from "vitest";
import { admin, call, createStore, storeWithToken } from "../helpers/api";
import { storeD1 } from "../helpers/shards";
import { createSource, cycleAt, deliveries, listOrders, simulatedWindow } from "../helpers/sync";

const walmartSettings = { clientId: "wm-client-id-123", clientSecret: "wm-very-secret-456" };

describe("sources admin", () => {
  it("creates a Walmart source whose credentials are stored encrypted and never answered", async () => {
    const storeId = await createStore();
    const created = await admin("POST", `/stores/${storeId}/sources`, { Type: "walmart", Name: "Walmart US", Settings: walmartSettings });
    expect(created.status).toBe(200);
    const source = created.json.Source as { SourceId: string; Type: string; Enabled: boolean; Settings: Record<string, unknown> };
    expect(source).toMatchObject({ Type: "walmart", Enabled: true });
    expect(source.Settings).toMatchObject({ clientId: "********", clientSecret: "********" });

    for (const res of [created, await admin("GET", `/stores/${storeId}/sources/${source.SourceId}`), await admin("GET", `/stores/${storeId}/sources`)]) {
      expect(res.text).not.toContain("wm-very-secret-456");
      expect(res.text).not.toContain("wm-client-id-123");
    }
    const patched = await admin("PATCH", `/stores/${storeId}/sources/${source.SourceId}`, {
      Name: "Walmart",
      Settings: { clientSecret: "rotated-secret-789" },
    });
    expect(patched.status).toBe(200);
    expect(patched.text).not.toContain("rotated-secret-789");

    const row = await (await storeD1(storeId))
      .prepare("select settings_ciphertext from sources where id = ?")
      .bind(source.SourceId)
      .first<{ settings_ciphertext: string }>();
    expect(row!.settings_ciphertext).not.toContain("secret");
    expect(row!.settings_ciphertext).not.toContain("wm-client");
  });

  it("refuses an unknown Type, Settings the connector rejects, and a Name the store already uses", async () => {
    const storeId = await createStore();
    const unknownType = await admin("POST", `/stores/${storeId}/sources`, { Type: "no-such-marketplace", Name: "x" });
    expect(unknownType.status).toBe(400);
    expect(unknownType.json.Message).toMatch(/'Type'.*simulated.*walmart.*ebay/);
    const badSettings = await admin("POST", `/stores/${storeId}/sources`, { Type: "walmart", Name: "W", Settings: { clientId: "id" } });
    expect(badSettings.status).toBe(400);
    expect(badSettings.json.Message).toMatch(/Settings\.clientSecret/);
    const badFault = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "S", Settings: { fault: { kind: "explode" } } });
    expect(badFault.status).toBe(400);
    expect(badFault.json.Message).toMatch(/Settings\.fault\.kind/);

    await createSource(storeId, { Name: "Twice" });
    const duplicate = await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Twice" });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json.Message).toMatch(/already has a source named 'Twice'/);
  });

  it("answers 403 without the admin key and 404 for another store's source", async () => {
    const storeId = await createStore();
    const other = await createStore();
    const sourceId = await createSource(storeId);
    expect((await call("GET", `/admin/v1/stores/${storeId}/sources`)).status).toBe(403);
    expect(
      (await call("POST", `/admin/v1/stores/${storeId}/sources`, { body: { Type: "simulated", Name: "n" }, headers: { authorization: "Bearer wrong" } }))
        .status,
    ).toBe(403);
    for (const [method, body] of [["GET"], ["PATCH", { Enabled: false }], ["DELETE"]] as const) {
      const res = await admin(method, `/stores/${other}/sources/${sourceId}`, body);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ Success: false });
    }
    expect((await admin("GET", `/stores/st_missing/sources`)).status).toBe(404);
  });

  it("shows the last cycle in the status view", async () => {
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(4) });
    const before = (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: Record<string, unknown> };
    expect(before.Status).toMatchObject({
      DateLastCycleStarted: null,
      DateLastCycleEnded: null,
      ImportedTotal: 0,
      DeliveriesPending: 0,
      DeliveriesFailed: 0,
      LastError: null,
    });
    await cycleAt(sourceId, Date.now());
    const after = (await admin("GET", `/stores/${storeId}/sources`)).json.Sources as { Status: Record<string, unknown> }[];
    expect(after[0]!.Status).toMatchObject({ LastCycleImported: 4, ImportedTotal: 4, LastError: null });
    expect(after[0]!.Status.DateLastCycleEnded).toEqual(expect.stringMatching(/Z$/));
  });

  it("renaming carries the orders along, and deleting keeps them with SyncStatus Disabled and drops what was pending", async () => {
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Name: "Old name", Settings: simulatedWindow(2) });
    await cycleAt(sourceId, Date.now());
    await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Name: "New name" });
    expect((await listOrders(token)).map((o) => o.OrderSource)).toEqual(["New name", "New name"]);
    // The next import finds them under the new name rather than importing them again.
    await (await storeD1(storeId)).prepare("update sources set cursor_at = null where id = ?").bind(sourceId).run();
    expect((await cycleAt(sourceId, Date.now())).imported).toBe(0);

    const [order] = await listOrders(token);
    await call("PUT", `/v1/${token}/Orders/${order!.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-1`);
    expect(await deliveries(storeId, sourceId)).toHaveLength(1);
    expect((await admin("DELETE", `/stores/${storeId}/sources/${sourceId}`)).status).toBe(200);
    expect((await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).status).toBe(404);
    const orders = await listOrders(token);
    expect(orders).toHaveLength(2);
    expect(orders.every((o) => o.SyncStatus === "Disabled")).toBe(true);
    const row = await (await storeD1(storeId)).prepare("select state from outbox where source_id = ?").bind(sourceId).first<{ state: string }>();
    expect(row!.state).toBe("failed");
  });
});
