// Builds etsy-description.json, the part of Etsy's published Open API v3 description
// (openapi-3.0.0.json, see ../shared/reference/etsy) the fake needs: the server, the API-key
// header and the OAuth token URL, every operation's method and path (so a call outside the
// connector's six is named, not just refused), and for those six their parameters with the
// ranges the description gives (type, minimum, maximum, enum), scopes, the form body schema and
// the JSON body schema of updateListingInventory, and the answer schema (refs and single-member
// allOf resolved, `nullable` kept, descriptions dropped). The fake runs inside workerd and cannot read the reference at run time, so it
// imports this output; rerun after the reference changes:
//   node test/marketplaces/etsy/etsy-description.extract.mjs [path/to/reference/etsy]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/etsy"));
const spec = JSON.parse(readFileSync(join(referenceDir, "openapi-3.0.0.json"), "utf8"));
const defs = spec.components.schemas;

// What the connector calls: the receipts list (import), one receipt (the check before a
// shipment) and the shipment itself; for stock and price, the shop's listings with their
// inventory (Etsy has no SKU lookup), one listing's inventory (read before it is replaced) and
// its replacement.
const USED = new Set(["getShopReceipts", "getShopReceipt", "createReceiptShipment", "getListingsByShop", "getListingInventory", "updateListingInventory"]);

/** Refs resolved, only what a shape check needs. */
function compact(schema, seen = []) {
  if (schema.$ref) {
    const name = schema.$ref.split("/").at(-1);
    if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(" > ")}`);
    return compact(defs[name], [...seen, name]);
  }
  // Etsy wraps every referenced property as {description, allOf: [{$ref}]}.
  if (schema.allOf) {
    if (schema.allOf.length !== 1) throw new Error(`allOf with ${schema.allOf.length} members is not handled`);
    return { ...compact(schema.allOf[0], seen), ...(schema.nullable ? { nullable: true } : {}) };
  }
  const out = {};
  for (const key of ["type", "format", "enum", "required", "nullable", "minimum", "maximum"]) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, compact(p, seen)]));
  }
  if (schema.items) out.items = compact(schema.items, seen);
  return out;
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch"]);
const operations = [];
for (const [path, methods] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    if (!HTTP_METHODS.has(method)) continue;
    const entry = { operationId: op.operationId, method: method.toUpperCase(), path, used: USED.has(op.operationId) };
    if (entry.used) {
      entry.parameters = (op.parameters ?? []).map((p) => ({ name: p.name, in: p.in, required: p.required === true, schema: compact(p.schema) }));
      entry.scopes = (op.security ?? spec.security ?? []).flatMap((s) => Object.values(s).flat());
      const form = op.requestBody?.content?.["application/x-www-form-urlencoded"];
      const json = op.requestBody?.content?.["application/json"];
      if (op.requestBody && !form && !json) throw new Error(`${op.operationId} takes a body other than a form or JSON`);
      entry.formBody = form ? compact(form.schema) : null;
      entry.jsonBody = json ? compact(json.schema) : null;
      entry.answerSchema = compact(op.responses["200"].content["application/json"].schema);
      entry.errorStatuses = Object.keys(op.responses)
        .filter((code) => code !== "200")
        .map(Number);
    }
    operations.push(entry);
  }
}
for (const id of USED) if (!operations.some((o) => o.operationId === id)) throw new Error(`the description has no ${id}`);

const apiKey = spec.components.securitySchemes.api_key;
const flow = spec.components.securitySchemes.oauth2.flows.authorizationCode;
const out = {
  source: `openapi-3.0.0.json (Open API v3, openapi ${spec.openapi}, info.version ${spec.info.version})`,
  server: spec.servers[0].url,
  apiKeyHeader: apiKey.in === "header" ? apiKey.name : null,
  // The description's tokenUrl (openapi.etsy.com); Etsy's authentication guide names
  // api.etsy.com (reference README). The path is the same, so the fake serves it on any host.
  tokenUrl: flow.tokenUrl,
  scopes: Object.keys(flow.scopes),
  errorSchema: compact(defs.ErrorSchema),
  operations,
};
const target = join(here, "etsy-description.json");
writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote ${target}: ${operations.length} operations, ${operations.filter((o) => o.used).length} with parameters and schemas`);
