// Builds mirakl-description.json: what the fake Mirakl needs of Mirakl's published seller API
// description (mirakl-mmp-seller-openapi.json, OpenAPI 3.1, in ../shared/reference/mirakl) for
// the operations the connector calls: each one's method and path, its path and query parameters
// (name, required, type, enum), its request body (content type, schema with refs resolved), its
// answers' schemas, its "Call Frequency" text and whether it pages by offset or by seek, plus
// the description's security scheme and its documented OR11 example. The fake runs inside
// workerd and cannot read ../shared at run time, so it imports this output instead; rerun after
// the reference file changes:
//   node test/marketplaces/mirakl/mirakl-description.extract.mjs [path/to/reference/mirakl]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../../shared/reference/mirakl"));
const doc = JSON.parse(readFileSync(join(referenceDir, "mirakl-mmp-seller-openapi.json"), "utf8"));
const defs = doc.components.schemas;

// Stage 1 (orders in, acceptance, whole-order shipment and cancellation, stock and price out)
// and what line-level fulfilment, refunds and returns will call.
const WANTED = ["OR11", "OR21", "OR23", "OR24", "OR29", "OF21", "OF24", "OF02", "OF03", "STO01", "STO02", "STO03", "ST01", "OR30", "OR28", "RT11"];

const text = (html) => (html ?? "").replace(/<[^>]+>/g, " ").replace(/&nbsp;/g, " ").replace(/\s+/g, " ").trim();

/**
 * Refs and allOf resolved, only what a shape check needs. The description marks no field
 * nullable; a field whose description says it can be null ("Null before shipping") is.
 */
function compact(schema, seen = []) {
  if (!schema) return {};
  if (schema.$ref) {
    const name = schema.$ref.split("/").at(-1);
    if (seen.includes(name)) return {};
    const out = compact(defs[name], [...seen, name]);
    if (/\bnull\b/i.test(schema.description ?? "")) out.nullable = true;
    return out;
  }
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => compact(s, seen)), compact({ ...schema, allOf: undefined }, seen));
  const out = {};
  if (typeof schema.type === "string") out.type = schema.type;
  if (schema.format) out.format = schema.format;
  if (schema.enum) out.enum = schema.enum;
  if (schema.required?.length) out.required = schema.required;
  if (/\bnull\b/i.test(schema.description ?? "")) out.nullable = true;
  if (typeof schema.maxItems === "number") out.maxItems = schema.maxItems;
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, compact(p, seen)]));
  if (schema.items) out.items = compact(schema.items, seen);
  return out;
}

function callFrequency(description) {
  const t = text(description);
  const recommended = /Recommended usage:\s*(.*?)(?=Maximum usage:|$)/.exec(t)?.[1]?.trim() ?? null;
  const maximum = /Maximum usage:\s*(.*?)(?=External Partner:|Read More|Pagination|Sort fields|Localization|$)/.exec(t)?.[1]?.trim() ?? null;
  return { recommended, maximum };
}

const operations = [];
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (!WANTED.includes(op?.operationId)) continue;
    const params = op.parameters ?? [];
    const description = op.description ?? "";
    const body = op.requestBody;
    const [contentType, content] = body ? Object.entries(body.content)[0] : [null, null];
    operations.push({
      operationId: op.operationId,
      summary: op.summary,
      deprecated: !!op.deprecated,
      method: method.toUpperCase(),
      path,
      pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
      query: params.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: !!p.required, schema: compact(p.schema) })),
      paging: /offset pagination/.test(description) ? "offset" : /seek pagination/.test(description) ? "seek" : null,
      callFrequency: callFrequency(description),
      errorCodes: [...text(description).matchAll(/\|\s*([A-Z][A-Z_]+)\s*\|/g)].map((m) => m[1]),
      roles: op.security?.flatMap((s) => Object.values(s).flat()) ?? [],
      requestBody: body
        ? {
            contentType,
            schema: compact(content.schema),
            // A multipart file's format is described in words only (STO01's CSV columns).
            fileFormat: content.schema?.properties?.file ? text(content.schema.properties.file.description) : null,
          }
        : null,
      responses: Object.fromEntries(
        Object.entries(op.responses ?? {}).map(([status, r]) => {
          const [type, c] = Object.entries(r.content ?? {})[0] ?? [null, null];
          return [status, { contentType: type, schema: c ? compact(c.schema) : null }];
        }),
      ),
    });
  }
}
operations.sort((a, b) => WANTED.indexOf(a.operationId) - WANTED.indexOf(b.operationId));
const missing = WANTED.filter((id) => !operations.some((o) => o.operationId === id));
if (missing.length > 0) throw new Error(`not in the description: ${missing.join(", ")}`);

const or11 = doc.paths["/api/orders"].get.responses["200"].content["application/json"].examples["application/json-0"].value;
const output = {
  generatedFrom: `mirakl-mmp-seller-openapi.json (${doc.info.title}, OpenAPI ${doc.openapi}): Mirakl's MMP seller description as kept by api-evangelist/mirakl`,
  server: doc.servers?.[0]?.url ?? null,
  security: Object.fromEntries(Object.entries(doc.components.securitySchemes).map(([k, s]) => [k, { type: s.type, in: s.in, name: s.name }])),
  operations,
  examples: { OR11: or11 },
};
const target = join(here, "mirakl-description.json");
writeFileSync(target, `${JSON.stringify(output, null, 1)}\n`);
console.log(`wrote ${target}: ${operations.map((o) => `${o.operationId} ${o.method} ${o.path}`).join(", ")}`);
