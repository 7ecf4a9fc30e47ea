// The shape check the fake Amazon holds requests (and its own answers) to, shared with the
// extract script that proves the models' own examples pass it. Plain JavaScript so that both the
// script (Node) and the fake (workerd) run the same walk.

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** True for an ISO 8601 date-time with a zone that also names a real instant. */
export function isDateTime(value) {
  return typeof value === "string" && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** Every way `value` departs from `schema` (a compacted Swagger schema), as readable lines. */
export function checkAgainstSchema(value, schema, path, problems = []) {
  if (!schema) return problems;
  const type = schema.type ?? (schema.properties ? "object" : undefined);
  if (type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push(`${path}: expected an object`);
      return problems;
    }
    for (const key of schema.required ?? []) {
      if (!(key in value)) problems.push(`${path}.${key}: required by the model, missing`);
    }
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties?.[key] ?? schema.additionalProperties;
      if (!sub) problems.push(`${path}.${key}: not a field of the model`);
      else checkAgainstSchema(v, sub, `${path}.${key}`, problems);
    }
  } else if (type === "array") {
    if (!Array.isArray(value)) {
      problems.push(`${path}: expected an array`);
      return problems;
    }
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${path}: at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${path}: at most ${schema.maxItems} items`);
    value.forEach((v, i) => checkAgainstSchema(v, schema.items, `${path}[${i}]`, problems));
  } else if (type === "string") {
    if (typeof value !== "string") problems.push(`${path}: expected a string, got ${JSON.stringify(value)}`);
    else if (schema.format === "date-time" && !isDateTime(value)) problems.push(`${path}: ${JSON.stringify(value)} is not an ISO 8601 date-time`);
  } else if (type === "integer") {
    if (!Number.isInteger(value)) problems.push(`${path}: expected an integer, got ${JSON.stringify(value)}`);
  } else if (type === "number") {
    if (typeof value !== "number" || !Number.isFinite(value)) problems.push(`${path}: expected a number, got ${JSON.stringify(value)}`);
  } else if (type === "boolean") {
    if (typeof value !== "boolean") problems.push(`${path}: expected a boolean, got ${JSON.stringify(value)}`);
  }
  if (schema.enum && !schema.enum.includes(value)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  return problems;
}
