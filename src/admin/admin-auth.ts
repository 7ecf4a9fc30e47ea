// The one credential check in front of every /admin/v1 route (admin.routes.ts mounts it, as does
// the sync benchmark's entry, bench/sync-worker.ts).
import { createMiddleware } from "hono/factory";
import { ApiError } from "../http/errors";
import type { AppEnv } from "../app-env";
import { timingSafeEqual } from "../lib/crypto";
import { refuseAdminDenied, throttleAdminFailure } from "../auth/authorize";

/**
 * Operators only: `Authorization: Bearer <ADMIN_API_KEY>`; anything else is 403 (decisions 8), and
 * counts against the sender's address (20, then one every 5 s; 429 beyond).
 */
export const adminOnly = createMiddleware<AppEnv>(async function adminOnly(c, next) {
  // An address that spent its wrong-key allowance is refused before its key is even compared.
  refuseAdminDenied(c);
  const presented = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim() ?? "";
  const expected = c.env.ADMIN_API_KEY ?? "";
  if (!expected || !timingSafeEqual(presented, expected)) {
    await throttleAdminFailure(c);
    throw new ApiError(403, "This endpoint is for administrators only: send Authorization: Bearer <ADMIN_API_KEY>.");
  }
  await next();
});
