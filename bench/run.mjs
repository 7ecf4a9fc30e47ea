#!/usr/bin/env node
// npm run bench: runs every bench/*.bench.mjs in turn, each against its own local `wrangler dev`.
// Benchmarks are never tests: they print figures, they do not pass or fail on them.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const only = process.argv.slice(2);
const files = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const run = spawnSync(process.execPath, [new URL(file, import.meta.url).pathname], { stdio: "inherit" });
  if (run.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
