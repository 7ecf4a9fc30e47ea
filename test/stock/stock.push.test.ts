// Stock and price out to a marketplace (decisions 11), through the simulated marketplace and the
// source's cycle: what changed since the marketplace last accepted it, once, in batches; unknown
// Skus reported and not retried; a failing marketplace retried later; import-only sources.
import { describe, expect, it } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { storeD1 } from "../helpers/shards";
import { createSource, cycleAt, patchSource, received } from "../helpers/sync";
import { listings, putInventory, putStock } from "./helpers";

/** A simulated marketplace that sells nothing (it opens in a year): only stock and price calls. */
const quiet = (extra: Record<string, unknown> = {}) => ({ startAt: new Date(Date.now() + 365 * 86_400_000).toISOString(), ...extra });

type Item = { sku: string; quantity: number | null; price: number | null; currency: string };
async function pushes(storeId: string, sourceId: string): Promise<Item[][]> {
  return (await received(storeId, sourceId)).filter((r) => r.Operation === "pushListings").map((r) => r.Body.items as Item[]);
}

let clock = Date.now();
const cycle = (sourceId: string) => cycleAt(sourceId, (clock += 60_000));

describe("stock and price to the simulated marketplace", () => {
  it("sends every tracked Sku once, then only what changed, with its latest value once", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "A", Quantity: 5, Price: 10 },
      { Sku: "B", Quantity: 0, Price: 2.5, Currency: "EUR" },
      { Sku: "UNTRACKED", Price: 3 },
    ]);
    const sourceId = await createSource(storeId, { Settings: quiet() });
    const summary = await cycle(sourceId);
    expect(summary.listingsSent).toBe(2);
    expect(await pushes(storeId, sourceId)).toEqual([
      [
        { sku: "A", quantity: 5, price: 10, currency: "USD" },
        { sku: "B", quantity: 0, price: 2.5, currency: "EUR" },
      ],
    ]);
    const shown = await listings(storeId, sourceId);
    expect(shown.Push).toBe("Enabled");
    expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 2, UnknownSku: 0, Refused: 0 });
    expect(shown.Listings.map((l) => [l.Sku, l.Status, l.AcceptedQuantity, l.AcceptedPrice])).toEqual([
      ["A", "accepted", 5, 10],
      ["B", "accepted", 0, 2.5],
    ]);

    // Nothing changed: nothing is sent.
    await cycle(sourceId);
    expect(await pushes(storeId, sourceId)).toHaveLength(1);

    // Ten changes of A, a price change of B: A's last quantity once, B's price alone.
    for (let q = 11; q <= 20; q++) expect((await putInventory(token, [{ Sku: "A", Quantity: q }])).status).toBe(200);
    await putInventory(token, [{ Sku: "B", Price: 3 }]);
    await cycle(sourceId);
    const all = await pushes(storeId, sourceId);
    expect(all).toHaveLength(2);
    expect(all[1]).toEqual([
      { sku: "A", quantity: 20, price: null, currency: "USD" },
      { sku: "B", quantity: null, price: 3, currency: "EUR" },
    ]);
    // Back to what the marketplace already shows: nothing to send.
    await putInventory(token, [{ Sku: "A", Quantity: 7 }]);
    await putInventory(token, [{ Sku: "A", Quantity: 20 }]);
    await cycle(sourceId);
    expect(await pushes(storeId, sourceId)).toHaveLength(2);
    expect((await listings(storeId, sourceId, "?sku=A")).Listings).toMatchObject([{ Sku: "A", Status: "accepted", AcceptedQuantity: 20 }]);
  });

  it("sends in the marketplace's batch size, and the listing view pages and filters", async () => {
    const { storeId } = await storeWithToken();
    await putStock(
      storeId,
      ["A", "B", "C", "D", "E"].map((Sku, i) => ({ Sku, Quantity: i })),
    );
    const sourceId = await createSource(storeId, { Settings: quiet({ listingBatchSize: 2 }) });
    await cycle(sourceId);
    expect((await pushes(storeId, sourceId)).map((p) => p.map((i) => i.sku))).toEqual([["A", "B"], ["C", "D"], ["E"]]);
    const page = await listings(storeId, sourceId, "?limit=2&after=B");
    expect(page.Listings.map((l) => l.Sku)).toEqual(["C", "D"]);
    expect(page.NextAfter).toBe("D");
    expect((await listings(storeId, sourceId, "?status=pending")).Listings).toEqual([]);
    expect((await admin("GET", `/stores/${storeId}/sources/${sourceId}/listings?status=lost`)).status).toBe(400);
  });

  it("reports a Sku the marketplace does not know and does not send it again until it changes", async () => {
    const { storeId, token } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "KNOWN", Quantity: 1 },
      { Sku: "GHOST", Quantity: 1 },
    ]);
    const sourceId = await createSource(storeId, { Settings: quiet({ unknownSkus: ["GHOST"] }) });
    await cycle(sourceId);
    await cycle(sourceId);
    await cycle(sourceId);
    expect(await pushes(storeId, sourceId)).toHaveLength(1);
    const ghost = (await listings(storeId, sourceId, "?status=unknownSku")).Listings;
    expect(ghost).toHaveLength(1);
    expect(ghost[0]!.Sku).toBe("GHOST");
    expect(ghost[0]!.LastError).toContain("SKU_NOT_FOUND");
    expect(ghost[0]!.AcceptedQuantity).toBeNull();
    await putInventory(token, [{ Sku: "GHOST", Quantity: 4 }]);
    await cycle(sourceId);
    expect((await pushes(storeId, sourceId)).at(-1)).toEqual([{ sku: "GHOST", quantity: 4, price: 10, currency: "USD" }]);
  });

  it("a marketplace that throttles keeps the Skus pending with the error, and they go out once it answers", async () => {
    const { storeId } = await storeWithToken();
    await putStock(storeId, [{ Sku: "A", Quantity: 3 }]);
    const sourceId = await createSource(storeId, { Settings: quiet({ fault: { kind: "http500", operations: ["pushListings"] } }) });
    const failed = await cycle(sourceId);
    expect(failed.error).toContain("listings");
    const shown = (await listings(storeId, sourceId)).Listings[0]!;
    expect(shown).toMatchObject({ Status: "pending", Attempts: 1, AcceptedQuantity: null });
    expect(shown.LastError).toContain("500");
    await patchSource(storeId, sourceId, { Settings: { fault: null } });
    // Due again after the back-off (5 minutes).
    clock += 10 * 60_000;
    await cycle(sourceId);
    expect((await listings(storeId, sourceId)).Listings[0]).toMatchObject({ Status: "accepted", AcceptedQuantity: 3, LastError: null, Attempts: 0 });
    expect((await received(storeId, sourceId)).map((r) => `${r.Operation}:${r.Answer}`)).toEqual(["pushListings:500", "pushListings:200"]);
  });

  it("forgets a deleted source's listings", async () => {
    const { storeId } = await storeWithToken();
    await putStock(storeId, [{ Sku: "A", Quantity: 3 }]);
    const sourceId = await createSource(storeId, { Settings: quiet() });
    await cycle(sourceId);
    expect((await (await storeD1(storeId)).prepare("select count(*) as n from listings where source_id = ?").bind(sourceId).first<{ n: number }>())!.n).toBe(1);
    expect((await admin("DELETE", `/stores/${storeId}/sources/${sourceId}`)).status).toBe(200);
    expect((await (await storeD1(storeId)).prepare("select count(*) as n from listings where source_id = ?").bind(sourceId).first<{ n: number }>())!.n).toBe(0);
  });

  it("sends nothing to an import-only source (Settings.pushStock false), and says so", async () => {
    const { storeId } = await storeWithToken();
    await putStock(storeId, [{ Sku: "A", Quantity: 3 }]);
    const sourceId = await createSource(storeId, { Settings: quiet({ pushStock: false }) });
    await cycle(sourceId);
    expect(await pushes(storeId, sourceId)).toEqual([]);
    expect((await listings(storeId, sourceId)).Push).toBe("ImportOnly");
    await patchSource(storeId, sourceId, { Settings: { pushStock: true } });
    await cycle(sourceId);
    expect(await pushes(storeId, sourceId)).toHaveLength(1);
    const bad = await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Settings: { pushStock: "no" } });
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toContain("pushStock");
  });

  // Every marketplace takes stock now (Etsy was the last), so NotApplicable has no source type to
  // show it; an Amazon source answers Enabled (an Etsy one: test/marketplaces/etsy/etsy.listings.test.ts).
  it("answers Enabled for an Amazon source, and 404 for an unknown source", async () => {
    const { storeId } = await storeWithToken();
    const sourceId = await createSource(storeId, {
      Type: "amazon",
      Name: "Amz",
      Settings: { region: "na", marketplaceIds: ["ATVPDKIKX0DER"], refreshToken: "r", clientId: "c", clientSecret: "s" },
    });
    expect(await listings(storeId, sourceId)).toEqual({
      Success: true,
      Message: "",
      Push: "Enabled",
      Counts: { Pending: 0, Submitted: 0, Accepted: 0, UnknownSku: 0, Refused: 0 },
      Listings: [],
      NextAfter: null,
    });
    expect((await admin("GET", `/stores/${storeId}/sources/src_none/listings`)).status).toBe(404);
    const doc = await call("GET", "/openapi.json");
    const paths = (doc.json as unknown as { paths: Record<string, Record<string, unknown>> }).paths;
    expect(Object.keys(paths["/admin/v1/stores/{storeId}/sources/{sourceId}/listings"]!)).toEqual(["get"]);
    expect(Object.keys(paths["/v1/{token}/inventory"]!)).toEqual(["put"]);
  });
});
