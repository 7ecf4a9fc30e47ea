// Console pages: a store's Returns tab (decisions 13): the returns newest first with a status
// filter and paging, and one return with its lines, the deliveries of its receipts, decisions and
// refunds, a Receive form (how many of each line came back in all, with Restock) and, for a
// Requested return, Approve and Reject. Mounted at /console/stores/:storeId/returns.
import { RETURN_STATUSES } from "../../db/schema";
import { Checkbox, Field, FormError, PostForm, Select, StoreNav, Table, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, doneNotice, enc, failed, formOf, notFound, text, withStore, type C } from "../context";
import type { Return, ReturnDelivery } from "../wire";

const RETURNS_PER_PAGE = 25;

async function returnsPage(c: C) {
  const store = c.var.store;
  const status = c.req.query("status") ?? "";
  const pageNo = Math.max(1, Math.floor(Number(c.req.query("page") ?? "1")) || 1);
  const params = new URLSearchParams({ page: String(pageNo), pageSize: String(RETURNS_PER_PAGE) });
  if (status.trim()) params.set("status", status.trim());
  const res = await c.var.api.call<{ Returns: Return[] }>("GET", `/stores/${enc(store.StoreId)}/returns?${params}`);
  const returns = res.ok ? res.data.Returns : [];
  if (!res.ok) c.set("notice", { form: "search", error: res.message });
  const base = storeBase(store);
  const link = (p: number) => {
    const l = new URLSearchParams(params);
    l.set("page", String(p));
    l.delete("pageSize");
    return `?${l}`;
  };
  return c.render(
    <>
      <StoreNav store={store} current="Returns" />
      <form method="get" class="card search" role="search" aria-label="Returns">
        <FormError form="search" />
        <Select form="search" name="status" label="Status" value={status} options={[["", "Any"], ...RETURN_STATUSES.map((s) => [s, s] as const)]} />
        <button type="submit">Filter</button>
      </form>
      <Table
        caption={`Returns, page ${pageNo}`}
        headers={["ReturnId", "Marketplace return", "Order", "Source", "Status", "Requested", "Units", "Received", "Refunded"]}
        rows={returns.map((r) => [
          <a href={`${base}/returns/${enc(r.ReturnId)}`}>{r.ReturnId}</a>,
          r.ReturnSourceNumber,
          <a href={`${base}/orders/${enc(r.OrderId)}`}>{r.OrderSourceOrderNumber}</a>,
          r.OrderSource,
          r.Status,
          when(r.DateRequested),
          String(r.Items.reduce((n, i) => n + i.Quantity, 0)),
          String(r.Items.reduce((n, i) => n + i.QuantityReceived, 0)),
          r.RefundTotal.toFixed(2),
        ])}
        empty="no return matches."
      />
      <nav aria-label="Pages" class="pager">
        {pageNo > 1 ? (
          <a href={link(pageNo - 1)} rel="prev">
            Previous page
          </a>
        ) : null}
        {returns.length === RETURNS_PER_PAGE ? (
          <a href={link(pageNo + 1)} rel="next">
            Next page
          </a>
        ) : null}
      </nav>
    </>,
    { title: "Returns", crumbs: storeCrumbs(store) },
  );
}

async function returnPage(c: C) {
  const store = c.var.store;
  const base = storeBase(store);
  const returnId = c.req.param("returnId") ?? "";
  const res = await c.var.api.call<{ Return: Return; Deliveries: ReturnDelivery[] }>("GET", `/stores/${enc(store.StoreId)}/returns/${enc(returnId)}`);
  const crumbs = storeCrumbs(store, ["Returns", `${base}/returns`]);
  if (!res.ok) return notFound(c, "Return not found", res, undefined, crumbs);
  const r = res.data.Return;
  const open = r.Status !== "Rejected" && r.Status !== "Closed";
  const action = `${base}/returns/${enc(r.ReturnId)}`;
  return c.render(
    <>
      <StoreNav store={store} current="Returns" />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          {r.Status} (marketplace: {r.SourceStatus})
        </dd>
        <dt>Order</dt>
        <dd>
          <a href={`${base}/orders/${enc(r.OrderId)}`}>
            {r.OrderSource} {r.OrderSourceOrderNumber}
          </a>
        </dd>
        <dt>Marketplace return</dt>
        <dd>{r.ReturnSourceNumber}</dd>
        <dt>Requested</dt>
        <dd>{when(r.DateRequested)}</dd>
        <dt>Updated</dt>
        <dd>{when(r.DateUpdated)}</dd>
        <dt>Reason</dt>
        <dd>{r.Reason ?? "—"}</dd>
        <dt>Refunded</dt>
        <dd>{r.RefundTotal.toFixed(2)}</dd>
      </dl>
      <Table
        caption="Lines coming back"
        headers={["OrderItemId", "Sku", "Quantity", "Received", "Restocked", "Reason"]}
        rows={r.Items.map((i) => [i.OrderItemId, i.Sku, String(i.Quantity), String(i.QuantityReceived), String(i.QuantityRestocked), i.Reason ?? "—"])}
      />
      {open ? (
        <section class="card" aria-labelledby="receive-h">
          <h2 id="receive-h">Receive</h2>
          <p>For each line, how many units have come back in all (not only this parcel).</p>
          <PostForm action={`${action}/receive`} name="receive">
            {r.Items.map((i) => (
              <Field
                form="receive"
                name={`Quantity-${i.OrderItemId}`}
                label={`${i.Sku} (line ${i.OrderItemId}), of ${i.Quantity}`}
                type="number"
                value={i.QuantityReceived}
                attrs={{ min: i.QuantityReceived, max: i.Quantity, step: 1 }}
              />
            ))}
            <Checkbox form="receive" name="Restock" value="true" label="Put the units received now back in stock" checked />
            <button type="submit">Record what came back</button>
          </PostForm>
        </section>
      ) : null}
      {r.Status === "Requested" ? (
        <section class="card" aria-labelledby="decide-h">
          <h2 id="decide-h">Decide</h2>
          <PostForm action={`${action}/decide`} name="decide" fields={["Reason"]}>
            <Field form="decide" name="Reason" label="Reason" attrs={{ maxlength: 500 }} />
            <button type="submit" name="Decision" value="approve">
              Approve
            </button>{" "}
            <button type="submit" name="Decision" value="reject" class="danger">
              Reject
            </button>
          </PostForm>
        </section>
      ) : null}
      <Table
        caption="Deliveries to the marketplace"
        headers={["Kind", "Status", "Attempts", "Created", "Delivered", "Last error"]}
        rows={res.data.Deliveries.map((d) => [
          d.Kind,
          d.Status,
          String(d.Attempts),
          when(d.DateCreated),
          when(d.DateDelivered),
          d.LastError || d.Warning || "—",
        ])}
        empty="none."
      />
    </>,
    {
      title: `Return ${r.ReturnId}`,
      crumbs,
      done: doneNotice(c, { received: () => "Receipt recorded.", approve: () => "Return approved.", reject: () => "Return rejected." }),
    },
  );
}

export const returnPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => returnsPage(c))
  .get("/:returnId", (c) => returnPage(c))
  .post("/:returnId/receive", async (c) => {
    const body = await formOf(c);
    const Items = Object.entries(body)
      .filter(([name]) => name.startsWith("Quantity-"))
      .map(([name, value]) => ({ OrderItemId: name.slice("Quantity-".length), Quantity: text(value).trim() === "" ? Number.NaN : Number(text(value)) }));
    const res = await c.var.api.call("PUT", `/stores/${enc(c.var.store.StoreId)}/returns/${enc(c.req.param("returnId"))}/receive`, {
      Items,
      Restock: text(body.Restock) === "true",
    });
    if (!res.ok) return failed(c, returnPage, "receive", res);
    return back(c, `${storeBase(c.var.store)}/returns/${enc(c.req.param("returnId"))}`, "received");
  })
  .post("/:returnId/decide", async (c) => {
    const body = await formOf(c);
    const decision = text(body.Decision) === "reject" ? "reject" : "approve";
    const reason = text(body.Reason).trim();
    const res = await c.var.api.call(
      "PUT",
      `/stores/${enc(c.var.store.StoreId)}/returns/${enc(c.req.param("returnId"))}/${decision}`,
      reason ? { Reason: reason } : {},
    );
    if (!res.ok) return failed(c, returnPage, "decide", res);
    return back(c, `${storeBase(c.var.store)}/returns/${enc(c.req.param("returnId"))}`, decision);
  });
