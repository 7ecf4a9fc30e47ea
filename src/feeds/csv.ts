// The two delimited formats, written and read by hand: both are a few lines of RFC 4180, the
// writer sits on the compile's hot path (a million rows), and the generic libraries pull Node
// stream shims into the Worker for what is one escape function and one small state machine.

export type FeedFormat = "csv" | "tsv";

const NEEDS_QUOTES = /[",\r\n]/;

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes doubled. */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * TSV has no quoting: a tab or a line break inside a value would add a column or a row, so each
 * run of them becomes one space and every row keeps the header's column count.
 */
export function tsvField(value: string): string {
  return value.replace(/[\t\r\n]+/g, " ");
}

/** One row with its line ending (CRLF for CSV as RFC 4180 says, LF for TSV). */
export function formatRow(format: FeedFormat, values: readonly string[]): string {
  if (format === "csv") {
    let line = "";
    for (let i = 0; i < values.length; i++) line += (i === 0 ? "" : ",") + csvField(values[i]!);
    return `${line}\r\n`;
  }
  let line = "";
  for (let i = 0; i < values.length; i++) line += (i === 0 ? "" : "\t") + tsvField(values[i]!);
  return `${line}\n`;
}

/**
 * An incremental RFC 4180 reader: feed it text in chunks of any size (a field, a quote or a CRLF
 * may be split across chunks) and it hands back each complete record. Quoted fields may hold
 * commas, doubled quotes and line breaks; a byte-order mark at the very start is dropped.
 */
export class CsvRecordReader {
  private field = "";
  private record: string[] = [];
  private quoted = false;
  /** Inside quotes, a quote was just seen: either the closing one or the first of a pair. */
  private quotePending = false;
  private fieldStarted = false;
  private afterCr = false;
  private atStart = true;
  /** Records completed, so a caller can say which record a problem is in. */
  recordCount = 0;

  constructor(
    private readonly delimiter = ",",
    /** A longer field is refused (a quote left open would otherwise swallow the whole upload). */
    private readonly maxFieldLength = 1 << 20,
    /** A record with more fields is refused (a line of commas alone would otherwise fill memory with empty fields). */
    private readonly maxFields = 1_000,
  ) {}

  push(chunk: string, onRecord: (record: string[]) => void): void {
    let i = 0;
    if (this.atStart && chunk.length > 0) {
      this.atStart = false;
      if (chunk.charCodeAt(0) === 0xfeff) i = 1;
    }
    const n = chunk.length;
    const delimiter = this.delimiter;
    while (i < n) {
      if (this.quoted) {
        if (this.quotePending) {
          this.quotePending = false;
          if (chunk[i] === '"') {
            this.field += '"';
            i++;
            continue;
          }
          this.quoted = false;
          continue; // re-read this character outside the quotes
        }
        const close = chunk.indexOf('"', i);
        if (close < 0) {
          this.field += chunk.slice(i);
          this.checkLength();
          return;
        }
        this.field += chunk.slice(i, close);
        this.checkLength();
        this.quotePending = true;
        i = close + 1;
        continue;
      }
      const ch = chunk[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (ch === "\n") {
          i++;
          continue;
        }
      }
      if (ch === '"' && !this.fieldStarted) {
        this.quoted = true;
        this.fieldStarted = true;
        i++;
      } else if (ch === delimiter) {
        this.endField();
        i++;
      } else if (ch === "\n" || ch === "\r") {
        this.endRecord(onRecord);
        this.afterCr = ch === "\r";
        i++;
      } else {
        // Plain run up to the next special character.
        let j = i + 1;
        while (j < n) {
          const c = chunk[j]!;
          if (c === delimiter || c === "\n" || c === "\r") break;
          j++;
        }
        this.field += chunk.slice(i, j);
        this.checkLength();
        this.fieldStarted = true;
        i = j;
      }
    }
  }

  /** End of input: a last record without a trailing line break still counts. */
  end(onRecord: (record: string[]) => void): void {
    if (this.quotePending) {
      this.quotePending = false;
      this.quoted = false;
    }
    if (this.quoted) {
      // An unterminated quote runs to the end of the input; take what is there.
      this.quoted = false;
    }
    if (this.fieldStarted || this.record.length > 0) this.endRecord(onRecord);
  }

  private checkLength(): void {
    if (this.field.length > this.maxFieldLength) throw new CsvFieldTooLong(this.recordCount + 1, this.maxFieldLength);
  }

  private endField(): void {
    if (this.record.length >= this.maxFields) throw new CsvRecordTooLarge(this.recordCount + 1, `a record has more than ${this.maxFields} fields`);
    this.record.push(this.field);
    this.field = "";
    this.fieldStarted = false;
  }

  private endRecord(onRecord: (record: string[]) => void): void {
    this.endField();
    const record = this.record;
    this.record = [];
    // A blank line is no record.
    if (record.length === 1 && record[0] === "") return;
    this.recordCount++;
    onRecord(record);
  }
}

/** A record past what the reader holds: the input cannot be split into rows reliably past it. */
export class CsvRecordTooLarge extends Error {
  constructor(
    readonly record: number,
    message: string,
  ) {
    super(message);
    this.name = "CsvRecordTooLarge";
  }
}

export class CsvFieldTooLong extends CsvRecordTooLarge {
  constructor(
    record: number,
    readonly maxLength: number,
  ) {
    super(record, `a field is longer than ${maxLength} characters (is a quote left open?)`);
    this.name = "CsvFieldTooLong";
  }
}
