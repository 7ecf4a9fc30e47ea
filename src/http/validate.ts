// The one wrapper around zValidator: a failure becomes a 400 envelope whose Message names the
// field, the value's problem, and (for enums) what is allowed.
import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType, z } from "zod";
import { ApiError } from "./errors";

export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(
  target: Target,
  schema: Schema,
) {
  return zValidator(target, schema, (result, c) => {
    if (target === "json" && !isJsonContentType(c.req.header("content-type"))) {
      throw new ApiError(400, "Send the request body as JSON with the header Content-Type: application/json.");
    }
    if (!result.success) throw new ApiError(400, describeIssues(result.error.issues as z.core.$ZodIssue[], target));
  });
}

export function isJsonContentType(value: string | undefined): boolean {
  return !!value && /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(value.trim());
}

const MAX_LISTED = 3;

export function describeIssues(all: z.core.$ZodIssue[], target: string): string {
  const issues = all.slice(0, MAX_LISTED).map((issue) => describeIssue(issue, target));
  const more = all.length - MAX_LISTED;
  return issues.join("; ") + (more > 0 ? `; and ${more} more problem${more === 1 ? "" : "s"}` : "");
}

function describeIssue(issue: z.core.$ZodIssue, target: string): string {
  const field = formatPath(issue.path);
  const where = field ? `'${field}'` : target === "json" ? "The request body" : "The query";
  if (issue.code === "invalid_type" && / received undefined$/.test(issue.message)) {
    return `${where} is required`;
  }
  if (issue.code === "invalid_type" && !field && target === "json") {
    return "The request body must be a JSON object";
  }
  return `${where}: ${issue.message.replace(/^Invalid input: /, "")}`;
}

/** OrderItems[0].Quantity */
export function formatPath(path: PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`))
    .join("");
}
