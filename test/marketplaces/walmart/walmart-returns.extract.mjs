// Builds walmart-returns.json: what the fake needs of Walmart's published Returns Management
// description (returns.openapi.json, ../shared/reference/walmart): for GET /v3/returns
// (getReturns) and POST /v3/returns/{returnOrderId}/refund (issueRefund) the query parameters,
// the required headers, the request body's schema (refs resolved) and the documented examples,
// plus the return line's documented statuses and refund channels. The fake runs inside workerd
// and cannot read ../shared, so it imports this output; rerun after the reference file changes:
//   node test/marketplaces/walmart/walmart-returns.extract.mjs [path/to/reference/walmart]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/walmart"));
const doc = JSON.parse(readFileSync(join(referenceDir, "returns.openapi.json"), "utf8"));

function deref(node) {
  if (node?.$ref)
    return deref(
      node.$ref
        .split("/")
        .slice(1)
        .reduce((n, k) => n[k], doc),
    );
  return node;
}

/** Only what a shape check needs (type, required, enum, properties, items). */
function compact(schema) {
  schema = deref(schema);
  const out = {};
  if (schema.type) out.type = schema.type;
  if (schema.enum) out.enum = schema.enum;
  if (schema.required?.length) out.required = schema.required;
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, compact(p)]));
  if (schema.items) out.items = compact(schema.items);
  return out;
}

function operation(path, method) {
  const op = doc.paths[path][method];
  const params = (op.parameters ?? []).map(deref);
  const ok = op.responses["200"].content["application/json"];
  const body = op.requestBody?.content?.["application/json"];
  return {
    operationId: op.operationId,
    method: method.toUpperCase(),
    path,
    pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
    queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
    requiredHeaders: params.filter((p) => p.in === "header" && p.required).map((p) => p.name),
    requestBody: body ? { contentType: "application/json", required: !!op.requestBody.required, schema: compact(body.schema), example: body.example } : null,
    responseExample: ok.example,
  };
}

const list = operation("/v3/returns", "get");
const statusParam = doc.paths["/v3/returns"].get.parameters.map(deref).find((p) => p.name === "status");
const lineProps = deref(doc.paths["/v3/returns"].get.responses["200"].content["application/json"].schema).properties.returnOrders.items.properties
  .returnOrderLines.items.properties;
const cursor = list.responseExample.meta.nextCursor;
const out = {
  generatedFrom: `returns.openapi.json (${doc.info.title})`,
  getReturns: { ...list, cursorParams: [...new URLSearchParams(cursor.replace(/^\?/, "")).keys()] },
  issueRefund: operation("/v3/returns/{returnOrderId}/refund", "post"),
  // The description lists them in prose only.
  lineStatuses: statusParam.description.match(/[A-Z]{4,}/g),
  refundChannels: lineProps.refundChannel.description.match(/[A-Z]+(?:_[A-Z]+)+/g),
  limitMax: Number(/larger than (\d+)/.exec(doc.paths["/v3/returns"].get.parameters.map(deref).find((p) => p.name === "limit").description)[1]),
};
writeFileSync(join(here, "walmart-returns.json"), `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote walmart-returns.json: ${out.lineStatuses.join(", ")}; limit <= ${out.limitMax}`);
