// Walmart returns in (GET /v3/returns) and refunds out (POST /v3/returns/{id}/refund), called on
// the connector directly against the fake, which checks every request against Walmart's Returns
// Management description (walmart-returns.json).
import { describe, expect, it } from "vitest";
import {
  MarketplaceError,
  type ImportedReturn,
  type RefundDelivery,
  type ReturnPage,
  type ReturnsImport,
  type SetAsideReturn,
} from "../../../src/marketplaces/connector";
import { createWalmartConnector } from "../../../src/marketplaces/walmart/walmart.connector";
import type { WalmartReturnLine, WalmartReturnOrder } from "../../../src/marketplaces/walmart/walmart.types";
import { rejection } from "../../helpers/rejection";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET } from "./walmart-fake";
import { DOCUMENTED_RETURN } from "./walmart-returns-fake";

const START = Date.parse("2026-03-01T12:00:00Z");
const WINDOW = { since: new Date("2026-02-28T00:00:00Z"), until: new Date("2026-03-01T11:58:00Z") };
const INSIDE = new Date("2026-03-01T08:00:00Z");

function setup() {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createWalmartFake({ now });
  const connector = createWalmartConnector({
    sourceId: "source-1",
    settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
    fetch: fake.fetch,
    now,
  });
  const returns = connector.returns as ReturnsImport;
  return { fake, connector, returns, advance: (ms: number) => (nowMs += ms) };
}

/** A line as the description's example has it, with its own numbers, status and refund. */
function line(n: number, poLine: number, status: string, opts: Partial<WalmartReturnLine> = {}): WalmartReturnLine {
  const documented = DOCUMENTED_RETURN.returnOrderLines![0]!;
  return {
    ...structuredClone(documented),
    returnOrderLineNumber: n,
    purchaseOrderLineNumber: poLine,
    purchaseOrderId: "PO-1",
    status,
    refundedQty: 0,
    currentRefundStatus: "NOT_REFUNDED",
    quantity: { unitOfMeasure: "EACH", measurementValue: 1 },
    ...opts,
  };
}

function ret(id: string, lines: WalmartReturnLine[], customerOrderId = "CO-1"): WalmartReturnOrder {
  return { ...structuredClone(DOCUMENTED_RETURN), returnOrderId: id, customerOrderId, returnOrderDate: "2026-02-27T10:00:00.000Z", returnOrderLines: lines };
}

async function importAll(returns: ReturnsImport): Promise<ReturnPage[]> {
  const pages: ReturnPage[] = [];
  let cursor: string | null = null;
  do {
    const page: ReturnPage = await returns.fetchReturns(WINDOW, cursor);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 10) throw new Error("the import does not end");
  } while (cursor !== null);
  return pages;
}

function refundOf(r: ImportedReturn, lines: { sourceLineId: string; quantity: number; amount: number }[], opts: Partial<RefundDelivery> = {}): RefundDelivery {
  return {
    id: 7,
    idempotencyKey: "source-1-7",
    kind: "refund",
    order: { sourceOrderNumber: r.sourceOrderNumber, sourceCustomerOrderNumber: "CO-1", sellerOrderNumber: null, sourceData: {}, lines: [] },
    earlier: [],
    lines: lines.map((l) => ({ ...l, sku: "ANTL_GDL-0700" })),
    shippingAmount: 0,
    total: lines.reduce((n, l) => n + l.amount, 0),
    currency: "USD",
    reason: "Customer returned item",
    return: { sourceReturnNumber: r.sourceReturnNumber, sourceData: r.sourceData ?? {} },
    ...opts,
  };
}

describe("Walmart returns in", () => {
  it("reads the description's own example: one line, COMPLETED and refundedQty 1, a Refunded return with its refund", async () => {
    const { fake, returns } = setup();
    fake.returns.put(DOCUMENTED_RETURN, INSIDE);
    const [page] = await importAll(returns);
    expect(page!.setAside).toEqual([]);
    expect(page!.returns).toHaveLength(1);
    const r = page!.returns[0]!;
    expect(r.sourceReturnNumber).toBe("103738048909818825");
    expect(r.sourceOrderNumber).toBe("4790210558890");
    expect(r.state).toBe("Refunded");
    expect(r.sourceStatus).toBe("COMPLETED");
    expect(r.requestedAt.toISOString()).toBe("2019-02-21T01:01:08.000Z");
    expect(r.reason).toBe("ARRIVED_LATE");
    expect(r.lines).toEqual([{ sourceReturnLineId: "1", sourceLineId: "1", quantity: 1, reason: "ARRIVED_LATE" }]);
    // 119.95 item + 7.50 tax per unit, one unit: the example's lineTotal and totalRefundAmount.
    expect(r.refunds).toEqual([
      {
        sourceRefundId: "103738048909818825:1",
        createdAt: new Date("2019-03-02T05:45:45.000Z"),
        reason: "ARRIVED_LATE",
        lines: [{ sourceLineId: "1", quantity: 1, amount: 127.45 }],
        shippingAmount: 0,
        currency: "USD",
      },
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("asks for the window by last change, 200 a page, and follows nextCursor as it is until the last page", async () => {
    const { fake, returns } = setup();
    for (let i = 0; i < 201; i++) fake.returns.put(ret(`R-${1000 + i}`, [line(1, 1, "INITIATED")]), new Date(INSIDE.getTime() + i * 1000));
    fake.returns.put(ret("R-OLD", [line(1, 1, "INITIATED")]), new Date("2026-02-20T00:00:00Z"));
    fake.returns.put(ret("R-LATER", [line(1, 1, "INITIATED")]), new Date("2026-03-01T11:59:00Z"));
    const pages = await importAll(returns);
    expect(pages.map((p) => p.returns.length)).toEqual([200, 1]);
    const numbers = pages.flatMap((p) => p.returns.map((r) => r.sourceReturnNumber));
    expect(new Set(numbers).size).toBe(201);
    expect(numbers).not.toContain("R-OLD");
    expect(numbers).not.toContain("R-LATER");
    const lists = fake.apiRequests().filter((r) => r.operationId === "getReturns");
    expect(lists).toHaveLength(2);
    expect(lists[0]!.query).toEqual({
      returnLastModifiedStartDate: "2026-02-28T00:00:00.000Z",
      returnLastModifiedEndDate: "2026-03-01T11:58:00.000Z",
      limit: "200",
    });
    expect(lists[1]!.query.offset).toBe("200");
    expect(lists[1]!.rawQuery).toBe(pages[0]!.nextCursor);
    expect(fake.violations).toEqual([]);
  });

  it("maps each line status to section 13's states, the least advanced line giving the return's", async () => {
    const { fake, returns } = setup();
    const cases: [string, WalmartReturnLine[], string][] = [
      ["R-INIT", [line(1, 1, "INITIATED")], "Approved"],
      ["R-DELIV", [line(1, 1, "DELIVERED")], "Received"],
      ["R-DONE", [line(1, 1, "COMPLETED")], "Closed"],
      ["R-PAID", [line(1, 1, "COMPLETED", { refundedQty: 1 })], "Refunded"],
      ["R-KEEP", [line(1, 1, "INITIATED", { refundedQty: 1, currentRefundStatus: "REFUNDED" })], "Refunded"],
      ["R-MIXED", [line(1, 1, "DELIVERED"), line(2, 2, "INITIATED")], "Approved"],
      ["R-HALF", [line(1, 1, "DELIVERED", { quantity: { unitOfMeasure: "EACH", measurementValue: 3 }, refundedQty: 1 })], "Received"],
    ];
    cases.forEach(([id, lines], i) => fake.returns.put(ret(id, lines), new Date(INSIDE.getTime() + i)));
    const [page] = await importAll(returns);
    expect(Object.fromEntries(page!.returns.map((r) => [r.sourceReturnNumber, r.state]))).toEqual(
      Object.fromEntries(cases.map(([id, , state]) => [id, state])),
    );
    expect(page!.returns.find((r) => r.sourceReturnNumber === "R-MIXED")!.sourceStatus).toBe("DELIVERED/INITIATED");
    // A part refunded: the units refunded so far, at the unit's amount.
    expect(page!.returns.find((r) => r.sourceReturnNumber === "R-HALF")!.refunds![0]!.lines).toEqual([{ sourceLineId: "1", quantity: 1, amount: 127.45 }]);
  });

  it("sets aside what it cannot map, with the reason, and imports the rest of the page", async () => {
    const { fake, returns } = setup();
    fake.returns.put(ret("R-GOOD", [line(1, 1, "INITIATED")]), INSIDE);
    fake.returns.put(ret("R-ODD", [line(1, 1, "LOST_IN_SPACE")]), new Date(INSIDE.getTime() + 1));
    fake.returns.put(ret("R-TWO", [line(1, 1, "INITIATED"), line(2, 1, "INITIATED", { purchaseOrderId: "PO-2" })]), new Date(INSIDE.getTime() + 2));
    fake.returns.put(ret("R-FRAC", [line(1, 1, "INITIATED", { quantity: { unitOfMeasure: "EACH", measurementValue: 1.5 } })]), new Date(INSIDE.getTime() + 3));
    const [page] = await importAll(returns);
    expect(page!.returns.map((r) => r.sourceReturnNumber)).toEqual(["R-GOOD"]);
    const reasons = Object.fromEntries(page!.setAside.map((s) => [s.sourceReturnNumber, [s.sourceOrderNumber, s.reason]]));
    expect(reasons).toEqual({
      "R-ODD": ["PO-1", 'Walmart return R-ODD line 1 has status "LOST_IN_SPACE", not one the description lists (INITIATED, DELIVERED, COMPLETED)'],
      "R-TWO": ["PO-1", "Walmart return R-TWO returns lines of purchase orders PO-1 and PO-2; the hub keeps one order per return"],
      "R-FRAC": ["PO-1", "Walmart return R-FRAC line 1 quantity is 1.5, not a whole number"],
    });
    // The operator's retry reads the kept record the same way.
    const again = returns.remap(page!.setAside.find((s) => s.sourceReturnNumber === "R-ODD")!.record) as SetAsideReturn;
    expect(again.reason).toContain("LOST_IN_SPACE");
    const good = returns.remap(page!.returns[0]!.record) as ImportedReturn;
    expect(good.state).toBe("Approved");
  });

  it("reads Walmart's 404 CONTENT_NOT_FOUND as an empty page", async () => {
    const { fake, returns } = setup();
    const page = await returns.fetchReturns(WINDOW, null);
    expect(page).toEqual({ returns: [], setAside: [], nextCursor: null });
    expect(fake.apiRequests().map((r) => r.status)).toEqual([404]);
  });
});

describe("Walmart refunds out", () => {
  async function imported(fake: ReturnType<typeof setup>["fake"], returns: ReturnsImport, id: string): Promise<ImportedReturn> {
    const page = await returns.fetchReturns(WINDOW, null);
    return page.returns.find((r) => r.sourceReturnNumber === id)!;
  }

  it(
    "refunds the return lines of the order lines asked, once; a repeat sends nothing and answers the same reference, which the next import " + "reports",
    async () => {
      const { fake, connector, returns, advance } = setup();
      fake.returns.put(ret("R-7", [line(1, 3, "DELIVERED"), line(2, 5, "DELIVERED")]), INSIDE);
      const r = await imported(fake, returns, "R-7");
      expect(r.sourceData).toEqual({ customerOrderId: "CO-1", lines: "1=3,2=5" });
      advance(60_000);
      const delivery = refundOf(r, [
        { sourceLineId: "3", quantity: 1, amount: 127.45 },
        { sourceLineId: "5", quantity: 1, amount: 127.45 },
      ]);
      const outcome = await connector.refund!(delivery);
      expect(outcome).toEqual({ state: "delivered", reference: "R-7:1,2", warning: null });
      const posts = fake.requests.filter((q) => q.operationId === "issueRefund");
      expect(posts).toHaveLength(1);
      expect(posts[0]!.path).toBe("/v3/returns/R-7/refund");
      expect(JSON.parse(posts[0]!.rawBody)).toEqual({ customerOrderId: "CO-1", refundLines: [{ returnOrderLineNumber: 1 }, { returnOrderLineNumber: 2 }] });

      // The same delivery again (a retry after a lost answer): Walmart shows both lines refunded.
      const repeat = await connector.refund!(delivery);
      expect(repeat).toEqual({ state: "delivered", reference: "R-7:1,2", warning: null });
      expect(fake.requests.filter((q) => q.operationId === "issueRefund")).toHaveLength(1);
      expect(fake.returns.refunds).toEqual([{ returnOrderId: "R-7", lines: [1, 2] }]);

      const later = await returns.fetchReturns({ since: WINDOW.since, until: new Date(START + 120_000) }, null);
      const after = later.returns.find((x) => x.sourceReturnNumber === "R-7")!;
      expect(after.state).toBe("Refunded");
      expect(after.refunds!.map((f) => [f.sourceRefundId, f.lines])).toEqual([
        [
          "R-7:1,2",
          [
            { sourceLineId: "3", quantity: 1, amount: 127.45 },
            { sourceLineId: "5", quantity: 1, amount: 127.45 },
          ],
        ],
      ]);
      expect(fake.violations).toEqual([]);
    },
  );

  it(
    "says what Walmart does not take: a partial quantity and a shipping amount are warned about, lines outside the return refused, a refund without a " +
      "return NotApplicable",
    async () => {
      const { fake, connector, returns } = setup();
      fake.returns.put(ret("R-8", [line(1, 3, "DELIVERED", { quantity: { unitOfMeasure: "EACH", measurementValue: 2 } })]), INSIDE);
      const r = await imported(fake, returns, "R-8");

      const outside = await rejection(connector.refund!(refundOf(r, [{ sourceLineId: "9", quantity: 1, amount: 10 }])));
      expect(outside).toBeInstanceOf(MarketplaceError);
      expect((outside as MarketplaceError).retryable).toBe(false);
      expect((outside as Error).message).toBe("Walmart cannot refund order line 9 through return R-8: the return does not take it back");

      const noReturn = await connector.refund!(refundOf(r, [{ sourceLineId: "3", quantity: 1, amount: 10 }], { return: null }));
      expect(noReturn.state).toBe("notApplicable");
      expect((noReturn as { reason: string }).reason).toContain("naming no Walmart return");
      expect(fake.requests.filter((q) => q.operationId === "issueRefund")).toHaveLength(0);

      const partial = await connector.refund!(refundOf(r, [{ sourceLineId: "3", quantity: 1, amount: 127.45 }], { shippingAmount: 4.5 }));
      expect(partial).toEqual({
        state: "delivered",
        reference: "R-8:1",
        warning: "line 3: Walmart refunds the return line whole (2 units, 1 asked); shipping 4.50: Walmart computes the return's refund itself",
      });
      expect(fake.returns.get("R-8")!.returnOrderLines![0]!.refundedQty).toBe(2);
      expect(fake.violations).toEqual([]);
    },
  );
});

describe("Walmart returns on a bad day", () => {
  it("hands a 429's Retry-After to the core, and a 5xx as retryable, on the list and on the refund", async () => {
    const { fake, connector, returns } = setup();
    fake.returns.put(ret("R-9", [line(1, 1, "DELIVERED")]), INSIDE);
    fake.failNext({ status: 429, headers: { "Retry-After": "60" }, operation: "getReturns" });
    const throttled = (await rejection(returns.fetchReturns(WINDOW, null))) as MarketplaceError;
    expect(throttled).toBeInstanceOf(MarketplaceError);
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 60_000]);

    const r = (await returns.fetchReturns(WINDOW, null)).returns[0]!;
    fake.failNext({ status: 503, operation: "issueRefund" });
    const down = (await rejection(connector.refund!(refundOf(r, [{ sourceLineId: "1", quantity: 1, amount: 127.45 }])))) as MarketplaceError;
    expect([down.status, down.retryable]).toEqual([503, true]);
    expect(fake.returns.refunds).toEqual([]);
    // The core's retry goes through.
    const retried = await connector.refund!(refundOf(r, [{ sourceLineId: "1", quantity: 1, amount: 127.45 }]));
    expect(retried.state).toBe("delivered");
    expect(fake.returns.refunds).toEqual([{ returnOrderId: "R-9", lines: [1] }]);
  });

  it("answers nonsense with a retryable error and odd records with set-aside returns, never a throw of its own", async () => {
    const { fake, returns } = setup();
    fake.failNext({ status: 200, body: { returnOrders: "none today" }, operation: "getReturns" });
    const nonsense = (await rejection(returns.fetchReturns(WINDOW, null))) as MarketplaceError;
    expect(nonsense).toBeInstanceOf(MarketplaceError);
    expect(nonsense.message).toBe("Walmart GET /v3/returns answer has no returnOrders list");
    expect(nonsense.retryable).toBe(true);

    fake.failNext({ status: 200, body: "<html>maintenance</html>", operation: "getReturns" });
    const html = (await rejection(returns.fetchReturns(WINDOW, null))) as MarketplaceError;
    expect(html).toBeInstanceOf(MarketplaceError);

    fake.failNext({
      status: 200,
      body: { meta: { nextCursor: "" }, returnOrders: [42, null, { returnOrderId: "R-X", returnOrderLines: "lines" }] },
      operation: "getReturns",
    });
    const page = await returns.fetchReturns(WINDOW, null);
    expect(page.returns).toEqual([]);
    expect(page.setAside.map((s) => [s.sourceReturnNumber, s.reason])).toEqual([
      ["", "Walmart sent a return without returnOrderId"],
      ["", "Walmart sent a return without returnOrderId"],
      ["R-X", "Walmart return R-X has no return lines"],
    ]);
    expect(page.nextCursor).toBeNull();
  });
});
