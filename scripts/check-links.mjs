#!/usr/bin/env node
// `npm run docs:check` (the first step of `npm test`): every relative link of every Markdown file
// in the repository (README.md, docs/, the connector folders' READMEs) points at a file or folder
// that exists, with the exact case, inside the repository, and every #anchor at a heading of the
// target as GitHub names it. The docs stand alone: a link that leaves the repository (https:,
// mailto:, ../ past the root) is a failure, and so is any mention of the spec folder that sits
// beside a developer's checkout (`../shared/...`), which a clone does not have: a public source
// is cited by name, in prose. Written with regexes rather than a
// Markdown parser: the repository has none installed, and the subset used here (ATX and setext
// headings, inline links and images, reference definitions, code spans and fences, HTML ids) is
// small; check-links.test.mjs holds it to that. It also warns (without failing) about a code span
// naming a repository path that no longer exists, the trace a moved file leaves in prose.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Folders never searched: installed, generated or local-only content. */
const SKIPPED_DIRS = new Set(["node_modules", ".git", ".wrangler", "test-results", "dist", "coverage"]);
const SKIPPED_PATHS = new Set(["public/vendor"]);

export function markdownFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join("/");
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !SKIPPED_PATHS.has(rel)) walk(path);
      } else if (entry.isFile() && entry.name.toLowerCase().endsWith(".md")) {
        found.push(path);
      }
    }
  };
  walk(root);
  return found.sort();
}

/** For each line, whether it belongs to a fenced code block (its fences included). */
export function fencedLines(text) {
  let fence = null;
  return text.split("\n").map((line) => {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) fence = null;
      return true;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) fence = open[1];
    return Boolean(open);
  });
}

/**
 * The text with fenced code blocks, code spans and HTML comments blanked out (same length, same
 * line breaks), so that nothing inside code is read as a link.
 */
export function withoutCode(text) {
  const blank = (s) => s.replace(/[^\n]/g, " ");
  const fenced = fencedLines(text);
  let out = text
    .split("\n")
    .map((line, i) => (fenced[i] ? blank(line) : line))
    .join("\n");
  out = out.replace(/<!--[\s\S]*?-->/g, blank);
  // A code span opens with a run of backticks and closes at the next run of the same length.
  out = out.replace(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, blank);
  return out;
}

/** GitHub's anchor for a heading's text (its rendered text, lower-cased, punctuation dropped). */
export function slug(headingText) {
  const text = headingText
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link or image counts as its text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/`/g, "")
    .replace(/\*+/g, "");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats get -1, -2, ...) and HTML ids. */
export function anchorsOf(text) {
  const raw = text.split("\n");
  const fenced = fencedLines(text);
  const anchors = new Set();
  const seen = new Map();
  const add = (heading) => {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  };
  for (let i = 0; i < raw.length; i++) {
    if (fenced[i]) continue;
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(raw[i]);
    if (atx) {
      add(atx[1] ?? "");
      continue;
    }
    // Setext: a paragraph line underlined with = or -.
    const next = raw[i + 1];
    if (next !== undefined && !fenced[i + 1] && /^ {0,3}(=+|-+)[ \t]*$/.test(next) && raw[i].trim() !== "" && !/^ {0,3}([-*+>|]|\d+[.)])/.test(raw[i])) {
      add(raw[i].trim());
    }
  }
  for (const m of text.matchAll(/<[a-z][^>]*\s(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(m[1]);
  return anchors;
}

/** Every link target of a Markdown file with its line: inline links, images, reference definitions. */
export function linksOf(text) {
  const visible = withoutCode(text);
  const links = [];
  const lineAt = (offset) => visible.slice(0, offset).split("\n").length;
  const inline =
    /!?\[(?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.)*\])*\]\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))+)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)/g;
  for (const m of visible.matchAll(inline)) {
    links.push({ target: m[1].replace(/^<|>$/g, ""), line: lineAt(m.index), text: m[0].replace(/\s+/g, " ") });
  }
  const definition = /^ {0,3}\[(?:[^\]\\]|\\.)+\]:[ \t]*(<[^<>\n]*>|\S+)/gm;
  for (const m of visible.matchAll(definition)) {
    links.push({ target: m[1].replace(/^<|>$/g, ""), line: lineAt(m.index), text: m[0].trim() });
  }
  return links;
}

/** Whether `path` exists with exactly this spelling (case included) below `root`. */
function existsExactly(root, path) {
  if (!existsSync(path)) return false;
  let dir = root;
  for (const part of relative(root, path).split(sep).filter(Boolean)) {
    if (!readdirSync(dir).includes(part)) return false;
    dir = join(dir, part);
  }
  return true;
}

/** The broken links of every Markdown file under `root`, as `file:line: message` strings. */
export function checkLinks(root) {
  root = resolve(root);
  const problems = [];
  const anchorCache = new Map();
  const anchorsIn = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, "utf8")));
    return anchorCache.get(file);
  };
  for (const file of markdownFiles(root)) {
    const where = relative(root, file).split(sep).join("/");
    const content = readFileSync(file, "utf8");
    content.split("\n").forEach((text, i) => {
      if (/(^|[^\w.])\.\.\/shared\//.test(text)) problems.push(`${where}:${i + 1}: names ../shared/, which a clone of the repository does not have`);
    });
    for (const { target, line, text } of linksOf(content)) {
      const report = (message) => problems.push(`${where}:${line}: ${text} ${message}`);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) {
        report("leaves the repository: cite the source by name instead");
        continue;
      }
      if (target.trim() === "") {
        report("has no target");
        continue;
      }
      const hash = target.indexOf("#");
      let pathPart = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      pathPart = pathPart.split("?")[0];
      let targetFile = file;
      if (pathPart !== "") {
        let decoded;
        try {
          decoded = decodeURIComponent(pathPart);
        } catch {
          report("is not a valid URL path");
          continue;
        }
        // A leading slash is the repository's root on GitHub.
        targetFile = decoded.startsWith("/") ? join(root, decoded) : resolve(dirname(file), decoded);
        if (targetFile !== root && !targetFile.startsWith(root + sep)) {
          report("points outside the repository");
          continue;
        }
        if (!existsExactly(root, targetFile)) {
          report("points at a file that does not exist");
          continue;
        }
      }
      if (anchor === null || anchor === "") continue;
      if (statSync(targetFile).isDirectory()) {
        report("has an anchor on a folder");
      } else if (targetFile.toLowerCase().endsWith(".md")) {
        if (!anchorsIn(targetFile).has(anchor)) report(`names #${anchor}, which is no heading of ${relative(root, targetFile).split(sep).join("/")}`);
      } else if (!/^L\d+(-L\d+)?$/.test(anchor)) {
        report("has an anchor on a file that is not Markdown (only #L<line> is possible there)");
      }
    }
  }
  return problems;
}

/**
 * Repository paths named in code spans (`src/feeds/csv.ts`) that no longer exist: a file moved
 * and the text still names its old place. Reported as warnings, not failures: prose may name a
 * path on purpose (a file another branch is adding, an old name), and only links are promises.
 */
export function stalePaths(root) {
  root = resolve(root);
  const stale = [];
  for (const file of markdownFiles(root)) {
    const text = readFileSync(file, "utf8");
    const fenced = fencedLines(text);
    const prose = text
      .split("\n")
      .map((line, i) => (fenced[i] ? "" : line))
      .join("\n");
    for (const m of prose.matchAll(/(?<!`)`([^`\n]+)`(?!`)/g)) {
      const path = m[1].trim();
      if (!/^(src|test|bench|scripts|docs|migrations|public)\/[\w./-]*$/.test(path) || path.includes("..")) continue;
      if (!existsSync(join(root, path))) {
        const line = prose.slice(0, m.index).split("\n").length;
        stale.push(`${relative(root, file).split(sep).join("/")}:${line}: \`${path}\` does not exist`);
      }
    }
  }
  return stale;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..");
  const files = markdownFiles(resolve(root));
  const problems = checkLinks(root);
  for (const problem of problems) console.error(problem);
  for (const path of stalePaths(root)) console.warn(`warning: ${path}`);
  if (problems.length > 0) {
    console.error(`check-links: ${problems.length} broken link(s) in ${files.length} Markdown files`);
    process.exit(1);
  }
  console.log(`check-links: every relative link and anchor of ${files.length} Markdown files resolves`);
}
