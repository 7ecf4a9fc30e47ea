// The link check's own test (node:test, run by `npm run docs:check` after the check): a repository
// in a temporary folder with one good link of each kind and one broken link of each kind; the
// check must report exactly the broken ones, and the anchors must be GitHub's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { anchorsOf, checkLinks, linksOf, slug, stalePaths } from "./check-links.mjs";

function repository(files) {
  const root = mkdtempSync(join(tmpdir(), "check-links-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test("anchors are GitHub's: lower case, punctuation dropped, spaces to hyphens, repeats numbered", () => {
  assert.equal(slug('Shopify source (`Type: "shopify"`)'), "shopify-source-type-shopify");
  assert.equal(slug("Orders at 10,000 and at 1,000,000"), "orders-at-10000-and-at-1000000");
  assert.equal(slug("Amazon: the marketplace's rate limits as our own leaky bucket"), "amazon-the-marketplaces-rate-limits-as-our-own-leaky-bucket");
  assert.equal(slug("Read on"), "read-on");
  assert.equal(slug("Stores & keys"), "stores--keys"); // each space a hyphen, as GitHub does
  assert.equal(slug("Über [the link](x.md) and snake_case"), "über-the-link-and-snake_case");
  const anchors = anchorsOf('# Title\n\n## Notes\n\n## Notes\n\nSetext one\n----------\n\n```\n# not a heading\n```\n<a id="custom"></a>\n');
  assert.deepEqual([...anchors].sort(), ["custom", "notes", "notes-1", "setext-one", "title"]);
});

test("links in code spans and fences are not links; a link's text may break across lines", () => {
  const links = linksOf('See [a](a.md) and `[b](b.md)`.\n\n```\n[c](c.md)\n```\n[two\nlines](d.md#x "title")\n\n[ref]: e.md\n');
  assert.deepEqual(
    links.map((l) => [l.target, l.line]),
    [
      ["a.md", 1],
      ["d.md#x", 6],
      ["e.md", 9],
    ],
  );
});

test("a broken link, a wrong anchor, a wrong case and a path outside are reported; good links are not", () => {
  const root = repository({
    "README.md": [
      "# Hub",
      "[ok file](docs/guide.md) [ok folder](src/) [ok anchor](docs/guide.md#second-part) [ok here](#hub)",
      "[external](https://example.com/missing) [ok line](src/a.ts#L3)",
      "[missing](docs/nope.md)",
      "[bad anchor](docs/guide.md#third-part)",
      "[bad case](docs/Guide.md)",
      "[outside](../elsewhere.md)",
      "`[in code](docs/nope.md)`",
      "The spec is in `../shared/spec/decisions.md`.",
    ].join("\n"),
    "docs/guide.md": "# Guide\n\n## Second part\n\n[back](../README.md#hub) [bad back](../README.md#nothing)\n",
    "src/a.ts": "export {};\n",
  });
  try {
    const problems = checkLinks(root);
    assert.equal(problems.length, 7, problems.join("\n"));
    assert.match(problems[0], /^README\.md:9: names \.\.\/shared\/, which a clone of the repository does not have$/);
    assert.match(problems[1], /^README\.md:3: \[external\]\(https:\/\/example\.com\/missing\) leaves the repository/);
    assert.match(problems[2], /^README\.md:4: \[missing\]\(docs\/nope\.md\) points at a file that does not exist$/);
    assert.match(problems[3], /^README\.md:5: .* names #third-part, which is no heading of docs\/guide\.md$/);
    assert.match(problems[4], /^README\.md:6: \[bad case\]/);
    assert.match(problems[5], /^README\.md:7: .* points outside the repository$/);
    assert.match(problems[6], /^docs\/guide\.md:5: \[bad back\]/);

    // The command fails (exit 1) and prints them; CI reads the exit code.
    const script = fileURLToPath(new URL("./check-links.mjs", import.meta.url));
    const run = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /7 broken link\(s\) in 2 Markdown files/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a code span naming a repository path that does not exist is a warning, not a broken link", () => {
  const root = repository({
    "README.md": "Code in `src/a.ts` and `src/gone.ts`; `npm test`; `src/<resource>/` is a pattern.\n\n```\nsrc/also-gone.ts\n```\n",
    "src/a.ts": "export {};\n",
  });
  try {
    assert.deepEqual(stalePaths(root), ["README.md:1: `src/gone.ts` does not exist"]);
    assert.deepEqual(checkLinks(root), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
