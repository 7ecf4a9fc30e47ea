// A source's imported page of returns as one write (decisions 13): the returns whose order the
// hub holds (with every line they name) and their lines, their return.created and return.updated
// events, the refunds the marketplace reports with them (order.refunded, the orders' DateUpdated),
// and the returns set aside (decisions 6: unmappable, or naming an order or a line the hub does not
// hold), all in one D1 batch. The engine's returns import writes each page through here, and so
// does the operator's retry of set-aside returns.
import type { Db } from "../db/client";
import { randomId } from "../lib/crypto";
import type { ImportedReturn, ReturnPage, ReturnsImport, SetAsideReturn } from "../marketplaces/connector";
import { heldOrderLines } from "../orders/orders.queries";
import { importedReturnStatements, returnsWrittenBy, type ImportedReturnWrite } from "../returns/returns.queries";
import { returnEvents, toD1 } from "../webhooks/webhook-deliveries.queries";
import { importedRefundsStatements, refundWrites, type ImportSource } from "./imported-page";
import { listSetAsideReturns, setAsideReturnStatements } from "./set-aside-returns.queries";

export interface ReturnsWritten {
  /** Returns the source did not hold before. */
  imported: number;
  /** Set aside: by the connector, or here (order or line not held). */
  setAside: number;
}

/** The page's returns checked against the orders the hub holds: those to write, those set aside. */
async function split(db: Db, source: ImportSource, page: Pick<ReturnPage, "returns" | "setAside">) {
  const held = await heldOrderLines(
    db,
    source,
    page.returns.map((r) => r.sourceOrderNumber),
  );
  const writes: ImportedReturn[] = [];
  const aside: SetAsideReturn[] = [...page.setAside];
  for (const r of page.returns) {
    const lines = held.get(r.sourceOrderNumber);
    const setAside = (reason: string) =>
      aside.push({ sourceReturnNumber: r.sourceReturnNumber, sourceOrderNumber: r.sourceOrderNumber, reason, record: r.record });
    if (!lines) {
      setAside(`order ${r.sourceOrderNumber} is not held by the hub (not imported yet, or older than the source's first import); retry once it is`);
      continue;
    }
    // A line named by SKU only (sourceLineId ""): the order's one line of that SKU.
    let bySku: string | null = null;
    const resolved = r.lines.map((l) => {
      if (l.sourceLineId !== "" || l.sku === undefined) return l;
      const ids = [...lines].filter(([, sku]) => sku === l.sku).map(([id]) => id);
      if (ids.length !== 1) bySku ??= `order ${r.sourceOrderNumber} as the hub holds it has ${ids.length === 0 ? "no line" : "several lines"} of SKU ${l.sku}`;
      return { ...l, sourceLineId: ids.length === 1 ? ids[0]! : "" };
    });
    const unknown = resolved.find((l) => !lines.has(l.sourceLineId));
    if (r.lines.length === 0) setAside("the return names no line of its order");
    else if (bySku) setAside(bySku);
    else if (unknown) setAside(`line ${unknown.sourceLineId} is not a line of order ${r.sourceOrderNumber} as the hub holds it`);
    else writes.push({ ...r, lines: resolved });
  }
  return { writes, aside };
}

const toWrite = (r: ImportedReturn): ImportedReturnWrite => ({
  number: r.sourceReturnNumber,
  orderNumber: r.sourceOrderNumber,
  state: r.state,
  sourceStatus: r.sourceStatus,
  requestedAt: r.requestedAt.getTime(),
  reason: r.reason,
  sourceData: r.sourceData && Object.keys(r.sourceData).length > 0 ? JSON.stringify(r.sourceData) : null,
  lines: r.lines.map((l) => ({ sourceReturnLineId: l.sourceReturnLineId, sourceLineId: l.sourceLineId, quantity: l.quantity, reason: l.reason })),
});

/** Writes one page; answers how many of its returns were new and how many were set aside. */
export async function writeReturnsPage(db: Db, source: ImportSource, page: Pick<ReturnPage, "returns" | "setAside">, now: number): Promise<ReturnsWritten> {
  const { writes, aside } = await split(db, source, page);
  const lastWrite = randomId("rw");
  const numbers = writes.map((r) => r.sourceReturnNumber);
  const refundRows = writes.flatMap((r) => refundWrites(r.sourceOrderNumber, r.sourceReturnNumber, r.refunds));
  const d1 = db.$client;
  const statements: D1PreparedStatement[] = [];
  if (writes.length > 0) {
    statements.push(
      d1
        .prepare("select count(*) as n from returns where store_id = ?1 and source_id = ?2 and source_return_number in (select value from json_each(?3))")
        .bind(source.storeId, source.id, JSON.stringify(numbers)),
      ...importedReturnStatements(db, source, writes.map(toWrite), lastWrite, now),
      toD1(db, returnEvents(db, "return.created", now, returnsWrittenBy(source, numbers, lastWrite, "new"))),
      toD1(db, returnEvents(db, "return.updated", now, returnsWrittenBy(source, numbers, lastWrite, "upd"))),
      ...importedRefundsStatements(db, source, refundRows, lastWrite, now),
    );
  }
  statements.push(...setAsideReturnStatements(db, source, { written: numbers, setAside: aside }, now));
  if (statements.length === 0) return { imported: 0, setAside: 0 };
  const results = await d1.batch<{ n: number }>(statements);
  const known = writes.length > 0 ? (results[0]?.results[0]?.n ?? 0) : 0;
  return { imported: writes.length - known, setAside: aside.length };
}

export interface SetAsideReturnsRetry {
  retried: number;
  imported: number;
  stillSetAside: number;
}

/**
 * The operator's retry of set-aside returns (all, or those named): each kept record is mapped
 * again by the source's connector and written as an imported page would be, which sets it aside
 * again (with the reason of now) if its order is still not held.
 */
export async function retrySetAsideReturns(
  db: Db,
  source: ImportSource,
  reader: ReturnsImport,
  now: number,
  numbers: string[] | null,
): Promise<SetAsideReturnsRetry> {
  const named = numbers === null ? null : new Set(numbers);
  const rows = (await listSetAsideReturns(db, source.id, 1000)).filter((r) => named === null || named.has(r.sourceReturnNumber));
  const mapped: ImportedReturn[] = [];
  const aside: SetAsideReturn[] = [];
  let truncated = 0;
  for (const row of rows) {
    if (row.recordTruncated) {
      truncated += 1;
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(row.record);
    } catch {
      aside.push({
        sourceReturnNumber: row.sourceReturnNumber,
        sourceOrderNumber: row.orderSourceOrderNumber,
        reason: "the kept record is not JSON",
        record: row.record,
      });
      continue;
    }
    let again: ImportedReturn | SetAsideReturn;
    try {
      again = reader.remap(record);
    } catch (error) {
      again = {
        sourceReturnNumber: row.sourceReturnNumber,
        sourceOrderNumber: row.orderSourceOrderNumber,
        reason: `the record could not be read: ${error instanceof Error ? error.message : String(error)}`,
        record,
      };
    }
    if (!("lines" in again)) aside.push({ ...again, sourceReturnNumber: row.sourceReturnNumber });
    else if (again.sourceReturnNumber !== row.sourceReturnNumber) {
      aside.push({
        sourceReturnNumber: row.sourceReturnNumber,
        sourceOrderNumber: row.orderSourceOrderNumber,
        reason: `the record maps to another return (${again.sourceReturnNumber})`,
        record,
      });
    } else mapped.push(again);
  }
  let imported = 0;
  let stillSetAside = truncated;
  for (let i = 0; i < Math.max(mapped.length, aside.length); i += 100) {
    const written = await writeReturnsPage(db, source, { returns: mapped.slice(i, i + 100), setAside: aside.slice(i, i + 100) }, now);
    imported += written.imported;
    stillSetAside += written.setAside;
  }
  return { retried: rows.length - truncated, imported, stillSetAside };
}
