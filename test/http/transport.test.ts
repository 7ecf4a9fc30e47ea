// Rules every request meets before (and around) its route: decisions 1.
import { describe, expect, it } from "vitest";
import { admin, call, insert, sampleOrder, storeWithToken } from "../helpers/api";
import { countRows } from "../helpers/db";
import { prng } from "../../src/lib/prng";

const MiB = 1024 * 1024;
const RANGE = "fromDate=2026-01-01&toDate=2026-12-31";

/** encodeURIComponent, except that a lone surrogate is sent as the bytes a hostile client would send (ED A0 80), not dropped. */
const encodeValue = (value: string) => Array.from(value, (ch) => (/^[\ud800-\udfff]$/.test(ch) ? "%ED%A0%80" : encodeURIComponent(ch))).join("");

const sampleOrderNumber = (json: string) => (JSON.parse(json) as { OrderSourceOrderNumber: string }).OrderSourceOrderNumber;

function expectEnvelope(res: { json: { Success: boolean; Message: string } | undefined; headers: Headers }) {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.json?.Success).toBe(false);
  expect(typeof res.json?.Message).toBe("string");
  expect(res.json!.Message.length).toBeGreaterThan(0);
}

describe("HTTPS only", () => {
  it("answers a plain http:// request 403 saying HTTPS is required, without redirecting", async () => {
    for (const path of [
      "http://hub.test/v1/Authorization",
      "http://hub.test/v1/tok/Orders/count",
      "http://hub.test/admin/v1/stores",
      "http://hub.test/nowhere",
    ]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(403);
      expectEnvelope(res);
      expect(res.json.Message).toMatch(/HTTPS/);
      expect(res.headers.get("location")).toBeNull();
    }
  });
});

describe("Accept", () => {
  it.each(["application/xml", "text/html", "text/plain", "image/png"])("refuses Accept %s with 406", async (accept) => {
    const { token } = await storeWithToken();
    const res = await call("GET", `/v1/${token}/Orders/count?${RANGE}`, { headers: { accept } });
    expect(res.status).toBe(406);
    expectEnvelope(res);
    expect(res.json.Message).toMatch(/application\/json/);
  });

  it.each([
    undefined,
    "*/*",
    "application/*",
    "application/json",
    "application/json; charset=utf-8",
    "application/xml, application/json;q=0.5",
    "text/html, */*;q=0.1",
  ])("answers JSON for Accept %s", async (accept) => {
    const { token } = await storeWithToken();
    const res = await call("GET", `/v1/${token}/Orders/count?${RANGE}`, { headers: accept ? { accept } : {} });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ Success: true, Message: "", Count: 0 });
  });

  it("refuses a JSON type whose quality is zero", async () => {
    const res = await call("GET", "/v1/x/Orders/count", { headers: { accept: "application/json;q=0" } });
    expect(res.status).toBe(406);
  });
});

describe("routing fallbacks", () => {
  it("answers an unknown path 404 with the envelope", async () => {
    for (const path of ["/", "/v1", "/v1/tok/nothing-here", "/v2/orders", "/v1/tok/Orders/1/Refunds"]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(404);
      expectEnvelope(res);
    }
  });

  it("answers a known path with the wrong method 405 with an Allow header", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/v1/Authorization", "PUT"],
      ["GET", "/v1/Authorization", "PUT"],
      ["DELETE", "/v1/tok/Orders/count", "GET"],
      ["POST", "/v1/tok/Orders", "GET"],
      ["GET", "/v1/tok/Orders/InsertOrder", "PUT"],
      ["POST", "/v1/tok/Orders/17/UpdateStatus", "PUT"],
      ["GET", "/v1/tok/Orders/17/AcknowledgeOrder", "PUT"],
      ["GET", "/v1/tok/Orders/1/Refund", "PUT"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expectEnvelope(res);
      expect(res.headers.get("allow")?.split(/,\s*/)).toContain(allow);
      expect(res.headers.get("allow")?.split(/,\s*/)).not.toContain(method);
    }
  });

  it("answers any /v0 path 410 Gone", async () => {
    for (const [method, path] of [
      ["GET", "/v0"],
      ["GET", "/v0/tok/Orders"],
      ["PUT", "/v0/Authorization"],
      ["GET", "/V0/anything/at/all"],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, path).toBe(410);
      expectEnvelope(res);
    }
  });
});

describe("body size", () => {
  it("answers a body over 1 MiB 413 with the envelope", async () => {
    const { storeId, token } = await storeWithToken();
    const padding = "x".repeat(MiB);
    const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder({ Street2: padding }) });
    expect(res.status).toBe(413);
    expectEnvelope(res);
    expect(res.json.Message).toMatch(/1 MiB/);
    expect(await countRows("orders", storeId)).toBe(0);
  });

  it("answers a streamed body (no Content-Length) over 1 MiB 413 as well", async () => {
    const { storeId, token } = await storeWithToken();
    const json = JSON.stringify(sampleOrder({ Street2: "y".repeat(MiB + 100) }));
    const bytes = new TextEncoder().encode(json);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
        controller.close();
      },
    });
    const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { raw: stream, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expectEnvelope(res);
    expect(await countRows("orders", storeId)).toBe(0);
  });

  it("accepts a streamed body under the limit", async () => {
    const { token } = await storeWithToken();
    const json = JSON.stringify(sampleOrder());
    const bytes = new TextEncoder().encode(json);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { raw: stream, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ Success: true, Message: "", OrderId: expect.stringMatching(/^[1-9]\d*$/) });
    // The streamed order is stored whole: read back as a client would.
    const stored = await call("GET", `/v1/${token}/Orders/${res.json.OrderId}`);
    expect(stored.status).toBe(200);
    expect((stored.json.Orders as Record<string, unknown>[])[0]).toMatchObject({
      OrderId: res.json.OrderId,
      OrderSourceOrderNumber: sampleOrderNumber(json),
      FirstName: "Jane",
      GrandTotal: 27.5,
      OrderItems: [
        { OrderItemId: expect.stringMatching(/^\d+$/), Sku: "SKU-1", Name: "Blue mug", Quantity: 2, UnitPrice: 12.5, SaleTaxCost: 0, Discount: "0" },
      ],
    });
  });
});

describe("maintenance switch", () => {
  it("makes every /v1 request 503 with Retry-After while admin stays up, and switching off restores service", async () => {
    const { token } = await storeWithToken();
    const on = await admin("PUT", "/maintenance", { Enabled: true, Message: "Back at 02:00 UTC." });
    expect(on.status).toBe(200);
    try {
      for (const [method, path] of [
        ["GET", `/v1/${token}/Orders/count?${RANGE}`],
        ["GET", `/v1/${token}/Orders?${RANGE}&page=1&pageSize=10`],
        ["PUT", "/v1/Authorization"],
        ["GET", "/v1/nothing/here"],
      ] as const) {
        const res = await call(method, path);
        expect(res.status, path).toBe(503);
        expectEnvelope(res);
        expect(res.json.Message).toBe("Back at 02:00 UTC.");
        // MAINTENANCE_RETRY_AFTER_SECONDS (wrangler.toml, README Configuration).
        expect(res.headers.get("retry-after")).toBe("60");
      }
      const stores = await admin("GET", "/stores");
      expect(stores.status).toBe(200);
      const state = await admin("GET", "/maintenance");
      expect(state.json.Maintenance).toEqual({ Enabled: true, Message: "Back at 02:00 UTC." });
    } finally {
      const off = await admin("PUT", "/maintenance", { Enabled: false });
      expect(off.status).toBe(200);
    }
    const res = await call("GET", `/v1/${token}/Orders/count?${RANGE}`);
    expect(res.status).toBe(200);
  });
});

describe("case-insensitive paths and query names", () => {
  it("routes fixed path words in any case, keeping the token's case", async () => {
    const { key, token } = await storeWithToken();
    const auth = await call("PUT", "/v1/authorization", { body: { ConsumerKey: key.Key }, headers: { "cf-connecting-ip": "203.0.113.7" } });
    expect(auth.status).toBe(200);
    const id = await insert(token, { DateCreatedInOrderSource: "2026-03-01T10:00:00Z" });
    for (const path of [`/V1/${token}/ORDERS/Count?${RANGE}`, `/v1/${token}/orders/count?${RANGE}`, `/v1/${token}/oRdErS/cOuNt?${RANGE}`]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.json.Count).toBe(1);
    }
    const one = await call("GET", `/V1/${token}/orders/${id}`);
    expect(one.status).toBe(200);
    // The token itself is case-sensitive: changing its case breaks its signature.
    const swapped = token.replace(/[a-z]/, (ch) => ch.toUpperCase());
    const bad = await call("GET", `/v1/${swapped}/Orders/count?${RANGE}`, { headers: { "cf-connecting-ip": "203.0.113.8" } });
    expect(bad.status).toBe(401);
  });

  it("reads query names in any case and status values in any case", async () => {
    const { token } = await storeWithToken();
    await insert(token, { DateCreatedInOrderSource: "2026-03-01T10:00:00Z" });
    await insert(token, { DateCreatedInOrderSource: "2026-03-02T10:00:00Z", OrderStatus: "Shipped" });
    const count = await call("GET", `/v1/${token}/Orders/count?FromDate=2026-01-01&TODATE=2026-12-31&Status=new`);
    expect(count.status).toBe(200);
    expect(count.json.Count).toBe(1);
    const shipped = await call("GET", `/v1/${token}/Orders/count?fromdate=2026-01-01&todate=2026-12-31&STATUS=Shipped`);
    expect(shipped.json.Count).toBe(1);
    const list = await call(
      "GET",
      `/v1/${token}/Orders?FROMDATE=2026-01-01&ToDate=2026-12-31&PAGE=1&PAGESIZE=1&SortBy=DateCreatedInOrderSource&SORTDIRECTION=DESC`,
    );
    expect(list.status).toBe(200);
    expect(list.json.Paging).toEqual({ Page: 1, PageSize: 1, MaxPageSize: 100, NextCursor: expect.stringMatching(/^[\w-]+\.[\w-]+$/) });
    expect(list.json.Sorting).toEqual({ SortBy: "DateCreatedInOrderSource", SortDirection: "desc" });
    expect((list.json.Orders as { OrderStatus: string }[])[0]!.OrderStatus).toBe("Shipped");
  });
});

describe("/api/v1 forms with a Bearer token", () => {
  // /api/v1/feeds/count arrives with the feeds issue; it is tested there.
  it("serves /api/v1/orders/count and /api/v1/orders with Authorization: Bearer <token>", async () => {
    const { token } = await storeWithToken();
    await insert(token, { DateCreatedInOrderSource: "2026-03-01T10:00:00Z" });
    const count = await call("GET", `/api/v1/orders/count?${RANGE}`, { headers: { authorization: `Bearer ${token}` } });
    expect(count.status).toBe(200);
    expect(count.json.Count).toBe(1);
    const list = await call("GET", `/API/V1/Orders?${RANGE}&page=1&pageSize=5`, { headers: { authorization: `bearer ${token}` } });
    expect(list.status).toBe(200);
    expect((list.json.Orders as unknown[]).length).toBe(1);
  });

  it("answers 401 when the Bearer header is missing or garbled", async () => {
    for (const headers of [{}, { authorization: "Bearer" }, { authorization: "Basic abc" }, { authorization: "Bearer not/a/token" }] as Record<
      string,
      string
    >[]) {
      const res = await call("GET", `/api/v1/orders/count?${RANGE}`, { headers: { ...headers, "cf-connecting-ip": "203.0.113.9" } });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expectEnvelope(res);
    }
  });
});

describe("request bodies", () => {
  it("answers malformed JSON 400", async () => {
    const { storeId, token } = await storeWithToken();
    for (const raw of ["{", '{"BuyerEmailAddress": }', "not json", "{'a': 1}"]) {
      const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(400);
      expectEnvelope(res);
      expect(res.json.Message).toMatch(/JSON/);
    }
    expect(await countRows("orders", storeId)).toBe(0);
  });

  it("answers a body without a JSON Content-Type 400", async () => {
    const { storeId, token } = await storeWithToken();
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, {
        raw: JSON.stringify(sampleOrder()),
        headers: { "content-type": contentType },
      });
      expect(res.status, contentType).toBe(400);
      expect(res.json.Message).toMatch(/Content-Type: application\/json/);
    }
    const none = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { raw: JSON.stringify(sampleOrder()) });
    expect(none.status).toBe(400);
    expect(await countRows("orders", storeId)).toBe(0);
  });

  it("answers a JSON body that is not an object 400", async () => {
    const { token } = await storeWithToken();
    for (const raw of ["null", "[]", "42", '"text"']) {
      const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(400);
      expect(res.json.Message).toMatch(/JSON object/);
    }
  });

  it("stores hostile strings and returns them verbatim as JSON", async () => {
    const { storeId, token } = await storeWithToken();
    const hostile = {
      FirstName: "<script>alert('x')</script>",
      LastName: "'; DROP TABLE orders;--",
      Street1: 'Robert"); DELETE FROM order_items; --',
      Street2: "nul\u0000inside",
      City: "Zürich 🦄 \u202Eevil\u202C",
      StateOrProvince: "\u05E9\u05DC\u05D5\u05DD",
      ShipToCompanyName: "{{7*7}} ${7*7} %s%n",
    };
    const id = await insert(token, { ...hostile, OrderItems: [{ Sku: "<b>SKU</b>", Name: '\\"quoted\\"', Quantity: 1, UnitPrice: 1 }] });
    const res = await call("GET", `/v1/${token}/Orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const order = (res.json.Orders as Record<string, unknown>[])[0]!;
    for (const [field, value] of Object.entries(hostile)) expect(order[field], field).toBe(value);
    expect((order.OrderItems as { Sku: string; Name: string }[])[0]).toMatchObject({ Sku: "<b>SKU</b>", Name: '\\"quoted\\"' });
    // The SQL-looking text was data: the store holds exactly this order and its one item, and
    // the list still reads it.
    expect(await countRows("orders", storeId)).toBe(1);
    expect(await countRows("order_items", storeId)).toBe(1);
    const listed = await call("GET", `/v1/${token}/Orders?fromDate=2026-01-01&toDate=2026-12-31&page=1&pageSize=10`);
    expect((listed.json.Orders as { OrderId: string; LastName: string }[]).map((o) => [o.OrderId, o.LastName])).toEqual([[id, "'; DROP TABLE orders;--"]]);
  });
});

describe("no input produces a 500", () => {
  it("answers a few hundred random requests with a status under 500 and a JSON envelope", async () => {
    const { token } = await storeWithToken();
    const existing = await insert(token);
    const random = prng(20261122);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const weird = [
      "",
      " ",
      "%00",
      "%E0%A4%A",
      "%ZZ",
      "..",
      ".",
      "😀",
      "\u202E",
      "a".repeat(3000),
      "-1",
      "0",
      "1e309",
      "9".repeat(30),
      "NaN",
      "null",
      "%2F",
      "count",
      "UpdateStatus",
    ];
    const segments = [
      "v1",
      "V1",
      "v0",
      "api",
      "admin",
      "orders",
      "Orders",
      "count",
      "insertorder",
      "updatestatus",
      "acknowledgeorder",
      "authorization",
      "feeds",
      token,
      existing,
      "ck_x.1.0.abc",
      ...weird,
    ];
    const values = (): unknown => {
      const r = random();
      if (r < 0.15) return pick(weird);
      if (r < 0.25) return Math.floor(random() * 2e9) - 1e9;
      if (r < 0.3) return random() * 1e20;
      if (r < 0.35) return null;
      if (r < 0.4) return random() < 0.5;
      if (r < 0.45) return [values(), values()];
      if (r < 0.5) return { Sku: values(), Quantity: values() };
      if (r < 0.55) return "\ud800";
      if (r < 0.6) return "2025-02-30";
      return random().toString(36).slice(2);
    };
    const bodies = (): string | undefined => {
      const r = random();
      if (r < 0.1) return undefined;
      if (r < 0.2) return pick(["{", "[", "nul", '"', "{}", "[]", "0", '{"a":', "\u0000"]);
      const order: Record<string, unknown> = sampleOrder();
      for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
        const field = pick([...Object.keys(order), "OrderId", "OrderStatus", "DateShipped", "ConsumerKey", "Enabled", "Name", "Scopes", "Lifespan"]);
        if (random() < 0.3) delete order[field];
        else order[field] = values();
      }
      if (random() < 0.3) order.OrderItems = [{ Sku: values(), Name: values(), Quantity: values(), UnitPrice: values(), Discount: values() }];
      return JSON.stringify(order);
    };
    const queries = () => {
      const params: string[] = [];
      for (const name of [
        "fromDate",
        "toDate",
        "status",
        "page",
        "pageSize",
        "sortBy",
        "sortDirection",
        "dateField",
        "orderDestinationOrderNumber",
        "FROMDATE",
      ]) {
        if (random() < 0.5) params.push(`${name}=${encodeValue(String(values()))}`);
      }
      if (random() < 0.1) params.push(pick(["%", "&&", "=", "a=%E0%A4%A", "fromDate"]));
      return params.join("&");
    };
    const failures: string[] = [];
    let sent = 0;
    for (let i = 0; i < 300; i++) {
      const depth = 1 + Math.floor(random() * 5);
      const path = `/${Array.from({ length: depth }, () => pick(segments)).join("/")}`;
      const method = pick(["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"]);
      const body = method === "GET" || method === "HEAD" ? undefined : bodies();
      const headers: Record<string, string> = { "cf-connecting-ip": `192.0.2.${i % 250}` };
      if (body !== undefined) headers["content-type"] = pick(["application/json", "application/json; charset=utf-8", "text/plain"]);
      if (random() < 0.3) headers.authorization = pick([`Bearer ${token}`, "Bearer test-admin-key-0123456789abcdef-0123", "Bearer nope", "garbage"]);
      if (random() < 0.1) headers.accept = pick(["application/json", "*/*", "text/html", ""]);
      // Every generated path and query is a URL the parser accepts (it percent-encodes what it
      // must), so every one of the 300 requests is sent.
      const url = new URL(`https://hub.test${path}?${queries()}`).href;
      const res = await call(method, url, { raw: body, headers });
      sent += 1;
      if (res.status >= 500) failures.push(`${method} ${url} ${body?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`);
      else if (method !== "HEAD" && !(typeof res.json?.Success === "boolean" && typeof res.json?.Message === "string")) {
        failures.push(`${method} ${url} -> ${res.status} not an envelope: ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBe(300);
  });
});
