// /admin/v1/stores/:storeId/webhooks[...]: a store's webhook endpoints (decisions 9). The secret
// is shown only when created or rotated and stored only as ciphertext; a webhook of another
// store is a 404 like an unknown one. Statements live in webhooks.queries.ts and
// webhook-deliveries.queries.ts, wire forms in webhooks.wire.ts.
import { z } from "zod";
import type { Db } from "../db/client";
import { storeDb } from "../db/shards";
import { createRouter } from "../app-env";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { documented, envelope } from "../http/openapi";
import { validate } from "../http/validate";
import { randomId } from "../lib/crypto";
import { requireStore } from "../stores/stores.queries";
import { newSecret, ROTATION_OVERLAP_MS, sealSecret } from "./signing";
import { wakeLater, wakeWebhooks } from "./wake";
import { findDelivery, listDeliveries, retryDelivery } from "./webhook-deliveries.queries";
import { deleteWebhook, findWebhook, insertWebhook, listWebhooks, updateWebhook, type WebhookRow } from "./webhooks.queries";
import {
  createWebhookBody,
  deliveriesQuery,
  deliveryAnswer,
  deliveryParams,
  updateWebhookBody,
  webhookAnswer,
  webhookParams,
  webhookWithSecret,
} from "./webhooks.schemas";
import { wireDelivery, wireWebhook } from "./webhooks.wire";

const storeParam = z.object({ storeId: z.string() });
/** The recent deliveries an answer lists, newest first. */
const LISTED = 200;
const tags = ["Webhooks"];

/** An endpoint of a live store, with the database of the store's data (its shard). */
async function requireWebhookIn(env: Env, storeId: string, webhookId: string): Promise<{ row: WebhookRow; db: Db }> {
  const db = storeDb(env, await requireStore(env, storeId));
  const row = await findWebhook(db, storeId, webhookId);
  if (!row) throw new ApiError(404, `No webhook with WebhookId '${webhookId.slice(0, 40)}' in store '${storeId.slice(0, 40)}'.`);
  return { row, db };
}

async function requireWebhook(env: Env, storeId: string, webhookId: string): Promise<WebhookRow> {
  return (await requireWebhookIn(env, storeId, webhookId)).row;
}

export const webhooksRoutes = createRouter()
  .post(
    "/stores/:storeId/webhooks",
    documented("admin", {
      summary: "Add a webhook endpoint (its Secret is shown only in this answer)",
      tags,
      answer: envelope({ Webhook: webhookWithSecret }),
    }),
    validate("param", storeParam),
    validate("json", createWebhookBody),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const body = c.req.valid("json");
      const secret = newSecret();
      const now = Date.now();
      const row: WebhookRow = {
        id: randomId("wh"),
        storeId: store.id,
        url: body.Url,
        events: body.Events,
        description: body.Description ?? "",
        enabled: true,
        disabledReason: null,
        secretCiphertext: await sealSecret(c.env, secret),
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await insertWebhook(storeDb(c.env, store), row);
      return ok(c, { Webhook: { ...wireWebhook(row), Secret: secret } });
    },
  )
  .get(
    "/stores/:storeId/webhooks",
    documented("admin", { summary: "List a store's webhook endpoints", tags, answer: envelope({ Webhooks: z.array(webhookAnswer) }) }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      return ok(c, { Webhooks: (await listWebhooks(storeDb(c.env, store), store.id)).map(wireWebhook) });
    },
  )
  .get(
    "/stores/:storeId/webhooks/:webhookId",
    documented("admin", { summary: "Get a webhook endpoint", tags, answer: envelope({ Webhook: webhookAnswer }) }),
    validate("param", webhookParams),
    async (c) => {
      const { storeId, webhookId } = c.req.valid("param");
      return ok(c, { Webhook: wireWebhook(await requireWebhook(c.env, storeId, webhookId)) });
    },
  )
  .patch(
    "/stores/:storeId/webhooks/:webhookId",
    documented("admin", {
      summary: "Change a webhook's Url, Events or Description, or enable or disable it",
      tags,
      answer: envelope({ Webhook: webhookAnswer }),
    }),
    validate("param", webhookParams),
    validate("json", updateWebhookBody),
    async (c) => {
      const { storeId, webhookId } = c.req.valid("param");
      const { row, db } = await requireWebhookIn(c.env, storeId, webhookId);
      const body = c.req.valid("json");
      const enabled = body.Enabled ?? row.enabled;
      const updated = await updateWebhook(
        db,
        row.id,
        {
          url: body.Url ?? row.url,
          events: body.Events ?? row.events,
          description: body.Description ?? row.description,
          enabled,
          // The hub's reason stays until the endpoint is enabled again; an operator's disable gives none.
          disabledReason: enabled ? null : body.Enabled === false ? null : row.disabledReason,
        },
        Date.now(),
      );
      if (!updated) throw new ApiError(404, `No webhook with WebhookId '${webhookId.slice(0, 40)}' in store '${storeId.slice(0, 40)}'.`);
      // Enabled again: what waited while it was disabled goes out now.
      if (enabled && !row.enabled) wakeLater(c, row.storeId, [row.id]);
      return ok(c, { Webhook: wireWebhook(updated) });
    },
  )
  .delete(
    "/stores/:storeId/webhooks/:webhookId",
    documented("admin", { summary: "Delete a webhook endpoint and its deliveries", tags, answer: envelope({}) }),
    validate("param", webhookParams),
    async (c) => {
      const { storeId, webhookId } = c.req.valid("param");
      const { row, db } = await requireWebhookIn(c.env, storeId, webhookId);
      await deleteWebhook(db, row.id);
      return ok(c);
    },
  )
  .post(
    "/stores/:storeId/webhooks/:webhookId/rotate-secret",
    documented("admin", {
      summary: "Rotate the secret: the new one is shown only in this answer; the old one signs beside it for 24 hours",
      tags,
      answer: envelope({ Webhook: webhookWithSecret }),
    }),
    validate("param", webhookParams),
    async (c) => {
      const { storeId, webhookId } = c.req.valid("param");
      const { row, db } = await requireWebhookIn(c.env, storeId, webhookId);
      const secret = newSecret();
      const now = Date.now();
      const updated = await updateWebhook(
        db,
        row.id,
        {
          secretCiphertext: await sealSecret(c.env, secret),
          previousSecretCiphertext: row.secretCiphertext,
          previousSecretExpiresAt: now + ROTATION_OVERLAP_MS,
        },
        now,
      );
      if (!updated) throw new ApiError(404, `No webhook with WebhookId '${webhookId.slice(0, 40)}' in store '${storeId.slice(0, 40)}'.`);
      return ok(c, { Webhook: { ...wireWebhook(updated), Secret: secret } });
    },
  )
  .get(
    "/stores/:storeId/webhooks/:webhookId/deliveries",
    documented("admin", {
      summary: `A webhook's events and their attempts (newest ${LISTED}; ?status= pending, delivered or failed)`,
      tags,
      answer: envelope({ Deliveries: z.array(deliveryAnswer) }),
    }),
    validate("param", webhookParams),
    validate("query", deliveriesQuery),
    async (c) => {
      const { storeId, webhookId } = c.req.valid("param");
      const { row, db } = await requireWebhookIn(c.env, storeId, webhookId);
      const rows = await listDeliveries(db, row.id, c.req.valid("query").status, LISTED);
      return ok(c, { Deliveries: rows.map(wireDelivery) });
    },
  )
  .post(
    "/stores/:storeId/webhooks/:webhookId/deliveries/:eventId/retry",
    documented("admin", { summary: "Send a failed event again (a fresh round of attempts)", tags, answer: envelope({ Delivery: deliveryAnswer }) }),
    validate("param", deliveryParams),
    async (c) => {
      const { storeId, webhookId, eventId } = c.req.valid("param");
      const { row, db } = await requireWebhookIn(c.env, storeId, webhookId);
      const delivery = await findDelivery(db, row.id, eventId);
      if (!delivery || delivery.payload === null) throw new ApiError(404, `Webhook '${row.id}' has no event with EventId '${eventId.slice(0, 60)}'.`);
      if (!row.enabled) throw new ApiError(400, `Webhook '${row.id}' is disabled; enable it (PATCH Enabled: true) before retrying its events.`);
      if (!(await retryDelivery(db, delivery.id, Date.now()))) {
        throw new ApiError(400, `Event '${delivery.eventId}' is ${delivery.state}; only a failed event can be retried.`);
      }
      await wakeWebhooks(c.env, row.storeId, [row.id]);
      return ok(c, { Delivery: wireDelivery((await findDelivery(db, row.id, eventId))!) });
    },
  );
