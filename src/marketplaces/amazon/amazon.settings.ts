// An Amazon source's Settings: the admin API validates them before a source is stored, and the
// connector reads them with connectorSettings(). The refresh token is the seller's authorisation.
import { z } from "zod";
import { httpsUrl } from "../kit/settings";
import { AMAZON_CANCEL_REASONS, LWA_TOKEN_URL } from "./amazon.types";

export const amazonSettingsSchema = z.strictObject({
  refreshToken: z.string({ error: "refreshToken is required" }).trim().min(1, "refreshToken is required"),
  clientId: z.string({ error: "clientId is required" }).trim().min(1, "clientId is required"),
  clientSecret: z.string({ error: "clientSecret is required" }).min(1, "clientSecret is required"),
  region: z.enum(["na", "eu", "fe"], { error: "region must be na, eu or fe (the Selling Partner API host of the seller's marketplaces)" }),
  marketplaceIds: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[A-Z0-9]{5,20}$/, "each marketplace id is Amazon's, like ATVPDKIKX0DER"),
      {
        error: "marketplaceIds must be a list of Amazon marketplace ids",
      },
    )
    .min(1, "marketplaceIds must name at least one marketplace")
    // searchOrders takes at most 50.
    .max(50, "marketplaceIds takes at most 50 marketplaces"),
  /** A sandbox or a fake; the region's host by default. */
  baseUrl: httpsUrl().optional(),
  /** Login with Amazon's token endpoint; a fake in tests. */
  tokenUrl: httpsUrl().default(LWA_TOKEN_URL),
  /** The seller's merchant token: the feed envelope's MerchantIdentifier, and the {sellerId} stock and price calls need. */
  sellerId: z.string().trim().min(1, "sellerId must not be blank").max(64).optional(),
  /** The CancelReason of a cancellation (Connector.cancel carries no reason Amazon knows). */
  cancelReason: z.enum(AMAZON_CANCEL_REASONS, { error: `cancelReason must be one of ${AMAZON_CANCEL_REASONS.join(", ")}` }).default("GeneralAdjustment"),
  /** Amazon carrier codes the seller ships with, sent as carrierCode when the carrier matches one. */
  carrierCodes: z.array(z.string().trim().min(1).max(64)).max(200).default([]),
});
export type AmazonSettings = z.output<typeof amazonSettingsSchema>;
