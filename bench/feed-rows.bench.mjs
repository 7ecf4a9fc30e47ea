#!/usr/bin/env node
// npm run bench -- feed-rows: what each channel template costs per product in the compile's row
// loop (check, count, read each column, serialize), against the `none` template (no checks,
// Google's columns) in the same run. The module is pure, so it runs in Node, bundled by esbuild
// (wrangler's own bundler) from src/; no server. The whole compile's figures are
// `npm run bench -- feeds`: there the D1 reads dominate (about 34 µs a product).
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { median } from "./harness.mjs";

const PRODUCTS = Number(process.env.FEED_ROWS_BENCH_PRODUCTS ?? 200_000);
const ROUNDS = Number(process.env.FEED_ROWS_BENCH_ROUNDS ?? 11);
const TEMPLATES = ["none", "google-shopping", "meta-catalog", "microsoft-merchant-center", "tiktok-catalog"];

const dir = mkdtempSync(join(tmpdir(), "feed-rows-bench-"));
try {
  const out = join(dir, "feed-rows.mjs");
  await build({
    stdin: {
      contents: `export { FeedRows, emptyTally } from "./src/feeds/feed-rows"; export { TEMPLATES } from "./src/feeds/templates";`,
      resolveDir: new URL("..", import.meta.url).pathname,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    logLevel: "warning",
  });
  const { FeedRows, emptyTally, TEMPLATES: registry } = await import(pathToFileURL(out).href);

  // A catalog as the compile reads it: every seventh product out of stock, a third carrying a
  // Quantity column, a few defects so that every template writes most rows and refuses some.
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({
    storeId: "st_bench",
    sku: `SKU-${String(i).padStart(7, "0")}`,
    title: `Product ${i}, blue`,
    description: `The description of product ${i}: "cotton", 180 g`,
    link: `https://shop.example/p/${i}`,
    imageLink: `https://cdn.example/i/${i}.jpg`,
    price: i % 1000 === 0 ? 0 : 12.5 + (i % 100),
    currency: "USD",
    availability: i % 7 ? "in_stock" : "out_of_stock",
    brand: i % 50 === 0 ? null : "Acme",
    gtin: "4006381333931",
    attributes: i % 3 ? null : { Quantity: String(i % 50), condition: "new" },
    updatedAt: 0,
  }));

  const once = (name) => {
    const rows = new FeedRows("csv", registry[name].columns, name);
    const tally = emptyTally();
    let bytes = 0;
    const start = performance.now();
    for (const p of products) {
      const row = rows.row(p, tally);
      if (row !== null) bytes += row.length;
    }
    return { ms: performance.now() - start, bytes, written: tally.counts.valid };
  };

  for (const name of TEMPLATES) once(name); // warm-up: the JIT sees every template first
  const times = Object.fromEntries(TEMPLATES.map((n) => [n, []]));
  const last = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of TEMPLATES) {
      const result = once(name);
      times[name].push(result.ms);
      last[name] = result;
    }
  }
  const base = median(times.none);
  console.log(`${PRODUCTS.toLocaleString("en")} products, ${ROUNDS} interleaved rounds, median`);
  console.log("| template | ms | µs a product | rows written | MiB | x none |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const name of TEMPLATES) {
    const ms = median(times[name]);
    const { bytes, written } = last[name];
    console.log(
      `| ${name} | ${ms.toFixed(0)} | ${((ms * 1000) / PRODUCTS).toFixed(2)} | ${written.toLocaleString("en")} | ${(bytes / 2 ** 20).toFixed(1)} | ` +
        `${(ms / base).toFixed(2)} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
