#!/usr/bin/env node
// Copies the browser files of npm packages into public/vendor/ (the Worker's static assets,
// wrangler.toml [assets]), so that /docs loads Swagger UI from the Worker and never from a CDN.
// Runs after every npm install / npm ci (package.json "postinstall"); public/vendor/ is not committed.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const FILES = { "swagger-ui-dist": ["swagger-ui-bundle.js", "swagger-ui.css"] };

for (const [pkg, files] of Object.entries(FILES)) {
  const from = path.dirname(require.resolve(`${pkg}/package.json`));
  const to = path.join("public", "vendor", pkg);
  mkdirSync(to, { recursive: true });
  for (const file of files) copyFileSync(path.join(from, file), path.join(to, file));
}
