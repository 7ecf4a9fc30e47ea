// "No input may produce a 500" (decisions 1) for the catalog (JSON and CSV uploads), feed
// definitions, compile, and the /v1 feed routes with odd queries and download headers. A seeded
// PRNG makes every run send the same requests.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, ADMIN_KEY, call, createStore, storeWithToken } from "../helpers/api";
import { storeD1 } from "../helpers/shards";
import { adminSent, expectNoFailures, fuzzer, HOSTILE_STRINGS, send, statusSeen, toJson } from "../helpers/fuzz";
import { compile, createFeed, product, putCsv, putProducts } from "./feeds-helpers";

async function productCount(storeId: string): Promise<number> {
  const row = await (await storeD1(storeId)).prepare("select count(*) as n from products where store_id = ?").bind(storeId).first<{ n: number }>();
  return row?.n ?? 0;
}

async function feedCount(storeId: string): Promise<number> {
  const row = await (await storeD1(storeId)).prepare("select count(*) as n from feeds where store_id = ?").bind(storeId).first<{ n: number }>();
  return row?.n ?? 0;
}

const csvSent = (storeId: string, body: BodyInit, contentType = "text/csv") => ({
  method: "PUT",
  path: `/admin/v1/stores/${storeId}/products`,
  body,
  headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": contentType },
});

describe("fuzz: catalog", () => {
  it("answers malformed JSON catalogs without a 5xx", async () => {
    const f = fuzzer(314159);
    const storeId = await createStore("Fuzz catalog JSON");
    const failures: string[] = [];
    for (let i = 0; i < 250; i++) {
      const r = f.random();
      let body: string;
      if (r < 0.6) {
        const items = Array.from({ length: 1 + f.int(5) }, (_, j) =>
          f.chance(0.85) ? f.mutate(product(`SKU-${i}-${j}`), ["PriceAmount", "image_link", "Image Link", "Color", "__proto__", "constructor"]) : f.value(),
        );
        body = toJson({ Products: items });
      } else if (r < 0.8) {
        body = f.body({ Products: [product(`P-${i}`)] });
      } else {
        body = toJson({ Products: f.value() });
      }
      await send(failures, adminSent("PUT", `/stores/${f.segment([storeId])}/products`, body, f.contentType()));
      if (f.chance(0.1))
        await send(
          failures,
          adminSent(
            f.pick(["GET", "DELETE"]),
            `/stores/${storeId}/products/${f.pick(["count", `SKU-${i}-0`, ...["%ED%A0%80", "%00", "__proto__", "a".repeat(3000)]])}`,
            undefined,
            undefined,
          ),
        );
    }
    expectNoFailures(failures);
  });

  it("answers malformed CSV uploads without a 5xx", async () => {
    const f = fuzzer(271828);
    const storeId = await createStore("Fuzz catalog CSV");
    const header = "Sku,Title,Description,Link,ImageLink,Price,Currency,Availability,Brand,Gtin";
    const row = (sku: string) => `${sku},Title,"Desc, with comma",https://x.example/${sku},https://x.example/${sku}.jpg,12.50,USD,in_stock,Acme,4006381333931`;
    const enc = new TextEncoder();
    const failures: string[] = [];
    for (let i = 0; i < 150; i++) {
      const lines = [
        f.chance(0.9) ? header : f.pick(["", "Title,Price", "sku", "\ufeffSku,Title", "Sku,Sku,__proto__,constructor", `"Sku`, "Sku\u0000,Title"]),
      ];
      for (let j = 0, n = f.int(6); j < n; j++) {
        const r = f.random();
        if (r < 0.4) lines.push(row(`C-${i}-${j}`));
        else if (r < 0.5) lines.push(`C-${i}-${j},"open quote,never closed`);
        else if (r < 0.6) lines.push(`C-${i}-${j},too,few`);
        else if (r < 0.7) lines.push(`${row(`C-${i}-${j}`)},extra,fields`);
        else if (r < 0.8)
          lines.push(
            `C-${i}-${j},${String(f.pick(HOSTILE_STRINGS)).replace(/[,\r\n"]/g, " ")},,,,` +
              `${f.pick(["1e309", "-0", "NaN", "12.5 USD", "12,5", "abc", ""])},${f.pick(["US", "usd", "\ud800", ""])},,,`,
          );
        else if (r < 0.9) lines.push(`"C-${i}-${j}","a ""quoted"" value","multi\nline",,,1,,,,`);
        else lines.push(f.pick(["", ",,,,,,,,,", "\u0000\u0001\u0002", `"${"z".repeat(2000)}"`]));
      }
      const text = lines.join(f.pick(["\r\n", "\n", "\r", "\r\n", "\n\r"]));
      const r = f.random();
      let body: BodyInit;
      if (r < 0.7) body = text;
      else if (r < 0.8) body = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(text)]);
      else if (r < 0.9) body = new Uint8Array(Array.from({ length: 1 + f.int(400) }, () => f.int(256)));
      else body = new Uint8Array([...enc.encode(`${header}\n`), 0x43, 0x2d, 0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x2c, 0x54, 0x0a]);
      await send(failures, csvSent(storeId, body, f.pick(["text/csv", "text/csv; charset=utf-8", "TEXT/CSV", "text/csv;header=present"])));
    }
    // Huge fields and an empty body, once each.
    await send(failures, csvSent(storeId, `${header}\nHUGE,"${"h".repeat(1_100_000)}"\nAFTER,t\n`));
    await send(failures, csvSent(storeId, `Sku,Title\nLONG,${"l".repeat(200_000)}\n`));
    await send(failures, csvSent(storeId, ""));
    await send(failures, {
      method: "PUT",
      path: `/admin/v1/stores/${storeId}/products`,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv" },
    });
    expectNoFailures(failures);
  });

  it("keeps nothing of a refused JSON catalog and every good row of a partly bad CSV", async () => {
    const storeId = await createStore("Fuzz catalog stored");
    for (const raw of ["{", "[]", '{"Products": {}}', '{"Products": null}']) {
      const res = await call("PUT", `/admin/v1/stores/${storeId}/products`, {
        raw,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      });
      expect(res.status, raw).toBe(400);
    }
    expect(await productCount(storeId)).toBe(0);
    const res = await putCsv(storeId, 'Sku,Title,Price\r\nGOOD-1,One,1\nBAD,Two\r\nGOOD-2,"Two, quoted",2\n,No sku,3\n');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ RowsReceived: 4, RowsUpserted: 2, RowsRejected: 2 });
    expect(await productCount(storeId)).toBe(2);
  });

  it("answers a streamed JSON catalog over its 16 MiB cap 413 pointing to CSV, not 400 'not valid JSON'", async () => {
    const storeId = await createStore("Fuzz catalog too large");
    const MiB = 1024 * 1024;
    const spaces = new Uint8Array(MiB).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"Products": ['));
        if (sent > 17) controller.close();
        else controller.enqueue(spaces);
        sent++;
      },
    });
    const res = await call("PUT", `/admin/v1/stores/${storeId}/products`, {
      raw: stream,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(res.json.Message).toBe("The request body is larger than 16 MiB. Send larger catalogs as CSV (Content-Type: text/csv), which is streamed.");
    expect(await productCount(storeId)).toBe(0);
  });

  it("refuses a JSON catalog whose declared Content-Length is over 16 MiB before parsing it", async () => {
    const storeId = await createStore("Fuzz catalog declared too large");
    const body = `{"Products": [${" ".repeat(16 * 1024 * 1024)}]}`;
    const res = await call("PUT", `/admin/v1/stores/${storeId}/products`, {
      raw: body,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", "content-length": String(body.length) },
    });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ Success: false });
    expect(res.json.Message).toMatch(/^The request body is larger than 16 MiB\. Send larger catalogs as CSV/);
  });

  it("keeps a column named __proto__ or constructor as an attribute rather than dropping it", async () => {
    const storeId = await createStore("Fuzz proto columns");
    const res = await putCsv(storeId, "Sku,__proto__,constructor\nP-1,first,second\n");
    expect(res.status).toBe(200);
    const row = await (await storeD1(storeId)).prepare("select attributes from products where store_id = ?").bind(storeId).first<{ attributes: string }>();
    expect(JSON.parse(row!.attributes)).toEqual(JSON.parse('{"__proto__":"first","constructor":"second"}'));
  });
});

describe("unpaired surrogates in the catalog and feed definitions", () => {
  it("rejects a product row holding a lone surrogate (keeping the others) and refuses a feed Name or Column with one", async () => {
    const storeId = await createStore("Fuzz surrogate catalog");
    const res = await admin("PUT", `/stores/${storeId}/products`, {
      Products: [
        product("OK-1"),
        product("BAD\ud800"),
        product("OK-2", { Title: "T\udc00" }),
        product("OK-3", { Colour: "red\ud800" }),
        product("OK-4", { Title: "Mug 😀" }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ RowsReceived: 5, RowsUpserted: 2, RowsRejected: 3 });
    expect((res.json.Rejections as { Row: number; Message: string }[]).map((r) => [r.Row, r.Message])).toEqual([
      [2, "'Sku' is not valid Unicode text (it holds an unpaired surrogate)"],
      [3, "'Title' is not valid Unicode text (it holds an unpaired surrogate)"],
      [4, "'Colour' is not valid Unicode text (it holds an unpaired surrogate)"],
    ]);
    expect(await productCount(storeId)).toBe(2);
    const title = await (await storeD1(storeId))
      .prepare("select title from products where store_id = ? and sku = 'OK-4'")
      .bind(storeId)
      .first<{ title: string }>();
    expect(title?.title).toBe("Mug 😀");
    for (const body of [
      { Name: "Feed \ud800", Format: "csv" },
      { Name: "Feed", Format: "csv", Columns: [{ Header: "id\udc00", Field: "Sku" }] },
    ]) {
      const created = await admin("POST", `/stores/${storeId}/feeds`, body);
      expect(created.status, JSON.stringify(body)).toBe(400);
      expect(created.json.Message).toMatch(/is not valid Unicode text/);
    }
    expect(await feedCount(storeId)).toBe(0);
  });
});

describe("fuzz: feed definitions and compile", () => {
  it("answers odd Columns, Template, Format and intervals on create, patch and compile without a 5xx", async () => {
    const f = fuzzer(1618);
    const storeId = await createStore("Fuzz feeds admin");
    await putProducts(storeId, [product("A-1"), product("A-2", { Price: -1 }), product("A-3", { Color: "red" })]);
    const feedIds = [(await createFeed(storeId, { Name: "Base" })).FeedId];
    const base = {
      Name: "Feed",
      Format: "csv",
      Template: "google-shopping",
      Columns: [
        { Header: "id", Field: "Sku" },
        { Header: "colour", Field: "Color" },
      ],
      CompileIntervalMinutes: 60,
    };
    const columnValue = () =>
      f.pick<unknown>([
        [{ Header: f.pick(HOSTILE_STRINGS), Field: f.pick(["Sku", "price", "image link", ...HOSTILE_STRINGS]) }],
        [{ Header: "a" }],
        [{ Field: "Sku" }],
        [],
        [null],
        "Sku",
        { Header: "a", Field: "Sku" },
        Array.from({ length: 101 }, (_, i) => ({ Header: `h${i}`, Field: "Sku" })),
        [
          { Header: "x", Field: "constructor" },
          { Header: "y", Field: "__proto__" },
          { Header: "z", Field: "toString" },
        ],
      ]);
    const failures: string[] = [];
    let compiles = 0;
    for (let i = 0; i < 300; i++) {
      const r = f.random();
      const ct = f.contentType();
      const withOdd = () => {
        const body = f.mutate(base);
        if (f.chance(0.4)) body.Columns = columnValue();
        if (f.chance(0.3)) body.Template = f.pick(["none", "NONE", "Google-Shopping", "constructor", "__proto__", "toString", "", " none "]);
        if (f.chance(0.3)) body.Format = f.pick(["CSV", "tsv", " tsv", "constructor", "valueOf", "xlsx", ""]);
        if (f.chance(0.2)) body.CompileIntervalMinutes = f.pick([null, 14, 15, 10_081, 1.5, "60", -0]);
        return f.chance(0.9) ? toJson(body) : f.body(base);
      };
      if (r < 0.35) {
        const res = await send(failures, adminSent("POST", `/stores/${f.segment([storeId])}/feeds`, withOdd(), ct));
        if (res.status === 200) feedIds.push((res.json.Feed as { FeedId: string }).FeedId);
      } else if (r < 0.65) {
        await send(failures, adminSent("PATCH", `/feeds/${f.segment(feedIds)}`, withOdd(), ct));
      } else if (r < 0.75 && compiles < 25) {
        compiles++;
        await send(failures, adminSent(f.pick(["POST", "GET"]), `/feeds/${f.segment(feedIds)}/compile`, undefined, undefined));
      } else if (r < 0.9) {
        await send(
          failures,
          adminSent(
            f.pick(["GET", "HEAD", "PUT"]),
            f.chance(0.5) ? `/feeds/${f.segment(feedIds)}` : `/stores/${f.segment([storeId])}/feeds`,
            undefined,
            undefined,
          ),
        );
      } else {
        await send(failures, adminSent("DELETE", `/feeds/${f.segment(["fd_nope"])}`, undefined, undefined));
      }
    }
    expectNoFailures(failures);
  });

  it("refuses a Template or Format named after an Object method with 400 and stores no feed", async () => {
    const storeId = await createStore("Fuzz template proto");
    for (const body of [
      { Name: "T", Format: "csv", Template: "__proto__" },
      { Name: "T", Format: "csv", Template: "constructor" },
      { Name: "T", Format: "constructor" },
      { Name: "T", Format: "__proto__" },
      { Name: "T", Format: "csv", Template: "hasOwnProperty" },
    ]) {
      const res = await admin("POST", `/stores/${storeId}/feeds`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.Success).toBe(false);
      expect(res.json.Message).toMatch(/'(Template|Format)': '.*' is not allowed; use one of/);
    }
    expect(await feedCount(storeId)).toBe(0);
    const feed = await createFeed(storeId, { Name: "T" });
    const patched = await admin("PATCH", `/feeds/${feed.FeedId}`, { Template: "constructor" });
    expect(patched.status).toBe(400);
    expect((await admin("GET", `/feeds/${feed.FeedId}`)).json.Feed).toMatchObject({ Template: "google-shopping" });
  });

  it("compiles a TSV feed whose Columns name constructor, __proto__ and toString as empty attribute columns", async () => {
    const storeId = await createStore("Fuzz column proto");
    await putProducts(storeId, [product("A-1"), product("A-2", { constructor: "kept" })]);
    const feed = await createFeed(storeId, {
      Name: "Proto columns",
      Format: "tsv",
      Columns: [
        { Header: "id", Field: "Sku" },
        { Header: "c", Field: "constructor" },
        { Header: "p", Field: "__proto__" },
        { Header: "t", Field: "toString" },
      ],
    });
    const compiled = await compile(feed.FeedId);
    expect(compiled.Status).toBe("Completed");
    const object = await env.FEEDS.list({ prefix: "" });
    const key = object.objects.map((o) => o.key).find((k) => k.includes(feed.FeedId));
    const text = await (await env.FEEDS.get(key!))!.text();
    expect(text).toBe("id\tc\tp\tt\nA-1\t\t\t\nA-2\tkept\t\t\n");
  });

  it("refuses a store's feed, source or key for a store that does not exist with 404, not a FOREIGN KEY 500", async () => {
    for (const [path, body] of [
      ["/stores/st_missing/feeds", { Name: "F", Format: "csv" }],
      ["/stores/st_missing/sources", { Type: "simulated", Name: "S" }],
      ["/stores/st_missing/consumer-keys", { Name: "K", Scopes: ["OrdersRead"], Lifespan: "7Days" }],
    ] as const) {
      const res = await admin("POST", path, body);
      expect(res.status, path).toBe(404);
    }
    const res = await call("PUT", "/admin/v1/stores/st_missing/products", {
      raw: "Sku\nA\n",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "text/csv" },
    });
    expect(res.status).toBe(404);
  });
});

describe("/v1 feeds queries", () => {
  it("refuses sortBy constructor, sortDirection __proto__ and a page given twice with 400 naming the parameter", async () => {
    const { token } = await storeWithToken();
    for (const [query, message] of [
      ["page=1&pageSize=5&sortBy=constructor", /'sortBy': 'constructor' is not allowed; use one of Name, DateLastCompiled/],
      ["page=1&pageSize=5&sortDirection=__proto__", /'sortDirection': '__proto__' is not allowed/],
      ["page=1&page=1&pageSize=5", /'page': must be given once/],
    ] as const) {
      const res = await call("GET", `/v1/${token}/feeds?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.Message).toMatch(message);
    }
  });
});

describe("fuzz: /v1 feeds", () => {
  it("answers odd filterQuery, sortBy, page values and download headers without a 5xx", async () => {
    const f = fuzzer(4242);
    const { storeId, token } = await storeWithToken();
    await putProducts(storeId, [product("D-1"), product("D-2")]);
    const feed = await createFeed(storeId, { Name: "Downloadable" });
    await compile(feed.FeedId);
    const never = await createFeed(storeId, { Name: "Never compiled" });
    const etag = (await call("GET", `/v1/${token}/feeds/${feed.FeedId}/download`)).headers.get("etag")!;
    statusSeen.clear();
    const odd = [
      "",
      "0",
      "-1",
      "1",
      "2",
      "100",
      "101",
      "1e309",
      "1.5",
      "NaN",
      "-0",
      "99999999999",
      "%00",
      "%ED%A0%80",
      "constructor",
      "__proto__",
      "a".repeat(300),
      "%E2%80%AE",
      "1&page=2",
      "Name",
      "name",
      "DateLastCompiled",
      "asc",
      "DESC",
    ];
    const failures: string[] = [];
    for (let i = 0; i < 300; i++) {
      const r = f.random();
      const q = () =>
        ["filterQuery", "page", "pageSize", "sortBy", "sortDirection", "FILTERQUERY", "PageSize"]
          .filter(() => f.chance(0.5))
          .map((n) => `${n}=${f.pick(odd)}`)
          .join("&");
      const ip = { "cf-connecting-ip": `203.0.113.${i % 250}` };
      if (r < 0.25) await send(failures, { method: "GET", path: `/v1/${token}/feeds/count?${q()}`, headers: ip });
      else if (r < 0.35)
        await send(failures, {
          method: "GET",
          path: `/api/v1/feeds/count?${q()}`,
          headers: { ...ip, authorization: f.pick([`Bearer ${token}`, "Bearer", `bearer ${token}x`, ""]) },
        });
      else if (r < 0.6) await send(failures, { method: "GET", path: `/v1/${token}/feeds?${q()}`, headers: ip });
      else if (r < 0.7)
        await send(failures, { method: f.pick(["GET", "HEAD"]), path: `/v1/${token}/feeds/${f.segment([feed.FeedId, never.FeedId])}`, headers: ip });
      else {
        const headers: Record<string, string> = { ...ip };
        if (f.chance(0.6))
          headers.range = f.pick([
            "bytes=0-0",
            "bytes=0-",
            "bytes=-1",
            "bytes=-0",
            "bytes=5-2",
            "bytes=99999999-",
            "bytes=0-99999999",
            "bytes=1-2,4-5",
            "bytes=-",
            "bytes=abc",
            "items=0-1",
            "bytes=18446744073709551616-",
            "bytes = 0 - 1",
            "bytes=-99999999999999999999",
            "bytes=\t0-1",
          ]);
        if (f.chance(0.4)) headers["if-none-match"] = f.pick([etag, `W/${etag}`, "*", '"nope"', "", ",,,", `"a", ${etag}`, "W/"]);
        if (f.chance(0.2)) headers["if-range"] = f.pick([etag, '"nope"', "Wed, 21 Oct 2015 07:28:00 GMT", ""]);
        if (f.chance(0.2)) headers.accept = f.pick(["text/csv", "application/json", "*/*", "text/html", "text/csv;q=0"]);
        await send(
          failures,
          {
            method: f.pick(["GET", "GET", "HEAD", "POST"]),
            path: `/v1/${token}/feeds/${f.chance(0.7) ? feed.FeedId : f.segment([feed.FeedId, never.FeedId])}/download`,
            headers,
          },
          { file: true },
        );
      }
    }
    expectNoFailures(failures);
    // The seed reaches the download's partial, conditional and unsatisfiable answers too.
    for (const status of [200, 206, 304, 416]) expect(statusSeen.has(status), String(status)).toBe(true);
  });
});
