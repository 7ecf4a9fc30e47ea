// The returns and refunds half of the fake Shopify (shopify-fake.ts validates every request against
// the returns-and-refunds extract and executes it over these resolvers): an order's `returns`
// (fixtures added by addReturn, their line items naming the order's line items through
// fulfillmentLineItem), refundCreate (keyed by its @idempotent key: the same key answers the refund
// it made and applies nothing again; refunding more units than are left of a line, or a line of
// another order, is a userError and changes nothing; a refund raises the refundedQuantity of the
// return lines of its line items), and returnApproveRequest / returnDeclineRequest (only a REQUESTED
// return; anything else is ReturnUserError INVALID_STATE).
import type { Json } from "./shopify-fixtures";

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
      line.refundableQuantity = (line.refundableQuantity as number) - (w.quantity as number);
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
    const refund = { id: `gid://shopify/Refund/${8000 + serial}`, legacyResourceId: String(8000 + serial), note: input.note ?? null, createdAt: deps.nowIso() };
    (order.refunds as Json[]).push(refund);
    order.updatedAt = deps.nowIso();
    const payload = { refund, order, userErrors: [] };
    if (key) byKey.set(key, payload);
    refunds.push({ key, input: structuredClone(input), refundId: refund.id });
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
    /** refundCreate calls that made a refund, oldest first (a repeated key makes none). */
    refunds,
  };
}
