// The tests that run in Node against a real `wrangler dev` (npm run test:browser): the console in
// Chromium through Playwright, the OpenAPI document's validity, the typed client's freshness.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    // One server at a time: each file starts its own on the same ports.
    fileParallelism: false,
    testTimeout: 180_000,
    // Starting a server is four migrations and a wrangler dev: 1-2 minutes alone, 5-10 when the
    // machine's 2 CPUs are shared by several suites.
    hookTimeout: 600_000,
    // A page's answer to a click is polled for: 1 s (vitest's default) is less than one round trip
    // takes when the machine is loaded (a refused form's page missed it at load 15).
    expect: { poll: { timeout: 30_000 } },
  },
});
