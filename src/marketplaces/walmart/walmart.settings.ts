// A Walmart source's Settings: the admin API validates them before a source is stored, and the
// connector reads them with connectorSettings().
import { z } from "zod";
import { httpsUrl } from "../kit/settings";
import { WALMART_CANCELLATION_REASONS } from "./walmart.types";

export const WALMART_DEFAULT_BASE_URL = "https://marketplace.walmartapis.com";

export const walmartSettingsSchema = z.strictObject({
  clientId: z.string().trim().min(1, "clientId is required"),
  clientSecret: z.string().min(1, "clientSecret is required"),
  // https only: the client secret travels with every token request.
  baseUrl: httpsUrl().default(WALMART_DEFAULT_BASE_URL),
  serviceName: z.string().trim().min(1).default("Walmart Marketplace"),
  // The cancel call needs a reason and Connector.cancel carries none. Walmart's description says
  // CUSTOMER_REQUESTED_SELLER_TO_CANCEL is only for orders the customer asked to cancel, which
  // the service cannot tell, so a seller-side reason is the default.
  cancellationReason: z.enum(WALMART_CANCELLATION_REASONS).default("SELLER_CANCEL_OUT_OF_STOCK"),
});
export type WalmartSettings = z.output<typeof walmartSettingsSchema>;
