// The single description of the webhook routes' bodies and answers (decisions 9), and the event
// names every writer and the sender share.
import { z } from "zod";
import { WEBHOOK_DELIVERY_STATES } from "../db/schema";

export const EVENT_TYPES = [
  "order.created",
  "order.acknowledged",
  "order.shipped",
  "order.cancelled",
  "order.sync_failed",
  "order.refunded",
  "return.created",
  "return.updated",
  "feed.compiled",
  "feed.failed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const MAX_URL_LENGTH = 2048;

/** Receivers on the machine itself may use http: local development and tests run one there. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const url = z
  .string()
  .max(MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` })
  .superRefine((value, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute https:// URL" });
      return;
    }
    if (parsed.protocol === "https:") return;
    if (parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname)) return;
    ctx.addIssue({ code: "custom", message: "must be an https:// URL (http:// only for localhost or 127.0.0.1)" });
  })
  .refine((value) => !/^[a-z]+:\/\/[^/]*@/i.test(value), { message: "must not carry a user name or password" });

const events = z
  .array(z.enum([...EVENT_TYPES, "*"]))
  .min(1, { error: "must name at least one event, or be [\"*\"]" })
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
    PreviousSecretExpiresAt: z.string().nullable().describe("Until when the secret before the last rotation still signs beside the new one."),
    DateCreated: z.string().nullable(),
    DateUpdated: z.string().nullable(),
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
    NextAttemptAt: z.string().nullable().describe("When a pending event is tried next; null once delivered or failed."),
    DateCreated: z.string().nullable(),
    DateFinished: z.string().nullable(),
  })
  .meta({ id: "WebhookDelivery" });
