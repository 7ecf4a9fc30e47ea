// Console pages: a store's orders (search by number, status and date filter, paging) and one
// order with its lines (ordered, shipped and cancelled units), its packages, deliveries, returns
// and refunds, a form to ship or cancel chosen units of its lines (decisions 12, the admin API's
// UpdateStatus with Items) and a form to refund lines and shipping (decisions 13). Mounted at
// /console/stores/:storeId/orders.
import { ORDER_STATUSES } from "../../orders/orders.schemas";
import { Field, FormError, PostForm, Select, StoreNav, Table, money, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, fieldOf, formOf, notFound, text, withStore, type C, type FormBody } from "../context";
import type { Order, OrderDelivery, Return } from "../wire";

const ORDERS_PER_PAGE = 25;

async function ordersPage(c: C) {
  const store = c.var.store;
  const q = {
    orderNumber: c.req.query("orderNumber") ?? "",
    status: c.req.query("status") ?? "",
    fromDate: c.req.query("fromDate") ?? "",
    toDate: c.req.query("toDate") ?? "",
  };
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
  const res = await c.var.api.call<{ Order: Order; Deliveries: OrderDelivery[]; Returns: Return[] }>(
    "GET",
    `/stores/${enc(store.StoreId)}/orders/${enc(c.req.param("orderId") ?? "")}`,
  );
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
    ["Fulfilment", o.FulfillmentStatus],
    ["Tracking", o.ShipmentTrackingNumber ?? "—"],
    ["Buyer", `${o.FirstName} ${o.LastName}, ${o.BuyerEmailAddress}, ${o.BuyerPhoneNumber}`],
    ["Ship to", [o.ShipToCompanyName, o.Street1, o.Street2, o.City, o.StateOrProvince, o.PostalCode, o.Country].filter((v) => v).join(", ")],
    ["Shipping", `${o.ShippingMethod} ${o.ShippingServiceName}`],
    ["Totals", `Grand total ${money(o.GrandTotal)}, subtotal ${money(o.SubTotal)}, shipping ${money(o.ShippingTotal)} (in the marketplace's currency)`],
    ["Sync", `${o.SyncStatus}${o.SyncUserErrorMessage ? `: ${o.SyncUserErrorMessage}` : ""}`],
    ["Refunded", o.RefundTotal.toFixed(2)],
  ];
  const base = storeBase(store);
  const action = `${base}/orders/${enc(o.OrderId)}/refund`;
  const lineOf = new Map(o.OrderItems.map((i) => [i.OrderItemId, i]));
  const open = o.OrderItems.filter((i) => i.Quantity - i.QuantityShipped - i.QuantityCancelled > 0);
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
        id="lines"
        headers={["OrderItemId", "Sku", "Name", "Quantity", "Shipped", "Cancelled", "Unit price", "Tax", "Discount"]}
        rows={o.OrderItems.map((i) => [
          i.OrderItemId,
          i.Sku,
          i.Name,
          String(i.Quantity),
          String(i.QuantityShipped),
          String(i.QuantityCancelled),
          money(i.UnitPrice),
          money(i.SaleTaxCost),
          money(i.Discount),
        ])}
      />
      <Table
        caption="Packages"
        id="packages"
        headers={["ShipmentId", "Tracking", "Carrier", "Shipped", "Lines"]}
        rows={o.Shipments.map((s) => [
          s.ShipmentId,
          s.ShipmentTrackingNumber ?? "—",
          s.DestinationShippingCarrier ?? "—",
          when(s.DateShipped),
          s.Items.map((i) => `${lineOf.get(i.OrderItemId)?.Sku ?? "line"} (line ${i.OrderItemId}) × ${i.Quantity}`).join(", "),
        ])}
        empty="none."
      />
      {open.length && o.OrderStatus !== "Canceled" ? (
        <section class="card" aria-labelledby="lines-h">
          <h2 id="lines-h">Ship or cancel lines</h2>
          <p>Units of each line to ship as one package, or to cancel (0 leaves the line out).</p>
          <PostForm
            action={`${base}/orders/${enc(o.OrderId)}/lines`}
            name="lines"
            fields={["ShipmentTrackingNumber", "DestinationShippingCarrier", ...open.map((i) => `Quantity-${i.OrderItemId}`)]}
          >
            {open.map((i) => {
              const left = i.Quantity - i.QuantityShipped - i.QuantityCancelled;
              return (
                <Field
                  form="lines"
                  name={`Quantity-${i.OrderItemId}`}
                  label={`Units of ${i.Sku} (line ${i.OrderItemId}) to ship or cancel, ${left} left`}
                  type="number"
                  value={0}
                  attrs={{ min: 0, max: left, step: 1 }}
                />
              );
            })}
            <Field form="lines" name="ShipmentTrackingNumber" label="Tracking number" hint="For a package; not used to cancel." attrs={{ maxlength: 100 }} />
            <Field form="lines" name="DestinationShippingCarrier" label="Carrier" attrs={{ maxlength: 200 }} />
            <button type="submit" name="Action" value="ship">
              Ship these units
            </button>{" "}
            <button type="submit" name="Action" value="cancel" class="danger">
              Cancel these units
            </button>
          </PostForm>
        </section>
      ) : null}
      <Table
        caption="Deliveries to the marketplace"
        headers={["Kind", "Status", "Attempts", "Created", "Delivered", "Last error"]}
        rows={res.data.Deliveries.map((d) => [d.Kind, d.Status, String(d.Attempts), when(d.DateCreated), when(d.DateDelivered), d.LastError || "—"])}
        empty="none."
      />
      <Table
        caption="Returns"
        headers={["ReturnId", "Marketplace return", "Status", "Requested", "Units"]}
        rows={res.data.Returns.map((r) => [
          <a href={`${base}/returns/${enc(r.ReturnId)}`}>{r.ReturnId}</a>,
          r.ReturnSourceNumber,
          r.Status,
          when(r.DateRequested),
          r.Items.map((i) => `${i.Sku} × ${i.Quantity}`).join(", "),
        ])}
        empty="none."
      />
      <Table
        caption="Refunds"
        id="refunds"
        headers={["RefundId", "Status", "Made in", "Reason", "Lines", "Shipping", "Total", "Created"]}
        rows={o.Refunds.map((r) => [
          r.RefundId,
          r.Status,
          r.Origin === "Hub" ? "the hub" : "the marketplace",
          r.Reason,
          r.Items.map((i) => `line ${i.OrderItemId} × ${i.Quantity}: ${i.Amount.toFixed(2)}`).join(", ") || "—",
          r.ShippingAmount.toFixed(2),
          r.Total.toFixed(2),
          when(r.DateCreated),
        ])}
        empty="none."
      />
      <section class="card" aria-labelledby="refund-h">
        <h2 id="refund-h">Refund</h2>
        <p>Units of each line to pay back (0 leaves the line out); each unit is refunded at what the buyer paid for it.</p>
        <PostForm action={action} name="refund" fields={["Reason", "ShippingAmount"]}>
          {o.OrderItems.map((i) => (
            <Field
              form="refund"
              name={`Quantity-${i.OrderItemId}`}
              label={`${i.Sku} (line ${i.OrderItemId}), of ${i.Quantity}`}
              type="number"
              value={0}
              attrs={{ min: 0, max: i.Quantity, step: 1 }}
            />
          ))}
          <Field form="refund" name="ShippingAmount" label="Shipping to pay back" type="number" attrs={{ min: 0, step: "0.01" }} />
          {res.data.Returns.length ? (
            <Select
              form="refund"
              name="ReturnId"
              label="Return it settles"
              value=""
              options={[["", "none"], ...res.data.Returns.map((r) => [r.ReturnId, `${r.ReturnId} (${r.ReturnSourceNumber})`] as const)]}
            />
          ) : null}
          <Field form="refund" name="Reason" label="Reason" required attrs={{ maxlength: 500 }} />
          <button type="submit">Refund</button>
        </PostForm>
      </section>
    </>,
    {
      title: `Order ${o.OrderId}`,
      crumbs,
      done: doneNotice(c, { refunded: () => "Refund recorded.", shipped: () => "Package recorded.", cancelled: () => "Units cancelled." }),
    },
  );
}

/** The units a form names per line (its Quantity-<OrderItemId> fields that are not blank or 0). */
function unitsOf(body: FormBody): { OrderItemId: string; Quantity: number }[] {
  return Object.entries(body)
    .filter(([name, value]) => name.startsWith("Quantity-") && text(value).trim() !== "" && text(value).trim() !== "0")
    .map(([name, value]) => ({ OrderItemId: name.slice("Quantity-".length), Quantity: Number(text(value)) }));
}

/**
 * The field of the lines form a refusal of UpdateStatus is about: the line's units for an
 * 'Items[i]...' issue or a Message naming an OrderItemId, else the field the Message names.
 */
function linesField(message: string, items: { OrderItemId: string }[]): string | undefined {
  const index = /^'Items\[(\d+)\]/.exec(message)?.[1];
  const item = index === undefined ? undefined : items[Number(index)];
  if (item) return `Quantity-${item.OrderItemId}`;
  const named = /OrderItemId '([^']+)'/.exec(message)?.[1];
  if (named && items.some((i) => i.OrderItemId === named)) return `Quantity-${named}`;
  return fieldOf(message);
}

export const orderPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => ordersPage(c))
  .get("/:orderId", (c) => orderPage(c))
  .post("/:orderId/refund", async (c) => {
    const body = await formOf(c);
    const Items = Object.entries(body)
      .filter(([name, value]) => name.startsWith("Quantity-") && text(value).trim() !== "" && text(value).trim() !== "0")
      .map(([name, value]) => ({ OrderItemId: name.slice("Quantity-".length), Quantity: Number(text(value)) }));
    const payload: Record<string, unknown> = { Reason: text(body.Reason) };
    if (Items.length) payload.Items = Items;
    if (text(body.ShippingAmount).trim()) payload.ShippingAmount = Number(text(body.ShippingAmount));
    if (text(body.ReturnId).trim()) payload.ReturnId = text(body.ReturnId).trim();
    const res = await c.var.api.call("PUT", `/stores/${enc(c.var.store.StoreId)}/orders/${enc(c.req.param("orderId"))}/refund`, payload);
    if (!res.ok) return failed(c, orderPage, "refund", res);
    return back(c, `${storeBase(c.var.store)}/orders/${enc(c.req.param("orderId"))}`, "refunded");
  })
  .post("/:orderId/lines", async (c) => {
    const body = await formOf(c);
    const cancelling = text(body.Action) === "cancel";
    // NaN (a value that is not a number) travels as null, which the API refuses for that line.
    const Items = unitsOf(body);
    if (!Items.length) return failed(c, orderPage, "lines", { status: 400, message: "Name at least one unit: every line's quantity is 0." });
    const payload: Record<string, unknown> = { OrderStatus: cancelling ? "CANCELLED" : "SHIPPED", Items };
    if (!cancelling) {
      if (text(body.ShipmentTrackingNumber).trim()) payload.ShipmentTrackingNumber = text(body.ShipmentTrackingNumber).trim();
      if (text(body.DestinationShippingCarrier).trim()) payload.DestinationShippingCarrier = text(body.DestinationShippingCarrier).trim();
    }
    const res = await c.var.api.call("PUT", `/stores/${enc(c.var.store.StoreId)}/orders/${enc(c.req.param("orderId"))}/status`, payload);
    if (!res.ok) {
      // As failed() does, with the refusal shown at the line it names.
      c.set("notice", { form: "lines", error: res.message, field: linesField(res.message, Items) });
      c.status(res.status >= 400 && res.status < 500 ? (res.status as 400) : 502);
      return orderPage(c);
    }
    return back(c, `${storeBase(c.var.store)}/orders/${enc(c.req.param("orderId"))}`, cancelling ? "cancelled" : "shipped");
  });
