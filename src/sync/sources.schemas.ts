// How a marketplace source looks on the wire: its answer, a delivery, a received call, a cycle,
// and the create body as the OpenAPI document shows it (one variant per Type, with that Type's
// connector Settings; secrets marked writeOnly). The routes validate the same body in two steps:
// the envelope here, then Settings by the Type's connector (src/sync/sources.routes.ts).
import { z } from "zod";
import { CONNECTORS, SOURCE_TYPES } from "./connectors";

const wireDate = z.string().nullable();

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
      DeliveriesFailed: z.number().int(),
      LastError: z.string().nullable(),
      Cursor: wireDate,
    }),
  })
  .meta({ id: "Source" });

export const deliveryAnswer = z
  .object({
    DeliveryId: z.string(),
    OrderId: z.string(),
    Kind: z.enum(["acknowledge", "ship", "cancel"]),
    Status: z.enum(["pending", "delivered", "failed"]),
    Attempts: z.number().int(),
    DateNextAttempt: wireDate,
    LastError: z.string().nullable(),
    DateCreated: wireDate,
    DateDelivered: wireDate,
  })
  .meta({ id: "Delivery" });

export const receivedAnswer = z.object({
  Seq: z.number().int(),
  Date: wireDate,
  Operation: z.string(),
  OrderSourceOrderNumber: z.string().nullable(),
  Body: z.unknown(),
  Answer: z.unknown(),
});

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
    ImportContinues: z.boolean().describe("The import continues in the next invocation (it did not fit this one)."),
    Delivered: z.number().int(),
    DeliveriesRetrying: z.number().int(),
    DeliveriesFailed: z.number().int(),
    DeliveriesPending: z.number().int(),
    DeliveriesFailedTotal: z.number().int(),
    D1Statements: z.number().int(),
    Error: z.string().nullable(),
  })
  .meta({ id: "Cycle" });

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
