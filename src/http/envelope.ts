import type { Context } from "hono";

/** A success answer: the envelope's defaults plus the endpoint's own fields (PascalCase). */
export function ok(c: Context, fields: Record<string, unknown> = {}) {
  return c.json({ Success: true, Message: "", ...fields }, 200);
}

/** A failure answer's body. Status and headers are the caller's. */
export function failure(message: string) {
  return { Success: false, Message: message };
}
