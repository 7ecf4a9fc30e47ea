// GET /openapi.json (the document, built once per isolate) and GET /docs (Swagger UI rendering
// it; its script and styles are served from the Worker's static assets, never a CDN).
import type { Hono } from "hono";
import { swaggerUI } from "@hono/swagger-ui";
import { createRouter, type AppEnv } from "../app-env";
import { buildDocument } from "./openapi.document";

export function docsRoutes(app: Hono<AppEnv>) {
  let document: ReturnType<typeof buildDocument> | null = null;
  return createRouter()
    .get("/openapi.json", async (c) => {
      document ??= buildDocument(app).catch((error) => {
        document = null;
        throw error;
      });
      return c.json(await document);
    })
    .get("/docs", swaggerUI({ url: "/openapi.json", baseUrl: "/vendor", title: "Order and feed hub API" }));
}
