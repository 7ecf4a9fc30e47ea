// Route annotations for the OpenAPI document (GET /openapi.json). Requests are documented by
// validate() from the very schemas that check them; each route states here, next to itself, what
// it answers: the envelope with its own fields (zod schemas the answer is typed against) and the
// error statuses it can give. Knows no resource: the routers pass their schemas in.
import { describeRoute, resolver } from "hono-openapi";
import { z } from "zod";

/** Every failure: `{Success:false, Message}` (components.schemas.ErrorEnvelope of the document). */
export const errorEnvelope = z.object({ Success: z.literal(false), Message: z.string().describe("What went wrong, in words; for a 400 it names the field.") });

/** A success answer: the envelope's defaults plus the endpoint's own (PascalCase) fields. */
export function envelope<T extends z.ZodRawShape>(fields: T) {
  return z.object({ Success: z.literal(true), Message: z.string(), ...fields });
}

/** Who may call a route: a token in the path (/v1), nobody yet (token exchange), or the operator. */
export type Area = "token" | "exchange" | "admin";

const ERROR_TEXT: Record<number, string> = {
  400: "Bad request: the Message names the field and what is allowed.",
  401: "The token is invalid, expired or revoked, or lacks the scope ('Authorization has been denied for this request.').",
  403: "Plain http:// (HTTPS is required), or an admin route without the admin key.",
  404: "Nothing with that id here.",
  406: "The Accept header admits no media type this route answers.",
  413: "The request body is too large.",
  416: "The Range lies past the end of the file.",
  429: "The call limit was exceeded (on admin routes: too many wrong admin keys from this address); wait Retry-After seconds.",
  503: "Maintenance, or a dependency (limiter, storage) briefly unreachable; wait Retry-After seconds.",
};

/** What every route of an area can answer, whatever the route. */
const AREA_ERRORS: Record<Area, number[]> = {
  token: [400, 401, 403, 404, 406, 413, 429, 503],
  exchange: [400, 401, 403, 406, 413, 429, 503],
  admin: [400, 403, 404, 406, 413, 429, 503],
};

const RATE_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
};
const RETRY_AFTER = { "Retry-After": { $ref: "#/components/headers/Retry-After" } };

/** The token rides in the path: OpenAPI has no security scheme for that, so it is a parameter. */
const TOKEN_PARAMETER = {
  name: "token",
  in: "path" as const,
  required: true,
  description: "Access token from PUT /v1/Authorization (the path form of authentication).",
  schema: { type: "string" as const },
};

export interface RouteDoc {
  summary: string;
  tags: string[];
  description?: string;
  /** The 200 answer's envelope (from envelope()), or files by media type. */
  answer: z.ZodType | { files: string[]; description: string };
  /** Other successes without a JSON body (a file's 206, 304), with what they mean. */
  alsoAnswers?: Record<number, string>;
  /** Statuses this route gives beyond its area's. */
  errors?: number[];
  /** A body that no validate() describes (one read as a stream): schema by media type. */
  body?: Record<string, z.ZodType | { type: "string" }>;
  /** The body may be left out entirely (it then means "all"). */
  bodyOptional?: boolean;
}

/** The annotation a route carries as its first handler. */
export function documented(area: Area, doc: RouteDoc) {
  const throttled = area !== "admin";
  const headers = throttled ? RATE_HEADERS : undefined;
  const responses: Record<string, unknown> = {};
  if ("files" in doc.answer) {
    responses["200"] = {
      description: doc.answer.description,
      headers,
      // A text file is a string in its media type (OpenAPI 3.1): `format: binary` would make a
      // generated client expect bytes and fail to read a CSV as text.
      content: Object.fromEntries(doc.answer.files.map((type) => [type, { schema: { type: "string", description: doc.answer.description } }])),
    };
  } else {
    responses["200"] = { description: "Success.", headers, content: { "application/json": { schema: resolver(doc.answer) } } };
  }
  for (const [status, description] of Object.entries(doc.alsoAnswers ?? {})) {
    responses[status] = { description, headers };
  }
  for (const status of [...AREA_ERRORS[area], ...(doc.errors ?? [])].sort()) {
    responses[String(status)] = {
      description: ERROR_TEXT[status] ?? "Error.",
      headers: status === 429 || status === 503 ? { ...headers, ...RETRY_AFTER } : headers,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
    };
  }
  return describeRoute({
    summary: doc.summary,
    description: doc.description,
    tags: doc.tags,
    parameters: area === "token" ? [TOKEN_PARAMETER] : undefined,
    security: area === "admin" ? [{ AdminKey: [] }] : [],
    requestBody: doc.body && {
      required: !doc.bodyOptional,
      content: Object.fromEntries(
        Object.entries(doc.body).map(([type, schema]) => [type, { schema: schema instanceof z.ZodType ? resolver(schema) : schema }]),
      ),
    },
    responses: responses as never,
  });
}
