// What the console reads from the admin API, typed by the very zod schemas the OpenAPI document
// shows (each owned by its resource's module): a page can no longer expect a field the API does
// not answer. Types only: the console never parses an answer a second way.
import type { z } from "zod";
import type { keyAnswer, storeAnswer } from "../stores/stores.schemas";
import type { moveAnswer, shardAnswer } from "../store-moves/shards.schemas";
import type { maintenanceAnswer } from "../maintenance/maintenance.schemas";
import type { importSummary } from "../feeds/catalog";
import type { adminProduct } from "../products/product-fields";
import type { productListAnswer } from "../feeds/feeds.schemas";
import type { adminFeed, compileProgressAnswer } from "../feeds/feeds.wire";
import type { orderDelivery, wireOrder } from "../orders/orders.wire";
import type { returnDelivery, wireReturn } from "../returns/returns.wire";
import type { hubOverview, storeOverview } from "../overview/overview.schemas";
import type { listingsAnswer } from "../sources/listings.schemas";
import type { deliveryAnswer as webhookDeliveryAnswer, webhookAnswer, webhookWithSecret } from "../webhooks/webhooks.schemas";
import type { deliveryAnswer, retrySetAsideAnswer, setAsideAnswer, sourceAnswer } from "../sources/sources.schemas";

export type Store = z.infer<typeof storeAnswer>;
export type ShardView = z.infer<typeof shardAnswer>;
export type StoreMove = z.infer<typeof moveAnswer>;
export type ConsumerKey = z.infer<typeof keyAnswer>;
export type NewConsumerKey = ConsumerKey & { Key: string };
export type Maintenance = z.infer<typeof maintenanceAnswer>["Maintenance"];
export type Source = z.infer<typeof sourceAnswer>;
export type Cycle = Source["Status"]["RecentCycles"][number];
export type Delivery = z.infer<typeof deliveryAnswer>;
export type SetAsideOrder = z.infer<typeof setAsideAnswer>;
export type SetAsideRetry = z.infer<typeof retrySetAsideAnswer>;
export type Order = z.infer<typeof wireOrder>;
export type OrderDelivery = z.infer<typeof orderDelivery>;
export type Return = z.infer<typeof wireReturn>;
export type ReturnDelivery = z.infer<typeof returnDelivery>;
export type Feed = z.infer<typeof adminFeed>;
export type CompileProgress = z.infer<typeof compileProgressAnswer>;
export type ImportSummary = z.infer<typeof importSummary>;
export type Product = z.infer<typeof adminProduct>;
export type ProductPage = z.infer<z.ZodObject<typeof productListAnswer>>;
export type HubOverview = z.infer<typeof hubOverview>;
export type StoreOverview = z.infer<typeof storeOverview>;
export type AttentionItem = HubOverview["Attention"][number];
export type Listings = z.infer<typeof listingsAnswer>;
export type Listing = Listings["Listings"][number];
export type Webhook = z.infer<typeof webhookAnswer>;
export type NewWebhook = z.infer<typeof webhookWithSecret>;
export type WebhookDelivery = z.infer<typeof webhookDeliveryAnswer>;
