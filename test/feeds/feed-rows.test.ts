// The per-product row work of a compile, called directly: what a product's row is, what it
// counts, which issues are kept.
import { describe, expect, it } from "vitest";
import { emptyTally, FeedRows } from "../../src/feeds/feed-rows";
import { productRow } from "./feeds-helpers";

const GOOGLE_COLUMNS = [
  { header: "id", field: "Sku" },
  { header: "title", field: "Title" },
  { header: "description", field: "Description" },
  { header: "link", field: "Link" },
  { header: "image_link", field: "ImageLink" },
  { header: "price", field: "Price" },
  { header: "availability", field: "Availability" },
  { header: "brand", field: "Brand" },
  { header: "gtin", field: "Gtin" },
];

describe("FeedRows", () => {
  it("writes a valid product's row in the template's columns and counts it valid", () => {
    const rows = new FeedRows("csv", GOOGLE_COLUMNS, "google-shopping");
    expect(rows.header()).toBe("id,title,description,link,image_link,price,availability,brand,gtin\r\n");
    const tally = emptyTally();
    const row = rows.row(productRow("SKU-1", { title: 'Mug, "large"', price: 7, currency: "EUR", availability: "In Stock" }), tally);
    expect(row).toBe(
      'SKU-1,"Mug, ""large""",The description of SKU-1,https://shop.example/p/SKU-1,https://cdn.example/i/SKU-1.jpg,7.00 EUR,in_stock,Acme,4006381333931\r\n',
    );
    expect(tally).toEqual({ counts: { total: 1, valid: 1, warning: 0, error: 0 }, issues: [] });
  });

  it("leaves a product with errors out, counts it and keeps its issue", () => {
    const rows = new FeedRows("csv", GOOGLE_COLUMNS, "google-shopping");
    const tally = emptyTally();
    expect(rows.row(productRow("SKU-2", { price: 0, link: "/relative" }), tally)).toBeNull();
    expect(tally).toEqual({
      counts: { total: 1, valid: 0, warning: 0, error: 1 },
      issues: [{ sku: "SKU-2", errors: ["link must be an absolute http(s) URL", "price must be a positive number"], warnings: [] }],
    });
  });

  it("writes a product with warnings, counting it valid and warned", () => {
    const rows = new FeedRows("csv", GOOGLE_COLUMNS, "google-shopping");
    const tally = emptyTally();
    const row = rows.row(productRow("SKU-3", { brand: null, gtin: "123" }), tally);
    expect(row).toBe("SKU-3,Product SKU-3,The description of SKU-3,https://shop.example/p/SKU-3,https://cdn.example/i/SKU-3.jpg,12.50 USD,in_stock,,123\r\n");
    expect(tally).toEqual({
      counts: { total: 1, valid: 1, warning: 1, error: 0 },
      issues: [{ sku: "SKU-3", errors: [], warnings: ["brand is recommended", "gtin should be 8, 12, 13 or 14 digits"] }],
    });
  });

  it("keeps the first 20 issues and counts every product", () => {
    const rows = new FeedRows("csv", GOOGLE_COLUMNS, "google-shopping");
    const tally = emptyTally();
    for (let i = 0; i < 30; i++) {
      const sku = `SKU-${String(i).padStart(2, "0")}`;
      rows.row(productRow(sku, i % 2 === 0 ? { title: null } : { brand: null }), tally);
    }
    rows.row(productRow("SKU-99"), tally);
    expect(tally.counts).toEqual({ total: 31, valid: 16, warning: 15, error: 15 });
    expect(tally.issues).toHaveLength(20);
    expect(tally.issues[0]).toEqual({ sku: "SKU-00", errors: ["title is required"], warnings: [] });
    expect(tally.issues[19]).toEqual({ sku: "SKU-19", errors: [], warnings: ["brand is recommended"] });
  });

  it("writes a feed's own columns, attributes included, as TSV; no value leaks into the next row", () => {
    const columns = [
      { header: "id", field: "Sku" },
      { header: "colour", field: "color" },
      { header: "amount", field: "PriceAmount" },
    ];
    const rows = new FeedRows("tsv", columns, "none");
    expect(rows.header()).toBe("id\tcolour\tamount\n");
    const tally = emptyTally();
    expect(rows.row(productRow("A", { attributes: { color: "red\tand\r\nblue" }, price: 3.456 }), tally)).toBe("A\tred and blue\t3.46\n");
    expect(rows.row(productRow("B", { price: null }), tally)).toBe("B\t\t\n");
    // The "none" template refuses nothing.
    expect(rows.row(productRow("C", { title: null, price: 0 }), tally)).toBe("C\t\t0.00\n");
    expect(tally).toEqual({ counts: { total: 3, valid: 3, warning: 0, error: 0 }, issues: [] });
  });

  it("refuses a template it does not know", () => {
    expect(() => new FeedRows("csv", GOOGLE_COLUMNS, "bing")).toThrow("unknown feed template 'bing'");
  });
});
