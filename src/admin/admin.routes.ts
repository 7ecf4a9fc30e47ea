// /admin/v1/...: every operator route, behind one credential check.
import { createRouter } from "../app-env";
import { adminOnly } from "./admin-auth";
import { maintenanceRoutes } from "../maintenance/maintenance.routes";
import { storesRoutes } from "../stores/stores.routes";
import { storeDeletionRoutes } from "./store-deletion.routes";
import { sourcesRoutes } from "../sources/sources.routes";
import { syncRoutes } from "../sync/sync.routes";
import { feedsAdminRoutes } from "../feeds/feeds.admin.routes";
import { ordersAdminRoutes } from "../orders/orders.admin.routes";
import { orderRefundAdminRoutes } from "../orders/order-refund.routes";
import { returnsAdminRoutes } from "../returns/returns.admin.routes";
import { listingsRoutes } from "../sources/listings.routes";
import { overviewRoutes } from "../overview/overview.routes";
import { webhooksRoutes } from "../webhooks/webhooks.routes";
import { shardsRoutes } from "../store-moves/shards.routes";

export const adminRoutes = createRouter()
  .use("*", adminOnly)
  .route("/", storesRoutes)
  .route("/", storeDeletionRoutes)
  .route("/", maintenanceRoutes)
  .route("/", sourcesRoutes)
  .route("/", syncRoutes)
  .route("/", feedsAdminRoutes)
  .route("/", ordersAdminRoutes)
  .route("/", orderRefundAdminRoutes)
  .route("/", returnsAdminRoutes)
  .route("/", listingsRoutes)
  .route("/", overviewRoutes)
  .route("/", webhooksRoutes)
  .route("/", shardsRoutes);
