// The stock and price half of the fake Shopify (shopify-fake.ts executes these resolvers over the
// schema merged with the inventory-price extract): productVariants searched by `sku:"..." OR ...`,
// locations, inventorySetQuantities (all or nothing, refused with the InventorySetQuantities
// error codes of the extract: unknown item or location, item not stocked there, negative,
// duplicate pair, no compare-and-swap choice; an @idempotent key repeated with the same input
// answers as before without applying twice, with another input IDEMPOTENCY_KEY_PARAMETER_MISMATCH)
// and productVariantsBulkUpdate (the variants of one product; PRODUCT_DOES_NOT_EXIST,
// MUST_BE_FOR_THIS_PRODUCT, negative price; nothing applied unless allowPartialUpdates).
import type { Json } from "./shopify-fixtures";

export interface FakeVariant {
  sku: string;
  /** Numeric parts of the gids. */
  id: number;
  productId: number;
  inventoryItemId: number;
  price: string;
  /** Location numbers the item is stocked at, with the available quantity. */
  available: Record<number, number>;
}

export interface ShopifyListingsOptions {
  variants?: FakeVariant[];
  locations?: { id: number; name: string; isActive: boolean }[];
}

const gid = (type: string, n: number) => `gid://shopify/${type}/${n}`;
const numberOf = (id: unknown, type: string): number | null => {
  const m = typeof id === "string" ? new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(id) : null;
  return m ? Number(m[1]) : null;
};
const MAX_FIRST = 250;

export function shopifyListingsFake(opts: ShopifyListingsOptions, violations: string[]) {
  const variants: FakeVariant[] = structuredClone(opts.variants ?? []);
  const locations = opts.locations ?? [{ id: 1, name: "Warehouse", isActive: true }];
  const idempotent = new Map<string, { input: string; result: Json }>();

  const variantNode = (v: FakeVariant) => ({
    id: gid("ProductVariant", v.id),
    sku: v.sku,
    price: v.price,
    product: { id: gid("Product", v.productId) },
    inventoryItem: { id: gid("InventoryItem", v.inventoryItemId) },
  });

  function connection<T>(nodes: T[], first: unknown, field: string) {
    if (typeof first !== "number" || first < 1 || first > MAX_FIRST) violations.push(`${field}: first must be 1..${MAX_FIRST}, got ${String(first)}`);
    const n = typeof first === "number" ? first : 0;
    return {
      nodes: nodes.slice(0, n),
      edges: nodes.slice(0, n).map((node) => ({ node, cursor: "" })),
      pageInfo: { hasNextPage: nodes.length > n, hasPreviousPage: false, startCursor: null, endCursor: null },
    };
  }

  /** `sku:"A" OR sku:"B"`: the only search this fake understands; values compared exactly. */
  function skusOf(query: unknown): string[] {
    const text = typeof query === "string" ? query : "";
    const skus: string[] = [];
    for (const term of text.split(" OR ")) {
      const m = /^sku:("(?:[^"\\]|\\.)*")$/.exec(term.trim());
      if (!m) {
        violations.push(`productVariants(query:): the fake does not understand the term ${term}`);
        continue;
      }
      skus.push(JSON.parse(m[1]!) as string);
    }
    return skus;
  }

  function inventorySetQuantities(args: { input: Json }, key: string | null) {
    const input = args.input;
    const fingerprint = JSON.stringify(input);
    if (key !== null) {
      const earlier = idempotent.get(key);
      if (earlier && earlier.input !== fingerprint) {
        return {
          inventoryAdjustmentGroup: null,
          userErrors: [
            {
              code: "IDEMPOTENCY_KEY_PARAMETER_MISMATCH",
              field: ["input"],
              message: "The same idempotency key cannot be used with different operation parameters.",
            },
          ],
        };
      }
      if (earlier) return earlier.result;
    }
    const errors: Json[] = [];
    if (input.name !== "available" && input.name !== "on_hand")
      errors.push({ code: "INVALID_NAME", field: ["input", "name"], message: "The quantity name must be either 'available' or 'on_hand'." });
    const quantities = input.quantities as Json[];
    const seen = new Set<string>();
    const changes: { variant: FakeVariant; location: number; quantity: number }[] = [];
    quantities.forEach((q, i) => {
      const at = (field: string) => ["input", "quantities", String(i), field];
      if (!("changeFromQuantity" in q) && q.compareQuantity === undefined && input.ignoreCompareQuantity !== true) {
        errors.push({
          code: "COMPARE_QUANTITY_REQUIRED",
          field: at("changeFromQuantity"),
          message: "The compareQuantity argument must be given to each quantity or ignored using ignoreCompareQuantity.",
        });
      }
      const item = numberOf(q.inventoryItemId, "InventoryItem");
      const variant = variants.find((v) => v.inventoryItemId === item);
      const location = numberOf(q.locationId, "Location");
      if (!variant)
        return errors.push({ code: "INVALID_INVENTORY_ITEM", field: at("inventoryItemId"), message: "The specified inventory item could not be found." });
      if (!locations.some((l) => l.id === location))
        return errors.push({ code: "INVALID_LOCATION", field: at("locationId"), message: "The specified location could not be found." });
      if (!(location! in variant.available))
        return errors.push({
          code: "ITEM_NOT_STOCKED_AT_LOCATION",
          field: at("inventoryItemId"),
          message: "The specified inventory item is not stocked at the location.",
        });
      if ((q.quantity as number) < 0)
        return errors.push({ code: "INVALID_QUANTITY_NEGATIVE", field: at("quantity"), message: "The quantity can't be negative." });
      const pair = `${item}@${location}`;
      if (seen.has(pair))
        return errors.push({
          code: "NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR",
          field: at("inventoryItemId"),
          message: "The combination of inventoryItemId and locationId must be unique.",
        });
      seen.add(pair);
      if (typeof q.changeFromQuantity === "number" && q.changeFromQuantity !== variant.available[location!]) {
        return errors.push({
          code: "CHANGE_FROM_QUANTITY_STALE",
          field: at("changeFromQuantity"),
          message: "The changeFromQuantity value does not match persisted value.",
        });
      }
      changes.push({ variant, location: location!, quantity: q.quantity as number });
    });
    const result = errors.length > 0 ? { inventoryAdjustmentGroup: null, userErrors: errors } : { inventoryAdjustmentGroup: null, userErrors: [] };
    if (errors.length === 0) for (const c of changes) c.variant.available[c.location] = c.quantity;
    if (key !== null && errors.length === 0) idempotent.set(key, { input: fingerprint, result });
    return result;
  }

  function productVariantsBulkUpdate(args: { productId: string; variants: Json[]; allowPartialUpdates?: boolean }) {
    const product = numberOf(args.productId, "Product");
    const own = variants.filter((v) => v.productId === product);
    if (own.length === 0)
      return {
        product: null,
        productVariants: null,
        userErrors: [{ code: "PRODUCT_DOES_NOT_EXIST", field: ["productId"], message: "Product does not exist" }],
      };
    const errors: Json[] = [];
    const changes: { variant: FakeVariant; price: string }[] = [];
    args.variants.forEach((input, i) => {
      const variant = own.find((v) => v.id === numberOf(input.id, "ProductVariant"));
      if (!variant)
        return errors.push({
          code: "MUST_BE_FOR_THIS_PRODUCT",
          field: ["variants", String(i), "id"],
          message: "Product variant does not belong to this product",
        });
      if (typeof input.price === "string") {
        if (Number(input.price) < 0)
          return errors.push({
            code: "GREATER_THAN_OR_EQUAL_TO",
            field: ["variants", String(i), "price"],
            message: "Price must be greater than or equal to 0",
          });
        changes.push({ variant, price: input.price });
      }
    });
    if (errors.length === 0 || args.allowPartialUpdates) for (const c of changes) c.variant.price = c.price;
    return {
      product: { id: gid("Product", product!) },
      productVariants: errors.length === 0 ? changes.map((c) => variantNode(c.variant)) : [],
      userErrors: errors,
    };
  }

  return {
    root: {
      productVariants: (args: Json) => {
        const wanted = new Set(skusOf(args.query));
        return connection(variants.filter((v) => wanted.has(v.sku)).map(variantNode), args.first, "productVariants");
      },
      locations: (args: Json) =>
        connection(
          locations.filter((l) => l.isActive).map((l) => ({ id: gid("Location", l.id), name: l.name, isActive: l.isActive })),
          args.first,
          "locations",
        ),
      inventorySetQuantities,
      productVariantsBulkUpdate,
    },
    /** A variant as the fake holds it now, by SKU. */
    variant: (sku: string) => variants.find((v) => v.sku === sku),
  };
}
