// /v1/{token}/feeds/... (spec 4.8 to 4.11, decisions 7). Every route needs FeedsRead and reads
// the caller's store from the context, so no query can reach another store's feeds.
import type { Context } from "hono";
import { requireScope } from "../auth/authorize";
import type { FeedRow } from "../db/schema";
import { ok } from "../http/envelope";
import { ApiError } from "../http/errors";
import { createRouter, type AppEnv } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { z } from "zod";
import { pagingAnswer, sortingAnswer } from "../http/query-schemas";
import { askedPage } from "../http/paging";
import { contentTypeOf } from "./feed-compiler";
import { countFeeds, findFeed, listFeeds, markPulled } from "./feeds.queries";
import { feedCountQuery, feedIdParam, feedListQuery } from "./feeds.schemas";
import { toWireFeed, wireFeed } from "./feeds.wire";
import { parseRange } from "./ranges";

export const feedNotFound = (feedId: string) => new ApiError(404, `No feed with FeedId '${feedId.slice(0, 40)}' exists in this store.`);

export const feedsRoutes = createRouter()
  .get(
    "/count",
    documented("token", { summary: "Count feeds", tags: ["Feeds"], answer: envelope({ Count: z.number().int() }) }),
    requireScope("FeedsRead"),
    validate("query", feedCountQuery),
    async (c) => {
      const count = await countFeeds(c.get("db"), c.get("caller").storeId, c.req.valid("query").filterQuery);
      return ok(c, { Count: count });
    },
  )
  .get(
    "/",
    documented("token", {
      summary: "List feeds",
      tags: ["Feeds"],
      answer: envelope({ Feeds: z.array(wireFeed), Paging: pagingAnswer, Sorting: sortingAnswer }),
    }),
    requireScope("FeedsRead"),
    validate("query", feedListQuery),
    async (c) => {
      const query = c.req.valid("query");
      const storeId = c.get("caller").storeId;
      // A cursor is only valid with the request it continues: same store, filter, sort and size.
      const binding = ["feeds", storeId, query.filterQuery ?? null, query.sortBy, query.sortDirection, query.pageSize];
      const asked = await askedPage(c.env.TOKEN_SIGNING_SECRET, binding, query, "filterQuery, sortBy, sortDirection and pageSize");
      const page = await listFeeds(c.get("db"), storeId, query, query.pageSize, asked.start);
      return ok(c, { Feeds: page.rows.map(toWireFeed), ...(await asked.answer(page.next)) });
    },
  )
  .get(
    "/:feedId",
    documented("token", { summary: "Get one feed", tags: ["Feeds"], answer: envelope({ Feeds: z.array(wireFeed) }) }),
    requireScope("FeedsRead"),
    validate("param", feedIdParam),
    async (c) => {
      const { feedId } = c.req.valid("param");
      const feed = await findFeed(c.get("db"), c.get("caller").storeId, feedId);
      if (!feed) throw feedNotFound(feedId);
      return ok(c, { Feeds: [toWireFeed(feed)] });
    },
  )
  .get(
    "/:feedId/download",
    documented("token", {
      summary: "Download the feed's compiled file",
      description: "Supports If-None-Match (304) and one Range (206); the answer is the file, not the envelope.",
      tags: ["Feeds"],
      answer: { files: ["text/csv", "text/tab-separated-values"], description: "The file (CSV or TSV)." },
      alsoAnswers: { 206: "One Range of the file.", 304: "If-None-Match matched: the file has not changed." },
      errors: [416],
    }),
    requireScope("FeedsRead"),
    validate("param", feedIdParam),
    async (c) => {
      const { feedId } = c.req.valid("param");
      const db = c.get("db");
      // A compile that completes between the two reads deletes the file the row named: read again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const feed = await findFeed(db, c.get("caller").storeId, feedId);
        if (!feed) throw feedNotFound(feedId);
        if (!feed.fileKey) {
          throw new ApiError(404, `Feed '${feedId.slice(0, 40)}' has no file yet: it has not been compiled successfully (Status ${feed.status}).`);
        }
        const response = await serveFile(c, feed, feed.fileKey);
        if (response) return response;
      }
      throw new ApiError(503, "The feed's file is being replaced; try again.", { "Retry-After": "1" });
    },
  );

/** The file with conditional and range handling, or null if the object is gone. */
async function serveFile(c: Context<AppEnv>, feed: FeedRow, key: string): Promise<Response | null> {
  const head = await c.env.FEEDS.head(key);
  if (!head) return null;
  const etag = head.httpEtag;
  const headers = new Headers({
    "Content-Type": contentTypeOf(feed.format),
    "Content-Disposition": `attachment; filename="${feed.fileName}"`,
    ETag: etag,
    "Last-Modified": head.uploaded.toUTCString(),
    "Accept-Ranges": "bytes",
    // The URL carries a token: no shared cache may keep the file.
    "Cache-Control": "private, no-cache",
  });
  for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining"]) {
    const value = c.res.headers.get(name);
    if (value) headers.set(name, value);
  }
  // Recorded after the answer, so the client does not wait for the write.
  const pulled = () => c.executionCtx.waitUntil(markPulled(c.get("db"), feed.id, Date.now()).catch((e) => console.error("DateLastPulled", e)));

  // HEAD: the headers of the whole file; nothing is read and nothing counts as a pull.
  if (c.req.raw.method === "HEAD") {
    headers.set("Content-Length", String(head.size));
    return new Response(null, { status: 200, headers });
  }
  if (etagMatches(c.req.header("if-none-match"), etag)) {
    pulled();
    return new Response(null, { status: 304, headers });
  }
  const ifRange = c.req.header("if-range");
  const range = ifRange && ifRange.trim() !== etag ? null : parseRange(c.req.header("range"), head.size);
  if (range === "unsatisfiable") {
    throw new ApiError(416, `The requested range is outside the file, which is ${head.size} bytes long.`, {
      "Content-Range": `bytes */${head.size}`,
    });
  }
  const object = await c.env.FEEDS.get(key, range ? { range: { offset: range.start, length: range.end - range.start + 1 } } : {});
  if (!object) return null;
  pulled();
  if (range) {
    headers.set("Content-Range", `bytes ${range.start}-${range.end}/${head.size}`);
    headers.set("Content-Length", String(range.end - range.start + 1));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(head.size));
  return new Response(object.body, { status: 200, headers });
}

/** If-None-Match: a list of entity tags (weak ones compare by their opaque part) or `*`. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || strip(tag) === strip(etag));
}
