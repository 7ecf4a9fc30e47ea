// Every statement on the settings table: one JSON value per key, for the service-wide switches
// an operator flips without a redeploy (today the maintenance switch, src/maintenance/maintenance.ts).
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { settings } from "../db/schema";

/** The stored value of a setting, or undefined when it was never written. */
export async function readSetting(db: Db, key: string): Promise<unknown> {
  const row = await db.select().from(settings).where(eq(settings.key, key)).get();
  return row?.value;
}

export async function writeSetting(db: Db, key: string, value: unknown, now: number): Promise<void> {
  await db
    .insert(settings)
    .values({ key, value, updatedAt: now })
    .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } });
}
