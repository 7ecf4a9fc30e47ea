// A Shopify source's Settings: the admin API validates them before a source is stored, and the
// connector reads them with connectorSettings(). The access token is a custom app's.
import { z } from "zod";
import { httpsUrl } from "../kit/settings";
import { SHOPIFY_CANCEL_REASONS } from "./shopify.types";

export const SHOPIFY_DEFAULT_API_VERSION = "2026-01";

export const shopifySettingsSchema = z.strictObject({
  shopDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,99}\.myshopify\.com$/, "must be the shop's permanent domain, <shop>.myshopify.com"),
  // An Admin API access token of a custom app (shown once when the app is installed).
  accessToken: z
    .string()
    .trim()
    .min(1, "is required: the Admin API access token of the shop's custom app")
    .max(200, "is at most 200 characters")
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces"),
  // The queries below are written against 2026-01; a later version may be set once it is tested.
  apiVersion: z
    .string()
    .regex(/^\d{4}-(01|04|07|10)$/, "must be a Shopify API version such as 2026-01 (YYYY-01, -04, -07 or -10)")
    .default(SHOPIFY_DEFAULT_API_VERSION),
  // Where to send calls instead of https://<shopDomain> (a test double); https only, since the
  // access token rides in every call.
  baseUrl: httpsUrl().optional(),
  /** Shopify emails the buyer on a fulfillment or tracking change. Off: the seller's system usually does. */
  notifyCustomer: z.boolean().default(false),
  /** OrderCancelReason sent with every cancellation (the service's own reason goes in the staff note). */
  cancelReason: z.enum(SHOPIFY_CANCEL_REASONS).default("OTHER"),
  /** Refund the buyer's payment to its original methods on cancellation. */
  cancelRefund: z.boolean().default(false),
  /** Put the cancelled units back in stock. */
  cancelRestock: z.boolean().default(false),
  /** Shopify emails the buyer when the order is cancelled. */
  cancelNotifyCustomer: z.boolean().default(false),
  /** The location (gid://shopify/Location/...) whose stock this source sets; needed when the shop has several. */
  locationId: z
    .string()
    .regex(/^gid:\/\/shopify\/Location\/\d+$/, "must be a location id such as gid://shopify/Location/123")
    .optional(),
});
export type ShopifySettings = z.output<typeof shopifySettingsSchema>;
