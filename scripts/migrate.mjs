#!/usr/bin/env node
// Applies migrations/ to the directory (DB) and to every shard (each d1_databases binding of
// wrangler.toml): `node scripts/migrate.mjs --local` or `--remote`. One schema in all of them
// (src/db/shards.ts); each database keeps its own record of what it has applied, so a shard added
// later gets every migration and the others only what is new.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const where = process.argv.includes("--remote") ? "--remote" : "--local";
const bindings = [...readFileSync("wrangler.toml", "utf8").matchAll(/^\[\[d1_databases\]\][^[]*?^binding\s*=\s*"([^"]+)"/gms)].map((m) => m[1]);
if (!bindings.includes("DB")) {
  console.error("wrangler.toml declares no DB binding (the directory).");
  process.exit(1);
}
for (const binding of bindings) {
  console.log(`\n== ${binding} (${where.slice(2)})`);
  const run = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", binding, where], { stdio: "inherit", env: { ...process.env, CI: "true" } });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
