// A Mirakl source's Settings: the admin API validates them before a source is stored (and the
// console builds its form from them), and the connector reads them with connectorSettings().
// Every marketplace on Mirakl runs its own instance: its host and the shop's API key are the
// seller's, from the operator's back office (see README.md beside this file).
import { z } from "zod";
import { httpsUrl } from "../kit/settings";

const stringError = (name: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`);

/** A carrier code as the operator's carrier list (SH21) names it: printable, no spaces at the ends. */
const carrierCode = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "is at most 100 characters")
  .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, "must be printable ASCII");

export const miraklSettingsSchema = z.strictObject({
  baseUrl: httpsUrl().describe(
    "The marketplace's Mirakl instance, e.g. https://marketplace.example.mirakl.net (no default: each operator has its own). https only: the shop key " +
      "travels with every call.",
  ),
  apiKey: z
    .string({ error: stringError("apiKey") })
    .trim()
    .min(1, "apiKey must not be empty")
    .max(200, "apiKey is at most 200 characters")
    // Sent raw in the Authorization header: a line break or a control character would split it.
    .regex(/^[\x21-\x7e]+$/, "apiKey must be printable ASCII without spaces")
    .describe("The shop's API key (the operator's back office, My user settings > API key). Sent as it is in Authorization."),
  shopId: z
    .number({ error: (issue) => (issue.input === undefined ? "shopId is required" : "shopId must be a number") })
    .int("shopId must be a whole number")
    .min(1, "shopId must be 1 or more")
    .max(Number.MAX_SAFE_INTEGER, "shopId is too large")
    .optional()
    .describe("The shop to act for, when the key reaches several shops; the key's default shop otherwise."),
  acceptance: z
    .enum(["auto", "manual"])
    .default("auto")
    .describe(
      "auto: the hub decides each order waiting for acceptance as it is imported, accepting the lines whose Sku has the units (or is not tracked) and " +
        "refusing the rest (the order's SyncUserErrorMessage says which and why); manual: the seller decides, AcknowledgeOrder accepts every line.",
    ),
  carriers: z
    .record(z.string().trim().min(1, "a carrier name must not be empty").max(100), carrierCode)
    .default({})
    .refine((map) => Object.keys(map).length <= 200, "carriers takes at most 200 names")
    .describe(
      'The shop\'s carriers as the marketplace knows them: {"UPS Ground": "UPS", ...}, a shipment\'s carrier name (ignoring case, spaces and punctuation) ' +
        "to the operator's carrier_code.",
    ),
  defaultCarrierCode: carrierCode
    .optional()
    .describe("The carrier_code sent when a shipment names no carrier. A carrier named but not mapped goes as carrier_name with the tracking number."),
});
export type MiraklSettings = z.output<typeof miraklSettingsSchema>;
