// Builds ebay-description.json, the part of eBay's published Fulfillment API description
// (sell_fulfillment_v1_oas3.json v1.20.7, see ../shared/reference/ebay) the fake needs: the
// base path, the OAuth token URL and scopes, every operation's method, path and parameters, the
// request and answer schemas (refs resolved, descriptions dropped) of the operations the
// connector uses, and each operation's documented error ids. The fake runs inside workerd and
// cannot read the reference at run time, so it imports this output; rerun after the reference
// changes:
//   node test/marketplaces/ebay/ebay-description.extract.mjs [path/to/reference/ebay]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/ebay"));
const spec = JSON.parse(readFileSync(join(referenceDir, "sell_fulfillment_v1_oas3.json"), "utf8"));
const defs = spec.components.schemas;

// The operations the connector calls; the others are listed by path only, so that a call to
// them is reported as unexpected rather than as unknown.
const USED = new Set(["getOrders", "getOrder", "createShippingFulfillment", "getShippingFulfillments", "getShippingFulfillment", "issueRefund"]);

/** Refs resolved, only what a shape check needs (type, format, enum, required, properties, items). */
function compact(schema, seen = []) {
  if (schema.$ref) {
    const name = schema.$ref.split("/").at(-1);
    if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(" > ")}`);
    return compact(defs[name], [...seen, name]);
  }
  const out = {};
  for (const key of ["type", "format", "enum", "required"]) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, compact(p, seen)]));
  }
  if (schema.items) out.items = compact(schema.items, seen);
  return out;
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch"]);
const basePath = spec.servers[0].variables.basePath.default;
const operations = [];
for (const [path, methods] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    // Path items also carry `servers` (the payment-dispute paths live on apiz.ebay.com).
    if (!HTTP_METHODS.has(method)) continue;
    const params = op.parameters ?? [];
    const entry = {
      operationId: op.operationId,
      method: method.toUpperCase(),
      path: `${basePath}${path}`,
      pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
      queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
      requiredHeaders: params.filter((p) => p.in === "header" && p.required).map((p) => p.name),
      scopes: (op.security ?? []).flatMap((s) => Object.values(s).flat()),
      used: USED.has(op.operationId),
    };
    if (entry.used) {
      const body = op.requestBody?.content?.["application/json"];
      entry.requestBody = body ? { required: op.requestBody.required === true, schema: compact(body.schema) } : null;
      const [status, answer] = Object.entries(op.responses).find(([code]) => code.startsWith("2"));
      entry.successStatus = Number(status);
      entry.responseSchema = answer.content?.["application/json"]?.schema ? compact(answer.content["application/json"].schema) : null;
      entry.errors = {};
      for (const [code, response] of Object.entries(op.responses)) {
        for (const [id, e] of Object.entries(response["x-response-codes"]?.errors ?? {})) {
          entry.errors[id] = { status: Number(code), domain: e.domain, category: e.category, message: e.description };
        }
      }
    }
    operations.push(entry);
  }
}
for (const id of USED) if (!operations.some((o) => o.operationId === id)) throw new Error(`the description has no ${id}`);

const flow = spec.components.securitySchemes.api_auth.flows.authorizationCode;
const out = {
  source: `sell_fulfillment_v1_oas3.json ${spec.info.version}`,
  basePath,
  tokenUrl: flow.tokenUrl,
  authorizationUrl: flow.authorizationUrl,
  scopes: Object.keys(flow.scopes),
  operations,
};
const target = join(here, "ebay-description.json");
writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote ${target}: ${operations.length} operations, ${operations.filter((o) => o.used).length} with schemas`);
