/// <reference types="vite/client" />
// The request plumbing knows no resource: every import of src/http/ stays inside http/ and lib/
// (or is a package). A rule such as the maintenance switch lives with its resource and app.ts
// mounts it.
import { describe, expect, it } from "vitest";
import { specifiers } from "../helpers/imports";

const sources = import.meta.glob("../../src/http/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

describe("src/http/", () => {
  it("imports nothing outside http/ and lib/", () => {
    const files = Object.keys(sources);
    expect(files.length).toBeGreaterThanOrEqual(7);
    const outside = files.flatMap((file) =>
      specifiers(sources[file]!)
        .filter((s) => s.startsWith(".") && !s.startsWith("./") && !s.startsWith("../lib/"))
        .map((s) => `${file}: ${s}`),
    );
    expect(outside).toEqual([]);
    expect(specifiers(sources["../../src/http/transport.ts"]!)).toContain("./errors");
  });
});
