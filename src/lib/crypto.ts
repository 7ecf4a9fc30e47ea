// Hashing, signing and encryption, all through WebCrypto.
const encoder = new TextEncoder();

export function toBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const b of view) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  try {
    return Uint8Array.from(atob(padded), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

export function randomId(prefix: string, bytes = 12): string {
  return `${prefix}_${toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)))}`;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of two strings (length is not secret). */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  if (left.byteLength !== right.byteLength) {
    // Compare against itself so the time does not depend on where the strings differ.
    crypto.subtle.timingSafeEqual(left, left);
    return false;
  }
  return crypto.subtle.timingSafeEqual(left, right);
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function hmacSign(secret: string, message: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message));
  return toBase64Url(signature);
}

/** WebCrypto's verify compares in constant time. */
export async function hmacVerify(secret: string, message: string, signature: string): Promise<boolean> {
  const bytes = fromBase64Url(signature);
  if (bytes?.byteLength !== 32) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, encoder.encode(message));
}

/** The settings cipher is AES-256-GCM: its key is exactly this many bytes. */
export const SETTINGS_KEY_BYTES = 32;

/**
 * What a SOURCE_SETTINGS_KEY value holds: its bytes (base64, surrounding whitespace ignored, as
 * `openssl rand -base64 32` prints it with a newline), or why it is no key the cipher takes. The
 * start-up check (src/http/secrets.ts) and the cipher below both read the key through this one
 * function, so the check accepts exactly the keys the cipher uses. AES-GCM itself would also take
 * 16 or 24 bytes; the hub holds every secret to 256 bits, so it takes 32 only.
 */
export function settingsKeyBytes(value: string): { bytes: Uint8Array } | { problem: string } {
  let binary: string;
  try {
    binary = atob(value.trim());
  } catch {
    return { problem: `is not base64 (it must be the base64 of exactly ${SETTINGS_KEY_BYTES} random bytes)` };
  }
  if (binary.length !== SETTINGS_KEY_BYTES)
    return {
      problem: `decodes to ${binary.length} bytes; AES-256-GCM takes exactly ${SETTINGS_KEY_BYTES} (the base64 of exactly ${SETTINGS_KEY_BYTES} random bytes)`,
    };
  return { bytes: Uint8Array.from(binary, (ch) => ch.charCodeAt(0)) };
}

/** A settings key the cipher cannot use: the service answers 503 (the start-up check refuses it first). */
export class SettingsKeyError extends Error {}

async function aesKey(base64Key: string): Promise<CryptoKey> {
  const key = settingsKeyBytes(base64Key);
  if ("problem" in key) throw new SettingsKeyError(`SOURCE_SETTINGS_KEY ${key.problem}`);
  return crypto.subtle.importKey("raw", key.bytes, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** AES-GCM with a fresh 96-bit IV; output is base64url(iv).base64url(ciphertext). */
export async function encryptJson(base64Key: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(base64Key), encoder.encode(JSON.stringify(value)));
  return `${toBase64Url(iv)}.${toBase64Url(data)}`;
}

export async function decryptJson<T>(base64Key: string, sealed: string): Promise<T> {
  const [ivText, dataText] = sealed.split(".");
  const iv = fromBase64Url(ivText ?? "");
  const data = fromBase64Url(dataText ?? "");
  if (!iv || !data) throw new Error("sealed value is malformed");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv }, await aesKey(base64Key), data);
  return JSON.parse(new TextDecoder().decode(plain)) as T;
}
