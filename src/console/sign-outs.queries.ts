// Every statement on console_sign_outs: the sessions an operator signed out of before they
// expired. The session gate asks here on every console request (one primary-key read), so a
// cookie copied before sign-out opens nothing afterwards. Rows of sessions past their expiry
// are removed whenever someone signs out.
import { eq, lte } from "drizzle-orm";
import type { Db } from "../db/client";
import { consoleSignOuts } from "../db/schema";

export async function recordSignOut(db: Db, sessionId: string, expiresAt: number, now: number): Promise<void> {
  await db.batch([
    db.delete(consoleSignOuts).where(lte(consoleSignOuts.expiresAt, now)),
    db.insert(consoleSignOuts).values({ sessionId, expiresAt }).onConflictDoNothing(),
  ]);
}

export async function isSignedOut(db: Db, sessionId: string): Promise<boolean> {
  const row = await db.select({ sessionId: consoleSignOuts.sessionId }).from(consoleSignOuts).where(eq(consoleSignOuts.sessionId, sessionId)).get();
  return row !== undefined;
}
