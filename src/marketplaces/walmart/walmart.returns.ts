// Walmart returns in and refunds out (decisions 13), from Walmart's Returns Management description
// (returns.openapi.json): GET /v3/returns on the returns' own window and cursor, each return order
// mapped to one return of one purchase order (its lines' states, refunds reported per line by
// refundedQty), and POST /v3/returns/{returnOrderId}/refund naming the return lines a refund
// settles. The mapping is pure; the calls go through the connector's `call`.
import {
  MarketplaceError,
  type DeliveryOutcome,
  type ImportedRefund,
  type ImportedReturn,
  type RefundDelivery,
  type ReturnPage,
  type ReturnState,
  type ReturnsImport,
} from "../connector";
import { refusal, readJsonAnswer } from "../kit/marketplace-http";
import { Unmappable } from "../kit/orders-page";
import { leastAdvanced, readReturn, splitReturns, type ReturnReader } from "../kit/returns-page";
import type { WalmartCurrency, WalmartRefundRequest, WalmartReturnLine, WalmartReturnList, WalmartReturnOrder } from "./walmart.types";

/** The description's largest page ("Cannot be larger than 200"). */
export const RETURNS_PAGE_SIZE = 200;

/**
 * A return line's state. Walmart authorises a buyer's return itself (the buyer prints the label
 * at once; the description has no approve or decline call), so INITIATED is already Approved.
 * A line refunded whole is Refunded whatever its delivery status (Walmart refunds some lines
 * before they come back); COMPLETED without a refund is Closed.
 */
function lineState(line: WalmartReturnLine, refunded: number, quantity: number): ReturnState | null {
  if (refunded >= quantity) return "Refunded";
  switch (line.status) {
    case "INITIATED":
      return "Approved";
    case "DELIVERED":
      return "Received";
    case "COMPLETED":
      return "Closed";
    default:
      return null;
  }
}

const unmappable = (message: string) => new Unmappable(message);

function wholeNumber(raw: unknown, where: string): number {
  const n = typeof raw === "number" ? raw : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw unmappable(`${where} is ${JSON.stringify(raw)}, not a whole number`);
  return n;
}

const cents = (money: WalmartCurrency | null | undefined): number => {
  const n = Number(money?.currencyAmount ?? 0);
  return Number.isFinite(n) ? Math.round(n * 100) : 0;
};

/**
 * Units of a line Walmart counts as refunded: refundedQty ("the quantity for which customer was
 * refunded"). The description's only example pairs refundedQty 1 with currentRefundStatus
 * NOT_REFUNDED, so the count is what is read; a REFUNDED status without a count is the whole line.
 */
function refundedOf(line: WalmartReturnLine, quantity: number, where: string): number {
  const raw = line.refundedQty;
  if (raw === null || raw === undefined) return line.currentRefundStatus === "REFUNDED" ? quantity : 0;
  return Math.min(quantity, wholeNumber(raw, `${where} refundedQty`));
}

/** Per unit: the line's billable product charges (discounts taken off) with their taxes, and its shipping charges, in cents. */
function perUnit(line: WalmartReturnLine): { itemCents: number; shippingCents: number } {
  let itemCents = 0;
  let shippingCents = 0;
  for (const charge of line.charges ?? []) {
    if (charge.isBillable === false) continue;
    const tax = (charge.tax ?? []).reduce((n, t) => n + cents(t.taxPerUnit), 0);
    const amount = (charge.isDiscount ? -Math.abs(cents(charge.chargePerUnit)) : cents(charge.chargePerUnit)) + tax;
    if ((charge.chargeCategory ?? "").toUpperCase() === "SHIPPING") shippingCents += amount;
    else itemCents += amount;
  }
  return { itemCents, shippingCents };
}

function dateOf(raw: unknown, where: string): Date {
  const ms = typeof raw === "string" ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw unmappable(`${where} is ${JSON.stringify(raw)}, not a date`);
  return new Date(ms);
}

/** sourceData.lines: "returnOrderLineNumber=purchaseOrderLineNumber", comma separated. */
function linesData(pairs: [number, string][]): string {
  return pairs.map(([r, l]) => `${r}=${l}`).join(",");
}

/** Order line -> its return lines (a return can take one order line back in several lines). */
function readLinesData(text: string | undefined): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const pair of (text ?? "").split(",")) {
    const [r, l] = pair.split("=");
    if (r && l && /^\d+$/.test(r)) out.set(l, [...(out.get(l) ?? []), Number(r)]);
  }
  return out;
}

/** The reference a refund of these return lines is known by, sent or imported: `<returnOrderId>:<lines>`. */
export function refundReference(returnOrderId: string, returnLines: number[]): string {
  return `${returnOrderId}:${[...returnLines].sort((a, b) => a - b).join(",")}`;
}

export function mapWalmartReturn(record: WalmartReturnOrder): ImportedReturn {
  const id = record.returnOrderId;
  if (typeof id !== "string" || id === "") throw unmappable("sent a return without returnOrderId");
  const where = `return ${id}`;
  const lines = record.returnOrderLines ?? [];
  if (!Array.isArray(lines) || lines.length === 0) throw unmappable(`${where} has no return lines`);
  const orders = [...new Set(lines.map((l) => l.purchaseOrderId ?? ""))];
  if (orders.includes("")) throw unmappable(`${where} has a line without purchaseOrderId`);
  // A customer order can hold several purchase orders; the hub keeps a return per order.
  if (orders.length > 1) throw unmappable(`${where} returns lines of purchase orders ${orders.join(" and ")}; the hub keeps one order per return`);

  const states: ReturnState[] = [];
  const refundLines: ImportedRefund["lines"] = [];
  const refundedLineNumbers: number[] = [];
  let shippingCents = 0;
  let currency: string | null = null;
  let refundedAt = 0;
  const pairs: [number, string][] = [];
  const mapped = lines.map((line, index) => {
    const lineWhere = `${where} line ${line.returnOrderLineNumber ?? `#${index + 1}`}`;
    const returnLine = wholeNumber(line.returnOrderLineNumber, `${lineWhere} returnOrderLineNumber`);
    const orderLine = String(wholeNumber(line.purchaseOrderLineNumber, `${lineWhere} purchaseOrderLineNumber`));
    const quantity = wholeNumber(line.quantity?.measurementValue, `${lineWhere} quantity`);
    if (quantity === 0) throw unmappable(`${lineWhere} returns 0 units`);
    const refunded = refundedOf(line, quantity, lineWhere);
    const state = lineState(line, refunded, quantity);
    if (!state) throw unmappable(`${lineWhere} has status ${JSON.stringify(line.status)}, not one the description lists (INITIATED, DELIVERED, COMPLETED)`);
    states.push(state);
    pairs.push([returnLine, orderLine]);
    if (refunded > 0) {
      const unit = perUnit(line);
      refundLines.push({ sourceLineId: orderLine, quantity: refunded, amount: (unit.itemCents * refunded) / 100 });
      shippingCents += unit.shippingCents * refunded;
      refundedLineNumbers.push(returnLine);
      currency ??= line.charges?.find((c) => c.chargePerUnit?.currencyUnit)?.chargePerUnit?.currencyUnit ?? null;
      const at = Date.parse(line.statusTime ?? "");
      if (Number.isFinite(at)) refundedAt = Math.max(refundedAt, at);
    }
    return { sourceReturnLineId: String(returnLine), sourceLineId: orderLine, quantity, reason: line.returnReason ?? null };
  });
  const requestedAt = dateOf(record.returnOrderDate, `${where} returnOrderDate`);
  // The least advanced line wins: that is what the return still waits for.
  const state = leastAdvanced(states);
  // One refund per return, named by the lines refunded so far: what a refund the hub sent for
  // the whole return is answered with (refundReference), so the import recognises it.
  const refunds: ImportedRefund[] =
    refundLines.length === 0
      ? []
      : [
          {
            sourceRefundId: refundReference(id, refundedLineNumbers),
            createdAt: new Date(refundedAt || requestedAt.getTime()),
            reason: lines.find((l) => l.returnReason)?.returnReason ?? null,
            lines: refundLines,
            shippingAmount: shippingCents / 100,
            currency: currency ?? record.totalRefundAmount?.currencyUnit ?? null,
          },
        ];
  return {
    sourceReturnNumber: id,
    sourceOrderNumber: orders[0]!,
    state,
    sourceStatus: [...new Set(lines.map((l) => l.status ?? ""))].join("/"),
    requestedAt,
    reason: lines.find((l) => l.returnReason)?.returnReason ?? null,
    lines: mapped,
    refunds,
    sourceData: { customerOrderId: record.customerOrderId ?? "", lines: linesData(pairs) },
    record,
  };
}

export const walmartReturnReader: ReturnReader = {
  map: (record) => mapWalmartReturn((typeof record === "object" && record !== null ? record : {}) as WalmartReturnOrder),
  numbersOf: (record) => {
    const r = (record ?? {}) as WalmartReturnOrder;
    const order = r.returnOrderLines?.[0]?.purchaseOrderId;
    return { sourceReturnNumber: typeof r.returnOrderId === "string" ? r.returnOrderId : "", sourceOrderNumber: typeof order === "string" ? order : null };
  },
  reason: (message) => `Walmart ${message}`,
};

interface Deps {
  call(method: "GET" | "POST", path: string, body?: unknown): Promise<Response>;
  httpError(response: Response): Promise<MarketplaceError>;
}

/** The body of a returns list answer, or an empty page for Walmart's 404 CONTENT_NOT_FOUND. */
async function listAnswer(deps: Deps, path: string): Promise<WalmartReturnList> {
  const response = await deps.call("GET", path);
  if (response.status === 404) {
    const error = await deps.httpError(response);
    if (/CONTENT_NOT_FOUND/.test(error.message)) return { returnOrders: [] };
    throw error;
  }
  if (!response.ok) throw await deps.httpError(response);
  const body = (await readJsonAnswer(response, "Walmart GET /v3/returns")) as WalmartReturnList | null;
  if (!body || typeof body !== "object" || !Array.isArray(body.returnOrders)) {
    throw new MarketplaceError("Walmart GET /v3/returns answer has no returnOrders list", response.status, true);
  }
  return body;
}

export function walmartReturns(deps: Deps): { returns: ReturnsImport; refund(delivery: RefundDelivery): Promise<DeliveryOutcome> } {
  return {
    returns: {
      async fetchReturns(window, cursor): Promise<ReturnPage> {
        // Changed at or after since, before until (fixed for every page); nextCursor is a
        // query string sent back as it is, like the orders'.
        const path = cursor
          ? `/v3/returns${cursor.startsWith("?") ? cursor : `?${cursor}`}`
          : `/v3/returns?${new URLSearchParams({
              returnLastModifiedStartDate: window.since.toISOString(),
              returnLastModifiedEndDate: window.until.toISOString(),
              limit: String(RETURNS_PAGE_SIZE),
            })}`;
        const body = await listAnswer(deps, path);
        const next = body.meta?.nextCursor;
        const records = body.returnOrders ?? [];
        return {
          ...splitReturns(walmartReturnReader, records, "Walmart GET /v3/returns"),
          // A page without returns ends the import whatever it names next.
          nextCursor: records.length > 0 && typeof next === "string" && next.trim() !== "" && next !== cursor ? next : null,
        };
      },
      remap: (record) => readReturn(walmartReturnReader, record),
    },

    async refund(delivery) {
      const ret = delivery.return;
      if (!ret) {
        return {
          state: "notApplicable",
          reason: "Walmart refunds a return through the return's refund call; a refund naming no Walmart return is made in Seller Center",
        };
      }
      const returnOrderId = ret.sourceReturnNumber;
      const byOrderLine = readLinesData(ret.sourceData.lines);
      const wanted: { returnLine: number; asked: number; sourceLineId: string }[] = [];
      for (const line of delivery.lines) {
        const returnLines = byOrderLine.get(line.sourceLineId);
        if (!returnLines)
          throw refusal("Walmart", `cannot refund order line ${line.sourceLineId} through return ${returnOrderId}: the return does not take it back`);
        for (const returnLine of returnLines) wanted.push({ returnLine, asked: line.quantity, sourceLineId: line.sourceLineId });
      }
      if (wanted.length === 0) throw refusal("Walmart", `cannot refund return ${returnOrderId} without lines: Walmart refunds return lines, not amounts`);

      // Walmart's refund call takes no idempotency key: the return as Walmart now shows it says
      // which lines a call made before (a retry after a lost answer) already refunded.
      const now = await listAnswer(deps, `/v3/returns?${new URLSearchParams({ returnOrderId })}`);
      const record = now.returnOrders?.find((r) => r.returnOrderId === returnOrderId);
      if (!record) throw new MarketplaceError(`Walmart does not list return ${returnOrderId} (yet)`, 404, true);
      const current = new Map((record.returnOrderLines ?? []).map((l) => [Number(l.returnOrderLineNumber), l]));
      const warnings: string[] = [];
      const toSend: number[] = [];
      for (const { returnLine, asked, sourceLineId } of wanted) {
        const line = current.get(returnLine);
        if (!line) throw refusal("Walmart", `return ${returnOrderId} has no line ${returnLine} any more`);
        const quantity = Number(line.quantity?.measurementValue ?? 0);
        if (refundedOf(line, quantity, `return ${returnOrderId} line ${returnLine}`) >= quantity) continue;
        if (asked < quantity) warnings.push(`line ${sourceLineId}: Walmart refunds the return line whole (${quantity} units, ${asked} asked)`);
        toSend.push(returnLine);
      }
      if (delivery.shippingAmount > 0) warnings.push(`shipping ${delivery.shippingAmount.toFixed(2)}: Walmart computes the return's refund itself`);
      const reference = refundReference(
        returnOrderId,
        wanted.map((w) => w.returnLine),
      );
      if (toSend.length === 0) return { state: "delivered", reference, warning: null };
      const body: WalmartRefundRequest = {
        customerOrderId: record.customerOrderId ?? ret.sourceData.customerOrderId ?? "",
        refundLines: toSend.map((returnOrderLineNumber) => ({ returnOrderLineNumber })),
      };
      const response = await deps.call("POST", `/v3/returns/${encodeURIComponent(returnOrderId)}/refund`, body);
      if (!response.ok) throw await deps.httpError(response);
      await response.body?.cancel();
      return { state: "delivered", reference, warning: warnings.length > 0 ? warnings.join("; ") : null };
    },
  };
}
