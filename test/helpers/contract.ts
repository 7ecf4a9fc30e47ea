// The contract check every whole request of the tests goes through (helpers/api.ts): the answer
// must be one the OpenAPI document (GET /openapi.json) lists for that operation, its JSON body
// must validate against the documented schema, and /v1 answers must carry the documented
// throttle headers (integers, or the structured fields' documented patterns). Validation uses @cfworker/json-schema (no code generation, so it runs in
// workerd), independent of the zod schemas the document was generated from.
import { exports } from "cloudflare:workers";
import { Validator, type Schema } from "@cfworker/json-schema";
import { normalizeUrl } from "../../src/http/normalize";

interface Operation {
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: Schema }> }>;
}
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; headers?: Record<string, { schema?: { type?: string; pattern?: string } }> };
};

let loaded: Promise<{ doc: Doc; templates: { path: string; pattern: RegExp; literals: number }[] }> | null = null;
const validators = new Map<string, Validator>();

async function load() {
  const response = await exports.default.fetch(new Request("https://hub.test/openapi.json"));
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  // Component references become $defs of each validated schema (the JSON Schema way).
  const doc = JSON.parse((await response.text()).replaceAll("#/components/schemas/", "#/$defs/")) as Doc;
  const templates = Object.keys(doc.paths).map((path) => {
    const parts = path.split("/");
    const pattern = new RegExp(`^${parts.map((p) => (p.startsWith("{") ? "[^/]+" : p.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))).join("/")}$`);
    return { path, pattern, literals: parts.filter((p) => !p.startsWith("{")).length };
  });
  return { doc, templates };
}

/** The documented operation a request reaches, or null (an undocumented path or method). */
async function operationOf(method: string, url: URL, authorization: string | null) {
  loaded ??= load();
  const { doc, templates } = await loaded;
  const path = normalizeUrl(url, authorization).pathname;
  // The original path for the /api/v1 Bearer forms, the canonical one otherwise.
  const candidates = [url.pathname.toLowerCase().replace(/\/+$/, ""), path];
  for (const candidate of candidates) {
    const hits = templates.filter((t) => t.pattern.test(candidate) && doc.paths[t.path]![method.toLowerCase()]);
    hits.sort((a, b) => b.literals - a.literals);
    if (hits[0]) return { key: `${method} ${hits[0].path}`, operation: doc.paths[hits[0].path]![method.toLowerCase()]!, doc };
  }
  return null;
}

export async function checkContract(
  request: { method: string; url: string; authorization: string | null },
  response: { status: number; headers: Headers; text: string },
) {
  // HEAD has no body; 405 and 410 mean the request reached no operation (another method, a retired path).
  if (request.method === "HEAD" || response.status === 405 || response.status === 410) return;
  const url = new URL(request.url);
  const found = await operationOf(request.method, url, request.authorization);
  if (!found) return;
  const where = `${request.method} ${url.pathname.slice(0, 120)} -> ${response.status} (${found.key})`;
  const documented = found.operation.responses[String(response.status)];
  if (!documented) throw new Error(`Contract: status ${response.status} is not documented for ${where}`);
  for (const name of Object.keys(documented.headers ?? {})) {
    const value = response.headers.get(name);
    // Integers unless the document gives the header a string pattern (the structured rate-limit fields).
    const pattern = found.doc.components.headers?.[name]?.schema?.pattern;
    const shape = pattern === undefined ? /^\d+$/ : new RegExp(pattern);
    if (value === null || !shape.test(value))
      throw new Error(`Contract: header ${name} is missing or not of its documented form ${shape} (${value}) in ${where}`);
  }
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const content = documented.content ?? {};
  if (Object.keys(content).length === 0) return;
  if (!content[contentType]) throw new Error(`Contract: content type '${contentType}' is not documented for ${where}`);
  const schema = content[contentType]!.schema;
  if (contentType !== "application/json" || !schema) return;
  const key = `${found.key} ${response.status}`;
  let validator = validators.get(key);
  if (!validator) {
    // Short-circuit: a valid answer (nearly all) costs a third of a full walk; a bad one is
    // walked again below for the full list of what is wrong.
    validator = new Validator({ ...schema, $defs: found.doc.components.schemas } as Schema, "2020-12", true);
    validators.set(key, validator);
  }
  const body = JSON.parse(response.text);
  if (!validator.validate(body).valid) {
    const result = new Validator({ ...schema, $defs: found.doc.components.schemas } as Schema, "2020-12", false).validate(body);
    const errors = result.errors.slice(0, 5).map((e) => `${e.instanceLocation}: ${e.error}`);
    throw new Error(`Contract: the answer does not match its documented schema in ${where}:\n${errors.join("\n")}\n${response.text.slice(0, 500)}`);
  }
}
