// Webhook endpoints and their senders, through the admin API and the sender's Durable Object.
import { env } from "cloudflare:workers";
import { admin } from "./api";

export interface CreatedWebhook {
  WebhookId: string;
  Secret: string;
  Url: string;
  Events: string[];
  Enabled: boolean;
}

export async function createWebhook(storeId: string, url: string, events: string[] = ["*"]): Promise<CreatedWebhook> {
  const res = await admin("POST", `/stores/${storeId}/webhooks`, { Url: url, Events: events });
  if (res.status !== 200) throw new Error(`createWebhook: ${res.status} ${res.text}`);
  return res.json.Webhook as CreatedWebhook;
}

export interface Delivery {
  EventId: string;
  Type: string;
  Status: string;
  Attempts: number;
  LastStatusCode: number | null;
  LastError: string | null;
  NextAttemptAt: string | null;
}

/** The endpoint's deliveries, newest first. */
export async function deliveries(storeId: string, webhookId: string, status?: string): Promise<Delivery[]> {
  const res = await admin("GET", `/stores/${storeId}/webhooks/${webhookId}/deliveries${status ? `?status=${status}` : ""}`);
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
  return res.json.Deliveries as Delivery[];
}

export async function webhook(storeId: string, webhookId: string) {
  const res = await admin("GET", `/stores/${storeId}/webhooks/${webhookId}`);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
  return res.json.Webhook as CreatedWebhook & { DisabledReason: string | null };
}

/** One delivery pass of the endpoint's sender as of `at` (what its alarm runs, on a chosen clock). */
export function deliverAt(webhookId: string, at = Date.now()) {
  return env.WEBHOOK_SENDER.getByName(webhookId).deliver(webhookId, at);
}
