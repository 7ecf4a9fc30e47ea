// Opaque, tamper-evident list cursors (decisions 3). A cursor carries where the next page starts
// (the last row's sort value and id, and the page number) and an HMAC over that position and the
// request it continues (store, filters, sort, pageSize). The key is derived from
// TOKEN_SIGNING_SECRET, so a cursor cannot be made without it, and it is a different key from the
// tokens' own, so a token's signature never passes for a cursor's.
import { fromBase64Url, hmacSign, hmacVerify, toBase64Url } from "./crypto";

export type CursorValue = string | number | null;

export interface CursorPosition {
  /** The page number the cursor leads to. */
  page: number;
  /** The sort value of the last row of the page before it. */
  value: CursorValue;
  /** Its id: the tie-break. */
  id: string | number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const derived = new Map<string, Promise<string>>();

function cursorKey(secret: string): Promise<string> {
  let key = derived.get(secret);
  if (!key) {
    key = hmacSign(secret, "order-feed-hub list cursor key v1");
    derived.set(secret, key);
  }
  return key;
}

/** `binding` is everything the cursor is only valid with, in a fixed order. */
export async function signCursor(secret: string, binding: unknown[], position: CursorPosition): Promise<string> {
  const payload = toBase64Url(encoder.encode(JSON.stringify([position.page, position.value, position.id])));
  const signature = await hmacSign(await cursorKey(secret), `${payload}\n${JSON.stringify(binding)}`);
  return `${payload}.${signature}`;
}

/** The position, or null when the cursor was altered, forged, or made for another request. */
export async function openCursor(secret: string, binding: unknown[], cursor: string): Promise<CursorPosition | null> {
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  if (!(await hmacVerify(await cursorKey(secret), `${payload}\n${JSON.stringify(binding)}`, signature))) return null;
  const bytes = fromBase64Url(payload);
  if (!bytes) return null;
  try {
    const [page, value, id] = JSON.parse(decoder.decode(bytes)) as unknown[];
    const scalar = (v: unknown) => v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
    if (!Number.isSafeInteger(page) || (page as number) < 2 || !scalar(value) || (typeof id !== "string" && typeof id !== "number")) return null;
    return { page: page as number, value: value as CursorValue, id };
  } catch {
    return null;
  }
}

/** Where a list page starts: after the last row of the page before (a cursor's position), or at an offset. */
export type PageStart = { after: Omit<CursorPosition, "page"> } | { offset: number };

/**
 * The page a list request asks for, by `page` or by `cursor`: its number and where it starts.
 * Null when the cursor does not open (altered, forged, or made for another request).
 */
export async function pageStart(
  secret: string,
  binding: unknown[],
  request: { page?: number; cursor?: string },
  pageSize: number,
): Promise<{ page: number; start: PageStart } | null> {
  if (request.cursor === undefined) {
    const page = request.page ?? 1;
    return { page, start: { offset: (page - 1) * pageSize } };
  }
  const position = await openCursor(secret, binding, request.cursor);
  return position && { page: position.page, start: { after: position } };
}

/** The NextCursor of page `page`: null when it was the last. */
export async function nextCursor(secret: string, binding: unknown[], page: number, next: Omit<CursorPosition, "page"> | null): Promise<string | null> {
  return next && signCursor(secret, binding, { page: page + 1, ...next });
}
