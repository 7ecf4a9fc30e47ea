// Amazon returns in through whole cycles fired by the Cron Trigger (the Worker's scheduled handler):
// the cycle's fetch is the global one, replaced by the fake Amazon of this folder, whose Reports
// operations (createReport, getReport, getReportDocument and the gzipped tab-delimited document)
// are checked against Amazon's Reports API model. A client then reads the returns over
// GET /v1/{token}/Returns: each row lands on its order's line (by Merchant SKU), a return whose
// order the hub does not hold or whose SKU the order lacks is set aside with the reason (and the
// first imported by the operator's retry once its order is in), a later report moves a return on
// without a duplicate, and nothing is sent back to Amazon.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WireReturn } from "../../../src/returns/returns.wire";
import { ALL_SCOPES, admin, call, storeWithToken } from "../../helpers/api";
import { createSource, deliveries, fireCron, listOrders } from "../../helpers/sync";
import { AMAZON_FAKE_CLIENT_ID, AMAZON_FAKE_CLIENT_SECRET, AMAZON_FAKE_REFRESH_TOKEN, createAmazonFake } from "./amazon-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

const HOUR = 3_600_000;
const ALL_TIME = "fromDate=2000-01-01&toDate=2100-01-01";
const SETTINGS = {
  refreshToken: AMAZON_FAKE_REFRESH_TOKEN,
  clientId: AMAZON_FAKE_CLIENT_ID,
  clientSecret: AMAZON_FAKE_CLIENT_SECRET,
  region: "na",
  marketplaceIds: ["ATVPDKIKX0DER"],
};
/** The models' American order: ECHO-DOT-4-CHARCOAL × 2 and FIRE-TV-4K-2021 × 1, shipped by the seller. */
const US = "123-4567890-1234567";

const HEADER = ["Order ID", "Order date", "Return request date", "Return request status", "Amazon RMA ID", "Merchant SKU", "Return quantity", "Return Reason"];
type Cells = Partial<Record<(typeof HEADER)[number], string>>;
const report = (...rows: Cells[]) => `${[HEADER.join("\t"), ...rows.map((r) => HEADER.map((h) => r[h] ?? "").join("\t"))].join("\r\n")}\r\n`;

interface SetAsideReturn {
  ReturnSourceNumber: string;
  OrderSourceOrderNumber: string | null;
  Reason: string;
}

async function listReturns(token: string, query = ""): Promise<WireReturn[]> {
  const res = await call("GET", `/v1/${token}/Returns?${ALL_TIME}&page=1&pageSize=100${query}`);
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { Returns: WireReturn[] }).Returns;
}

describe("Amazon returns in through the cron", () => {
  it(
    "lands each report row on its order line with its quantity, sets aside a return of an order the hub does not hold until the operator's retry " +
      "after the order came in, moves a return on from a later report without a duplicate, and sends nothing back",
    async () => {
      let ahead = 0;
      const fake = createAmazonFake({ now: () => new Date(Date.now() + ahead) });
      // Only the American order is the seller's in this marketplace; it changed an hour ago.
      fake.orders.splice(0, fake.orders.length, ...fake.orders.filter((o) => o.orderId === US));
      fake.orders[0]!.lastUpdatedTime = new Date(Date.now() - HOUR).toISOString();
      vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
      const { storeId, token } = await storeWithToken({ scopes: [...ALL_SCOPES, "ReturnsRead"] });
      const sourceId = await createSource(storeId, { Type: "amazon", Name: "Amazon US", Settings: SETTINGS });

      // Cycle 1: the order comes in; the returns report is created and still queued at Amazon.
      await fireCron();
      const [order] = await listOrders(token);
      expect(order!.OrderSourceOrderNumber).toBe(US);
      const line = Object.fromEntries(order!.OrderItems.map((i) => [i.Sku, i.OrderItemId]));
      expect(Object.keys(line).sort()).toEqual(["ECHO-DOT-4-CHARCOAL", "FIRE-TV-4K-2021"]);
      expect(fake.apiRequests("createReport")).toHaveLength(1);
      expect((fake.apiRequests("createReport")[0]!.body as { reportType: string }).reportType).toBe("GET_FLAT_FILE_RETURNS_DATA_BY_RETURN_DATE");
      expect(await listReturns(token)).toEqual([]);

      // Amazon finishes the report: one return of the order's two lines (the Echo Dot on two
      // rows of one unit each), one of an order this source never imported, one naming a SKU the
      // order does not have.
      fake.returnsReport = report(
        {
          "Order ID": US,
          "Return request date": "2026-02-25T10:00:00Z",
          "Return request status": "Approved",
          "Amazon RMA ID": "D5dRk5YhRRMA",
          "Merchant SKU": "FIRE-TV-4K-2021",
          "Return quantity": "1",
          "Return Reason": "DEFECTIVE",
        },
        {
          "Order ID": US,
          "Return request date": "2026-02-25T10:00:00Z",
          "Return request status": "Approved",
          "Amazon RMA ID": "D5dRk5YhRRMA",
          "Merchant SKU": "ECHO-DOT-4-CHARCOAL",
          "Return quantity": "1",
          "Return Reason": "NO_LONGER_NEEDED",
        },
        {
          "Order ID": US,
          "Return request date": "2026-02-25T10:00:00Z",
          "Return request status": "Approved",
          "Amazon RMA ID": "D5dRk5YhRRMA",
          "Merchant SKU": "ECHO-DOT-4-CHARCOAL",
          "Return quantity": "1",
          "Return Reason": "NO_LONGER_NEEDED",
        },
        {
          "Order ID": "113-0000000-0000009",
          "Return request date": "2026-02-26T08:30:00Z",
          "Return request status": "Pending",
          "Amazon RMA ID": "DnotHeldRMA",
          "Merchant SKU": "ECHO-DOT-4-CHARCOAL",
          "Return quantity": "1",
        },
        {
          "Order ID": US,
          "Return request date": "2026-02-27T08:30:00Z",
          "Return request status": "Pending",
          "Amazon RMA ID": "DwrongSkuRMA",
          "Merchant SKU": "KINDLE-PAPERWHITE",
          "Return quantity": "1",
        },
      );
      expect(await fake.finishReports("DONE")).toEqual(["70001"]);

      // Cycle 2: the report is asked after by its id (never created again), downloaded, imported.
      await fireCron();
      expect(fake.apiRequests("createReport")).toHaveLength(1);
      expect(fake.apiRequests("getReportDocument")).toHaveLength(1);
      const returns = await listReturns(token);
      expect(returns).toHaveLength(1);
      const ret = returns[0]!;
      expect(ret).toMatchObject({
        OrderId: order!.OrderId,
        OrderSource: "Amazon US",
        OrderSourceOrderNumber: US,
        ReturnSourceNumber: "D5dRk5YhRRMA",
        Status: "Approved",
        SourceStatus: "Approved",
        DateRequested: "2026-02-25T10:00:00.000Z",
        RefundTotal: 0,
      });
      expect(ret.Items.map((i) => [i.OrderItemId, i.Sku, i.Quantity, i.QuantityReceived, i.Reason])).toEqual([
        [line["FIRE-TV-4K-2021"], "FIRE-TV-4K-2021", 1, 0, "DEFECTIVE"],
        [line["ECHO-DOT-4-CHARCOAL"], "ECHO-DOT-4-CHARCOAL", 2, 0, "NO_LONGER_NEEDED"],
      ]);
      const byId = await call("GET", `/v1/${token}/Returns/${ret.ReturnId}`);
      expect(byId.status).toBe(200);
      expect((JSON.parse(byId.text) as { Returns: WireReturn[] }).Returns).toEqual([ret]);

      const setAside = await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`);
      expect(setAside.status).toBe(200);
      const aside = (JSON.parse(setAside.text) as { SetAsideReturns: SetAsideReturn[] }).SetAsideReturns;
      expect(aside.map((a) => [a.ReturnSourceNumber, a.OrderSourceOrderNumber, a.Reason]).sort()).toEqual([
        [
          "DnotHeldRMA",
          "113-0000000-0000009",
          "order 113-0000000-0000009 is not held by the hub (not imported yet, or older than the source's first import); retry once it is",
        ],
        ["DwrongSkuRMA", US, `order ${US} as the hub holds it has no line of SKU KINDLE-PAPERWHITE`],
      ]);

      // A later report (the next window) has the same return received: updated, not duplicated.
      fake.returnsReport = report(
        ...["FIRE-TV-4K-2021", "ECHO-DOT-4-CHARCOAL", "ECHO-DOT-4-CHARCOAL"].map((sku) => ({
          "Order ID": US,
          "Return request date": "2026-02-25T10:00:00Z",
          "Return request status": "Received",
          "Amazon RMA ID": "D5dRk5YhRRMA",
          "Merchant SKU": sku,
          "Return quantity": "1",
        })),
      );
      ahead = 20 * 60_000;
      await fireCron(Date.now() + ahead);
      expect(fake.apiRequests("createReport")).toHaveLength(2);
      expect(await fake.finishReports("DONE")).toEqual(["70002"]);
      ahead = 40 * 60_000;
      await fireCron(Date.now() + ahead);
      const after = await listReturns(token);
      expect(after.map((r) => [r.ReturnId, r.Status, r.SourceStatus])).toEqual([[ret.ReturnId, "Received", "Received"]]);
      expect(after[0]!.Items.map((i) => [i.OrderItemId, i.Quantity])).toEqual([
        [line["FIRE-TV-4K-2021"], 1],
        [line["ECHO-DOT-4-CHARCOAL"], 2],
      ]);
      expect(await listReturns(token, "&status=RECEIVED")).toHaveLength(1);

      // The order of the set-aside return arrives (Amazon shows it changed): the operator's retry
      // maps the kept rows again and the return lands on that order's line.
      const late = structuredClone(fake.orders[0]!);
      late.orderId = "113-0000000-0000009";
      late.orderItems = late.orderItems.filter((i) => (i.product as { sellerSku: string }).sellerSku === "ECHO-DOT-4-CHARCOAL");
      late.orderItems[0]!.orderItemId = "11300000000091";
      late.lastUpdatedTime = new Date(Date.now() + ahead - 10 * 60_000).toISOString();
      fake.orders.push(late);
      ahead = 60 * 60_000;
      await fireCron(Date.now() + ahead);
      const lateOrder = (await listOrders(token)).find((o) => o.OrderSourceOrderNumber === "113-0000000-0000009")!;
      expect(lateOrder).toBeDefined();
      const retried = await admin("POST", `/stores/${storeId}/sources/${sourceId}/set-aside/retry`);
      expect(retried.status, retried.text).toBe(200);
      const now = await listReturns(token);
      expect(now.map((r) => r.ReturnSourceNumber).sort()).toEqual(["D5dRk5YhRRMA", "DnotHeldRMA"]);
      const held = now.find((r) => r.ReturnSourceNumber === "DnotHeldRMA")!;
      expect([held.OrderId, held.Status, held.Items.map((i) => [i.OrderItemId, i.Sku, i.Quantity])]).toEqual([
        lateOrder.OrderId,
        "Requested",
        [[lateOrder.OrderItems[0]!.OrderItemId, "ECHO-DOT-4-CHARCOAL", 1]],
      ]);
      const left = (JSON.parse((await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).text) as { SetAsideReturns: SetAsideReturn[] })
        .SetAsideReturns;
      expect(left.map((a) => a.ReturnSourceNumber)).toEqual(["DwrongSkuRMA"]);

      // Nothing of it goes back to Amazon: no delivery, no call but the reports'.
      expect(await deliveries(storeId, sourceId)).toEqual([]);
      expect(new Set(fake.apiRequests().map((r) => r.operationId))).toEqual(new Set(["searchOrders", "createReport", "getReport", "getReportDocument"]));
      expect(fake.violations).toEqual([]);
      expect(fake.throttled).toBe(0);
    },
  );
});
