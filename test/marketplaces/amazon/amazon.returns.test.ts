// Amazon returns in through the Reports API, called directly against the fake Amazon (its reports
// operations extracted from Amazon's Reports API model): one createReport per window, the report id
// kept in the page cursor and asked after with getReport, the gzipped tab-delimited document read
// into returns by Amazon RMA ID, nonsense rows set aside, a 429 with Retry-After, FATAL and
// CANCELLED reports, and refunds out NotApplicable.
import { describe, expect, it } from "vitest";
import { MarketplaceError, type ReturnsImport } from "../../../src/marketplaces/connector";
import { createAmazonConnector } from "../../../src/marketplaces/amazon/amazon.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { AMAZON_FAKE_CLIENT_ID, AMAZON_FAKE_CLIENT_SECRET, AMAZON_FAKE_REFRESH_TOKEN, createAmazonFake } from "./amazon-fake";

const START = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
const DAY = 86_400_000;
const US = "ATVPDKIKX0DER";

const HEADER = [
  "Order ID",
  "Order date",
  "Return request date",
  "Return request status",
  "Amazon RMA ID",
  "Merchant RMA ID",
  "Merchant SKU",
  "Item Name",
  "Return quantity",
  "Return Reason",
];
const row = (cells: Partial<Record<(typeof HEADER)[number], string>>) => HEADER.map((h) => cells[h] ?? "").join("\t");
const report = (...rows: string[]) => `${[HEADER.join("\t"), ...rows].join("\r\n")}\r\n`;

function setup(gzipReports = true) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createAmazonFake({ now, gzipReports });
  const connector = createAmazonConnector(
    {
      sourceId: "source-1",
      settings: {
        refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
        clientId: AMAZON_FAKE_CLIENT_ID,
        clientSecret: AMAZON_FAKE_CLIENT_SECRET,
        region: "na",
        marketplaceIds: [US],
      },
      fetch: fake.fetch,
      now,
    },
    memoryStorage(),
    { sleep: async (ms) => void (clock.ms += ms) },
  );
  const returns = connector.returns as ReturnsImport;
  const window = { since: new Date(START - 7 * DAY), until: new Date(START - 2 * MINUTE) };
  return { fake, connector, returns, clock, window };
}

async function thrown(promise: Promise<unknown>): Promise<MarketplaceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MarketplaceError);
  return error as MarketplaceError;
}

describe("Amazon returns in", () => {
  it("creates one report per window, asks after it by the cursor's report id until DONE, and reads its gzipped rows into returns", async () => {
    const { fake, returns, window, clock } = setup();
    const first = await returns.fetchReturns(window, null);
    expect(first.returns).toEqual([]);
    expect(first.nextCursor).toBe("report:70001");
    const [created] = fake.apiRequests("createReport");
    expect(created!.body).toEqual({
      reportType: "GET_FLAT_FILE_RETURNS_DATA_BY_RETURN_DATE",
      marketplaceIds: [US],
      dataStartTime: "2026-02-22T12:00:00.000Z",
      dataEndTime: "2026-03-01T11:58:00.000Z",
    });

    // Still queued: a retryable error without a wait, the cursor kept by the caller; no second report.
    const queued = await thrown(returns.fetchReturns(window, first.nextCursor));
    expect(queued.retryable).toBe(true);
    expect(queued.retryAfterMs).toBeNull();
    expect(queued.message).toContain("70001 is IN_QUEUE");
    clock.ms += 5 * MINUTE;

    fake.returnsReport = report(
      row({
        "Order ID": "112-1",
        "Return request date": "2026-02-25T10:00:00Z",
        "Return request status": "Approved",
        "Amazon RMA ID": "RMA-A",
        "Merchant SKU": "SKU-1",
        "Return quantity": "1",
        "Return Reason": "DEFECTIVE",
      }),
      row({
        "Order ID": "112-1",
        "Return request date": "2026-02-25T10:00:00Z",
        "Return request status": "Approved",
        "Amazon RMA ID": "RMA-A",
        "Merchant SKU": "SKU-2",
        "Return quantity": "2",
        "Return Reason": "NO_LONGER_NEEDED",
      }),
      row({
        "Order ID": "112-1",
        "Return request date": "2026-02-25T10:00:00Z",
        "Return request status": "Approved",
        "Amazon RMA ID": "RMA-A",
        "Merchant SKU": "SKU-1",
        "Return quantity": "1",
        "Return Reason": "DEFECTIVE",
      }),
      row({
        "Order ID": "113-9",
        "Return request date": "2026-02-26T08:30:00Z",
        "Return request status": "Closed",
        "Amazon RMA ID": "RMA-B",
        "Merchant SKU": "SKU-9",
        "Return quantity": "3",
        "Return Reason": "",
      }),
    );
    expect(await fake.finishReports("DONE")).toEqual(["70001"]);
    const done = await returns.fetchReturns(window, first.nextCursor);
    expect(done.nextCursor).toBeNull();
    expect(done.setAside).toEqual([]);
    expect(done.returns.map((r) => ({ ...r, record: undefined }))).toEqual([
      {
        sourceReturnNumber: "RMA-A",
        sourceOrderNumber: "112-1",
        state: "Approved",
        sourceStatus: "Approved",
        requestedAt: new Date("2026-02-25T10:00:00Z"),
        reason: "DEFECTIVE",
        lines: [
          { sourceReturnLineId: "SKU-1", sourceLineId: "", sku: "SKU-1", quantity: 2, reason: "DEFECTIVE" },
          { sourceReturnLineId: "SKU-2", sourceLineId: "", sku: "SKU-2", quantity: 2, reason: "NO_LONGER_NEEDED" },
        ],
        record: undefined,
      },
      {
        sourceReturnNumber: "RMA-B",
        sourceOrderNumber: "113-9",
        state: "Closed",
        sourceStatus: "Closed",
        requestedAt: new Date("2026-02-26T08:30:00Z"),
        reason: null,
        lines: [{ sourceReturnLineId: "SKU-9", sourceLineId: "", sku: "SKU-9", quantity: 3, reason: null }],
        record: undefined,
      },
    ]);
    expect(fake.apiRequests("createReport")).toHaveLength(1);
    expect(fake.apiRequests("getReport")).toHaveLength(2);
    expect(fake.apiRequests("getReportDocument")).toHaveLength(1);
    expect(fake.requests.filter((r) => r.operationId === "download")).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it("reads a plain (not gzipped) document, and maps each status word to section 13's states", async () => {
    const { fake, returns, window } = setup(false);
    const words = ["Pending", "Approved", "Authorized", "Received", "Refunded", "Closed", "Rejected", "Denied"];
    fake.returnsReport = report(
      ...words.map((w, i) =>
        row({
          "Order ID": `o-${i}`,
          "Return request date": "2026-02-25",
          "Return request status": w,
          "Amazon RMA ID": `R${i}`,
          "Merchant SKU": "S",
          "Return quantity": "1",
        }),
      ),
    );
    const { nextCursor } = await returns.fetchReturns(window, null);
    await fake.finishReports();
    const page = await returns.fetchReturns(window, nextCursor);
    expect(page.returns.map((r) => [r.sourceStatus, r.state])).toEqual([
      ["Pending", "Requested"],
      ["Approved", "Approved"],
      ["Authorized", "Approved"],
      ["Received", "Received"],
      ["Refunded", "Refunded"],
      ["Closed", "Closed"],
      ["Rejected", "Rejected"],
      ["Denied", "Rejected"],
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("asks for at most 60 days: a longer window's report covers its last 60", async () => {
    const { fake, returns, window } = setup();
    await returns.fetchReturns({ since: new Date(START - 90 * DAY), until: window.until }, null);
    const body = fake.apiRequests("createReport")[0]!.body as { dataStartTime: string; dataEndTime: string };
    expect(body.dataStartTime).toBe("2025-12-31T11:58:00.000Z");
    expect(body.dataEndTime).toBe("2026-03-01T11:58:00.000Z");
    expect(fake.violations).toEqual([]);
  });
});

describe("Amazon returns on a bad day", () => {
  it("sets nonsense rows aside with the reason and imports the rest; remap gives the same reason", async () => {
    const { fake, returns, window } = setup();
    fake.returnsReport = report(
      row({
        "Order ID": "112-1",
        "Return request date": "2026-02-25",
        "Return request status": "Approved",
        "Amazon RMA ID": "OK",
        "Merchant SKU": "S",
        "Return quantity": "1",
      }),
      row({
        "Order ID": "112-2",
        "Return request date": "2026-02-25",
        "Return request status": "Approved",
        "Amazon RMA ID": "QTY",
        "Merchant SKU": "S",
        "Return quantity": "two",
      }),
      row({
        "Order ID": "112-3",
        "Return request date": "2026-02-25",
        "Return request status": "Lost at sea",
        "Amazon RMA ID": "WORD",
        "Merchant SKU": "S",
        "Return quantity": "1",
      }),
      row({
        "Order ID": "112-4",
        "Return request date": "yesterday",
        "Return request status": "Approved",
        "Amazon RMA ID": "DATE",
        "Merchant SKU": "S",
        "Return quantity": "1",
      }),
      row({
        "Order ID": "112-5",
        "Return request date": "2026-02-25",
        "Return request status": "Approved",
        "Amazon RMA ID": "NOSKU",
        "Merchant SKU": "",
        "Return quantity": "1",
      }),
      "garbage without tabs",
    );
    const { nextCursor } = await returns.fetchReturns(window, null);
    await fake.finishReports();
    const page = await returns.fetchReturns(window, nextCursor);
    expect(page.returns.map((r) => r.sourceReturnNumber)).toEqual(["OK"]);
    expect(page.setAside.map((s) => [s.sourceReturnNumber, s.sourceOrderNumber, s.reason])).toEqual([
      ["QTY", "112-2", 'Amazon return QTY SKU S has Return quantity "two", not a whole number above 0'],
      [
        "WORD",
        "112-3",
        'Amazon return WORD has Return request status "Lost at sea", not one this connector knows ' +
          "(pending, requested, pending approval, approved, authorized, authorised, received, delivered, refunded, closed, completed, rejected, denied, declined)",
      ],
      ["DATE", "112-4", 'Amazon return DATE has Return request date "yesterday", not a date'],
      ["NOSKU", "112-5", "Amazon return NOSKU has a row without Merchant SKU"],
      // A line without tabs is an Order ID alone: no date, so set aside under order and empty date.
      ["garbage without tabs@", "garbage without tabs", 'Amazon return garbage without tabs@ has Return request date "", not a date'],
    ]);
    const again = returns.remap(page.setAside[0]!.record);
    expect("lines" in again).toBe(false);
    expect((again as { reason: string }).reason).toBe(page.setAside[0]!.reason);
  });

  it("hands a 429's Retry-After on createReport to the core, and creates the report on the next call", async () => {
    const { fake, returns, window, clock } = setup();
    fake.failNext({ status: 429, headers: { "Retry-After": "120" }, operation: "createReport" });
    const error = await thrown(returns.fetchReturns(window, null));
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(120_000);
    expect(fake.apiRequests("createReport")).toHaveLength(1);
    // The 429 emptied the bucket as this side sees it: the next call waits for the wait said.
    const paced = await thrown(returns.fetchReturns(window, null));
    expect(paced.message).toContain("createReport is paced at 0.0167 calls/s");
    expect(fake.apiRequests("createReport")).toHaveLength(1);
    clock.ms += 120_000;
    const page = await returns.fetchReturns(window, null);
    expect(page.nextCursor).toBe("report:70001");
    expect(fake.violations).toEqual([]);
  });

  it("says why a FATAL report brings nothing (not retryable: a new report next cycle), and reads CANCELLED as no returns", async () => {
    const { fake, returns, window } = setup();
    const fatal = await returns.fetchReturns(window, null);
    await fake.finishReports("FATAL");
    const error = await thrown(returns.fetchReturns(window, fatal.nextCursor));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Amazon returns report 70001 ended FATAL (Amazon could not produce it); the next cycle asks for a new one");

    const cancelled = await returns.fetchReturns(window, null);
    expect(cancelled.nextCursor).toBe("report:70002");
    await fake.finishReports("CANCELLED");
    expect(await returns.fetchReturns(window, cancelled.nextCursor)).toEqual({ returns: [], setAside: [], nextCursor: null });
    expect(fake.apiRequests("getReportDocument")).toHaveLength(0);
    expect(fake.violations).toEqual([]);
  });

  it("refuses a document whose header lacks a column it reads, naming it", async () => {
    const { fake, returns, window } = setup();
    fake.returnsReport = "order-id\tsku\tqty\n112-1\tS\t1\n";
    const { nextCursor } = await returns.fetchReturns(window, null);
    await fake.finishReports();
    const error = await thrown(returns.fetchReturns(window, nextCursor));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('has no column "order id", "return request date", "return request status", "merchant sku", "return quantity"');
  });
});

describe("Amazon refunds out", () => {
  it("is NotApplicable with the reason", async () => {
    const { connector, fake } = setup();
    const outcome = await connector.refund!({} as Parameters<NonNullable<typeof connector.refund>>[0]);
    expect(outcome).toEqual({
      state: "notApplicable",
      reason: "Amazon's Selling Partner API has no refund call in the models this connector is built from; the seller refunds in Seller Central",
    });
    expect(fake.requests).toHaveLength(0);
  });
});
