// Builds ebay-listings.json: what the fake needs of eBay's published Sell Inventory API
// description (../shared/reference/ebay/sell_inventory_v1_oas3.json, 793 KB) for the two calls
// the connector makes to set a SKU's stock and price: getOffers (GET /offer, to learn each SKU's
// published offers) and bulkUpdatePriceQuantity (POST /bulk_update_price_quantity), with their
// query parameters, required headers, scopes, request and response schemas ($refs resolved) and
// documented error ids, plus the batch limit the schema's text states. Rerun after the reference
// file changes:
//   node test/marketplaces/ebay/ebay-listings.extract.mjs [path/to/reference/ebay]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/ebay"));
const doc = JSON.parse(readFileSync(join(referenceDir, "sell_inventory_v1_oas3.json"), "utf8"));
const schemas = doc.components.schemas;

/** Only what a shape check needs (type, required, enum, properties, items), $refs resolved. */
function compact(schema, depth = 0) {
  if (schema.$ref) return compact(schemas[schema.$ref.split("/").pop()], depth);
  const out = {};
  if (schema.type) out.type = schema.type;
  if (schema.enum) out.enum = schema.enum;
  if (schema.required?.length) out.required = schema.required;
  if (depth > 8) return out;
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, compact(p, depth + 1)]));
  if (schema.items) out.items = compact(schema.items, depth + 1);
  return out;
}

function operation(path, method) {
  const op = doc.paths[path][method];
  const params = op.parameters ?? [];
  const errors = {};
  for (const [status, r] of Object.entries(op.responses)) {
    for (const [id, e] of Object.entries(r["x-response-codes"]?.errors ?? {}))
      errors[id] = { status: Number(status), category: e.category, message: e.description };
  }
  const body = op.requestBody?.content["application/json"];
  const ok = op.responses["200"].content["application/json"];
  return {
    operationId: op.operationId,
    method: method.toUpperCase(),
    path: `${doc.servers[0].variables.basePath.default}${path}`,
    queryParams: params.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: !!p.required })),
    requiredHeaders: params.filter((p) => p.in === "header" && p.required).map((p) => p.name),
    scopes: (op.security ?? []).flatMap((s) => Object.values(s).flat()),
    statuses: Object.keys(op.responses).map(Number),
    requestSchema: body ? compact(body.schema) : null,
    responseSchema: compact(ok.schema),
    errors,
  };
}

const bulkText = schemas.BulkPriceQuantity.properties.requests.description;
const maxRequests = Number(/\(up to (\d+)\)/.exec(bulkText)?.[1]);
if (!maxRequests) throw new Error("BulkPriceQuantity.requests no longer states its limit as '(up to N)'");
const output = {
  source: `sell_inventory_v1_oas3.json v${doc.info.version}`,
  // The requests array's own text: "one or more inventory items (up to 25)". The method's text
  // says "Only one SKU (one product) can be updated per call": see ebay.listings.ts.
  maxRequests,
  operations: [operation("/offer", "get"), operation("/bulk_update_price_quantity", "post")],
};
const target = join(here, "ebay-listings.json");
writeFileSync(target, `${JSON.stringify(output, null, 1)}\n`);
console.log(`wrote ${target}: ${output.operations.map((o) => o.operationId).join(", ")}, maxRequests ${maxRequests}`);
