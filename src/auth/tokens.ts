// Access tokens are signatures, not database rows: <consumerKeyId>.<issuedAt>.<expiresAt>.<hmac>.
// The Worker verifies one without I/O (and remembers the genuine ones it has seen); a forged or
// garbled token never reaches a Durable Object.
// Everything in a token is URL-path safe (base64url, digits, dots).
import { hmacSign, hmacVerify } from "../lib/crypto";

export const LIFESPANS = ["NeverExpires", "7Days", "14Days", "30Days"] as const;
export type Lifespan = (typeof LIFESPANS)[number];

const DAY_MS = 86_400_000;
const LIFESPAN_MS: Record<Lifespan, number | null> = {
  NeverExpires: null,
  "7Days": 7 * DAY_MS,
  "14Days": 14 * DAY_MS,
  "30Days": 30 * DAY_MS,
};

export interface TokenClaims {
  consumerKeyId: string;
  issuedAt: number;
  /** null: never expires. */
  expiresAt: number | null;
}

export function expiryOf(lifespan: Lifespan, issuedAt: number): number | null {
  const span = LIFESPAN_MS[lifespan];
  return span === null ? null : issuedAt + span;
}

export async function issueToken(secret: string, claims: TokenClaims): Promise<string> {
  const body = `${claims.consumerKeyId}.${claims.issuedAt.toString(36)}.${(claims.expiresAt ?? 0).toString(36)}`;
  return `${body}.${await hmacSign(secret, body)}`;
}

const TOKEN_SHAPE = /^(ck_[A-Za-z0-9_-]{1,64})\.([0-9a-z]{1,12})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Tokens this isolate has found genuine, with the secret that signed them: a client sends the
 * same token call after call, and its signature is a pure function of the two, so it is checked
 * once. Forgeries are never kept; the map is emptied when full.
 */
const genuine = new Map<string, { secret: string; claims: Readonly<TokenClaims> }>();
const GENUINE_MAX = 10_000;

/** The claims of a genuine token, or null. Expiry is the caller's to judge. */
export async function verifyToken(secret: string, token: string): Promise<Readonly<TokenClaims> | null> {
  const known = genuine.get(token);
  if (known && known.secret === secret) return known.claims;
  const match = TOKEN_SHAPE.exec(token);
  if (!match) return null;
  const [, consumerKeyId, issued, expires, signature] = match as unknown as [string, string, string, string, string];
  const body = `${consumerKeyId}.${issued}.${expires}`;
  if (!(await hmacVerify(secret, body, signature))) return null;
  const expiresAt = parseInt(expires, 36);
  const claims = Object.freeze({ consumerKeyId, issuedAt: parseInt(issued, 36), expiresAt: expiresAt === 0 ? null : expiresAt });
  if (genuine.size >= GENUINE_MAX) genuine.clear();
  genuine.set(token, { secret, claims });
  return claims;
}
