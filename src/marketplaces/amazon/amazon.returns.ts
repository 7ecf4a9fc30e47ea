// Amazon returns in (decisions 13) through the Reports API 2021-06-30: one
// GET_FLAT_FILE_RETURNS_DATA_BY_RETURN_DATE report per window (createReport), asked after in later
// calls by the report id the page cursor keeps (getReport), then read (getReportDocument, the
// document downloaded and gunzipped) as a tab-delimited file whose rows are grouped into returns
// by Amazon RMA ID. A row names its order line by Order ID and Merchant SKU only; the importer
// takes the order's line of that SKU. The column spelling is Amazon's guide's, unconfirmed by any
// sample: headers are matched without case or surrounding spaces. Refunds out have no call in the
// models kept, so they are NotApplicable (amazon.connector.ts).
import { parse } from "csv-parse/sync";
import { MarketplaceError, type ImportedReturn, type ReturnPage, type ReturnState, type ReturnsImport } from "../connector";
import { readCappedText, sendToMarketplace } from "../kit/marketplace-http";
import { Unmappable } from "../kit/orders-page";
import { leastAdvanced, readReturn, splitReturns, type ReturnReader } from "../kit/returns-page";
import { TIMEOUT_MS, type AmazonClient } from "./amazon.client";

export const RETURNS_REPORT_TYPE = "GET_FLAT_FILE_RETURNS_DATA_BY_RETURN_DATE";
/** The longest period one returns report covers (Amazon's returns reports guide). */
export const REPORT_MAX_MS = 60 * 24 * 3600_000;
const CURSOR_PREFIX = "report:";

/** The columns read, as the guide spells them (compared lower-cased, trimmed). */
export const COLUMNS = {
  orderId: "order id",
  requestDate: "return request date",
  status: "return request status",
  rma: "amazon rma id",
  sku: "merchant sku",
  quantity: "return quantity",
  reason: "return reason",
} as const;
const REQUIRED = [COLUMNS.orderId, COLUMNS.requestDate, COLUMNS.status, COLUMNS.sku, COLUMNS.quantity];

/**
 * Return request status -> decisions 13's states. The guide lists the column but not its values;
 * these are the words Amazon's Seller Central shows for a return request. Anything else sets the
 * return aside with the word, so an unknown value is seen, not guessed.
 */
const STATES: Record<string, ReturnState> = {
  pending: "Requested",
  requested: "Requested",
  "pending approval": "Requested",
  approved: "Approved",
  authorized: "Approved",
  authorised: "Approved",
  received: "Received",
  delivered: "Received",
  refunded: "Refunded",
  closed: "Closed",
  completed: "Closed",
  rejected: "Rejected",
  denied: "Rejected",
  declined: "Rejected",
};

/** One row of the report: lower-cased header -> value. */
export type ReportRow = Record<string, string>;
/** What a set-aside Amazon return keeps: its rows as read. */
export interface AmazonReturnRecord {
  rows: ReportRow[];
}

/** The rows of a tab-delimited report with a header line; a header without a column read is a MarketplaceError. */
export function readReturnsReport(text: string): ReportRow[] {
  // Amazon's flat files quote nothing: a quote is part of its cell.
  const lines = (parse(text, { delimiter: "\t", quote: false, relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][]).map((cells) =>
    cells.map((c) => c.trim()),
  );
  const header = (lines[0] ?? []).map((h) => h.toLowerCase());
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new MarketplaceError(
      `Amazon returns report has no column ${missing.map((m) => JSON.stringify(m)).join(", ")} (header: ${(lines[0] ?? []).join("\t").slice(0, 200)})`,
      200,
      false,
    );
  }
  return lines
    .slice(1)
    .filter((cells) => cells.some((c) => c !== ""))
    .map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ""])));
}

/** The rows grouped into returns: by Amazon RMA ID, or by order and request date when a row has none. */
export function groupReturnRows(rows: ReportRow[]): AmazonReturnRecord[] {
  const groups = new Map<string, ReportRow[]>();
  rows.forEach((row, i) => {
    const key = row[COLUMNS.rma] || (row[COLUMNS.orderId] ? `${row[COLUMNS.orderId]}@${row[COLUMNS.requestDate] ?? ""}` : `#${i}`);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  });
  return [...groups.values()].map((group) => ({ rows: group }));
}

const unmappable = (message: string) => new Unmappable(message);

function returnNumber(rows: ReportRow[]): string {
  const first = rows[0] ?? {};
  return first[COLUMNS.rma] || (first[COLUMNS.orderId] ? `${first[COLUMNS.orderId]}@${first[COLUMNS.requestDate] ?? ""}` : "");
}

export function mapAmazonReturn(record: AmazonReturnRecord): ImportedReturn {
  const rows = record.rows;
  if (!Array.isArray(rows) || rows.length === 0) throw unmappable("returns report record has no rows");
  const number = returnNumber(rows);
  const where = `return ${number}`;
  const orders = [...new Set(rows.map((r) => r[COLUMNS.orderId] ?? ""))];
  if (orders.includes("")) throw unmappable(`${where} has a row without Order ID`);
  if (orders.length > 1) throw unmappable(`${where} names orders ${orders.join(" and ")}; the hub keeps one order per return`);
  const requested = Date.parse(rows[0]![COLUMNS.requestDate] ?? "");
  if (!Number.isFinite(requested)) throw unmappable(`${where} has Return request date ${JSON.stringify(rows[0]![COLUMNS.requestDate] ?? "")}, not a date`);
  const words = [...new Set(rows.map((r) => r[COLUMNS.status] ?? ""))];
  const states = words.map((w) => {
    const state = STATES[w.toLowerCase()];
    if (!state) throw unmappable(`${where} has Return request status ${JSON.stringify(w)}, not one this connector knows (${Object.keys(STATES).join(", ")})`);
    return state;
  });
  // The least advanced row wins: that is what the return still waits for.
  const state = leastAdvanced(states);
  // Rows of one SKU (the same item on several rows) are one line.
  const bySku = new Map<string, { quantity: number; reason: string | null }>();
  for (const row of rows) {
    const sku = row[COLUMNS.sku] ?? "";
    if (sku === "") throw unmappable(`${where} has a row without Merchant SKU`);
    const raw = row[COLUMNS.quantity] ?? "";
    const quantity = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(quantity) || quantity < 1)
      throw unmappable(`${where} SKU ${sku} has Return quantity ${JSON.stringify(raw)}, not a whole number above 0`);
    const line = bySku.get(sku) ?? { quantity: 0, reason: row[COLUMNS.reason] || null };
    line.quantity += quantity;
    bySku.set(sku, line);
  }
  const lines = [...bySku].map(([sku, l]) => ({ sourceReturnLineId: sku, sourceLineId: "", sku, quantity: l.quantity, reason: l.reason }));
  return {
    sourceReturnNumber: number,
    sourceOrderNumber: orders[0]!,
    state,
    sourceStatus: words.join("/"),
    requestedAt: new Date(requested),
    reason: lines.find((l) => l.reason)?.reason ?? null,
    lines,
    record,
  };
}

export const amazonReturnReader: ReturnReader = {
  map: (record) => mapAmazonReturn((typeof record === "object" && record !== null ? record : { rows: [] }) as AmazonReturnRecord),
  numbersOf: (record) => {
    const rows = (record as AmazonReturnRecord | null)?.rows;
    const first = Array.isArray(rows) ? rows[0] : undefined;
    return { sourceReturnNumber: Array.isArray(rows) ? returnNumber(rows) : "", sourceOrderNumber: first?.[COLUMNS.orderId] || null };
  },
  reason: (message) => `Amazon ${message}`,
};

interface ReportStatus {
  processingStatus?: string;
  reportDocumentId?: string;
}
interface ReportDocument {
  url?: string;
  compressionAlgorithm?: string;
}

export function amazonReturns(deps: { client: AmazonClient; fetch: typeof fetch; marketplaceIds: string[] }): ReturnsImport {
  const { client } = deps;

  /** One createReport for the window; the report id becomes the page cursor. */
  async function createReport(window: { since: Date; until: Date }): Promise<string> {
    // A report covers 60 days at most: a longer window (a source stopped for months) reads its last 60 days.
    const start = Math.max(window.since.getTime(), window.until.getTime() - REPORT_MAX_MS);
    const body = {
      reportType: RETURNS_REPORT_TYPE,
      marketplaceIds: deps.marketplaceIds,
      dataStartTime: new Date(start).toISOString(),
      dataEndTime: window.until.toISOString(),
    };
    const created = await client.callJson<{ reportId?: unknown }>("createReport", "POST", "/reports/2021-06-30/reports", body);
    if (typeof created?.reportId !== "string" || created.reportId === "")
      throw new MarketplaceError("Amazon createReport answer carries no reportId", 202, true);
    return created.reportId;
  }

  async function download(reportId: string, documentId: string): Promise<string> {
    const doc = await client.callJson<ReportDocument>("getReportDocument", "GET", `/reports/2021-06-30/documents/${encodeURIComponent(documentId)}`);
    if (typeof doc?.url !== "string" || !/^https:\/\//.test(doc.url)) {
      throw new MarketplaceError(`Amazon getReportDocument answer for report ${reportId} carries no https url`, 200, true);
    }
    const response = await sendToMarketplace({ marketplace: "Amazon report download", fetch: deps.fetch, method: "GET", url: doc.url, timeoutMs: TIMEOUT_MS });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new MarketplaceError(`Amazon returns report ${reportId}: download answered ${response.status}`, response.status, true);
    }
    const stream = doc.compressionAlgorithm === "GZIP" ? response.body.pipeThrough(new DecompressionStream("gzip")) : response.body;
    // Counted after gunzip: a small download can unpack to any size.
    return readCappedText(stream, `Amazon returns report ${reportId} could not be read`, null);
  }

  return {
    async fetchReturns(window, cursor): Promise<ReturnPage> {
      if (window.since.getTime() >= window.until.getTime()) return { returns: [], setAside: [], nextCursor: null };
      if (cursor === null || !cursor.startsWith(CURSOR_PREFIX)) {
        // Nothing to read yet: the next call (this cycle's, or a later one's from the saved page) asks after it.
        return { returns: [], setAside: [], nextCursor: `${CURSOR_PREFIX}${await createReport(window)}` };
      }
      const reportId = cursor.slice(CURSOR_PREFIX.length);
      const report = await client.callJson<ReportStatus>("getReport", "GET", `/reports/2021-06-30/reports/${encodeURIComponent(reportId)}`);
      const status = report?.processingStatus;
      switch (status) {
        case "IN_QUEUE":
        case "IN_PROGRESS":
          // Kept on the saved page: the next cycle asks after the same report, never creates another.
          throw new MarketplaceError(`Amazon returns report ${reportId} is ${status}; the next cycle asks after it again`, null, true, null);
        case "CANCELLED":
          // Amazon cancels a report that has no data: no returns in this window.
          return { returns: [], setAside: [], nextCursor: null };
        case "FATAL":
          // Not retryable: the saved page is dropped and the next cycle asks for a new report of the window, which is not advanced.
          throw new MarketplaceError(
            `Amazon returns report ${reportId} ended FATAL (Amazon could not produce it); the next cycle asks for a new one`,
            200,
            false,
          );
        case "DONE":
          break;
        default:
          throw new MarketplaceError(`Amazon getReport answer for report ${reportId} has processingStatus ${JSON.stringify(status)}`, 200, true);
      }
      if (typeof report?.reportDocumentId !== "string" || report.reportDocumentId === "") {
        throw new MarketplaceError(`Amazon report ${reportId} is DONE without a reportDocumentId`, 200, true);
      }
      const rows = readReturnsReport(await download(reportId, report.reportDocumentId));
      return { ...splitReturns(amazonReturnReader, groupReturnRows(rows), "Amazon returns report"), nextCursor: null };
    },
    remap: (record) => readReturn(amazonReturnReader, record),
  };
}
