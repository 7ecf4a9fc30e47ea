// /admin/v1/stores/:storeId/sources[/:sourceId]: a store's marketplace connections, their
// deliveries and their set-aside orders and returns. Settings are validated by the Type's connector, stored
// only as AES-GCM ciphertext, and never answered with their secrets (decisions 8; issue 5). The
// statements live with their tables' owners (src/sources/, src/stock/, src/outbox/), the wire forms in
// sources.wire.ts. Building a connector and retrying set-aside orders are the sync engine's
// (src/sync/).
import { z } from "zod";
import { requireStore } from "../stores/stores.queries";
import type { Db } from "../db/client";
import { storeDb } from "../db/shards";
import { isUniqueViolation } from "../db/errors";
import { OUTBOX_STATES } from "../db/schema";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { describeIssues, validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { decryptJson, encryptJson, randomId } from "../lib/crypto";
import { isoDateField } from "../lib/dates";
import { clearSyncErrors } from "../orders/orders.writes";
import { countsBySource, failedOrderIds, listEntries, retryFailed } from "../outbox/outbox.queries";
import type { Connector } from "../marketplaces/connector";
import { connectorEntry, SOURCE_TYPES } from "../marketplaces/registry";
import { memoryStorage } from "../marketplaces/storage";
import { buildConnector } from "../marketplaces/registry";
import { retrySetAside } from "./imported-page";
import { retrySetAsideReturns } from "./imported-returns";
import { countSetAside, dismissSetAside, listSetAside } from "./set-aside.queries";
import { countSetAsideReturns, dismissSetAsideReturn, listSetAsideReturns } from "./set-aside-returns.queries";
import { deleteSource, findSource, insertSource, listSources, updateSource, type SourceRow } from "./sources.queries";
import { wakeLater } from "../webhooks/wake";
import { wireDelivery, wireSetAside, wireSetAsideReturn, wireSource, type SourceStatus } from "./sources.wire";
import {
  createSourceDocument,
  deliveryAnswer,
  receivedAnswer,
  retrySetAsideAnswer,
  setAsideAnswer,
  setAsideReturnAnswer,
  sourceAnswer,
} from "./sources.schemas";

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
  /** Import again from this date: the cursor moves there (idempotent imports make it safe). */
  ImportFrom: isoDateField.optional(),
});

const storeParam = z.object({ storeId: z.string() });
const sourceParam = z.object({ storeId: z.string(), sourceId: z.string() });
const setAsideParam = sourceParam.extend({ orderNumber: z.string().min(1).max(200) });
const deliveriesQuery = z.object({ status: z.enum(OUTBOX_STATES).optional() });
const retrySetAsideBody = z.object({
  OrderSourceOrderNumbers: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(),
  /** Set-aside returns to map again (decisions 13); without a body, every set-aside order and return is. */
  ReturnSourceNumbers: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(),
});
const setAsideReturnParam = sourceParam.extend({ returnNumber: z.string().min(1).max(200) });

const MAX_SETTINGS_BYTES = 64 * 1024;
/** How far back ImportFrom may reach: no marketplace here serves older orders (Walmart: 180 days). */
const MAX_IMPORT_FROM_AGE_MS = 366 * 24 * 60 * 60_000;

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

/** What an answer shows in place of a secret setting. */
const MASK = "********";

/**
 * A stored credential goes only to the host its owner paired it with (decisions 6): a change of
 * an endpoint setting (the connector's declared list) must carry every secret again, else 400.
 * Removing one counts as a change; the mask an answer shows is not a secret given again.
 */
function refuseBareEndpointChange(type: string, stored: Record<string, unknown>, patch: Record<string, unknown>): void {
  const entry = connectorEntry(type);
  if (!entry) return;
  const changed = entry.endpointFields.filter(
    (field) => Object.hasOwn(patch, field) && JSON.stringify(patch[field] ?? null) !== JSON.stringify(stored[field] ?? null),
  );
  if (changed.length === 0) return;
  const missing = entry.secretFields.filter((field) => typeof patch[field] !== "string" || patch[field] === "" || patch[field] === MASK);
  if (missing.length === 0) return;
  const names = (fields: string[]) => fields.map((f) => `'Settings.${f}'`).join(", ");
  throw new ApiError(
    400,
    `Changing ${names(changed)} points the source's credentials at another host: give every secret setting again in the same request (${names(missing)} ` +
      `missing).`,
  );
}

/** Settings as an answer may show them: the connector's secret fields masked. */
async function visibleSettings(env: Env, row: SourceRow): Promise<Record<string, unknown>> {
  const settings = await decryptJson<Record<string, unknown>>(env.SOURCE_SETTINGS_KEY, row.settingsCiphertext);
  const secret = new Set(connectorEntry(row.type)?.secretFields ?? []);
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, secret.has(k) ? MASK : v]));
}

async function statuses(db: Db, ids: string[]): Promise<Map<string, SourceStatus>> {
  const [deliveries, setAside, returnsSetAside] = await Promise.all([countsBySource(db, ids), countSetAside(db, ids), countSetAsideReturns(db, ids)]);
  return new Map(ids.map((id) => [id, { deliveries: deliveries.get(id)!, setAside: setAside.get(id) ?? 0, returnsSetAside: returnsSetAside.get(id) ?? 0 }]));
}

async function answerSources(env: Env, db: Db, rows: SourceRow[]) {
  const status = await statuses(
    db,
    rows.map((r) => r.id),
  );
  return Promise.all(rows.map(async (r) => wireSource(r, await visibleSettings(env, r), status.get(r.id)!)));
}

/** A source of a live store, with the database of the store's data (its shard). */
async function requireSource(env: Env, storeId: string, sourceId: string): Promise<{ row: SourceRow; db: Db }> {
  const db = storeDb(env, await requireStore(env, storeId));
  const row = await findSource(db, storeId, sourceId);
  if (!row) throw new ApiError(404, `No source with SourceId '${sourceId.slice(0, 40)}' in store '${storeId.slice(0, 40)}'.`);
  return { row, db };
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
        returnsCursorAt: null,
        lastCycleStartedAt: null,
        lastCycleEndedAt: null,
        lastCycleImported: 0,
        importedTotal: 0,
        lastError: null,
        recentCycles: [],
        createdAt: now,
        updatedAt: now,
      };
      try {
        await insertSource(storeDb(c.env, store), row);
      } catch (error) {
        if (isUniqueViolation(error)) throw nameTaken(body.Name);
        throw error;
      }
      const [source] = await answerSources(c.env, storeDb(c.env, store), [row]);
      return ok(c, { Source: source });
    },
  )
  .get(
    "/stores/:storeId/sources",
    documented("admin", { summary: "List a store's sources", tags: ["Sources"], answer: envelope({ Sources: z.array(sourceAnswer) }) }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const db = storeDb(c.env, store);
      return ok(c, { Sources: await answerSources(c.env, db, await listSources(db, store.id)) });
    },
  )
  .get(
    "/stores/:storeId/sources/:sourceId",
    documented("admin", { summary: "Get a source with its status and recent cycles", tags: ["Sources"], answer: envelope({ Source: sourceAnswer }) }),
    validate("param", sourceParam),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      const [source] = await answerSources(c.env, db, [row]);
      return ok(c, { Source: source });
    },
  )
  .patch(
    "/stores/:storeId/sources/:sourceId",
    documented("admin", {
      summary: "Rename, enable or disable a source, merge Settings, or import again from a date (ImportFrom)",
      tags: ["Sources"],
      answer: envelope({ Source: sourceAnswer }),
    }),
    validate("param", sourceParam),
    validate("json", updateSourceBody),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      const body = c.req.valid("json");
      const now = Date.now();
      if (body.ImportFrom !== undefined && (body.ImportFrom > now || body.ImportFrom < now - MAX_IMPORT_FROM_AGE_MS)) {
        throw new ApiError(400, "'ImportFrom' must be a date in the past, at most 366 days ago.");
      }
      const next: SourceRow = {
        ...row,
        name: body.Name ?? row.name,
        enabled: body.Enabled ?? row.enabled,
        cursorAt: body.ImportFrom ?? row.cursorAt,
        // Returns are imported again from the same date (decisions 13): their write is idempotent too.
        returnsCursorAt: body.ImportFrom ?? row.returnsCursorAt,
        updatedAt: now,
      };
      if (body.Settings) {
        const stored = await decryptJson<Record<string, unknown>>(c.env.SOURCE_SETTINGS_KEY, row.settingsCiphertext);
        refuseBareEndpointChange(row.type, stored, body.Settings);
        const merged = { ...stored, ...body.Settings };
        for (const [key, value] of Object.entries(body.Settings)) if (value === null) delete merged[key];
        next.settingsCiphertext = await encryptJson(c.env.SOURCE_SETTINGS_KEY, checkSettings(row.type, merged));
      }
      try {
        await updateSource(db, row, next);
      } catch (error) {
        if (isUniqueViolation(error)) throw nameTaken(next.name);
        throw error;
      }
      const [source] = await answerSources(c.env, db, [next]);
      return ok(c, { Source: source });
    },
  )
  .delete(
    "/stores/:storeId/sources/:sourceId",
    documented("admin", { summary: "Delete a source (its orders stay)", tags: ["Sources"], answer: envelope({}) }),
    validate("param", sourceParam),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      wakeLater(c, row.storeId, await deleteSource(db, row.id, Date.now()));
      await c.env.SOURCE_SYNC.getByName(row.id).forget();
      return ok(c);
    },
  )
  .get(
    "/stores/:storeId/sources/:sourceId/deliveries",
    documented("admin", { summary: "The source's outbox (oldest 1,000)", tags: ["Sources"], answer: envelope({ Deliveries: z.array(deliveryAnswer) }) }),
    validate("param", sourceParam),
    validate("query", deliveriesQuery),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      const entries = await listEntries(db, row.id, c.req.valid("query").status, 1000);
      return ok(c, { Deliveries: entries.map(wireDelivery) });
    },
  )
  // An operator fixed what the marketplace refused (or it is back): failed deliveries go out again
  // on the next cycle, each order's in their original order, and the orders' messages clear.
  .post(
    "/stores/:storeId/sources/:sourceId/deliveries/retry",
    documented("admin", {
      summary: "Send failed deliveries again on the next cycle",
      tags: ["Sources"],
      answer: envelope({ Retried: z.number().int(), Source: sourceAnswer }),
    }),
    validate("param", sourceParam),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      const now = Date.now();
      const [, retried] = await db.batch([clearSyncErrors(db, failedOrderIds(row.id), now), retryFailed(db, row.id, now)]);
      const [source] = await answerSources(c.env, db, [row]);
      return ok(c, { Retried: retried.length, Source: source });
    },
  )
  .get(
    "/stores/:storeId/sources/:sourceId/set-aside",
    documented("admin", {
      summary: "Orders the connector could not map, and returns it could not map or whose order the hub does not hold, set aside (oldest 1,000 of each)",
      tags: ["Sources"],
      answer: envelope({ SetAside: z.array(setAsideAnswer), SetAsideReturns: z.array(setAsideReturnAnswer) }),
    }),
    validate("param", sourceParam),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      // The oldest 1,000; a source with more has a connector to fix first.
      const [orders, returns] = await Promise.all([listSetAside(db, row.id, 1000), listSetAsideReturns(db, row.id, 1000)]);
      return ok(c, { SetAside: orders.map(wireSetAside), SetAsideReturns: returns.map(wireSetAsideReturn) });
    },
  )
  // Maps the set-aside orders again (all, or those named) with the source's connector as it is
  // now: those that map are imported and leave the list, the others stay with the new reason.
  .post(
    "/stores/:storeId/sources/:sourceId/set-aside/retry",
    documented("admin", {
      summary: "Map set-aside orders again (all, or those named) and import those that map",
      tags: ["Sources"],
      answer: envelope(retrySetAsideAnswer.shape),
      body: { "application/json": retrySetAsideBody },
      bodyOptional: true,
    }),
    validate("param", sourceParam),
    validate("json", retrySetAsideBody, { optional: true }),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      const body = c.req.valid("json");
      const now = Date.now();
      let connector: Connector;
      try {
        // Mapping needs no marketplace call and no per-source state.
        connector = await buildConnector(c.env, row, memoryStorage(), () => new Date());
      } catch (error) {
        throw new ApiError(400, `The source's connector cannot be built: ${error instanceof Error ? error.message : String(error)}`);
      }
      // Without a body, everything; with one, what it names (orders first: a return may wait for one).
      const all = body.OrderSourceOrderNumbers === undefined && body.ReturnSourceNumbers === undefined;
      const result =
        all || body.OrderSourceOrderNumbers
          ? await retrySetAside(db, row, connector, now, body.OrderSourceOrderNumbers ?? null)
          : { retried: 0, imported: 0, stillSetAside: 0 };
      const reader = connector.returns && "fetchReturns" in connector.returns ? connector.returns : null;
      const returns =
        reader && (all || body.ReturnSourceNumbers)
          ? await retrySetAsideReturns(db, row, reader, now, body.ReturnSourceNumbers ?? null)
          : { retried: 0, imported: 0, stillSetAside: 0 };
      return ok(c, {
        Retried: result.retried,
        Imported: result.imported,
        StillSetAside: result.stillSetAside,
        SetAside: (await listSetAside(db, row.id, 1000)).map(wireSetAside),
        ReturnsRetried: returns.retried,
        ReturnsImported: returns.imported,
        ReturnsStillSetAside: returns.stillSetAside,
        SetAsideReturns: (await listSetAsideReturns(db, row.id, 1000)).map(wireSetAsideReturn),
      });
    },
  )
  .delete(
    "/stores/:storeId/sources/:sourceId/set-aside/returns/:returnNumber",
    documented("admin", { summary: "Dismiss a set-aside return", tags: ["Sources"], answer: envelope({}) }),
    validate("param", setAsideReturnParam),
    async (c) => {
      const { storeId, sourceId, returnNumber } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      if (!(await dismissSetAsideReturn(db, row.id, returnNumber))) {
        throw new ApiError(404, `Source '${row.id}' has no set-aside return '${returnNumber.slice(0, 60)}'.`);
      }
      return ok(c);
    },
  )
  .delete(
    "/stores/:storeId/sources/:sourceId/set-aside/:orderNumber",
    documented("admin", { summary: "Dismiss a set-aside order", tags: ["Sources"], answer: envelope({}) }),
    validate("param", setAsideParam),
    async (c) => {
      const { storeId, sourceId, orderNumber } = c.req.valid("param");
      const { row, db } = await requireSource(c.env, storeId, sourceId);
      if (!(await dismissSetAside(db, row.id, orderNumber))) {
        throw new ApiError(404, `Source '${row.id}' has no set-aside order '${orderNumber.slice(0, 60)}'.`);
      }
      return ok(c);
    },
  )
  .get(
    "/stores/:storeId/sources/:sourceId/received",
    documented("admin", {
      summary: "What a simulated marketplace received (latest 1,000)",
      tags: ["Sources"],
      answer: envelope({ Received: z.array(receivedAnswer) }),
    }),
    validate("param", sourceParam),
    async (c) => {
      const { storeId, sourceId } = c.req.valid("param");
      const { row } = await requireSource(c.env, storeId, sourceId);
      const received = await c.env.SOURCE_SYNC.getByName(row.id).received(row.type);
      if (received === null) {
        throw new ApiError(400, `Only a simulated source records what it receives; source '${row.id}' is of Type '${row.type}'.`);
      }
      return ok(c, { Received: JSON.parse(received) });
    },
  );
