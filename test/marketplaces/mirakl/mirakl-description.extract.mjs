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

// Orders in, acceptance, shipment (whole orders, and packages by ST01 with their tracking
// corrections by ST23 and look-ups by ST11), cancellation (whole, or by line through OR30 with a
// reason from RE01), refunds (OR28), returns in (RT11), stock and price out.
const WANTED = [
  "OR11",
  "OR21",
  "OR23",
  "OR24",
  "OR29",
  "OF21",
  "OF24",
  "OF02",
  "OF03",
  "STO01",
  "STO02",
  "STO03",
  "ST01",
  "ST11",
  "ST23",
  "OR30",
  "OR28",
  "RE01",
  "RT11",
];

const text = (html) =>
  (html ?? "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();

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

// Where the description's schema and its own example disagree, the example wins; each correction
// is listed in the output, and every documented request example must then fit its schema.
const overrides = [
  {
    operationId: "OF24",
    at: ["offers", "items", "offer_additional_fields", "items"],
    property: "value",
    schema: {},
    why: "OF24_Request_Offers_OfferAdditionalFields has code and type only; the description's example (and OF21's answer) send each custom field's value",
  },
  {
    operationId: "OR28",
    at: ["refunds", "items"],
    property: "tax_legal_notice",
    schema: { type: "string" },
    why: "not in OR28_Request_Refunds; the description's example sends it (OR11 answers it on refunds)",
  },
  {
    operationId: "ST01",
    at: ["shipments", "items", "shipment_additional_information", "items"],
    property: "value",
    schema: {},
    why: "the schema's value is an object; the description's example sends strings (a STRING and a DATE field)",
  },
  {
    operationId: "ST01",
    at: ["shipments", "items", "shipment_additional_information"],
    property: "nullable",
    value: true,
    why: "the description's example sends null for a shipment without additional information",
  },
];
for (const o of overrides) {
  let node = operations.find((op) => op.operationId === o.operationId).requestBody.schema;
  for (const key of o.at) node = key === "items" ? node.items : node.properties[key];
  if ("value" in o) node[o.property] = o.value;
  else node.properties[o.property] = o.schema;
}

/** The walk the fake does, enough to prove each documented request example fits its schema. */
function check(value, schema, path, problems) {
  if (value === null && schema.nullable) return problems;
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return problems.push(`${path}: not an object`);
    for (const key of schema.required ?? []) if (!(key in value)) problems.push(`${path}.${key}: missing`);
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties?.[key];
      if (schema.properties && !sub) problems.push(`${path}.${key}: not in the schema`);
      else if (sub) check(v, sub, `${path}.${key}`, problems);
    }
  } else if (schema.type === "array") {
    if (!Array.isArray(value)) problems.push(`${path}: not an array`);
    else value.forEach((v, i) => check(v, schema.items ?? {}, `${path}[${i}]`, problems));
  }
  return problems;
}
for (const [path, item] of Object.entries(doc.paths)) {
  for (const op of Object.values(item)) {
    const mine = operations.find((o) => o.operationId === op?.operationId);
    const examples = op?.requestBody?.content?.["application/json"]?.examples ?? {};
    for (const [name, example] of Object.entries(examples)) {
      if (name.endsWith("-auto")) continue;
      const problems = check(example.value, mine?.requestBody?.schema ?? {}, `${mine?.operationId ?? path} ${name}`, []);
      if (mine && problems.length > 0) throw new Error(`a documented example does not fit its schema: ${problems.join("; ")}`);
    }
  }
}
const missing = WANTED.filter((id) => !operations.some((o) => o.operationId === id));
if (missing.length > 0) throw new Error(`not in the description: ${missing.join(", ")}`);

const or11 = doc.paths["/api/orders"].get.responses["200"].content["application/json"].examples["application/json-0"].value;
const output = {
  generatedFrom: `mirakl-mmp-seller-openapi.json (${doc.info.title}, OpenAPI ${doc.openapi}): Mirakl's MMP seller description as kept by api-evangelist/mirakl`,
  server: doc.servers?.[0]?.url ?? null,
  security: Object.fromEntries(Object.entries(doc.components.securitySchemes).map(([k, s]) => [k, { type: s.type, in: s.in, name: s.name }])),
  overrides: overrides.map(({ operationId, at, property, why }) => ({ operationId, at: [...at, property].join("."), why })),
  operations,
  examples: { OR11: or11 },
};
const target = join(here, "mirakl-description.json");
writeFileSync(target, `${JSON.stringify(output, null, 1)}\n`);
console.log(`wrote ${target}: ${operations.map((o) => `${o.operationId} ${o.method} ${o.path}`).join(", ")}`);
