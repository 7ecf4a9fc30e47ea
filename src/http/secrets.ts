// The service's own secrets are checked before anything is served: a missing or short one
// (an unset `wrangler secret`, a copied example value) would make tokens forgeable, the admin key
// guessable or the sources' credentials readable. Such a deployment answers 503 to everything and
// logs which secret is wrong, instead of running weakly.
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";

/** The fewest bytes a secret may hold (256 bits). */
export const MIN_SECRET_BYTES = 32;

const bytesOf = (value: string) => new TextEncoder().encode(value).byteLength;

/** The key's bytes as base64 decodes them, or null when it is not base64. */
function base64Bytes(value: string): number | null {
  try {
    return atob(value.trim()).length;
  } catch {
    return null;
  }
}

/** What is wrong with each secret, one line per bad one; empty when all hold. */
export function secretProblems(env: Partial<Pick<Env, "ADMIN_API_KEY" | "TOKEN_SIGNING_SECRET" | "SOURCE_SETTINGS_KEY">>): string[] {
  const problems: string[] = [];
  for (const name of ["ADMIN_API_KEY", "TOKEN_SIGNING_SECRET"] as const) {
    const value = env[name];
    if (typeof value !== "string" || value === "") problems.push(`${name} is not set (it must hold at least ${MIN_SECRET_BYTES} bytes)`);
    else if (bytesOf(value) < MIN_SECRET_BYTES) problems.push(`${name} is ${bytesOf(value)} bytes, shorter than ${MIN_SECRET_BYTES} bytes`);
  }
  const key = env.SOURCE_SETTINGS_KEY;
  const keyBytes = typeof key === "string" && key !== "" ? base64Bytes(key) : null;
  if (typeof key !== "string" || key === "") problems.push(`SOURCE_SETTINGS_KEY is not set (it must be at least ${MIN_SECRET_BYTES} bytes, base64)`);
  else if (keyBytes === null) problems.push(`SOURCE_SETTINGS_KEY is not base64 (it must be at least ${MIN_SECRET_BYTES} bytes, base64)`);
  else if (keyBytes < MIN_SECRET_BYTES) problems.push(`SOURCE_SETTINGS_KEY holds ${keyBytes} bytes, shorter than ${MIN_SECRET_BYTES} bytes`);
  return problems;
}

/** The last secrets found to hold, so that a request of a healthy deployment checks three string compares. */
let held: { admin: string; signing: string; settings: string } | null = null;

/** Logs each bad secret by name (never its value), on every call; true when the service may run. */
export function secretsHold(env: Env): boolean {
  if (held && held.admin === env.ADMIN_API_KEY && held.signing === env.TOKEN_SIGNING_SECRET && held.settings === env.SOURCE_SETTINGS_KEY) return true;
  const problems = secretProblems(env);
  if (problems.length === 0) held = { admin: env.ADMIN_API_KEY, signing: env.TOKEN_SIGNING_SECRET, settings: env.SOURCE_SETTINGS_KEY };
  for (const problem of problems) console.error(`secret misconfigured: ${problem}; set it with \`wrangler secret put\``);
  return problems.length === 0;
}

export const requireSecrets = createMiddleware<{ Bindings: Env }>(async function requireSecrets(c, next) {
  if (!secretsHold(c.env)) {
    // The answer does not say which secret: that is for the operator's log, not for any caller.
    throw new ApiError(
      503,
      `The service is not configured: a secret it needs is missing or shorter than ${MIN_SECRET_BYTES} bytes. Its operator must set it (see docs/security.md).`,
    );
  }
  await next();
});
