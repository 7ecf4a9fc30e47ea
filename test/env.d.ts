import type { D1Migration } from "@cloudflare/vitest-plugin";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** The Shopify GraphQL Admin API schema extract (SDL), read by vitest.config.ts. */
      TEST_SHOPIFY_SCHEMA: string;
      /** Its stock and price extract (inventorySetQuantities, productVariantsBulkUpdate, ...). */
      TEST_SHOPIFY_STOCK_SCHEMA: string;
      /** .dev.vars.example as committed, read by vitest.config.ts. */
      TEST_DEV_VARS_EXAMPLE: string;
    }
  }
}
