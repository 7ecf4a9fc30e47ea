// The console's session: a signed cookie, exchanged for the admin key at sign-in. It holds no
// key, only an id and an expiry under an HMAC whose secret is derived from ADMIN_API_KEY (so a new
// admin key ends every session). HttpOnly, Secure, SameSite=Strict, Path=/. Signing out clears
// the cookie and lists the session as signed out (sign-outs.queries.ts), so a copy of the cookie opens
// nothing afterwards. Each session has a CSRF token (an HMAC of its id) that every
// state-changing form carries; Hono's csrf() middleware also refuses a form posted from another
// origin.
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { directoryDb } from "../db/shards";
import { hmacSign, timingSafeEqual } from "../lib/crypto";
import { isSignedOut, recordSignOut } from "./sign-outs.queries";

type ConsoleBindings = { Bindings: Env };

export const COOKIE = "__Host-console";
/** A session lasts 8 hours from sign-in (a working day), then the operator signs in again. */
export const SESSION_SECONDS = 8 * 60 * 60;

export interface Session {
  id: string;
  expiresAt: number;
  csrf: string;
}

const secretOf = (env: Env) => hmacSign(env.ADMIN_API_KEY ?? "", "console-session");

export async function startSession<E extends ConsoleBindings>(c: Context<E>): Promise<void> {
  const id = crypto.randomUUID();
  const expiresAt = Date.now() + SESSION_SECONDS * 1000;
  // __Host-: Secure, Path=/ and no Domain are required by the browser, so no sibling host can set it.
  await setSignedCookie(c, COOKIE, `${id}.${expiresAt}`, await secretOf(c.env), {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: SESSION_SECONDS,
  });
}

/**
 * Signs out: the browser's cookie is cleared whatever happens, then the session is listed as
 * signed out. Answers false when the database could not record it (a copy of the cookie then
 * stays valid until it expires, and the operator is told so).
 */
export async function endSession<E extends ConsoleBindings>(c: Context<E>, session: Session): Promise<boolean> {
  deleteCookie(c, COOKIE, { path: "/", secure: true, httpOnly: true, sameSite: "Strict" });
  try {
    await recordSignOut(directoryDb(c.env), session.id, session.expiresAt, Date.now());
    return true;
  } catch {
    return false;
  }
}

/** The request's session, or null. Throws when the database cannot say whether it was signed out. */
export async function readSession<E extends ConsoleBindings>(c: Context<E>): Promise<Session | null> {
  if (!c.env.ADMIN_API_KEY) return null;
  const secret = await secretOf(c.env);
  const value = await getSignedCookie(c, secret, COOKIE);
  if (!value) return null;
  const [id, expires] = value.split(".");
  const expiresAt = Number(expires);
  if (!id || !Number.isFinite(expiresAt) || expiresAt <= Date.now()) return null;
  if (await isSignedOut(directoryDb(c.env), id)) return null;
  return { id, expiresAt, csrf: await hmacSign(secret, `csrf:${id}`) };
}

export function csrfMatches(session: Session, presented: unknown): boolean {
  return typeof presented === "string" && timingSafeEqual(presented, session.csrf);
}
