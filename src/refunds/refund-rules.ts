// What a seller's refund (PUT /v1/{token}/Orders/{orderId}/Refund, decisions 13) comes to, as a
// pure function of the order's lines, what was refunded before and the request: each line's
// amount (the line's paid amount per unit times Quantity by default), the total, and the request's
// key (the same call again finds the refund it made). Throws a 400 naming the field when the
// request names a line not of the order or of its return, or asks for more than is left of a line
// or of the shipping. The batch that records it checks the same limits again inside D1
// (refunds.queries.ts), so two refunds racing cannot pass them together.
import { ApiError } from "../http/errors";
import { sha256Hex } from "../lib/crypto";

/** A line of the order, as a refund needs it. */
export interface RefundableLine {
  id: number;
  sku: string;
  quantity: number;
  unitPrice: number;
  saleTaxCost: number;
  /** The line's discount, a decimal amount as the interface reports it. */
  discount: string;
}

/** What earlier refunds of the order took, per line (by id) and of the shipping. */
export interface RefundedSoFar {
  quantity: Map<number, number>;
  amount: Map<number, number>;
  shipping: number;
}

/** The return a refund names: its id and lines (order line id and quantity returned). */
export interface ReturnLinesOf {
  id: number;
  lines: { orderItemId: number; quantity: number }[];
}

export interface RefundRequest {
  Items?: { OrderItemId: string; Quantity: number; Amount?: number }[];
  ShippingAmount?: number;
  Reason: string;
  ReturnId?: string;
}

export interface DecidedRefund {
  lines: { orderItemId: number; quantity: number; amount: number }[];
  shippingAmount: number;
  total: number;
  reason: string;
  returnId: number | null;
}

/** Amounts are compared to the cent: float sums may differ from the exact one by less than this. */
export const CENT_TOLERANCE = 0.005;

export const round2 = (n: number) => Math.round(n * 100) / 100;
const money = (n: number) => n.toFixed(2);

/**
 * What the buyer paid for a line: UnitPrice × Quantity − Discount + SaleTaxCost, to the cent. The
 * same formula is written in SQL where the refund is recorded (refunds.queries.ts, PAID_SQL).
 */
export function paidFor(line: Pick<RefundableLine, "quantity" | "unitPrice" | "saleTaxCost" | "discount">): number {
  const discount = Number(line.discount);
  return round2(line.unitPrice * line.quantity - (Number.isFinite(discount) ? discount : 0) + line.saleTaxCost);
}

/**
 * The refund a request asks for, or a 400 naming the field. Without Items, a refund naming a
 * return refunds what the return takes back (its lines' returned quantities not yet refunded);
 * one naming no return refunds only its ShippingAmount.
 */
export function decideRefund(
  order: { id: number; shippingTotal: number; shippingTaxTotal: number },
  lines: RefundableLine[],
  soFar: RefundedSoFar,
  returned: ReturnLinesOf | null,
  request: RefundRequest,
): DecidedRefund {
  const byId = new Map(lines.map((l) => [l.id, l]));
  const returnedOf = returned ? new Map(returned.lines.map((l) => [l.orderItemId, returnedOfLine(returned, l.orderItemId)])) : null;
  const asked: { field: string; line: RefundableLine; quantity: number; amount?: number }[] = [];
  if (request.Items) {
    request.Items.forEach((item, i) => {
      const field = `Items[${i}]`;
      const id = /^[1-9]\d{0,15}$/.test(item.OrderItemId) ? Number(item.OrderItemId) : NaN;
      const line = byId.get(id);
      if (!line) throw new ApiError(400, `'${field}.OrderItemId': '${item.OrderItemId.slice(0, 40)}' is not a line of order ${order.id}.`);
      if (returnedOf && !returnedOf.has(line.id)) {
        throw new ApiError(400, `'${field}.OrderItemId': line ${line.id} is not a line of return ${returned!.id}.`);
      }
      asked.push({ field, line, quantity: item.Quantity, amount: item.Amount });
    });
  } else if (returned) {
    for (const [id, quantity] of returnedOf!) {
      const line = byId.get(id);
      const left = line ? Math.min(quantity, line.quantity - (soFar.quantity.get(id) ?? 0)) : 0;
      if (line && left > 0) asked.push({ field: `ReturnId`, line, quantity: left });
    }
    if (asked.length === 0 && !request.ShippingAmount) {
      throw new ApiError(400, `'ReturnId': every line of return ${returned.id} is refunded already; name Items to refund an amount of a line.`);
    }
  }
  const decided: DecidedRefund["lines"] = [];
  for (const { field, line, quantity, amount } of asked) {
    const refundedQuantity = soFar.quantity.get(line.id) ?? 0;
    const refundedAmount = soFar.amount.get(line.id) ?? 0;
    const paid = paidFor(line);
    if (refundedQuantity + quantity > line.quantity) {
      throw new ApiError(
        400,
        `'${field}.Quantity': ${quantity} is more than the ${line.quantity - refundedQuantity} of line ${line.id} (${line.sku}) not yet refunded (ordered ` +
          `${line.quantity}, refunded ${refundedQuantity}).`,
      );
    }
    if (returnedOf && quantity > (returnedOf.get(line.id) ?? 0)) {
      throw new ApiError(
        400,
        `'${field}.Quantity': ${quantity} is more than the ${returnedOf.get(line.id)} of line ${line.id} that return ${returned!.id} takes back.`,
      );
    }
    // The last units of a line take what is left of it, so refunding a line unit by unit adds
    // up to what was paid, to the cent.
    const byDefault = refundedQuantity + quantity === line.quantity ? round2(paid - refundedAmount) : round2((paid / line.quantity) * quantity);
    const value = amount ?? byDefault;
    if (refundedAmount + value > paid + CENT_TOLERANCE) {
      throw new ApiError(
        400,
        `'${field}${amount === undefined ? ".Quantity" : ".Amount"}': ${money(value)} is more than the ${money(Math.max(0, paid - refundedAmount))} of ` +
          `line ${line.id} (${line.sku}) not yet refunded (paid ${money(paid)}, refunded ${money(refundedAmount)}).`,
      );
    }
    if (!(value > 0))
      throw new ApiError(
        400,
        `'${field}.Quantity': line ${line.id} (${line.sku}) has nothing left to refund (paid ${money(paid)}, refunded ${money(refundedAmount)}).`,
      );
    decided.push({ orderItemId: line.id, quantity, amount: value });
  }
  const shippingAmount = request.ShippingAmount ?? 0;
  const shippingPaid = round2(order.shippingTotal + order.shippingTaxTotal);
  if (soFar.shipping + shippingAmount > shippingPaid + CENT_TOLERANCE) {
    throw new ApiError(
      400,
      `'ShippingAmount': ${money(shippingAmount)} is more than the ${money(Math.max(0, shippingPaid - soFar.shipping))} of shipping not yet refunded (paid ` +
        `${money(shippingPaid)}, refunded ${money(soFar.shipping)}).`,
    );
  }
  const total = round2(decided.reduce((n, l) => n + l.amount, 0) + shippingAmount);
  if (!(total > 0)) throw new ApiError(400, "'Items' is required: name the lines to refund (or a ReturnId, or a ShippingAmount above 0).");
  return { lines: decided, shippingAmount, total, reason: request.Reason, returnId: returned?.id ?? null };
}

/** What a return takes back of a line (a marketplace may list one order line on several return lines). */
function returnedOfLine(returned: ReturnLinesOf, orderItemId: number): number {
  return returned.lines.filter((l) => l.orderItemId === orderItemId).reduce((n, l) => n + l.quantity, 0);
}

/**
 * The request's key: the same lines, quantities, amounts, shipping, reason and return give the
 * same key whatever the order the Items came in, so a client's retry records nothing new.
 */
export async function refundRequestKey(request: RefundRequest): Promise<string> {
  const items = (request.Items ?? [])
    .map((i) => [i.OrderItemId, i.Quantity, i.Amount ?? null] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return sha256Hex(JSON.stringify([items, request.ShippingAmount ?? 0, request.Reason, request.ReturnId ?? null]));
}
