// A small client-side reader of the rate-limit fields, as an integrator's library would read
// them: RateLimit-Policy and RateLimit parsed as structured fields (RFC 9651 Lists, with the
// structured-headers package, not the Worker's own code), beside the X-RateLimit-* integers.
import { parseList, type Item } from "structured-headers";

export interface RateLimitFields {
  policy: { name: string; q: number; w: number };
  current: { name: string; r: number; t: number };
  legacy: { limit: number; remaining: number; reset: number };
}

function onlyItem(field: string, value: string | null): Item {
  if (value === null) throw new Error(`${field} is missing`);
  const list = parseList(value);
  if (list.length !== 1 || Array.isArray(list[0]![0])) throw new Error(`${field} is not a List of one Item: ${value}`);
  return list[0] as Item;
}

function integer(params: Map<string, unknown>, name: string, field: string): number {
  const value = params.get(name);
  if (typeof value !== "number" || !Number.isInteger(value)) throw new Error(`${field} has no integer ${name}`);
  return value;
}

function headerInteger(headers: Headers, name: string): number {
  const value = headers.get(name);
  if (value === null || !/^\d+$/.test(value)) throw new Error(`${name} is missing or not an integer: ${value}`);
  return Number(value);
}

export function readRateLimit(headers: Headers): RateLimitFields {
  const [policyName, policyParams] = onlyItem("RateLimit-Policy", headers.get("RateLimit-Policy"));
  const [name, params] = onlyItem("RateLimit", headers.get("RateLimit"));
  if (typeof policyName !== "string" || typeof name !== "string") throw new Error("the policy name is not a String");
  return {
    policy: { name: policyName, q: integer(policyParams, "q", "RateLimit-Policy"), w: integer(policyParams, "w", "RateLimit-Policy") },
    current: { name, r: integer(params, "r", "RateLimit"), t: integer(params, "t", "RateLimit") },
    legacy: {
      limit: headerInteger(headers, "X-RateLimit-Limit"),
      remaining: headerInteger(headers, "X-RateLimit-Remaining"),
      reset: headerInteger(headers, "X-RateLimit-Reset"),
    },
  };
}
