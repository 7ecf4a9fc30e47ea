// Mirakl stock and price (decisions 11), from Mirakl's published seller description. Mirakl
// answers neither at once: both are imports it processes later, so every push is a submission
// (ListingsSubmission with threshold 0) checked in later cycles.
//
// - Quantity alone: STO01 `POST /api/offers/stock/imports`, a multipart `file` holding the CSV
//   `"offer-sku";"quantity";"warehouse-code";"update-delete"` (no warehouse: the offer's global
//   quantity). It sets the quantity and nothing else, so it takes any number of Skus.
// - A price (with the quantity when that changed too): OF24 `POST /api/offers`, which resets
//   every offer field it is not sent. Each offer is first read with OF21 `GET /api/offers?sku=`
//   and sent back whole with the new values (mirakl.offers.ts). One read a Sku: at most
//   PRICE_READS a cycle; a price left over waits for the next cycle (its quantity goes by STO01).
// - Outcome: STO02 / OF02 (the import's status) until COMPLETE or FAILED, then STO03 / OF03 (the
//   error report, a CSV of the lines in error) for the Skus refused.
// - Pace: STO01 and OF24 at most every 5 minutes, each import's status every 5 minutes from its
//   submission (the descriptions' recommended usage). A cycle that comes sooner sends nothing and
//   leaves the Skus pending.
import { parse } from "csv-parse/sync";
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingsSubmission, type ListingUpdate } from "../connector";
import { readCappedText } from "../kit/marketplace-http";
import type { SourceStorage } from "../storage";
import type { MiraklClient } from "./mirakl.client";
import { offerProblem, offerUpdate } from "./mirakl.offers";
import { MIRAKL_PACES, paceWait } from "./mirakl.pacing";
import type { MiraklOffer, MiraklOfferUpdate } from "./mirakl.types";

/** OF21 reads (one a priced Sku) a cycle makes at most. */
export const PRICE_READS = 100;
/** Skus one submission takes: a cycle's STO01 file and its OF24 offers together. */
const SUBMISSION_SIZE = 10_000;

const lastCall = (op: "STO01" | "OF24") => `mirakl:listings:${op}At`;
const checkedAt = (part: string) => `mirakl:listings:checked:${part}`;

interface Deps {
  client: MiraklClient;
  storage: SourceStorage;
  now: () => number;
}

type ItemResult = { ok: true } | { ok: false; kind: "unknownSku" | "refused" | "retry"; message: string };

export function miraklListings({ client, storage, now }: Deps): ListingsPush {
  /** The shop's offer with exactly this SKU, or null when Mirakl has none. */
  async function readOffer(sku: string): Promise<MiraklOffer | null> {
    const body = (await client.json("OF21", "GET", "/api/offers", { query: { sku, max: "10", offset: "0" } })) as { offers?: unknown } | null;
    if (!Array.isArray(body?.offers)) throw new MarketplaceError("Mirakl OF21 answered nonsense: no offers list", 200, true);
    return (body.offers as MiraklOffer[]).find((o) => o?.shop_sku === sku) ?? null;
  }

  async function importStock(updates: ListingUpdate[]): Promise<string> {
    const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
    const rows = [["offer-sku", "quantity", "warehouse-code", "update-delete"], ...updates.map((u) => [u.sku, String(u.quantity), "", "update"])];
    const form = new FormData();
    form.append("file", new Blob([rows.map((r) => r.map(quote).join(";")).join("\n") + "\n"], { type: "text/csv" }), "stock.csv");
    storage.put(lastCall("STO01"), now());
    const answer = (await client.json("STO01", "POST", "/api/offers/stock/imports", { form })) as { import_id?: unknown } | null;
    const id = answer?.import_id;
    if ((typeof id !== "string" && typeof id !== "number") || String(id) === "")
      throw new MarketplaceError("Mirakl STO01 answered without an import_id", 201, true);
    return String(id);
  }

  async function importOffers(offers: MiraklOfferUpdate[]): Promise<string> {
    storage.put(lastCall("OF24"), now());
    const answer = (await client.json("OF24", "POST", "/api/offers", { json: { offers } })) as { import_id?: unknown } | null;
    const id = answer?.import_id;
    if (typeof id !== "number" && typeof id !== "string") throw new MarketplaceError("Mirakl OF24 answered without an import_id", 201, true);
    return String(id);
  }

  const submission: ListingsSubmission = {
    threshold: 0,
    size: SUBMISSION_SIZE,
    async submit(updates) {
      const at = now();
      const stockOpen = paceWait(storage.get<number>(lastCall("STO01")), at, MIRAKL_PACES.STO01) === 0;
      const offersOpen = paceWait(storage.get<number>(lastCall("OF24")), at, MIRAKL_PACES.OF24) === 0;
      const outcomes = new Map<string, ListingOutcome>();
      const offers: { update: ListingUpdate; offer: MiraklOfferUpdate }[] = [];
      const viaStock: ListingUpdate[] = [];
      let reads = 0;
      let readFailure: MarketplaceError | null = null;
      for (const u of updates) {
        if (u.price === null) {
          if (stockOpen) viaStock.push(u);
          continue;
        }
        if (offersOpen && reads < PRICE_READS && !readFailure) {
          reads += 1;
          let offer: MiraklOffer | null = null;
          try {
            offer = await readOffer(u.sku);
          } catch (error) {
            if (!(error instanceof MarketplaceError) || !error.retryable) throw error;
            readFailure = error;
          }
          if (!readFailure) {
            if (!offer) {
              outcomes.set(u.sku, { state: "unknownSku", message: `Mirakl has no offer with shop SKU ${u.sku}` });
              continue;
            }
            const problem = offerProblem(offer, u);
            if (!problem) {
              offers.push({ update: u, offer: offerUpdate(offer, u) });
              continue;
            }
            if (u.quantity === null) {
              outcomes.set(u.sku, { state: "refused", message: `Mirakl cannot take the price: ${problem}` });
              continue;
            }
            // The quantity still goes; the price is refused once nothing else is left to send.
          }
        }
        // The price waits for a later cycle; a changed quantity goes now.
        if (stockOpen && u.quantity !== null) viaStock.push({ ...u, price: null });
      }
      const parts: string[] = [];
      const sent: ListingUpdate[] = [];
      if (viaStock.length > 0) {
        parts.push(`stock:${await importStock(viaStock)}`);
        sent.push(...viaStock);
      }
      if (offers.length > 0) {
        try {
          parts.push(`offers:${await importOffers(offers.map((o) => o.offer))}`);
          sent.push(...offers.map((o) => o.update));
        } catch (error) {
          // The stock import is in: the priced Skus wait for a later cycle.
          if (parts.length === 0) throw error;
        }
      }
      // Mirakl failed the reads and nothing went out: the cycle stops there and says why.
      if (parts.length === 0 && readFailure) throw readFailure;
      const reference = parts.join(" ");
      // Each import's status is asked 5 minutes after it at the soonest.
      for (const part of parts) storage.put(checkedAt(part), at);
      return { reference, sent, outcomes };
    },

    async check(reference, skus) {
      const at = now();
      const results: { kind: "stock" | "offers"; items: Map<string, ItemResult> | ItemResult }[] = [];
      let processing = false;
      for (const part of reference.split(" ").filter(Boolean)) {
        const [kind, ...rest] = part.split(":");
        const id = rest.join(":");
        if (paceWait(storage.get<number>(checkedAt(part)), at, MIRAKL_PACES.importStatus) > 0) {
          processing = true;
          continue;
        }
        storage.put(checkedAt(part), at);
        const items = kind === "stock" ? await stockResult(id) : await offersResult(id);
        if (items === null) processing = true;
        else results.push({ kind: kind === "stock" ? "stock" : "offers", items });
      }
      if (processing) return null;
      for (const part of reference.split(" ")) storage.delete(checkedAt(part));
      const outcomes = new Map<string, ListingOutcome>();
      for (const sku of skus) {
        // A Sku went by one import only; each import answers for its own Skus (a whole import
        // failed answers for all of them).
        const answers = results.map((r) => (r.items instanceof Map ? (r.items.get(sku) ?? null) : r.items));
        const failed = answers.find((a): a is Extract<ItemResult, { ok: false }> => a !== null && !a.ok);
        if (!failed) outcomes.set(sku, { state: "accepted" });
        else if (failed.kind === "unknownSku") outcomes.set(sku, { state: "unknownSku", message: failed.message });
        else outcomes.set(sku, { state: failed.kind, message: failed.message });
      }
      return outcomes;
    },
  };

  /** STO02, then STO03 for the lines in error; null while Mirakl still processes the import. */
  async function stockResult(id: string): Promise<Map<string, ItemResult> | ItemResult | null> {
    const status = importStatus(await client.json("STO02", "GET", `/api/offers/stock/imports/${encodeURIComponent(id)}/status`), "STO02", id);
    if (status === null) return null;
    if (status.failed) return { ok: false, kind: "retry", message: `Mirakl stock import ${id} FAILED` };
    if (!status.errors) return new Map();
    if (!status.hasReport) return { ok: false, kind: "retry", message: `Mirakl stock import ${id} has ${status.errors} lines in error and no error report` };
    return errorReport(await report("STO03", `/api/offers/stock/imports/${encodeURIComponent(id)}/error_report`), `stock import ${id}`);
  }

  /** OF02, then OF03 for the lines in error; null while Mirakl still processes the import. */
  async function offersResult(id: string): Promise<Map<string, ItemResult> | ItemResult | null> {
    const status = importStatus(await client.json("OF02", "GET", `/api/offers/imports/${encodeURIComponent(id)}`), "OF02", id);
    if (status === null) return null;
    if (status.failed) return { ok: false, kind: "retry", message: `Mirakl offer import ${id} FAILED${status.reason ? `: ${status.reason}` : ""}` };
    if (!status.errors) return new Map();
    if (!status.hasReport) return { ok: false, kind: "retry", message: `Mirakl offer import ${id} has ${status.errors} lines in error and no error report` };
    return errorReport(await report("OF03", `/api/offers/imports/${encodeURIComponent(id)}/error_report`), `offer import ${id}`);
  }

  async function report(op: "STO03" | "OF03", path: string): Promise<string> {
    const response = await client.send(op, "GET", path);
    if (!response.ok) throw await client.failure(op, response);
    return readCappedText(response.body, `Mirakl ${op}`, response.status);
  }

  return {
    // Never used: with a threshold of 0 every cycle with Skus due submits (the core only pushes
    // one at a time when fewer than the threshold are due).
    batchSize: 1,
    pushesPerCycle: 0,
    async push() {
      throw new MarketplaceError("Mirakl takes stock and price only as imports it answers later (STO01, OF24)", null, false);
    },
    submission,
  };
}

interface ImportStatus {
  failed: boolean;
  errors: number;
  hasReport: boolean;
  reason: string | null;
}

const DONE = new Set(["COMPLETE", "FAILED"]);

/** An import's status answer (STO02, OF02): null while it runs; nonsense is a retryable failure. */
function importStatus(answer: unknown, op: string, id: string): ImportStatus | null {
  const a = (typeof answer === "object" && answer !== null ? answer : {}) as Record<string, unknown>;
  if (typeof a.status !== "string") throw new MarketplaceError(`Mirakl ${op} answered nonsense for import ${id}: no status`, 200, true);
  // WAITING, RUNNING, WAITING_SYNCHRONIZATION_PRODUCT, or a state added since: not done yet.
  if (!DONE.has(a.status)) return null;
  const errors = typeof a.lines_in_error === "number" && a.lines_in_error > 0 ? a.lines_in_error : 0;
  return {
    failed: a.status === "FAILED",
    errors,
    hasReport: a.has_error_report === true,
    reason: typeof a.reason_status === "string" ? a.reason_status : null,
  };
}

/**
 * The error report's lines by offer SKU. The description gives two layouts: STO03 "the first
 * column contains the line number in error, the second the error reason", OF03's example the
 * offer's columns then "error-line" and "error-message" last. Columns are found by their header.
 * A report that cannot be read retries every Sku of its import.
 */
function errorReport(text: string, what: string): Map<string, ItemResult> | ItemResult {
  let rows: string[][];
  try {
    rows = parse(text, { delimiter: ";", relax_column_count: true, skip_empty_lines: true, bom: true, relax_quotes: true }) as string[][];
  } catch {
    return { ok: false, kind: "retry", message: `Mirakl's error report of ${what} is not the CSV it describes` };
  }
  const header = (rows[0] ?? []).map((h) => h.trim().toLowerCase());
  const skuAt = ["offer-sku", "sku", "shop-sku"].map((n) => header.indexOf(n)).find((i) => i >= 0) ?? -1;
  let messageAt = ["error-message", "error-reason", "error"].map((n) => header.indexOf(n)).find((i) => i >= 0) ?? -1;
  if (messageAt < 0 && skuAt >= 0 && header.length > 1 && /line/.test(header[0] ?? "")) messageAt = 1;
  if (skuAt < 0 || messageAt < 0) return { ok: false, kind: "retry", message: `Mirakl's error report of ${what} names no offer SKU or error column` };
  const items = new Map<string, ItemResult>();
  for (const row of rows.slice(1)) {
    const sku = row[skuAt]?.trim();
    if (!sku) continue;
    const message = `Mirakl ${what}: ${(row[messageAt] ?? "").trim() || "line in error"}`.slice(0, 500);
    // UNCONFIRMED: the description names no error code for an offer Mirakl does not have.
    const kind = /not found|does not exist|unknown (offer|sku|product)|no offer/i.test(message) ? "unknownSku" : "refused";
    items.set(sku, { ok: false, kind, message });
  }
  return items;
}
