// Console pages: a store's orders (search by number, status and date filter, paging) and one
// order with its items and deliveries.
import { html } from "hono/html";
import { ORDER_STATUSES } from "../../orders/orders.schemas";
import { ORDERS_PER_PAGE, enc, str, type C, type Kit, type Router, type Row } from "../kit";
import { field, fieldOf, formError, page, select, table, when, type Notice, type PageContext } from "../layout";

export function orderPages(router: Router, kit: Kit) {
  const { api, ctxOf, form, loadStore, storeNav, storeCrumbs } = kit;

  async function ordersPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const q = { orderNumber: c.req.query("orderNumber") ?? "", status: c.req.query("status") ?? "", fromDate: c.req.query("fromDate") ?? "", toDate: c.req.query("toDate") ?? "" };
    const pageNo = Math.max(1, Math.floor(Number(c.req.query("page") ?? "1")) || 1);
    const params = new URLSearchParams({ page: String(pageNo), pageSize: String(ORDERS_PER_PAGE) });
    for (const [k, v] of Object.entries(q)) if (v.trim()) params.set(k, v.trim());
    // A day picked as "Created to" includes that whole day.
    if (/^\d{4}-\d{2}-\d{2}$/.test(q.toDate.trim())) params.set("toDate", `${q.toDate.trim()}T23:59:59.999Z`);
    const res = await api(c).call<{ Orders: Row[] }>("GET", `/stores/${enc(str(store.StoreId))}/orders?${params}`);
    const orders = res.ok ? res.data.Orders : [];
    const searchCtx: PageContext = res.ok ? ctx : { ...ctx, notice: { ...ctx.notice, form: "search", error: res.message, field: fieldOf(res.message) } };
    const link = (p: number) => {
      const l = new URLSearchParams(params);
      l.set("page", String(p));
      l.delete("pageSize");
      return `?${l}`;
    };
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    return c.html(
      page(
        "Orders",
        html`${storeNav(store, "Orders")}
<form method="get" class="card search" role="search" aria-label="Orders">
  ${formError(searchCtx, "search", ["orderNumber", "status", "fromDate", "toDate"])}
  ${field(searchCtx, { form: "search", name: "orderNumber", label: "Order number", value: q.orderNumber, hint: "Marketplace number, seller number or OrderId, exactly." })}
  ${select(searchCtx, { form: "search", name: "status", label: "Status", value: q.status, options: [["", "Any"], ...ORDER_STATUSES.map((s): [string, string] => [s, s])] })}
  ${field(searchCtx, { form: "search", name: "fromDate", label: "Created from", type: "date", value: q.fromDate })}
  ${field(searchCtx, { form: "search", name: "toDate", label: "Created to", type: "date", value: q.toDate, hint: "Days are UTC; both days are included." })}
  <button type="submit">Search</button>
</form>
${table(
  `Orders, page ${pageNo}`,
  ["OrderId", "Marketplace number", "Source", "Status", "Created", "Total", "Buyer"],
  orders.map((o) => [
    html`<a href="${base}/orders/${enc(str(o.OrderId))}">${str(o.OrderId)}</a>`,
    str(o.OrderSourceOrderNumber),
    str(o.OrderSource),
    str(o.OrderStatus),
    when(o.DateCreatedInOrderSource),
    str(o.GrandTotal),
    `${str(o.FirstName)} ${str(o.LastName)}`,
  ]),
  "no order matches.",
)}
<nav aria-label="Pages" class="pager">
  ${pageNo > 1 ? html`<a href="${link(pageNo - 1)}" rel="prev">Previous page</a>` : ""}
  ${orders.length === ORDERS_PER_PAGE && !q.orderNumber ? html`<a href="${link(pageNo + 1)}" rel="next">Next page</a>` : ""}
</nav>`,
        { ctx, crumbs: storeCrumbs(store) },
      ),
    );
  }
  router.get("/stores/:storeId/orders", (c) => ordersPage(c));
  router.get("/stores/:storeId/orders/:orderId", async (c) => {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c);
    const res = await api(c).call<{ Order: Row; Deliveries: Row[] }>("GET", `/stores/${enc(str(store.StoreId))}/orders/${enc(c.req.param("orderId"))}`);
    const crumbs: [string, string][] = [...storeCrumbs(store), ["Orders", `/console/stores/${enc(str(store.StoreId))}/orders`]];
    if (!res.ok) return c.html(page("Order not found", html`<p class="error" role="alert">${res.message}</p>`, { ctx, crumbs }), res.status === 404 ? 404 : 502);
    const o = res.data.Order;
    const facts: [string, unknown][] = [
      ["Status", o.OrderStatus],
      ["Source", `${str(o.OrderSource)} ${str(o.OrderSourceOrderNumber)}`],
      ["Seller number", o.OrderDestinationOrderNumber ?? "—"],
      ["Created at the marketplace", when(o.DateCreatedInOrderSource)],
      ["Updated", when(o.DateUpdated)],
      ["Shipped", when(o.DateShipped)],
      ["Tracking", o.ShipmentTrackingNumber ?? "—"],
      ["Buyer", `${str(o.FirstName)} ${str(o.LastName)}, ${str(o.BuyerEmailAddress)}, ${str(o.BuyerPhoneNumber)}`],
      ["Ship to", [o.ShipToCompanyName, o.Street1, o.Street2, o.City, o.StateOrProvince, o.PostalCode, o.Country].filter((v) => v).map(str).join(", ")],
      ["Shipping", `${str(o.ShippingMethod)} ${str(o.ShippingServiceName)}`],
      ["Totals", `Grand ${str(o.GrandTotal)}, sub ${str(o.SubTotal)}, shipping ${str(o.ShippingTotal)}`],
      ["Sync", `${str(o.SyncStatus)}${o.SyncUserErrorMessage ? `: ${str(o.SyncUserErrorMessage)}` : ""}`],
    ];
    return c.html(
      page(
        `Order ${str(o.OrderId)}`,
        html`${storeNav(store, "Orders")}
<dl class="facts">${facts.map(([k, v]) => html`<dt>${k}</dt><dd>${str(v)}</dd>`)}</dl>
${table("Items", ["Sku", "Name", "Quantity", "Unit price", "Tax", "Discount"], (o.OrderItems as Row[]).map((i) => [str(i.Sku), str(i.Name), str(i.Quantity), str(i.UnitPrice), str(i.SaleTaxCost), str(i.Discount)]))}
${table(
  "Deliveries to the marketplace",
  ["Kind", "Status", "Attempts", "Created", "Delivered", "Last error"],
  res.data.Deliveries.map((d) => [str(d.Kind), str(d.Status), str(d.Attempts), when(d.DateCreated), when(d.DateDelivered), str(d.LastError) || "—"]),
  "none.",
)}`,
        { ctx, crumbs },
      ),
    );
  });

}
