// Secrets and signatures of the Standard Webhooks specification (v1). Signing is the official
// `standardwebhooks` library's own Webhook.sign (pure JavaScript, so it runs in workerd), so the
// service and any receiver's library agree by construction rather than by a copy of the spec.
import { Webhook } from "standardwebhooks";
import { decryptJson, encryptJson } from "../lib/crypto";
import type { WebhookRow } from "./webhooks.queries";

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

/** `whsec_` + base64 of 32 random bytes, the form every Standard Webhooks library reads. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

export const sealSecret = (env: Pick<Env, "SOURCE_SETTINGS_KEY">, secret: string) => encryptJson(env.SOURCE_SETTINGS_KEY, secret);

/** The secrets that sign now: the current one, and the previous one within a day of its rotation. */
export async function signingSecrets(env: Pick<Env, "SOURCE_SETTINGS_KEY">, row: WebhookRow, now: number): Promise<string[]> {
  const secrets = [await decryptJson<string>(env.SOURCE_SETTINGS_KEY, row.secretCiphertext)];
  if (row.previousSecretCiphertext && (row.previousSecretExpiresAt ?? 0) > now) {
    secrets.push(await decryptJson<string>(env.SOURCE_SETTINGS_KEY, row.previousSecretCiphertext));
  }
  return secrets;
}

/** The three headers of one attempt: one `v1,` signature per secret, space-separated. */
export function signedHeaders(secrets: string[], eventId: string, at: Date, body: string): Record<string, string> {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(" "),
  };
}
