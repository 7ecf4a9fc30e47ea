// The channel templates as an operator and a channel meet them: a feed names its Template on
// create or PATCH, compiles through the admin API, and the file downloaded with a token has the
// channel's header row and its value formats, read with csv-parse (a parser independent of the
// service's own), with the products each channel would refuse counted as errors. The expected
// headers, words and limits are written out here from the channels' published field lists
// (see docs/feeds.md), never imported from the templates.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { emptyTally, FeedRows } from "../../src/feeds/feed-rows";
import { admin, call, storeWithToken } from "../helpers/api";
import { compile, createFeed, product, productRow, putProducts, type AdminFeed } from "./feeds-helpers";

function parseCsv(text: string): string[][] {
  return parse(text, { relax_column_count: false, relax_quotes: false, skip_empty_lines: false, bom: false }) as string[][];
}

function parseTsv(text: string): string[][] {
  return parse(text, { delimiter: "\t", quote: false, record_delimiter: "\n", relax_column_count: false }) as string[][];
}

async function compiled(products: unknown[], feed: Record<string, unknown>) {
  const ctx = await storeWithToken();
  await putProducts(ctx.storeId, products);
  const created = await createFeed(ctx.storeId, feed);
  const result = await compile(created.FeedId);
  const file = await call("GET", `/v1/${ctx.token}/feeds/${result.FeedId}/download`);
  expect(file.status).toBe(200);
  return { ...ctx, feed: result, text: file.text };
}

const issuesBySku = (feed: AdminFeed) => Object.fromEntries(feed.Issues.map((i) => [i.Sku, { errors: i.Errors, warnings: i.Warnings }]));

/** Meta's data feed columns, in the order of its required fields, then gtin and quantity. */
const META_HEADER = ["id", "title", "description", "availability", "condition", "price", "link", "image_link", "brand", "gtin", "quantity_to_sell_on_facebook"];

describe("Template meta-catalog (Facebook and Instagram)", () => {
  const catalog = [
    product("M01", { Quantity: 7 }),
    product("M02", { Availability: "out of stock", Condition: "refurbished", Quantity: 0 }),
    product("M03", { Availability: "backorder", Quantity: 12 }),
    product("M04", { Description: "<p>Soft</p> cotton", Quantity: 3 }), // HTML: kept, warned
    product("M05"), // no quantity: kept, warned (no checkout)
    product("M06", { Brand: null, Quantity: 1 }), // a gtin identifies it: kept
    product("M07", { Brand: null, Gtin: null, Quantity: 1 }), // neither: refused
    product("M08", { Title: "T".repeat(201), Quantity: 1 }),
    product("M09", { Condition: "broken", Quantity: 1 }),
    product("M10", { Availability: "sold_out", Quantity: 1 }),
    product("M11", { Price: 0, Quantity: 1 }),
    product("M12", { Link: "shop.example/p/12", Quantity: 1 }),
  ];

  it("writes Meta's columns and words (in stock, condition, price with currency, quantity) and counts what Meta refuses", async () => {
    const { feed, text } = await compiled(catalog, { Name: "Meta", Template: "meta-catalog" });
    expect(feed).toMatchObject({
      Status: "Completed",
      CompilationTotalCount: 12,
      CompilationValidCount: 6,
      CompilationWarningCount: 2,
      CompilationErrorCount: 6,
      Score: 50,
    });
    expect(issuesBySku(feed)).toEqual({
      M04: { errors: [], warnings: ["description should be plain text, without HTML"] },
      M05: { errors: [], warnings: ["quantity_to_sell_on_facebook is needed to sell with checkout"] },
      M07: { errors: ["brand is required (or a gtin)"], warnings: [] },
      M08: { errors: ["title is longer than 200 characters"], warnings: [] },
      M09: { errors: ["condition must be one of new, refurbished, used"], warnings: [] },
      M10: { errors: ["availability must be one of in stock, out of stock, preorder, available for order, discontinued"], warnings: [] },
      M11: { errors: ["price must be a positive number"], warnings: [] },
      M12: { errors: ["link must be an absolute http(s) URL"], warnings: [] },
    });

    const rows = parseCsv(text);
    expect(rows[0]).toEqual(META_HEADER);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["M01", "M02", "M03", "M04", "M05", "M06"]);
    expect(rows[1]).toEqual([
      "M01",
      "Product M01",
      "The description of M01",
      "in stock",
      "new",
      "12.50 USD",
      "https://shop.example/p/M01",
      "https://cdn.example/i/M01.jpg",
      "Acme",
      "4006381333931",
      "7",
    ]);
    const byId = Object.fromEntries(rows.slice(1).map((r) => [r[0], Object.fromEntries(META_HEADER.map((h, i) => [h, r[i]]))]));
    expect(byId.M02).toMatchObject({ availability: "out of stock", condition: "refurbished", quantity_to_sell_on_facebook: "0" });
    expect(byId.M03).toMatchObject({ availability: "available for order", quantity_to_sell_on_facebook: "12" });
    expect(byId.M05!.quantity_to_sell_on_facebook).toBe("");
    expect(byId.M06).toMatchObject({ brand: "", gtin: "4006381333931" });
  });
});

describe("Meta's quantity column, called directly", () => {
  // The catalog refuses a Quantity that is not a whole number once it holds one; a catalog
  // imported before that kept whatever its Quantity column said, which Meta would refuse.
  it("refuses a quantity that is not a whole number of 0 or more and writes one that is", () => {
    const columns = META_HEADER.map((header, i) => ({
      header,
      field: ["Sku", "Title", "Description", "Availability", "Condition", "Price", "Link", "ImageLink", "Brand", "Gtin", "Quantity"][i]!,
    }));
    const rows = new FeedRows("csv", columns, "meta-catalog");
    const tally = emptyTally();
    expect(rows.row(productRow("Q1", { attributes: { Quantity: "2.5" } }), tally)).toBeNull();
    expect(rows.row(productRow("Q2", { attributes: { Quantity: "-1" } }), tally)).toBeNull();
    expect(rows.row(productRow("Q3", { attributes: { quantity: "40", CONDITION: "Used" } }), tally)).toBe(
      "Q3,Product Q3,The description of Q3,in stock,used,12.50 USD,https://shop.example/p/Q3,https://cdn.example/i/Q3.jpg,Acme,4006381333931,40\r\n",
    );
    expect(tally.counts).toEqual({ total: 3, valid: 1, warning: 0, error: 2 });
    expect(tally.issues.map((i) => i.errors)).toEqual([
      ["quantity_to_sell_on_facebook must be a whole number of 0 or more"],
      ["quantity_to_sell_on_facebook must be a whole number of 0 or more"],
    ]);
  });
});

/** Microsoft's feed file columns: its six required fields in its order, then brand and gtin. */
const MICROSOFT_HEADER = ["id", "title", "link", "price", "description", "image_link", "brand", "gtin"];

describe("Template microsoft-merchant-center", () => {
  it("writes a tab-delimited file with the price as a bare two-decimal amount and counts what Microsoft refuses", async () => {
    const catalog = [
      product("S01", { Price: 1234.5 }),
      product("S02", { Price: 0 }), // Microsoft's range starts at 0.00: kept, warned
      product("S03", { Brand: null }),
      product("S04", { Description: "Cotton <b>tee</b>" }), // "No HTML code": refused
      product("S05", { Title: "T".repeat(151) }),
      product("S06", { Price: 10_000_000.01 }),
      product(`S07${"x".repeat(48)}`), // 51 characters: over Microsoft's 50
      product("S08", { ImageLink: null }),
      product("S09", { Availability: "sold_out" }), // availability is not Microsoft's to check here
    ];
    const { feed, text } = await compiled(catalog, { Name: "Bing", Format: "tsv", Template: "microsoft-merchant-center" });
    expect(feed).toMatchObject({ CompilationTotalCount: 9, CompilationValidCount: 4, CompilationWarningCount: 2, CompilationErrorCount: 5, Score: 44 });
    expect(issuesBySku(feed)).toEqual({
      S02: { errors: [], warnings: ["price is 0.00, which Microsoft takes only for phones and tablets on contract"] },
      S03: { errors: [], warnings: ["brand is recommended"] },
      S04: { errors: ["description must not hold HTML"], warnings: [] },
      S05: { errors: ["title is longer than 150 characters"], warnings: [] },
      S06: { errors: ["price must be from 0.00 to 10000000.00"], warnings: [] },
      [`S07${"x".repeat(48)}`]: { errors: ["id is longer than 50 characters"], warnings: [] },
      S08: { errors: ["image_link is required"], warnings: [] },
    });

    const rows = parseTsv(text);
    expect(rows[0]).toEqual(MICROSOFT_HEADER);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["S01", "S02", "S03", "S09"]);
    expect(rows[1]).toEqual([
      "S01",
      "Product S01",
      "https://shop.example/p/S01",
      "1234.50",
      "The description of S01",
      "https://cdn.example/i/S01.jpg",
      "Acme",
      "4006381333931",
    ]);
    expect(rows[2]![3]).toBe("0.00");
  });
});

/** TikTok's 9 required fields in the order of its table, then gtin. */
const TIKTOK_HEADER = ["sku_id", "title", "description", "availability", "condition", "price", "link", "image_link", "brand", "gtin"];

describe("Template tiktok-catalog", () => {
  it("writes TikTok's columns and words and counts a missing required field as an error", async () => {
    const catalog = [
      product("K01"),
      product("K02", { condition: "Used", Availability: "preorder" }),
      product("K03", { Title: "Summer tee 🌞" }), // emoji: kept, warned
      product("K04", { Brand: "" }), // brand is one of TikTok's 9 required fields
      product("K05", { Description: null }),
      product("K06", { Availability: null }),
      product("K07", { Condition: "mint" }),
      product("K08", { ImageLink: "/i/8.jpg" }),
    ];
    const { feed, text } = await compiled(catalog, { Name: "TikTok", Template: "TikTok-Catalog" });
    expect(feed).toMatchObject({ CompilationTotalCount: 8, CompilationValidCount: 3, CompilationWarningCount: 1, CompilationErrorCount: 5, Score: 37 });
    expect(issuesBySku(feed)).toEqual({
      K03: { errors: [], warnings: ["title should not hold emoji"] },
      K04: { errors: ["brand is required"], warnings: [] },
      K05: { errors: ["description is required"], warnings: [] },
      K06: { errors: ["availability is required"], warnings: [] },
      K07: { errors: ["condition must be one of new, refurbished, used"], warnings: [] },
      K08: { errors: ["image_link must be an absolute http(s) URL"], warnings: [] },
    });

    const rows = parseCsv(text);
    expect(rows[0]).toEqual(TIKTOK_HEADER);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["K01", "K02", "K03"]);
    expect(rows[1]).toEqual([
      "K01",
      "Product K01",
      "The description of K01",
      "in stock",
      "new",
      "12.50 USD",
      "https://shop.example/p/K01",
      "https://cdn.example/i/K01.jpg",
      "Acme",
      "4006381333931",
    ]);
    expect(rows[2]!.slice(3, 5)).toEqual(["preorder", "used"]);
  });
});

describe("choosing a Template", () => {
  it("defaults to google-shopping, takes any case, answers the name, and a PATCH changes the next compile's columns and rules", async () => {
    const ctx = await storeWithToken();
    await putProducts(ctx.storeId, [product("A1", { Quantity: 4 }), product("A2", { Brand: null, Gtin: null })]);
    const plain = await createFeed(ctx.storeId, { Name: "Default" });
    const got = await admin("GET", `/feeds/${plain.FeedId}`);
    expect(got.json.Feed).toMatchObject({ Template: "google-shopping" });
    const google = await compile(plain.FeedId);
    expect(google).toMatchObject({ CompilationValidCount: 2, CompilationErrorCount: 0 });

    const patched = await admin("PATCH", `/feeds/${plain.FeedId}`, { Template: "META-catalog" });
    expect(patched.status).toBe(200);
    expect(patched.json.Feed).toMatchObject({ Template: "meta-catalog" });
    const meta = await compile(plain.FeedId);
    // Meta refuses a product with neither brand nor gtin, which Google only warned about.
    expect(meta).toMatchObject({ CompilationValidCount: 1, CompilationErrorCount: 1 });
    const file = await call("GET", `/v1/${ctx.token}/feeds/${plain.FeedId}/download`);
    expect(parseCsv(file.text)).toEqual([
      META_HEADER,
      [
        "A1",
        "Product A1",
        "The description of A1",
        "in stock",
        "new",
        "12.50 USD",
        "https://shop.example/p/A1",
        "https://cdn.example/i/A1.jpg",
        "Acme",
        "4006381333931",
        "4",
      ],
    ]);
  });

  it("refuses an unknown Template on create and on PATCH with 400 naming the field and every allowed value", async () => {
    const { storeId } = await storeWithToken();
    const allowed = /google-shopping, meta-catalog, microsoft-merchant-center, tiktok-catalog, none/;
    const created = await admin("POST", `/stores/${storeId}/feeds`, { Name: "x", Format: "csv", Template: "pinterest" });
    expect(created.status).toBe(400);
    expect(created.json).toMatchObject({ Success: false });
    expect(created.json.Message).toMatch(/Template/);
    expect(created.json.Message).toMatch(allowed);
    const feeds = await admin("GET", `/stores/${storeId}/feeds`);
    expect(feeds.json.Feeds).toEqual([]);

    const feed = await createFeed(storeId, { Name: "y", Template: "tiktok-catalog" });
    const patched = await admin("PATCH", `/feeds/${feed.FeedId}`, { Template: "facebook" });
    expect(patched.status).toBe(400);
    expect(patched.json.Message).toMatch(/Template/);
    expect(patched.json.Message).toMatch(allowed);
    const still = await admin("GET", `/feeds/${feed.FeedId}`);
    expect(still.json.Feed).toMatchObject({ Template: "tiktok-catalog" });
  });
});

describe("a gtin's check digit (Google, and Microsoft which follows it)", () => {
  it("warns when the last digit is not the GS1 check digit of the others; the row is still written", async () => {
    // Valid GTIN-8, -12, -13 and -14 (check digits worked by hand: 3 x odd positions from the
    // right + even positions, rounded up to the next ten), then each with its last digit changed.
    const valid = ["96385074", "036000291452", "4006381333931", "10614141000415"];
    const wrong = ["96385075", "036000291453", "4006381333932", "10614141000416"];
    const catalog = [
      ...valid.map((g, i) => product(`V${i}`, { Gtin: g })),
      ...wrong.map((g, i) => product(`W${i}`, { Gtin: g })),
      product("L0", { Gtin: "4006381" }),
    ];
    const checkDigit = "gtin's check digit is wrong (its last digit does not match the others, so Google refuses it as an identifier)";
    for (const [template, format] of [
      ["google-shopping", "csv"],
      ["microsoft-merchant-center", "tsv"],
    ] as const) {
      const { feed, text } = await compiled(catalog, { Name: template, Format: format, Template: template });
      expect(feed, template).toMatchObject({ CompilationTotalCount: 9, CompilationValidCount: 9, CompilationWarningCount: 5, CompilationErrorCount: 0 });
      expect(issuesBySku(feed), template).toEqual({
        W0: { errors: [], warnings: [checkDigit] },
        W1: { errors: [], warnings: [checkDigit] },
        W2: { errors: [], warnings: [checkDigit] },
        W3: { errors: [], warnings: [checkDigit] },
        L0: { errors: [], warnings: ["gtin should be 8, 12, 13 or 14 digits"] },
      });
      const rows = format === "csv" ? parseCsv(text) : parseTsv(text);
      // Sku order: L0, V0-V3, W0-W3; every row written with its gtin as given.
      expect(
        rows.slice(1).map((r) => [r[0], r[r.length - 1]]),
        template,
      ).toEqual([["L0", "4006381"], ...valid.map((g, i) => [`V${i}`, g]), ...wrong.map((g, i) => [`W${i}`, g])]);
    }
  });
});
