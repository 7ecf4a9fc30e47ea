// Returns in through RT11 `GET /api/returns` (decisions 13): the window by last update, Mirakl's
// seek pages followed by their next_page_token, each return mapped to the service's states (the
// pure mapping is mapMiraklReturn) or set aside with the reason. RT11 is polled at most every 15
// minutes (the description's recommended usage; its maximum is every 5).
import {
  type ImportedReturn,
  type ImportWindow,
  MarketplaceError,
  type ReturnPage,
  type ReturnState,
  type ReturnsImport,
  type SetAsideReturn,
} from "../connector";
import type { SourceStorage } from "../storage";
import type { MiraklClient } from "./mirakl.client";
import { paceWait } from "./mirakl.pacing";
import type { MiraklReturn, MiraklSeekPage } from "./mirakl.types";

/** RT11's recommended usage: every 15 minutes. */
export const RETURNS_PACE_MS = 15 * 60_000;
/** Returns a page (seek paging's `limit`: the parameter names are UNCONFIRMED in the description). */
export const RETURNS_PAGE_SIZE = 100;
const POLLED_AT = "mirakl:rt11:polledAt";

/** Mirakl's return states to section 13's. A return the customer cancelled, or that never came back, is Closed. */
export const RETURN_STATE_MAP: Record<string, ReturnState> = {
  WAITING_ACCEPTANCE: "Requested",
  IN_PROGRESS: "Approved",
  RECEIVED: "Received",
  REFUSED: "Rejected",
  CLOSED: "Closed",
  NO_RECEPTION: "Closed",
  CANCELED: "Closed",
};

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

/** One RT11 record as a return, or set aside with what is wrong. */
export function mapMiraklReturn(record: unknown): ImportedReturn | SetAsideReturn {
  const r = (typeof record === "object" && record !== null ? record : {}) as MiraklReturn;
  const number = text(r.id);
  const orderNumber = text(r.order_id);
  const aside = (reason: string): SetAsideReturn => ({
    sourceReturnNumber: number || "(no id)",
    sourceOrderNumber: orderNumber || null,
    reason: `Mirakl return ${number || "(no id)"} ${reason}`,
    record,
  });
  if (!number) return aside("has no id");
  if (!orderNumber) return aside("has no order_id");
  const sourceStatus = text(r.state);
  const state = RETURN_STATE_MAP[sourceStatus];
  if (!state) return aside(`is in state ${JSON.stringify(sourceStatus)}, which the connector does not know`);
  const requested = Date.parse(text(r.date_created));
  if (!Number.isFinite(requested)) return aside(`has no readable date_created (${JSON.stringify(r.date_created)})`);
  const lines = Array.isArray(r.return_lines) ? r.return_lines : [];
  if (lines.length === 0) return aside("has no return lines");
  const seen = new Set<string>();
  const mapped: ImportedReturn["lines"] = [];
  for (const [i, line] of lines.entries()) {
    const lineId = text(line?.order_line_id);
    if (!lineId) return aside(`line #${i + 1} has no order_line_id`);
    // RT11's lines have no id of their own: the order line's is unique within the return.
    if (seen.has(lineId)) return aside(`names order line ${lineId} twice`);
    seen.add(lineId);
    const quantity = line.quantity;
    if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity <= 0)
      return aside(`line ${lineId}: quantity ${JSON.stringify(quantity)} is not a positive whole number`);
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
      const page: ReturnPage = { returns: [], setAside: [], nextCursor: null };
      for (const record of body.data) {
        const mapped = mapMiraklReturn(record);
        if ("state" in mapped) page.returns.push(mapped);
        else page.setAside.push(mapped);
      }
      const next = text(body.next_page_token);
      // A token that comes back as the one just read would read the same page for ever.
      page.nextCursor = next && next !== cursor && body.data.length > 0 ? next : null;
      return page;
    },
    remap: mapMiraklReturn,
  };
}
