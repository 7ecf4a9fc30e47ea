// Builds walmart-feeds.json: what the fake needs of Walmart's published descriptions for the bulk
// stock and price feeds: the feed files' JSON Schemas (../shared/reference/walmart/
// inventory-schemas/InventoryFeed.json and price-schemas/PriceFeed.json, their file refs inlined
// and Price.json's definitions hoisted to the root), and of POST /v3/feeds (inventory.openapi.json
// updateBulkInventory, price.openapi.json priceBulkUploads) and GET /v3/feeds/{feedId}
// (feeds.openapi.json getFeedItemStatus): the query parameters, the body's media type and
// required part, and the status enums. Rerun after the reference files change:
//   node test/marketplaces/walmart/walmart-feeds.extract.mjs [path/to/reference/walmart]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const referenceDir = resolve(process.argv[2] ?? join(here, "../../../shared/reference/walmart"));
const read = (name) => JSON.parse(readFileSync(join(referenceDir, name), "utf8"));

/** A feed schema with its sibling-file refs inlined; the inlined files' definitions move to the root. */
function bundle(dir, name) {
  const root = read(join(dir, name));
  const definitions = {};
  const inline = (node) => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== "object") return node;
    if (typeof node.$ref === "string" && node.$ref.endsWith(".json")) {
      const file = read(join(dir, node.$ref));
      Object.assign(definitions, file.definitions ?? {});
      const { $schema, definitions: _, ...rest } = file;
      return inline(rest);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  const { $schema, ...body } = inline(root);
  return { ...body, definitions };
}

function post(file, operationId) {
  const op = Object.values(read(file).paths["/v3/feeds"]).find((o) => o.operationId === operationId);
  const feedType = op.parameters.find((p) => p.name === "feedType");
  const media = Object.keys(op.requestBody.content);
  return {
    operationId,
    queryParams: op.parameters.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: !!p.required })),
    requiredHeaders: op.parameters.filter((p) => p.in === "header" && p.required).map((p) => p.name),
    feedTypes: feedType.schema.enum,
    mediaTypes: media,
    requiredParts: op.requestBody.content[media[0]].schema.required,
    responseExample: op.responses["200"].content["application/json"].example,
  };
}

const feeds = read("feeds.openapi.json");
const getOp = feeds.paths["/v3/feeds/{feedId}"].get;
const status = getOp.responses["200"].content["application/json"].schema.properties;
const out = {
  inventoryFeed: bundle("inventory-schemas", "InventoryFeed.json"),
  priceFeed: bundle("price-schemas", "PriceFeed.json"),
  postInventory: post("inventory.openapi.json", "updateBulkInventory"),
  postPrice: post("price.openapi.json", "priceBulkUploads"),
  getFeed: {
    operationId: getOp.operationId,
    queryParams: getOp.parameters.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: !!p.required })),
    requiredHeaders: getOp.parameters.filter((p) => p.in === "header" && p.required).map((p) => p.name),
    feedStatuses: status.feedStatus.enum,
    ingestionStatuses: status.itemDetails.properties.itemIngestionStatus.items.properties.ingestionStatus.enum,
    ingestionErrorTypes: status.ingestionErrors.properties.ingestionError.items.properties.type.enum,
  },
};
writeFileSync(join(here, "walmart-feeds.json"), `${JSON.stringify(out, null, 2)}\n`);
console.log("wrote walmart-feeds.json");
