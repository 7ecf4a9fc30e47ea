// /admin/v1/stores and /admin/v1/consumer-keys: the operator's side of tenancy, limits and keys.
// The statements live with their tables: stores.queries.ts and src/consumer-keys/consumer-keys.queries.ts.
// Keys are a store's; deleting a store touches every resource, so it is admin-wide
// (src/admin/store-deletion.routes.ts) and revokes the keys through the same grant publishing.
import { z } from "zod";
import { directoryDb, ensureEpoch } from "../db/shards";
import { placeStore } from "./placement";
import { ApiError } from "../http/errors";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { randomId, sha256Hex, toBase64Url } from "../lib/crypto";
import { toWireDate } from "../lib/dates";
import { LIFESPANS } from "../auth/tokens";
import { SCOPES } from "../auth/scopes";
import { publishGrant } from "../throttle/rate-limiter";
import { findKey, insertKey, keysOfStore, markKeyRevoked, type KeyRow } from "../consumer-keys/consumer-keys.queries";
import { LIMIT_NAMES, type LimitName } from "./limits";
import { keyAnswer, storeAnswer, storeParam } from "./stores.schemas";
import { directoryRow, findStore, insertStore, limitsOf, listStores, requireStore, updateStore, usageOf, type StoreRow } from "./stores.queries";

/** Each limit a whole number from 0 (nothing more may be stored) to a billion; bytes to a trillion (1 TB). */
const limitMax = (name: LimitName) => (name === "StoredBytes" ? 1_000_000_000_000 : 1_000_000_000);
const limitsBody = z
  .object(
    Object.fromEntries(LIMIT_NAMES.map((name) => [name, z.number().int().min(0).max(limitMax(name)).optional()])) as Record<
      LimitName,
      z.ZodOptional<z.ZodNumber>
    >,
  )
  .strict();

const createStoreBody = z.object({
  Name: z.string().trim().min(1).max(200),
  MaskBuyerPii: z.boolean().optional(),
  Limits: limitsBody.optional(),
  Shard: z.string().min(1).max(64).optional(),
});

const updateStoreBody = z.object({
  Name: z.string().trim().min(1).max(200).optional(),
  MaskBuyerPii: z.boolean().optional(),
  Limits: limitsBody.optional(),
});

const createKeyBody = z.object({
  Name: z.string().trim().min(1).max(200),
  Scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .transform((s) => [...new Set(s)]),
  Lifespan: z.enum(LIFESPANS),
  BucketSize: z.number().int().min(1).max(100_000).optional(),
  // From 0.001/s up the bucket arithmetic stays exact in integers (src/throttle/gcra.ts).
  LeakRatePerSecond: z.number().min(0.001).max(10_000).optional(),
});

const keyParam = z.object({ consumerKeyId: z.string() });

const wireStore = (s: StoreRow): z.input<typeof storeAnswer> => ({
  StoreId: s.id,
  Name: s.name,
  MaskBuyerPii: s.maskBuyerPii,
  DateCreated: toWireDate(s.createdAt),
  Shard: s.shard,
  Limits: limitsOf(s),
});
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

/** The store view: its settings, its limits and what it uses of each. */
async function storeView(env: Env, store: StoreRow) {
  return { ...wireStore(store), Usage: await usageOf(env, store) };
}

export const storesRoutes = createRouter()
  .post(
    "/stores",
    documented("admin", { summary: "Create a store", tags: ["Stores"], answer: envelope({ Store: storeAnswer }) }),
    validate("json", createStoreBody),
    async (c) => {
      const body = c.req.valid("json");
      const now = Date.now();
      const shard = await placeStore(c.env, body.Shard);
      await ensureEpoch(c.env, shard, now);
      const store = await insertStore(
        c.env,
        { id: randomId("st"), name: body.Name, maskBuyerPii: body.MaskBuyerPii ?? false, createdAt: now, shard },
        body.Limits,
      );
      return ok(c, { Store: await storeView(c.env, store) });
    },
  )
  .get("/stores", documented("admin", { summary: "List stores", tags: ["Stores"], answer: envelope({ Stores: z.array(storeAnswer) }) }), async (c) => {
    const rows = await listStores(directoryDb(c.env));
    return ok(c, { Stores: rows.map(wireStore) });
  })
  .get(
    "/stores/:storeId",
    documented("admin", { summary: "Get a store with its limits and usage", tags: ["Stores"], answer: envelope({ Store: storeAnswer }) }),
    validate("param", storeParam),
    async (c) => {
      return ok(c, { Store: await storeView(c.env, await requireStore(c.env, c.req.valid("param").storeId)) });
    },
  )
  .patch(
    "/stores/:storeId",
    documented("admin", { summary: "Rename a store, switch PII masking or set its limits", tags: ["Stores"], answer: envelope({ Store: storeAnswer }) }),
    validate("param", storeParam),
    validate("json", updateStoreBody),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const body = c.req.valid("json");
      // A limit may be set below what the store holds: nothing is removed, nothing more is added.
      const next = await updateStore(c.env, store, { name: body.Name, maskBuyerPii: body.MaskBuyerPii, limits: body.Limits });
      if (!next) throw new ApiError(404, `No store with StoreId '${store.id}'.`);
      return ok(c, { Store: await storeView(c.env, next) });
    },
  )
  .post(
    "/stores/:storeId/consumer-keys",
    documented("admin", {
      summary: "Create a consumer key (the key is in this answer only)",
      tags: ["Consumer keys"],
      answer: envelope({ ConsumerKey: keyAnswer.extend({ Key: z.string().describe("Shown once; only its SHA-256 is kept.") }) }),
    }),
    validate("param", storeParam),
    validate("json", createKeyBody),
    async (c) => {
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
      await insertKey(directoryDb(c.env), key);
      // The store as the directory has it now that the key exists, not as read before: a move that
      // switched the store in between told every key it found, and this one may not have been
      // among them. If the limiter cannot be told now it reads the grant from D1 on the key's first call.
      const now = await directoryRow(directoryDb(c.env), store.id);
      await publishGrant(c.env, key, {
        deleted: now === undefined || now.deletedAt !== null,
        shard: now?.shard ?? store.shard,
        revision: now?.revision ?? store.revision,
      }).catch(() => undefined);
      // The key itself is shown here once; only its hash is kept.
      return ok(c, { ConsumerKey: { ...wireKey(key), Key: secret } });
    },
  )
  .get(
    "/stores/:storeId/consumer-keys",
    documented("admin", { summary: "List a store's consumer keys", tags: ["Consumer keys"], answer: envelope({ ConsumerKeys: z.array(keyAnswer) }) }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const rows = await keysOfStore(directoryDb(c.env), store.id);
      return ok(c, { ConsumerKeys: rows.map(wireKey) });
    },
  )
  .delete(
    "/consumer-keys/:consumerKeyId",
    documented("admin", { summary: "Revoke a consumer key", tags: ["Consumer keys"], answer: envelope({ ConsumerKey: keyAnswer }) }),
    validate("param", keyParam),
    async (c) => {
      const db = directoryDb(c.env);
      const { consumerKeyId } = c.req.valid("param");
      const key = await findKey(db, consumerKeyId);
      if (!key) throw new ApiError(404, `No consumer key with ConsumerKeyId '${consumerKeyId.slice(0, 40)}'.`);
      const revoked = { ...key, revokedAt: key.revokedAt ?? Date.now() };
      // The limiter first: it is what refuses the key's tokens. D1 second, for token exchange and
      // for a limiter that ever has to reload the grant.
      const store = await findStore(db, key.storeId);
      await publishGrant(c.env, revoked, { deleted: store === undefined, shard: store?.shard ?? "DB", ...(store ? { revision: store.revision } : {}) });
      await markKeyRevoked(db, key.id, revoked.revokedAt);
      return ok(c, { ConsumerKey: wireKey(revoked) });
    },
  );
