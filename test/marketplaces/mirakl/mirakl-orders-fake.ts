// The fake Mirakl's orders (mirakl-fake.ts routes OR11, OR21, OR23, OR24, OR29 here, and the
// line-level operations it hands on to mirakl-lines-fake.ts; requests
// already checked against the description). Orders are made from the description's documented
// OR11 example and kept through their states: WAITING_ACCEPTANCE -> (OR21) SHIPPING, or
// WAITING_DEBIT_PAYMENT until the test says the customer paid -> (OR23 tracking, OR24) SHIPPED;
// refused lines REFUSED (every line: the order); OR29 CANCELED. A call the state does not allow
// is answered 400 with the description's error code and changes nothing. The customer's
// addresses are null until the order is accepted (the description: "Null before shipping (or
// acceptance, depending on platform setting)"). OR11 filters by update date the way the
// description says Mirakl does, taking a few minutes off start_update_date, so an import sees
// orders it already has.
import type { MiraklAddress, MiraklOrder, MiraklOrderLine } from "../../../src/marketplaces/mirakl/mirakl.types";
import { description, json, miraklError } from "./mirakl-answers";
import { miraklLinesFake, type LinesOptions, type MiraklLinesFake } from "./mirakl-lines-fake";

export interface FakeLine {
  sku: string;
  quantity: number;
  /** Unit price before tax. */
  unitPrice: number;
  /** Tax on the line's price (all units). */
  tax?: number;
  shipping?: number;
  shippingTax?: number;
  /** A promotion deducted from the line's price. */
  promotion?: number;
  title?: string;
}

export interface FakeOrderSpec {
  id: string;
  state?: string;
  createdAt?: Date;
  lines: FakeLine[];
  address?: Partial<MiraklAddress> | null;
  email?: string;
}

export interface OrdersOptions extends LinesOptions {
  /** Accepted orders wait in WAITING_DEBIT_PAYMENT until paid() (the customer's payment). */
  holdForPayment?: boolean;
  /** Registered carriers (OR23's carrier_code); others must go as carrier_name. */
  carriers?: string[];
  /** What Mirakl takes off start_update_date ("a time delta"): 5 minutes here. */
  updateDelayMs?: number;
  /** Answers prices TAX_INCLUDED whatever the call asks (an operator that ignores order_tax_mode). */
  taxIncludedAlways?: boolean;
  /** Refuse a partial acceptance (ORDER_PARTIAL_ACCEPTANCE_DISABLED). */
  partialAcceptanceDisabled?: boolean;
}

interface Kept {
  order: MiraklOrder;
  accepted: boolean;
  address: MiraklAddress | null;
  billing: MiraklAddress | null;
}

export interface MiraklOrdersFake {
  add(spec: FakeOrderSpec): MiraklOrder;
  /** The order as the fake holds it (its address whatever its state). */
  get(id: string): MiraklOrder | undefined;
  /** Changes an order (a test's odd marketplace data); its update date moves to now. */
  edit(id: string, change: (order: MiraklOrder) => void): void;
  /** The customer paid: WAITING_DEBIT_PAYMENT orders go to SHIPPING. */
  paid(id: string): void;
  /** Shipments, cancellations, refunds and returns (mirakl-lines-fake.ts). */
  lines: MiraklLinesFake;
  handle(operationId: string, params: string[], url: URL, body: unknown): Response;
}

const template = description.examples.OR11.orders[0] as MiraklOrder & Record<string, unknown>;
const round = (n: number) => Math.round(n * 100) / 100;

export function miraklOrdersFake(now: () => Date, opts: OrdersOptions): MiraklOrdersFake {
  const kept = new Map<string, Kept>();
  const carriers = new Set(opts.carriers ?? ["UPS", "FEDEX", "DHL", "COLISSIMO"]);
  const delta = opts.updateDelayMs ?? 5 * 60_000;
  const iso = () => now().toISOString();
  const lines = miraklLinesFake(
    now,
    (id) => kept.get(id),
    (k) => touch(k as Kept),
    carriers,
    opts,
  );

  function touch(k: Kept, lineState?: string) {
    const at = iso();
    k.order.last_updated_date = at;
    for (const line of Array.isArray(k.order.order_lines) ? k.order.order_lines : []) {
      (line as Record<string, unknown>).last_updated_date = at;
      if (lineState && line.order_line_state !== "REFUSED" && line.order_line_state !== "CANCELED") line.order_line_state = lineState;
    }
  }

  function setState(k: Kept, state: string) {
    k.order.order_state = state;
    touch(k, state);
  }

  /** The order as OR11 answers it: addresses hidden until acceptance, prices in the tax mode asked. */
  function view(k: Kept, taxIncluded: boolean): MiraklOrder {
    const order = structuredClone(k.order);
    order.customer = {
      ...order.customer,
      shipping_address: k.accepted ? structuredClone(k.address) : null,
      billing_address: k.accepted ? structuredClone(k.billing) : null,
    };
    const included = taxIncluded || opts.taxIncludedAlways === true;
    order.order_tax_mode = included ? "TAX_INCLUDED" : "TAX_EXCLUDED";
    if (included) {
      for (const line of order.order_lines ?? []) {
        const tax = (line.taxes ?? []).reduce((a, t) => a + (t.amount ?? 0), 0);
        const shippingTax = (line.shipping_taxes ?? []).reduce((a, t) => a + (t.amount ?? 0), 0);
        line.price = round((line.price ?? 0) + tax);
        line.shipping_price = round((line.shipping_price ?? 0) + shippingTax);
        line.total_price = round(line.price + line.shipping_price);
      }
    }
    return order;
  }

  function add(spec: FakeOrderSpec): MiraklOrder {
    const created = (spec.createdAt ?? now()).toISOString();
    const lineTemplate = template.order_lines![0] as MiraklOrderLine & Record<string, unknown>;
    const state = spec.state ?? "WAITING_ACCEPTANCE";
    const lines = spec.lines.map((l, i): MiraklOrderLine => {
      const price = round(l.unitPrice * l.quantity - (l.promotion ?? 0));
      const line = structuredClone(lineTemplate) as MiraklOrderLine & Record<string, unknown>;
      delete line.purchase_information;
      delete line.received_date;
      delete line.shipped_date;
      Object.assign(line, {
        order_line_id: `${spec.id}-${i + 1}`,
        order_line_index: i + 1,
        order_line_state: state,
        offer_sku: l.sku,
        product_shop_sku: l.sku,
        product_sku: `MKP${String(100000 + i)}`,
        product_title: l.title ?? `Product ${l.sku}`,
        quantity: l.quantity,
        price_unit: round(l.unitPrice - (l.promotion ?? 0) / l.quantity),
        origin_unit_price: l.unitPrice,
        price,
        shipping_price: l.shipping ?? 0,
        taxes: l.tax ? [{ amount: l.tax, code: "TAXDEFAULT", rate: 20, tax_calculation_rule: "PROPORTIONAL_TO_AMOUNT" }] : [],
        shipping_taxes: l.shippingTax ? [{ amount: l.shippingTax, code: "TAXDEFAULT", rate: 20, tax_calculation_rule: "PROPORTIONAL_TO_AMOUNT" }] : [],
        promotions: l.promotion ? [{ apportioned: false, configuration: {}, deduced_amount: l.promotion, id: `PROMO-${i + 1}` }] : [],
        fees: [],
        eco_contributions: [],
        refunds: [],
        cancelations: [],
        total_price: round(price + (l.shipping ?? 0)),
        created_date: created,
        last_updated_date: created,
        debited_date: null,
      });
      return line;
    });
    const order = structuredClone(template) as MiraklOrder & Record<string, unknown>;
    Object.assign(order, {
      order_id: spec.id,
      commercial_id: spec.id.replace(/-[A-Z]$/, ""),
      order_state: state,
      created_date: created,
      last_updated_date: created,
      acceptance_decision_date: null,
      customer_debited_date: null,
      customer_notification_email: spec.email ?? `notification+${spec.id.toLowerCase()}@notification.mirakl.net`,
      order_lines: lines,
      order_taxes: undefined,
      price: round(lines.reduce((a, l) => a + (l.price ?? 0), 0)),
      shipping_price: round(lines.reduce((a, l) => a + (l.shipping_price ?? 0), 0)),
      total_price: round(lines.reduce((a, l) => a + (l.total_price ?? 0), 0)),
      shipping_tracking: null,
      shipping_carrier_code: null,
      shipping_company: null,
      can_cancel: true,
    });
    delete order.order_taxes;
    const accepted = !["WAITING_ACCEPTANCE", "STAGING"].includes(state) && !(state === "REFUSED");
    const address = spec.address === null ? null : { ...structuredClone(template.customer!.shipping_address!), phone: "+1 212 555 0100", ...spec.address };
    kept.set(spec.id, { order, accepted, address, billing: structuredClone(template.customer!.billing_address ?? null) });
    return structuredClone(order);
  }

  function list(url: URL): Response {
    const q = url.searchParams;
    const ids = q.get("order_ids")?.split(",");
    const states = q.get("order_state_codes")?.split(",");
    const from = q.has("start_update_date") ? Date.parse(q.get("start_update_date")!) - delta : null;
    const to = q.has("end_update_date") ? Date.parse(q.get("end_update_date")!) : null;
    const matching = [...kept.values()]
      .filter((k) => !ids || ids.includes(k.order.order_id!))
      .filter((k) => !states || states.includes(k.order.order_state!))
      .filter((k) => {
        const updated = Date.parse(k.order.last_updated_date!);
        return (from === null || updated >= from) && (to === null || updated <= to);
      })
      .sort((a, b) => Date.parse(a.order.created_date!) - Date.parse(b.order.created_date!) || (a.order.order_id! < b.order.order_id! ? -1 : 1));
    // The PHP SDK's documented default page is 10 orders.
    const max = Number(q.get("max") ?? "10");
    const offset = Number(q.get("offset") ?? "0");
    const taxIncluded = q.get("order_tax_mode") === "TAX_INCLUDED";
    return json(200, { orders: matching.slice(offset, offset + max).map((k) => view(k, taxIncluded)), total_count: matching.length });
  }

  const invalidState = (k: Kept, op: string) =>
    miraklError(400, `ORDER_INVALID_STATE: order ${k.order.order_id} is ${k.order.order_state}, not in the expected state for ${op}`);

  function accept(k: Kept, body: { order_lines: { id: string; accepted: boolean }[] }): Response {
    if (k.order.order_state !== "WAITING_ACCEPTANCE") return invalidState(k, "OR21");
    const lines = k.order.order_lines ?? [];
    const ids = body.order_lines.map((l) => l.id);
    if (new Set(ids).size !== ids.length) return miraklError(400, "ORDER_LINE_DUPLICATE_ID: the order lines list contains duplicate order line IDs");
    const unknown = ids.filter((id) => !lines.some((l) => l.order_line_id === id));
    if (unknown.length > 0) return miraklError(400, `ORDER_LINE_NOT_FOUND: ${unknown.join(", ")}`);
    if (lines.some((l) => !ids.includes(l.order_line_id!)))
      return miraklError(400, "ORDER_LINE_ACCEPTANCE_DECISION_MISSING: some order lines are missing from the acceptance decision");
    const acceptedCount = body.order_lines.filter((l) => l.accepted).length;
    if (opts.partialAcceptanceDisabled && acceptedCount > 0 && acceptedCount < lines.length)
      return miraklError(400, "ORDER_PARTIAL_ACCEPTANCE_DISABLED: partial acceptance is disabled for this shop");
    const next = acceptedCount === 0 ? "REFUSED" : opts.holdForPayment ? "WAITING_DEBIT_PAYMENT" : "SHIPPING";
    for (const decision of body.order_lines) {
      const line = lines.find((l) => l.order_line_id === decision.id)!;
      line.order_line_state = decision.accepted ? next : "REFUSED";
    }
    k.order.order_state = next;
    k.order.acceptance_decision_date = iso();
    k.accepted = acceptedCount > 0;
    touch(k);
    return new Response(null, { status: 204 });
  }

  function track(k: Kept, body: { carrier_code?: string; carrier_name?: string; carrier_url?: string; tracking_number?: string }): Response {
    if (!["SHIPPING", "SHIPPED"].includes(k.order.order_state!)) return invalidState(k, "OR23");
    if (!body.carrier_code && !body.carrier_name) return miraklError(400, "carrier_code is mandatory for a registered carrier, carrier_name for another");
    if (body.carrier_code && !carriers.has(body.carrier_code)) return miraklError(400, `carrier ${body.carrier_code} is not a registered carrier`);
    k.order.shipping_carrier_code = body.carrier_code ?? null;
    (k.order as Record<string, unknown>).shipping_company = body.carrier_name ?? body.carrier_code;
    k.order.shipping_tracking = body.tracking_number ?? null;
    touch(k);
    return new Response(null, { status: 204 });
  }

  return {
    add,
    get: (id) => {
      const k = kept.get(id);
      return k && structuredClone({ ...k.order, customer: { ...k.order.customer, shipping_address: k.address } });
    },
    edit(id, change) {
      const k = kept.get(id);
      if (!k) throw new Error(`the fake has no order ${id}`);
      change(k.order);
      touch(k);
    },
    paid(id) {
      const k = kept.get(id)!;
      if (k.order.order_state === "WAITING_DEBIT_PAYMENT") setState(k, "SHIPPING");
    },
    lines,
    handle(operationId, params, url, body) {
      if (operationId === "OR11") return list(url);
      const lineLevel = lines.handle(operationId, url, body);
      if (lineLevel) return lineLevel;
      const k = kept.get(params[0] ?? "");
      if (!k) return miraklError(404, `ORDER_NOT_FOUND: the requested order ${params[0]} does not exist`);
      if (operationId === "OR21") return accept(k, body as { order_lines: { id: string; accepted: boolean }[] });
      if (operationId === "OR23") return track(k, body as Record<string, string>);
      if (operationId === "OR24") {
        // Without tracking too (OR23 is optional: a seller may ship by letter).
        if (k.order.order_state !== "SHIPPING") return invalidState(k, "OR24");
        setState(k, "SHIPPED");
        for (const line of k.order.order_lines ?? []) (line as Record<string, unknown>).shipped_date = iso();
        return new Response(null, { status: 204 });
      }
      if (operationId === "OR29") {
        if (!["WAITING_DEBIT", "WAITING_DEBIT_PAYMENT", "SHIPPING"].includes(k.order.order_state!)) return invalidState(k, "OR29");
        setState(k, "CANCELED");
        return new Response(null, { status: 204 });
      }
      return miraklError(501, `${operationId} is not played by this fake yet`);
    },
  };
}
