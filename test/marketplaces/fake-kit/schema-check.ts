// The shape check the fakes hold requests and their own answers to: a walk over a compacted
// OpenAPI schema (refs resolved, only type, format, enum, required, properties, items, and where
// a description gives them nullable, minimum, maximum, maxItems). An object schema without properties takes
// any keys; one with properties takes only those.
export interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
}

export function schemaProblems(value: unknown, schema: Schema, path: string, problems: string[] = []): string[] {
  if (value === null && schema.nullable) return problems;
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push(`${path}: expected an object, got ${JSON.stringify(value)}`);
      return problems;
    }
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in record)) problems.push(`${path}.${key}: required by the description, missing`);
    }
    if (schema.properties) {
      for (const [key, v] of Object.entries(record)) {
        const sub = schema.properties[key];
        if (!sub) problems.push(`${path}.${key}: not a field of the description`);
        else schemaProblems(v, sub, `${path}.${key}`, problems);
      }
    }
  } else if (schema.type === "array") {
    if (!Array.isArray(value)) problems.push(`${path}: expected an array, got ${JSON.stringify(value)}`);
    else {
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        problems.push(`${path}: ${value.length} items, more than the maximum ${schema.maxItems}`);
      value.forEach((v, i) => schemaProblems(v, schema.items ?? {}, `${path}[${i}]`, problems));
    }
  } else if (schema.type === "string" && typeof value !== "string") {
    problems.push(`${path}: expected a string, got ${JSON.stringify(value)}`);
  } else if (schema.type === "integer" && !(Number.isInteger(value) && (schema.format !== "int32" || Math.abs(value as number) < 2 ** 31))) {
    problems.push(`${path}: expected an ${schema.format ?? "integer"}, got ${JSON.stringify(value)}`);
  } else if (schema.type === "number" && typeof value !== "number") {
    problems.push(`${path}: expected a number, got ${JSON.stringify(value)}`);
  } else if (schema.type === "boolean" && typeof value !== "boolean") {
    problems.push(`${path}: expected a boolean, got ${JSON.stringify(value)}`);
  }
  if (typeof value === "number" && schema.minimum !== undefined && value < schema.minimum) {
    problems.push(`${path}: ${value} is below the minimum ${schema.minimum}`);
  }
  if (typeof value === "number" && schema.maximum !== undefined && value > schema.maximum) {
    problems.push(`${path}: ${value} is above the maximum ${schema.maximum}`);
  }
  if (schema.enum && !schema.enum.includes(value)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  return problems;
}
