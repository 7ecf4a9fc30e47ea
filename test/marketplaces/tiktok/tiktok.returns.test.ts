// TikTok Shop returns and refunds (decisions 13) call by call against the fake: returns come in
// through SearchReturns on the update_time window, page by page, TikTok's statuses mapped to
// section 13's states, unreadable ones set aside; the seller's approval and rejection (with a
// reason TikTok lists), the receipt of a returned package, and a refund (CreateReturn of type
// REFUND, or the decision that refunds a return) go out once each, whatever is repeated; a refund
// TikTok cannot express is NotApplicable with the reason; TikTok's refusals and a bad day are
// errors naming TikTok's code.
import { describe, expect, it } from "vitest";
import type { Connector, ImportedReturn, ImportWindow, ReturnPage, ReturnsImport } from "../../../src/marketplaces/connector";
import { rejection } from "../../helpers/rejection";
import { sampleReturn } from "./tiktok-orders";
import { HOUR, importedOrders, lineId, MINUTE, orderAt, orderId, returnDelivery, setup, START, WINDOW } from "./tiktok-setup";

const returnId = (n: number) => `4600000000000${String(n).padStart(5, "0")}`;
const returnLineId = (n: number, k: number) => `47${returnId(n).slice(2, 15)}${String(k).padStart(3, "0")}`;
const CREATED = new Date("2026-02-28T06:00:00.000Z");

function returnsOf(connector: Connector): ReturnsImport {
  const returns = connector.returns;
  if (!returns || "notApplicable" in returns) throw new Error("the connector imports no returns");
  return returns;
}

async function importReturns(connector: Connector, window: ImportWindow = WINDOW): Promise<ReturnPage[]> {
  const pages: ReturnPage[] = [];
  let cursor: string | null = null;
  do {
    const page: ReturnPage = await returnsOf(connector).fetchReturns(window, cursor);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 20) throw new Error("the import does not end");
  } while (cursor !== null);
  return pages;
}

/** Each of TikTok's return statuses, with the return type it goes with, and the state the hub shows. */
const STATUSES: [string, "REFUND" | "RETURN_AND_REFUND" | "REPLACEMENT", string][] = [
  ["RETURN_OR_REFUND_REQUEST_PENDING", "RETURN_AND_REFUND", "Requested"],
  ["AWAITING_BUYER_RESPONSE", "RETURN_AND_REFUND", "Requested"],
  ["REPLACEMENT_REQUEST_PENDING", "REPLACEMENT", "Requested"],
  ["AWAITING_BUYER_SHIP", "RETURN_AND_REFUND", "Approved"],
  ["BUYER_SHIPPED_ITEM", "RETURN_AND_REFUND", "Approved"],
  ["RETURN_OR_REFUND_REQUEST_SUCCESS", "REFUND", "Approved"],
  ["RETURN_OR_REFUND_REQUEST_SUCCESS", "RETURN_AND_REFUND", "Received"],
  ["RETURN_OR_REFUND_REQUEST_COMPLETE", "RETURN_AND_REFUND", "Refunded"],
  ["REPLACEMENT_REQUEST_REFUND_SUCCESS", "REPLACEMENT", "Refunded"],
  ["REFUND_OR_RETURN_REQUEST_REJECT", "RETURN_AND_REFUND", "Rejected"],
  ["REJECT_RECEIVE_PACKAGE", "RETURN_AND_REFUND", "Rejected"],
  ["REPLACEMENT_REQUEST_REJECT", "REPLACEMENT", "Rejected"],
  ["RETURN_OR_REFUND_REQUEST_CANCEL", "REFUND", "Closed"],
  ["REPLACEMENT_REQUEST_CANCEL", "REPLACEMENT", "Closed"],
  ["REPLACEMENT_REQUEST_COMPLETE", "REPLACEMENT", "Closed"],
];

describe("TikTok Shop returns in", () => {
  it("imports the window's returns page by page through SearchReturns, each TikTok status as section 13's state", async () => {
    const order = orderAt(1, {}, 2);
    const returns = Array.from({ length: 60 }, (_, i) => {
      const [status, type] = STATUSES[i % STATUSES.length]!;
      return sampleReturn({ id: returnId(i + 1), order, status, type, created: new Date(CREATED.getTime() + i * MINUTE) });
    });
    // Changed after the window's end: left for the next import.
    returns.push(sampleReturn({ id: returnId(99), order, created: new Date(START + MINUTE) }));
    const { fake, connector } = setup({ orders: [order], fake: { returns } });
    const pages = await importReturns(connector);
    expect(pages.map((p) => [p.returns.length, p.setAside.length])).toEqual([
      [50, 0],
      [10, 0],
    ]);
    const searches = fake.requestsOf("api", "SearchReturns");
    expect(searches.map((r) => [r.query.page_size, r.query.sort_field, r.query.sort_order, r.query.page_token ?? null, r.body])).toEqual([
      ["50", "update_time", "ASC", null, { update_time_ge: 1772236800, update_time_lt: 1772366400 }],
      ["50", "update_time", "ASC", searches[1]!.query.page_token, { update_time_ge: 1772236800, update_time_lt: 1772366400 }],
    ]);
    const all = pages.flatMap((p) => p.returns);
    expect(all.slice(0, STATUSES.length).map((r) => [r.sourceStatus, r.sourceData?.returnType, r.state])).toEqual(STATUSES);
    expect(all.some((r) => r.sourceReturnNumber === returnId(99))).toBe(false);

    const first: ImportedReturn = all[0]!;
    expect({ ...first, record: null }).toEqual({
      sourceReturnNumber: returnId(1),
      sourceOrderNumber: orderId(1),
      state: "Requested",
      sourceStatus: "RETURN_OR_REFUND_REQUEST_PENDING",
      requestedAt: CREATED,
      reason: "Item not as described",
      lines: [
        { sourceReturnLineId: returnLineId(1, 1), sourceLineId: lineId(1, 1), quantity: 1, reason: null },
        { sourceReturnLineId: returnLineId(1, 2), sourceLineId: lineId(1, 2), quantity: 1, reason: null },
      ],
      sourceData: { returnType: "RETURN_AND_REFUND" },
      record: null,
    });
    // A refunded return carries TikTok's refund under the return's id: each line's refund, no shipping.
    const refunded = all.find((r) => r.sourceStatus === "RETURN_OR_REFUND_REQUEST_COMPLETE")!;
    expect(refunded.refunds).toEqual([
      {
        sourceRefundId: refunded.sourceReturnNumber,
        createdAt: new Date(CREATED.getTime() + 7 * MINUTE),
        reason: "Item not as described",
        lines: [
          { sourceLineId: lineId(1, 1), quantity: 1, amount: 10.73 },
          { sourceLineId: lineId(1, 2), quantity: 1, amount: 10.73 },
        ],
        shippingAmount: 0,
        currency: "USD",
      },
    ]);
    expect(all.filter((r) => r.refunds !== undefined).map((r) => r.sourceStatus)).toEqual(
      all.filter((r) => ["RETURN_OR_REFUND_REQUEST_COMPLETE", "REPLACEMENT_REQUEST_REFUND_SUCCESS"].includes(r.sourceStatus)).map((r) => r.sourceStatus),
    );
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it("sets aside a return it cannot read (an unknown status, no order, a line naming no order line) with the reason, and remap reads it again", async () => {
    const order = orderAt(1, {}, 2);
    const unknown = sampleReturn({ id: returnId(1), order, status: "SOMETHING_NEW", created: CREATED });
    const orphan = { ...sampleReturn({ id: returnId(2), order, created: CREATED }), order_id: "" };
    const lineless = sampleReturn({ id: returnId(3), order, created: CREATED });
    delete lineless.return_line_items![1]!.order_line_item_id;
    const { connector } = setup({
      orders: [order],
      fake: { returns: [unknown, orphan, lineless, sampleReturn({ id: returnId(4), order, created: CREATED })] },
    });
    const [page] = await importReturns(connector);
    expect(page!.returns.map((r) => r.sourceReturnNumber)).toEqual([returnId(4)]);
    expect(page!.setAside.map((s) => [s.sourceReturnNumber, s.sourceOrderNumber, s.reason])).toEqual([
      [returnId(1), orderId(1), `TikTok return ${returnId(1)} has a return_status the connector does not know ("SOMETHING_NEW")`],
      [returnId(2), null, `TikTok return ${returnId(2)} names no order (order_id "")`],
      [returnId(3), orderId(1), `TikTok return ${returnId(3)} return line item #2 names no order line item`],
    ]);
    const record = structuredClone(page!.setAside[0]!.record) as { return_status: string };
    record.return_status = "AWAITING_BUYER_SHIP";
    const again = returnsOf(connector).remap(record);
    expect("lines" in again && [again.sourceReturnNumber, again.state]).toEqual([returnId(1), "Approved"]);
    expect(returnsOf(connector).remap(page!.setAside[1]!.record)).toEqual({
      sourceReturnNumber: returnId(2),
      sourceOrderNumber: null,
      reason: `TikTok return ${returnId(2)} names no order (order_id "")`,
      record: page!.setAside[1]!.record,
    });
  });

  it("fails a search TikTok throttles or refuses (a code inside a 200) with TikTok's code, importing nothing", async () => {
    const order = orderAt(1);
    const { fake, connector } = setup({ orders: [order], fake: { returns: [sampleReturn({ id: returnId(1), order, created: CREATED })] } });
    fake.failNext({ status: 429, headers: { "Retry-After": "45" }, operation: "SearchReturns" });
    const throttled = await rejection(returnsOf(connector).fetchReturns(WINDOW, null));
    expect([throttled.status, throttled.retryable, throttled.retryAfterMs]).toEqual([429, true, 45_000]);
    fake.failNext({ status: 200, body: { code: 36009003, message: "Internal error.", request_id: "R9", data: null }, operation: "SearchReturns" });
    const inside = await rejection(returnsOf(connector).fetchReturns(WINDOW, null));
    expect([inside.retryable, inside.message]).toEqual([true, "TikTok 36009003 on SearchReturns: Internal error. (request_id R9)"]);
    fake.failNext({ status: 200, body: { code: 0, message: "Success", request_id: "R10", data: { return_orders: "none" } }, operation: "SearchReturns" });
    const nonsense = await rejection(returnsOf(connector).fetchReturns(WINDOW, null));
    expect([nonsense.retryable, nonsense.message]).toEqual([true, "TikTok SearchReturns answer's return_orders is not a list"]);
    expect((await importReturns(connector))[0]!.returns.map((r) => r.sourceReturnNumber)).toEqual([returnId(1)]);
  });
});

describe("TikTok Shop return decisions", () => {
  function scene(statuses: [string, "REFUND" | "RETURN_AND_REFUND" | "REPLACEMENT"][]) {
    const order = orderAt(1, {}, 2);
    const returns = statuses.map(([status, type], i) => sampleReturn({ id: returnId(i + 1), order, status, type, created: CREATED }));
    return { ...setup({ orders: [order], fake: { returns } }), order };
  }
  const theReturn = (n: number) => ({ sourceReturnNumber: returnId(n), sourceData: {} });

  it("approves a pending return with the decision its type takes, with the delivery's idempotency key, once", async () => {
    const { fake, connector } = scene([
      ["RETURN_OR_REFUND_REQUEST_PENDING", "RETURN_AND_REFUND"],
      ["RETURN_OR_REFUND_REQUEST_PENDING", "REFUND"],
      ["RETURN_OR_REFUND_REQUEST_CANCEL", "RETURN_AND_REFUND"],
    ]);
    const order = (await importedOrders(connector)).get(orderId(1))!;
    const approve = returnDelivery("approveReturn", order, { return: theReturn(1), reason: null });
    expect(await connector.decideReturn!(approve)).toEqual({ state: "delivered", reference: returnId(1), warning: null });
    expect(fake.requestsOf("api", "ApproveReturn").map((r) => [r.path, r.query.idempotency_key, r.body])).toEqual([
      [`/return_refund/202309/returns/${returnId(1)}/approve`, approve.idempotencyKey, { decision: "APPROVE_RETURN" }],
    ]);
    expect(fake.returns.get(returnId(1))!.return_status).toBe("AWAITING_BUYER_SHIP");
    // Again (the answer lost): TikTok shows it approved, nothing is sent.
    expect(await connector.decideReturn!(approve)).toEqual({
      state: "delivered",
      reference: returnId(1),
      warning: "TikTok shows the return approved already (AWAITING_BUYER_SHIP); nothing sent",
    });
    await connector.decideReturn!(returnDelivery("approveReturn", order, { return: theReturn(2), reason: null }));
    expect(fake.returned.map((c) => [c.returnId, c.detail])).toEqual([
      [returnId(1), "APPROVE_RETURN"],
      [returnId(2), "APPROVE_REFUND"],
    ]);
    expect(fake.returns.get(returnId(2))!.return_status).toBe("RETURN_OR_REFUND_REQUEST_COMPLETE");
    const closed = await rejection(connector.decideReturn!(returnDelivery("approveReturn", order, { return: theReturn(3), reason: null })));
    expect([closed.retryable, closed.message]).toEqual([
      false,
      `TikTok return ${returnId(3)}: the return is RETURN_OR_REFUND_REQUEST_CANCEL on TikTok: the seller has nothing to approve`,
    ]);
    const stranger = await rejection(connector.decideReturn!(returnDelivery("approveReturn", order, { return: theReturn(7), reason: null })));
    expect(stranger.message).toBe(`TikTok SearchReturns does not know return ${returnId(7)} in this shop`);
    expect(fake.requestsOf("api", "ApproveReturn")).toHaveLength(2);
    expect([fake.violations, fake.refusals]).toEqual([[], []]);
  });

  it(
    "rejects with the reason TikTok lists that the hub's reason names (ignoring case), the package once the buyer shipped it; another reason is refused " +
      "before anything is sent",
    async () => {
      const { fake, connector } = scene([
        ["RETURN_OR_REFUND_REQUEST_PENDING", "RETURN_AND_REFUND"],
        ["BUYER_SHIPPED_ITEM", "RETURN_AND_REFUND"],
        ["RETURN_OR_REFUND_REQUEST_PENDING", "REFUND"],
      ]);
      const order = (await importedOrders(connector)).get(orderId(1))!;
      const reject = returnDelivery("rejectReturn", order, { return: theReturn(1), reason: "request is PAST the return window" });
      expect(await connector.decideReturn!(reject)).toEqual({ state: "delivered", reference: returnId(1), warning: null });
      expect(fake.requestsOf("api", "GetRejectReasons").map((r) => r.query.return_or_cancel_id)).toEqual([returnId(1)]);
      expect(fake.requestsOf("api", "RejectReturn").map((r) => [r.path, r.query.idempotency_key, r.body])).toEqual([
        [
          `/return_refund/202309/returns/${returnId(1)}/reject`,
          reject.idempotencyKey,
          { decision: "REJECT_RETURN", reject_reason: "reverse_reject_request_reason_3", comment: "request is PAST the return window" },
        ],
      ]);
      expect(await connector.decideReturn!(reject)).toEqual({
        state: "delivered",
        reference: returnId(1),
        warning: "TikTok shows the return rejected already (REFUND_OR_RETURN_REQUEST_REJECT); nothing sent",
      });

      await connector.decideReturn!(returnDelivery("rejectReturn", order, { return: theReturn(2), reason: "Returned item is damaged" }));
      expect(fake.returns.get(returnId(2))!.return_status).toBe("REJECT_RECEIVE_PACKAGE");
      const other = await rejection(connector.decideReturn!(returnDelivery("rejectReturn", order, { return: theReturn(3), reason: "I changed my mind" })));
      expect([other.retryable, other.message]).toEqual([
        false,
        `TikTok rejects return ${returnId(3)} only with one of its reasons ("Buyer has not returned the item", "Returned item is damaged", "Request is past ` +
          `the return window"); "I changed my mind" is none of them`,
      ]);
      const none = await rejection(connector.decideReturn!(returnDelivery("rejectReturn", order, { return: theReturn(3), reason: null })));
      expect(none.message.endsWith("; no reason was given")).toBe(true);
      expect(fake.returned.map((c) => [c.returnId, c.detail])).toEqual([
        [returnId(1), "REJECT_RETURN reverse_reject_request_reason_3"],
        [returnId(2), "REJECT_RECEIVED_PACKAGE reverse_reject_request_reason_2"],
      ]);
      expect([fake.violations, fake.refusals]).toEqual([[], []]);
    },
  );

  it(
    "records a returned package received (APPROVE_RECEIVED_PACKAGE) only whole; a part, or a refund without goods, is NotApplicable; a package not " +
      "shipped yet is tried again",
    async () => {
      const { fake, connector } = scene([
        ["BUYER_SHIPPED_ITEM", "RETURN_AND_REFUND"],
        ["AWAITING_BUYER_SHIP", "RETURN_AND_REFUND"],
        ["RETURN_OR_REFUND_REQUEST_PENDING", "REFUND"],
      ]);
      const order = (await importedOrders(connector)).get(orderId(1))!;
      const lines = (n: number, ks: number[]) => ks.map((k) => ({ sourceReturnLineId: returnLineId(n, k), sourceLineId: lineId(1, k), quantity: 1 }));
      const part = await connector.receiveReturn!(returnDelivery("receiveReturn", order, { return: theReturn(1), lines: lines(1, [1]), restock: true }));
      expect(part).toEqual({
        state: "notApplicable",
        reason:
          `TikTok approves a returned package as a whole (APPROVE_RECEIVED_PACKAGE), which refunds it; return line items ${returnLineId(1, 2)} are not ` +
          `received yet`,
      });
      const whole = returnDelivery("receiveReturn", order, { return: theReturn(1), lines: lines(1, [1, 2]), restock: true });
      expect(await connector.receiveReturn!(whole)).toEqual({ state: "delivered", reference: returnId(1), warning: null });
      expect(fake.requestsOf("api", "ApproveReturn").map((r) => [r.query.idempotency_key, r.body])).toEqual([
        [whole.idempotencyKey, { decision: "APPROVE_RECEIVED_PACKAGE" }],
      ]);
      expect(fake.returns.get(returnId(1))!.return_status).toBe("RETURN_OR_REFUND_REQUEST_COMPLETE");
      expect(await connector.receiveReturn!(whole)).toEqual({
        state: "delivered",
        reference: returnId(1),
        warning: "TikTok shows the package approved already (RETURN_OR_REFUND_REQUEST_COMPLETE); nothing sent",
      });

      const early = await rejection(
        connector.receiveReturn!(returnDelivery("receiveReturn", order, { return: theReturn(2), lines: lines(2, [1, 2]), restock: false })),
      );
      expect([early.retryable, early.message]).toEqual([
        true,
        `TikTok return ${returnId(2)}: TikTok does not show the buyer's return shipment yet (AWAITING_BUYER_SHIP); tried again later`,
      ]);
      expect(await connector.receiveReturn!(returnDelivery("receiveReturn", order, { return: theReturn(3), lines: lines(3, [1, 2]), restock: false }))).toEqual(
        {
          state: "notApplicable",
          reason: "TikTok's REFUND return sends nothing back to the seller: there is no receipt to record on TikTok",
        },
      );
      expect(fake.requestsOf("api", "ApproveReturn")).toHaveLength(1);
    },
  );
});

describe("TikTok Shop refunds out", () => {
  it(
    "refunds line items with CreateReturn (REFUND) once whatever is repeated, and the next import shows the refund under the reference it " + "answered",
    async () => {
      const { fake, connector, advance } = setup({ orders: [orderAt(1, {}, 2)] });
      const order = (await importedOrders(connector)).get(orderId(1))!;
      const refund = returnDelivery("refund", order, {
        lines: [{ sourceLineId: lineId(1, 2), sku: "SKU-1-2", quantity: 1, amount: 10.73 }],
        shippingAmount: 4.99,
        total: 15.72,
        currency: "USD",
        reason: "Damaged in transit",
        return: null,
      });
      advance(HOUR);
      fake.loseNextAnswer("CreateReturn");
      const lost = await rejection(connector.refund!(refund));
      expect(lost.retryable).toBe(true);
      expect(await connector.refund!(refund)).toEqual({ state: "delivered", reference: "460000000000000001", warning: null });
      const sent = fake.requestsOf("api", "CreateReturn");
      expect(sent.map((r) => [r.query.idempotency_key, r.body])).toEqual([
        [
          refund.idempotencyKey,
          {
            order_id: orderId(1),
            order_line_item_ids: [lineId(1, 2)],
            return_type: "REFUND",
            refund_total: "15.72",
            return_reason: "Damaged in transit",
            currency: "USD",
          },
        ],
        [
          refund.idempotencyKey,
          {
            order_id: orderId(1),
            order_line_item_ids: [lineId(1, 2)],
            return_type: "REFUND",
            refund_total: "15.72",
            return_reason: "Damaged in transit",
            currency: "USD",
          },
        ],
      ]);
      expect(fake.returned.map((c) => c.detail)).toEqual([`${orderId(1)}: ${lineId(1, 2)} 15.72`]);

      advance(HOUR);
      const [page] = await importReturns(connector, { since: new Date(START), until: new Date(START + 2 * HOUR) });
      expect(page!.returns.map((r) => [r.sourceReturnNumber, r.state, r.refunds?.map((f) => [f.sourceRefundId, f.lines, f.shippingAmount])])).toEqual([
        ["460000000000000001", "Refunded", [["460000000000000001", [{ sourceLineId: lineId(1, 2), quantity: 1, amount: 10.73 }], 4.99]]],
      ]);
      expect([fake.violations, fake.refusals]).toEqual([[], []]);
    },
  );

  it(
    "refunds a return by the decision that makes TikTok refund it, saying when TikTok's amount is not the one asked; shipping alone is NotApplicable; " +
      "TikTok's refusal names its code",
    async () => {
      const order = orderAt(1, {}, 2);
      const returns = [
        sampleReturn({ id: returnId(1), order, type: "REFUND", created: CREATED }),
        sampleReturn({ id: returnId(2), order, type: "RETURN_AND_REFUND", status: "AWAITING_BUYER_SHIP", created: CREATED }),
      ];
      const { fake, connector } = setup({ orders: [order, orderAt(2)], fake: { returns } });
      const orders = await importedOrders(connector);
      const imported = orders.get(orderId(1))!;
      const settle = returnDelivery("refund", imported, {
        lines: [{ sourceLineId: lineId(1, 1), sku: "SKU-1-1", quantity: 1, amount: 10.73 }],
        shippingAmount: 0,
        total: 10.73,
        currency: "USD",
        reason: "Item not as described",
        return: { sourceReturnNumber: returnId(1), sourceData: { returnType: "REFUND" } },
      });
      expect(await connector.refund!(settle)).toEqual({
        state: "delivered",
        reference: returnId(1),
        warning: "TikTok refunds the return's own amount (21.46 USD), not the 10.73 asked",
      });
      expect(fake.requestsOf("api", "ApproveReturn").map((r) => r.body)).toEqual([{ decision: "APPROVE_REFUND" }]);
      const waiting = await rejection(connector.refund!({ ...settle, return: { sourceReturnNumber: returnId(2), sourceData: {} } }));
      expect(waiting.message).toBe(
        `TikTok return ${returnId(2)}: the return is AWAITING_BUYER_SHIP (RETURN_AND_REFUND) on TikTok: TikTok refunds it only once the seller approves the ` +
          `refund or the returned package`,
      );

      const shippingOnly = returnDelivery("refund", orders.get(orderId(2))!, {
        lines: [],
        shippingAmount: 4.99,
        total: 4.99,
        currency: "USD",
        reason: "Late",
        return: null,
      });
      expect(await connector.refund!(shippingOnly)).toEqual({
        state: "notApplicable",
        reason: "TikTok's CreateReturn refunds order line items: a refund of the shipping alone names none (refund it in Seller Center)",
      });
      const tooMuch = returnDelivery("refund", orders.get(orderId(2))!, {
        lines: [{ sourceLineId: lineId(2, 1), sku: "SKU-2-1", quantity: 1, amount: 30 }],
        shippingAmount: 0,
        total: 30,
        currency: "USD",
        reason: "Goodwill",
        return: null,
      });
      const refused = await rejection(connector.refund!(tooMuch));
      expect([refused.retryable, refused.message.replace(/ \(request_id \w+\)/, "")]).toEqual([
        false,
        "TikTok 25011005 on CreateReturn: refund_total 30.00 exceeds the refundable amount 15.72.",
      ]);
      expect(fake.violations).toEqual([]);
    },
  );
});
