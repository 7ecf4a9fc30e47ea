// /admin/v1/stores and /admin/v1/consumer-keys: the operator's side of tenancy and keys.
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "../db/client";
import { consumerKeys, stores } from "../db/schema";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../http/create-router";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { randomId, sha256Hex, toBase64Url } from "../lib/crypto";
import { toWireDate } from "../lib/dates";
import { LIFESPANS } from "../auth/tokens";
import { SCOPES } from "../auth/scopes";
import { grantOf } from "../throttle/rate-limiter";

const createStoreBody = z.object({
  Name: z.string().trim().min(1).max(200),
  MaskBuyerPii: z.boolean().optional(),
});

const updateStoreBody = z.object({
  Name: z.string().trim().min(1).max(200).optional(),
  MaskBuyerPii: z.boolean().optional(),
});

const createKeyBody = z.object({
  Name: z.string().trim().min(1).max(200),
  Scopes: z.array(z.enum(SCOPES)).min(1).transform((s) => [...new Set(s)]),
  Lifespan: z.enum(LIFESPANS),
  BucketSize: z.number().int().min(1).max(100_000).optional(),
  // From 0.001/s up the bucket arithmetic stays exact in integers (src/throttle/gcra.ts).
  LeakRatePerSecond: z.number().min(0.001).max(10_000).optional(),
});

const storeParam = z.object({ storeId: z.string() });
const keyParam = z.object({ consumerKeyId: z.string() });

type StoreRow = typeof stores.$inferSelect;
type KeyRow = typeof consumerKeys.$inferSelect;

const storeAnswer = z
  .object({ StoreId: z.string(), Name: z.string(), MaskBuyerPii: z.boolean(), DateCreated: z.string().nullable() })
  .meta({ id: "Store" });
const keyAnswer = z
  .object({
    ConsumerKeyId: z.string(),
    StoreId: z.string(),
    Name: z.string(),
    Scopes: z.array(z.enum(SCOPES)),
    Lifespan: z.enum(LIFESPANS),
    BucketSize: z.number().int().nullable().describe("null: the default (50)."),
    LeakRatePerSecond: z.number().nullable().describe("null: the default (2)."),
    DateCreated: z.string().nullable(),
    DateRevoked: z.string().nullable(),
  })
  .meta({ id: "ConsumerKey" });

const wireStore = (s: StoreRow): z.input<typeof storeAnswer> => ({ StoreId: s.id, Name: s.name, MaskBuyerPii: s.maskBuyerPii, DateCreated: toWireDate(s.createdAt) });
const wireKey = (k: KeyRow): z.input<typeof keyAnswer> => ({
  ConsumerKeyId: k.id,
  StoreId: k.storeId,
  Name: k.name,
  Scopes: k.scopes as z.input<typeof keyAnswer>["Scopes"],
  Lifespan: k.lifespan as z.input<typeof keyAnswer>["Lifespan"],
  BucketSize: k.bucketSize,
  LeakRatePerSecond: k.leakRatePerSecond,
  DateCreated: toWireDate(k.createdAt),
  DateRevoked: toWireDate(k.revokedAt),
});

export async function requireStore(env: Env, storeId: string): Promise<StoreRow> {
  const store = await getDb(env)
    .select()
    .from(stores)
    .where(and(eq(stores.id, storeId), isNull(stores.deletedAt)))
    .get();
  if (!store) throw new ApiError(404, `No store with StoreId '${storeId.slice(0, 40)}'.`);
  return store;
}

/** Tells a key's RateLimiter what it now may do; revocation reaches it before the answer. */
async function publishGrant(env: Env, key: KeyRow, storeDeleted = false): Promise<void> {
  try {
    await env.RATE_LIMITER.getByName(key.id).setGrant(grantOf(key, storeDeleted));
  } catch (error) {
    console.error("publishing a grant failed", key.id, error);
    throw new ApiError(503, "The key's rate limiter could not be reached; nothing was changed in the database. Try again.", {
      "Retry-After": "1",
    });
  }
}

export const storesRoutes = createRouter()
  .post("/stores", documented("admin", { summary: "Create a store", tags: ["Stores"], answer: envelope({ Store: storeAnswer }) }), validate("json", createStoreBody), async (c) => {
    const body = c.req.valid("json");
    const store = { id: randomId("st"), name: body.Name, maskBuyerPii: body.MaskBuyerPii ?? false, createdAt: Date.now(), deletedAt: null };
    await getDb(c.env).insert(stores).values(store);
    return ok(c, { Store: wireStore(store) });
  })
  .get("/stores", documented("admin", { summary: "List stores", tags: ["Stores"], answer: envelope({ Stores: z.array(storeAnswer) }) }), async (c) => {
    const rows = await getDb(c.env).select().from(stores).where(isNull(stores.deletedAt)).orderBy(stores.createdAt);
    return ok(c, { Stores: rows.map(wireStore) });
  })
  .get("/stores/:storeId", documented("admin", { summary: "Get a store", tags: ["Stores"], answer: envelope({ Store: storeAnswer }) }), validate("param", storeParam), async (c) => {
    return ok(c, { Store: wireStore(await requireStore(c.env, c.req.valid("param").storeId)) });
  })
  .patch("/stores/:storeId", documented("admin", { summary: "Rename a store or switch PII masking", tags: ["Stores"], answer: envelope({ Store: storeAnswer }) }), validate("param", storeParam), validate("json", updateStoreBody), async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    const body = c.req.valid("json");
    const next = { ...store, name: body.Name ?? store.name, maskBuyerPii: body.MaskBuyerPii ?? store.maskBuyerPii };
    await getDb(c.env).update(stores).set({ name: next.name, maskBuyerPii: next.maskBuyerPii }).where(eq(stores.id, store.id));
    return ok(c, { Store: wireStore(next) });
  })
  .delete("/stores/:storeId", documented("admin", { summary: "Delete a store (every token of its keys stops)", tags: ["Stores"], answer: envelope({}) }), validate("param", storeParam), async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    const db = getDb(c.env);
    // Every token of the store's keys stops working on its next call. The limiters are told
    // first: if one cannot be reached the store is not yet marked deleted, so a retry of this
    // DELETE finds it and finishes the job (revocation is idempotent).
    const keys = await db.select().from(consumerKeys).where(eq(consumerKeys.storeId, store.id));
    await Promise.all(keys.map((key) => publishGrant(c.env, key, true)));
    await db.update(stores).set({ deletedAt: Date.now() }).where(eq(stores.id, store.id));
    return ok(c);
  })
  .post(
    "/stores/:storeId/consumer-keys",
    documented("admin", {
      summary: "Create a consumer key (the key is in this answer only)",
      tags: ["Consumer keys"],
      answer: envelope({ ConsumerKey: keyAnswer.extend({ Key: z.string().describe("Shown once; only its SHA-256 is kept.") }) }),
    }),
    validate("param", storeParam), validate("json", createKeyBody), async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    const body = c.req.valid("json");
    const secret = `ofh_${toBase64Url(crypto.getRandomValues(new Uint8Array(32)))}`;
    const key: KeyRow = {
      id: randomId("ck"),
      storeId: store.id,
      name: body.Name,
      keyHash: await sha256Hex(secret),
      scopes: body.Scopes,
      lifespan: body.Lifespan,
      bucketSize: body.BucketSize ?? null,
      leakRatePerSecond: body.LeakRatePerSecond ?? null,
      createdAt: Date.now(),
      revokedAt: null,
    };
    await getDb(c.env).insert(consumerKeys).values(key);
    // If the limiter cannot be told now it reads the grant from D1 on the key's first call.
    await publishGrant(c.env, key).catch(() => undefined);
    // The key itself is shown here once; only its hash is kept.
    return ok(c, { ConsumerKey: { ...wireKey(key), Key: secret } });
  })
  .get("/stores/:storeId/consumer-keys", documented("admin", { summary: "List a store's consumer keys", tags: ["Consumer keys"], answer: envelope({ ConsumerKeys: z.array(keyAnswer) }) }), validate("param", storeParam), async (c) => {
    const store = await requireStore(c.env, c.req.valid("param").storeId);
    const rows = await getDb(c.env).select().from(consumerKeys).where(eq(consumerKeys.storeId, store.id)).orderBy(consumerKeys.createdAt);
    return ok(c, { ConsumerKeys: rows.map(wireKey) });
  })
  .delete("/consumer-keys/:consumerKeyId", documented("admin", { summary: "Revoke a consumer key", tags: ["Consumer keys"], answer: envelope({ ConsumerKey: keyAnswer }) }), validate("param", keyParam), async (c) => {
    const db = getDb(c.env);
    const { consumerKeyId } = c.req.valid("param");
    const key = await db.select().from(consumerKeys).where(eq(consumerKeys.id, consumerKeyId)).get();
    if (!key) throw new ApiError(404, `No consumer key with ConsumerKeyId '${consumerKeyId.slice(0, 40)}'.`);
    const revoked = { ...key, revokedAt: key.revokedAt ?? Date.now() };
    // The limiter first: it is what refuses the key's tokens. D1 second, for token exchange and
    // for a limiter that ever has to reload the grant.
    await publishGrant(c.env, revoked);
    await db.update(consumerKeys).set({ revokedAt: revoked.revokedAt }).where(eq(consumerKeys.id, key.id));
    return ok(c, { ConsumerKey: wireKey(revoked) });
  });
