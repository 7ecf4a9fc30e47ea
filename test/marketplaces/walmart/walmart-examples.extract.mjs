// Builds walmart-examples.json, the part of Walmart's published API descriptions the fake needs:
// paths, parameter names, required headers, request schemas (refs resolved) and the documented
// examples. The fake runs inside workerd and cannot read ../shared at run time, so it imports
// this output instead; rerun after the reference files change:
//   node test/marketplaces/walmart/walmart-examples.extract.mjs [path/to/reference/walmart]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/walmart"));
const orders = JSON.parse(readFileSync(join(referenceDir, "orders.openapi.json"), "utf8"));
const auth = JSON.parse(readFileSync(join(referenceDir, "auth.openapi.json"), "utf8"));

// The description's own shipping schema contradicts its example: OrderShipmentRecord.orderLines
// points at RefundLinesType (each line requires `refunds`) and ShippingLineType's statuses at the
// read-side OrderLineStatusesType, while ShippingLinesType / ShipLineStatusesType sit unreferenced
// and match the example. The request wrappers also require nothing, so `{}` would pass. Each
// correction is listed in the output, and every documented request example must still pass.
const overrides = [
  {
    at: "OrderShipmentRecord.properties.orderLines",
    ref: "ShippingLinesType",
    why: "the description points at RefundLinesType; its example and the unreferenced ShippingLinesType agree",
  },
  {
    at: "ShippingLineType.properties.orderLineStatuses",
    ref: "ShipLineStatusesType",
    why: "the shipping statuses (trackingInfo required) are ShipLineStatusType, unreferenced in the description",
  },
  { at: "OrderShipment.required", value: ["orderShipment"], why: "the wrapper is what makes the shape" },
  { at: "OrderCancellationResponse.required", value: ["orderCancellation"], why: "the wrapper is what makes the shape" },
];
const schemas = structuredClone(orders.components.schemas);
for (const o of overrides) {
  const [name, ...rest] = o.at.split(".");
  let node = schemas[name];
  for (const key of rest.slice(0, -1)) node = node[key];
  const last = rest.at(-1);
  if (o.ref) {
    if (!schemas[o.ref]) throw new Error(`override target ${o.ref} is not in the description`);
    node[last] = { $ref: `#/components/schemas/${o.ref}` };
  } else {
    node[last] = o.value;
  }
}

/** Refs resolved, only what a shape check needs (type, required, enum, properties, items). */
function compact(schema, defs, seen = []) {
  if (schema.$ref) {
    const name = schema.$ref.split("/").at(-1);
    if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(" > ")}`);
    return compact(defs[name], defs, [...seen, name]);
  }
  const out = {};
  if (schema.type) out.type = schema.type;
  if (schema.format) out.format = schema.format;
  if (schema.enum) out.enum = schema.enum;
  if (schema.required?.length) out.required = schema.required;
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([, p]) => !p.readOnly)
        .map(([k, p]) => [k, compact(p, defs, seen)]),
    );
  }
  if (schema.items) out.items = compact(schema.items, defs, seen);
  return out;
}

/** The same walk the fake does, enough to prove each documented example fits its schema. */
function check(value, schema, path, problems) {
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return problems.push(`${path}: not an object`);
    for (const key of schema.required ?? []) if (!(key in value)) problems.push(`${path}.${key}: missing`);
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties?.[key];
      if (!sub) problems.push(`${path}.${key}: not in the schema`);
      else check(v, sub, `${path}.${key}`, problems);
    }
  } else if (schema.type === "array") {
    if (!Array.isArray(value)) return problems.push(`${path}: not an array`);
    value.forEach((v, i) => check(v, schema.items ?? {}, `${path}[${i}]`, problems));
  } else if (schema.type === "string" && typeof value !== "string") problems.push(`${path}: not a string`);
  else if (schema.type === "integer" && !Number.isInteger(value)) problems.push(`${path}: not an integer`);
  else if (schema.type === "number" && typeof value !== "number") problems.push(`${path}: not a number`);
  else if (schema.type === "boolean" && typeof value !== "boolean") problems.push(`${path}: not a boolean`);
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${path}: ${JSON.stringify(value)} not in enum`);
  return problems;
}

function headerNames(doc, names) {
  return names.map((n) => {
    const p = doc.components.parameters[n];
    if (p?.in !== "header" || !p.required) throw new Error(`header parameter ${n} is not a required header`);
    return p.name;
  });
}

function examplesOf(content) {
  if (!content) return null;
  if (content.example !== undefined) return { default: content.example };
  return Object.fromEntries(Object.entries(content.examples ?? {}).map(([k, v]) => [k, v.value]));
}

const operations = [];
for (const [path, item] of Object.entries(orders.paths)) {
  for (const [method, op] of Object.entries(item)) {
    const params = op.parameters ?? [];
    const response = examplesOf(op.responses?.["200"]?.content?.["application/json"]);
    const body = op.requestBody?.content?.["application/json"];
    const out = {
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
      queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
      // Walmart's nextCursor is sent back verbatim, so its names are accepted too.
      cursorParams: [],
      requestBody: null,
      responseExamples: response,
    };
    const cursor = response?.default?.list?.meta?.nextCursor;
    if (typeof cursor === "string") {
      out.cursorParams = [...new URLSearchParams(cursor.replace(/^\?/, "")).keys()];
    }
    if (body) {
      const schema = compact(body.schema, schemas);
      const example = examplesOf(body)?.default;
      const problems = check(example, schema, "body", []);
      if (problems.length) throw new Error(`${op.operationId} example fails its schema:\n${problems.join("\n")}`);
      out.requestBody = { contentType: "application/json", required: !!op.requestBody.required, schema, example };
    }
    operations.push(out);
  }
}

const tokenOp = auth.paths["/v3/token"].post;
const tokenForm = tokenOp.requestBody.content["application/x-www-form-urlencoded"];
const tokenSchema = compact(tokenForm.schema, auth.components.schemas);
const clientCredentials = tokenForm.examples.clientCredentialsReq.value;
const tokenProblems = check(clientCredentials, tokenSchema, "form", []);
if (tokenProblems.length) throw new Error(`token example fails its schema:\n${tokenProblems.join("\n")}`);

const output = {
  generatedFrom: {
    orders: `orders.openapi.json ${orders.info.version}`,
    auth: `auth.openapi.json ${auth.info.version}`,
  },
  overrides: overrides.map(({ at, ref, value, why }) => ({ at, to: ref ?? value, why })),
  // Accept is required by the orders description and, per Walmart's guides (reference README),
  // on every call; the token call carries the same service headers.
  apiHeaders: headerNames(orders, ["accessToken", "svcName", "correlationId", "accept"]),
  bodyContentType: orders.components.parameters["content-type"].example,
  token: {
    method: "POST",
    path: "/v3/token",
    headers: [...headerNames(auth, ["authorization", "svcName", "correlationId"]), "Accept"],
    contentType: auth.components.parameters["content-type"].example,
    formSchema: tokenSchema,
    formExample: clientCredentials,
    response: tokenOp.responses["200"].content["application/json"].examples.clientCredentialsRes.value,
  },
  operations,
};

const target = join(here, "walmart-examples.json");
writeFileSync(target, `${JSON.stringify(output, null, 1)}\n`);
console.log(`wrote ${target}: ${operations.length} operations, ${overrides.length} overrides`);
