// What the seller does with a return (decisions 13), as pure functions of (return, request): a
// receipt (Receive) and a decision on a requested return (Approve, Reject). Each answers what to
// change and what to tell the marketplace, "none" for a repeat that changes nothing, or throws a
// 400 saying why the request cannot apply.
import { ApiError } from "../http/errors";
import type { ReturnView } from "./returns.queries";
import { STATUS_RANK } from "./returns.queries";
import type { DecisionBody, ReceiveBody, ReturnStatus } from "./returns.schemas";

export interface Receipt {
  /** Each changed line: [line id, received, restocked]. */
  lines: [number, number, number][];
  /** What goes back in stock, by Sku (Restock). */
  restock: [string, number][];
  /** What this receipt adds, per return line (the delivery's lines). */
  added: { returnLineId: number; quantity: number }[];
  status: ReturnStatus;
}

/**
 * A receipt: Items give, per order line of the return, how many came back in all so far (so a
 * repeated call adds nothing). What a line gains is spread over its return lines in order.
 */
export function receive(ret: ReturnView, body: ReceiveBody): Receipt | "none" {
  if (ret.status === "Rejected" || ret.status === "Closed") {
    throw new ApiError(400, `Return ${ret.id} is ${ret.status}; nothing more can be received against it.`);
  }
  const changed = new Map<number, [number, number, number]>();
  const restock = new Map<string, number>();
  const added: Receipt["added"] = [];
  body.Items.forEach((item, i) => {
    const lines = ret.lines.filter((l) => String(l.orderItemId) === item.OrderItemId);
    if (lines.length === 0) throw new ApiError(400, `'Items[${i}].OrderItemId': '${item.OrderItemId.slice(0, 40)}' is not a line of return ${ret.id}.`);
    const returned = lines.reduce((n, l) => n + l.quantity, 0);
    const received = lines.reduce((n, l) => n + l.quantityReceived, 0);
    if (item.Quantity > returned) {
      throw new ApiError(
        400,
        `'Items[${i}].Quantity': ${item.Quantity} is more than the ${returned} of line ${item.OrderItemId} (${lines[0]!.sku}) that return ${ret.id} takes ` +
          `back.`,
      );
    }
    if (item.Quantity < received) {
      throw new ApiError(
        400,
        `'Items[${i}].Quantity': ${item.Quantity} is less than the ${received} of line ${item.OrderItemId} already received; Quantity is how many came ` +
          `back in all, and a receipt cannot be undone.`,
      );
    }
    let more = item.Quantity - received;
    for (const line of lines) {
      const take = Math.min(more, line.quantity - line.quantityReceived);
      if (take <= 0) continue;
      more -= take;
      changed.set(line.id, [line.id, line.quantityReceived + take, line.quantityRestocked + (body.Restock ? take : 0)]);
      added.push({ returnLineId: line.id, quantity: take });
      if (body.Restock) restock.set(line.sku, (restock.get(line.sku) ?? 0) + take);
    }
  });
  if (added.length === 0) return "none";
  const after = ret.lines.map((l) => changed.get(l.id)?.[1] ?? l.quantityReceived);
  const complete = ret.lines.every((l, i) => after[i]! >= l.quantity);
  const status: ReturnStatus = complete && STATUS_RANK[ret.status] < STATUS_RANK.Received ? "Received" : ret.status;
  return { lines: [...changed.values()], restock: [...restock], added, status };
}

export interface Decision {
  status: "Approved" | "Rejected";
  reason: string | null;
}

/** The seller approves or rejects a Requested return; the same decision again changes nothing. */
export function decide(ret: ReturnView, decision: "approve" | "reject", body: DecisionBody): Decision | "none" {
  const status = decision === "approve" ? "Approved" : "Rejected";
  if (ret.status === status) return "none";
  if (ret.status !== "Requested") {
    throw new ApiError(400, `Return ${ret.id} is ${ret.status}; only a Requested return can be ${decision === "approve" ? "approved" : "rejected"}.`);
  }
  return { status, reason: body.Reason ?? null };
}
