// Formulas in feed cells (issue 20): a product title such as `=HYPERLINK(...)` is a formula to a
// spreadsheet that opens the file. Feeds are data for channels, so cells go out as given unless
// the feed asks, with EscapeFormulas, for every cell starting with = + - @ (or a tab or CR) to be
// prefixed with a quote, which spreadsheets show but do not run.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { compile, createFeed, product, putProducts } from "./feeds-helpers";

const hostile = ['=HYPERLINK("https://evil.example","Click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "plain title"];

async function downloaded(token: string, feedId: string) {
  const file = await call("GET", `/v1/${token}/feeds/${feedId}/download`);
  expect(file.status).toBe(200);
  return parse(file.text, { columns: true }) as Record<string, string>[];
}

describe("formulas in feed cells", () => {
  it("go out as given by default, and quoted when the feed sets EscapeFormulas", async () => {
    const { storeId, token } = await storeWithToken();
    await putProducts(
      storeId,
      hostile.map((title, i) => product(`F${i}`, { Title: title })),
    );
    const columns = [
      { Header: "id", Field: "Sku" },
      { Header: "title", Field: "Title" },
    ];
    const plain = await createFeed(storeId, { Name: "Plain", Columns: columns });
    expect(plain).toMatchObject({ EscapeFormulas: false });
    await compile(plain.FeedId);
    expect((await downloaded(token, plain.FeedId)).map((r) => r.title)).toEqual(hostile);

    const escaped = await createFeed(storeId, { Name: "For spreadsheets", Columns: columns, EscapeFormulas: true });
    expect(escaped).toMatchObject({ EscapeFormulas: true });
    await compile(escaped.FeedId);
    expect((await downloaded(token, escaped.FeedId)).map((r) => r.title)).toEqual([
      `'=HYPERLINK("https://evil.example","Click")`,
      "'+1+cmd|' /C calc'!A0",
      "'-2+3",
      "'@SUM(A1:A2)",
      "plain title",
    ]);

    // Switched off again by a PATCH; a wrong type is a 400 naming the field.
    const off = await admin("PATCH", `/feeds/${escaped.FeedId}`, { EscapeFormulas: false });
    expect(off.json.Feed).toMatchObject({ EscapeFormulas: false });
    const bad = await admin("PATCH", `/feeds/${escaped.FeedId}`, { EscapeFormulas: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.json.Message).toMatch(/^'EscapeFormulas'/);
  });
});
