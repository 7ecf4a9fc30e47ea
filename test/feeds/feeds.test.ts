// Feeds as a client and an operator meet them: compile counts, the file's bytes, download
// headers, count/list/get, scope, isolation, catalog import. Downloads are read with csv-parse,
// a parser independent of the service's own (src/feeds/csv.ts), as the interface's one public
// client reads them "straight into a CSV reader" (decisions 7).
import { parse } from "csv-parse/sync";
import { describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { compile, createFeed, product, putCsv, putProducts } from "./feeds-helpers";

/** The interface's exact text for a missing scope (spec 5.7). */
const DENIED = "Authorization has been denied for this request.";

/** RFC 4180 as a strict reader takes it: every record the header's width, quotes balanced. */
function parseCsv(text: string): string[][] {
  return parse(text, { relax_column_count: false, relax_quotes: false, skip_empty_lines: false, bom: false }) as string[][];
}

const GOOGLE_HEADER = ["id", "title", "description", "link", "image_link", "price", "availability", "brand", "gtin"];

/** A catalog whose defects are known: 11 products, 6 errors, 5 written of which 3 warned. */
const DEFECTIVE = [
  product("P01"),
  product("P02", { Brand: null }),
  product("P03", { Brand: "", Gtin: null }),
  product("P04", { Title: "T".repeat(151) }),
  product("P05", { Price: 0 }),
  product("P06", { Price: -3 }),
  product("P07", { Link: "/p/7" }),
  product("P08", { Title: null }),
  product("P09", { ImageLink: "ftp://cdn.example/9.jpg" }),
  product("P10", { Availability: "In Stock" }),
  product("P11", { Description: "" }),
];

async function compiledFeed(products: unknown[] = DEFECTIVE, feed: Record<string, unknown> = {}, keyScopes?: string[]) {
  const ctx = await storeWithToken(keyScopes ? { scopes: keyScopes } : {});
  await putProducts(ctx.storeId, products);
  const created = await createFeed(ctx.storeId, feed);
  const compiled = await compile(created.FeedId);
  return { ...ctx, feed: compiled };
}

describe("compiling a catalog with known defects", () => {
  it("counts errors and warnings, scores the valid share rounded down, and writes only valid rows", async () => {
    const { token, feed } = await compiledFeed();
    expect(feed).toMatchObject({
      Status: "Completed",
      CompilationTotalCount: 11,
      CompilationValidCount: 5,
      CompilationWarningCount: 3,
      CompilationErrorCount: 6,
      Score: 45,
      FileName: "google-us.csv",
    });
    expect(feed.DateLastCompiled).toMatch(/Z$/);
    const issues = Object.fromEntries(feed.Issues.map((i) => [i.Sku, [...i.Errors, ...i.Warnings]]));
    expect(issues).toMatchObject({
      P02: ["brand is recommended"],
      P04: ["title is longer than 150 characters"],
      P05: ["price must be a positive number"],
      P06: ["price must be a positive number"],
      P07: ["link must be an absolute http(s) URL"],
      P08: ["title is required"],
      P09: ["image_link must be an absolute http(s) URL"],
      P11: ["description is required"],
    });

    const file = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(file.status).toBe(200);
    const rows = parseCsv(file.text);
    expect(rows[0]).toEqual(GOOGLE_HEADER);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["P01", "P02", "P03", "P04", "P10"]);
    expect(rows[1]).toEqual([
      "P01",
      "Product P01",
      "The description of P01",
      "https://shop.example/p/P01",
      "https://cdn.example/i/P01.jpg",
      "12.50 USD",
      "in_stock",
      "Acme",
      "4006381333931",
    ]);
    expect(rows[5]![6]).toBe("in_stock");

    // The token's view of the same feed (spec 2.5 fields).
    const one = await call("GET", `/v1/${token}/Feeds/${feed.FeedId}`);
    expect(one.status).toBe(200);
    expect((one.json.Feeds as unknown[])[0]).toMatchObject({ FeedId: feed.FeedId, Status: "Completed", Score: 45, CompilationValidCount: 5 });
  });

  it("quotes commas, quotes, line breaks and keeps non-ASCII as UTF-8 without a BOM (CSV)", async () => {
    const title = 'Mug, "large"\nblue – crème 日本';
    const { token, feed } = await compiledFeed([product("Q1", { Title: title, Description: "tab\there" })]);
    const res = await exports_fetch(`/v1/${token}/feeds/${feed.FeedId}/download`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    expect(text).toContain(`Q1,"Mug, ""large""\nblue – crème 日本",tab\there,`);
    expect(parseCsv(text)[1]![1]).toBe(title);
  });

  it("replaces tabs and line breaks in TSV so every row has the header's column count", async () => {
    const { token, feed } = await compiledFeed([product("T1", { Title: "a\tb\r\nc", Description: 'x, "y"' })], { Format: "tsv", Name: "Tab feed" });
    const res = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(res.headers.get("content-type")).toMatch(/^text\/tab-separated-values/);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="tab-feed.tsv"');
    const lines = res.text.split("\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.split("\t")).toHaveLength(9);
    // A TSV reader (no quoting, LF records) sees the header and one row of nine fields.
    const records = parse(res.text, { delimiter: "\t", quote: false, record_delimiter: "\n", relax_column_count: false }) as string[][];
    expect(records.map((r) => r.length)).toEqual([9, 9]);
    expect(records[1]!.slice(0, 3)).toEqual(["T1", "a b c", 'x, "y"']);
    expect(lines[1]).toBe('T1\ta b c\tx, "y"\thttps://shop.example/p/T1\thttps://cdn.example/i/T1.jpg\t12.50 USD\tin_stock\tAcme\t4006381333931');
  });

  it("emits the feed's own Columns, including an extra catalog column", async () => {
    const { token, feed } = await compiledFeed([product("C1", { Color: "red" })], {
      Columns: [
        { Header: "sku", Field: "sku" },
        { Header: "colour", Field: "Color" },
        { Header: "amount", Field: "price_amount" },
      ],
    });
    const res = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(res.text).toBe("sku,colour,amount\r\nC1,red,12.50\r\n");
  });
});

async function exports_fetch(path: string, headers: Record<string, string> = {}) {
  const { exports } = await import("cloudflare:workers");
  return exports.default.fetch(new Request(`https://hub.test${path}`, { headers }));
}

describe("a failed compile", () => {
  it("sets Status Failed with its reason and keeps the previous file and counts", async () => {
    const { storeId, token, feed } = await compiledFeed([product("A1"), product("A2")]);
    const before = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    // Every product now breaks a rule: publishing an empty file would delist the store.
    await putProducts(storeId, [product("A1", { Price: 0 }), product("A2", { Link: "relative" })]);
    const failed = await compile(feed.FeedId);
    expect(failed.Status).toBe("Failed");
    expect(failed.StatusMessage).toMatch(/All 2 products have errors.*previous file is kept.*A1.*price must be a positive number/);
    expect(failed).toMatchObject({ CompilationTotalCount: 2, CompilationValidCount: 2, Score: 100, DateLastCompiled: feed.DateLastCompiled });
    const after = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.text);
    expect(after.headers.get("etag")).toBe(before.headers.get("etag"));

    // And the next good compile replaces the file.
    await putProducts(storeId, [product("A1", { Price: 3 })]);
    const fixed = await compile(feed.FeedId);
    expect(fixed).toMatchObject({ Status: "Completed", StatusMessage: "", CompilationTotalCount: 2, CompilationValidCount: 1 });
    const replaced = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(replaced.text).toContain("A1,Product A1");
    expect(replaced.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });

  it("fails an empty catalog rather than publishing a header-only file", async () => {
    const { storeId } = await storeWithToken();
    const feed = await createFeed(storeId);
    const failed = await compile(feed.FeedId);
    expect(failed.Status).toBe("Failed");
    expect(failed.StatusMessage).toMatch(/catalog is empty/);
  });
});

describe("download", () => {
  it("answers the file with its type, name and ETag to a client that sends no Accept header, and records DateLastPulled", async () => {
    const { token, feed, storeId } = await compiledFeed([product("D1")]);
    expect(feed.DateLastPulled).toBeNull();
    const res = await exports_fetch(`/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="google-us.csv"');
    expect(res.headers.get("etag")).toMatch(/^"[^"]+"$/);
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    // Like every /v1 answer, the file carries the caller's call limit.
    // The key's bucket (10,000, helpers/api.ts) less this one call: the first of the key.
    expect(res.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("9999");
    const text = await res.text();
    expect(res.headers.get("content-length")).toBe(String(new TextEncoder().encode(text).length));
    expect(text.startsWith("id,title,")).toBe(true);
    const headOnly = await call("HEAD", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(headOnly.status).toBe(200);
    expect(headOnly.text).toBe("");
    expect(headOnly.headers.get("etag")).toBe(res.headers.get("etag"));
    expect(headOnly.headers.get("content-length")).toBe(res.headers.get("content-length"));
    await vi.waitFor(async () => {
      const row = await admin("GET", `/feeds/${feed.FeedId}`);
      expect((row.json.Feed as { DateLastPulled: string | null }).DateLastPulled).toMatch(/Z$/);
    });
    // The token's view shows the pull too, and the store's list carries the same feed.
    const viaToken = await call("GET", `/v1/${token}/feeds/${feed.FeedId}`);
    expect((viaToken.json.Feeds as { DateLastPulled: string | null }[])[0]!.DateLastPulled).toMatch(/Z$/);
    const listed = await admin("GET", `/stores/${storeId}/feeds`);
    expect((listed.json.Feeds as { FeedId: string }[]).map((f) => f.FeedId)).toEqual([feed.FeedId]);
  });

  it("accepts text/csv and */*, and refuses an Accept that admits no file type with 406", async () => {
    const { token, feed } = await compiledFeed([product("D2")]);
    const path = `/v1/${token}/feeds/${feed.FeedId}/download`;
    expect((await call("GET", path, { headers: { accept: "text/csv" } })).status).toBe(200);
    expect((await call("GET", path, { headers: { accept: "*/*" } })).status).toBe(200);
    const refused = await call("GET", path, { headers: { accept: "text/html" } });
    expect(refused.status).toBe(406);
    expect(refused.json.Success).toBe(false);
  });

  it("answers 304 to If-None-Match with the current ETag, and the file to a stale one", async () => {
    const { token, feed } = await compiledFeed([product("E1")]);
    const path = `/v1/${token}/feeds/${feed.FeedId}/download`;
    const first = await call("GET", path);
    const etag = first.headers.get("etag")!;
    const again = await call("GET", path, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect((await call("GET", path, { headers: { "if-none-match": `W/${etag}` } })).status).toBe(304);
    expect((await call("GET", path, { headers: { "if-none-match": '"stale"' } })).status).toBe(200);
  });

  it("serves byte ranges with 206 and refuses a range past the end with 416", async () => {
    const { token, feed } = await compiledFeed([product("R1"), product("R2")]);
    const path = `/v1/${token}/feeds/${feed.FeedId}/download`;
    const whole = await call("GET", path);
    const size = new TextEncoder().encode(whole.text).length;

    const head = await call("GET", path, { headers: { range: "bytes=0-9" } });
    expect(head.status).toBe(206);
    expect(head.text).toBe(whole.text.slice(0, 10));
    expect(head.headers.get("content-range")).toBe(`bytes 0-9/${size}`);
    expect(head.headers.get("content-length")).toBe("10");

    const tail = await call("GET", path, { headers: { range: "bytes=-5" } });
    expect(tail.status).toBe(206);
    expect(tail.text).toBe(whole.text.slice(-5));

    const rest = await call("GET", path, { headers: { range: `bytes=${size - 3}-` } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get("content-range")).toBe(`bytes ${size - 3}-${size - 1}/${size}`);

    const outside = await call("GET", path, { headers: { range: `bytes=${size}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get("content-range")).toBe(`bytes */${size}`);
    expect(outside.json.Success).toBe(false);

    // A range for another version of the file (If-Range) gets the whole current file.
    const stale = await call("GET", path, { headers: { range: "bytes=0-9", "if-range": '"old"' } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(whole.text);
  });

  it("answers 404 for a feed never compiled successfully", async () => {
    const { token, storeId } = await storeWithToken();
    const feed = await createFeed(storeId);
    const res = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(res.status).toBe(404);
    expect(res.json.Message).toMatch(/has no file yet/);
  });
});

describe("count, list and get", () => {
  it("filters by a case-insensitive substring of the Name, pages and sorts", async () => {
    const { storeId, token } = await storeWithToken();
    for (const name of ["Google US", "google DE", "Bing Émile", "Éclair GOOGLE"]) await createFeed(storeId, { Name: name });
    const count = async (q: string) => (await call("GET", `/v1/${token}/feeds/count${q}`)).json.Count;
    expect(await count("")).toBe(4);
    expect(await count("?filterQuery=GOOGLE")).toBe(3);
    expect(await count("?FILTERQUERY=émile")).toBe(1);
    expect(await count("?filterQuery=%C3%A9CLAIR")).toBe(1);
    expect(await count("?filterQuery=nothing")).toBe(0);
    // The reference's token-less form, with the token as a Bearer header (decisions 4).
    const bearer = await call("GET", "/api/v1/Feeds/Count?filterQuery=google", { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.json.Count).toBe(3);

    const page1 = await call("GET", `/v1/${token}/Feeds?page=1&pageSize=2&filterQuery=google`);
    expect(page1.status).toBe(200);
    // Name sorts by its lower-cased form, code point by code point: "é" after "g".
    expect((page1.json.Feeds as { Name: string }[]).map((f) => f.Name)).toEqual(["google DE", "Google US"]);
    expect(page1.json.Paging).toEqual({ Page: 1, PageSize: 2, MaxPageSize: 100, NextCursor: expect.stringMatching(/^[\w-]+\.[\w-]+$/) });
    expect(page1.json.Sorting).toEqual({ SortBy: "Name", SortDirection: "asc" });
    const page2 = await call("GET", `/v1/${token}/feeds?page=2&pageSize=2&filterQuery=google`);
    expect((page2.json.Feeds as { Name: string }[]).map((f) => f.Name)).toEqual(["Éclair GOOGLE"]);

    const desc = await call("GET", `/v1/${token}/feeds?page=1&pageSize=500&sortBy=name&sortDirection=DESC`);
    expect(desc.json.Paging).toEqual({ Page: 1, PageSize: 100, MaxPageSize: 100, NextCursor: null });
    expect((desc.json.Feeds as { Name: string }[]).map((f) => f.Name)).toEqual(["Éclair GOOGLE", "Google US", "google DE", "Bing Émile"]);
  });

  it("sorts by DateLastCompiled and rejects an unknown sort field or a bad page with 400", async () => {
    const { storeId, token } = await storeWithToken();
    await putProducts(storeId, [product("S1")]);
    const a = await createFeed(storeId, { Name: "A" });
    const b = await createFeed(storeId, { Name: "B" });
    await compile(b.FeedId);
    await compile(a.FeedId);
    const byDate = await call("GET", `/v1/${token}/feeds?page=1&pageSize=10&sortBy=DateLastCompiled&sortDirection=desc`);
    expect((byDate.json.Feeds as { Name: string }[]).map((f) => f.Name)).toEqual(["A", "B"]);
    const bad = await call("GET", `/v1/${token}/feeds?page=1&pageSize=10&sortBy=Score`);
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toMatch(/sortBy.*Name, DateLastCompiled/);
    expect((await call("GET", `/v1/${token}/feeds?page=0&pageSize=10`)).status).toBe(400);
    // Without page: page 1 (paging has defaults).
    const defaulted = await call("GET", `/v1/${token}/feeds?pageSize=10`);
    expect(defaulted.status).toBe(200);
    expect(defaulted.json.Paging).toMatchObject({ Page: 1, PageSize: 10 });
  });
});

describe("scope and store isolation", () => {
  it("refuses every feed endpoint to a key without FeedsRead with the interface's exact 401", async () => {
    const { token, feed } = await compiledFeed([product("X1")], {}, ["OrdersRead"]);
    for (const path of ["/feeds/count", "/feeds?page=1&pageSize=10", `/feeds/${feed.FeedId}`, `/feeds/${feed.FeedId}/download`]) {
      const res = await call("GET", `/v1/${token}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.json).toEqual({ Success: false, Message: DENIED });
    }
  });

  it("never shows another store's feed: 404 for get and download, absent from count and list", async () => {
    const mine = await compiledFeed([product("M1")]);
    const other = await storeWithToken();
    for (const path of [`/feeds/${mine.feed.FeedId}`, `/feeds/${mine.feed.FeedId}/download`]) {
      const res = await call("GET", `/v1/${other.token}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.json.Success).toBe(false);
    }
    expect((await call("GET", `/v1/${other.token}/feeds/count`)).json.Count).toBe(0);
    expect((await call("GET", `/v1/${other.token}/feeds?page=1&pageSize=10`)).json.Feeds).toEqual([]);
  });
});

describe("catalog import", () => {
  it("upserts JSON by Sku, keeps good rows and reports bad ones by their position", async () => {
    const { storeId } = await storeWithToken();
    const res = await admin("PUT", `/stores/${storeId}/products`, {
      Products: [product("J1"), { Title: "no sku" }, product("J2", { Price: "abc" }), "not an object", product("J1", { Title: "Renamed" })],
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ RowsReceived: 5, RowsUpserted: 2, RowsRejected: 3 });
    expect(res.json.Rejections).toEqual([
      { Row: 2, Sku: null, Message: "'Sku' is required" },
      { Row: 3, Sku: "J2", Message: "'Price': 'abc' is not a number" },
      { Row: 4, Sku: null, Message: "must be a JSON object" },
    ]);
    expect((await admin("GET", `/stores/${storeId}/products/count`)).json.Count).toBe(1);
    const feed = await compile(
      (
        await createFeed(storeId, {
          Columns: [
            { Header: "id", Field: "Sku" },
            { Header: "title", Field: "Title" },
          ],
        })
      ).FeedId,
    );
    expect(feed.CompilationTotalCount).toBe(1);
  });

  it("streams a CSV upload with quoted fields, reporting bad rows by spreadsheet row", async () => {
    const { storeId, token } = await storeWithToken();
    const csv = [
      "sku,title,description,link,image_link,price,currency,availability,brand,gtin,Color",
      'C1,"Mug, ""large""","two\nlines",https://s.example/1,https://s.example/1.jpg,12.5,usd,in stock,Acme,4006381333931,red',
      ",missing sku,d,https://s.example/2,https://s.example/2.jpg,1,USD,in_stock,A,1,",
      "C3,short row",
      "C4,Bad price,d,https://s.example/4,https://s.example/4.jpg,twelve,USD,in_stock,A,1,blue",
      "C5,Bad currency,d,https://s.example/5,https://s.example/5.jpg,5,dollars,in_stock,A,1,blue",
      "C6,Fine,d,https://s.example/6,https://s.example/6.jpg,6.00 EUR,EUR,in_stock,A,4006381333931,",
    ].join("\r\n");
    const res = await putCsv(storeId, csv);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ RowsReceived: 6, RowsUpserted: 2, RowsRejected: 4 });
    expect(res.json.Rejections).toEqual([
      { Row: 3, Sku: "", Message: "'Sku': must not be empty" },
      { Row: 4, Sku: "C3", Message: "has 2 fields; the header has 11" },
      { Row: 5, Sku: "C4", Message: "'Price': 'twelve' is not a number" },
      { Row: 6, Sku: "C5", Message: "'Currency': 'dollars' is not a three-letter ISO 4217 code" },
    ]);
    const feed = await createFeed(storeId, {
      Columns: [
        { Header: "id", Field: "Sku" },
        { Header: "title", Field: "Title" },
        { Header: "description", Field: "Description" },
        { Header: "price", Field: "Price" },
        { Header: "color", Field: "Color" },
      ],
    });
    await compile(feed.FeedId);
    const file = await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`);
    expect(file.text).toBe('id,title,description,price,color\r\nC1,"Mug, ""large""","two\nlines",12.50 USD,red\r\nC6,Fine,d,6.00 EUR,\r\n');
  });

  it("stops at a quote left open, keeping the rows before it", async () => {
    const { storeId } = await storeWithToken();
    const csv = `sku,title\nOK1,fine\nBAD,"never closed\n${"x,".repeat(600_000)}`;
    const res = await putCsv(storeId, csv);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ RowsUpserted: 1, RowsRejected: 1 });
    expect(res.json.Rejections).toEqual([
      { Row: 3, Sku: null, Message: "a field is longer than 1048576 characters (is a quote left open?); the upload was not read past this row" },
    ]);
  });

  it("stops at a record with more than 1,000 fields, keeping the rows before it", async () => {
    const { storeId } = await storeWithToken();
    const csv = `sku,title\nOK1,fine\nWIDE,${",".repeat(1_000)}\nOK2,never read\n`;
    const res = await putCsv(storeId, csv);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ RowsUpserted: 1, RowsRejected: 1 });
    expect(res.json.Rejections).toEqual([{ Row: 3, Sku: null, Message: "a record has more than 1000 fields; the upload was not read past this row" }]);
  });

  it("deletes a Sku, and 404s an unknown one", async () => {
    const { storeId } = await storeWithToken();
    await putProducts(storeId, [product("Z1"), product("Z/2")]);
    expect((await admin("DELETE", `/stores/${storeId}/products/Z1`)).status).toBe(200);
    expect((await admin("DELETE", `/stores/${storeId}/products/${encodeURIComponent("Z/2")}`)).status).toBe(200);
    expect((await admin("DELETE", `/stores/${storeId}/products/Z1`)).status).toBe(404);
    expect((await admin("GET", `/stores/${storeId}/products/count`)).json.Count).toBe(0);
  });

  it("refuses a CSV without a Sku column and a body that is neither JSON nor CSV with 400", async () => {
    const { storeId } = await storeWithToken();
    const noSku = await putCsv(storeId, "title\nx\n");
    expect(noSku.status).toBe(400);
    expect(noSku.json.Message).toMatch(/Sku column/);
    const xml = await admin("PUT", `/stores/${storeId}/products`, undefined);
    expect(xml.status).toBe(400);
  });
});

describe("feed definitions", () => {
  it("refuses a bad Format, Template or Columns with 400 naming the field", async () => {
    const { storeId } = await storeWithToken();
    const format = await admin("POST", `/stores/${storeId}/feeds`, { Name: "x", Format: "xml" });
    expect(format.status).toBe(400);
    expect(format.json.Message).toMatch(/Format.*csv, tsv/);
    const template = await admin("POST", `/stores/${storeId}/feeds`, { Name: "x", Format: "csv", Template: "amazon" });
    expect(template.json.Message).toMatch(/Template/);
    const columns = await admin("POST", `/stores/${storeId}/feeds`, { Name: "x", Format: "csv", Columns: [] });
    expect(columns.json.Message).toMatch(/Columns/);
    const store = await admin("POST", `/stores/st_nope/feeds`, { Name: "x", Format: "csv" });
    expect(store.status).toBe(404);
  });
});
