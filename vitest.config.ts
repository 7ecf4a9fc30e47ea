import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  // The Shopify schema extracts (orders; stock and price), for the fake Shopify to check queries
  // against (workerd has no filesystem). Copies of ../shared/reference/shopify/'s, refused if the
  // two ever differ.
  const [shopifySchema, shopifyStockSchema] = ["shopify/admin-2026-01.orders-subset.graphql", "shopify/admin-2026-01.inventory-price-subset.graphql"].map(
    (file) => {
      const text = readFileSync(path.join(import.meta.dirname, "test/marketplaces/shopify/schema", file.replace("shopify/", "")), "utf8");
      const reference = path.join(import.meta.dirname, "../shared/reference", file);
      if (existsSync(reference) && readFileSync(reference, "utf8") !== text) {
        throw new Error(`test/marketplaces/shopify/schema/${file.replace("shopify/", "")} differs from ${reference}: copy it again`);
      }
      return text;
    },
  );
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // src/index.ts with each invocation metered against Cloudflare's per-invocation limits.
        main: "./test/setup/metered-entry.ts",
        miniflare: {
          // Test-only bindings (typed in test/env.d.ts). Secrets come from here, not .dev.vars,
          // so a fresh clone tests the same way as a developer's machine.
          bindings: {
            TEST_MIGRATIONS: migrations,
            TEST_SHOPIFY_SCHEMA: shopifySchema,
            TEST_SHOPIFY_STOCK_SCHEMA: shopifyStockSchema,
            // The example secrets file, so a test can show its placeholders run nothing.
            TEST_DEV_VARS_EXAMPLE: readFileSync(path.join(import.meta.dirname, ".dev.vars.example"), "utf8"),
            ADMIN_API_KEY: "test-admin-key-0123456789abcdef-0123",
            TOKEN_SIGNING_SECRET: "test-token-signing-secret-0123456789",
            SOURCE_SETTINGS_KEY: "dGVzdC1zb3VyY2Utc2V0dGluZ3Mta2V5LTMyYnl0ZXM=",
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup/apply-migrations.ts", "./test/setup/invocation-limits.ts"],
      include: ["test/**/*.test.ts"],
      // Node-side tests with a browser and a real server: vitest.browser.config.ts.
      exclude: ["test/browser/**", "node_modules/**"],
      // 2 cores shared by several suites at once: the 5 s default failed the heavier fuzz and
      // sync tests on load alone (at load 13 they take 5-20 s). Still bounded, so a hang fails.
      testTimeout: 60_000,
    },
  };
});
