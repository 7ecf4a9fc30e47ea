// The service's own secrets are checked before anything is served: a missing or short one
// (an unset `wrangler secret`, a copied example value) would make tokens forgeable, the admin key
// guessable or the sources' credentials readable, and a settings key the cipher cannot use would
// fail every source creation. Such a deployment answers 503 to everything and logs which secret is
// wrong, instead of running weakly or failing later. SOURCE_SETTINGS_KEY is read through the
// cipher's own decoding (src/lib/crypto.ts settingsKeyBytes), so the check takes exactly the keys
// the cipher uses.
import { createMiddleware } from "hono/factory";
import { SETTINGS_KEY_BYTES, settingsKeyBytes } from "../lib/crypto";
import { ApiError } from "./errors";

/** The fewest bytes a secret may hold (256 bits). */
export const MIN_SECRET_BYTES = 32;

/** What every value of .dev.vars.example starts with: a placeholder, refused by name. */
export const PLACEHOLDER_PREFIX = "REPLACE_ME";

/** The one answer to every request while a secret is wrong (it names none: that is for the log). */
export const NOT_CONFIGURED =
  `The service is not configured: a secret it needs is missing, short or unusable. Its operator must set it (see ` + `docs/security.md).`;

const bytesOf = (value: string) => new TextEncoder().encode(value).byteLength;

/** What is wrong with each secret, one line per bad one; empty when all hold. */
export function secretProblems(env: Partial<Pick<Env, "ADMIN_API_KEY" | "TOKEN_SIGNING_SECRET" | "SOURCE_SETTINGS_KEY">>): string[] {
  const problems: string[] = [];
  for (const name of ["ADMIN_API_KEY", "TOKEN_SIGNING_SECRET", "SOURCE_SETTINGS_KEY"] as const) {
    const value = env[name];
    const rule = name === "SOURCE_SETTINGS_KEY" ? `the base64 of exactly ${SETTINGS_KEY_BYTES} random bytes` : `at least ${MIN_SECRET_BYTES} bytes`;
    if (typeof value !== "string" || value.trim() === "") problems.push(`${name} is not set (it must be ${rule})`);
    else if (value.trim().startsWith(PLACEHOLDER_PREFIX))
      problems.push(`${name} is the placeholder of .dev.vars.example (it must be ${rule}; \`npm start\` writes random local ones to .dev.vars)`);
    else if (name === "SOURCE_SETTINGS_KEY") {
      const key = settingsKeyBytes(value);
      if ("problem" in key) problems.push(`${name} ${key.problem}`);
    } else if (bytesOf(value) < MIN_SECRET_BYTES) problems.push(`${name} is ${bytesOf(value)} bytes, shorter than ${MIN_SECRET_BYTES} bytes`);
  }
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
  // The answer does not say which secret: that is for the operator's log, not for any caller.
  if (!secretsHold(c.env)) throw new ApiError(503, NOT_CONFIGURED);
  await next();
});
