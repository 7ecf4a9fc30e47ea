// Cursor paging of orders and feeds (decisions 3, issue 12): NextCursor on every list answer; a
// walk neither skips nor repeats while orders are inserted and moved; a cursor that was altered,
// forged, made for other filters, sort or pageSize, or for another store is a 400.
import { describe, expect, it, vi } from "vitest";
import { admin, call, insert, storeWithToken } from "../helpers/api";
import { storeD1 } from "../helpers/shards";

// Whole walks through the Worker: generous on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

interface Page {
  ids: string[];
  orders: { OrderId: string; GrandTotal: number; DateUpdated: string; OrderStatus: string }[];
  paging: { Page: number; PageSize: number; MaxPageSize: number; NextCursor: string | null };
}

async function page(token: string, query: string): Promise<Page> {
  const res = await call("GET", `/v1/${token}/Orders?${query}`);
  expect(res.status, `${query}: ${res.text}`).toBe(200);
  const body = JSON.parse(res.text) as { Orders: Page["orders"]; Paging: Page["paging"] };
  return { ids: body.Orders.map((o) => o.OrderId), orders: body.Orders, paging: body.Paging };
}

/** Every page of a walk; `between` runs after each page, before the next is asked for. */
async function walk(token: string, query: string, between: (pageNumber: number) => Promise<void> = async () => {}) {
  const pages: Page[] = [];
  let next = await page(token, `${query}&page=1`);
  for (;;) {
    pages.push(next);
    if (!next.paging.NextCursor) return pages;
    await between(pages.length);
    next = await page(token, `${query}&cursor=${encodeURIComponent(next.paging.NextCursor)}`);
    expect(pages.length).toBeLessThan(100);
  }
}

const day = (n: number) => `2026-03-${String(n).padStart(2, "0")}T10:00:00Z`;
const RANGE = "fromDate=2026-03-01&toDate=2026-03-31T23:59:59Z";

describe("cursor walks", () => {
  it("answers NextCursor until the last page, numbers the pages, and ends with null", async () => {
    const { token } = await storeWithToken();
    const ids: string[] = [];
    for (let i = 1; i <= 7; i++) ids.push(await insert(token, { DateCreatedInOrderSource: day(i) }));
    const pages = await walk(token, `${RANGE}&pageSize=3`);
    expect(pages.map((p) => p.ids)).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    // The list answer is streamed; it still carries the key's bucket like every /v1 answer.
    const streamed = await call("GET", `/v1/${token}/Orders?${RANGE}&pageSize=3&page=1`);
    expect(streamed.headers.get("X-RateLimit-Limit")).toBe("10000");
    expect(Number(streamed.headers.get("X-RateLimit-Remaining"))).toBeGreaterThan(9000);
    expect(streamed.headers.get("Content-Type")).toBe("application/json; charset=UTF-8");
    expect(pages.map((p) => p.paging.Page)).toEqual([1, 2, 3]);
    expect(pages.map((p) => p.paging.PageSize)).toEqual([3, 3, 3]);
    expect(pages[2]!.paging.NextCursor).toBeNull();
    // A page that ends exactly at the last order says so: no cursor to an empty page.
    const exact = await walk(token, `${RANGE}&pageSize=7`);
    expect(exact).toHaveLength(1);
    expect(exact[0]!.paging.NextCursor).toBeNull();
  });

  it("neither skips nor repeats an order while orders are inserted before and after the cursor and moved", async () => {
    const { token } = await storeWithToken();
    const before: string[] = [];
    for (let i = 1; i <= 20; i++) before.push(await insert(token, { DateCreatedInOrderSource: day(i), GrandTotal: 10 }));
    let inserted = 0;
    const pages = await walk(token, `${RANGE}&pageSize=3`, async (n) => {
      // An order dated before everything read so far, one after, and moves of orders both read and unread.
      await insert(token, { DateCreatedInOrderSource: "2026-03-01T09:00:00Z" });
      await insert(token, { DateCreatedInOrderSource: day(25 + (n % 5)) });
      inserted += 2;
      const read = before[(n * 3) % 20]!;
      const unread = before[Math.min(19, n * 3 + 1)]!;
      for (const id of [read, unread]) {
        const res = await call("PUT", `/v1/${token}/Orders/${id}/AcknowledgeOrder?orderDestinationOrderNumber=ERP-${id}-${n}`);
        expect(res.status, res.text).toBe(200);
      }
    });
    const seen = pages.flatMap((p) => p.ids);
    expect(new Set(seen).size, "no order twice").toBe(seen.length);
    expect(
      seen.filter((id) => before.includes(id)),
      "every order that existed, once, in order",
    ).toEqual(before);
    expect(inserted).toBeGreaterThan(0);
    // Orders inserted behind the cursor are not seen; those ahead of it are.
    expect(seen.length).toBeGreaterThan(before.length);
  });

  it("walks a sort with many ties (GrandTotal desc, OrderStatus) in the same order as the page numbers", async () => {
    const { token } = await storeWithToken();
    for (let i = 1; i <= 13; i++) {
      await insert(token, { DateCreatedInOrderSource: day(i), GrandTotal: i % 3 === 0 ? 5 : 7.25, OrderStatus: i % 2 ? "New" : "Shipped" });
    }
    for (const sort of [
      "sortBy=GrandTotal&sortDirection=desc",
      "sortBy=OrderStatus",
      "sortBy=OrderStatus&sortDirection=desc",
      "sortBy=OrderId&sortDirection=desc",
    ]) {
      const byCursor = (await walk(token, `${RANGE}&pageSize=4&${sort}`)).flatMap((p) => p.ids);
      const byPage = [];
      for (let n = 1; n <= 4; n++) byPage.push(...(await page(token, `${RANGE}&pageSize=4&${sort}&page=${n}`)).ids);
      expect(byCursor, sort).toEqual(byPage);
      expect(new Set(byCursor).size, sort).toBe(13);
    }
  });

  it(
    "with dateField=updated (sorted by DateUpdated by default), an order changed during the walk comes again at its new place and none is " + "skipped",
    async () => {
      const { token } = await storeWithToken();
      const ids: string[] = [];
      for (let i = 1; i <= 9; i++) ids.push(await insert(token, { DateCreatedInOrderSource: day(i) }));
      const query = `fromDate=2000-01-01&toDate=2100-01-01&dateField=updated&pageSize=2`;
      const first = await page(token, `${query}&page=1`);
      expect(first.ids).toEqual(ids.slice(0, 2));
      const pages = await walk(token, query, async (n) => {
        if (n === 1) {
          // One order already read, one not yet read.
          for (const id of [ids[0]!, ids[5]!])
            expect((await call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body: { OrderStatus: "SHIPPED" } })).status).toBe(200);
        }
      });
      const seen = pages.flatMap((p) => p.ids);
      for (const id of ids) expect(seen, id).toContain(id);
      expect(seen.slice(-2)).toEqual([ids[0], ids[5]]);
      expect(seen).toHaveLength(10);
      const dates = pages.flatMap((p) => p.orders.map((o) => o.DateUpdated));
      expect([...dates].sort()).toEqual(dates);
    },
  );
});

describe("narrow ranges", () => {
  it("sorted by something other than the filtered date, a range of a few orders in a larger store pages the same as its brute-force order", async () => {
    const { token } = await storeWithToken();
    const made: { id: string; total: number; day: number }[] = [];
    for (let i = 1; i <= 30; i++) {
      const total = [3, 1, 2, 1, 5][i % 5]!;
      made.push({ id: await insert(token, { DateCreatedInOrderSource: day(i), GrandTotal: total }), total, day: i });
    }
    // Days 10-13: 4 orders of 30, so the range is read through the date index and sorted.
    const inRange = made.filter((o) => o.day >= 10 && o.day <= 13);
    const expected = [...inRange].sort((a, b) => b.total - a.total || Number(b.id) - Number(a.id)).map((o) => o.id);
    const query = "fromDate=2026-03-10&toDate=2026-03-13T23:59:59Z&sortBy=GrandTotal&sortDirection=desc&pageSize=1";
    const seen = (await walk(token, query)).flatMap((p) => p.ids);
    expect(seen).toEqual(expected);
    // The whole month is most of the store: walked along the GrandTotal index instead, same rule.
    const month = (await walk(token, `${RANGE}&sortBy=GrandTotal&sortDirection=desc&pageSize=7`)).flatMap((p) => p.ids);
    expect(month).toEqual([...made].sort((a, b) => b.total - a.total || Number(b.id) - Number(a.id)).map((o) => o.id));
  });
});

describe("refused cursors", () => {
  it("answers 400 to a cursor altered, forged, made for other filters, sort or size, or for another store", async () => {
    const { token } = await storeWithToken();
    const other = await storeWithToken();
    for (let i = 1; i <= 5; i++) {
      await insert(token, { DateCreatedInOrderSource: day(i) });
      await insert(other.token, { DateCreatedInOrderSource: day(i) });
    }
    const base = `${RANGE}&pageSize=2`;
    const cursor = (await page(token, `${base}&page=1`)).paging.NextCursor!;
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/);
    const [payload, signature] = cursor.split(".") as [string, string];
    const payloadJson = new TextDecoder().decode(Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));
    const forgedPayload = btoa(payloadJson.replace(/^\[2,/, "[3,")).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    // The second-to-last character: the last of 43 carries only 4 bits, and padding bits may not count.
    const flipped = signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.slice(-1);
    expect(flipped).not.toBe(signature);
    const refused: [string, string, string][] = [
      ["altered signature", token, `${base}&cursor=${payload}.${flipped}`],
      ["altered position", token, `${base}&cursor=${forgedPayload}.${signature}`],
      ["made up", token, `${base}&cursor=WzIsMCwxXQ.${"A".repeat(43)}`],
      ["other status", token, `${base}&status=NEW&cursor=${cursor}`],
      ["other toDate", token, `fromDate=2026-03-01&toDate=2026-04-30&pageSize=2&cursor=${cursor}`],
      ["other dateField", token, `${base}&dateField=updated&cursor=${cursor}`],
      ["other sort", token, `${base}&sortBy=GrandTotal&cursor=${cursor}`],
      ["other direction", token, `${base}&sortDirection=desc&cursor=${cursor}`],
      ["other pageSize", token, `${RANGE}&pageSize=3&cursor=${cursor}`],
      ["another store's token", other.token, `${base}&cursor=${cursor}`],
    ];
    for (const [what, who, query] of refused) {
      const res = await call("GET", `/v1/${who}/Orders?${query}`);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.json, what).toEqual({ Success: false, Message: expect.stringMatching(/^'cursor' is not valid for this request/) });
    }
    // pageSize above the maximum is clamped, so it is the same request as 100.
    const clamped = (await page(token, `${RANGE}&pageSize=100&page=1`)).paging.NextCursor;
    expect(clamped).toBeNull();

    for (const [what, query, message] of [
      ["cursor and page", `${base}&page=1&cursor=${cursor}`, /'cursor': cannot be combined with page/],
      ["not a cursor", `${base}&cursor=hello`, /'cursor': is not a cursor this service issued/],
      ["twice", `${base}&cursor=${cursor}&cursor=${cursor}`, /'cursor': must be given once/],
    ] as const) {
      const res = await call("GET", `/v1/${token}/Orders?${query}`);
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.json.Message, what).toMatch(message);
    }
    // The genuine cursor still works, and the other store never saw this store's orders.
    expect((await page(token, `${base}&cursor=${cursor}`)).paging.Page).toBe(2);
  });
});

describe("feed cursors", () => {
  it("walks feeds by Name and by DateLastCompiled (null first ascending, last descending) and refuses a mismatched cursor", async () => {
    const { storeId, token } = await storeWithToken();
    const other = await storeWithToken();
    const names = ["delta", "Alpha", "charlie", "Bravo", "echo"];
    for (const name of names) expect((await admin("POST", `/stores/${storeId}/feeds`, { Name: name, Format: "csv" })).status).toBe(200);
    const feedWalk = async (query: string) => {
      const seen: string[] = [];
      let res = await call("GET", `/v1/${token}/feeds?${query}&page=1`);
      for (;;) {
        expect(res.status, res.text).toBe(200);
        seen.push(...(res.json.Feeds as { Name: string }[]).map((f) => f.Name));
        const next = (res.json.Paging as { NextCursor: string | null }).NextCursor;
        if (!next) return seen;
        res = await call("GET", `/v1/${token}/feeds?${query}&cursor=${next}`);
      }
    };
    expect(await feedWalk("pageSize=2")).toEqual(["Alpha", "Bravo", "charlie", "delta", "echo"]);
    expect(await feedWalk("pageSize=2&sortDirection=desc")).toEqual(["echo", "delta", "charlie", "Bravo", "Alpha"]);
    // No feed is compiled: every DateLastCompiled is null, so the id decides.
    const byDate = await feedWalk("pageSize=2&sortBy=DateLastCompiled");
    expect([...byDate].sort()).toEqual([...names].sort());
    expect(await feedWalk("pageSize=2&sortBy=DateLastCompiled&sortDirection=desc")).toEqual([...byDate].reverse());

    // Two compiled (written straight into D1), three never: the walk crosses from null to dates.
    const shard = await storeD1(storeId);
    await shard
      .prepare("update feeds set date_last_compiled = ? where store_id = ? and name in ('delta', 'Bravo')")
      .bind(Date.UTC(2026, 2, 1), storeId)
      .run();
    await shard
      .prepare("update feeds set date_last_compiled = ? where store_id = ? and name = 'Alpha'")
      .bind(Date.UTC(2026, 1, 1), storeId)
      .run();
    const ascending = await feedWalk("pageSize=2&sortBy=DateLastCompiled");
    expect(ascending.slice(2, 3)).toEqual(["Alpha"]);
    expect([...ascending.slice(0, 2)].sort()).toEqual(["charlie", "echo"]);
    expect([...ascending.slice(3)].sort()).toEqual(["Bravo", "delta"]);
    expect(await feedWalk("pageSize=2&sortBy=DateLastCompiled&sortDirection=desc")).toEqual([...ascending].reverse());

    const first = await call("GET", `/v1/${token}/feeds?pageSize=2&page=1`);
    const cursor = (first.json.Paging as { NextCursor: string }).NextCursor;
    for (const [who, query] of [
      [token, `pageSize=2&filterQuery=a&cursor=${cursor}`],
      [token, `pageSize=3&cursor=${cursor}`],
      [token, `pageSize=2&sortBy=DateLastCompiled&cursor=${cursor}`],
      [other.token, `pageSize=2&cursor=${cursor}`],
    ] as const) {
      const res = await call("GET", `/v1/${who}/feeds?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.Message).toMatch(/^'cursor' is not valid for this request/);
    }
  });
});
