// HTTP plumbing every connector needs the same way: a call with a deadline that never follows a
// redirect (a credential must not reach a host its owner did not pair it with), answers read
// with a 16 MiB cap whatever the marketplace sends, Retry-After capped at one hour, an answer
// that failed turned into a MarketplaceError, and Basic credentials as UTF-8. A marketplace's own
// part (how it describes its errors, which statuses are worth a retry) is passed in.
import { MarketplaceError } from "../connector";
import { retryAfterMs } from "../../lib/retry";

export { retryAfterMs };

/** The most of one answer the hub reads (decisions 6): a larger one ends the window. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** What an error's detail reads of a failed answer's body: its first words are the message. */
const ERROR_BODY_BYTES = 64 * 1024;
/** How much of a body that is not the marketplace's error shape goes into a message. */
const DETAIL_CHARS = 200;

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

/**
 * Sends one request; a network failure or the deadline becomes a retryable MarketplaceError, and
 * so does a redirect (never followed: it would carry the call's token or secret to its Location).
 */
export async function sendToMarketplace(call: MarketplaceCall): Promise<Response> {
  let response: Response;
  try {
    response = await call.fetch(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      redirect: "manual",
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    throw new MarketplaceError(`${call.marketplace} ${call.method} ${pathOf(call.url)} failed: ${transportReason(error, call.timeoutMs)}`, null, true);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get("Location");
    throw new MarketplaceError(
      `${call.marketplace} ${call.method} ${pathOf(call.url)} answered ${response.status} redirecting to ` +
        `${location ? JSON.stringify(location.slice(0, 300)) : "no Location"}; marketplace calls never follow a redirect`,
      response.status,
      true,
    );
  }
  return response;
}

/**
 * A stream's bytes as text, read as they come and counted: more than `limit` bytes is a
 * retryable MarketplaceError naming `label` (the rest is not read), and so is a stream that
 * breaks off.
 */
export async function readCappedText(
  stream: ReadableStream<Uint8Array> | null,
  label: string,
  status: number | null,
  limit = MAX_ANSWER_BYTES,
): Promise<string> {
  if (!stream) return "";
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new MarketplaceError(`${label}: the answer is larger than ${limit / 1024 / 1024} MiB, more than the hub reads`, status, true);
      }
      parts.push(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    if (error instanceof MarketplaceError) throw error;
    throw new MarketplaceError(`${label}: the answer broke off (${transportReason(error, 0)})`, status, true);
  }
  parts.push(decoder.decode());
  return parts.join("");
}

/**
 * The answer's JSON. A body that is not JSON (a proxy's HTML page, a cut-off answer) is worth
 * another try; the caller still checks the shape of what it gets.
 */
export async function readJsonAnswer(response: Response, label: string): Promise<unknown> {
  const text = await readCappedText(response.body, label, response.status);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MarketplaceError(`${label}: the ${response.status} answer is not JSON`, response.status, true);
  }
}

export interface FailureReading {
  /** The message's start: "Walmart", "eBay 400 on getOrders:" ... The detail follows after a space. */
  prefix: string;
  /** The marketplace's own words from its error body; null when the body is not its error shape. */
  describe?: (body: string) => string | null;
  /** Whether a retry can help; by default a 429 or a 5xx. */
  retryable?: (status: number) => boolean;
  /** The wait when the answer names none (a connector's own pacing); none by default. */
  defaultWaitMs?: (status: number) => number | null;
  now: Date;
}

/**
 * A failed answer as a MarketplaceError: `<prefix> <detail>`, the detail being the marketplace's
 * own description of the error, else the body's first 200 characters, else the status text; its
 * Retry-After (capped at an hour) as the wait.
 */
export async function answerFailure(response: Response, reading: FailureReading): Promise<MarketplaceError> {
  const body = await readErrorBody(response);
  let detail: string | null = null;
  try {
    detail = reading.describe?.(body) ?? null;
  } catch {
    // A body the describer cannot read is described by its text below.
  }
  detail ??= body.trim().slice(0, DETAIL_CHARS) || response.statusText || "no details";
  const status = response.status;
  const retryable = reading.retryable ? reading.retryable(status) : status === 429 || status >= 500;
  const wait = retryAfterMs(response.headers.get("Retry-After"), reading.now) ?? reading.defaultWaitMs?.(status) ?? null;
  return new MarketplaceError(`${reading.prefix} ${detail}`, status, retryable, wait);
}

/** The first 64 KiB of a failed answer's body (enough for any error message); the rest is left unread. */
async function readErrorBody(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    while (size < ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      size += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => undefined);
  } catch {
    // What arrived before the break is the detail there is.
  }
  return text;
}

/** The wait a Retry-After that cannot be read stands for. */
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

/** What no retry can change (a delivery's own data, a marketplace's verdict): `<marketplace> <message>`. */
export function refusal(marketplace: string, message: string, status: number | null = null): MarketplaceError {
  return new MarketplaceError(`${marketplace} ${message}`, status, false);
}
