// Mapping helpers every marketplace needs alike. Pure: no I/O, no clock. Amounts are summed in
// whole minor units (cents, thousandths) so that 0.1 + 0.2 stays 0.3 on the way to the database;
// names are split the way the interface's FirstName/LastName want them; carrier and method
// names are matched ignoring case, spaces and punctuation.
import { Unmappable } from "./orders-page";

const DECIMAL = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/;

/**
 * A decimal amount (a JSON number or a decimal string) in minor units (`perWhole` of them to
 * one: 100 for cents); 0 when absent; Unmappable with `unreadable()` when it is anything else.
 */
export function minorUnits(raw: unknown, perWhole: number, unreadable: () => string): number {
  if (raw === null || raw === undefined || raw === "") return 0;
  const value = typeof raw === "number" ? raw : typeof raw === "string" && DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value)) throw new Unmappable(unreadable());
  return Math.round(value * perWhole);
}

/** An amount in cents, or Unmappable "<where>: amount <raw> is not a number". */
export function cents(raw: unknown, where: string): number {
  return minorUnits(raw, 100, () => `${where}: amount ${JSON.stringify(raw)} is not a number`);
}

export const fromCents = (c: number): number => c / 100;

/** "Ada Lovelace King" as first names "Ada Lovelace" and last name "King"; one word is a first name. */
export function splitName(name: string): { firstName: string; lastName: string } {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length <= 1) return { firstName: parts[0] ?? "", lastName: "" };
  return { firstName: parts.slice(0, -1).join(" "), lastName: parts.at(-1) ?? "" };
}

/** A name squashed to lower-case letters and digits: "Fed-Ex Ground" and "fedexground" meet. */
export const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * The names sellers' systems send for the big carriers, squashed, with the carrier each means.
 * A marketplace's table takes those whose carrier is in its own list.
 */
export const CARRIER_ALIASES: Readonly<Record<string, string>> = {
  unitedparcelservice: "UPS",
  upsground: "UPS",
  unitedstatespostalservice: "USPS",
  fedexground: "FedEx",
  fedexexpress: "FedEx",
  fedexhomedelivery: "FedEx",
  dhlexpress: "DHL",
};

/**
 * A lookup of a marketplace's own names (carrier codes, method codes) that matches a name
 * ignoring case, spaces and punctuation, and the aliases given; null for a name it does not know.
 */
export function nameTable(names: readonly string[], aliases: Readonly<Record<string, string>> = {}): (name: string) => string | null {
  const known = new Set(names);
  const byKey = new Map<string, string>([...names.map((n) => [squash(n), n] as const), ...Object.entries(aliases).filter(([, n]) => known.has(n))]);
  return (name) => byKey.get(squash(name)) ?? null;
}
