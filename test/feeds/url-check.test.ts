// The feed templates' URL rule (isAbsoluteHttpUrl in src/feeds/templates/template.ts) answers the
// common shape of a catalog URL without parsing it: its answers must stay those of WHATWG URL
// parsing (an absolute http(s) URL with a host), checked here on hand-picked edge cases and on a
// seeded fuzz of URL-ish strings.
import { describe, expect, it } from "vitest";
import { isAbsoluteHttpUrl } from "../../src/feeds/templates/template";
import { prng } from "../../src/lib/prng";

/** The rule by parsing alone: what the fast path must agree with. */
function byParsing(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname.length > 0;
  } catch {
    return false;
  }
}

const CASES = [
  "https://shop.example/products/SKU-1",
  "HTTP://Shop.Example/Img.JPG?x=1&y=%20#top",
  "https://cdn.shop.example",
  "https://1.2.3.4/x",
  "https://999.1.1.1/x",
  "https://a.123/",
  "https://xn--a.com/",
  "https://xn--nxasmq6b.example/",
  "https://-a.com/",
  "https://a..com/",
  "https://localhost/",
  "https://exa mple.com/",
  "https://example.com/a b",
  "https://example.com:99999/",
  "https://example.com:8443/x",
  "https://user:pw@example.com/",
  "https://example.com/\\back",
  "https://ex_ample.com/",
  "https:///nohost",
  "ftp://example.com/",
  "example.com/x",
  "",
];

describe("isAbsoluteHttpUrl", () => {
  it("answers as URL parsing does on edge cases", () => {
    for (const value of CASES) expect([value, isAbsoluteHttpUrl(value)]).toEqual([value, byParsing(value)]);
    expect(isAbsoluteHttpUrl("https://shop.example/products/SKU-1")).toBe(true);
    expect(isAbsoluteHttpUrl("https://999.1.1.1/x")).toBe(false);
  });

  it("answers as URL parsing does on 20,000 generated URL-ish strings", () => {
    const random = prng(4242);
    const alphabet = "abz019-._/:%?#@[]\\ xnAZ";
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      let value = random() < 0.5 ? "https://" : "http://";
      const length = 1 + Math.floor(random() * 20);
      for (let j = 0; j < length; j++) value += alphabet[Math.floor(random() * alphabet.length)];
      const expected = byParsing(value);
      if (isAbsoluteHttpUrl(value) !== expected) expect([value, isAbsoluteHttpUrl(value)]).toEqual([value, expected]);
      if (expected) accepted += 1;
    }
    // Both answers occur often enough for the comparison to mean something.
    expect(accepted).toBeGreaterThan(1_000);
    expect(accepted).toBeLessThan(19_000);
  });
});
