// The OpenAPI document (GET /openapi.json) and its reference page (GET /docs): every route of the
// app is in it, with the envelope, the error statuses, the security schemes and the throttle
// headers; request schemas come from the validators. Its validity against the OpenAPI 3.1 schema
// is checked in Node (test/browser/openapi-schema.test.ts): that validator compiles code, which
// workerd forbids.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { call } from "../helpers/api";

type Operation = {
  parameters?: { in: string; name: string; required?: boolean; schema?: Record<string, unknown> }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }>;
  security?: Record<string, string[]>[];
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, Record<string, unknown>>; headers: Record<string, unknown> };
};

async function getDocument(): Promise<Doc> {
  const res = await call("GET", "/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return JSON.parse(res.text) as Doc;
}

/** Routes that are not the API (written out here, not taken from the code under test). */
const NOT_API = [/^\/admin\/v1\/bench\//, /^\/console(\/|$)/, /^\/docs$/, /^\/openapi\.json$/];

/** Every (method, path) of a Hono app's route table that the document lacks. */
function missingRoutes(routes: { method: string; path: string }[], doc: Doc): string[] {
  const wanted = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || NOT_API.some((r) => r.test(route.path))) continue;
    const path = route.path
      .split("/")
      .map((part) => (part.startsWith(":") ? `{${/^:(\w+)/.exec(part)![1]}}` : part))
      .join("/");
    wanted.add(`${route.method} ${path}`);
  }
  return [...wanted].filter((key) => {
    const [method, path] = key.split(" ") as [string, string];
    return !doc.paths[path]?.[method.toLowerCase()];
  });
}

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document that lists every route of the app", async () => {
    const doc = await getDocument();
    expect(doc.openapi).toBe("3.1.0");
    expect(missingRoutes(app.routes, doc)).toEqual([]);
    const operations = Object.values(doc.paths).flatMap((p) => Object.keys(p));
    // 11 /v1 operations, 30 admin ones, 3 Bearer forms: at least that many, whatever lands later.
    expect(operations.length).toBeGreaterThanOrEqual(44);
  });

  it("the route check fails for a route that has no annotation", async () => {
    const doc = await getDocument();
    const extended = new Hono().route("/", app).get("/admin/v1/stores/:storeId/undocumented", (c) => c.text("x"));
    expect(missingRoutes(extended.routes, doc)).toEqual(["GET /admin/v1/stores/{storeId}/undocumented"]);
  });

  it("every operation answers the envelope, its errors and (on /v1) the throttle headers", async () => {
    const doc = await getDocument();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const where = `${method} ${path}`;
        expect(op.responses["200"], where).toBeDefined();
        expect(op.responses["400"]?.content?.["application/json"]?.schema, where).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
        const throttled = path.startsWith("/v1/") || path.startsWith("/api/v1/");
        for (const status of ["200", "400", "429", "503"]) {
          const headers = Object.keys(op.responses[status]?.headers ?? {});
          if (throttled) expect(headers, `${where} ${status}`).toEqual(expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining"]));
          else expect(headers, `${where} ${status}`).not.toContain("X-RateLimit-Limit");
        }
        if (throttled) {
          expect(Object.keys(op.responses["429"]!.headers!), where).toContain("Retry-After");
          expect(op.responses["401"], where).toBeDefined();
        }
        const json = op.responses["200"]!.content?.["application/json"]?.schema as { properties?: Record<string, unknown>; required?: string[] } | undefined;
        if (json) {
          expect(json.properties?.Success, where).toEqual({ type: "boolean", const: true });
          expect(json.required, where).toEqual(expect.arrayContaining(["Success", "Message"]));
        }
      }
    }
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({
      properties: { Success: { type: "boolean", const: false }, Message: { type: "string" } },
      required: ["Success", "Message"],
    });
  });

  it("documents the token in the path, the Bearer forms and the admin key", async () => {
    const doc = await getDocument();
    expect(doc.components.securitySchemes.AdminKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.AccessToken).toMatchObject({ type: "http", scheme: "bearer" });
    const count = doc.paths["/v1/{token}/orders/count"]!.get!;
    expect(count.parameters!.find((p) => p.name === "token")).toMatchObject({ in: "path", required: true });
    for (const path of ["/api/v1/orders/count", "/api/v1/orders", "/api/v1/feeds/count"]) {
      const op = doc.paths[path]!.get!;
      expect(op.security, path).toEqual([{ AccessToken: [] }]);
      expect(
        op.parameters!.some((p) => p.name === "token"),
        path,
      ).toBe(false);
    }
    expect(doc.paths["/admin/v1/stores"]!.post!.security).toEqual([{ AdminKey: [] }]);
    expect(doc.paths["/v1/authorization"]!.put!.security).toEqual([]);
  });

  it("request schemas are the validators' own", async () => {
    const doc = await getDocument();
    const list = doc.paths["/v1/{token}/orders"]!.get!.parameters!;
    expect(
      list
        .filter((p) => p.in === "query" && p.required)
        .map((p) => p.name)
        .sort(),
    ).toEqual(["fromDate", "toDate"]);
    // Paging is optional with defaults (decisions 3): page 1, pages of 100; a cursor instead of page.
    expect(
      list
        .filter((p) => p.in === "query" && !p.required)
        .map((p) => p.name)
        .sort(),
    ).toEqual(["cursor", "dateField", "fulfillmentStatus", "page", "pageSize", "sortBy", "sortDirection", "status"]);
    const store = doc.paths["/admin/v1/stores"]!.post!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(store.properties.Name).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
    expect(store.required).toEqual(["Name"]);
    const key = doc.paths["/admin/v1/stores/{storeId}/consumer-keys"]!.post!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, { items?: { enum?: string[] }; enum?: string[] }>;
    };
    expect(key.properties.Scopes!.items!.enum).toEqual([
      "FeedsRead",
      "InventoryUpdate",
      "OrdersCreate",
      "OrdersRead",
      "OrdersUpdate",
      "ReturnsRead",
      "ReturnsUpdate",
    ]);
    // Returns and the Refund (decisions 13): the Refund's body names its fields, Reason required.
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith("/v1/{token}/returns"))
        .sort(),
    ).toEqual([
      "/v1/{token}/returns",
      "/v1/{token}/returns/count",
      "/v1/{token}/returns/{returnId}",
      "/v1/{token}/returns/{returnId}/approve",
      "/v1/{token}/returns/{returnId}/receive",
      "/v1/{token}/returns/{returnId}/reject",
    ]);
    const refund = doc.paths["/v1/{token}/orders/{orderId}/refund"]!.put!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(refund.properties).sort()).toEqual(["Items", "Reason", "ReturnId", "ShippingAmount"]);
    expect(refund.required).toEqual(["Reason"]);
    expect(key.properties.Lifespan!.enum).toEqual(["NeverExpires", "7Days", "14Days", "30Days"]);
    // A source's Settings: one variant per Type, from its connector; secrets are write-only.
    const source = doc.paths["/admin/v1/stores/{storeId}/sources"]!.post!.requestBody!.content["application/json"]!.schema as {
      oneOf: { properties: { Type: { const: string } } }[];
    };
    expect(source.oneOf.map((v) => v.properties.Type.const)).toEqual(["simulated", "walmart", "ebay", "shopify", "amazon", "etsy", "mirakl", "tiktok"]);
    for (const [name, secrets] of [
      ["EbaySettings", ["clientId", "clientSecret", "refreshToken"]],
      ["ShopifySettings", ["accessToken"]],
      ["AmazonSettings", ["refreshToken", "clientId", "clientSecret"]],
      ["MiraklSettings", ["apiKey"]],
      ["TiktokSettings", ["appSecret", "refreshToken"]],
    ] as const) {
      const settings = doc.components.schemas[name] as { properties: Record<string, { writeOnly?: boolean }> };
      for (const secret of secrets) expect(settings.properties[secret]!.writeOnly, `${name}.${secret}`).toBe(true);
    }
    const patchSource = doc.paths["/admin/v1/stores/{storeId}/sources/{sourceId}"]!.patch!.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(patchSource.properties).sort()).toEqual(["Enabled", "ImportFrom", "Name", "Settings"]);
    const storeLimits = (store.properties.Limits as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(storeLimits).sort()).toEqual(["ConsumerKeys", "Feeds", "OrderItems", "Orders", "Products", "Sources", "StoredBytes"]);
    expect(Object.keys(doc.paths["/admin/v1/stores/{storeId}/sources/{sourceId}/set-aside"]!)).toEqual(["get"]);
    expect(doc.paths["/admin/v1/stores/{storeId}/sources/{sourceId}/set-aside/retry"]!.post!.requestBody!.required).toBe(false);
    expect(Object.keys(doc.paths["/admin/v1/stores/{storeId}/sources/{sourceId}/set-aside/{orderNumber}"]!)).toEqual(["delete"]);
    const walmart = doc.components.schemas.WalmartSettings as { properties: Record<string, { writeOnly?: boolean }>; required: string[] };
    expect(walmart.properties.clientSecret!.writeOnly).toBe(true);
    expect(walmart.properties.clientId!.writeOnly).toBe(true);
    expect(walmart.properties.baseUrl!.writeOnly).toBeUndefined();
    expect(walmart.required).toEqual(["clientId", "clientSecret"]);
    const simulated = doc.components.schemas.SimulatedSettings as { properties: Record<string, { default?: unknown }> };
    expect(simulated.properties.ordersPerHour!.default).toBe(6);
    // The catalog upload is read as a stream: documented by its annotation, JSON and CSV.
    expect(Object.keys(doc.paths["/admin/v1/stores/{storeId}/products"]!.put!.requestBody!.content)).toEqual(["application/json", "text/csv"]);
  });

  it("the download is a file, with its 206, 304 and 416", async () => {
    const doc = await getDocument();
    const download = doc.paths["/v1/{token}/feeds/{feedId}/download"]!.get!;
    expect(Object.keys(download.responses["200"]!.content!)).toEqual(["text/csv", "text/tab-separated-values"]);
    expect(Object.keys(download.responses)).toEqual(expect.arrayContaining(["206", "304", "416"]));
  });

  it("says what a generated client needs: text files as text, integers as integers, dates as date-times, enums", async () => {
    const doc = await getDocument();
    // Both downloads answer text in their media types: a string, never `format: binary` (bytes).
    for (const path of ["/v1/{token}/feeds/{feedId}/download", "/admin/v1/feeds/{feedId}/download"]) {
      const content = doc.paths[path]!.get!.responses["200"]!.content!;
      for (const type of ["text/csv", "text/tab-separated-values"]) {
        expect(content[type]!.schema.type, `${path} ${type}`).toBe("string");
        expect(content[type]!.schema.format, `${path} ${type}`).toBeUndefined();
      }
    }
    // Every page, pageSize and limit of every operation is an optional integer of 1 or more.
    const counted: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const p of op.parameters ?? []) {
          if (p.in !== "query" || !["page", "pageSize", "limit"].includes(p.name)) continue;
          counted.push(`${method} ${path} ${p.name}`);
          expect(p.schema, `${method} ${path} ${p.name}`).toMatchObject({ type: "integer", minimum: 1 });
          expect(p.required, `${method} ${path} ${p.name}`).toBeUndefined();
        }
      }
    }
    expect(counted).toEqual(
      expect.arrayContaining([
        "get /v1/{token}/orders page",
        "get /v1/{token}/orders pageSize",
        "get /v1/{token}/feeds page",
        "get /v1/{token}/feeds pageSize",
        "get /api/v1/orders pageSize",
        "get /admin/v1/stores/{storeId}/orders page",
        "get /admin/v1/stores/{storeId}/orders pageSize",
        "get /admin/v1/stores/{storeId}/products limit",
        "get /admin/v1/stores/{storeId}/sources/{sourceId}/listings limit",
      ]),
    );
    const orders = doc.paths["/v1/{token}/orders"]!.get!.parameters!;
    // No `default` in the schema: generators that fill defaults in would send page=1 beside a cursor.
    expect(orders.find((p) => p.name === "page")!.schema!.default).toBeUndefined();
    expect(orders.find((p) => p.name === "fromDate")!.schema).toEqual({ type: "string", format: "date-time" });
    expect(orders.find((p) => p.name === "status")!.schema).toEqual({ type: "string", enum: ["NEW", "PROCESSING", "SHIPPED", "CANCELED"] });
    expect(orders.find((p) => p.name === "sortDirection")!.schema).toMatchObject({ type: "string", enum: ["asc", "desc"] });

    // Every property named as an instant (DateX, XDate, XAt) of every schema is a date-time,
    // in answers and in bodies alike; a count is an integer.
    const dates: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        node.forEach((n, i) => walk(n, `${where}[${i}]`));
        return;
      }
      if (!node || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      for (const [name, schema] of Object.entries((o.properties as Record<string, Record<string, unknown>> | undefined) ?? {})) {
        if (/^Date[A-Z]|[a-z]Date$|[a-z]At$/.test(name) && !("$ref" in schema)) {
          dates.push(name);
          const variants = (schema.anyOf as Record<string, unknown>[] | undefined) ?? [schema];
          const text = variants.find((v) => v.type === "string" || (Array.isArray(v.type) && v.type.includes("string")));
          expect(text?.format, `${where}.${name}: ${JSON.stringify(schema)}`).toBe("date-time");
        }
        if (/Count$|^Score$|^Page(Size)?$|^MaxPageSize$/.test(name)) expect(schema.type, `${where}.${name}`).toBe("integer");
      }
      for (const [key, value] of Object.entries(o)) walk(value, `${where}.${key}`);
    };
    walk(doc, "#");
    expect([...new Set(dates)]).toEqual(
      expect.arrayContaining([
        "DateCreatedInOrderSource",
        "DateShipped",
        "DateUpdated",
        "DateLastCompiled",
        "DateLastPulled",
        "TokenExpirationDate",
        "DateGenerated",
        "NextAttemptAt",
        "DateRevoked",
      ]),
    );
  });
});

describe("GET /docs", () => {
  it("is Swagger UI on the document, with its script and styles served by the Worker's assets", async () => {
    const res = await call("GET", "/docs", { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.text).toContain("url: '/openapi.json'");
    expect(res.text).toContain('src="/vendor/swagger-ui-dist/swagger-ui-bundle.js"');
    expect(res.text).toContain('href="/vendor/swagger-ui-dist/swagger-ui.css"');
    // Nothing is loaded from another host.
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});
