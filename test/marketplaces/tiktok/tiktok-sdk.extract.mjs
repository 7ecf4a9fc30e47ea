// Builds tiktok-sdk.json: what the fake TikTok Shop needs of TikTok's official generated Node SDK
// (API classes and models of version 202309, the request signer and the token client; see the
// TikTok section of ../shared/reference/README.md), read from the SDK's TypeScript files:
//   - every operation of the five API classes (order, fulfillment, product, return_refund,
//     authorization): its summary, HTTP method, path, path parameters, query parameters (wire
//     name, type, whether the SDK refuses a call without it, and the range, default or values its
//     documentation gives), header parameters and body model, so a call outside the connector's
//     own is named, not just refused;
//   - for the operations the connector calls (USED), the request body and the answer as schemas
//     (model classes expanded by their attributeTypeMap's wire names; "Valid range: [a, b]" and
//     "Max count: n" of a field's documentation kept as minimum/maximum/maxItems);
//   - the signer's rules (utils/generate-sign.ts: the query keys it leaves out, the common query
//     parameters client/create-trans-request-options.ts adds) and the token endpoints
//     (client/token.ts: host, paths, query keys, the grant_type it sends).
// The fake runs inside workerd and cannot read the SDK at run time, so it imports this output.
// Rerun after the reference changes:
//   node test/marketplaces/tiktok/tiktok-sdk.extract.mjs [path/to/reference/tiktok/tiktok_sdk]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const sdk = resolve(process.argv[2] ?? join(here, "../../../../shared/reference/tiktok/tiktok_sdk"));
const read = (...parts) => readFileSync(join(sdk, ...parts), "utf8");

/**
 * The operations the connector calls, by the SDK's @summary. Orders in (GetOrderList,
 * GetOrderDetail), the shop's cipher (GetAuthorizedShops), fulfilment (ShipPackage for a
 * package TikTok made, SplitOrders and MarkPackageAsShipped for some lines, UpdatePackageShippingInfo
 * for a corrected tracking number), seller cancellation (CancelOrder), stock and price
 * (SearchProducts for SKU ids, InventorySearch for a SKU's warehouses, UpdateInventory,
 * UpdatePrice), returns and refunds (SearchReturns, ApproveReturn, RejectReturn with a reason
 * from GetRejectReasons, CreateReturn for a seller's refund).
 */
const USED = new Set([
  "GetAuthorizedShops",
  "GetOrderList",
  "GetOrderDetail",
  "ShipPackage",
  "SplitOrders",
  "MarkPackageAsShipped",
  "UpdatePackageShippingInfo",
  "CancelOrder",
  "SearchProducts",
  "InventorySearch",
  "UpdateInventory",
  "UpdatePrice",
  "SearchReturns",
  "ApproveReturn",
  "RejectReturn",
  "GetRejectReasons",
  "CreateReturn",
]);

const plain = (text) =>
  text
    .replace(/&#x60;/g, "`")
    .replace(/\\'/g, "'")
    .replace(/\\"/g, '"')
    .replace(/\s+/g, " ")
    .trim();

/** Range, default, values and count limits a description states, as schema keywords. */
function fromDocs(doc, withValues) {
  const out = {};
  const range = /Valid range: \[\s*([\d,.]+)\s*[-,]\s*([\d,.]+)\s*\]/.exec(doc);
  if (range) {
    out.minimum = Number(range[1].replace(/,/g, ""));
    out.maximum = Number(range[2].replace(/,/g, ""));
  }
  const count = /Max (?:count|IDs|number)[^:]*: (\d+)/i.exec(doc);
  if (count) out.maxItems = Number(count[1]);
  // "Default: 20", "Default: DESC", "Default: `create_time`" (not "Default: Return all products").
  const fallback = /Default: (?:`(\w+)`|(\d+)\b|([A-Z][A-Z_]+)\b)/.exec(doc);
  if (fallback) out.default = fallback[2] !== undefined ? Number(fallback[2]) : (fallback[1] ?? fallback[3]);
  if (withValues) {
    // "Possible values: - ASC: ... - DESC: ..." or "Available values: - `UNPAID`: ...": the list,
    // only when every item is a plain token (a list "based on region" is left alone).
    const list = /(?:Possible|Available) values:((?:\s*- `?[A-Za-z0-9_]+`?[^-]*)+)/.exec(doc);
    if (list) {
      const items = list[1]
        .split(/\s- /)
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => /^`?([A-Za-z0-9_]+)`?(?::|\s|$)/.exec(s)?.[1]);
      if (items.length > 1 && items.every(Boolean)) out.enum = items;
    }
  }
  return out;
}

// ---- models: class name -> { attrs: [{name, base, type}], docs: {name: text} }
const models = new Map();
for (const group of readdirSync(join(sdk, "model"))) {
  for (const file of readdirSync(join(sdk, "model", group, "V202309"))) {
    const text = read("model", group, "V202309", file);
    const cls = /export class (\w+)/.exec(text)?.[1];
    if (!cls) throw new Error(`model/${group}/V202309/${file} has no class`);
    const docs = {};
    for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*'(\w+)'\?:/g)) docs[m[2]] = plain(m[1].replace(/^\s*\*/gm, " "));
    const attrs = [...text.matchAll(/"name": "(\w+)",\s*"baseName": "(\w+)",\s*"type": "([^"]+)"/g)].map((a) => ({ name: a[1], base: a[2], type: a[3] }));
    models.set(cls, { attrs, docs });
  }
}

/** A model type as a schema: wire names, the SDK's types, ranges from the documentation. */
function schemaOf(type, request, seen = []) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { type: "array", items: schemaOf(array[1], request, seen) };
  if (type === "string" || type === "number" || type === "boolean") return { type };
  if (type === "object" || type === "any") return { type: "object" };
  const model = models.get(type);
  if (!model) throw new Error(`no model ${type} in the SDK files kept`);
  if (seen.includes(type)) throw new Error(`recursive model ${[...seen, type].join(" > ")}`);
  const properties = {};
  for (const a of model.attrs) {
    const doc = model.docs[a.name] ?? "";
    const schema = schemaOf(a.type, request, [...seen, type]);
    properties[a.base] = { ...schema, ...fromDocs(doc, request && schema.type === "string") };
    if (schema.type === "array" && properties[a.base].maxItems === undefined) delete properties[a.base].maxItems;
    if (schema.type !== "array") delete properties[a.base].maxItems;
    if (schema.type !== "number") {
      delete properties[a.base].minimum;
      delete properties[a.base].maximum;
    }
    delete properties[a.base].default;
  }
  return { type: "object", properties };
}

// ---- operations, method by method of each API class
const operations = [];
for (const file of readdirSync(join(sdk, "api")).sort()) {
  const text = read("api", file);
  const api = /^(\w+?)V202309Api\.ts$/.exec(file)?.[1];
  // Each operation: its JSDoc, its signature and its body, up to the next operation.
  const starts = [...text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*public async (\w+) \(/g)];
  for (const [i, m] of starts.entries()) {
    const [, jsdoc, sdkMethod] = m;
    const body = text.slice(m.index + m[0].length, starts[i + 1]?.index ?? text.length);
    const method = /method: '(\w+)'/.exec(body)?.[1];
    const summary = /@summary (\w+)/.exec(jsdoc)?.[1];
    const path = /const localVarPath = this\.basePath \+ '([^']+)'/.exec(body)?.[1];
    if (!summary || !path || !method) throw new Error(`${file} ${sdkMethod}: no @summary or path`);
    const paramDocs = Object.fromEntries([...jsdoc.matchAll(/@param (\w+)([^\n]*)/g)].map((p) => [p[1], plain(p[2])]));
    const required = new Set([...body.matchAll(/Required parameter (\w+) was null/g)].map((r) => r[1]));
    const pathParams = [...body.matchAll(/\.replace\('\{' \+ '(\w+)' \+ '\}', encodeURIComponent\(String\((\w+)\)\)\)/g)].map((p) => ({
      name: p[1],
      required: required.has(p[2]),
    }));
    const query = [...body.matchAll(/localVarQueryParameters\['(\w+)'\] = ObjectSerializer\.serialize\((\w+), "([^"]+)"\)/g)].map((q) => {
      const type = q[3] === "Array<string>" ? "array" : q[3];
      return { name: q[1], required: required.has(q[2]), type, ...fromDocs(paramDocs[q[2]] ?? "", type === "string") };
    });
    const headers = [...body.matchAll(/localVarHeaderParams\['([\w-]+)'\] = ObjectSerializer\.serialize\((\w+), "string"\)/g)].map((h) => ({
      name: h[1],
      required: required.has(h[2]),
    }));
    const bodyType = /body: ObjectSerializer\.serialize\(\w+, "(\w+)"\)/.exec(body)?.[1] ?? null;
    const answerType = /ObjectSerializer\.deserialize\(body, "(\w+)"\)/.exec(body)?.[1];
    const op = { operationId: summary, sdkMethod, api, method, path, pathParams, query, headers, bodyModel: bodyType, used: USED.has(summary) };
    if (op.used) {
      op.requestBody = bodyType ? schemaOf(bodyType, true) : null;
      op.answer = schemaOf(answerType, false);
    }
    operations.push(op);
  }
}
for (const id of USED) if (!operations.some((o) => o.operationId === id)) throw new Error(`the SDK has no operation ${id}`);

// ---- the signer and the common query parameters
const signer = read("utils", "generate-sign.ts");
const excluded = /const excludeKeys = \[([^\]]+)\]/
  .exec(signer)?.[1]
  .match(/"(\w+)"/g)
  ?.map((k) => k.slice(1, -1));
const interceptor = read("client", "create-trans-request-options.ts");
const common = /option\.qs = \{\s*([\w\s,]+?),\s*\.\.\.option\.qs/
  .exec(interceptor)?.[1]
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const multipart = /content_type"\] !== "([^"]+)"/.exec(signer)?.[1];
if (!excluded || !common || !multipart || !/createHmac\("sha256", app_secret\)/.test(signer) || !/digest\("hex"\)/.test(signer)) {
  throw new Error("utils/generate-sign.ts or client/create-trans-request-options.ts changed: read the signer again");
}

// ---- the token client
const token = read("client", "token.ts");
const host = /const auth_host = "([^"]+)"/.exec(token)?.[1];
const refreshPath = /const refresh_token_path = "([^"]+)"/.exec(token)?.[1];
const getPath = /const get_access_token_path = "([^"]+)"/.exec(token)?.[1];
const sdkGrantType = /const grant_type = "([^"]+)"/.exec(token)?.[1];
const refreshQuery = /async refreshToken\(props[\s\S]*?const qs = \{([^}]+)\}/
  .exec(token)?.[1]
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const tokenType = /export type TokenResponse = \{([\s\S]*?)\n\};/.exec(token)?.[1] ?? "";
const answerFields = [...tokenType.matchAll(/^\s{2}(\w+)\??: /gm)].map((f) => f[1]);
if (!host || !refreshPath || !getPath || !sdkGrantType || !refreshQuery || answerFields.length === 0)
  throw new Error("client/token.ts changed: read the token client again");

const output = {
  generatedFrom:
    "TikTok Shop's official generated Node SDK (OpenAPI Generator, API version 202309): api/*V202309Api.ts, model/*/V202309/*.ts, utils/generate-sign.ts, " +
    "client/create-trans-request-options.ts, client/token.ts",
  signer: {
    excludedQueryKeys: excluded,
    commonQuery: common,
    signQuery: "sign",
    bodySignedUnlessContentType: multipart,
    algorithm: "HMAC-SHA256 keyed with app_secret over app_secret + path + sorted key+value pairs + JSON body + app_secret, lowercase hex",
  },
  token: { host, refreshPath, getPath, sdkGrantType, refreshQuery, answerFields },
  operations,
};
const target = join(here, "tiktok-sdk.json");
writeFileSync(target, `${JSON.stringify(output, null, 1)}\n`);
console.log(
  `wrote ${target}: ${operations.length} operations, ${operations
    .filter((o) => o.used)
    .map((o) => o.operationId)
    .join(", ")}`,
);
