// The returns and refunds half of the fake Shopify (shopify-fake.ts validates every request against
// the returns-and-refunds extract and executes it over these resolvers): an order's `returns`
// (fixtures added by addReturn, their line items naming the order's line items through
// fulfillmentLineItem), refundCreate (keyed by its @idempotent key: the same key answers the refund
// it made and applies nothing again; refunding more units than are left of a line, or a line of
// another order, is a userError and changes nothing; a refund raises the refundedQuantity of the
// return lines of its line items), and returnApproveRequest / returnDeclineRequest (only a REQUESTED
// return; anything else is ReturnUserError INVALID_STATE). Every refund, the hub's or one a test
// makes as the merchant would in Shopify's admin (recordRefund), is a whole Refund in the schema's
// shape (its line items with amounts and restock type, totalRefundedSet) and moves its line items'
// counts: currentQuantity and refundableQuantity drop; units that had not shipped (restockType
// CANCEL, or refunded beyond the shipped units not refunded yet) leave fulfilment
// (unfulfilledQuantity, the fulfillment order line's remainingQuantity and totalQuantity).
import { money, type Json } from "./shopify-fixtures";

interface Deps {
  orders: Json[];
  violations: string[];
  nowIso(): string;
}

export interface ReturnSpec {
  status: "REQUESTED" | "OPEN" | "DECLINED" | "CLOSED" | "CANCELED";
  /** Lines of the order (by index) and the units returned; `refunded` units already refunded. */
  lines: { line: number; quantity: number; refunded?: number; note?: string }[];
  createdAt?: string;
}

export interface RefundLineSpec {
  line: Json;
  quantity: number;
  restockType: "CANCEL" | "NO_RESTOCK" | "RETURN" | "LEGACY_RESTOCK";
}

const cents = (bag: unknown) => Math.round(Number(((bag as Json | null)?.shopMoney as Json | undefined)?.amount ?? 0) * 100);
const fromCents = (c: number) => (c / 100).toFixed(2);

/** A refund of these units (and a shipping amount) on the order, with every count it moves; answers the Refund. */
export function recordRefund(deps: Pick<Deps, "nowIso">, order: Json, id: number, lines: RefundLineSpec[], shipping: string, note: string | null): Json {
  const currency = ((order.totalPriceSet as Json).shopMoney as Json).currencyCode as string;
  let total = Math.round(Number(shipping) * 100);
  const refundLineItems = lines.map((l, i) => {
    const line = l.line;
    const quantity = line.quantity as number;
    const discount = (line.discountAllocations as Json[]).reduce((s, d) => s + cents(d.allocatedAmountSet), 0);
    const tax = (line.taxLines as Json[]).reduce((s, t) => s + cents(t.priceSet), 0);
    const subtotal = Math.round(((cents(line.originalUnitPriceSet) * quantity - discount) * l.quantity) / quantity);
    const lineTax = Math.round((tax * l.quantity) / quantity);
    total += subtotal + lineTax;
    line.currentQuantity = (line.currentQuantity as number) - l.quantity;
    line.refundableQuantity = (line.refundableQuantity as number) - l.quantity;
    // Units refunded beyond the shipped ones not refunded yet were never sent: they leave fulfilment.
    const shippedLeft = ((line.fulfilledQuantity as number | undefined) ?? 0) - ((line.refundedShipped as number | undefined) ?? 0);
    const offShipped = l.restockType === "CANCEL" ? 0 : Math.min(l.quantity, shippedLeft);
    line.refundedShipped = ((line.refundedShipped as number | undefined) ?? 0) + offShipped;
    let unsent = l.quantity - offShipped;
    line.unfulfilledQuantity = (line.unfulfilledQuantity as number) - unsent;
    line.nonFulfillableQuantity = (line.nonFulfillableQuantity as number) + unsent;
    for (const fo of order.fulfillmentOrders as Json[]) {
      for (const fl of fo.lineItems as Json[]) {
        if (fl.lineItem !== line || unsent === 0) continue;
        const take = Math.min(unsent, fl.remainingQuantity as number);
        fl.remainingQuantity = (fl.remainingQuantity as number) - take;
        fl.totalQuantity = (fl.totalQuantity as number) - take;
        unsent -= take;
      }
    }
    return {
      id: `gid://shopify/RefundLineItem/${id * 10 + i + 1}`,
      quantity: l.quantity,
      restockType: l.restockType,
      restocked: l.restockType === "CANCEL" || l.restockType === "RETURN",
      lineItem: line,
      location: null,
      priceSet: line.originalUnitPriceSet,
      subtotalSet: money(fromCents(subtotal), currency),
      totalTaxSet: money(fromCents(lineTax), currency),
    };
  });
  const refund: Json = {
    id: `gid://shopify/Refund/${id}`,
    legacyResourceId: String(id),
    note,
    createdAt: deps.nowIso(),
    processedAt: deps.nowIso(),
    updatedAt: deps.nowIso(),
    totalRefundedSet: money(fromCents(total), currency),
    refundLineItems,
    duties: [],
    return: null,
  };
  (order.refunds as Json[]).push(refund);
  const refunded = (order.refunds as Json[]).reduce((s, r) => s + cents(r.totalRefundedSet), 0);
  order.displayFinancialStatus = refunded >= cents(order.totalPriceSet) ? "REFUNDED" : "PARTIALLY_REFUNDED";
  order.updatedAt = deps.nowIso();
  return refund;
}

export function shopifyReturnsFake(deps: Deps) {
  let serial = 0;
  const byKey = new Map<string, Json>();
  const refunds: { key: string | null; input: Json; refundId: string }[] = [];
  for (const order of deps.orders) {
    order.returns ??= [];
    order.refunds ??= [];
  }

  const allReturns = () => deps.orders.flatMap((o) => (o.returns as Json[]).map((r) => ({ order: o, r })));

  function addReturn(orderLegacyId: string, spec: ReturnSpec): string {
    const order = deps.orders.find((o) => o.legacyResourceId === orderLegacyId);
    if (!order) throw new Error(`the fake has no order ${orderLegacyId}`);
    const lineItems = (order.lineItems as Json[] | undefined) ?? [];
    serial += 1;
    const id = `gid://shopify/Return/${7000 + serial}`;
    (order.returns as Json[]).push({
      id,
      name: `${order.name as string}-R${(order.returns as Json[]).length + 1}`,
      status: spec.status,
      createdAt: spec.createdAt ?? deps.nowIso(),
      closedAt: null,
      totalQuantity: spec.lines.reduce((n, l) => n + l.quantity, 0),
      returnLineItems: spec.lines.map((l, i) => ({
        __typename: "ReturnLineItem",
        id: `gid://shopify/ReturnLineItem/${(7000 + serial) * 10 + i + 1}`,
        quantity: l.quantity,
        refundedQuantity: l.refunded ?? 0,
        refundableQuantity: l.quantity - (l.refunded ?? 0),
        returnReasonNote: l.note ?? "",
        fulfillmentLineItem: { id: `gid://shopify/FulfillmentLineItem/${(7000 + serial) * 10 + i + 1}`, quantity: l.quantity, lineItem: lineItems[l.line] },
      })),
    });
    order.updatedAt = deps.nowIso();
    return id;
  }

  function refundCreate(args: { input: Json }, context: { idempotencyKey: string | null }) {
    const key = context.idempotencyKey;
    if (key && byKey.has(key)) return byKey.get(key)!;
    const input = args.input;
    const order = deps.orders.find((o) => o.id === input.orderId);
    const userError = (field: string[], message: string) => ({ refund: null, order: null, userErrors: [{ field, message }] });
    if (!order) return userError(["orderId"], "Order does not exist");
    const lines = (order.lineItems as Json[] | undefined) ?? [];
    const wanted = (input.refundLineItems as Json[] | null) ?? [];
    for (const [i, w] of wanted.entries()) {
      const line = lines.find((l) => l.id === w.lineItemId);
      if (!line) return userError(["refundLineItems", String(i), "lineItemId"], "Line item does not belong to this order");
      if (!((w.quantity as number) > 0) || (w.quantity as number) > (line.refundableQuantity as number)) {
        return userError(["refundLineItems", String(i), "quantity"], "Quantity cannot refund more items than were purchased");
      }
    }
    for (const w of wanted) {
      const line = lines.find((l) => l.id === w.lineItemId)!;
      let left = w.quantity as number;
      for (const r of order.returns as Json[]) {
        for (const rl of r.returnLineItems as Json[]) {
          if ((rl.fulfillmentLineItem as Json).lineItem !== line || left === 0) continue;
          const take = Math.min(left, (rl.quantity as number) - (rl.refundedQuantity as number));
          rl.refundedQuantity = (rl.refundedQuantity as number) + take;
          rl.refundableQuantity = (rl.quantity as number) - (rl.refundedQuantity as number);
          left -= take;
        }
      }
    }
    serial += 1;
    const refund = recordRefund(
      deps,
      order,
      8000 + serial,
      wanted.map((w) => ({ line: lines.find((l) => l.id === w.lineItemId)!, quantity: w.quantity as number, restockType: w.restockType as "NO_RESTOCK" })),
      String((input.shipping as Json | null)?.amount ?? "0"),
      (input.note as string | null) ?? null,
    );
    const payload = { refund, order, userErrors: [] };
    if (key) byKey.set(key, payload);
    refunds.push({ key, input: structuredClone(input), refundId: refund.id as string });
    return payload;
  }

  function decide(args: { input: Json }, to: "OPEN" | "DECLINED") {
    const hit = allReturns().find((x) => x.r.id === args.input.id);
    if (!hit) return { return: null, userErrors: [{ field: ["input", "id"], message: "Return does not exist", code: "NOT_FOUND" }] };
    if (hit.r.status !== "REQUESTED") {
      return { return: null, userErrors: [{ field: ["input", "id"], message: `Return is ${hit.r.status as string}, not REQUESTED`, code: "INVALID_STATE" }] };
    }
    hit.r.status = to;
    if (to === "DECLINED") hit.r.decline = { reason: args.input.declineReason, note: args.input.declineNote ?? null };
    hit.order.updatedAt = deps.nowIso();
    return { return: hit.r, userErrors: [] };
  }

  return {
    root: {
      refundCreate,
      returnApproveRequest: (args: { input: Json }) => decide(args, "OPEN"),
      returnDeclineRequest: (args: { input: Json }) => decide(args, "DECLINED"),
      return: (args: { id: string }) => allReturns().find((x) => x.r.id === args.id)?.r ?? null,
    },
    addReturn,
    /** A refund made in Shopify's admin (not through the API): the next serial's id. */
    refundInAdmin(order: Json, lines: RefundLineSpec[], shipping = "0", note: string | null = null): Json {
      serial += 1;
      return recordRefund(deps, order, 8000 + serial, lines, shipping, note);
    },
    /** refundCreate calls that made a refund, oldest first (a repeated key makes none). */
    refunds,
  };
}
