// The maintenance switch: its state, and the middleware app.ts puts in front of every /v1 route.
// The state lives in D1 (the settings table, settings.queries.ts) so that flipping it needs no
// redeploy. Each isolate re-reads it at most every CACHE_MS, which bounds how long a flip takes to
// be seen (decisions 1: within 10 seconds) while keeping D1 off the hot path.
import { createMiddleware } from "hono/factory";
import { directoryDb } from "../db/shards";
import type { AppEnv } from "../app-env";
import { ApiError } from "../http/errors";
import { readSetting, writeSetting } from "./settings.queries";

export interface MaintenanceState {
  enabled: boolean;
  message: string;
}

const KEY = "maintenance";
const CACHE_MS = 5_000;
let cached: { state: MaintenanceState; readAt: number } | null = null;

export async function readMaintenance(env: Env, options: { fresh?: boolean } = {}): Promise<MaintenanceState> {
  const now = Date.now();
  if (!options.fresh && cached && now - cached.readAt < CACHE_MS) return cached.state;
  const state = ((await readSetting(directoryDb(env), KEY)) as MaintenanceState | undefined) ?? { enabled: false, message: "" };
  cached = { state, readAt: now };
  return state;
}

export async function writeMaintenance(env: Env, state: MaintenanceState, now = Date.now()): Promise<void> {
  await writeSetting(directoryDb(env), KEY, state, now);
  // This isolate sees its own flip at once; others within CACHE_MS.
  cached = { state, readAt: now };
}

/** While the switch is on, a request answers 503 with Retry-After instead of reaching its route. */
export const maintenanceSwitch = createMiddleware<AppEnv>(async function maintenanceSwitch(c, next) {
  const state = await readMaintenance(c.env);
  if (state.enabled) {
    const retryAfter = String(Number(c.env.MAINTENANCE_RETRY_AFTER_SECONDS) || 60);
    throw new ApiError(503, state.message || "The service is offline for maintenance; try again later.", {
      "Retry-After": retryAfter,
    });
  }
  await next();
});
