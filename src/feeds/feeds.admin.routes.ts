// The operator's side of feeds: the catalog (upsert by Sku from JSON or a streamed CSV upload,
// list it by Sku, read or delete a Sku), feed definitions, and compiling now. Mounted under /admin/v1.
import { z } from "zod";
import type { Db } from "../db/client";
import { locateStore, storeDb } from "../db/shards";
import type { FeedRow } from "../db/schema";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { bodyTooLarge, countedStream } from "../http/transport";
import { createRouter } from "../app-env";
import { describeIssues, isJsonContentType, validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { randomId } from "../lib/crypto";
import { requireStore } from "../stores/stores.queries";
import { importCsv, importJson, importSummary } from "./catalog";
import { countProducts, deleteProduct, findProduct, pageProducts } from "../products/products.queries";
import { adminProduct, toAdminProduct } from "../products/product-fields";
import { deleteFeed, findFeedById, FEED_STATUS, insertFeed, listStoreFeeds, updateFeed } from "./feeds.queries";
import { createFeedBody, feedIdParam, productListAnswer, productListQuery, productsBody, updateFeedBody } from "./feeds.schemas";
import { adminFeed, compileProgressAnswer, fileNameOf, toAdminFeed } from "./feeds.wire";
import { DEFAULT_TEMPLATE } from "./templates";
import { contentTypeOf } from "./feed-compiler";

const storeParam = z.object({ storeId: z.string() });
const skuParam = z.object({ storeId: z.string(), sku: z.string() });

/** A feed known by its id alone, with the database of its store (its shard, as the directory says). */
async function requireFeedIn(env: Env, feedId: string): Promise<{ feed: FeedRow; db: Db }> {
  const missing = () => new ApiError(404, `No feed with FeedId '${feedId.slice(0, 40)}'.`);
  const storeId = await locateStore(env, (db) => findFeedById(db, feedId));
  if (storeId === undefined) throw missing();
  const db = storeDb(env, await requireStore(env, storeId).catch(() => Promise.reject(missing())));
  const feed = await findFeedById(db, feedId);
  if (!feed) throw missing();
  return { feed, db };
}

async function requireFeed(env: Env, feedId: string): Promise<FeedRow> {
  return (await requireFeedIn(env, feedId)).feed;
}

/** A JSON catalog request is parsed in memory; CSV has the whole admin limit. */
export const JSON_CATALOG_MAX = 16 * 1024 * 1024;

export const feedsAdminRoutes = createRouter()
  .put(
    "/stores/:storeId/products",
    documented("admin", {
      summary: "Upsert products by Sku (JSON up to 16 MiB, or a streamed CSV up to 100 MiB)",
      tags: ["Catalog"],
      body: { "application/json": productsBody, "text/csv": { type: "string" } },
      answer: envelope(importSummary.shape),
    }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const db = storeDb(c.env, store);
      const contentType = c.req.header("content-type") ?? "";
      const now = Date.now();
      if (/^text\/csv\s*(;|$)/i.test(contentType.trim())) {
        if (!c.req.raw.body) throw new ApiError(400, "The CSV upload is empty: send a header row and one row per product.");
        return ok(c, await importCsv(db, store.id, c.req.raw.body, now));
      }
      if (!isJsonContentType(contentType)) {
        throw new ApiError(
          400,
          'Send the catalog as JSON ({"Products": [...]}, Content-Type: application/json) or as CSV with a header row (Content-Type: text/csv).',
        );
      }
      // A JSON catalog is parsed whole, so it gets a cap an isolate's 128 MB can hold; the 100 MiB
      // admin limit is for CSV, which is read as a stream.
      const hint = "Send larger catalogs as CSV (Content-Type: text/csv), which is streamed.";
      const declared = c.req.header("content-length");
      if (declared !== undefined && Number(declared) > JSON_CATALOG_MAX) throw bodyTooLarge(JSON_CATALOG_MAX, hint);
      let body: unknown;
      try {
        body = await new Response(c.req.raw.body ? countedStream(c.req.raw.body, JSON_CATALOG_MAX, hint) : null).json();
      } catch (error) {
        // The body limit errors the stream with its 413; only a parse failure is the client's JSON.
        if (error instanceof ApiError) throw error;
        throw new ApiError(400, "The request body is not valid JSON.");
      }
      const parsed = productsBody.safeParse(body);
      if (!parsed.success) throw new ApiError(400, describeIssues(parsed.error.issues as z.core.$ZodIssue[], "json"));
      return ok(c, await importJson(db, store.id, parsed.data.Products, now));
    },
  )
  .get(
    "/stores/:storeId/products",
    documented("admin", { summary: "List a store's products in Sku order (with Quantity and Price)", tags: ["Catalog"], answer: envelope(productListAnswer) }),
    validate("param", storeParam),
    validate("query", productListQuery),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const { afterSku, limit } = c.req.valid("query");
      // The compile's keyset read on the primary key; one row more than the page says whether
      // another follows, so the last page never points at an empty one.
      const rows = await pageProducts(storeDb(c.env, store).$client, store.id, afterSku ?? null, limit + 1);
      const page = rows.slice(0, limit);
      return ok(c, { Products: page.map(toAdminProduct), NextAfterSku: rows.length > limit ? page.at(-1)!.sku : null });
    },
  )
  .get(
    "/stores/:storeId/products/count",
    documented("admin", { summary: "Count a store's products", tags: ["Catalog"], answer: envelope({ Count: z.number().int() }) }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      return ok(c, { Count: await countProducts(storeDb(c.env, store), store.id) });
    },
  )
  .get(
    "/stores/:storeId/products/:sku",
    documented("admin", { summary: "Get a product (with its Quantity)", tags: ["Catalog"], answer: envelope({ Product: adminProduct }) }),
    validate("param", skuParam),
    async (c) => {
      const { storeId, sku } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      const product = await findProduct(storeDb(c.env, store), store.id, sku);
      if (!product) throw new ApiError(404, `No product with Sku '${sku.slice(0, 100)}' in this store.`);
      return ok(c, { Product: toAdminProduct(product) });
    },
  )
  .delete(
    "/stores/:storeId/products/:sku",
    documented("admin", { summary: "Delete a product", tags: ["Catalog"], answer: envelope({}) }),
    validate("param", skuParam),
    async (c) => {
      const { storeId, sku } = c.req.valid("param");
      const store = await requireStore(c.env, storeId);
      if (!(await deleteProduct(storeDb(c.env, store), store.id, sku))) {
        throw new ApiError(404, `No product with Sku '${sku.slice(0, 100)}' in this store.`);
      }
      return ok(c);
    },
  )
  .post(
    "/stores/:storeId/feeds",
    documented("admin", { summary: "Create a feed", tags: ["Feed definitions"], answer: envelope({ Feed: adminFeed }) }),
    validate("param", storeParam),
    validate("json", createFeedBody),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      const body = c.req.valid("json");
      const id = randomId("fd");
      const feed: FeedRow = {
        id,
        storeId: store.id,
        name: body.Name,
        nameKey: body.Name.toLowerCase(),
        format: body.Format,
        template: body.Template ?? DEFAULT_TEMPLATE,
        columns: body.Columns?.map((col) => ({ header: col.Header, field: col.Field })) ?? null,
        compileIntervalMinutes: body.CompileIntervalMinutes ?? null,
        escapeFormulas: body.EscapeFormulas ?? false,
        status: FEED_STATUS.new,
        statusMessage: "",
        fileName: fileNameOf(body.Name, body.Format, id),
        fileKey: null,
        fileSize: null,
        totalCount: 0,
        validCount: 0,
        warningCount: 0,
        errorCount: 0,
        score: 0,
        issues: null,
        dateLastCompiled: null,
        dateLastSubmitted: null,
        dateLastPulled: null,
        createdAt: Date.now(),
      };
      await insertFeed(storeDb(c.env, store), feed);
      if (feed.compileIntervalMinutes) await c.env.FEED_COMPILER.getByName(id).schedule(id, feed.compileIntervalMinutes, store.id);
      return ok(c, { Feed: toAdminFeed(feed) });
    },
  )
  .get(
    "/stores/:storeId/feeds",
    documented("admin", { summary: "List a store's feeds", tags: ["Feed definitions"], answer: envelope({ Feeds: z.array(adminFeed) }) }),
    validate("param", storeParam),
    async (c) => {
      const store = await requireStore(c.env, c.req.valid("param").storeId);
      return ok(c, { Feeds: (await listStoreFeeds(storeDb(c.env, store), store.id)).map(toAdminFeed) });
    },
  )
  .get(
    "/feeds/:feedId",
    documented("admin", { summary: "Get a feed", tags: ["Feed definitions"], answer: envelope({ Feed: adminFeed }) }),
    validate("param", feedIdParam),
    async (c) => {
      return ok(c, { Feed: toAdminFeed(await requireFeed(c.env, c.req.valid("param").feedId)) });
    },
  )
  .patch(
    "/feeds/:feedId",
    documented("admin", { summary: "Change a feed", tags: ["Feed definitions"], answer: envelope({ Feed: adminFeed }) }),
    validate("param", feedIdParam),
    validate("json", updateFeedBody),
    async (c) => {
      const { feed, db } = await requireFeedIn(c.env, c.req.valid("param").feedId);
      const body = c.req.valid("json");
      const changes: Partial<FeedRow> = {};
      if (body.Name !== undefined) {
        Object.assign(changes, { name: body.Name, nameKey: body.Name.toLowerCase(), fileName: fileNameOf(body.Name, feed.format, feed.id) });
      }
      if (body.Columns !== undefined) changes.columns = body.Columns?.map((col) => ({ header: col.Header, field: col.Field })) ?? null;
      if (body.Template !== undefined) changes.template = body.Template;
      if (body.CompileIntervalMinutes !== undefined) changes.compileIntervalMinutes = body.CompileIntervalMinutes;
      if (body.EscapeFormulas !== undefined) changes.escapeFormulas = body.EscapeFormulas;
      // Columns and rules take effect at the next compile; the schedule at once.
      const updated = Object.keys(changes).length ? await updateFeed(db, feed.id, changes) : feed;
      if (!updated) throw new ApiError(404, `No feed with FeedId '${feed.id}'.`);
      if (body.CompileIntervalMinutes !== undefined) {
        await c.env.FEED_COMPILER.getByName(feed.id).schedule(feed.id, updated.compileIntervalMinutes, feed.storeId);
      }
      return ok(c, { Feed: toAdminFeed(updated) });
    },
  )
  .delete(
    "/feeds/:feedId",
    documented("admin", { summary: "Delete a feed and its file", tags: ["Feed definitions"], answer: envelope({}) }),
    validate("param", feedIdParam),
    async (c) => {
      const { feed, db } = await requireFeedIn(c.env, c.req.valid("param").feedId);
      // The file of the row as deleted, not as read above: a compile may have committed a new file
      // in between (and deleted the one read). A compile committing after this finds no feed and
      // deletes its own file (FeedCompiler.finish).
      const deleted = await deleteFeed(db, feed.storeId, feed.id);
      await c.env.FEED_COMPILER.getByName(feed.id).schedule(feed.id, null, feed.storeId);
      if (deleted?.fileKey) await c.env.FEEDS.delete(deleted.fileKey);
      return ok(c);
    },
  )
  .get(
    "/feeds/:feedId/compile",
    documented("admin", {
      summary: "Progress of the running (or last) compile",
      tags: ["Feed definitions"],
      answer: envelope({ Compile: compileProgressAnswer }),
    }),
    validate("param", feedIdParam),
    async (c) => {
      // Progress of the running compile (or the last one): how many slices and parts so far.
      const feed = await requireFeed(c.env, c.req.valid("param").feedId);
      const progress = await c.env.FEED_COMPILER.getByName(feed.id).progress();
      return ok(c, {
        Compile: progress && {
          Running: progress.running,
          Slices: progress.slices,
          Parts: progress.parts,
          AfterSku: progress.afterSku,
          RowsCompiled: progress.rows,
        },
      });
    },
  )
  // The operator's copy of the file (the console's download): the /v1 download needs a token.
  .get(
    "/feeds/:feedId/download",
    documented("admin", {
      summary: "Download the feed's compiled file",
      tags: ["Feed definitions"],
      answer: { files: ["text/csv", "text/tab-separated-values"], description: "The file (CSV or TSV)." },
    }),
    validate("param", feedIdParam),
    async (c) => {
      const feed = await requireFeed(c.env, c.req.valid("param").feedId);
      const object = feed.fileKey ? await c.env.FEEDS.get(feed.fileKey) : null;
      if (!object) throw new ApiError(404, `Feed '${feed.id}' has no file yet: it has not been compiled successfully (Status ${feed.status}).`);
      return new Response(object.body, {
        headers: {
          "Content-Type": contentTypeOf(feed.format),
          "Content-Disposition": `attachment; filename="${feed.fileName}"`,
          "Content-Length": String(object.size),
          "Cache-Control": "private, no-store",
        },
      });
    },
  )
  .post(
    "/feeds/:feedId/compile",
    documented("admin", { summary: "Compile now (the first slice runs before the answer)", tags: ["Feed definitions"], answer: envelope({ Feed: adminFeed }) }),
    validate("param", feedIdParam),
    async (c) => {
      const feed = await requireFeed(c.env, c.req.valid("param").feedId);
      // Runs the first slice before answering: a small catalog answers Completed (or Failed),
      // a large one Compiling, and alarms carry on.
      try {
        await c.env.FEED_COMPILER.getByName(feed.id).compile(feed.id, feed.storeId);
      } catch (error) {
        // Only storage can fail here (R2 refusing to start the upload, the object unreachable).
        console.error("compile could not start", feed.id, error);
        throw new ApiError(503, "The compile could not be started (file storage unavailable); try again shortly.", { "Retry-After": "5" });
      }
      return ok(c, { Feed: toAdminFeed(await requireFeed(c.env, feed.id)) });
    },
  );
