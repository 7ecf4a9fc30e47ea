import { defineConfig } from "drizzle-kit";

// drizzle-kit only writes the SQL; `wrangler d1 migrations apply` applies it (never `push` on D1).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
