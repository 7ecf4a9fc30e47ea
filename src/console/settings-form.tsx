// A source's Settings form, built from its connector's schema as the OpenAPI document publishes
// it (components.schemas.<Type>Settings), and the way back: form fields to a Settings object.
// Secrets (writeOnly) are password fields and never prefilled. Fields and marketplaces are named
// in words, as an operator reads them, not by their API spelling.
import type { FC } from "hono/jsx";
import { Field, Select } from "./components";

export interface JsonSchema {
  title?: string;
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  writeOnly?: boolean;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  $ref?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export interface SettingsSpec {
  type: string;
  schema: JsonSchema;
}

/** Each Type and its Settings schema, from POST /admin/v1/stores/{storeId}/sources in the document. */
export function settingsSpecs(doc: {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema> };
}): SettingsSpec[] {
  const body = doc.paths["/admin/v1/stores/{storeId}/sources"]?.post?.requestBody?.content["application/json"]?.schema;
  const resolve = (s: JsonSchema | undefined): JsonSchema => {
    if (s?.$ref) return doc.components.schemas[s.$ref.split("/").pop()!] ?? {};
    return s ?? {};
  };
  return (body?.oneOf ?? []).map((variant) => {
    const type = String((variant.properties?.Type as { const?: unknown } | undefined)?.const ?? "");
    return { type, schema: resolve(variant.properties?.Settings) };
  });
}

/** Words an operator reads in capitals (an API's ID, URL, SKU), by their lower-case spelling. */
const ACRONYMS: Record<string, string> = {
  id: "ID",
  ids: "IDs",
  url: "URL",
  urls: "URLs",
  api: "API",
  sku: "SKU",
  skus: "SKUs",
  lwa: "LWA",
  sp: "SP",
  oauth: "OAuth",
};

/**
 * A Settings field as an operator reads it: the schema's title when it has one, else its name in
 * words ("ordersPerHour" is "Orders per hour", "baseUrl" is "Base URL").
 */
export function settingLabel(name: string, schema?: JsonSchema): string {
  if (schema?.title) return schema.title;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .filter(Boolean);
  return words
    .map((word, i) => {
      const lower = word.toLowerCase();
      if (Object.hasOwn(ACRONYMS, lower)) return ACRONYMS[lower]!;
      return i === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
    })
    .join(" ");
}

/** Marketplaces as their owners spell them; a Type not listed is shown with a capital. */
const MARKETPLACE_NAMES: Record<string, string> = {
  simulated: "simulated marketplace",
  walmart: "Walmart",
  ebay: "eBay",
  shopify: "Shopify",
  amazon: "Amazon",
  etsy: "Etsy",
  mirakl: "Mirakl",
  tiktok: "TikTok Shop",
};

export const marketplaceName = (type: string) =>
  Object.hasOwn(MARKETPLACE_NAMES, type) ? MARKETPLACE_NAMES[type]! : type.charAt(0).toUpperCase() + type.slice(1);

/** "an eBay source", "a Walmart source": the article by the name's first sound (a vowel letter). */
export const withArticle = (name: string) => `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;

const kindOf = (s: JsonSchema): string => {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (s.enum) return "enum";
  return t ?? "object";
};

/** The fields of a Type's Settings, named Settings.<name>, each as its schema says. */
export const SettingsFields: FC<{ form: string; spec: SettingsSpec }> = ({ form, spec }) => {
  const required = new Set(spec.schema.required ?? []);
  return (
    <>
      {Object.entries(spec.schema.properties ?? {}).map(([name, s]) => {
        const kind = kindOf(s);
        const hintParts = [s.description, s.default !== undefined ? `Default: ${JSON.stringify(s.default)}.` : ""];
        if (kind === "array" || kind === "object") hintParts.push("As JSON.");
        if (s.writeOnly) hintParts.push("Secret: stored encrypted, never shown again.");
        hintParts.push(`(${name} in the API.)`);
        const common = {
          form,
          name: `Settings.${name}`,
          label: settingLabel(name, s),
          required: required.has(name),
          hint: hintParts.filter(Boolean).join(" "),
        };
        if (kind === "enum") {
          return (
            <Select {...common} options={[["", required.has(name) ? "Choose…" : "Default"], ...(s.enum ?? []).map((v) => [String(v), String(v)] as const)]} />
          );
        }
        if (kind === "number" || kind === "integer")
          return <Field {...common} type="number" attrs={{ step: kind === "integer" ? 1 : "any", inputmode: "decimal" }} />;
        if (kind === "boolean")
          return (
            <Select
              {...common}
              options={[
                ["", "Default"],
                ["true", "Yes"],
                ["false", "No"],
              ]}
            />
          );
        if (s.writeOnly) return <Field {...common} type="password" attrs={{ autocomplete: "off" }} />;
        return <Field {...common} />;
      })}
    </>
  );
};

/** Form values (Settings.<name>) to Settings; an empty field is left out so its default applies. */
export function settingsFromForm(spec: SettingsSpec, form: Record<string, unknown>): { settings: Record<string, unknown> } | { field: string; error: string } {
  const settings: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(spec.schema.properties ?? {})) {
    const raw = form[`Settings.${name}`];
    if (typeof raw !== "string" || raw.trim() === "") continue;
    const kind = kindOf(s);
    if (kind === "number" || kind === "integer") {
      const n = Number(raw);
      if (!Number.isFinite(n)) return { field: `Settings.${name}`, error: `'Settings.${name}' must be a number.` };
      settings[name] = n;
    } else if (kind === "boolean") {
      settings[name] = raw === "true";
    } else if (kind === "array" || kind === "object") {
      try {
        settings[name] = JSON.parse(raw);
      } catch {
        return { field: `Settings.${name}`, error: `'Settings.${name}' is not valid JSON.` };
      }
    } else {
      settings[name] = raw;
    }
  }
  return { settings };
}
