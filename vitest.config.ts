import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test-only bindings (typed in test/env.d.ts). Secrets come from here, not .dev.vars,
          // so a fresh clone tests the same way as a developer's machine.
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_API_KEY: "test-admin-key",
            TOKEN_SIGNING_SECRET: "test-token-signing-secret",
            SOURCE_SETTINGS_KEY: "dGVzdC1zb3VyY2Utc2V0dGluZ3Mta2V5LTMyYnl0ZXM=",
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup/apply-migrations.ts"],
      // Every answer is also checked against the OpenAPI document (test/helpers/contract.ts), and
      // the fuzz files send thousands of requests: 5 s is too tight on a shared 2-core machine.
      testTimeout: 20_000,
      include: ["test/**/*.test.ts"],
      // Node-side tests with a browser and a real server: vitest.browser.config.ts.
      exclude: ["test/browser/**", "node_modules/**"],
    },
  };
});
