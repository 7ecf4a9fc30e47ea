// The request signature of TikTok Shop's Partner API, as the official SDK's signer computes it
// (utils/generate-sign.ts, with the query that client/create-trans-request-options.ts builds):
// every query parameter but `sign` and `access_token`, keys sorted ascending, each as key followed
// by value with no separator, the request path (no host, no query) in front, the JSON body
// appended when there is one with at least one key (the SDK leaves a multipart body out; the
// connector sends none), app_secret before and after, HMAC-SHA256 keyed with app_secret, the
// lowercase hex digest. Array values are joined with commas before signing and sending, as the
// SDK does. Pure apart from WebCrypto.

/** Query keys the signature leaves out. */
const UNSIGNED = new Set(["sign", "access_token"]);
const encoder = new TextEncoder();

/** The string the signature is computed over (exported for tests and for the README's example). */
export function signedText(secret: string, path: string, query: Readonly<Record<string, string>>, body: string | null): string {
  const pairs = Object.keys(query)
    .filter((key) => !UNSIGNED.has(key))
    .sort()
    .map((key) => `${key}${query[key]}`)
    .join("");
  return `${secret}${path}${pairs}${body ?? ""}${secret}`;
}

/** Whether a JSON body is signed: the SDK appends a body object only when it has keys. */
export function signsBody(json: unknown): boolean {
  return typeof json === "object" && json !== null && Object.keys(json).length > 0;
}

/** The `sign` query parameter of a call: HMAC-SHA256(app_secret, signedText) as lowercase hex. */
export async function tiktokSignature(secret: string, path: string, query: Readonly<Record<string, string>>, body: string | null): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const digest = await crypto.subtle.sign("HMAC", key, encoder.encode(signedText(secret, path, query, body)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
