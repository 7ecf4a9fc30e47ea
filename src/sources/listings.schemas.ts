// The answer of GET .../sources/:sourceId/listings (decisions 11), shared by its route and the
// console's source page, which reads it.
import { z } from "zod";
import { wireDateOrNull as wireDate } from "../lib/dates";
import { LISTING_STATES } from "../db/schema";

const listingAnswer = z.object({
  Sku: z.string(),
  Status: z
    .enum(LISTING_STATES)
    .describe(
      "pending: to send; submitted: sent in a marketplace's feed whose outcome is not known yet (Submission names it); accepted: the marketplace shows the " +
        "current values; unknownSku: it has no such listing; refused: it refused the values (not sent again until they change).",
    ),
  AcceptedQuantity: z.number().int().nullable(),
  AcceptedPrice: z.number().nullable(),
  DateAccepted: wireDate,
  PendingQuantity: z.number().int().nullable().describe("The catalog's Quantity when last planned: what the marketplace must end up showing."),
  PendingPrice: z.number().nullable(),
  Currency: z.string().nullable(),
  Submission: z.string().nullable().describe("While submitted: the marketplace's reference of the feed (Walmart: `inventory:<feedId> price:<feedId>`)."),
  Attempts: z.number().int(),
  DateNextAttempt: wireDate,
  LastError: z.string().nullable(),
  DateUpdated: wireDate,
});

export const PUSH_STATES = ["Enabled", "ImportOnly", "NotApplicable"] as const;

export const listingsAnswer = z.object({
  Push: z.enum(PUSH_STATES).describe("NotApplicable: this marketplace takes no stock or price; ImportOnly: Settings.pushStock is false."),
  Counts: z.object({
    Pending: z.number().int(),
    Submitted: z.number().int(),
    Accepted: z.number().int(),
    UnknownSku: z.number().int(),
    Refused: z.number().int(),
  }),
  Listings: z.array(listingAnswer),
  NextAfter: z.string().nullable(),
});
