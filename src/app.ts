// The root app: rules every request meets, then one router per resource, then one error path.
// Order of checks (issue 3): HTTPS, Accept, route, token signature, throttle.
import { HTTPException } from "hono/http-exception";
import { createRouter } from "./app-env";
import { ApiError, storeMoved, storeSwitching } from "./http/errors";
import { failure } from "./http/envelope";
import { unmatched } from "./http/fallbacks";
import { NOT_CONFIGURED, requireSecrets } from "./http/secrets";
import { SettingsKeyError } from "./lib/crypto";
import { acceptJson, httpsOnly, limitBody, limitStreamedBody, MiB } from "./http/transport";
import { authorizationRoutes } from "./auth/authorization.routes";
import { rateLimitHeaders } from "./auth/authorize";
import { ordersRoutes } from "./orders/orders.routes";
import { orderRefundRoutes } from "./orders/order-refund.routes";
import { returnsRoutes } from "./returns/returns.routes";
import { adminRoutes } from "./admin/admin.routes";
import { maintenanceSwitch } from "./maintenance/maintenance";
import { feedsRoutes } from "./feeds/feeds.routes";
import { inventoryRoutes } from "./stock/inventory.routes";
import { docsRoutes } from "./openapi/openapi.routes";
import { consoleRoutes } from "./console/console.routes";
import { limitRefusal } from "./stores/stores.queries";
import type { Context } from "hono";
import type { AppEnv } from "./app-env";

const app = createRouter();

// Before anything else: a deployment whose secrets are missing or weak serves nothing.
app.use("*", requireSecrets);
// Outermost on /v1, so that every answer there, refusals included, carries X-RateLimit-*.
app.use("/v1/*", rateLimitHeaders);
app.use("*", httpsOnly, acceptJson);
app.use("/v1/*", maintenanceSwitch, limitBody(MiB));
app.use("/admin/*", limitStreamedBody(100 * MiB));

app.route("/v1/authorization", authorizationRoutes);
app.route("/v1/:token/orders", ordersRoutes);
app.route("/v1/:token/orders", orderRefundRoutes);
app.route("/v1/:token/returns", returnsRoutes);
app.route("/v1/:token/feeds", feedsRoutes);
app.route("/v1/:token/inventory", inventoryRoutes);
app.route("/admin/v1", adminRoutes);
app.route("/", docsRoutes(app));
// The console reaches data only through the admin API, called in-process through this app.
app.route(
  "/console",
  consoleRoutes((request, env, ctx) => app.fetch(request, env, ctx)),
);

const fallback = unmatched(app);

app.notFound((c) => {
  throw fallback(c.req.path, c.req.method);
});

app.onError(async (error, c) => {
  // A settings key the cipher cannot use is a deployment not configured, never a 500 (the start-up check refuses it first).
  if (error instanceof SettingsKeyError) error = new ApiError(503, NOT_CONFIGURED);
  if (!(error instanceof ApiError)) error = (await limitRefusal(c.env, error, storeOf(c))) ?? (storeMoved(error) ? storeSwitching(2_000) : error);
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return c.json(failure(error.message), error.status);
  }
  if (error instanceof HTTPException && error.status < 500) {
    // Raised by Hono's own validators (e.g. a body that is not JSON).
    const message = error.message === "Malformed JSON in request body" ? "The request body is not valid JSON." : error.message;
    return c.json(failure(message), error.status);
  }
  // A 500 says nothing of its cause to the client; the log keeps it. The route's pattern, not the
  // path: a /v1 path holds the caller's token, and logs travel further than the service.
  console.error("unhandled error", c.req.method, c.req.routePath, error);
  return c.json(failure("Internal server error; try again later."), 500);
});

/** The store a request acts for, when it names one: the caller's, or the admin path's (as sent). */
function storeOf(c: Context<AppEnv>): string | undefined {
  return c.get("caller")?.storeId ?? /^\/admin\/v1\/stores\/([^/]+)/.exec(c.req.path)?.[1];
}

export { app };
