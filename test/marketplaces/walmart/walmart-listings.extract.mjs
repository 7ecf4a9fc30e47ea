// Builds walmart-listings.json: what the fake needs of Walmart's published inventory and price
// descriptions (inventory.openapi.json, price.openapi.json in ../shared/reference/walmart) for
// the two calls the connector makes to set a SKU's stock and price: PUT /v3/inventory and PUT
// /v3/price, with their query parameters, required headers, request schemas (JSON content) and
// documented examples. Rerun after the reference files change:
//   node test/marketplaces/walmart/walmart-listings.extract.mjs [path/to/reference/walmart]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/walmart"));
const read = (name) => JSON.parse(readFileSync(join(referenceDir, name), "utf8"));

/** Only what a shape check needs (type, required, enum, properties, items); these schemas are inline. */
function compact(schema) {
  const out = {};
  if (schema.type) out.type = schema.type;
  if (schema.enum) out.enum = schema.enum;
  if (schema.required?.length) out.required = schema.required;
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, compact(p)]));
  if (schema.items) out.items = compact(schema.items);
  return out;
}

function operation(doc, path, method) {
  const op = doc.paths[path][method];
  const params = op.parameters ?? [];
  const body = op.requestBody.content["application/json"];
  return {
    operationId: op.operationId,
    method: method.toUpperCase(),
    path,
    queryParams: params.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: !!p.required })),
    requiredHeaders: params.filter((p) => p.in === "header" && p.required).map((p) => p.name),
    requestSchema: compact(body.schema),
    requestExample: body.example,
    responseExample: op.responses["200"].content["application/json"].example,
  };
}

const inventory = read("inventory.openapi.json");
const price = read("price.openapi.json");
const output = {
  generatedFrom: {
    inventory: `inventory.openapi.json (${inventory.info.title}, OpenAPI ${inventory.openapi})`,
    price: `price.openapi.json (${price.info.title}, OpenAPI ${price.openapi})`,
  },
  operations: [operation(inventory, "/v3/inventory", "put"), operation(price, "/v3/price", "put")],
};
const target = join(here, "walmart-listings.json");
writeFileSync(target, `${JSON.stringify(output, null, 1)}\n`);
console.log(`wrote ${target}: ${output.operations.map((o) => o.operationId).join(", ")}`);
