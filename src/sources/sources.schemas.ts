// How a marketplace source looks on the wire (the zod description of what sources.wire.ts builds):
// its answer, a delivery, a set-aside order, a received call, a cycle,
// and the create body as the OpenAPI document shows it (one variant per Type, with that Type's
// connector Settings; secrets marked writeOnly). The routes validate the same body in two steps:
// the envelope here, then Settings by the Type's connector (sources.routes.ts).
import { z } from "zod";
import { wireDateOrNull as wireDate } from "../lib/dates";
import { OUTBOX_STATES } from "../db/schema";
import { DELIVERY_KINDS } from "../outbox/outbox.queries";
import { CONNECTORS, SOURCE_TYPES } from "../marketplaces/registry";

export const cycleAnswer = z
  .object({
    SourceId: z.string(),
    Name: z.string(),
    Type: z.string(),
    Ran: z.boolean(),
    DateStarted: wireDate,
    DateEnded: wireDate,
    OrdersFetched: z.number().int(),
    OrdersImported: z.number().int(),
    OrdersSetAside: z.number().int().describe("Orders the connector could not map, kept aside (GET .../set-aside)."),
    ImportContinues: z
      .boolean()
      .describe("The import window was not finished: the next cycle (or, with Continues, the next invocation) goes on from its last page."),
    Delivered: z.number().int(),
    DeliveriesSubmitted: z.number().int(),
    DeliveriesNotApplicable: z.number().int(),
    DeliveriesRetrying: z.number().int(),
    DeliveriesFailed: z.number().int(),
    DeliveriesPending: z.number().int(),
    DeliveriesSubmittedTotal: z.number().int(),
    DeliveriesFailedTotal: z.number().int(),
    ReturnsFetched: z.number().int().describe("Returns read from the marketplace (decisions 13)."),
    ReturnsImported: z.number().int().describe("Of those, new to the hub."),
    ReturnsSetAside: z.number().int().describe("Returns set aside: unmappable, or their order not held (GET .../set-aside)."),
    D1Statements: z.number().int().describe("D1 statements this invocation of the cycle issued."),
    Continues: z
      .boolean()
      .describe(
        "The cycle's work did not fit one invocation (Cloudflare's 1,000 D1 queries and 10,000 subrequests): it goes on at once, and its next part reports " +
          "as a cycle of its own.",
      ),
    Error: z.string().nullable(),
  })
  .meta({ id: "Cycle" });

export const sourceAnswer = z
  .object({
    SourceId: z.string(),
    StoreId: z.string(),
    Type: z.enum(SOURCE_TYPES),
    Name: z.string(),
    Enabled: z.boolean(),
    Settings: z.record(z.string(), z.unknown()).describe("Secret fields are answered as ********."),
    DateCreated: wireDate,
    DateUpdated: wireDate,
    Status: z.object({
      DateLastCycleStarted: wireDate,
      DateLastCycleEnded: wireDate,
      LastCycleImported: z.number().int(),
      ImportedTotal: z.number().int(),
      DeliveriesPending: z.number().int(),
      DeliveriesSubmitted: z.number().int(),
      DeliveriesFailed: z.number().int(),
      SetAside: z.number().int(),
      ReturnsSetAside: z.number().int().describe("Returns set aside (decisions 13): unmappable, or their order not held."),
      LastError: z.string().nullable(),
      Cursor: wireDate,
      ReturnsCursor: wireDate.describe("Where the next returns import starts (less an overlap); null before the first."),
      RecentCycles: z.array(cycleAnswer).describe("The last 20 cycles, newest first."),
    }),
  })
  .meta({ id: "Source" });

export const deliveryAnswer = z
  .object({
    DeliveryId: z.string(),
    OrderId: z.string(),
    Kind: z.enum(DELIVERY_KINDS),
    Status: z.enum(OUTBOX_STATES),
    Attempts: z.number().int(),
    DateNextAttempt: wireDate,
    LastError: z.string().nullable(),
    Reference: z.string().nullable().describe("The marketplace's reference (a submission, a fulfillment), when it gave one."),
    Warning: z.string().nullable().describe("What the marketplace noted on a delivered row, or why the row is notApplicable."),
    DateCreated: wireDate,
    DateDelivered: wireDate,
  })
  .meta({ id: "Delivery" });

export const setAsideAnswer = z
  .object({
    OrderSourceOrderNumber: z.string(),
    Reason: z.string(),
    Record: z.unknown().describe("The marketplace's record (JSON), or the start of it as text when it was over 64 KiB."),
    RecordTruncated: z.boolean(),
    DateFirstSeen: wireDate,
    DateLastSeen: wireDate,
  })
  .meta({ id: "SetAsideOrder" });

export const setAsideReturnAnswer = z
  .object({
    ReturnSourceNumber: z.string(),
    OrderSourceOrderNumber: z.string().nullable().describe("The order the return names, when that much could be read."),
    Reason: z.string(),
    Record: z.unknown().describe("The marketplace's record (JSON), or the start of it as text when it was over 64 KiB."),
    RecordTruncated: z.boolean(),
    DateFirstSeen: wireDate,
    DateLastSeen: wireDate,
  })
  .meta({ id: "SetAsideReturn" });

export const retrySetAsideAnswer = z.object({
  Retried: z.number().int(),
  Imported: z.number().int(),
  StillSetAside: z.number().int(),
  SetAside: z.array(setAsideAnswer),
  ReturnsRetried: z.number().int(),
  ReturnsImported: z.number().int(),
  ReturnsStillSetAside: z.number().int(),
  SetAsideReturns: z.array(setAsideReturnAnswer),
});

export const receivedAnswer = z.object({
  Seq: z.number().int(),
  Date: wireDate,
  Operation: z.string(),
  OrderSourceOrderNumber: z.string().nullable(),
  Body: z.unknown(),
  Answer: z.unknown(),
  IdempotencyKey: z.string().nullable(),
  Duplicate: z.boolean(),
});

/** The connector's Settings with its secret fields marked writeOnly (never answered in clear). */
function documentedSettings(type: keyof typeof CONNECTORS) {
  const entry = CONNECTORS[type];
  const shape = entry.settingsSchema.shape as Record<string, z.ZodType>;
  const secrets = entry.secretFields as readonly string[];
  return z
    .strictObject(Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, secrets.includes(k) ? v.meta({ writeOnly: true }) : v])))
    .meta({ id: `${type[0]!.toUpperCase()}${type.slice(1)}Settings` });
}

/** POST .../sources as documented: one variant per Type. */
export const createSourceDocument = z.discriminatedUnion(
  "Type",
  SOURCE_TYPES.map((type) =>
    z.object({
      Type: z.literal(type),
      Name: z.string().trim().min(1).max(200),
      Settings: documentedSettings(type).optional(),
      Enabled: z.boolean().optional(),
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
