// The one wrapper around zValidator: a failure becomes a 400 envelope whose Message names the
// field, the value's problem, and (for enums) what is allowed. The same schema documents the
// request in GET /openapi.json (hono-openapi reads it from the middleware).
import { zValidator } from "@hono/zod-validator";
import { resolver, uniqueSymbol } from "hono-openapi";
import type { Context, ValidationTargets } from "hono";
import type { ZodType, z } from "zod";
import { ApiError } from "./errors";
import { bodyTooLarge, countedStream, MiB } from "./transport";

export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(
  target: Target,
  schema: Schema,
  /**
   * storesText: false for a body that is only compared, never stored (a consumer key).
   * maxBytes: the most a JSON body may hold, 1 MiB unless the route needs more or less.
   * optional: the body may be left out entirely (no bytes, or only white space); the schema then reads {}.
   */
  options: { storesText?: boolean; documentAs?: ZodType; maxBytes?: number; optional?: boolean } = {},
) {
  const middleware = zValidator(target, schema, async (result, c) => {
    if (target === "json" && !isJsonContentType(c.req.header("content-type"))) {
      const leftOut = options.optional && (await c.req.text()).trim() === "";
      if (!leftOut) throw new ApiError(400, "Send the request body as JSON with the header Content-Type: application/json.");
    }
    if (!result.success) throw new ApiError(400, describeIssues(result.error.issues as z.core.$ZodIssue[], target));
    if (target === "json" && options.storesText !== false) {
      // JSON can carry "\ud800"; D1 would store it as bytes that read back as U+FFFD, so the
      // value an operator sent would be silently altered. Refused instead, naming the field.
      const path = loneSurrogatePath(result.data);
      const field = path && formatPath(path.slice(0, 20)) + (path.length > 20 ? "..." : "");
      if (path) throw new ApiError(400, `${field ? `'${field}'` : "The request body"} is not valid Unicode text (it holds an unpaired surrogate)`);
    }
  });
  // A JSON body is parsed whole: it is read only up to what the route needs (413 beyond), not up
  // to the admin area's 100 MiB, which is for streamed CSV.
  const capped =
    target === "json"
      ? ((async (c, next) => {
          await capBody(c, options.maxBytes ?? JSON_BODY_MAX);
          return middleware(c, next);
        }) as typeof middleware)
      : middleware;
  // What the document shows: the validating schema, or a more precise one that validates the same
  // body in steps (a source's Settings, checked by its Type's connector). An optional body is the
  // route's documented() body (bodyOptional): the document would call this one required.
  if (options.optional) return capped;
  return Object.assign(capped, { [uniqueSymbol]: { target, ...resolver(options.documentAs ?? schema) } });
}

/** What a JSON body may hold unless its route says otherwise (the /v1 limit too). */
export const JSON_BODY_MAX = MiB;

/**
 * Holds the request's body to `maxBytes`: a declared Content-Length over it is refused up front
 * (the runtime guarantees the body matches it), an undeclared body is read up to it and no
 * further, then handed on as a buffered body. Throws the 413.
 */
export async function capBody(c: Context, maxBytes: number): Promise<void> {
  const declared = c.req.header("content-length");
  if (declared !== undefined) {
    if (Number(declared) > maxBytes) throw bodyTooLarge(maxBytes);
    return;
  }
  const body = c.req.raw.body;
  if (!body) return;
  const bytes = await new Response(countedStream(body, maxBytes)).arrayBuffer();
  c.req.raw = new Request(c.req.raw, { body: bytes });
}

/** A UTF-16 half without its other half. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string (value or key) holding a lone surrogate, or null. Iterative, and
 * a path is built only for a hit: a body may nest a million levels deep.
 */
export function loneSurrogatePath(value: unknown): PropertyKey[] | null {
  type Entry = { value: unknown; key: PropertyKey | null; parent: Entry | null };
  const pathOf = (entry: Entry | null, last?: PropertyKey): PropertyKey[] => {
    const path: PropertyKey[] = last === undefined ? [] : [last];
    for (let e = entry; e && e.key !== null; e = e.parent) path.push(e.key);
    return path.reverse();
  };
  const stack: Entry[] = [{ value, key: null, parent: null }];
  while (stack.length) {
    const entry = stack.pop()!;
    const v = entry.value;
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) return pathOf(entry);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: entry });
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v).reverse()) {
        if (LONE_SURROGATE.test(k)) return pathOf(entry, k);
        stack.push({ value: item, key: k, parent: entry });
      }
    }
  }
  return null;
}

export function isJsonContentType(value: string | undefined): boolean {
  return !!value && /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(value.trim());
}

const MAX_LISTED = 3;

export function describeIssues(all: z.core.$ZodIssue[], target: string): string {
  const issues = all.slice(0, MAX_LISTED).map((issue) => describeIssue(issue, target));
  const more = all.length - MAX_LISTED;
  return issues.join("; ") + (more > 0 ? `; and ${more} more problem${more === 1 ? "" : "s"}` : "");
}

function describeIssue(issue: z.core.$ZodIssue, target: string): string {
  const field = formatPath(issue.path);
  const where = field ? `'${field}'` : target === "json" ? "The request body" : "The query";
  if (issue.code === "invalid_type" && / received undefined$/.test(issue.message)) {
    return `${where} is required`;
  }
  if (issue.code === "invalid_type" && !field && target === "json") {
    return "The request body must be a JSON object";
  }
  return `${where}: ${issue.message.replace(/^Invalid input: /, "")}`;
}

/** OrderItems[0].Quantity */
export function formatPath(path: PropertyKey[]): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`)).join("");
}
