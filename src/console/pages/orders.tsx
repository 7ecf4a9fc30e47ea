// Console pages: a store's orders (search by number, status and date filter, paging) and one
// order with its items and deliveries. Mounted at /console/stores/:storeId/orders.
import { ORDER_STATUSES } from "../../orders/orders.schemas";
import { Field, FormError, Select, StoreNav, Table, money, storeBase, storeCrumbs, when } from "../components";
import { consoleRouter, enc, fieldOf, notFound, withStore, type C } from "../context";
import type { Order, OrderDelivery } from "../wire";

const ORDERS_PER_PAGE = 25;

async function ordersPage(c: C) {
  const store = c.var.store;
  const q = { orderNumber: c.req.query("orderNumber") ?? "", status: c.req.query("status") ?? "", fromDate: c.req.query("fromDate") ?? "", toDate: c.req.query("toDate") ?? "" };
  const pageNo = Math.max(1, Math.floor(Number(c.req.query("page") ?? "1")) || 1);
  const params = new URLSearchParams({ page: String(pageNo), pageSize: String(ORDERS_PER_PAGE) });
  for (const [k, v] of Object.entries(q)) if (v.trim()) params.set(k, v.trim());
  // A day picked as "Created to" includes that whole day.
  if (/^\d{4}-\d{2}-\d{2}$/.test(q.toDate.trim())) params.set("toDate", `${q.toDate.trim()}T23:59:59.999Z`);
  const res = await c.var.api.call<{ Orders: Order[] }>("GET", `/stores/${enc(store.StoreId)}/orders?${params}`);
  const orders = res.ok ? res.data.Orders : [];
  // The API's refusal of a search value is shown under that field of the search form.
  if (!res.ok) c.set("notice", { form: "search", error: res.message, field: fieldOf(res.message) });
  const link = (p: number) => {
    const l = new URLSearchParams(params);
    l.set("page", String(p));
    l.delete("pageSize");
    return `?${l}`;
  };
  const base = storeBase(store);
  return c.render(
    <>
      <StoreNav store={store} current="Orders" />
      <form method="get" class="card search" role="search" aria-label="Orders">
        <FormError form="search" fields={["orderNumber", "status", "fromDate", "toDate"]} />
        <Field form="search" name="orderNumber" label="Order number" value={q.orderNumber} hint="Marketplace number, seller number or OrderId, exactly." />
        <Select form="search" name="status" label="Status" value={q.status} options={[["", "Any"], ...ORDER_STATUSES.map((s) => [s, s] as const)]} />
        <Field form="search" name="fromDate" label="Created from" type="date" value={q.fromDate} />
        <Field form="search" name="toDate" label="Created to" type="date" value={q.toDate} hint="Days are UTC; both days are included." />
        <button type="submit">Search</button>
      </form>
      <Table
        caption={`Orders, page ${pageNo}`}
        headers={["OrderId", "Marketplace number", "Source", "Status", "Created", "Total", "Buyer"]}
        rows={orders.map((o) => [
          <a href={`${base}/orders/${enc(o.OrderId)}`}>{o.OrderId}</a>,
          o.OrderSourceOrderNumber,
          o.OrderSource,
          o.OrderStatus,
          when(o.DateCreatedInOrderSource),
          money(o.GrandTotal),
          `${o.FirstName} ${o.LastName}`,
        ])}
        empty="no order matches."
      />
      <nav aria-label="Pages" class="pager">
        {pageNo > 1 ? (
          <a href={link(pageNo - 1)} rel="prev">
            Previous page
          </a>
        ) : null}
        {orders.length === ORDERS_PER_PAGE && !q.orderNumber ? (
          <a href={link(pageNo + 1)} rel="next">
            Next page
          </a>
        ) : null}
      </nav>
    </>,
    { title: "Orders", crumbs: storeCrumbs(store) },
  );
}

async function orderPage(c: C) {
  const store = c.var.store;
  const res = await c.var.api.call<{ Order: Order; Deliveries: OrderDelivery[] }>("GET", `/stores/${enc(store.StoreId)}/orders/${enc(c.req.param("orderId") ?? "")}`);
  const crumbs = storeCrumbs(store, ["Orders", `${storeBase(store)}/orders`]);
  if (!res.ok) return notFound(c, "Order not found", res, undefined, crumbs);
  const o = res.data.Order;
  const facts: [string, string][] = [
    ["Status", o.OrderStatus],
    ["Source", `${o.OrderSource} ${o.OrderSourceOrderNumber}`],
    ["Seller number", o.OrderDestinationOrderNumber ?? "—"],
    ["Created at the marketplace", when(o.DateCreatedInOrderSource)],
    ["Updated", when(o.DateUpdated)],
    ["Shipped", when(o.DateShipped)],
    ["Tracking", o.ShipmentTrackingNumber ?? "—"],
    ["Buyer", `${o.FirstName} ${o.LastName}, ${o.BuyerEmailAddress}, ${o.BuyerPhoneNumber}`],
    ["Ship to", [o.ShipToCompanyName, o.Street1, o.Street2, o.City, o.StateOrProvince, o.PostalCode, o.Country].filter((v) => v).join(", ")],
    ["Shipping", `${o.ShippingMethod} ${o.ShippingServiceName}`],
    ["Totals", `Grand total ${money(o.GrandTotal)}, subtotal ${money(o.SubTotal)}, shipping ${money(o.ShippingTotal)} (in the marketplace's currency)`],
    ["Sync", `${o.SyncStatus}${o.SyncUserErrorMessage ? `: ${o.SyncUserErrorMessage}` : ""}`],
  ];
  return c.render(
    <>
      <StoreNav store={store} current="Orders" />
      <dl class="facts">
        {facts.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
      <Table
        caption="Items"
        headers={["Sku", "Name", "Quantity", "Unit price", "Tax", "Discount"]}
        rows={o.OrderItems.map((i) => [i.Sku, i.Name, String(i.Quantity), money(i.UnitPrice), money(i.SaleTaxCost), money(i.Discount)])}
      />
      <Table
        caption="Deliveries to the marketplace"
        headers={["Kind", "Status", "Attempts", "Created", "Delivered", "Last error"]}
        rows={res.data.Deliveries.map((d) => [d.Kind, d.Status, String(d.Attempts), when(d.DateCreated), when(d.DateDelivered), d.LastError || "—"])}
        empty="none."
      />
    </>,
    { title: `Order ${o.OrderId}`, crumbs },
  );
}

export const orderPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => ordersPage(c))
  .get("/:orderId", (c) => orderPage(c));
