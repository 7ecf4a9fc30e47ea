// What one sync cycle did, as a zod shape, and the stored list of them read back. It sits below
// the cycle that makes a summary and the wire mapping that answers them, so neither imports the
// other for it; the sources table's owner (src/sources/sources.queries.ts) keeps the last 20 without reading them.
import { z } from "zod";

/** What one cycle did: answered by POST /admin/v1/sync, kept (the last 20) in the source's status. */
export const cycleSummarySchema = z.object({
  sourceId: z.string(),
  name: z.string(),
  type: z.string(),
  startedAt: z.number(),
  endedAt: z.number(),
  /** False when the cycle did nothing: the source is disabled or gone. */
  ran: z.boolean(),
  /** The import window was not finished (200 pages read, or the invocation's share spent): the next cycle, or invocation, goes on from its last page. */
  more: z.boolean(),
  fetched: z.number(),
  imported: z.number(),
  /** Orders the connector could not map: set aside with the reason (decisions 6). */
  setAside: z.number(),
  delivered: z.number(),
  /** Accepted by the marketplace for later processing. */
  submitted: z.number(),
  /** Completed without a call: the marketplace has no such operation. */
  notApplicable: z.number(),
  retrying: z.number(),
  failed: z.number(),
  /** Deliveries still waiting (due later, or behind an earlier one), being processed, and failed for good, after the cycle. */
  pendingDeliveries: z.number(),
  submittedDeliveries: z.number(),
  failedDeliveries: z.number(),
  /** Stock and price (decisions 11): Skus sent to the marketplace this cycle, and of them accepted. */
  listingsSent: z.number().default(0),
  listingsAccepted: z.number().default(0),
  /** Returns (decisions 13): read from the marketplace, new to the hub, and set aside (their order not held, or unmappable). */
  returnsFetched: z.number().default(0),
  returnsImported: z.number().default(0),
  returnsSetAside: z.number().default(0),
  /** D1 statements the cycle issued (in this invocation). */
  statements: z.number(),
  /** The cycle's work did not fit one invocation: it goes on at once in the source's next one. */
  continues: z.boolean().default(false),
  error: z.string().nullable(),
});
export type CycleSummary = z.infer<typeof cycleSummarySchema>;

/** The summaries a source keeps, as stored; one that no longer reads (an older shape) is left out. */
export function readCycles(stored: unknown[]): CycleSummary[] {
  return stored.flatMap((entry) => {
    const parsed = cycleSummarySchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}
