// The overviews as an operator reads them (issue 34), through whole requests in workerd, the HTML
// read with HTMLRewriter (./helpers.ts): the hub says how many orders wait to be acknowledged in
// each store and links to them; a feed's warnings and errors link to the list of what they are;
// each cycle's bar has a label no other bar shares; order totals have two decimals.
import { describe, expect, it } from "vitest";
import { admin, call, insert, storeWithToken } from "../helpers/api";
import { compile, createFeed, product, putProducts } from "../feeds/feeds-helpers";
import { createSource, simulatedWindow } from "../helpers/sync";
import { collect, send, signIn, tableRows } from "./helpers";

describe("console: the hub overview", () => {
  it("shows each store's orders waiting to be acknowledged (New), their sum, and links to them", async () => {
    const { cookie } = await signIn();
    const north = await storeWithToken();
    const south = await storeWithToken();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insert(north.token, { GrandTotal: 127.3 }));
    await insert(south.token);
    await insert(south.token, { OrderStatus: "Shipped" });
    expect((await call("PUT", `/v1/${north.token}/Orders/${ids[0]}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-1`)).status).toBe(200);

    const hub = await send("GET", "/console", { cookie });
    expect(hub.status).toBe(200);
    const headers = await collect(hub.text, "table#hub-stores thead th");
    const column = headers.indexOf("New (to acknowledge)");
    expect(column).toBeGreaterThan(0);
    const rows = await tableRows(hub.text, "table#hub-stores");
    const byName = Object.fromEntries(rows.map((r) => [r[0], r[column]]));
    const names = (await admin("GET", "/stores")).json.Stores as { StoreId: string; Name: string }[];
    const nameOf = (id: string) => names.find((s) => s.StoreId === id)!.Name;
    expect(byName[nameOf(north.storeId)]).toBe("2");
    expect(byName[nameOf(south.storeId)]).toBe("1");
    // The sum over every store, as the admin API counts them.
    const overview = (await admin("GET", "/overview")).json.Overview as { Stores: { OrdersNew: number }[] };
    const waiting = overview.Stores.reduce((n, s) => n + s.OrdersNew, 0);
    expect(await collect(hub.text, "#hub-waiting")).toEqual([`${waiting} ${waiting === 1 ? "order waits" : "orders wait"} to be acknowledged (New)`]);

    // The count links to the store's orders filtered to New: two rows, totals with two decimals.
    const link = (await collect(hub.text, `table#hub-stores a[href^="/console/stores/${north.storeId}/orders"]`, "href"))[0]!;
    expect(link).toBe(`/console/stores/${north.storeId}/orders?status=New`);
    const orders = await send("GET", link, { cookie });
    expect(orders.status).toBe(200);
    const orderHeaders = await collect(orders.text, "main table thead th");
    const listed = await tableRows(orders.text, "main table");
    expect(listed.map((r) => r[orderHeaders.indexOf("Status")])).toEqual(["New", "New"]);
    expect(listed.map((r) => r[orderHeaders.indexOf("Total")])).toEqual(["127.30", "127.30"]);
  });
});

describe("console: a store's overview", () => {
  it("links a feed's warnings and errors to what they are, and labels every cycle's bar differently", async () => {
    const { cookie } = await signIn();
    const { storeId } = await storeWithToken();
    await putProducts(storeId, [
      product("OK-1"),
      product("NO-GTIN", { Gtin: "" }),
      product("BAD-GTIN", { Gtin: "4006381333932" }),
      product("NO-TITLE", { Title: "" }),
    ]);
    const feed = await createFeed(storeId, { Name: "Google", Format: "csv" });
    const compiled = await compile(feed.FeedId);
    expect(compiled).toMatchObject({ CompilationWarningCount: 2, CompilationErrorCount: 1 });
    // Two cycles within the same minute.
    const sourceId = await createSource(storeId, { Settings: simulatedWindow(3) });
    expect((await admin("POST", `/sync?sourceId=${sourceId}`)).status).toBe(200);
    expect((await admin("POST", `/sync?sourceId=${sourceId}`)).status).toBe(200);

    const page = await send("GET", `/console/stores/${storeId}`, { cookie });
    expect(page.status).toBe(200);
    const headers = await collect(page.text, "table#feeds-table thead th");
    const [row] = await tableRows(page.text, "table#feeds-table");
    expect(row![headers.indexOf("With warnings")]).toBe("2");
    expect(row![headers.indexOf("With errors")]).toBe("1");
    const problems = `/console/stores/${storeId}/feeds/${feed.FeedId}#problems`;
    expect(await collect(page.text, "table#feeds-table a", "href")).toEqual([`/console/stores/${storeId}/feeds/${feed.FeedId}`, problems, problems]);
    // The feeds tab links them the same way.
    const feedsTab = await send("GET", `/console/stores/${storeId}/feeds`, { cookie });
    expect((await collect(feedsTab.text, "main table a", "href")).filter((h) => h === problems)).toHaveLength(2);

    // Where the links lead: the list of each product's problems, in words.
    const feedPage = await send("GET", problems.replace(/#.*$/, ""), { cookie });
    expect(await collect(feedPage.text, "h2#problems")).toEqual(["What the last compile found"]);
    expect(await tableRows(feedPage.text, "table#problems-table")).toEqual([
      ["BAD-GTIN", "—", "gtin's check digit is wrong (its last digit does not match the others, so Google refuses it as an identifier)"],
      ["NO-GTIN", "—", "gtin is recommended"],
      ["NO-TITLE", "title is required", "—"],
    ]);

    // Two bars, two labels, even though both cycles started in the same minute.
    const labels = await collect(page.text, "svg#cycles-1 text.column-label");
    expect(labels).toHaveLength(2);
    expect(new Set(labels).size).toBe(2);
    for (const label of labels) expect(label).toMatch(/^\d\d:\d\d(:\d\d)?( #\d)?$/);
  });
});
