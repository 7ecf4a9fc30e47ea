// Shopify stock and price (decisions 11), from the GraphQL Admin API 2026-01 extract
// (../shared/reference/shopify/admin-2026-01.inventory-price-subset.graphql). A push of up to
// BATCH Skus is two calls: a read (productVariants searched by sku, exact matches kept), then ONE
// mutation document holding inventorySetQuantities for every quantity (absolute values at the
// source's location, changeFromQuantity null: the hub is the source of truth, an @idempotent
// key) and one aliased productVariantsBulkUpdate per product for the prices. Mutations cost 10
// points each, so 1 + 50 products stays under the 1,000-point ceiling of a single query.
import { MarketplaceError, type ListingOutcome, type ListingsPush, type ListingUpdate } from "../connector";
import { describeUserErrors } from "./shopify.mapping";
import type { ShopifyUserError } from "./shopify.types";

/** Skus a push takes: 50 products' price updates + the stock mutation = 510 points. */
const BATCH = 50;
/** A cycle's pushes: the leaky bucket (100 points/s on Standard) paces them in graphql(). */
const PUSHES_PER_CYCLE = 100;

type Graphql = <T>(operation: string, query: string, variables: Record<string, unknown>) => Promise<T>;

interface Variant {
  id: string;
  sku: string | null;
  product: { id: string };
  inventoryItem: { id: string };
}

const VARIANTS_QUERY = `query ShopifyVariantsBySku($query: String!) {
  productVariants(first: ${BATCH * 2}, query: $query) { nodes { id sku product { id } inventoryItem { id } } }
}`;

const LOCATIONS_QUERY = `query ShopifyLocations {
  locations(first: 2) { nodes { id name } }
}`;

/** Shopify's search syntax, each value quoted: compared exactly afterwards (the search is not). */
export const skuSearch = (skus: string[]) => skus.map((sku) => `sku:${JSON.stringify(sku)}`).join(" OR ");

type Part = { state: "ok" } | { state: "refused" | "retry"; message: string };

export function shopifyListings(deps: { graphql: Graphql; locationId: string | undefined }): ListingsPush {
  let location: string | null = deps.locationId ?? null;

  async function locationId(): Promise<string> {
    if (location) return location;
    const data = await deps.graphql<{ locations?: { nodes?: { id: string; name: string }[] } }>("ShopifyLocations", LOCATIONS_QUERY, {});
    const nodes = data.locations?.nodes ?? [];
    if (nodes.length !== 1) {
      throw new MarketplaceError(
        `Shopify: the shop has ${nodes.length === 0 ? "no active location" : "several locations"}; set Settings.locationId to the location whose stock ` +
          `this source sets (${nodes.map((n) => `${n.name}: ${n.id}`).join(", ")})`,
        null,
        false,
      );
    }
    location = nodes[0]!.id;
    return location;
  }

  async function push(updates: ListingUpdate[], locationGid: string): Promise<Map<string, ListingOutcome>> {
    const outcomes = new Map<string, ListingOutcome>();
    const found = await deps.graphql<{ productVariants?: { nodes?: Variant[] } }>("ShopifyVariantsBySku", VARIANTS_QUERY, {
      query: skuSearch(updates.map((u) => u.sku)),
    });
    const bySku = new Map<string, Variant[]>();
    for (const v of found.productVariants?.nodes ?? []) if (v.sku !== null) bySku.set(v.sku, [...(bySku.get(v.sku) ?? []), v]);

    const targets: { update: ListingUpdate; variant: Variant }[] = [];
    for (const u of updates) {
      const matches = bySku.get(u.sku) ?? [];
      if (matches.length === 0) outcomes.set(u.sku, { state: "unknownSku", message: `Shopify has no variant with SKU ${u.sku}` });
      else if (matches.length > 1)
        outcomes.set(u.sku, { state: "refused", message: `Shopify has ${matches.length} variants with SKU ${u.sku}; set them apart to let the hub set one` });
      else targets.push({ update: u, variant: matches[0]! });
    }
    if (targets.length === 0) return outcomes;

    const stock = targets.filter((t) => t.update.quantity !== null);
    const products = new Map<string, typeof targets>();
    for (const t of targets.filter((t) => t.update.price !== null)) products.set(t.variant.product.id, [...(products.get(t.variant.product.id) ?? []), t]);
    const variables: Record<string, unknown> = {};
    const declarations: string[] = [];
    const fields: string[] = [];
    if (stock.length > 0) {
      variables.stock = {
        name: "available",
        reason: "correction",
        quantities: stock.map((t) => ({
          inventoryItemId: t.variant.inventoryItem.id,
          locationId: locationGid,
          quantity: t.update.quantity,
          changeFromQuantity: null,
        })),
      };
      declarations.push("$stock: InventorySetQuantitiesInput!");
      fields.push(`stock: inventorySetQuantities(input: $stock) @idempotent(key: "${crypto.randomUUID()}") { userErrors { code field message } }`);
    }
    [...products.values()].forEach((group, i) => {
      variables[`product${i}`] = group[0]!.variant.product.id;
      variables[`variants${i}`] = group.map((t) => ({ id: t.variant.id, price: t.update.price!.toFixed(2) }));
      declarations.push(`$product${i}: ID!`, `$variants${i}: [ProductVariantsBulkInput!]!`);
      fields.push(`price${i}: productVariantsBulkUpdate(productId: $product${i}, variants: $variants${i}) { userErrors { code field message } }`);
    });
    const data = await deps.graphql<Record<string, { userErrors?: ShopifyUserError[] } | null>>(
      "ShopifyPushListings",
      `mutation ShopifyPushListings(${declarations.join(", ")}) {\n  ${fields.join("\n  ")}\n}`,
      variables,
    );

    const quantityPart = new Map<string, Part>();
    const pricePart = new Map<string, Part>();
    if (stock.length > 0) settle(stock, data.stock?.userErrors ?? [], 2, quantityPart, "inventorySetQuantities");
    [...products.values()].forEach((group, i) => settle(group, data[`price${i}`]?.userErrors ?? [], 1, pricePart, "productVariantsBulkUpdate"));
    for (const { update } of targets) outcomes.set(update.sku, combine(quantityPart.get(update.sku), pricePart.get(update.sku)));
    return outcomes;
  }

  /**
   * Each Sku's part from a mutation's userErrors: one whose field names its index (at `indexAt`
   * of the path) is refused; the others are retried, since the mutation applied nothing.
   */
  function settle(group: { update: ListingUpdate }[], errors: ShopifyUserError[], indexAt: number, parts: Map<string, Part>, mutation: string) {
    const refused = new Map<number, ShopifyUserError[]>();
    for (const e of errors) {
      const index = Number(e.field?.[indexAt]);
      if (Number.isInteger(index) && index >= 0 && index < group.length) refused.set(index, [...(refused.get(index) ?? []), e]);
    }
    group.forEach(({ update }, i) => {
      const own = refused.get(i);
      if (own) parts.set(update.sku, { state: "refused", message: `Shopify ${mutation} refused: ${describeUserErrors(own)}` });
      else if (errors.length > 0) parts.set(update.sku, { state: "retry", message: `Shopify ${mutation} refused the batch: ${describeUserErrors(errors)}` });
      else parts.set(update.sku, { state: "ok" });
    });
  }

  return {
    batchSize: BATCH,
    pushesPerCycle: PUSHES_PER_CYCLE,
    async push(updates) {
      return push(updates, await locationId());
    },
  };
}

function combine(quantity: Part | undefined, price: Part | undefined): ListingOutcome {
  const failed = [quantity, price].find((p) => p && p.state !== "ok") as Extract<Part, { message: string }> | undefined;
  if (!failed) return { state: "accepted" };
  const refused = [quantity, price].some((p) => p?.state === "refused");
  return { state: refused ? "refused" : "retry", message: failed.message, quantityAccepted: quantity?.state === "ok", priceAccepted: price?.state === "ok" };
}
