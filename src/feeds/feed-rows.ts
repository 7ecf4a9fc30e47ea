// The per-product work of a compile, pure: check a product against the feed's template, count
// it, keep the first issues, and serialize its row in the feed's format and columns. The compile
// calls it once per product of the catalog; the tests drive it directly.
import type { FeedIssue, FeedRow, ProductRow } from "../db/schema";
import { formatRow, type FeedFormat } from "./csv";
import type { FeedColumn } from "../products/product-fields";
import { TEMPLATES } from "./templates";
import { columnReaders, type FeedTemplate } from "./templates/template";

export interface Counts {
  total: number;
  valid: number;
  warning: number;
  error: number;
}

/** What a compile has counted so far; every checkpoint stores it. */
export interface Tally {
  counts: Counts;
  /** The first MAX_ISSUES products with errors or warnings, in Sku order. */
  issues: FeedIssue[];
}

export const MAX_ISSUES = 20;

export const emptyTally = (): Tally => ({ counts: { total: 0, valid: 0, warning: 0, error: 0 }, issues: [] });

/** A copy that later rows do not change (a checkpoint taken mid-compile). */
export const copyTally = (tally: Tally): Tally => ({ counts: { ...tally.counts }, issues: [...tally.issues] });

/** The columns a feed emits: its own, or its template's when it names none. */
export function columnsOf(feed: Pick<FeedRow, "columns" | "template">): FeedColumn[] {
  return feed.columns ?? TEMPLATES[feed.template]!.columns;
}

/** A file's first row. */
export function headerRow(format: FeedFormat, columns: FeedColumn[]): string {
  return formatRow(
    format,
    columns.map((c) => c.header),
  );
}

/** What a spreadsheet takes for the start of a formula (OWASP's list: = + - @, tab, CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell a spreadsheet would run as a formula, with a leading ' so that it is shown instead. */
export function escapeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export class FeedRows {
  private readonly template: FeedTemplate;
  /** Each column's value of a product, in the template's spelling. */
  private readonly readers: ((product: ProductRow) => string)[];
  /** Reused for every row: one product's values at a time. */
  private readonly values: string[];

  constructor(
    readonly format: FeedFormat,
    readonly columns: FeedColumn[],
    templateName: string,
    /** The feed's EscapeFormulas: cells a spreadsheet would run are quoted. */
    private readonly escapeFormulas = false,
  ) {
    const template = TEMPLATES[templateName];
    if (!template) throw new Error(`unknown feed template '${templateName}'`);
    this.template = template;
    this.readers = columnReaders(template, columns);
    this.values = new Array<string>(columns.length);
  }

  header(): string {
    return headerRow(this.format, this.columns);
  }

  /**
   * Checks one product, counts it in `tally`, and answers its row; null when an error leaves it
   * out of the file. A product with warnings is written and counted as valid and as warned.
   */
  row(product: ProductRow, tally: Tally): string | null {
    const verdict = this.template.check(product);
    const { counts } = tally;
    counts.total++;
    const left = verdict.errors.length > 0;
    if (left) counts.error++;
    else {
      counts.valid++;
      if (verdict.warnings.length > 0) counts.warning++;
    }
    if ((left || verdict.warnings.length > 0) && tally.issues.length < MAX_ISSUES) {
      tally.issues.push({ sku: product.sku, errors: verdict.errors, warnings: verdict.warnings });
    }
    if (left) return null;
    const { readers, values } = this;
    for (let i = 0; i < readers.length; i++) values[i] = readers[i]!(product);
    if (this.escapeFormulas) for (let i = 0; i < values.length; i++) values[i] = escapeFormula(values[i]!);
    return formatRow(this.format, values);
  }
}
