// The simulated marketplace's returns and refunds (decisions 13), as deterministic as its orders:
// with Settings.returnsEvery = N, every Nth order (index divisible by N) comes back. Its buyer asks
// 6 hours after the order (Requested), the marketplace approves 12 hours after it (Approved) and,
// with Settings.marketplaceRefundsReturns, refunds the unit itself 48 hours after it (Refunded, with
// the refund). A return's record is a function of (source, order index, the window's end), so any
// cycle that asks sees the same returns. Orders named in Settings.refundedOrderNumbers are reported
// with a refund of one unit of their first line, made in the marketplace; refunds the hub sends are
// kept in the source's storage and reported back with their order, under the id they were given.
import { z } from "zod";
import type { ImportedRefund, ImportedReturn, ReturnPage, ReturnsImport, ReturnState, SetAsideReturn } from "../connector";
import { MarketplaceError } from "../connector";
import type { SourceStorage } from "../storage";
import { hash32, indexOfOrderNumber, makeOrder, orderNumberOf, orderNumberPrefix, type Grid } from "./simulated.mapping";

export const simulatedReturnSettings = {
  /** Every Nth order comes back (index divisible by N). None when absent. */
  returnsEvery: z.number().int().min(1).max(1_000_000).optional(),
  /** The marketplace refunds each return itself, 48 hours after its order (the return is then Refunded). */
  marketplaceRefundsReturns: z.boolean().default(false),
  /** Orders reported with a refund the marketplace made (one unit of their first line). */
  refundedOrderNumbers: z.array(z.string()).default([]),
};

const HOUR = 3_600_000;
/** When each step of a return happens, after its order: asked, approved, refunded by the marketplace. */
export const RETURN_STEPS = { requested: 6 * HOUR, approved: 12 * HOUR, refunded: 48 * HOUR } as const;
const REASONS = ["Does not fit", "Arrived damaged", "Not as described", "Changed my mind", "Wrong item sent"];

/** The marketplace's record of a return, in its own words. */
export interface SimulatedReturnRecord {
  returnNumber: string;
  orderNumber: string;
  status: "REQUESTED" | "APPROVED" | "REFUNDED";
  requestedAt: string;
  reason: string;
  lines: { returnLineNumber: string; orderLineNumber: string; quantity: number; reason: string }[];
  refunds: SimulatedRefundRecord[];
}

export interface SimulatedRefundRecord {
  refundId: string;
  createdAt: string;
  reason: string;
  lines: { orderLineNumber: string; quantity: number; amount: number }[];
  shipping: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function returnNumberOf(sourceId: string, k: number): string {
  return `RMA-${orderNumberPrefix(sourceId).slice(3)}-${k}`;
}

/** What one unit of an order's first line cost its buyer (price less discount plus tax, per unit). */
function firstLineUnit(sourceId: string, k: number, intervalMs: number): { line: string; amount: number } {
  const line = makeOrder(sourceId, k, intervalMs).items[0]!;
  return { line: line.sourceLineId, amount: round2((line.unitPrice * line.quantity - Number(line.discount) + line.saleTaxCost) / line.quantity) };
}

/** The marketplace's own refund of one unit of an order's first line (`at`: when it made it). */
export function marketplaceRefund(sourceId: string, k: number, intervalMs: number, at: number, id: string): SimulatedRefundRecord {
  const unit = firstLineUnit(sourceId, k, intervalMs);
  return {
    refundId: id,
    createdAt: new Date(at).toISOString(),
    reason: "Refunded by the marketplace",
    lines: [{ orderLineNumber: unit.line, quantity: 1, amount: unit.amount }],
    shipping: 0,
  };
}

/** Return of order k as the marketplace holds it at `at`, or null when it has not been asked for yet. */
export function makeReturnRecord(sourceId: string, k: number, intervalMs: number, at: number, refunds: boolean): SimulatedReturnRecord | null {
  const created = k * intervalMs;
  if (at < created + RETURN_STEPS.requested) return null;
  const reason = REASONS[hash32(`${sourceId}:${k}:return`) % REASONS.length]!;
  const refunded = refunds && at >= created + RETURN_STEPS.refunded;
  const number = returnNumberOf(sourceId, k);
  return {
    returnNumber: number,
    orderNumber: orderNumberOf(sourceId, k),
    status: refunded ? "REFUNDED" : at >= created + RETURN_STEPS.approved ? "APPROVED" : "REQUESTED",
    requestedAt: new Date(created + RETURN_STEPS.requested).toISOString(),
    reason,
    lines: [{ returnLineNumber: `${number}-1`, orderLineNumber: "1", quantity: 1, reason }],
    refunds: refunded ? [marketplaceRefund(sourceId, k, intervalMs, created + RETURN_STEPS.refunded, `${number}-REFUND`)] : [],
  };
}

const STATES: Record<SimulatedReturnRecord["status"], ReturnState> = { REQUESTED: "Requested", APPROVED: "Approved", REFUNDED: "Refunded" };

/** A refund record in the service's vocabulary. */
export function toImportedRefund(record: SimulatedRefundRecord): ImportedRefund {
  return {
    sourceRefundId: record.refundId,
    createdAt: new Date(record.createdAt),
    reason: record.reason,
    lines: record.lines.map((l) => ({ sourceLineId: l.orderLineNumber, quantity: l.quantity, amount: l.amount })),
    shippingAmount: record.shipping,
    currency: "USD",
  };
}

/** A return record in the service's vocabulary, or set aside with the reason. */
export function mapReturn(raw: unknown): ImportedReturn | SetAsideReturn {
  const record = raw as Partial<SimulatedReturnRecord>;
  const number = typeof record?.returnNumber === "string" ? record.returnNumber : "";
  const state = record?.status ? STATES[record.status] : undefined;
  const requestedAt = new Date(String(record?.requestedAt));
  if (!number || typeof record.orderNumber !== "string" || !state || Number.isNaN(requestedAt.getTime()) || !Array.isArray(record.lines)) {
    return {
      sourceReturnNumber: number || "(none)",
      sourceOrderNumber: typeof record?.orderNumber === "string" ? record.orderNumber : null,
      reason: "the record is not a return this marketplace makes",
      record: raw,
    };
  }
  return {
    sourceReturnNumber: number,
    sourceOrderNumber: record.orderNumber,
    state,
    sourceStatus: record.status!,
    requestedAt,
    reason: record.reason ?? null,
    lines: record.lines.map((l) => ({ sourceReturnLineId: l.returnLineNumber, sourceLineId: l.orderLineNumber, quantity: l.quantity, reason: l.reason })),
    refunds: (record.refunds ?? []).map(toImportedRefund),
    record: raw,
  };
}

interface Deps {
  sourceId: string;
  grid: Grid;
  settings: { returnsEvery?: number; marketplaceRefundsReturns: boolean; pageSize: number };
  /** Throws the configured fault for the operation, if any. */
  fault(body: Record<string, unknown>): void;
  now(): Date;
}

/**
 * The returns import: returns that changed (a step happened) at or after `since` and before
 * `until`, each as it stands at `until`, in order index order; the cursor is the next index.
 */
export function simulatedReturns({ sourceId, grid, settings, fault, now }: Deps): ReturnsImport {
  const every = settings.returnsEvery!;
  const steps = settings.marketplaceRefundsReturns
    ? [RETURN_STEPS.requested, RETURN_STEPS.approved, RETURN_STEPS.refunded]
    : [RETURN_STEPS.requested, RETURN_STEPS.approved];
  const exists = (k: number) => k * grid.intervalMs >= grid.startAt && (grid.endAt === null || k * grid.intervalMs <= grid.endAt);
  return {
    async fetchReturns(window, cursor) {
      fault({ since: window.since.toISOString(), until: window.until.toISOString(), cursor });
      const since = window.since.getTime();
      const until = window.until.getTime();
      // Orders whose some step falls in the window: from the earliest step's first to the latest's last.
      const first = Math.ceil((since - Math.max(...steps)) / grid.intervalMs);
      const last = Math.floor((until - 1 - Math.min(...steps)) / grid.intervalMs);
      let k = cursor === null ? Math.ceil(Math.max(first, 0) / every) * every : Number(cursor);
      if (!Number.isSafeInteger(k) || k % every !== 0) throw new MarketplaceError(`Simulated marketplace 400 INVALID_CURSOR: '${cursor}'`, 400, false);
      const page: SimulatedReturnRecord[] = [];
      for (; k <= last && page.length < settings.pageSize; k += every) {
        const created = k * grid.intervalMs;
        if (!exists(k) || !steps.some((d) => created + d >= since && created + d < until)) continue;
        const record = makeReturnRecord(sourceId, k, grid.intervalMs, until - 1, settings.marketplaceRefundsReturns);
        if (record) page.push(record);
      }
      const out: ReturnPage = { returns: [], setAside: [], nextCursor: k <= last ? String(k) : null };
      for (const record of page) {
        const mapped = mapReturn(record);
        if ("lines" in mapped) out.returns.push(mapped);
        else out.setAside.push(mapped);
      }
      return out;
    },
    remap(record) {
      const number = typeof record === "object" && record !== null && "orderNumber" in record ? String(record.orderNumber) : "";
      const k = indexOfOrderNumber(sourceId, number);
      if (k === null)
        return { sourceReturnNumber: "(none)", sourceOrderNumber: number || null, reason: "the record names no order of this marketplace", record };
      // Asked again, the marketplace answers with the return as it stands now.
      return mapReturn(makeReturnRecord(sourceId, k, grid.intervalMs, now().getTime(), settings.marketplaceRefundsReturns) ?? record);
    },
  };
}

const REFUND_PREFIX = "simulated:refunds:";

/** Refunds the marketplace took from the hub for an order, as it reports them back. */
export function refundsTaken(storage: SourceStorage, orderNumber: string): SimulatedRefundRecord[] {
  return storage.get<SimulatedRefundRecord[]>(`${REFUND_PREFIX}${orderNumber}`) ?? [];
}

export function keepRefund(storage: SourceStorage, orderNumber: string, refund: SimulatedRefundRecord): void {
  storage.put(`${REFUND_PREFIX}${orderNumber}`, [...refundsTaken(storage, orderNumber), refund]);
}
