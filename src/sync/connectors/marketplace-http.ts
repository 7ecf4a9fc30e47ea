// HTTP plumbing every connector needs the same way: a call with a deadline whose transport
// failure becomes a retryable MarketplaceError, a JSON answer read without trusting it,
// Retry-After in either of its forms, and Basic credentials as UTF-8. Nothing here knows a
// marketplace: each connector turns answers into its own errors.
import { MarketplaceError } from "../connector";

export interface MarketplaceCall {
  /** The marketplace's name, for messages ("eBay", "Amazon"). */
  marketplace: string;
  fetch: typeof fetch;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  timeoutMs: number;
}

/** Sends one request; a network failure or the deadline becomes a retryable MarketplaceError. */
export async function sendToMarketplace(call: MarketplaceCall): Promise<Response> {
  try {
    return await call.fetch(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    throw new MarketplaceError(
      `${call.marketplace} ${call.method} ${pathOf(call.url)} failed: ${transportReason(error, call.timeoutMs)}`,
      null,
      true,
    );
  }
}

/**
 * The answer's JSON. A body that is not JSON (a proxy's HTML page, a cut-off answer) is worth
 * another try; the caller still checks the shape of what it gets.
 */
export async function readJsonAnswer(response: Response, label: string): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new MarketplaceError(`${label}: the answer broke off (${transportReason(error, 0)})`, response.status, true);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MarketplaceError(`${label}: the ${response.status} answer is not JSON`, response.status, true);
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null || header.trim() === "") return null;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** `Basic base64(id:secret)` with the credentials as UTF-8 (btoa alone takes Latin-1). */
export function basicAuthorization(id: string, secret: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(`${id}:${secret}`)) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

function transportReason(error: unknown, timeoutMs: number): string {
  const name = typeof error === "object" && error !== null && "name" in error ? String(error.name) : "";
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  return error instanceof Error ? error.message : String(error);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split("?")[0] ?? url;
  }
}
