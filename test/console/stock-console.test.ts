// The console's stock pages through whole requests in workerd: a source page shows each Sku's
// listing state after a push through the simulated marketplace, its filter narrows the table as
// the admin API does, and a feed created from the console keeps the template chosen in its form.
// The HTML is read with workerd's own HTMLRewriter (./helpers.ts), not with the console's code.
import { describe, expect, it } from "vitest";
import { admin, createStore } from "../helpers/api";
import { createSource, cycleAt } from "../helpers/sync";
import { putStock } from "../stock/helpers";
import { collect, send, signIn } from "./helpers";

/** The listings table as rows of cell texts. */
async function listingRows(html: string): Promise<string[][]> {
  const cells = await collect(html, "table#listings tbody td");
  const width = (await collect(html, "table#listings thead th")).length;
  expect(width).toBe(9);
  const rows: string[][] = [];
  for (let i = 0; i < cells.length; i += width) rows.push(cells.slice(i, i + width));
  return rows;
}

/** A simulated marketplace that sells nothing (it opens in a year): only stock and price calls. */
const quiet = (extra: Record<string, unknown> = {}) => ({ startAt: new Date(Date.now() + 365 * 86_400_000).toISOString(), ...extra });

describe("console: stock on the source page", () => {
  it("shows each Sku's accepted quantity and price, the counts and Push, after a push through the simulated marketplace", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console stock");
    await putStock(storeId, [
      { Sku: "A-1", Quantity: 5, Price: 10 },
      { Sku: "B-2", Quantity: 0, Price: 2.5, Currency: "EUR" },
      { Sku: "GHOST", Quantity: 3, Price: 4 },
    ]);
    const sourceId = await createSource(storeId, { Settings: quiet({ unknownSkus: ["GHOST"] }) });
    await cycleAt(sourceId, Date.now() + 60_000);

    const page = await send("GET", `/console/stores/${storeId}/sources/${sourceId}`, { cookie });
    expect(page.status).toBe(200);
    const rows = await listingRows(page.text);
    // Prices with two decimals and their currency when the catalog gives one (issue 34).
    expect(rows.map((r) => [r[0], r[1], r[2], r[3]])).toEqual([
      ["A-1", "Accepted", "5", "10.00"],
      ["B-2", "Accepted", "0", "2.50 EUR"],
      ["GHOST", "Unknown Sku", "—", "—"],
    ]);
    // Pending quantity and price: what the marketplace must end up showing; the error it gave.
    expect(rows[2]!.slice(5, 7)).toEqual(["3", "4.00"]);
    expect(rows[2]![8]).toContain("SKU_NOT_FOUND");
    expect(await collect(page.text, "#listings-facts dd[data-push]", "data-push")).toEqual(["Enabled"]);
    const facts = await collect(page.text, "#listings-facts dd");
    expect(facts[1]).toBe("0 pending, 0 submitted, 2 accepted, 1 unknown Sku, 0 refused");

    // The same rows as the admin API answers.
    const api = await admin("GET", `/stores/${storeId}/sources/${sourceId}/listings`);
    expect((api.json.Listings as { Sku: string }[]).map((l) => l.Sku)).toEqual(rows.map((r) => r[0]));

    // Import only: the page says so.
    expect((await admin("PATCH", `/stores/${storeId}/sources/${sourceId}`, { Settings: { pushStock: false } })).status).toBe(200);
    const importOnly = await send("GET", `/console/stores/${storeId}/sources/${sourceId}`, { cookie });
    expect(await collect(importOnly.text, "#listings-facts dd[data-push]", "data-push")).toEqual(["ImportOnly"]);
  });

  it("filters the listings by status and by Sku, and shows the API's refusal of a bad status by the field", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console stock filter");
    await putStock(storeId, [
      { Sku: "K-1", Quantity: 1 },
      { Sku: "K-2", Quantity: 2 },
      { Sku: "GHOST", Quantity: 1 },
    ]);
    const sourceId = await createSource(storeId, { Settings: quiet({ unknownSkus: ["GHOST"] }) });
    await cycleAt(sourceId, Date.now() + 60_000);
    const path = `/console/stores/${storeId}/sources/${sourceId}`;

    const unknown = await send("GET", `${path}?status=unknownSku&sku=`, { cookie });
    expect((await listingRows(unknown.text)).map((r) => r[0])).toEqual(["GHOST"]);
    expect(await collect(unknown.text, 'select[name="status"] option[selected]', "value")).toEqual(["unknownSku"]);

    const accepted = await send("GET", `${path}?status=accepted`, { cookie });
    expect((await listingRows(accepted.text)).map((r) => [r[0], r[2]])).toEqual([
      ["K-1", "1"],
      ["K-2", "2"],
    ]);

    const one = await send("GET", `${path}?sku=K-2&status=`, { cookie });
    expect((await listingRows(one.text)).map((r) => r[0])).toEqual(["K-2"]);
    expect(await collect(one.text, 'input[name="sku"]', "value")).toEqual(["K-2"]);

    const none = await send("GET", `${path}?sku=K-2&status=refused`, { cookie });
    expect(await collect(none.text, "table#listings tbody tr")).toEqual([]);
    expect(none.text).toContain("Listings: none.");

    const bad = await send("GET", `${path}?status=sold`, { cookie });
    expect(bad.status).toBe(200);
    expect(await collect(bad.text, "table#listings tbody tr")).toEqual([]);
    const errors = await collect(bad.text, '[role="alert"]');
    expect(errors.some((e) => e.includes("status"))).toBe(true);
  });
});

describe("console: feed templates", () => {
  it("offers every channel template and creates the feed with the one chosen", async () => {
    const { cookie, csrf } = await signIn();
    const storeId = await createStore("Console feed templates");
    const page = await send("GET", `/console/stores/${storeId}/feeds`, { cookie });
    const offered = await collect(page.text, 'select[name="Template"] option', "value");
    expect(offered).toEqual(["google-shopping", "meta-catalog", "microsoft-merchant-center", "tiktok-catalog", "none"]);
    expect(await collect(page.text, 'select[name="Template"] option[selected]', "value")).toEqual(["google-shopping"]);

    const created = await send("POST", `/console/stores/${storeId}/feeds`, {
      cookie,
      form: { Name: "Meta feed", Format: "csv", Template: "meta-catalog", Columns: "", CompileIntervalMinutes: "", _csrf: csrf },
    });
    expect(created.status).toBe(303);
    const feeds = (await admin("GET", `/stores/${storeId}/feeds`)).json.Feeds as { Name: string; Template: string }[];
    expect(feeds.map((f) => [f.Name, f.Template])).toEqual([["Meta feed", "meta-catalog"]]);

    const refused = await send("POST", `/console/stores/${storeId}/feeds`, { cookie, form: { Name: "Bad", Format: "csv", Template: "myspace", _csrf: csrf } });
    expect(refused.status).toBe(400);
    expect(((await admin("GET", `/stores/${storeId}/feeds`)).json.Feeds as unknown[]).length).toBe(1);
  });
});
