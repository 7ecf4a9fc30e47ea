// The console's Returns tab and the order page's refunds through whole requests in workerd (signed
// in, each form with its CSRF token): the list with its status filter, a return's lines, Receive
// with Restock (the stock the admin API then answers), the order page's refund form and the
// refunds it lists, the overview's open returns, and bad input shown at the form with nothing
// stored. The HTML is read with workerd's HTMLRewriter (./helpers.ts).
import { describe, expect, it } from "vitest";
import type { WireReturn } from "../../src/returns/returns.wire";
import { ALL_SCOPES, call, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, HOUR, simulatedWindow } from "../helpers/sync";
import { putStock, quantityOf } from "../stock/helpers";
import { collect, definitionLists, send, signIn, tableRows } from "./helpers";

const SCOPES = [...ALL_SCOPES, "ReturnsRead", "ReturnsUpdate"];

/** A store whose simulated marketplace sent 8 orders 8 hours ago, 2 of them coming back (Requested). */
async function storeWithReturns() {
  const { storeId, token } = await storeWithToken({ scopes: SCOPES });
  const sourceId = await createSource(storeId, { Settings: { ...simulatedWindow(8, 8 * HOUR), returnsEvery: 4 } });
  await cycleAt(sourceId, Date.now());
  const res = await call("GET", `/v1/${token}/Returns?fromDate=2000-01-01&toDate=2100-01-01&page=1&pageSize=100`);
  const returns = JSON.parse(res.text).Returns as WireReturn[];
  expect(returns).toHaveLength(2);
  return { storeId, token, returns };
}

describe("the console's Returns tab", () => {
  it("lists the returns with a status filter, shows one with its lines, and receives it with Restock", async () => {
    const { storeId, returns } = await storeWithReturns();
    const { cookie, csrf } = await signIn();
    const base = `/console/stores/${storeId}/returns`;
    const list = await send("GET", base, { cookie });
    expect(list.status).toBe(200);
    const rows = await tableRows(list.text, "table");
    expect(rows.map((r) => r[0]).sort()).toEqual(returns.map((r) => r.ReturnId).sort());
    expect(rows.every((r) => r[4] === "Requested")).toBe(true);
    expect(await collect(list.text, 'nav.tabs a[aria-current="page"]')).toEqual(["Returns"]);
    const received = await send("GET", `${base}?status=Received`, { cookie });
    expect(await tableRows(received.text, "table")).toEqual([]);
    expect(await collect(received.text, "p.empty")).toEqual(["Returns, page 1: no return matches."]);

    const ret = returns[0]!;
    const item = ret.Items[0]!;
    await putStock(storeId, [{ Sku: item.Sku, Quantity: 4 }]);
    const page = await send("GET", `${base}/${ret.ReturnId}`, { cookie });
    expect(page.status).toBe(200);
    expect((await definitionLists(page.text, "dl.facts"))[0]).toMatchObject({
      Status: "Requested (marketplace: REQUESTED)",
      "Marketplace return": ret.ReturnSourceNumber,
    });
    expect((await tableRows(page.text, "table"))[0]).toEqual([item.OrderItemId, item.Sku, "1", "0", "0", item.Reason ?? "—"]);
    expect(await collect(page.text, "main form[method=post]", "action")).toEqual([`${base}/${ret.ReturnId}/receive`, `${base}/${ret.ReturnId}/decide`]);

    // Too many: the API's words at the form, nothing received, nothing restocked.
    const tooMany = await send("POST", `${base}/${ret.ReturnId}/receive`, {
      cookie,
      form: { _csrf: csrf, [`Quantity-${item.OrderItemId}`]: "5", Restock: "true" },
    });
    expect(tooMany.status).toBe(400);
    expect((await collect(tooMany.text, "#receive-error"))[0]).toContain("Items[0].Quantity");
    expect(await quantityOf(storeId, item.Sku)).toBe(4);

    const done = await send("POST", `${base}/${ret.ReturnId}/receive`, {
      cookie,
      form: { _csrf: csrf, [`Quantity-${item.OrderItemId}`]: "1", Restock: "true" },
    });
    expect(done.status).toBe(303);
    const after = await send("GET", done.headers.get("location")!, { cookie });
    expect(await collect(after.text, 'p.done[role="status"]')).toEqual(["Receipt recorded."]);
    expect((await tableRows(after.text, "table"))[0]).toEqual([item.OrderItemId, item.Sku, "1", "1", "1", item.Reason ?? "—"]);
    expect(await quantityOf(storeId, item.Sku)).toBe(5);
    // Posted again (a double click): nothing more in stock.
    await send("POST", `${base}/${ret.ReturnId}/receive`, { cookie, form: { _csrf: csrf, [`Quantity-${item.OrderItemId}`]: "1", Restock: "true" } });
    expect(await quantityOf(storeId, item.Sku)).toBe(5);

    // The other return is rejected from its page.
    const other = returns[1]!;
    const rejected = await send("POST", `${base}/${other.ReturnId}/decide`, {
      cookie,
      form: { _csrf: csrf, Decision: "reject", Reason: "Past the return window" },
    });
    expect(rejected.status).toBe(303);
    const statuses = await tableRows((await send("GET", base, { cookie })).text, "table");
    expect(Object.fromEntries(statuses.map((r) => [r[0], r[4]]))).toEqual({ [ret.ReturnId]: "Received", [other.ReturnId]: "Rejected" });
  });

  it("refunds lines from the order page, lists the refund there, and shows a refused refund at the form", async () => {
    const { storeId, token, returns } = await storeWithReturns();
    const { cookie, csrf } = await signIn();
    const ret = returns[0]!;
    const orderPage = `/console/stores/${storeId}/orders/${ret.OrderId}`;
    const page = await send("GET", orderPage, { cookie });
    expect(page.status).toBe(200);
    expect(await collect(page.text, "table caption")).toEqual(expect.arrayContaining(["Returns"]));
    expect(await collect(page.text, "p.empty")).toEqual(expect.arrayContaining(["Refunds: none."]));
    const item = ret.Items[0]!;
    const noReason = await send("POST", `${orderPage}/refund`, { cookie, form: { _csrf: csrf, [`Quantity-${item.OrderItemId}`]: "1", Reason: "" } });
    expect(noReason.status).toBe(400);
    expect(await collect(noReason.text, '[role="alert"].error')).toEqual([expect.stringContaining("Reason")]);
    const order = JSON.parse((await call("GET", `/v1/${token}/Orders/${ret.OrderId}`)).text).Orders[0] as { Refunds: unknown[] };
    expect(order.Refunds).toEqual([]);

    const done = await send("POST", `${orderPage}/refund`, {
      cookie,
      form: { _csrf: csrf, [`Quantity-${item.OrderItemId}`]: "1", Reason: "Came back damaged", ReturnId: ret.ReturnId },
    });
    expect(done.status, done.text).toBe(303);
    const after = await send("GET", done.headers.get("location")!, { cookie });
    expect(await collect(after.text, 'p.done[role="status"]')).toEqual(["Refund recorded."]);
    const refunded = JSON.parse((await call("GET", `/v1/${token}/Orders/${ret.OrderId}`)).text).Orders[0] as {
      Refunds: { RefundId: string; Total: number }[];
      RefundTotal: number;
    };
    expect(refunded.Refunds).toHaveLength(1);
    const refundRows = await tableRows(after.text, "table#refunds");
    expect(refundRows.map((r) => [r[0], r[1], r[2], r[3], r[6]])).toEqual([
      [refunded.Refunds[0]!.RefundId, "Pending", "the hub", "Came back damaged", refunded.RefundTotal.toFixed(2)],
    ]);
    const returnsTab = await tableRows((await send("GET", `/console/stores/${storeId}/returns`, { cookie })).text, "table");
    expect(returnsTab.find((r) => r[0] === ret.ReturnId)![4]).toBe("Refunded");
  });

  it("counts open returns on the store's overview", async () => {
    const { storeId } = await storeWithReturns();
    const { cookie } = await signIn();
    const overview = await send("GET", `/console/stores/${storeId}`, { cookie });
    expect(overview.status).toBe(200);
    expect(await collect(overview.text, `a[href="/console/stores/${storeId}/returns"] strong`)).toEqual(["2"]);
  });
});
