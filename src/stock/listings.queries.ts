// Every statement on the listings table (decisions 11): the plan that copies what changed in the
// catalog since a source last planned, the due rows of a push, the outcomes of a push (one
// statement for the whole batch), the submitted rows of a marketplace's feed waiting for its
// answer, and the operator's view. See docs/stock.md for the design.
import { eq } from "drizzle-orm";
import { EXPONENTIAL_BACKOFF } from "../lib/retry";
import type { Db } from "../db/client";
import { listings, type ListingRow } from "../db/schema";

/** Catalog rows one plan statement copies (five statements plan 100,000 Skus in a cycle). */
export const PLAN_ROWS = 5_000;
/** A Sku failing for now is tried this many times, then refused until its values change. */
export const MAX_LISTING_ATTEMPTS = 8;

/** The highest stock_seq this source has planned: the catalog changes after it are still to plan. */
export async function planCursor(d1: D1Database, sourceId: string): Promise<number> {
  const row = await d1.prepare("select max(planned_seq) as seq from listings where source_id = ?1").bind(sourceId).first<{ seq: number | null }>();
  return row?.seq ?? 0;
}

/**
 * Copies the next `limit` tracked products changed after `after` (in stock_seq order) into the
 * source's listings as pending values: a Sku changed ten times since the last plan is one row
 * with its latest values. A row whose new values are what the marketplace already accepted is
 * accepted at once (nothing to send). A submitted row stays submitted (its submission's outcome
 * is still to come, and a newer value must not overtake it); its new values go after that
 * outcome. Answers how many products it copied.
 */
export async function planListings(d1: D1Database, source: { id: string; storeId: string }, after: number, limit: number, now: number): Promise<number> {
  const result = await d1
    .prepare(
      `insert into listings (source_id, store_id, sku, pending_quantity, pending_price, currency, planned_seq, status, attempts, next_attempt_at, updated_at)
      select ?1, store_id, sku, quantity, price, currency, stock_seq, 'pending', 0, ?5, ?5 from products
      where store_id = ?2 and stock_seq > ?3 and quantity is not null order by stock_seq limit ?4
      on conflict (source_id, sku) do update set
        pending_quantity = excluded.pending_quantity,
        pending_price = excluded.pending_price,
        currency = excluded.currency,
        planned_seq = excluded.planned_seq,
        status = case when listings.status = 'submitted' then 'submitted'
          when excluded.pending_quantity is listings.accepted_quantity
          and (excluded.pending_price is null or excluded.pending_price is listings.accepted_price) then 'accepted' else 'pending' end,
        attempts = case when listings.status = 'submitted' then listings.attempts else 0 end,
        next_attempt_at = case when listings.status = 'submitted' then listings.next_attempt_at else excluded.next_attempt_at end,
        last_error = case when listings.status = 'submitted' then listings.last_error when excluded.pending_quantity is listings.accepted_quantity
          and (excluded.pending_price is null or excluded.pending_price is listings.accepted_price) then null else listings.last_error end,
        updated_at = excluded.updated_at`,
    )
    .bind(source.id, source.storeId, after, limit, now)
    .run();
  return result.meta.changes;
}

export type DueListing = Pick<ListingRow, "sku" | "pendingQuantity" | "pendingPrice" | "acceptedQuantity" | "acceptedPrice" | "currency">;

/** The next `limit` pending Skus that are due, oldest due first. */
export async function dueListings(d1: D1Database, sourceId: string, now: number, limit: number): Promise<DueListing[]> {
  const rows = await d1
    .prepare(
      `select sku, pending_quantity, pending_price, accepted_quantity, accepted_price, currency from listings
      where source_id = ?1 and status = 'pending' and next_attempt_at <= ?2 order by next_attempt_at, sku limit ?3`,
    )
    .bind(sourceId, now, limit)
    .raw<[string, number | null, number | null, number | null, number | null, string | null]>();
  return rows.map(([sku, pendingQuantity, pendingPrice, acceptedQuantity, acceptedPrice, currency]) => ({
    sku,
    pendingQuantity,
    pendingPrice,
    acceptedQuantity,
    acceptedPrice,
    currency,
  }));
}

/** One Sku's outcome as the record statement reads it. */
export interface RecordedOutcome {
  sku: string;
  state: "accepted" | "unknownSku" | "refused" | "retry";
  /** The quantity the marketplace took now (null: none taken). */
  quantity: number | null;
  price: number | null;
  message: string | null;
}

/**
 * Records a push's outcomes in one statement. A Sku whose accepted values now match its pending
 * ones is accepted; an unknown or refused one keeps that state (and its error) until its values
 * change; one to retry waits 5, 10, 20 ... minutes, and is refused after the last attempt.
 */
export function recordOutcomes(d1: D1Database, sourceId: string, outcomes: RecordedOutcome[], now: number): D1PreparedStatement {
  const tuples = outcomes.map((o) => [o.sku, o.state, o.quantity === null ? 0 : 1, o.quantity, o.price === null ? 0 : 1, o.price, o.message]);
  const acceptedQuantity = "case when o.value ->> 2 = 1 then o.value ->> 3 else l.accepted_quantity end";
  const acceptedPrice = "case when o.value ->> 4 = 1 then o.value ->> 5 else l.accepted_price end";
  // An upsert over rows that all exist rather than UPDATE ... FROM json_each: CROSS JOIN pins the
  // loop (the batch's Skus first, one primary-key probe each). UPDATE ... FROM let the planner walk
  // every listing of the source once per Sku of the batch: 47 s for 1,000 of 100,000 listings.
  return d1
    .prepare(
      `insert into listings (source_id, store_id, sku, planned_seq, accepted_quantity, accepted_price, accepted_at, status, submission, attempts,
        next_attempt_at, last_error, updated_at)
      select l.source_id, l.store_id, l.sku, l.planned_seq, ${acceptedQuantity}, ${acceptedPrice},
        case when o.value ->> 2 = 1 or o.value ->> 4 = 1 then ?3 else l.accepted_at end,
        case
          when l.pending_quantity is ${acceptedQuantity}
            and (l.pending_price is null or l.pending_price is ${acceptedPrice}) then 'accepted'
          when o.value ->> 1 in ('unknownSku', 'refused') then o.value ->> 1
          when o.value ->> 1 = 'retry' and l.attempts + 1 >= ?4 then 'refused'
          else 'pending' end,
        null,
        case when o.value ->> 1 = 'retry' then l.attempts + 1 else 0 end,
        case when o.value ->> 1 = 'retry' then ?3 + min(?6, ?5 * (1 << l.attempts)) else l.next_attempt_at end,
        case when o.value ->> 1 = 'accepted' then null else o.value ->> 6 end,
        ?3
      from json_each(?2) as o cross join listings as l
      where l.source_id = ?1 and l.sku = o.value ->> 0
      on conflict (source_id, sku) do update set
        accepted_quantity = excluded.accepted_quantity,
        accepted_price = excluded.accepted_price,
        accepted_at = excluded.accepted_at,
        status = excluded.status,
        submission = null,
        submitted_quantity = null,
        submitted_price = null,
        attempts = excluded.attempts,
        next_attempt_at = excluded.next_attempt_at,
        last_error = excluded.last_error,
        updated_at = excluded.updated_at`,
    )
    .bind(sourceId, JSON.stringify(tuples), now, MAX_LISTING_ATTEMPTS, EXPONENTIAL_BACKOFF.baseMs, EXPONENTIAL_BACKOFF.maxMs);
}

/** One Sku sent in a submission, with the values it carried (null: that value was not sent). */
export interface SubmittedListing {
  sku: string;
  quantity: number | null;
  price: number | null;
}

/**
 * Marks the Skus of a submission (a marketplace's feed) submitted with its reference and the
 * values sent, in one statement. As in the outbox, next_attempt_at of a submitted row is when it
 * was submitted: a submission unanswered for a day is sent again.
 */
export function recordSubmitted(d1: D1Database, sourceId: string, sent: SubmittedListing[], reference: string, now: number): D1PreparedStatement {
  const tuples = sent.map((s) => [s.sku, s.quantity, s.price]);
  return d1
    .prepare(
      // The upsert over existing rows of recordOutcomes, for the same reason (one probe per Sku).
      `insert into listings (source_id, store_id, sku, planned_seq, status, submission, submitted_quantity, submitted_price, next_attempt_at, updated_at)
      select l.source_id, l.store_id, l.sku, l.planned_seq, 'submitted', ?3, o.value ->> 1, o.value ->> 2, ?4, ?4
      from json_each(?2) as o cross join listings as l
      where l.source_id = ?1 and l.sku = o.value ->> 0
      on conflict (source_id, sku) do update set
        status = excluded.status,
        submission = excluded.submission,
        submitted_quantity = excluded.submitted_quantity,
        submitted_price = excluded.submitted_price,
        next_attempt_at = excluded.next_attempt_at,
        last_error = null,
        updated_at = excluded.updated_at`,
    )
    .bind(sourceId, JSON.stringify(tuples), reference, now);
}

/** The source's open submissions, oldest first: each reference and when it was submitted. */
export async function openSubmissions(d1: D1Database, sourceId: string, limit: number): Promise<{ reference: string; submittedAt: number }[]> {
  const rows = await d1
    .prepare(
      `select submission, min(next_attempt_at) from listings where source_id = ?1 and status = 'submitted'
      group by submission order by 2, 1 limit ?2`,
    )
    .bind(sourceId, limit)
    .raw<[string, number]>();
  return rows.map(([reference, submittedAt]) => ({ reference, submittedAt }));
}

/** The Skus still submitted under one reference, with the values they carried. */
export async function submittedListings(d1: D1Database, sourceId: string, reference: string): Promise<SubmittedListing[]> {
  const rows = await d1
    .prepare("select sku, submitted_quantity, submitted_price from listings where source_id = ?1 and status = 'submitted' and submission = ?2 order by sku")
    .bind(sourceId, reference)
    .raw<[string, number | null, number | null]>();
  return rows.map(([sku, quantity, price]) => ({ sku, quantity, price }));
}

export interface ListingFilter {
  sku?: string;
  status?: ListingRow["status"];
  /** Keyset: Skus after this one. */
  after?: string;
  limit: number;
}

/** The source's listings in Sku order, for the operator. */
export async function listListings(d1: D1Database, sourceId: string, filter: ListingFilter): Promise<ListingRow[]> {
  const where = ["source_id = ?1"];
  const params: unknown[] = [sourceId];
  if (filter.sku !== undefined) where.push(`sku = ?${params.push(filter.sku)}`);
  if (filter.status !== undefined) where.push(`status = ?${params.push(filter.status)}`);
  if (filter.after !== undefined) where.push(`sku > ?${params.push(filter.after)}`);
  const rows = await d1
    .prepare(
      `select source_id as sourceId, store_id as storeId, sku, accepted_quantity as acceptedQuantity, accepted_price as acceptedPrice,
        accepted_at as acceptedAt, pending_quantity as pendingQuantity, pending_price as pendingPrice, currency, planned_seq as plannedSeq,
        status, submission, submitted_quantity as submittedQuantity, submitted_price as submittedPrice, attempts, next_attempt_at as nextAttemptAt,
          last_error as lastError, updated_at as updatedAt
      from listings where ${where.join(" and ")} order by sku limit ?${params.push(filter.limit)}`,
    )
    .bind(...params)
    .all<ListingRow>();
  return rows.results;
}

/** How many of the source's listings are in each state. */
export async function countListings(d1: D1Database, sourceId: string): Promise<Record<ListingRow["status"], number>> {
  const rows = await d1
    .prepare("select status, count(*) as n from listings where source_id = ?1 group by status")
    .bind(sourceId)
    .all<{ status: ListingRow["status"]; n: number }>();
  const out = { pending: 0, submitted: 0, accepted: 0, unknownSku: 0, refused: 0 };
  for (const r of rows.results) out[r.status] = r.n;
  return out;
}

/** A deleted source's listings go with it (run in the source's delete batch). */
export function deleteListingsOf(db: Db, sourceId: string) {
  return db.delete(listings).where(eq(listings.sourceId, sourceId));
}
