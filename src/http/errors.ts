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
