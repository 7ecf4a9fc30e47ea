// An eBay source's Settings: the admin API validates them before a source is stored, and the
// connector reads them with connectorSettings(). The refresh token comes from eBay's consent page.
import { z } from "zod";
import { httpsUrl } from "../kit/settings";
import { EBAY_SELLER_CANCEL_REASONS } from "./ebay.types";

export const EBAY_DEFAULT_BASE_URL = "https://api.ebay.com";

const stringError = (name: string, example: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${name} is required` : `${name} must be a string${example}`;

const required = (name: string) =>
  z
    .string({ error: stringError(name, "") })
    .trim()
    .min(1, `${name} must not be empty`);

export const ebaySettingsSchema = z.strictObject({
  clientId: required("clientId"),
  clientSecret: required("clientSecret"),
  /** The seller's refresh token, from eBay's consent page (see the README). */
  refreshToken: required("refreshToken"),
  marketplaceId: z
    .string({ error: stringError("marketplaceId", " such as EBAY_US") })
    .regex(/^EBAY_[A-Z]{2}$/, "marketplaceId must be an eBay marketplace id such as EBAY_US, EBAY_GB or EBAY_DE"),
  baseUrl: httpsUrl().default(EBAY_DEFAULT_BASE_URL),
  /** Defaults to the token endpoint of baseUrl's host (api.ebay.com, api.sandbox.ebay.com). */
  tokenUrl: httpsUrl().optional(),
  // Connector.cancel carries no reason the Post-Order API knows; a seller-side reason is a setting.
  cancelReason: z.enum(EBAY_SELLER_CANCEL_REASONS).default("OUT_OF_STOCK_OR_CANNOT_FULFILL"),
});
export type EbaySettings = z.output<typeof ebaySettingsSchema>;
