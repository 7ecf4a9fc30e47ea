/// <reference types="vite/client" />
// src/marketplaces/ is a leaf package: a connector knows the contract, the kit, src/lib/ and the
// pure leaky bucket (src/throttle/gcra.ts, the pacing some marketplaces ask for), and nothing of
// the sync engine or of a resource. A new marketplace is one new folder that keeps this true.
import { describe, expect, it } from "vitest";
import { specifiers } from "../helpers/imports";

const sources = import.meta.glob(["../../src/marketplaces/**/*.ts", "../../src/marketplaces/**/*.tsx"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

/** `spec` as imported from `file`, as a path from the repository root ("src/lib/dates"). */
function resolve(file: string, spec: string): string {
  const parts = file
    .replace(/^(\.\.\/)+/, "")
    .split("/")
    .slice(0, -1);
  for (const piece of spec.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== ".") parts.push(piece);
  }
  return parts.join("/");
}

const allowed = (target: string) => target.startsWith("src/marketplaces/") || target.startsWith("src/lib/") || target === "src/throttle/gcra";

describe("src/marketplaces/", () => {
  it("imports nothing of the engine or of a resource: only itself, src/lib/ and the pure leaky bucket", () => {
    const files = Object.keys(sources);
    expect(files.length).toBeGreaterThanOrEqual(40);
    const outside = files.flatMap((file) =>
      specifiers(sources[file]!)
        .filter((s) => s.startsWith("."))
        .map((s) => [s, resolve(file, s)] as const)
        .filter(([, target]) => !allowed(target))
        .map(([s]) => `${file}: ${s}`),
    );
    expect(outside).toEqual([]);
  });

  it("reads every relative import it checks (the resolver sees the engine when a file reaches for it)", () => {
    expect(resolve("../../src/marketplaces/walmart/walmart.connector.ts", "../../sync/cycle")).toBe("src/sync/cycle");
    expect(resolve("../../src/marketplaces/connector.ts", "../lib/retry")).toBe("src/lib/retry");
    expect(allowed(resolve("../../src/marketplaces/walmart/walmart.connector.ts", "../../sync/cycle"))).toBe(false);
  });
});
