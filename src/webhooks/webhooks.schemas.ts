// The single description of the webhook routes' bodies and answers (decisions 9), and the event
// names every writer and the sender share.
import { z } from "zod";
import { wireDateOrNull } from "../lib/dates";
import { WEBHOOK_DELIVERY_STATES } from "../db/schema";
import { receiverUrlProblem } from "./receiver-url";

export const EVENT_TYPES = [
  "order.created",
  "order.acknowledged",
  "order.shipped",
  "order.cancelled",
  "order.sync_failed",
  // Decisions 12: a package made (data adds ShipmentId and Items), quantities cancelled (data adds Items).
  "order.shipment_created",
  "order.items_cancelled",
  "order.refunded",
  "return.created",
  "return.updated",
  "feed.compiled",
  "feed.failed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const MAX_URL_LENGTH = 2048;

/** https only, no credentials, no private or obfuscated IP host (receiver-url.ts says why). */
const url = z
  .string()
  .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine((value, ctx) => {
    const problem = receiverUrlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe(
    "The receiver: https:// only, no user name or password, no IP address in a private, link-local or unique-local range, no numeric host written other " +
      "than as four decimal numbers; https on the machine itself (localhost, 127.0.0.1, [::1]) is allowed for local work.",
  );

const events = z
  .array(z.enum([...EVENT_TYPES, "*"]))
  .min(1, { error: 'must name at least one event, or be ["*"]' })
  .transform((list) => (list.includes("*") ? ["*"] : [...new Set(list)]));

const description = z.string().trim().max(500);

export const createWebhookBody = z.object({ Url: url, Events: events, Description: description.optional() });

export const updateWebhookBody = z
  .object({ Url: url.optional(), Events: events.optional(), Description: description.optional(), Enabled: z.boolean().optional() })
  .strict();

export const webhookParams = z.object({ storeId: z.string(), webhookId: z.string() });
export const deliveryParams = webhookParams.extend({ eventId: z.string() });
export const deliveriesQuery = z.object({ status: z.enum(WEBHOOK_DELIVERY_STATES).optional() });

export const webhookAnswer = z
  .object({
    WebhookId: z.string(),
    StoreId: z.string(),
    Url: z.string(),
    Events: z.array(z.string()),
    Description: z.string(),
    Enabled: z.boolean(),
    DisabledReason: z.string().nullable().describe("Why the hub disabled the endpoint (a 410, or its last 5 events failed); null otherwise."),
    PreviousSecretExpiresAt: wireDateOrNull.describe("Until when the secret before the last rotation still signs beside the new one."),
    DateCreated: wireDateOrNull,
    DateUpdated: wireDateOrNull,
  })
  .meta({ id: "Webhook" });

/** Only the answers of creation and rotation carry the secret: it is shown once. */
export const webhookWithSecret = webhookAnswer
  .extend({ Secret: z.string().describe("whsec_ + base64 of 32 random bytes; shown only in this answer.") })
  .meta({ id: "WebhookWithSecret" });

export const deliveryAnswer = z
  .object({
    EventId: z.string().describe("The webhook-id header the receiver saw, the same on every attempt."),
    Type: z.enum(EVENT_TYPES),
    Status: z.enum(WEBHOOK_DELIVERY_STATES),
    Attempts: z.number().int(),
    LastStatusCode: z.number().int().nullable(),
    LastError: z.string().nullable(),
    NextAttemptAt: wireDateOrNull.describe("When a pending event is tried next; null once delivered or failed."),
    DateCreated: wireDateOrNull,
    DateFinished: wireDateOrNull,
  })
  .meta({ id: "WebhookDelivery" });
