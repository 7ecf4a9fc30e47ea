// Rules every request meets before it reaches a route: HTTPS, Accept, body size. (The maintenance
// switch is a resource's rule: src/maintenance/maintenance.ts.)
import { createMiddleware } from "hono/factory";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors";

export const httpsOnly = createMiddleware<{ Bindings: Env }>(async function httpsOnly(c, next) {
  // The runtime hands the URL already parsed and serialized, its scheme in lower case.
  if (!c.req.url.startsWith("https:")) {
    // No redirect: a client that sent its token in clear must learn it.
    throw new ApiError(403, "HTTPS is required. Send the request to the https:// address; plain HTTP is refused.");
  }
  await next();
});

const JSON_TYPES = ["application/json", "application/*", "*/*"];
export const FILE_TYPES = ["text/csv", "text/tab-separated-values", "text/plain", "text/*", "*/*"];

/** Whether an Accept header admits one of `types` (a missing header admits everything). */
export function accepts(header: string | undefined, types: string[]): boolean {
  if (!header?.trim()) return true;
  return header.split(",").some((part) => {
    const [type = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    if (q && !(Number(q.slice(2)) > 0)) return false;
    return types.includes(type);
  });
}

/** A feed download answers a file; every other route answers JSON, except the pages (reference, console): a browser asks for those. */
const DOWNLOAD_PATH = /^\/v1\/[^/]+\/feeds\/[^/]+\/download\/?$/;
const PAGE_PATH = /^\/(docs|console)(\/|$)/;

export const acceptJson = createMiddleware<{ Bindings: Env }>(async function acceptJson(c, next) {
  if (PAGE_PATH.test(c.req.path)) return next();
  const header = c.req.header("accept");
  const wanted = DOWNLOAD_PATH.test(c.req.path) ? FILE_TYPES : JSON_TYPES;
  if (!accepts(header, wanted)) {
    throw new ApiError(
      406,
      `This endpoint answers ${wanted === FILE_TYPES ? "text/csv or text/tab-separated-values" : "application/json"} only; the Accept header '${header}' ` +
        `admits neither.`,
    );
  }
  await next();
});

export const MiB = 1024 * 1024;

const sizeText = (bytes: number) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes} bytes`);

export function limitBody(maxSize: number) {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError(413, `The request body is larger than ${sizeText(maxSize)}.`);
    },
  });
}

/**
 * The admin limit (catalog uploads of up to 100 MB) must not hold a body in memory: Hono's
 * bodyLimit buffers a body that has no Content-Length. A declared length is checked up front
 * (the runtime guarantees the body matches it); an undeclared one is counted as it streams, and
 * the reader meets a 413 the moment it passes the limit. A route that reads the stream itself
 * (the CSV import) keeps what it stored before that point.
 */
export function limitStreamedBody(maxSize: number) {
  return createMiddleware<{ Bindings: Env }>(async function limitStreamedBody(c, next) {
    const declared = c.req.header("content-length");
    if (declared !== undefined) {
      if (Number(declared) > maxSize) throw bodyTooLarge(maxSize);
      return next();
    }
    const body = c.req.raw.body;
    if (!body) return next();
    c.req.raw = new Request(c.req.raw, { body: countedStream(body, maxSize) });
    await next();
  });
}

export const bodyTooLarge = (maxSize: number, hint = "") => new ApiError(413, `The request body is larger than ${sizeText(maxSize)}.${hint ? ` ${hint}` : ""}`);

/** The same bytes, erroring with a 413 once more than `maxSize` have passed. */
export function countedStream(body: ReadableStream<Uint8Array>, maxSize: number, hint = ""): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxSize) controller.error(bodyTooLarge(maxSize, hint));
        else controller.enqueue(chunk);
      },
    }),
  );
}
