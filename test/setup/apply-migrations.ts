import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Setup files run outside per-file storage isolation and may run more than once;
// applyD1Migrations only applies what is missing. One schema in the directory and every shard.
await Promise.all(["DB", "SHARD_1", "SHARD_2", "SHARD_3"].map((name) => applyD1Migrations(env[name as "DB"], env.TEST_MIGRATIONS)));
