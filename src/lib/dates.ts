// Every date that enters or leaves the service passes through here.
import { z } from "zod";

/** The latest instant the wire form can write with a four-digit year. */
const LAST_WIRE_MS = Date.parse("9999-12-31T23:59:59.999Z");
const FIRST_WIRE_MS = Date.parse("0000-01-01T00:00:00.000Z");

/**
 * Response form: YYYY-MM-DDTHH:MM:SS.sssZ, always UTC; null stays null. It cannot throw: a stored
 * instant past what the form can hold (a marketplace's Retry-After of 9e12 s once made one) is
 * written as the nearest instant it can hold, and a number that is no instant at all as null,
 * so no answer becomes a 500 because of a date.
 */
export function toWireDate(ms: number | null | undefined): string | null {
  if (ms == null || Number.isNaN(ms)) return null;
  return new Date(Math.min(LAST_WIRE_MS, Math.max(FIRST_WIRE_MS, ms))).toISOString();
}

/**
 * A date-time as answers carry it (toWireDate's form), for the schemas the OpenAPI document is
 * made from: `format: date-time`, so a generated client reads it as a date, not as text.
 */
export const wireDate = z.string().meta({ format: "date-time" });
/** The same, null when the instant is absent (a DateTime? of the interface). */
export const wireDateOrNull = wireDate.nullable();

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true, local: true });

/**
 * ISO 8601 date or date-time, with Z or an offset, to epoch ms. A date alone is midnight UTC;
 * a date-time without a zone is read as UTC (the service stores and answers UTC only).
 * Returns null for anything else, including impossible calendar dates (2025-02-30).
 */
export function parseIsoDate(input: string): number | null {
  // An unencoded "+" in a query string arrives as a space: "...T10:00:00 02:00" means +02:00.
  const value = input.trim().replace(/(T[\d:.]+) (\d{2}:?\d{2})$/, "$1+$2");
  if (isoDate.safeParse(value).success) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? null : ms;
  }
  if (!isoDateTime.safeParse(value).success) return null;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value);
  const ms = Date.parse(hasZone ? value : `${value}Z`);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2025-02-30 over to March; refuse it instead of guessing.
  const day = value.slice(0, 10);
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) return null;
  return ms;
}

/**
 * A zod schema for an ISO 8601 date/date-time field, producing epoch ms. The document shows it as
 * `format: date-time` (what a generated client sends); a date alone is accepted as well.
 */
export const isoDateField = z
  .string({ error: "must be an ISO 8601 date or date-time string" })
  .transform((value, ctx) => {
    const ms = parseIsoDate(value);
    if (ms === null) {
      ctx.addIssue({
        code: "custom",
        message: `'${truncate(value)}' is not an ISO 8601 date or date-time (e.g. 2026-03-01 or 2026-03-01T14:30:00Z)`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ format: "date-time", description: "ISO 8601 date-time (a date alone means midnight UTC; without a zone, UTC)." });

export function truncate(value: string, max = 60): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
