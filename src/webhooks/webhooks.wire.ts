// Rows to the wire (PascalCase, ISO dates), typed by the answer schemas the OpenAPI document shows.
import type { z } from "zod";
import { toWireDate } from "../lib/dates";
import type { DeliveryRow } from "./webhook-deliveries.queries";
import type { WebhookRow } from "./webhooks.queries";
import type { deliveryAnswer, webhookAnswer } from "./webhooks.schemas";

export function wireWebhook(row: WebhookRow): z.input<typeof webhookAnswer> {
  return {
    WebhookId: row.id,
    StoreId: row.storeId,
    Url: row.url,
    Events: row.events,
    Description: row.description,
    Enabled: row.enabled,
    DisabledReason: row.disabledReason,
    PreviousSecretExpiresAt: row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > Date.now() ? toWireDate(row.previousSecretExpiresAt) : null,
    DateCreated: toWireDate(row.createdAt),
    DateUpdated: toWireDate(row.updatedAt),
  };
}

export function wireDelivery(row: DeliveryRow): z.input<typeof deliveryAnswer> {
  return {
    EventId: row.eventId,
    Type: row.type as z.input<typeof deliveryAnswer>["Type"],
    Status: row.state,
    Attempts: row.attempts,
    LastStatusCode: row.lastStatusCode,
    LastError: row.lastError,
    NextAttemptAt: row.state === "pending" ? toWireDate(row.nextAttemptAt) : null,
    DateCreated: toWireDate(row.createdAt),
    DateFinished: toWireDate(row.finishedAt),
  };
}
