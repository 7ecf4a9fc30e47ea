// The overviews on the wire: the hub's (every store at a glance, what needs the operator first)
// and one store's (orders per day per source, statuses, each source's last cycles, backlog with
// its open returns, feeds). The OpenAPI document shows these; overview.ts builds answers typed by them.
import { z } from "zod";
import { wireDate as wireDateValue, wireDateOrNull as wireDate } from "../lib/dates";
import { ORDER_STATUSES } from "../orders/orders.schemas";

const day = z.string().describe("A UTC day, YYYY-MM-DD.");
const count = z.number().int();

export const cycleOutcome = z
  .object({
    DateStarted: wireDate,
    DateEnded: wireDate,
    OrdersImported: count,
    OrdersSetAside: count,
    Delivered: count,
    DeliveriesFailed: count,
    Error: z.string().nullable().describe("null: the cycle went through."),
  })
  .meta({ id: "CycleOutcome" });

export const sourceHealth = z
  .object({
    SourceId: z.string(),
    Name: z.string(),
    Type: z.string(),
    Enabled: z.boolean(),
    LastCycle: cycleOutcome.nullable().describe("null before the first cycle."),
    FailedCycles: count.describe("Cycles in a row, up to the last, that ended with an error (of the 20 kept)."),
    FailingSince: wireDate.describe("When the first of those failed cycles started; null when the last cycle went through."),
    DeliveriesPending: count,
    DeliveriesSubmitted: count,
    DeliveriesFailed: count,
    SetAside: count,
    ReturnsSetAside: count.describe("Returns set aside: unmappable, or their order not held (decisions 13)."),
  })
  .meta({ id: "SourceHealth" });

export const feedHealth = z
  .object({
    FeedId: z.string(),
    Name: z.string(),
    Status: z.string(),
    StatusMessage: z.string(),
    Score: z.number().int(),
    DateLastCompiled: wireDate,
    CompilationTotalCount: count,
    CompilationValidCount: count,
    CompilationWarningCount: count,
    CompilationErrorCount: count,
  })
  .meta({ id: "FeedHealth" });

export const ATTENTION_KINDS = ["SourceFailing", "DeliveriesFailed", "CompileFailed"] as const;

export const attentionItem = z
  .object({
    Kind: z.enum(ATTENTION_KINDS),
    StoreId: z.string(),
    StoreName: z.string(),
    SourceId: z.string().nullable(),
    FeedId: z.string().nullable(),
    Name: z.string().describe("The source's or the feed's name."),
    Count: count.describe("Failed cycles in a row, failed deliveries, or 1 for a compile."),
    Since: wireDate.describe("A failing source: when its failed cycles began."),
    Detail: z.string().describe("The last error, or the compile's message."),
  })
  .meta({ id: "AttentionItem" });

const attention = z
  .array(attentionItem)
  .describe("What needs the operator first: failing sources (longest first), failed deliveries (most first), failed compiles.");

export const hubStore = z
  .object({
    StoreId: z.string(),
    Name: z.string(),
    OrdersToday: count,
    OrdersLast7Days: count.describe("Today and the 6 days before (UTC), by creation at the marketplace."),
    OrdersNew: count.describe("Orders waiting to be acknowledged (OrderStatus New), whenever they were created."),
    DeliveriesPending: count,
    DeliveriesFailed: count,
    SetAside: count,
    OpenReturns: count.describe("Returns Requested, Approved or Received: the seller still has to act (receive, refund)."),
    Sources: z.array(sourceHealth),
    Feeds: z.array(feedHealth),
  })
  .meta({ id: "HubStore" });

export const hubOverview = z
  .object({
    DateGenerated: wireDateValue,
    Today: day,
    Attention: attention,
    Stores: z.array(hubStore),
  })
  .meta({ id: "HubOverview" });

export const storeOverview = z
  .object({
    StoreId: z.string(),
    Name: z.string(),
    DateGenerated: wireDateValue,
    Today: day,
    OrdersToday: count,
    OrdersLast7Days: count,
    OrdersPerDay: z
      .object({
        Days: z.array(day).describe("The last 30 UTC days, oldest first, today last."),
        Sources: z.array(z.object({ OrderSource: z.string(), Counts: z.array(count).describe("One a day, as Days.") })),
        Totals: z.array(count).describe("One a day, as Days: the sum of the sources."),
      })
      .describe("Orders by their creation day at the marketplace and their OrderSource."),
    OrderStatuses: z.array(z.object({ Status: z.enum(ORDER_STATUSES), Count: count })).describe("Every order the store holds, by status now."),
    Deliveries: z.object({ Pending: count, Submitted: count, Failed: count }).describe("The delivery backlog of all the store's sources."),
    SetAside: count,
    OpenReturns: count.describe("Returns Requested, Approved or Received: the seller still has to act (receive, refund)."),
    ReturnsSetAside: count,
    Sources: z.array(sourceHealth.extend({ Cycles: z.array(cycleOutcome).describe("The last 20 cycles, oldest first.") })),
    Feeds: z.array(feedHealth),
    Attention: attention,
  })
  .meta({ id: "StoreOverview" });

export type HubOverview = z.input<typeof hubOverview>;
export type StoreOverview = z.input<typeof storeOverview>;
export type SourceHealth = z.input<typeof sourceHealth>;
export type FeedHealth = z.input<typeof feedHealth>;
export type AttentionItem = z.input<typeof attentionItem>;
