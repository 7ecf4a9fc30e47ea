// The order page's lines and packages (decisions 12) through whole requests in workerd (signed in,
// each form with its CSRF token): each line's ordered, shipped and cancelled units, each package,
// the form that ships chosen units as one package or cancels them through the admin API, and a
// refused quantity shown at its line with nothing stored. The HTML is read with workerd's
// HTMLRewriter (./helpers.ts); what was stored is read back through /v1.
import { describe, expect, it } from "vitest";
import { call, insert, storeWithToken } from "../helpers/api";
import { insertSource, outboxOf } from "../helpers/db";
import { collect, definitionLists, send, signIn, tableRows } from "./helpers";

interface Order {
  OrderId: string;
  OrderItems: { OrderItemId: string; Sku: string; QuantityShipped: number; QuantityCancelled: number }[];
  Shipments: { ShipmentId: string; Items: { OrderItemId: string; Quantity: number }[] }[];
}

async function read(token: string, id: string): Promise<Order> {
  const res = await call("GET", `/v1/${token}/Orders/${id}`);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text).Orders[0] as Order;
}

/** An order of two lines (MUG 3, CAP 2) claimed by a marketplace source; its page and line ids. */
async function twoLines() {
  const { storeId, token } = await storeWithToken();
  await insertSource(storeId, "Mall");
  const orderId = await insert(token, {
    OrderSource: "Mall",
    OrderItems: [
      { Sku: "MUG", Name: "Mug", Quantity: 3, UnitPrice: 5 },
      { Sku: "CAP", Name: "Cap", Quantity: 2, UnitPrice: 5 },
    ],
  });
  const [mug, cap] = (await read(token, orderId)).OrderItems.map((i) => i.OrderItemId) as [string, string];
  return { storeId, token, orderId, mug, cap, page: `/console/stores/${storeId}/orders/${orderId}` };
}

describe("the order page's lines and packages", () => {
  it("shows each line's units, ships chosen units as one package, cancels others, and lists the package", async () => {
    const { token, orderId, mug, cap, page } = await twoLines();
    const { cookie, csrf } = await signIn();
    const before = await send("GET", page, { cookie });
    expect(before.status).toBe(200);
    expect((await tableRows(before.text, "table#lines")).map((r) => r.slice(0, 6))).toEqual([
      [mug, "MUG", "Mug", "3", "0", "0"],
      [cap, "CAP", "Cap", "2", "0", "0"],
    ]);
    expect(await collect(before.text, "p.empty")).toEqual(expect.arrayContaining(["Packages: none."]));
    expect(await collect(before.text, "main form[method=post]", "action")).toEqual([`${page}/lines`, `${page}/refund`]);
    expect(await collect(before.text, `form[action="${page}/lines"] input[type=number]`, "name")).toEqual([`Quantity-${mug}`, `Quantity-${cap}`]);

    // A partial ship: 2 of MUG, nothing of CAP, one package with its tracking.
    const shipped = await send("POST", `${page}/lines`, {
      cookie,
      form: {
        _csrf: csrf,
        Action: "ship",
        [`Quantity-${mug}`]: "2",
        [`Quantity-${cap}`]: "0",
        ShipmentTrackingNumber: "1Z-CONSOLE",
        DestinationShippingCarrier: "UPS",
      },
    });
    expect(shipped.status, shipped.text).toBe(303);
    const after = await send("GET", shipped.headers.get("location")!, { cookie });
    expect(await collect(after.text, 'p.done[role="status"]')).toEqual(["Package recorded."]);
    const stored = await read(token, orderId);
    expect(stored.Shipments).toHaveLength(1);
    expect(stored.Shipments[0]!.Items).toEqual([{ OrderItemId: mug, Quantity: 2 }]);
    const packages = await tableRows(after.text, "table#packages");
    expect(packages.map((r) => [r[0], r[1], r[2], r[4]])).toEqual([[stored.Shipments[0]!.ShipmentId, "1Z-CONSOLE", "UPS", `MUG (line ${mug}) × 2`]]);
    expect((await tableRows(after.text, "table#lines")).map((r) => r.slice(3, 6))).toEqual([
      ["3", "2", "0"],
      ["2", "0", "0"],
    ]);
    expect((await definitionLists(after.text, "dl.facts"))[0]).toMatchObject({ Fulfilment: "PartiallyShipped" });
    // Only what is left is offered: one unit of MUG, two of CAP.
    expect(await collect(after.text, `form[action="${page}/lines"] input[type=number]`, "max")).toEqual(["1", "2"]);

    // Posted again (a double click): the same package, nothing more.
    await send("POST", `${page}/lines`, {
      cookie,
      form: { _csrf: csrf, Action: "ship", [`Quantity-${mug}`]: "2", ShipmentTrackingNumber: "1Z-CONSOLE", DestinationShippingCarrier: "UPS" },
    });
    expect((await read(token, orderId)).Shipments).toHaveLength(1);

    // Cancel one CAP.
    const cancelled = await send("POST", `${page}/lines`, { cookie, form: { _csrf: csrf, Action: "cancel", [`Quantity-${cap}`]: "1" } });
    expect(cancelled.status, cancelled.text).toBe(303);
    const final = await send("GET", cancelled.headers.get("location")!, { cookie });
    expect(await collect(final.text, 'p.done[role="status"]')).toEqual(["Units cancelled."]);
    expect((await tableRows(final.text, "table#lines")).map((r) => r.slice(3, 6))).toEqual([
      ["3", "2", "0"],
      ["2", "0", "1"],
    ]);
    expect((await read(token, orderId)).OrderItems.map((i) => [i.Sku, i.QuantityShipped, i.QuantityCancelled])).toEqual([
      ["MUG", 2, 0],
      ["CAP", 0, 1],
    ]);
  });

  it("shows a refused quantity at its line and stores nothing", async () => {
    const { token, orderId, mug, cap, page } = await twoLines();
    const { cookie, csrf } = await signIn();
    const outboxBefore = (await outboxOf(orderId)).length;

    const tooMany = await send("POST", `${page}/lines`, { cookie, form: { _csrf: csrf, Action: "ship", [`Quantity-${mug}`]: "1", [`Quantity-${cap}`]: "3" } });
    expect(tooMany.status).toBe(400);
    const capError = await collect(tooMany.text, `#lines-Quantity-${cap}-error`);
    expect(capError).toHaveLength(1);
    expect(capError[0]).toContain(`OrderItemId '${cap}' has 2 unit(s) left to ship`);
    expect(await collect(tooMany.text, `#lines-Quantity-${cap}`, "aria-invalid")).toEqual(["true"]);
    expect(await collect(tooMany.text, "#lines-error")).toEqual([]);

    const fractional = await send("POST", `${page}/lines`, { cookie, form: { _csrf: csrf, Action: "cancel", [`Quantity-${mug}`]: "1.5" } });
    expect(fractional.status).toBe(400);
    expect((await collect(fractional.text, `#lines-Quantity-${mug}-error`))[0]).toContain("'Items[0].Quantity'");

    const none = await send("POST", `${page}/lines`, { cookie, form: { _csrf: csrf, Action: "ship", [`Quantity-${mug}`]: "0" } });
    expect(none.status).toBe(400);
    expect(await collect(none.text, "#lines-error")).toEqual(["Name at least one unit: every line's quantity is 0."]);

    // Without the page's CSRF token the post is refused before the API is called.
    const forged = await send("POST", `${page}/lines`, { cookie, form: { Action: "ship", [`Quantity-${mug}`]: "1" } });
    expect(forged.status).toBe(403);

    const order = await read(token, orderId);
    expect(order.Shipments).toEqual([]);
    expect(order.OrderItems.map((i) => [i.QuantityShipped, i.QuantityCancelled])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect((await outboxOf(orderId)).length).toBe(outboxBefore);
  });
});
