// Paging defaults (decisions 3, corrected): every list that pages answers page 1 without `page`
// (and without `cursor`) and pages of 100 without `pageSize`, and its Paging says so; `page` or
// `pageSize` present but zero, negative, not a whole number or empty is still a 400 naming it.
// Orders and feeds on /v1 (and the Bearer form), and the operator's order search.
import { describe, expect, it } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { createSource, simulatedWindow } from "../helpers/sync";

const RANGE = "fromDate=2000-01-01&toDate=2100-01-01";

/** A store with 103 orders (one simulated import) and 102 feeds. */
async function bigStore() {
  const { storeId, token } = await storeWithToken();
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(103), pageSize: 500 } });
  const sync = await admin("POST", `/sync?sourceId=${sourceId}`);
  expect(sync.status, sync.text).toBe(200);
  for (let i = 0; i < 102; i++) {
    const res = await admin("POST", `/stores/${storeId}/feeds`, { Name: `Feed ${String(i).padStart(3, "0")}`, Format: "csv" });
    expect(res.status, res.text).toBe(200);
  }
  return { storeId, token };
}

const ids = (list: unknown, id: string) => (list as Record<string, string>[]).map((row) => row[id]);

describe("a list without page or pageSize", () => {
  it("answers page 1 in pages of 100, and says so in Paging; the next page follows by page or cursor", { timeout: 120_000 }, async () => {
    const { storeId, token } = await bigStore();

    const orders = await call("GET", `/v1/${token}/Orders?${RANGE}`);
    expect(orders.status, orders.text).toBe(200);
    expect(orders.json.Paging).toEqual({ Page: 1, PageSize: 100, MaxPageSize: 100, NextCursor: expect.any(String) });
    expect(orders.json.Orders).toHaveLength(100);
    // The same page as asked for explicitly, and the rest on page 2 by either way of asking.
    const explicit = await call("GET", `/v1/${token}/Orders?${RANGE}&page=1&pageSize=100`);
    expect(ids(orders.json.Orders, "OrderId")).toEqual(ids(explicit.json.Orders, "OrderId"));
    const second = await call("GET", `/v1/${token}/Orders?${RANGE}&page=2`);
    expect(second.json.Paging).toEqual({ Page: 2, PageSize: 100, MaxPageSize: 100, NextCursor: null });
    expect(second.json.Orders).toHaveLength(3);
    const byCursor = await call(
      "GET",
      `/v1/${token}/Orders?${RANGE}&cursor=${orders.json.Paging && (orders.json.Paging as { NextCursor: string }).NextCursor}`,
    );
    expect(byCursor.status, byCursor.text).toBe(200);
    expect(ids(byCursor.json.Orders, "OrderId")).toEqual(ids(second.json.Orders, "OrderId"));
    // Only pageSize, only page.
    const sized = await call("GET", `/v1/${token}/Orders?${RANGE}&pageSize=40`);
    expect(sized.json.Paging).toMatchObject({ Page: 1, PageSize: 40 });
    expect(sized.json.Orders).toHaveLength(40);
    const paged = await call("GET", `/v1/${token}/Orders?${RANGE}&page=3&pageSize=50`);
    expect(paged.json.Orders).toHaveLength(3);

    // The Bearer form takes the same defaults.
    const bearer = await call("GET", `/api/v1/orders?${RANGE}`, { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status, bearer.text).toBe(200);
    expect(bearer.json.Paging).toMatchObject({ Page: 1, PageSize: 100 });
    expect(bearer.json.Orders).toHaveLength(100);

    const feeds = await call("GET", `/v1/${token}/feeds`);
    expect(feeds.status, feeds.text).toBe(200);
    expect(feeds.json.Paging).toEqual({ Page: 1, PageSize: 100, MaxPageSize: 100, NextCursor: expect.any(String) });
    expect(ids(feeds.json.Feeds, "Name")).toEqual(Array.from({ length: 100 }, (_, i) => `Feed ${String(i).padStart(3, "0")}`));
    const feeds2 = await call("GET", `/v1/${token}/feeds?page=2`);
    expect(ids(feeds2.json.Feeds, "Name")).toEqual(["Feed 100", "Feed 101"]);
    expect((feeds2.json.Paging as { NextCursor: unknown }).NextCursor).toBeNull();

    // The operator's search: newest first, page 1 of 100.
    const search = await admin("GET", `/stores/${storeId}/orders`);
    expect(search.status, search.text).toBe(200);
    expect(search.json.Paging).toEqual({ Page: 1, PageSize: 100, MaxPageSize: 100 });
    expect(search.json.Orders).toHaveLength(100);
    const searchTail = await admin("GET", `/stores/${storeId}/orders?page=2`);
    expect(searchTail.json.Orders).toHaveLength(3);
  });
});

describe("page or pageSize given but not a whole number of 1 or more", () => {
  it("is a 400 naming the parameter, on every list that pages", async () => {
    const { storeId, token } = await storeWithToken();
    const lists: [string, (query: string) => Promise<{ status: number; json: Record<string, unknown> }>][] = [
      ["orders", (q) => call("GET", `/v1/${token}/Orders?${RANGE}&${q}`)],
      ["orders (Bearer)", (q) => call("GET", `/api/v1/orders?${RANGE}&${q}`, { headers: { authorization: `Bearer ${token}` } })],
      ["feeds", (q) => call("GET", `/v1/${token}/feeds?${q}`)],
      ["operator's orders", (q) => admin("GET", `/stores/${storeId}/orders?${q}`)],
    ];
    for (const [list, get] of lists) {
      for (const name of ["page", "pageSize"]) {
        for (const value of ["0", "-1", "1.5", "abc", "", "1e3"]) {
          const res = await get(`${name}=${value}`);
          expect(res.status, `${list} ${name}=${value}`).toBe(400);
          expect(res.json, `${list} ${name}=${value}`).toEqual({
            Success: false,
            Message:
              `'${name}': must be a whole number of 1 or more (${name === "page" ? "pages start at 1" : "at most 100; larger sizes are clamped"}); ` +
              `got '${value}'`,
          });
        }
      }
    }
  });
});
