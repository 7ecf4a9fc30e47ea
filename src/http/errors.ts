import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type for expected failures. Thrown anywhere; the root onError renders it as the
 * envelope with this status, Message and headers (src/app.ts).
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The exact text the interface prescribes for a missing scope (spec 5.7). */
export const DENIED = "Authorization has been denied for this request.";

export const badRequest = (message: string) => new ApiError(400, message);

/**
 * A store's writes are held while its move switches it to another shard (decisions 10): the 503
 * every write path answers then, with when to try again (whole seconds, at least one).
 */
export function storeSwitching(waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(503, `The store is switching to another database (a move); writes are held for ${seconds} s. Try again then; reads keep answering.`, {
    "Retry-After": String(seconds),
  });
}

/** A write a shard refused because its store has switched away (the fence of src/store-moves/move.ts). */
export function storeMoved(error: unknown): boolean {
  return error instanceof Error && /store_moved/.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? "")}`);
}
