// A page of marketplace return records split into returns and set-aside returns, one record at a
// time, the way orders-page.ts splits orders: whatever a record makes the mapper throw (its own
// Unmappable, or a TypeError of a field that is not the published shape) sets that record aside
// with the reason, and the rest of the page is imported. The same reading serves the operator's
// retry (ReturnsImport.remap). leastAdvanced gives the state of a return whose lines (or rows)
// are in several states.
import { MarketplaceError, RETURN_STATES, type ImportedReturn, type ReturnPage, type ReturnState, type SetAsideReturn } from "../connector";
import { Unmappable } from "./orders-page";

/** How a connector reads one record of its returns list. */
export interface ReturnReader {
  /** The record as a return; throws Unmappable (or anything else) when it cannot be one. */
  map(record: unknown): ImportedReturn;
  /** The return's number and the order it names, read from whatever the record is ("" / null when none). */
  numbersOf(record: unknown): { sourceReturnNumber: string; sourceOrderNumber: string | null };
  /** The reason the operator reads, from the mapper's message. */
  reason(message: string): string;
}

/** The record as a return, or set aside with the reason whatever the mapper threw. */
export function readReturn(reader: ReturnReader, record: unknown): ImportedReturn | SetAsideReturn {
  try {
    return reader.map(record);
  } catch (error) {
    let numbers = { sourceReturnNumber: "", sourceOrderNumber: null as string | null };
    try {
      numbers = reader.numbersOf(record);
    } catch {
      // A record too odd even for its numbers is kept under "".
    }
    const message =
      error instanceof Unmappable
        ? error.message
        : `the record does not have the shape the marketplace publishes (${error instanceof Error ? error.message : "unreadable"})`;
    return { ...numbers, reason: reader.reason(message), record };
  }
}

/** The returns and set-aside returns of one page's records; `records` not a list is a retryable MarketplaceError. */
export function splitReturns(reader: ReturnReader, records: unknown, label: string): Pick<ReturnPage, "returns" | "setAside"> {
  if (!Array.isArray(records)) throw new MarketplaceError(`${label}: the answer's returns list is not a list`, 200, true);
  const page: Pick<ReturnPage, "returns" | "setAside"> = { returns: [], setAside: [] };
  for (const record of records as unknown[]) {
    const read = readReturn(reader, record);
    if ("lines" in read) page.returns.push(read);
    else page.setAside.push(read);
  }
  return page;
}

/** The least advanced of a return's states (in RETURN_STATES' order): what the return still waits for. */
export function leastAdvanced(states: ReturnState[]): ReturnState {
  return states.reduce((least, s) => (RETURN_STATES.indexOf(s) < RETURN_STATES.indexOf(least) ? s : least));
}
