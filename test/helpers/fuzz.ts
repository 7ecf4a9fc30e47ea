// Seeded malformed input for the "no input may produce a 500" fuzz tests (decisions 1). Every
// case is reproducible from its seed; a failure names the request that caused it.
import { expect } from "vitest";
import { prng } from "../../src/lib/prng";
import { ADMIN_KEY, call } from "./api";

/** A JSON number that JSON.stringify cannot write (1e309, -0): spliced into the text as is. */
const RAW = (text: string) => `@@RAW:${text}@@`;

export const HOSTILE_STRINGS = [
  "",
  " ",
  "\t\r\n",
  "<script>alert(1)</script>",
  "'; DROP TABLE sources;--",
  '" OR 1=1 --',
  "nul\u0000inside",
  "\u0000",
  "\ud800",
  "a\udc00b",
  "😀🦄👨‍👩‍👧",
  "\u202Eevil\u202C",
  "\u200F\u05E9\u05DC\u05D5\u05DD",
  "NaN",
  "Infinity",
  "-0",
  "1e309",
  "null",
  "true",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "../../etc/passwd",
  "%00%ZZ",
  "${7*7}{{7*7}}%s%n",
  'CSV,"quoted",\r\nnext',
  "x".repeat(5000),
  "y".repeat(300_000),
];

const RAW_NUMBERS = ["1e309", "-1e309", "-0", "1e-400", "123456789012345678901234567890", "0.1e1", "-1"];

export interface Fuzzer {
  random: () => number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  int(max: number): number;
  /** Any JSON-ish value, biased to the hostile. */
  value(depth?: number): unknown;
  /** `base` with 1-4 fields deleted, nulled or replaced by hostile values (and sometimes extra fields). */
  mutate(base: Record<string, unknown>, extraFields?: readonly string[]): Record<string, unknown>;
  /** A JSON body or a broken one: what a fuzzed request sends. */
  body(base: Record<string, unknown>, extraFields?: readonly string[]): string;
  /** A path segment: ids of the wrong kind, encodings, hostile text. */
  segment(valid: readonly string[]): string;
  contentType(): string | undefined;
}

export function fuzzer(seed: number): Fuzzer {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const int = (max: number) => Math.floor(random() * max);
  const value = (depth = 0): unknown => {
    const r = random();
    if (r < 0.3) return pick(HOSTILE_STRINGS);
    if (r < 0.38) return pick([0, -1, 1, 2 ** 53, -(2 ** 31), 0.5, 1e21, 15, 100_001, 1e12 + 1]);
    if (r < 0.45) return RAW(pick(RAW_NUMBERS));
    if (r < 0.52) return null;
    if (r < 0.58) return chance(0.5);
    if (r < 0.66 && depth < 3) return [value(depth + 1), value(depth + 1)];
    if (r < 0.72 && depth < 3) return { a: value(depth + 1), Name: value(depth + 1) };
    if (r < 0.74) return nested(pick([50, 5000]));
    if (r < 0.8) return [];
    if (r < 0.84) return {};
    return random().toString(36).slice(2);
  };
  const mutate = (base: Record<string, unknown>, extraFields: readonly string[] = []) => {
    const out: Record<string, unknown> = { ...base };
    const fields = [...Object.keys(base), ...extraFields, "__proto__", "constructor", "Unknown"];
    for (let i = 0, n = 1 + int(4); i < n; i++) {
      const field = pick(fields);
      const r = random();
      if (r < 0.25) delete out[field];
      else if (r < 0.35) out[field] = null;
      else Object.defineProperty(out, field, { value: value(), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const body = (base: Record<string, unknown>, extraFields: readonly string[] = []) => {
    const r = random();
    if (r < 0.08)
      return pick(["", "{", "[", '{"Name":', "nul", '"', "{'Name': 1}", "\u0000", '{"a":1}}', "\ufeff{}", '{"Name":"\\ud800"}', '{"Name":"\\u0000"}']);
    if (r < 0.14) return pick(["null", "[]", "42", '"text"', "true", "[{}]"]);
    if (r < 0.17) return nestedText(pick([100, 20_000]));
    return toJson(mutate(base, extraFields));
  };
  const segment = (valid: readonly string[]) =>
    chance(0.5)
      ? pick(valid)
      : pick([
          "0",
          "-1",
          "1e309",
          "null",
          "undefined",
          "%00",
          "%ED%A0%80",
          "%F0%9F%98%80",
          "%E2%80%AE",
          "a".repeat(2000),
          "..",
          "%2e%2e",
          "__proto__",
          "constructor",
          "'%3B%20DROP%20TABLE%20stores%3B--",
          "%3Cscript%3E",
        ]);
  const contentType = () =>
    pick([
      "application/json",
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "",
      undefined,
    ]);
  return { random, pick, chance, int, value, mutate, body, segment, contentType };
}

function nested(depth: number): unknown {
  let v: unknown = "deep";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function nestedText(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

export function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"@@RAW:([^@"]*)@@"/g, "$1");
}

export interface Sent {
  method: string;
  path: string;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/** Statuses answered so far in this file (a fuzz that only ever meets 404 tests little). */
export const statusSeen = new Map<number, number>();

export type Answer = Awaited<ReturnType<typeof call>>;

/**
 * Sends one fuzzed request and records what breaks the rule: a 5xx, or a failure that is not
 * the JSON envelope with a Message. `file` admits a download's 200/206/304.
 */
export async function send(failures: string[], sent: Sent, options: { file?: boolean } = {}): Promise<Answer> {
  const bodyless = sent.method === "GET" || sent.method === "HEAD";
  const res = await call(sent.method, sent.path, { raw: bodyless ? undefined : sent.body, headers: sent.headers });
  statusSeen.set(res.status, (statusSeen.get(res.status) ?? 0) + 1);
  // JSON.stringify escapes lone surrogates: a raw one in a failure message breaks the reporter.
  const label = () =>
    `${sent.method} ${sent.path.slice(0, 200)} ${JSON.stringify(sent.headers ?? {}).slice(0, 200)} ` +
    `${typeof sent.body === "string" ? JSON.stringify(sent.body.slice(0, 200)) : sent.body ? "<bytes>" : ""}`;
  if (res.status >= 500) {
    failures.push(`${label()} -> ${res.status} ${JSON.stringify(res.text.slice(0, 200))}`);
  } else if (sent.method === "HEAD" || (options.file && [200, 206, 304].includes(res.status))) {
    // A file or no body at all.
  } else if (res.status >= 400) {
    const ok =
      /^application\/json/.test(res.headers.get("content-type") ?? "") &&
      res.json?.Success === false &&
      typeof res.json.Message === "string" &&
      res.json.Message.length > 0;
    if (!ok) failures.push(`${label()} -> ${res.status} not a failure envelope: ${JSON.stringify(res.text.slice(0, 200))}`);
  } else if (!(res.json?.Success === true && res.json.Message === "")) {
    failures.push(`${label()} -> ${res.status} not a success envelope: ${JSON.stringify(res.text.slice(0, 200))}`);
  }
  return res;
}

/** An admin request with a fuzzed body and Content-Type. */
export function adminSent(method: string, path: string, body: string | undefined, contentType: string | undefined): Sent {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` };
  if (contentType !== undefined) headers["content-type"] = contentType;
  return { method, path: `/admin/v1${path}`, body, headers };
}

export function expectNoFailures(failures: string[]) {
  expect(failures).toEqual([]);
}
