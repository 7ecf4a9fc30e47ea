// /admin/v1/...: every operator route, behind one credential check.
import { createRouter } from "../http/create-router";
import { adminOnly } from "./admin-auth";
import { maintenanceRoutes } from "./maintenance.routes";
import { storesRoutes } from "./stores.routes";
import { sourcesRoutes } from "../sync/sources.routes";
import { syncRoutes } from "../sync/sync.routes";
import { feedsAdminRoutes } from "../feeds/feeds.admin.routes";
import { ordersAdminRoutes } from "../orders/orders.admin.routes";
import { webhooksRoutes } from "../webhooks/webhooks.routes";

export const adminRoutes = createRouter()
  .use("*", adminOnly)
  .route("/", storesRoutes)
  .route("/", maintenanceRoutes)
  .route("/", sourcesRoutes)
  .route("/", syncRoutes)
  .route("/", feedsAdminRoutes)
  .route("/", ordersAdminRoutes)
  .route("/", webhooksRoutes);
