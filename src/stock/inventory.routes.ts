// /v1/{token}/Inventory (decisions 11): the seller's system sets each Sku's Quantity and Price.
// Under the key's bucket and the /v1 body cap like every /v1 call; the change reaches every
// source that pushes stock in its next cycle (src/stock/listings.queries.ts).
import { requireScope } from "../auth/authorize";
import { ok } from "../http/envelope";
import { createRouter } from "../app-env";
import { validate } from "../http/validate";
import { documented, envelope } from "../http/openapi";
import { setInventory } from "../products/products.queries";
import { inventoryAnswer, inventoryBody } from "./inventory.schemas";

export const inventoryRoutes = createRouter().put(
  "/",
  documented("token", {
    summary: "Set Quantity and Price by Sku (at most 1,000 items; unknown Skus are reported, the rest applied)",
    tags: ["Inventory"],
    answer: envelope(inventoryAnswer),
  }),
  requireScope("InventoryUpdate"),
  validate("json", inventoryBody),
  async (c) => {
    const items = c.req.valid("json").Items;
    const result = await setInventory(
      c.get("db"),
      c.get("caller").storeId,
      items.map((item) => ({ sku: item.Sku, quantity: item.Quantity, price: item.Price })),
      Date.now(),
    );
    return ok(c, { Updated: result.updated, UnknownSkus: result.unknown.map((index) => ({ Index: index, Sku: items[index]!.Sku })) });
  },
);
