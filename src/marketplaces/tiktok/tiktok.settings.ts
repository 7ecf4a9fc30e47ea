// A TikTok Shop source's Settings: the admin API validates them before a source is stored (and the
// console builds its form from them), and the connector reads them with connectorSettings(). The
// app key and secret are the app's (TikTok Shop Partner Center); the refresh token and the shop
// (its cipher, or its id to look the cipher up) are the seller's, from the authorisation (see
// README.md beside this file).
import { z } from "zod";
import { httpsUrl } from "../kit/settings";

export const TIKTOK_DEFAULT_BASE_URL = "https://open-api.tiktokglobalshop.com";
/** The token service of the SDK's client/token.ts. */
export const TIKTOK_DEFAULT_AUTH_URL = "https://auth.tiktok-shops.com";
/** The seller cancellation reason third-party integrations send (the SDK does not list them: README). */
export const TIKTOK_DEFAULT_CANCEL_REASON = "seller_cancel_reason_out_of_stock";

const stringError = (name: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`);
const required = (name: string) =>
  z
    .string({ error: stringError(name) })
    .trim()
    .min(1, `${name} must not be empty`);
/** A TikTok id or token: printable ASCII without spaces (it travels in a query string or header). */
const token = (name: string) =>
  required(name)
    .max(512, `${name} is at most 512 characters`)
    .regex(/^[\x21-\x7e]+$/, `${name} must be printable ASCII without spaces`);

export const tiktokSettingsSchema = z
  .strictObject({
    appKey: token("appKey").describe("The app's key from TikTok Shop Partner Center (app_key on every call)."),
    appSecret: token("appSecret").describe("The app's secret: it signs every call and renews the seller's access."),
    refreshToken: token("refreshToken").describe(
      "The seller's refresh token from the app's authorisation. TikTok issues a new one with each renewal; the source keeps it, sealed.",
    ),
    shopCipher: token("shopCipher").optional().describe("The shop's cipher (GetAuthorizedShops' `cipher`), sent as shop_cipher. Give it or shopId."),
    shopId: z
      .string({ error: stringError("shopId") })
      .trim()
      .regex(/^\d{1,30}$/, "shopId must be TikTok's numeric shop id, as text")
      .optional()
      .describe("The shop's id: the source looks its cipher up among the shops the seller authorised. Give it or shopCipher."),
    baseUrl: httpsUrl().default(TIKTOK_DEFAULT_BASE_URL),
    authUrl: httpsUrl().default(TIKTOK_DEFAULT_AUTH_URL),
    shippingProviderId: token("shippingProviderId")
      .optional()
      .describe("TikTok's shipping_provider_id of the carrier a shipment names when shippingProviders has none for it."),
    shippingProviders: z
      .record(z.string().trim().min(1, "a carrier name must not be empty").max(100), token("a shipping provider id"), {
        error: "shippingProviders must be an object of carrier names to TikTok shipping_provider_id values",
      })
      .refine((map) => Object.keys(map).length <= 100, "shippingProviders takes at most 100 carriers")
      .optional()
      .describe('Carrier names as the seller\'s system sends them, each with TikTok\'s shipping_provider_id, e.g. {"UPS": "6617675021119438849"}.'),
    warehouseId: token("warehouseId")
      .optional()
      .describe("The TikTok warehouse whose quantity the hub sets for a SKU stocked in several warehouses (the others keep theirs)."),
    cancelReason: token("cancelReason").default(TIKTOK_DEFAULT_CANCEL_REASON).describe("The cancel_reason of a seller cancellation."),
  })
  .superRefine((settings, ctx) => {
    if (settings.shopCipher === undefined && settings.shopId === undefined) {
      ctx.addIssue({ code: "custom", path: ["shopCipher"], message: "shopCipher or shopId is required (the shop this source reads)" });
    }
  });
export type TiktokSettings = z.output<typeof tiktokSettingsSchema>;
