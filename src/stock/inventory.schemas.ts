// PUT /v1/{token}/Inventory (decisions 11): the seller's system sets Quantity and Price by Sku.
import { z } from "zod";

/** Items one call takes (decisions 11). */
export const MAX_INVENTORY_ITEMS = 1000;

const inventoryItem = z.strictObject({
  Sku: z.string().trim().min(1, { error: "must not be empty" }).max(100),
  Quantity: z
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .min(0)
    .max(1_000_000_000)
    .nullable()
    .optional()
    .describe("Units on the shelf; null stops tracking the Sku (it is then no longer sent to marketplaces); absent leaves it as it is."),
  Price: z.number().min(0).max(1e12).nullable().optional().describe("The price in the product's Currency; absent leaves it as it is."),
});

export const inventoryBody = z.strictObject({
  Items: z
    .array(inventoryItem)
    .min(1)
    .max(MAX_INVENTORY_ITEMS, { error: `must hold at most ${MAX_INVENTORY_ITEMS} items a call` }),
});

export const inventoryAnswer = {
  Updated: z.number().int().describe("Products changed (a Sku named twice counts once)."),
  UnknownSkus: z
    .array(z.object({ Index: z.number().int().describe("The item's position in Items, from 0."), Sku: z.string() }))
    .describe("Items whose Sku is not in the catalog: nothing was stored for them; every other item was applied."),
};
