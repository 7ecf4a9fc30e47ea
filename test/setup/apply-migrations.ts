import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Setup files run outside per-file storage isolation and may run more than once;
// applyD1Migrations only applies what is missing. One schema in the directory and every shard,
// found as the code finds them (src/db/shards.ts): DB and every binding named SHARD_*.
const databases = Object.keys(env).filter((name) => name === "DB" || name.startsWith("SHARD_"));
await Promise.all(databases.map((name) => applyD1Migrations(env[name as "DB"], env.TEST_MIGRATIONS)));
