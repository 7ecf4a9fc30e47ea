// The OpenAPI 3.1 document of the service, generated from the routes' own annotations and
// validators (hono-openapi walks the app's routes). Added here: what no single route knows
// (security schemes, the shared headers, the /api/v1 Bearer forms that src/http/normalize.ts
// rewrites onto /v1/{token}/...).
import type { Hono } from "hono";
import { generateSpecs } from "hono-openapi";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { BEARER_FORMS } from "../http/normalize";
import { errorEnvelope } from "../http/openapi";

/** Paths that are not the API: the benchmark's routes, the console, this document and its page. */
export const NOT_DOCUMENTED = [/^\/admin\/v1\/bench(\/|$)/, /^\/console(\/|$)/, /^\/docs$/, /^\/openapi\.json$/];

type Document = Awaited<ReturnType<typeof generateSpecs>>;
type Operation = Record<string, unknown> & { parameters?: { in?: string; name?: string }[]; operationId?: string };

const DESCRIPTION = `An order and feed hub. A seller's system exchanges a consumer key for an access token
(PUT /v1/Authorization) and puts the token in the path: /v1/{token}/orders/... and /v1/{token}/feeds/....
Three reads also take the token as \`Authorization: Bearer <token>\` at /api/v1/... . Operator routes live
under /admin/v1 with \`Authorization: Bearer <ADMIN_API_KEY>\`.

Fixed path words and query parameter names are case-insensitive (/v1/{token}/Orders/InsertOrder works as
well as the lower-case spelling shown here). Every JSON answer is the envelope {Success, Message, ...};
every /v1 answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, and the same numbers
as the structured fields RateLimit-Policy and RateLimit of draft-ietf-httpapi-ratelimit-headers-11;
a 429 and a 503 carry Retry-After.`;

export async function buildDocument(app: Hono<AppEnv>): Promise<Document> {
  const { $schema: _, ...errorSchema } = z.toJSONSchema(errorEnvelope) as Record<string, unknown>;
  const document = await generateSpecs(app, {
    documentation: {
      info: { title: "Order and feed hub", version: "1.0.0", description: DESCRIPTION },
      tags: [
        { name: "Authorization" },
        { name: "Orders" },
        { name: "Feeds" },
        { name: "Stores" },
        { name: "Consumer keys" },
        { name: "Sources" },
        { name: "Sync" },
        { name: "Catalog" },
        { name: "Feed definitions" },
        { name: "Orders (operator)" },
        { name: "Webhooks" },
        { name: "Maintenance" },
        { name: "Overview" },
      ],
      components: {
        securitySchemes: {
          AdminKey: { type: "http", scheme: "bearer", description: "The operator's ADMIN_API_KEY (/admin/v1 only)." },
          AccessToken: { type: "http", scheme: "bearer", description: "An access token from PUT /v1/Authorization (/api/v1 forms only)." },
        },
        headers: {
          "X-RateLimit-Limit": { description: "The size of the caller's bucket (calls).", schema: { type: "integer" } },
          "X-RateLimit-Remaining": { description: "Calls left in the bucket now.", schema: { type: "integer" } },
          "X-RateLimit-Reset": { description: "Seconds until the bucket is empty again (rounded up; 0 when it is).", schema: { type: "integer" } },
          "RateLimit-Policy": {
            description:
              "The bucket as a quota policy (draft-ietf-httpapi-ratelimit-headers-11, a structured List): q its size in calls, w the seconds a full bucket " +
              'takes to drain. The default bucket: `"bucket";q=50;w=25`.',
            schema: { type: "string", pattern: '^"bucket";q=[0-9]+;w=[0-9]+$' },
          },
          RateLimit: {
            description:
              "The bucket now (draft-ietf-httpapi-ratelimit-headers-11, a structured List): r the calls remaining (X-RateLimit-Remaining), t the seconds " +
              "until it is empty again (X-RateLimit-Reset).",
            schema: { type: "string", pattern: '^"bucket";r=[0-9]+;t=[0-9]+$' },
          },
          "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } },
        },
        schemas: { ErrorEnvelope: errorSchema as never },
      },
    },
    exclude: NOT_DOCUMENTED,
    defaultValidationErrorResponse: false,
  });
  addBearerForms(document);
  return document;
}

/** /api/v1/orders/count and friends: the /v1/{token}/... operation, with the token in a header. */
function addBearerForms(document: Document): void {
  for (const [form, tail] of BEARER_FORMS) {
    const source = document.paths?.[`/v1/{token}${tail}`]?.get as Operation | undefined;
    if (!source) continue;
    const operation: Operation = structuredClone(source);
    operation.parameters = (operation.parameters ?? []).filter((p) => !(p.in === "path" && p.name === "token"));
    operation.security = [{ AccessToken: [] }];
    operation.operationId = `${source.operationId}Bearer`;
    document.paths![form] = { get: operation as never };
  }
}
