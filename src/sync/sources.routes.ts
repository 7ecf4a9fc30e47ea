// /admin/v1/stores/:storeId/sources[/:sourceId]: a store's marketplace connections. Settings are
// validated by the Type's connector, stored only as AES-GCM ciphertext, and never answered with
// their secrets (decisions 8; issue 5).
import { and, asc, count, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { requireStore } from "../admin/stores.routes";
import { getDb } from "../db/client";
import { orders, outbox, sources } from "../db/schema";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../http/create-router";
import { describeIssues, validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { createSourceDocument, deliveryAnswer, receivedAnswer, sourceAnswer } from "./sources.schemas";
import { decryptJson, encryptJson, randomId } from "../lib/crypto";
import { toWireDate } from "../lib/dates";
import { isUniqueViolation } from "../orders/orders.queries";
import { connectorEntry, SOURCE_TYPES } from "./connectors";
import type { ReceivedCall } from "./connectors/simulated/simulated.connector";

const settingsObject = z.record(z.string(), z.unknown());

const createSourceBody = z.object({
  Type: z.enum(SOURCE_TYPES),
  Name: z.string().trim().min(1).max(200),
  Settings: settingsObject.optional(),
  Enabled: z.boolean().optional(),
});

const updateSourceBody = z.object({
  Name: z.string().trim().min(1).max(200).optional(),
  Enabled: z.boolean().optional(),
  /** Merged into the stored Settings key by key; a key set to null is removed. */
  Settings: settingsObject.optional(),
});

const storeParam = z.object({ storeId: z.string() });
const sourceParam = z.object({ storeId: z.string(), sourceId: z.string() });
const deliveriesQuery = z.object({ status: z.enum(["pending", "delivered", "failed"]).optional() });

type SourceRow = typeof sources.$inferSelect;

const MAX_SETTINGS_BYTES = 64 * 1024;

/** Validates Settings against the Type's connector: 400 naming the field. */
function checkSettings(type: string, settings: Record<string, unknown>): Record<string, unknown> {
  const entry = connectorEntry(type);
  if (!entry) throw new ApiError(400, `'Type' must be one of ${SOURCE_TYPES.join(", ")}.`);
  const parsed = entry.settingsSchema.safeParse(settings);
  if (!parsed.success) {
    throw new ApiError(400, describeIssues(parsed.error.issues.map((i) => ({ ...i, path: ["Settings", ...i.path] })) as never, "json"));
  }
  // The ciphertext is one D1 value, and D1 refuses a value over 2 MB with an error (a 500); a
  // connector's settings are a few hundred bytes, so a generous cap keeps every merge storable.
  const size = new TextEncoder().encode(JSON.stringify(settings)).byteLength;
  if (size > MAX_SETTINGS_BYTES) {
    throw new ApiError(400, `'Settings' must be at most ${MAX_SETTINGS_BYTES} bytes as JSON; these are ${size}.`);
  }
  return settings;
}

/** Settings as an answer may show them: the connector's secret fields masked. */
function visibleSettings(type: string, settings: Record<string, unknown>): Record<string, unknown> {
  const secret = new Set(connectorEntry(type)?.secretFields ?? []);
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, secret.has(k) ? "********" : v]));
}

interface SourceStatus {
  pending: number;
  failed: number;
}

async function wireSource(env: Env, row: SourceRow, status: SourceStatus): Promise<z.input<typeof sourceAnswer>> {
  const settings = await decryptJson<Record<string, unknown>>(env.SOURCE_SETTINGS_KEY, row.settingsCiphertext);
  return {
    SourceId: row.id,
    StoreId: row.storeId,
    Type: row.type as z.input<typeof sourceAnswer>["Type"],
    Name: row.name,
    Enabled: row.enabled,
    Settings: visibleSettings(row.type, settings),
    DateCreated: toWireDate(row.createdAt),
    DateUpdated: toWireDate(row.updatedAt),
    Status: {
      DateLastCycleStarted: toWireDate(row.lastCycleStartedAt),
      DateLastCycleEnded: toWireDate(row.lastCycleEndedAt),
      LastCycleImported: row.lastCycleImported,
      ImportedTotal: row.importedTotal,
      DeliveriesPending: status.pending,
      DeliveriesFailed: status.failed,
      LastError: row.lastError,
      Cursor: toWireDate(row.cursorAt),
    },
  };
}

async function deliveryCounts(env: Env, sourceIds: string[]): Promise<Map<string, SourceStatus>> {
  const map = new Map<string, SourceStatus>(sourceIds.map((id) => [id, { pending: 0, failed: 0 }]));
  if (sourceIds.length === 0) return map;
  const rows = await getDb(env)
    .select({ sourceId: outbox.sourceId, state: outbox.state, n: count() })
    .from(outbox)
    // One JSON parameter, not one per id: D1 binds at most 100 a statement, and a store with
    // more sources than that made its source list a 500.
    .where(sql`${outbox.sourceId} in (select value from json_each(${JSON.stringify(sourceIds)})) and ${outbox.state} in ('pending', 'failed')`)
    .groupBy(outbox.sourceId, outbox.state);
  for (const row of rows) {
    const status = map.get(row.sourceId);
    if (status && (row.state === "pending" || row.state === "failed")) status[row.state] = row.n;
  }
  return map;
}

async function requireSource(env: Env, storeId: string, sourceId: string): Promise<SourceRow> {
  await requireStore(env, storeId);
  const row = await getDb(env)
    .select()
    .from(sources)
    .where(and(eq(sources.id, sourceId), eq(sources.storeId, storeId)))
    .get();
  if (!row) throw new ApiError(404, `No source with SourceId '${sourceId.slice(0, 40)}' in store '${storeId.slice(0, 40)}'.`);
  return row;
}

async function answerSource(env: Env, row: SourceRow) {
  const counts = await deliveryCounts(env, [row.id]);
  return wireSource(env, row, counts.get(row.id)!);
}

function nameTaken(name: string) {
  return new ApiError(400, `The store already has a source named '${name}'; choose another Name.`);
}

export const sourcesRoutes = createRouter()
  .post(
    "/stores/:storeId/sources",
    documented("admin", { summary: "Add a marketplace source", tags: ["Sources"], answer: envelope({ Source: sourceAnswer }) }),
    validate("param", storeParam),
    validate("json", createSourceBody, { documentAs: createSourceDocument }),
    async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    const body = c.req.valid("json");
    const settings = checkSettings(body.Type, body.Settings ?? {});
    const now = Date.now();
    const row: SourceRow = {
      id: randomId("src"),
      storeId: store.id,
      type: body.Type,
      name: body.Name,
      enabled: body.Enabled ?? true,
      settingsCiphertext: await encryptJson(c.env.SOURCE_SETTINGS_KEY, settings),
      cursorAt: null,
      lastCycleStartedAt: null,
      lastCycleEndedAt: null,
      lastCycleImported: 0,
      importedTotal: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await getDb(c.env).insert(sources).values(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(body.Name);
      throw error;
    }
    return ok(c, { Source: await wireSource(c.env, row, { pending: 0, failed: 0 }) });
  })
  .get("/stores/:storeId/sources", documented("admin", { summary: "List a store's sources", tags: ["Sources"], answer: envelope({ Sources: z.array(sourceAnswer) }) }), validate("param", storeParam), async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    const rows = await getDb(c.env).select().from(sources).where(eq(sources.storeId, store.id)).orderBy(asc(sources.createdAt), asc(sources.id));
    const counts = await deliveryCounts(c.env, rows.map((r) => r.id));
    return ok(c, { Sources: await Promise.all(rows.map((r) => wireSource(c.env, r, counts.get(r.id)!))) });
  })
  .get("/stores/:storeId/sources/:sourceId", documented("admin", { summary: "Get a source with its status", tags: ["Sources"], answer: envelope({ Source: sourceAnswer }) }), validate("param", sourceParam), async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    return ok(c, { Source: await answerSource(c.env, await requireSource(c.env, storeId, sourceId)) });
  })
  .patch("/stores/:storeId/sources/:sourceId", documented("admin", { summary: "Rename, enable or disable a source, or merge Settings", tags: ["Sources"], answer: envelope({ Source: sourceAnswer }) }), validate("param", sourceParam), validate("json", updateSourceBody), async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    const row = await requireSource(c.env, storeId, sourceId);
    const body = c.req.valid("json");
    const next: SourceRow = { ...row, name: body.Name ?? row.name, enabled: body.Enabled ?? row.enabled, updatedAt: Date.now() };
    if (body.Settings) {
      const stored = await decryptJson<Record<string, unknown>>(c.env.SOURCE_SETTINGS_KEY, row.settingsCiphertext);
      const merged = { ...stored, ...body.Settings };
      for (const [key, value] of Object.entries(body.Settings)) if (value === null) delete merged[key];
      next.settingsCiphertext = await encryptJson(c.env.SOURCE_SETTINGS_KEY, checkSettings(row.type, merged));
    }
    const db = getDb(c.env);
    const update = db
      .update(sources)
      .set({ name: next.name, enabled: next.enabled, settingsCiphertext: next.settingsCiphertext, updatedAt: next.updatedAt })
      .where(eq(sources.id, row.id));
    try {
      if (next.name === row.name) {
        await db.batch([update]);
      } else {
        // An order's OrderSource is its source's Name: a rename carries the orders along, so the
        // next import finds them under the unique index instead of importing them again.
        await db.batch([update, db.update(orders).set({ orderSource: next.name }).where(eq(orders.sourceId, row.id))]);
      }
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(next.name);
      throw error;
    }
    return ok(c, { Source: await answerSource(c.env, next) });
  })
  .delete("/stores/:storeId/sources/:sourceId", documented("admin", { summary: "Delete a source (its orders stay)", tags: ["Sources"], answer: envelope({}) }), validate("param", sourceParam), async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    const row = await requireSource(c.env, storeId, sourceId);
    const db = getDb(c.env);
    // Its orders stay (SyncStatus Disabled from now on); what it still had to deliver never will.
    await db.batch([
      db
        .update(outbox)
        .set({ state: "failed", lastError: "The source was deleted before this was delivered." })
        .where(and(eq(outbox.sourceId, row.id), eq(outbox.state, "pending"))),
      db.delete(sources).where(eq(sources.id, row.id)),
    ]);
    await c.env.SOURCE_SYNC.getByName(row.id).forget();
    return ok(c);
  })
  .get("/stores/:storeId/sources/:sourceId/deliveries", documented("admin", { summary: "The source's outbox (latest 1,000)", tags: ["Sources"], answer: envelope({ Deliveries: z.array(deliveryAnswer) }) }), validate("param", sourceParam), validate("query", deliveriesQuery), async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    const row = await requireSource(c.env, storeId, sourceId);
    const { status } = c.req.valid("query");
    const rows = await getDb(c.env)
      .select()
      .from(outbox)
      .where(and(eq(outbox.sourceId, row.id), status ? eq(outbox.state, status) : undefined))
      .orderBy(asc(outbox.id))
      .limit(1000);
    return ok(c, {
      Deliveries: rows.map((d) => ({
        DeliveryId: String(d.id),
        OrderId: String(d.orderId),
        Kind: d.kind,
        Status: d.state,
        Attempts: d.attempts,
        DateNextAttempt: d.state === "pending" ? toWireDate(d.nextAttemptAt) : null,
        LastError: d.lastError,
        DateCreated: toWireDate(d.createdAt),
        DateDelivered: toWireDate(d.deliveredAt),
      })),
    });
  })
  // An operator fixed what the marketplace refused (or it is back): failed deliveries go out again
  // on the next cycle, each order's in their original order, and the orders' messages clear.
  .post("/stores/:storeId/sources/:sourceId/deliveries/retry", documented("admin", { summary: "Send failed deliveries again on the next cycle", tags: ["Sources"], answer: envelope({ Retried: z.number().int(), Source: sourceAnswer }) }), validate("param", sourceParam), async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    const row = await requireSource(c.env, storeId, sourceId);
    const db = getDb(c.env);
    const now = Date.now();
    const failedOrders = sql`(select ${outbox.orderId} from ${outbox} where ${outbox.sourceId} = ${row.id} and ${outbox.state} = 'failed')`;
    const [, retried] = await db.batch([
      db
        .update(orders)
        .set({ syncUserErrorMessage: null, dateUpdated: sql`max(${orders.dateUpdated} + 1, ${now})` })
        .where(sql`${orders.id} in ${failedOrders}`),
      db
        .update(outbox)
        .set({ state: "pending", attempts: 0, nextAttemptAt: now, lastError: null })
        .where(and(eq(outbox.sourceId, row.id), eq(outbox.state, "failed"))),
    ]);
    return ok(c, { Retried: retried.meta.changes, Source: await answerSource(c.env, row) });
  })
  .get("/stores/:storeId/sources/:sourceId/received", documented("admin", { summary: "What a simulated marketplace received (latest 1,000)", tags: ["Sources"], answer: envelope({ Received: z.array(receivedAnswer) }) }), validate("param", sourceParam), async (c) => {
    const { storeId, sourceId } = c.req.valid("param");
    const row = await requireSource(c.env, storeId, sourceId);
    if (row.type !== "simulated") {
      throw new ApiError(400, `Only a simulated source records what it receives; source '${row.id}' is of Type '${row.type}'.`);
    }
    // The RPC type of an open Record body is `never`; the value is plain structured-clone data.
    const calls = (await c.env.SOURCE_SYNC.getByName(row.id).received()) as unknown as ReceivedCall[];
    return ok(c, {
      // The latest 1,000 (the object keeps up to 20,000).
      Received: calls.slice(-1000).map((r) => ({
        Seq: r.seq,
        Date: toWireDate(r.at),
        Operation: r.operation,
        OrderSourceOrderNumber: r.orderNumber,
        Body: r.body,
        Answer: r.answer,
      })),
    });
  });
