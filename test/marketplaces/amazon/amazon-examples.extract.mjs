// Builds amazon-examples.json, the part of Amazon's Selling Partner API models the fake Amazon
// needs: every operation of the five models the connector uses (path, method, parameters with
// their types and enums, the body schema with refs resolved, the 2xx answer's schema, the usage
// plan from the description) and the models' own examples: the `x-amzn-api-sandbox` request and
// answer pairs and the answers' `examples`. The fake runs inside workerd and cannot read the
// reference folder at run time, so it imports this output instead; rerun after the models change:
//   node test/marketplaces/amazon/amazon-examples.extract.mjs [path/to/reference/amazon]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/amazon"));
const MODELS = ["orders_2026-01-01.json", "ordersV0.json", "feeds_2021-06-30.json", "listingsItems_2021-08-01.json", "reports_2021-06-30.json"];
// The operations the fake answers; the others are kept so a call to them is named, not a 404.
const SERVED = [
  "searchOrders",
  "confirmShipment",
  "createFeedDocument",
  "createFeed",
  "getFeed",
  "getFeedDocument",
  "patchListingsItem",
  "createReport",
  "getReport",
  "getReportDocument",
];

/** Refs resolved, only what a shape check needs. */
function compact(schema, defs, seen = []) {
  if (!schema) return null;
  if (schema.$ref) {
    const name = schema.$ref.split("/").at(-1);
    if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(" > ")}`);
    return compact(defs[name], defs, [...seen, name]);
  }
  const out = {};
  for (const key of ["type", "format", "enum", "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum"]) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (schema.required?.length) out.required = schema.required;
  if (schema.properties) {
    out.type ??= "object";
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, compact(v, defs, seen)]));
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    out.additionalProperties = compact(schema.additionalProperties, defs, seen);
  } else if (schema.additionalProperties === true) {
    // Any field (patchListingsItem's attribute values: their shapes come from product type definitions).
    out.additionalProperties = {};
  }
  if (schema.items) out.items = compact(schema.items, defs, seen);
  return out;
}

/** The usage plan the description states: "| 0.0056 | 20 |" (rate per second, burst). */
function usagePlan(description, operationId) {
  const rows = [...(description ?? "").matchAll(/^\|\s*(?:Default\s*\|\s*)?([\d.]+)\s*\|\s*(\d+)\s*\|\s*$/gm)];
  if (rows.length !== 1) throw new Error(`${operationId}: expected one usage plan row, found ${rows.length}`);
  return { rate: Number(rows[0][1]), burst: Number(rows[0][2]) };
}

const operations = [];
for (const file of MODELS) {
  const model = JSON.parse(readFileSync(join(referenceDir, file), "utf8"));
  const defs = model.definitions ?? {};
  for (const [path, item] of Object.entries(model.paths)) {
    const shared = item.parameters ?? [];
    for (const [method, op] of Object.entries(item)) {
      if (method === "parameters") continue;
      const params = [...shared, ...(op.parameters ?? [])];
      const bodyParam = params.find((p) => p.in === "body");
      const responses = {};
      const sandbox = [];
      const examples = {};
      for (const [status, answer] of Object.entries(op.responses)) {
        responses[status] = compact(answer.schema, defs);
        for (const c of answer["x-amzn-api-sandbox"]?.static ?? []) {
          const parameters = Object.fromEntries(Object.entries(c.request?.parameters ?? {}).map(([k, v]) => [k, v.value]));
          sandbox.push({ status: Number(status), parameters, response: c.response ?? null });
        }
        const example = answer.examples?.["application/json"];
        if (example !== undefined) examples[status] = example;
      }
      if (!SERVED.includes(op.operationId)) {
        // Named only, so the fake can say the connector called an operation it should not need.
        operations.push({ model: file, operationId: op.operationId, served: false, method: method.toUpperCase(), path });
        continue;
      }
      operations.push({
        model: file,
        operationId: op.operationId,
        served: SERVED.includes(op.operationId),
        method: method.toUpperCase(),
        path,
        usagePlan: usagePlan(op.description, op.operationId),
        params: params
          .filter((p) => p.in !== "body")
          .map((p) => ({
            name: p.name,
            in: p.in,
            required: p.required === true,
            ...compact(p, defs),
            ...(p.items ? { items: compact(p.items, defs) } : {}),
          })),
        body: bodyParam ? { required: bodyParam.required === true, schema: compact(bodyParam.schema, defs) } : null,
        consumes: op.consumes ?? model.consumes ?? [],
        responses,
        sandbox,
        examples,
      });
    }
  }
}

// Every sandbox request body must pass the schema the fake checks the connector's bodies with
// (the 400 cases excepted: they are the models' own invalid inputs).
import("./amazon-schema-check.mjs").then(({ checkAgainstSchema }) => {
  for (const op of operations.filter((o) => o.served)) {
    for (const c of op.sandbox) {
      // patchListingsItem's first case has the body `{}`: a placeholder for "any body", not an example.
      if (c.status >= 400 || !op.body || c.parameters.body === undefined || Object.keys(c.parameters.body).length === 0) continue;
      const problems = checkAgainstSchema(c.parameters.body, op.body.schema, "body");
      if (problems.length > 0) throw new Error(`${op.operationId} sandbox ${c.status}: ${problems.join("; ")}`);
    }
    for (const [status, example] of Object.entries(op.examples)) {
      const schema = op.responses[status];
      if (!schema) continue;
      const problems = checkAgainstSchema(example, schema, "example");
      if (problems.length > 0) throw new Error(`${op.operationId} example ${status}: ${problems.join("; ")}`);
    }
  }
  const out = join(here, "amazon-examples.json");
  writeFileSync(
    out,
    `${JSON.stringify({ source: "amzn/selling-partner-api-models 34dc93fe (see ../shared/reference/README.md)", models: MODELS, operations }, null, 1)}\n`,
  );
  console.log(`wrote ${out}: ${operations.length} operations, ${operations.reduce((n, o) => n + (o.sandbox?.length ?? 0), 0)} sandbox cases`);
});
