// An Etsy source's Settings: the admin API validates them before a source is stored (and the
// console builds its form from them), and the connector reads them with connectorSettings().
// keystring and shared secret are the app's (Etsy's developer portal); the refresh token and the
// shop id are the seller's, from the OAuth consent (see README.md beside this file).
import { z } from "zod";
import { httpsUrl } from "../kit/settings";

export const ETSY_DEFAULT_BASE_URL = "https://openapi.etsy.com";
/** The token endpoint Etsy's authentication guide names (the 2024 description says openapi.etsy.com). */
export const ETSY_DEFAULT_TOKEN_URL = "https://api.etsy.com/v3/public/oauth/token";

const stringError = (name: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`);
const required = (name: string) =>
  z
    .string({ error: stringError(name) })
    .trim()
    .min(1, `${name} must not be empty`);

export const etsySettingsSchema = z.strictObject({
  keystring: required("keystring")
    // It travels as `keystring:shared_secret`: a colon inside would make the pair ambiguous.
    .regex(/^[^:\s]+$/, "keystring must not contain a colon or spaces")
    .describe("The app's keystring (API key) from Etsy's developer portal."),
  sharedSecret: required("sharedSecret")
    .regex(/^[^\s]+$/, "sharedSecret must not contain spaces")
    .describe("The app's shared secret; Etsy wants every call's x-api-key as keystring:shared_secret."),
  refreshToken: required("refreshToken").describe(
    "The seller's refresh token from Etsy's OAuth consent (scopes transactions_r transactions_w listings_r listings_w). Etsy issues a new one at each " +
      "renewal; the source keeps it.",
  ),
  shopId: z
    .number({ error: (issue) => (issue.input === undefined ? "shopId is required" : "shopId must be a number") })
    .int("shopId must be a whole number")
    .min(1, "shopId must be Etsy's numeric shop id (1 or more)")
    .max(Number.MAX_SAFE_INTEGER, "shopId is too large")
    .describe("The seller's numeric Etsy shop id."),
  baseUrl: httpsUrl().default(ETSY_DEFAULT_BASE_URL),
  tokenUrl: httpsUrl().default(ETSY_DEFAULT_TOKEN_URL),
});
export type EtsySettings = z.output<typeof etsySettingsSchema>;
