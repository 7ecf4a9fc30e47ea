// A source's rows as the admin API answers them (PascalCase): sources with their status, cycle
// summaries, deliveries and set-aside orders and returns. The one place camelCase turns into the wire form.
import type { z } from "zod";
import { toWireDate } from "../lib/dates";
import type { OutboxCounts, OutboxEntry } from "../outbox/outbox.queries";
import { readCycles, type CycleSummary } from "./cycle-summary";
import type { SetAsideRow } from "./set-aside.queries";
import type { SourceType } from "../marketplaces/registry";
import type { SourceRow } from "./sources.queries";
import type { SetAsideReturnRow } from "./set-aside-returns.queries";
import type { cycleAnswer, deliveryAnswer, setAsideAnswer, setAsideReturnAnswer, sourceAnswer } from "./sources.schemas";

export function toWireCycle(s: CycleSummary): z.input<typeof cycleAnswer> {
  return {
    SourceId: s.sourceId,
    Name: s.name,
    Type: s.type,
    Ran: s.ran,
    DateStarted: toWireDate(s.startedAt),
    DateEnded: toWireDate(s.endedAt),
    OrdersFetched: s.fetched,
    OrdersImported: s.imported,
    OrdersSetAside: s.setAside,
    ImportContinues: s.more,
    Delivered: s.delivered,
    DeliveriesSubmitted: s.submitted,
    DeliveriesNotApplicable: s.notApplicable,
    DeliveriesRetrying: s.retrying,
    DeliveriesFailed: s.failed,
    DeliveriesPending: s.pendingDeliveries,
    DeliveriesSubmittedTotal: s.submittedDeliveries,
    DeliveriesFailedTotal: s.failedDeliveries,
    ReturnsFetched: s.returnsFetched,
    ReturnsImported: s.returnsImported,
    ReturnsSetAside: s.returnsSetAside,
    D1Statements: s.statements,
    Continues: s.continues,
    Error: s.error,
  };
}

export interface SourceStatus {
  deliveries: OutboxCounts;
  setAside: number;
  returnsSetAside: number;
}

export function wireSource(row: SourceRow, settings: Record<string, unknown>, status: SourceStatus): z.input<typeof sourceAnswer> {
  return {
    SourceId: row.id,
    StoreId: row.storeId,
    // A source's Type is checked against the registry when it is created and never changes.
    Type: row.type as SourceType,
    Name: row.name,
    Enabled: row.enabled,
    Settings: settings,
    DateCreated: toWireDate(row.createdAt),
    DateUpdated: toWireDate(row.updatedAt),
    Status: {
      DateLastCycleStarted: toWireDate(row.lastCycleStartedAt),
      DateLastCycleEnded: toWireDate(row.lastCycleEndedAt),
      LastCycleImported: row.lastCycleImported,
      ImportedTotal: row.importedTotal,
      DeliveriesPending: status.deliveries.pending,
      DeliveriesSubmitted: status.deliveries.submitted,
      DeliveriesFailed: status.deliveries.failed,
      SetAside: status.setAside,
      ReturnsSetAside: status.returnsSetAside,
      LastError: row.lastError,
      Cursor: toWireDate(row.cursorAt),
      ReturnsCursor: toWireDate(row.returnsCursorAt),
      /** The last 20 cycles, newest first: when a marketplace started failing, and how. */
      RecentCycles: readCycles(row.recentCycles).map(toWireCycle),
    },
  };
}

export function wireDelivery(d: OutboxEntry): z.input<typeof deliveryAnswer> {
  return {
    DeliveryId: String(d.id),
    OrderId: String(d.orderId),
    Kind: d.kind,
    Status: d.state,
    Attempts: d.attempts,
    DateNextAttempt: d.state === "pending" ? toWireDate(d.nextAttemptAt) : null,
    LastError: d.lastError ?? (d.unreadable !== null ? `Unreadable: ${d.unreadable}` : null),
    /** The marketplace's reference (a submission, a fulfillment), when it gave one. */
    Reference: d.reference,
    /** What the marketplace noted on a delivered row, or why the row is NotApplicable. */
    Warning: d.warning,
    DateCreated: toWireDate(d.createdAt),
    DateDelivered: toWireDate(d.deliveredAt),
  };
}

/** A set-aside record as kept: its JSON, or the text as stored when it was cut at 64 KiB or is not JSON. */
function keptRecord(row: { record: string; recordTruncated: boolean }): unknown {
  if (row.recordTruncated) return row.record;
  try {
    return JSON.parse(row.record);
  } catch {
    return row.record;
  }
}

export function wireSetAside(row: SetAsideRow): z.input<typeof setAsideAnswer> {
  return {
    OrderSourceOrderNumber: row.orderSourceOrderNumber,
    Reason: row.reason,
    /** The marketplace's record (JSON), or the start of it as text when it was over 64 KiB. */
    Record: keptRecord(row),
    RecordTruncated: row.recordTruncated,
    DateFirstSeen: toWireDate(row.firstSeenAt),
    DateLastSeen: toWireDate(row.lastSeenAt),
  };
}

export function wireSetAsideReturn(row: SetAsideReturnRow): z.input<typeof setAsideReturnAnswer> {
  return {
    ReturnSourceNumber: row.sourceReturnNumber,
    OrderSourceOrderNumber: row.orderSourceOrderNumber,
    Reason: row.reason,
    Record: keptRecord(row),
    RecordTruncated: row.recordTruncated,
    DateFirstSeen: toWireDate(row.firstSeenAt),
    DateLastSeen: toWireDate(row.lastSeenAt),
  };
}
