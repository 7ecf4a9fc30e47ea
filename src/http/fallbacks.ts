// What the router answers when no route matched: 410 for a retired path, 405 (with Allow) for a
// known path with another method, else 404. All as the envelope.
import type { Env as HonoEnv, Hono } from "hono";
import { ApiError } from "./errors";

/** Paths that once existed and are gone for good (spec 9.2). Any /v0/... is retired too. */
export const RETIRED_ROUTES: RegExp[] = [/^\/v0(\/|$)/];

type Matcher = { method: string; pattern: RegExp };

function compile(path: string): RegExp {
  const body = path
    .replace(/\/+$/, "")
    .split("/")
    .map((part) => {
      // A parameter with a pattern (`:orderId{[0-9]+}`) matches only what its route matches.
      const pattern = /^:\w+\{(.+)\}$/.exec(part)?.[1];
      if (pattern) return `(?:${pattern})`;
      return part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${body}/?$`);
}

export function unmatched<E extends HonoEnv>(app: Hono<E>) {
  let matchers: Matcher[] | null = null;
  return (path: string, method: string): ApiError => {
    if (RETIRED_ROUTES.some((r) => r.test(path))) {
      return new ApiError(410, `${path} has been removed. Use the /v1 endpoints.`);
    }
    matchers ??= app.routes.filter((r) => r.method !== "ALL").map((r) => ({ method: r.method, pattern: compile(r.path) }));
    const allowed = [...new Set(matchers.filter((m) => m.pattern.test(path)).map((m) => m.method))];
    if (allowed.length > 0 && !allowed.includes(method)) {
      return new ApiError(405, `${method} is not allowed here; use ${allowed.join(" or ")}.`, { Allow: allowed.join(", ") });
    }
    return new ApiError(404, `No endpoint at ${method} ${path.slice(0, 200)}.`);
  };
}
