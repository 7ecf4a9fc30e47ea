// src/feeds/csv.ts: the writer every compiled file goes through and the reader of CSV uploads.
// The writer is checked against csv-parse, an independent RFC 4180 reader, so the two halves of
// this module cannot agree on a mistake.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { CsvFieldTooLong, CsvRecordReader, formatRow } from "../../src/feeds/csv";
import { PartBuffer } from "../../src/feeds/part-buffer";

function readAll(text: string, chunkSize = text.length || 1): string[][] {
  const reader = new CsvRecordReader();
  const out: string[][] = [];
  for (let i = 0; i < text.length; i += chunkSize) reader.push(text.slice(i, i + chunkSize), (r) => out.push(r));
  reader.end((r) => out.push(r));
  return out;
}

const awkward = ["plain", "a,b", 'say "hi"', "line1\nline2", "cr\r\nlf", "tab\there", "Crème brûlée – 日本語 🎉", "", " spaced "];

describe("CSV writer", () => {
  it("quotes commas, quotes and line breaks as RFC 4180 says, and leaves the rest alone", () => {
    expect(formatRow("csv", awkward)).toBe('plain,"a,b","say ""hi""","line1\nline2","cr\r\nlf",tab\there,Crème brûlée – 日本語 🎉,, spaced \r\n');
  });

  it("writes what an independent RFC 4180 reader (csv-parse, strict) reads back as the same values", () => {
    const text = formatRow("csv", ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"]) + formatRow("csv", awkward);
    expect(parse(text, { relax_column_count: false, relax_quotes: false, record_delimiter: "\r\n" })).toEqual([
      ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"],
      awkward,
    ]);
  });

  it("reads back, through the import's reader, exactly the values it wrote", () => {
    const text = formatRow("csv", ["h1", "h2"]) + formatRow("csv", awkward.slice(0, 5)) + formatRow("csv", awkward.slice(4));
    expect(readAll(text)).toEqual([["h1", "h2"], awkward.slice(0, 5), awkward.slice(4)]);
  });
});

describe("TSV writer", () => {
  it("replaces tabs and line breaks inside values so every row keeps its column count", () => {
    const line = formatRow("tsv", awkward);
    expect(line).toBe('plain\ta,b\tsay "hi"\tline1 line2\tcr lf\ttab here\tCrème brûlée – 日本語 🎉\t\t spaced \n');
    expect(line.slice(0, -1).split("\t")).toHaveLength(awkward.length);
    expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
    expect(parse(line, { delimiter: "\t", quote: false, record_delimiter: "\n" })).toEqual([
      ["plain", "a,b", 'say "hi"', "line1 line2", "cr lf", "tab here", "Crème brûlée – 日本語 🎉", "", " spaced "],
    ]);
  });
});

describe("CSV reader", () => {
  const text = '\uFEFFSku,Title\r\n1,"a ""quoted"", title"\r\n2,"multi\r\nline"\n\n3,last';
  const expected = [
    ["Sku", "Title"],
    ["1", 'a "quoted", title'],
    ["2", "multi\r\nline"],
    ["3", "last"],
  ];

  it("handles a BOM, CRLF and LF, doubled quotes, quoted line breaks, blank lines and no final newline", () => {
    expect(readAll(text)).toEqual(expected);
  });

  it("gives the same records whatever the chunk boundaries (a quote or CRLF split across chunks)", () => {
    for (let size = 1; size <= text.length; size++) expect(readAll(text, size)).toEqual(expected);
  });

  it("refuses a field longer than its limit, naming the record", () => {
    const reader = new CsvRecordReader(",", 10);
    const rows: string[][] = [];
    expect(() => reader.push('a,b\n"12345678901', (r) => rows.push(r))).toThrow(CsvFieldTooLong);
    expect(rows).toEqual([["a", "b"]]);
  });

  it("counts records so a problem can be reported by row", () => {
    const reader = new CsvRecordReader();
    const rows: number[] = [];
    reader.push('a\n\nb\n"c\nd"\ne', () => rows.push(reader.recordCount));
    reader.end(() => rows.push(reader.recordCount));
    expect(rows).toEqual([1, 2, 3, 4]);
  });
});

describe("PartBuffer", () => {
  const decoder = new TextDecoder();

  it("cuts exactly `size` bytes per part, splitting a multi-byte character if it must", () => {
    const size = 10;
    const buffer = new PartBuffer(size);
    const parts: Uint8Array[] = [];
    const rows = ["abcdef\n", "日本語🎉\n", "x\n", `${"é".repeat(15)}\n`];
    for (const row of rows) {
      let rest = buffer.write(row);
      while (rest !== null) {
        parts.push(buffer.bytes.slice());
        rest = buffer.reset(rest);
      }
    }
    parts.push(buffer.filled().slice());
    expect(parts.slice(0, -1).every((p) => p.length === size)).toBe(true);
    expect(parts.at(-1)!.length).toBeLessThanOrEqual(size);
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const p of parts) {
      joined.set(p, offset);
      offset += p.length;
    }
    expect(decoder.decode(joined)).toBe(rows.join(""));
  });
});
