// The one credential check in front of every /admin/v1 route (admin.routes.ts mounts it, as does
// the sync benchmark's entry, bench/sync-worker.ts).
import { createMiddleware } from "hono/factory";
import { ApiError } from "../http/errors";
import type { AppEnv } from "../http/create-router";
import { timingSafeEqual } from "../lib/crypto";

/** Operators only: `Authorization: Bearer <ADMIN_API_KEY>`; anything else is 403 (decisions 8). */
export const adminOnly = createMiddleware<AppEnv>(async function adminOnly(c, next) {
  const presented = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim() ?? "";
  const expected = c.env.ADMIN_API_KEY ?? "";
  if (!expected || !timingSafeEqual(presented, expected)) {
    throw new ApiError(403, "This endpoint is for administrators only: send Authorization: Bearer <ADMIN_API_KEY>.");
  }
  await next();
});
