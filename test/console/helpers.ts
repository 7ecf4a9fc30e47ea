// What the console tests share: whole requests as a browser's form posts send them (the session
// cookie, the page's CSRF token, the Origin header), and the HTML read with workerd's own
// HTMLRewriter, never with the console's code or a regex.
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { ADMIN_KEY, BASE } from "../helpers/api";

export type FormValues = Record<string, string | string[]>;

export async function send(method: string, path: string, init: { form?: FormValues; cookie?: string } = {}) {
  const headers = new Headers({ origin: BASE });
  if (init.cookie) headers.set("cookie", init.cookie);
  let body: URLSearchParams | undefined;
  if (init.form) {
    // A repeated field (checkboxes of one name) is sent once per value, as a browser does.
    body = new URLSearchParams();
    for (const [name, value] of Object.entries(init.form)) for (const one of ([] as string[]).concat(value)) body.append(name, one);
    headers.set("content-type", "application/x-www-form-urlencoded");
  }
  const response = await exports.default.fetch(new Request(BASE + path, { method, headers, body, redirect: "manual" }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A signed-in operator: the session cookie and the CSRF token its pages carry. */
export async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const res = await send("POST", "/console/login", { form: { key: ADMIN_KEY } });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  const home = await send("GET", "/console", { cookie });
  const csrf = (await collect(home.text, 'input[name="_csrf"]', "value"))[0]!;
  return { cookie, csrf };
}

/** HTMLRewriter hands text over as written in the page: the entities JSX escapes with, decoded. */
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const decode = (raw: string) =>
  raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) =>
    name[0] === "#"
      ? String.fromCodePoint(name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : Number(name.slice(1)))
      : (ENTITIES[name] ?? whole),
  );

/** Each matched element's attribute, or (attr omitted) its text, whitespace-trimmed. */
export async function collect(html: string, selector: string, attr?: string): Promise<string[]> {
  const out: string[] = [];
  let current: string[] | null = null;
  const rewriter = new HTMLRewriter().on(selector, {
    element(el) {
      if (attr) return void out.push(el.getAttribute(attr) ?? "");
      const cell: string[] = [];
      current = cell;
      out.push("");
      const at = out.length - 1;
      el.onEndTag(() => {
        out[at] = decode(cell.join("")).replace(/\s+/g, " ").trim();
        current = null;
      });
    },
    text(t) {
      current?.push(t.text);
    },
  });
  await rewriter.transform(new Response(html)).text();
  return out;
}

/** The rows of the tables `table` matches, each as its cells' texts. */
export async function tableRows(html: string, table: string): Promise<string[][]> {
  const rows: string[][] = [];
  let cell: string[] | null = null;
  const rewriter = new HTMLRewriter().on(`${table} tbody tr`, { element: () => void rows.push([]) }).on(`${table} tbody td`, {
    element(el) {
      const row = rows[rows.length - 1]!;
      const parts: string[] = [];
      cell = parts;
      row.push("");
      const at = row.length - 1;
      el.onEndTag(() => {
        row[at] = decode(parts.join("")).replace(/\s+/g, " ").trim();
        cell = null;
      });
    },
    text(t) {
      cell?.push(t.text);
    },
  });
  await rewriter.transform(new Response(html)).text();
  return rows;
}

/** Each `dl` the selector matches as its dt → dd pairs (a page's facts about one thing). */
export async function definitionLists(html: string, selector: string): Promise<Record<string, string>[]> {
  const lists: { term: string; pairs: Record<string, string> }[] = [];
  let parts: string[] | null = null;
  const pair = {
    element(el: Element) {
      const list = lists[lists.length - 1]!;
      const mine: string[] = [];
      parts = mine;
      const isTerm = el.tagName === "dt";
      el.onEndTag(() => {
        const value = decode(mine.join("")).replace(/\s+/g, " ").trim();
        if (isTerm) list.term = value;
        else list.pairs[list.term] = value;
        parts = null;
      });
    },
    text(t: Text) {
      parts?.push(t.text);
    },
  };
  const rewriter = new HTMLRewriter()
    .on(selector, { element: () => void lists.push({ term: "", pairs: {} }) })
    .on(`${selector} dt`, pair)
    .on(`${selector} dd`, pair);
  await rewriter.transform(new Response(html)).text();
  return lists.map((l) => l.pairs);
}
