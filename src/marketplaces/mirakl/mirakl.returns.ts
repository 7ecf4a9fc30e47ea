// Returns in through RT11 `GET /api/returns` (decisions 13): the window by last update, Mirakl's
// seek pages followed by their next_page_token, each return mapped to the service's states (the
// pure mapping is mapMiraklReturn) or set aside with the reason by the kit (kit/returns-page.ts). RT11 is polled at most every 15
// minutes (the description's recommended usage; its maximum is every 5).
import { type ImportedReturn, type ImportWindow, MarketplaceError, type ReturnPage, type ReturnState, type ReturnsImport } from "../connector";
import { Unmappable } from "../kit/orders-page";
import { readReturn, splitReturns, type ReturnReader } from "../kit/returns-page";
import type { SourceStorage } from "../storage";
import type { MiraklClient } from "./mirakl.client";
import { paceWait } from "./mirakl.pacing";
import type { MiraklReturn, MiraklSeekPage } from "./mirakl.types";

/** RT11's recommended usage: every 15 minutes. */
const RETURNS_PACE_MS = 15 * 60_000;
/** Returns a page (seek paging's `limit`: the parameter names are UNCONFIRMED in the description). */
const RETURNS_PAGE_SIZE = 100;
const POLLED_AT = "mirakl:rt11:polledAt";

/** Mirakl's return states to section 13's. A return the customer cancelled, or that never came back, is Closed. */
const RETURN_STATE_MAP: Record<string, ReturnState> = {
  WAITING_ACCEPTANCE: "Requested",
  IN_PROGRESS: "Approved",
  RECEIVED: "Received",
  REFUSED: "Rejected",
  CLOSED: "Closed",
  NO_RECEPTION: "Closed",
  CANCELED: "Closed",
};

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

const asReturn = (record: unknown): MiraklReturn => (typeof record === "object" && record !== null ? record : {}) as MiraklReturn;
const numberOf = (r: MiraklReturn): string => text(r.id) || "(no id)";

/** One RT11 record as a return; throws Unmappable saying what is wrong. */
function mapMiraklReturn(record: unknown): ImportedReturn {
  const r = asReturn(record);
  const number = text(r.id);
  const orderNumber = text(r.order_id);
  const unmappable = (reason: string) => new Unmappable(`return ${numberOf(r)} ${reason}`);
  if (!number) throw unmappable("has no id");
  if (!orderNumber) throw unmappable("has no order_id");
  const sourceStatus = text(r.state);
  const state = RETURN_STATE_MAP[sourceStatus];
  if (!state) throw unmappable(`is in state ${JSON.stringify(sourceStatus)}, which the connector does not know`);
  const requested = Date.parse(text(r.date_created));
  if (!Number.isFinite(requested)) throw unmappable(`has no readable date_created (${JSON.stringify(r.date_created)})`);
  const lines = Array.isArray(r.return_lines) ? r.return_lines : [];
  if (lines.length === 0) throw unmappable("has no return lines");
  const seen = new Set<string>();
  const mapped: ImportedReturn["lines"] = [];
  for (const [i, line] of lines.entries()) {
    const lineId = text(line?.order_line_id);
    if (!lineId) throw unmappable(`line #${i + 1} has no order_line_id`);
    // RT11's lines have no id of their own: the order line's is unique within the return.
    if (seen.has(lineId)) throw unmappable(`names order line ${lineId} twice`);
    seen.add(lineId);
    const quantity = line.quantity;
    if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity <= 0)
      throw unmappable(`line ${lineId}: quantity ${JSON.stringify(quantity)} is not a positive whole number`);
    mapped.push({ sourceReturnLineId: lineId, sourceLineId: lineId, quantity, reason: text(line.reason_code) || null });
  }
  const reason = state === "Rejected" ? text(r.rejection_reason_code) || text(r.reason_code) : text(r.reason_code);
  return {
    sourceReturnNumber: number,
    sourceOrderNumber: orderNumber,
    state,
    sourceStatus,
    requestedAt: new Date(requested),
    reason: reason || null,
    lines: mapped,
    sourceData: text(r.rma) ? { rma: text(r.rma) } : {},
    record,
  };
}

/** How the kit reads an RT11 record: a return, or set aside with the reason (kit/returns-page.ts). */
const miraklReturnReader: ReturnReader = {
  map: mapMiraklReturn,
  numbersOf: (record) => ({ sourceReturnNumber: numberOf(asReturn(record)), sourceOrderNumber: text(asReturn(record).order_id) || null }),
  reason: (message) => `Mirakl ${message}`,
};

export function miraklReturns(client: MiraklClient, storage: SourceStorage, now: () => number): ReturnsImport {
  return {
    async fetchReturns(window: ImportWindow, cursor: string | null): Promise<ReturnPage> {
      if (window.since.getTime() >= window.until.getTime()) return { returns: [], setAside: [], nextCursor: null };
      let query: Record<string, string>;
      if (cursor === null) {
        const wait = paceWait(storage.get<number>(POLLED_AT), now(), RETURNS_PACE_MS);
        if (wait > 0) {
          throw new MarketplaceError(
            `Mirakl RT11 is polled at most every 15 minutes (the description's recommended usage): the next poll fits in ${Math.ceil(wait / 1000)} s`,
            429,
            true,
            wait,
          );
        }
        storage.put(POLLED_AT, now());
        query = { return_last_updated_from: window.since.toISOString(), return_last_updated_to: window.until.toISOString(), limit: String(RETURNS_PAGE_SIZE) };
      } else {
        // A seek token carries the query it was made for.
        query = { page_token: cursor, limit: String(RETURNS_PAGE_SIZE) };
      }
      const body = (await client.json("RT11", "GET", "/api/returns", { query })) as MiraklSeekPage<unknown> | null;
      if (!Array.isArray(body?.data)) throw new MarketplaceError("Mirakl RT11 answered nonsense: no data list", 200, true);
      const next = text(body.next_page_token);
      // A token that comes back as the one just read would read the same page for ever.
      return { ...splitReturns(miraklReturnReader, body.data, "Mirakl RT11"), nextCursor: next && next !== cursor && body.data.length > 0 ? next : null };
    },
    remap: (record) => readReturn(miraklReturnReader, record),
  };
}
