// A valid-token fuzz of every /v1 route: order count, list and get, InsertOrder,
// AcknowledgeOrder, UpdateStatus, feed count, list, get and download. The other fuzz files build
// paths from random segments and almost never reach a handler with a valid token; here every
// request is a well-formed route with a genuine token (sometimes one lacking the route's scope)
// and mutated queries, bodies and headers, from the seeded generator of helpers/fuzz.ts.
//
// The test does not accept "any 4xx". It keeps its own model of the store (its orders, their
// states, what each should have queued for the marketplace, its feeds) and an oracle that
// computes, from the documents' rules alone (../shared/spec/order-feed-api.md, decisions.md and
// docs/behaviour.md), the status each request must get, the
// field its Message must name, and for a 200 what the answer holds (counts, pages, sort order, the
// order's state). Where the documents do not rank two rules the oracle follows the order in which
// a request meets them in the README: Accept (406), then body size (413), before the token; the
// scope (401) before the request is validated (400); validation before the order or feed is
// looked up (404); the lookup before the order's state (400).
//
// After every request the whole database is read through D1 directly: a refused request, a read,
// and a repeated move that the documents say "changes nothing" must leave it exactly as it was; a
// move that changes the order must queue exactly the outbox rows the model expects.
//
// Left out on purpose: values the documents give no rule for (negative money, text
// lengths, a parameter given twice) are not generated, so the oracle never has to guess.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, insert, storeWithToken, tokenFor } from "../helpers/api";
import { insertSource } from "../helpers/db";
import { d1, DATABASES, everywhere, storeD1 } from "../helpers/shards";
import { fuzzer, toJson, type Fuzzer } from "../helpers/fuzz";
import { compile, createFeed, product, putProducts } from "../feeds/feeds-helpers";

const DENIED = "Authorization has been denied for this request.";
const REQUESTS = 700;

type Status = "New" | "Processing" | "Shipped" | "Canceled";
type Route = "count" | "list" | "get" | "insert" | "ack" | "status" | "feedCount" | "feedList" | "feedGet" | "download";
type Scope = "OrdersRead" | "OrdersCreate" | "OrdersUpdate" | "FeedsRead";

const SCOPE_OF: Record<Route, Scope> = {
  count: "OrdersRead",
  list: "OrdersRead",
  get: "OrdersRead",
  insert: "OrdersCreate",
  ack: "OrdersUpdate",
  status: "OrdersUpdate",
  feedCount: "FeedsRead",
  feedList: "FeedsRead",
  feedGet: "FeedsRead",
  download: "FeedsRead",
};

/** What each route can answer by the documents; the fuzz must meet every one of them. */
const MUST_SEE: Record<Route, number[]> = {
  count: [200, 400, 401],
  list: [200, 400, 401],
  get: [200, 404, 401],
  insert: [200, 400, 401, 413],
  ack: [200, 400, 404, 401],
  status: [200, 400, 404, 401],
  feedCount: [200],
  feedList: [200, 400],
  feedGet: [200, 404],
  download: [200, 206, 304, 404, 406, 416],
};

interface ModelOrder {
  id: string;
  source: string;
  number: string;
  created: number;
  grandTotal: number;
  status: Status;
  seller: string | null;
  tracking: string | null;
  /** ms, null (never set), or "now": stamped by the service with its own clock. */
  shipped: number | null | "now";
  carrier: string;
  /** Claimed by the store's marketplace source (OrderSource equals its Name): moves are queued. */
  claimed: boolean;
  queued: string[];
}

/**
 * What a move queues: no cycle runs here, so every row is pending, and a new row replaces the
 * pending one of the same kind (issue 20: corrections do not pile up), landing last.
 */
function queue(order: { queued: string[] }, kind: string): void {
  order.queued = order.queued.filter((k) => k !== kind);
  order.queued.push(kind);
}

interface ModelFeed {
  id: string;
  name: string;
}

/** What the oracle says a request must get. */
interface Expected {
  status: number;
  /** A Message must name one of these fields as 'field' (a 400 of validation). */
  fields?: string[];
  /** Or match this. */
  message?: RegExp | string;
  /** Checks of a 200 answer. */
  check?: (res: Answer) => void;
  /** Applied to the model when the request succeeded as expected. */
  apply?: () => void;
  /** The database may change (a move the model says changes the order, an insert). */
  writes?: boolean;
  /** The order whose outbox the model then compares. */
  orderId?: string;
}

type Answer = Awaited<ReturnType<typeof call>>;

interface Sent {
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Values and their labels, from the documents.

const utc = (s: string) => Date.parse(s);

/** ISO 8601 dates and date-times (decisions 2, docs/behaviour.md), as sent in a URL, with the instant each means. */
const VALID_DATES: { text: string; ms: number }[] = [
  { text: "2026-01-01", ms: utc("2026-01-01T00:00:00Z") },
  { text: "2026-02-28", ms: utc("2026-02-28T00:00:00Z") },
  { text: "2026-03-01", ms: utc("2026-03-01T00:00:00Z") },
  { text: "2026-03-02T00:00:00Z", ms: utc("2026-03-02T00:00:00Z") },
  { text: "2026-03-01T10:15:00Z", ms: utc("2026-03-01T10:15:00Z") },
  { text: "2026-03-01T10:15:00.000Z", ms: utc("2026-03-01T10:15:00Z") },
  // An offset, encoded; and typed into the URL as is, where "+" arrives as a space (docs/behaviour.md).
  { text: "2026-03-01T12:15:00%2B02:00", ms: utc("2026-03-01T10:15:00Z") },
  { text: "2026-03-01T12:15:00+02:00", ms: utc("2026-03-01T10:15:00Z") },
  { text: "2026-03-01T05:15:00-05:00", ms: utc("2026-03-01T10:15:00Z") },
  // No zone: UTC (docs/behaviour.md).
  { text: "2026-03-03T08:00:00", ms: utc("2026-03-03T08:00:00Z") },
  { text: "2026-03-05T23:59:59.999Z", ms: utc("2026-03-05T23:59:59.999Z") },
  { text: "2026-03-08", ms: utc("2026-03-08T00:00:00Z") },
  { text: "2026-12-31", ms: utc("2026-12-31T00:00:00Z") },
  { text: "2024-02-29", ms: utc("2024-02-29T00:00:00Z") },
];
/** Not ISO 8601, or impossible (decisions 2: 400 naming the parameter). */
const INVALID_DATES = ["yesterday", "2025-02-30", "2026-13-01", "", "1767225600000", "2026%2F03%2F01", "2023-02-29", "2026-03-01T25:00:00Z", "01-03-2026"];

/** Order status filter values (decisions 3: any case, CANCELLED a synonym). */
const STATUS_FILTERS: [string, Status][] = [
  ["NEW", "New"],
  ["new", "New"],
  ["Processing", "Processing"],
  ["SHIPPED", "Shipped"],
  ["CANCELED", "Canceled"],
  ["cancelled", "Canceled"],
];
const SORT_FIELDS = ["DateCreatedInOrderSource", "OrderId", "GrandTotal", "OrderStatus"] as const;
type SortField = (typeof SORT_FIELDS)[number];

/** page and pageSize (decisions 3): 1 or more; zero, negative or not an integer is 400; missing is page 1, pages of 100. */
const BAD_NUMBERS = ["0", "-1", "1.5", "abc", "", "1e3"];

/** A query parameter: its canonical name, the value as sent, and whether it is allowed. */
interface Param {
  name: string;
  value: string | undefined;
  valid: boolean;
}

/** Query names are case-insensitive (decisions 1): send them in any case. */
function spell(f: Fuzzer, name: string): string {
  return f.pick([name, name, name.toLowerCase(), name.toUpperCase()]);
}

function queryOf(f: Fuzzer, params: Param[]): string {
  const parts = params.filter((p) => p.value !== undefined).map((p) => `${spell(f, p.name)}=${p.value}`);
  // An unknown parameter (a client's cache-buster) is ignored.
  if (f.chance(0.1)) parts.push(`_=${f.int(1e6)}`);
  for (let i = parts.length - 1; i > 0; i--) {
    const j = f.int(i + 1);
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  return parts.join("&");
}

/** A required date parameter: valid, invalid or missing. */
function dateParam(f: Fuzzer, name: string): Param & { ms?: number } {
  const r = f.random();
  if (r < 0.86) {
    const d = f.pick(VALID_DATES);
    return { name, value: d.text, valid: true, ms: d.ms };
  }
  if (r < 0.95) return { name, value: f.pick(INVALID_DATES), valid: false };
  return { name, value: undefined, valid: false };
}

function pagingParams(f: Fuzzer): { params: Param[]; page: number; pageSize: number } {
  const page = f.pick(["1", "1", "1", "1", "2", "3"]);
  const size = f.pick(["1", "2", "5", "10", "100", "101", "1000"]);
  const params: Param[] = [];
  let pageValue = { name: "page", value: page as string | undefined, valid: true };
  let sizeValue = { name: "pageSize", value: size as string | undefined, valid: true };
  if (f.chance(0.07)) pageValue = f.chance(0.8) ? { name: "page", value: f.pick(BAD_NUMBERS), valid: false } : { name: "page", value: undefined, valid: true };
  if (f.chance(0.07))
    sizeValue = f.chance(0.8) ? { name: "pageSize", value: f.pick(BAD_NUMBERS), valid: false } : { name: "pageSize", value: undefined, valid: true };
  params.push(pageValue, sizeValue);
  return { params, page: pageValue.value === undefined ? 1 : Number(page), pageSize: sizeValue.value === undefined ? 100 : Math.min(Number(size), 100) };
}

// ---------------------------------------------------------------------------------------------
// The database, read directly.

async function tables(): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name <> 'd1_migrations' order by name",
  ).all<{ name: string }>();
  return results.map((r) => r.name);
}

/** Every row of every table of every database (one schema in all). A download's DateLastPulled is written after the answer (waitUntil), so it is left out. */
async function snapshot(names: string[]): Promise<string> {
  const perDatabase = await Promise.all(
    DATABASES.map((database) => d1(database).batch(names.map((name) => d1(database).prepare(`select * from "${name}" order by rowid`)))),
  );
  return JSON.stringify(
    perDatabase.map((results, d) => [
      DATABASES[d],
      results.map((r, i) => [
        names[i],
        (r.results as Record<string, unknown>[]).map((row) => (names[i] === "feeds" ? { ...row, date_last_pulled: undefined } : row)),
      ]),
    ]),
  );
}

async function outboxKinds(orderId: string): Promise<string[]> {
  const rows = await everywhere<{ id: number; kind: string }>("select id, kind from outbox where order_id = ?", Number(orderId));
  return rows.sort((a, b) => a.id - b.id).map((r) => r.kind);
}

// ---------------------------------------------------------------------------------------------

describe("fuzz: every /v1 route with a valid token", () => {
  it(`answers ${REQUESTS} mutated requests with the status, Message and content the rules give, and changes nothing it refuses`, {
    timeout: 240_000,
  }, async () => {
    const f = fuzzer(20261201);

    // The store under test, with a marketplace source named "Mall" (orders inserted with that
    // OrderSource are claimed by it and their moves are queued), and tokens of several scopes.
    const main = await storeWithToken();
    await insertSource(main.storeId, "Mall");
    const tokens: { token: string; scopes: Scope[] }[] = [{ token: main.token, scopes: ["OrdersRead", "OrdersCreate", "OrdersUpdate", "FeedsRead"] }];
    for (const scopes of [["OrdersRead"], ["OrdersRead", "OrdersCreate", "OrdersUpdate"], ["FeedsRead"]] as Scope[][]) {
      tokens.push({ token: await tokenFor((await createKey(main.storeId, { scopes })).Key), scopes });
    }

    const orders: ModelOrder[] = [];
    const seed = async (spec: Omit<Partial<ModelOrder>, "created"> & { source: string; created: string }, body: Record<string, unknown> = {}) => {
      const number = `SEED-${orders.length + 1}`;
      const id = await insert(main.token, {
        OrderSource: spec.source,
        OrderSourceOrderNumber: number,
        DateCreatedInOrderSource: spec.created,
        GrandTotal: spec.grandTotal ?? 27.5,
        ...body,
      });
      orders.push({
        id,
        source: spec.source,
        number,
        created: utc(spec.created),
        grandTotal: spec.grandTotal ?? 27.5,
        status: spec.status ?? "New",
        seller: spec.seller ?? null,
        tracking: spec.tracking ?? null,
        shipped: spec.shipped ?? null,
        carrier: spec.carrier ?? "",
        claimed: spec.source === "Mall",
        queued: [],
      });
    };
    await seed({ source: "Web", created: "2026-03-01T10:15:00Z", grandTotal: 10 });
    await seed({ source: "Mall", created: "2026-03-01T10:15:00Z", grandTotal: 10 });
    await seed(
      { source: "Mall", created: "2026-02-27T08:00:00Z", status: "Processing", seller: "ERP-0", grandTotal: 99.5 },
      { OrderStatus: "Processing", OrderDestinationOrderNumber: "ERP-0" },
    );
    await seed(
      {
        source: "Mall",
        created: "2026-03-03T08:00:00Z",
        status: "Shipped",
        tracking: "1Z-0",
        shipped: utc("2026-03-04T00:00:00Z"),
        carrier: "UPS",
        grandTotal: 5,
      },
      { OrderStatus: "Shipped", ShipmentTrackingNumber: "1Z-0", DateShipped: "2026-03-04T00:00:00Z", DestinationShippingCarrier: "UPS" },
    );
    await seed({ source: "Web", created: "2026-03-05T23:59:59.999Z", status: "Canceled", grandTotal: 12 }, { OrderStatus: "Canceled" });
    await seed({ source: "Mall", created: "2026-03-02T00:00:00Z", grandTotal: 0 });
    await seed({ source: "Web", created: "2026-01-01T00:00:00Z", grandTotal: 42 });
    await seed({ source: "Mall", created: "2026-03-08T00:00:00Z", grandTotal: 30 });

    // Another store: its order and feed ids must be as absent as unknown ones.
    const other = await storeWithToken();
    const otherOrders = [await insert(other.token, { DateCreatedInOrderSource: "2026-03-01T10:15:00Z" }), await insert(other.token)];

    const feeds: ModelFeed[] = [];
    await putProducts(main.storeId, [product("F-1"), product("F-2"), product("F-3")]);
    for (const name of ["Google US", "google DE", "Bing Émile", "Éclair GOOGLE", "100% cotton_feed"]) {
      feeds.push({ id: (await createFeed(main.storeId, { Name: name })).FeedId, name });
    }
    const compiled = feeds[0]!;
    expect((await compile(compiled.id)).Status).toBe("Completed");
    const otherFeed = (await createFeed(other.storeId, { Name: "Google other store" })).FeedId;
    const file = await call("GET", `/v1/${main.token}/feeds/${compiled.id}/download`);
    expect(file.status).toBe(200);
    const fileText = file.text;
    const fileSize = new TextEncoder().encode(fileText).length;
    const etag = file.headers.get("etag")!;
    expect(fileSize).toBeGreaterThan(100);

    const names = await tables();
    let last = await snapshot(names);

    // -----------------------------------------------------------------------------------------
    // Orders: count and list.

    const matching = (filter: { from: number; to: number; status?: Status }) =>
      orders.filter((o) => o.created >= filter.from && o.created <= filter.to && (!filter.status || o.status === filter.status));

    const updatedCount = async (filter: { from: number; to: number; status?: Status }) => {
      const row = await (await storeD1(main.storeId))
        .prepare(`select count(*) as n from orders where store_id = ? and date_updated between ? and ?${filter.status ? " and status = ?" : ""}`)
        .bind(...[main.storeId, filter.from, filter.to, ...(filter.status ? [filter.status] : [])])
        .first<{ n: number }>();
      return row!.n;
    };

    /** The shared query of count and list; null filter when something is refused. */
    function orderFilterParams() {
      const from = dateParam(f, "fromDate");
      const to = dateParam(f, "toDate");
      const params: Param[] = [from, to];
      let status: Status | undefined;
      const rs = f.random();
      if (rs < 0.35) {
        const [text, value] = f.pick(STATUS_FILTERS);
        params.push({ name: "status", value: text, valid: true });
        status = value;
      } else if (rs < 0.45) params.push({ name: "status", value: f.pick(["LOST", "", "constructor", "DELIVERED"]), valid: false });
      let updated = false;
      const rd = f.random();
      if (rd < 0.15) {
        params.push({ name: "dateField", value: "updated", valid: true });
        updated = true;
      } else if (rd < 0.2) params.push({ name: "dateField", value: f.pick(["shipped", "constructor"]), valid: false });
      // Most ranges run forwards, so that most queries are answered.
      if (from.ms !== undefined && to.ms !== undefined && from.ms > to.ms && f.chance(0.75)) {
        [from.value, to.value] = [to.value, from.value];
        [from.ms, to.ms] = [to.ms, from.ms];
      }
      const invalid = params.filter((p) => !p.valid).map((p) => p.name);
      // fromDate after toDate is 400 naming fromDate (decisions 2).
      if (from.ms !== undefined && to.ms !== undefined && from.ms > to.ms) invalid.push("fromDate");
      return { params, invalid, filter: { from: from.ms!, to: to.ms!, status }, updated };
    }

    function countRequest(token: string): [Sent, Expected] {
      const q = orderFilterParams();
      const sent: Sent = { method: "GET", path: `/v1/${token}/Orders/count?${queryOf(f, q.params)}`, headers: {} };
      if (q.invalid.length) return [sent, { status: 400, fields: q.invalid }];
      return [
        sent,
        {
          status: 200,
          check: async (res) => {
            const count = q.updated ? await updatedCount(q.filter) : matching(q.filter).length;
            expect(res.json).toEqual({ Success: true, Message: "", Count: count });
          },
        } as Expected,
      ];
    }

    const keyOf: Record<SortField, (o: ModelOrder) => number | string> = {
      DateCreatedInOrderSource: (o) => o.created,
      OrderId: (o) => Number(o.id),
      GrandTotal: (o) => o.grandTotal,
      OrderStatus: (o) => o.status,
    };

    function listRequest(token: string): [Sent, Expected] {
      const q = orderFilterParams();
      const paging = pagingParams(f);
      const params = [...q.params, ...paging.params];
      let sortBy: SortField | undefined;
      let direction: "asc" | "desc" | undefined;
      const rb = f.random();
      if (rb < 0.45) {
        sortBy = f.pick(SORT_FIELDS);
        params.push({ name: "sortBy", value: sortBy, valid: true });
      } else if (rb < 0.52) params.push({ name: "sortBy", value: f.pick(["Price", "constructor", "Total"]), valid: false });
      const rd = f.random();
      if (rd < 0.35) {
        direction = f.pick(["asc", "desc"] as const);
        params.push({ name: "sortDirection", value: direction, valid: true });
      } else if (rd < 0.4) params.push({ name: "sortDirection", value: f.pick(["up", "__proto__", "descending"]), valid: false });
      const invalid = [...q.invalid, ...params.filter((p) => !p.valid && !q.invalid.includes(p.name)).map((p) => p.name)];
      const sent: Sent = { method: "GET", path: `/v1/${token}/Orders?${queryOf(f, params)}`, headers: {} };
      if (invalid.length) return [sent, { status: 400, fields: invalid }];
      const field = sortBy ?? "DateCreatedInOrderSource";
      const dir = direction ?? "asc";
      return [
        sent,
        {
          status: 200,
          check: async (res) => {
            expect(res.json.Success).toBe(true);
            expect(res.json.Message).toBe("");
            const offset = (paging.page - 1) * paging.pageSize;
            const inRange = q.updated ? await updatedCount(q.filter) : matching(q.filter).length;
            // NextCursor (decisions 3): an opaque string while a later page holds orders, null on the last.
            expect(res.json.Paging).toEqual({
              Page: paging.page,
              PageSize: paging.pageSize,
              MaxPageSize: 100,
              NextCursor: inRange > offset + paging.pageSize ? expect.any(String) : null,
            });
            // With dateField=updated and no sortBy, decisions 3 sorts by DateUpdated.
            expect(res.json.Sorting).toEqual({ SortBy: q.updated && !sortBy ? "DateUpdated" : field, SortDirection: dir });
            const got = (res.json.Orders as { OrderId: string; OrderStatus: string; OrderDestinationOrderNumber: string | null }[]).map((o) => o.OrderId);
            if (q.updated) {
              const total = await updatedCount(q.filter);
              expect(got).toHaveLength(Math.max(0, Math.min(paging.pageSize, total - offset)));
              for (const id of got)
                expect(
                  orders.some((o) => o.id === id),
                  id,
                ).toBe(true);
              return;
            }
            const sign = dir === "asc" ? 1 : -1;
            const expected = matching(q.filter)
              .sort((a, b) => {
                const ka = keyOf[field](a);
                const kb = keyOf[field](b);
                // Ties broken by OrderId in the sort's direction (decisions 3).
                return sign * (ka < kb ? -1 : ka > kb ? 1 : Number(a.id) - Number(b.id));
              })
              .slice(offset, offset + paging.pageSize);
            expect(got).toEqual(expected.map((o) => o.id));
            const wire = res.json.Orders as { OrderStatus: string; OrderDestinationOrderNumber: string | null }[];
            expect(wire.map((o) => [o.OrderStatus, o.OrderDestinationOrderNumber])).toEqual(expected.map((o) => [o.status, o.seller]));
          },
        },
      ];
    }

    // -----------------------------------------------------------------------------------------
    // Orders: one by id.

    /** An id this store has, another store's, an unknown one, or no id at all. */
    function orderId(): { id: string; order?: ModelOrder } {
      const r = f.random();
      if (r < 0.8) {
        const order = f.pick(orders);
        return { id: order.id, order };
      }
      if (r < 0.88) return { id: f.pick(otherOrders) };
      if (r < 0.95) return { id: f.pick(["999999999", "0", "1".repeat(20)]) };
      return { id: f.pick(["abc", "-1", "1.5", "%20"]) };
    }

    function getRequest(token: string): [Sent, Expected] {
      const { id, order } = orderId();
      const sent: Sent = { method: "GET", path: `/v1/${token}/${spell(f, "Orders")}/${id}`, headers: {} };
      if (!order) return [sent, { status: 404 }];
      return [
        sent,
        {
          status: 200,
          check: (res) => {
            expect(res.json.Success).toBe(true);
            const wire = res.json.Orders as Record<string, unknown>[];
            expect(wire).toHaveLength(1);
            expect(wire[0]).toMatchObject({
              OrderId: order.id,
              OrderSource: order.source,
              OrderSourceOrderNumber: order.number,
              OrderStatus: order.status,
              OrderDestinationOrderNumber: order.seller,
              GrandTotal: order.grandTotal,
              DateCreatedInOrderSource: new Date(order.created).toISOString(),
              SyncStatus: order.claimed ? "Enabled" : "Disabled",
            });
            if (order.status === "Shipped") {
              expect(wire[0]).toMatchObject({ ShipmentTrackingNumber: order.tracking, DestinationShippingCarrier: order.carrier });
              if (typeof order.shipped === "number") expect(wire[0]!.DateShipped).toBe(new Date(order.shipped).toISOString());
            }
          },
        },
      ];
    }

    // -----------------------------------------------------------------------------------------
    // Bodies: mutations labelled by the documents.

    /** A body-level breakage: not JSON, not an object, not declared as JSON. */
    function brokenBody(): { body: string; contentType?: string; message: RegExp } | null {
      const r = f.random();
      if (r < 0.03) return { body: f.pick(["{", '{"OrderStatus":', "nul", "{'a': 1}", '"', '{"a":1}}']), contentType: "application/json", message: /JSON/ };
      if (r < 0.05) return { body: f.pick(["null", "[]", "42", '"SHIPPED"', "true"]), contentType: "application/json", message: /JSON object/ };
      if (r < 0.07)
        return { body: "{}", contentType: f.pick(["text/plain", "application/x-www-form-urlencoded", undefined]), message: /Content-Type: application\/json/ };
      return null;
    }

    const LONE = "a\ud800b";
    const HOSTILE_TEXT = [
      "<script>alert(1)</script>",
      "'; DROP TABLE orders;--",
      "😀🦄👨‍👩‍👧",
      "\u202Eevil\u202C",
      "nul\u0000inside",
      "Zürich",
      "${7*7}{{7*7}}%s%n",
      "__proto__",
    ];
    const WRONG_TYPES: unknown[] = [42, true, [], {}, ["a"]];

    /** A change of one field; `invalid` names it when the documents refuse the result. */
    type Mutation = { field: string; apply: (body: Record<string, unknown>) => void; invalid?: string; note?: string };

    /** Fields InsertOrder requires (spec 4.7). */
    const REQUIRED = [
      "BuyerEmailAddress",
      "BuyerPhoneNumber",
      "OrderSource",
      "OrderSourceOrderNumber",
      "DateCreatedInOrderSource",
      "ShipToCompanyName",
      "FirstName",
      "LastName",
      "Street1",
      "City",
      "StateOrProvince",
      "Country",
      "PostalCode",
      "ShippingMethod",
      "GrandTotal",
      "SubTotal",
      "OrderItems",
    ];
    /** Required text that must not be blank (docs/behaviour.md). */
    const NOT_BLANK = ["FirstName", "Street1", "City", "Country", "ShippingMethod", "OrderSource", "OrderSourceOrderNumber"];
    /** Required, but may be empty (docs/behaviour.md). */
    const MAY_BE_EMPTY = ["LastName", "StateOrProvince", "PostalCode", "BuyerEmailAddress", "BuyerPhoneNumber"];
    /** Required text fields (a wrong type or null is 400). */
    const REQUIRED_TEXT = [
      "BuyerEmailAddress",
      "BuyerPhoneNumber",
      "FirstName",
      "LastName",
      "Street1",
      "City",
      "StateOrProvince",
      "Country",
      "PostalCode",
      "ShippingMethod",
    ];
    /** Text fields typed "string or null" (spec 2.3). */
    const NULLABLE_TEXT = [
      "ShipToCompanyName",
      "OrderDestinationOrderNumber",
      "PaymentTransactionId",
      "PaymentType",
      "ShipmentTrackingNumber",
      "BuyerUserId",
      "OrderSourceCustomerOrderNumber",
      "SyncUserErrorMessage",
    ];
    const OPTIONAL_MONEY = ["ShippingTotal", "ShippingTaxTotal", "GiftWrapTotal", "GiftWrapTaxTotal"];
    const item = () => ({ Sku: "SKU-1", Name: "Blue mug", Quantity: 2, UnitPrice: 12.5 });

    function insertMutation(): Mutation {
      const r = f.int(24);
      const field = (list: string[]) => f.pick(list);
      switch (r) {
        case 0: {
          const name = field(REQUIRED);
          return { field: name, apply: (b) => delete b[name], invalid: name };
        }
        case 1: {
          const name = field([
            ...OPTIONAL_MONEY,
            "Street2",
            "ShippingServiceName",
            "PaymentType",
            "IsMarketplacePrime",
            "DateShipped",
            "OrderDestinationOrderNumber",
          ]);
          return { field: name, apply: (b) => delete b[name] };
        }
        case 2: {
          const name = field(REQUIRED_TEXT);
          const value = f.pick([...WRONG_TYPES, null]);
          return { field: name, apply: (b) => (b[name] = value), invalid: name };
        }
        case 3: {
          const name = field(NOT_BLANK);
          const value = f.pick(["", "   "]);
          return { field: name, apply: (b) => (b[name] = value), invalid: name };
        }
        case 4: {
          const name = field(MAY_BE_EMPTY);
          return { field: name, apply: (b) => (b[name] = "") };
        }
        case 5: {
          const name = field(["FirstName", "LastName", "Street1", "Street2", "City", "ShippingMethod", "ShipToCompanyName", "PaymentTransactionId"]);
          const value = f.pick(HOSTILE_TEXT);
          return { field: name, apply: (b) => (b[name] = value) };
        }
        case 6: {
          const name = field(["FirstName", "LastName", "City", "OrderSource", "Street2", "ShipToCompanyName", "BuyerEmailAddress"]);
          return { field: name, apply: (b) => (b[name] = LONE), invalid: name };
        }
        case 7: {
          const name = field(["GrandTotal", "SubTotal", ...OPTIONAL_MONEY]);
          const value = f.pick(["27.5", null, true, "@@RAW:1e309@@", [1]]);
          return { field: name, apply: (b) => (b[name] = value), invalid: name };
        }
        case 8: {
          const name = field(["GrandTotal", "SubTotal", ...OPTIONAL_MONEY]);
          const value = f.pick([0, 0.01, 19.99, 1234.5]);
          return { field: name, apply: (b) => (b[name] = value), note: name };
        }
        case 9: {
          const name = field(NULLABLE_TEXT);
          return { field: name, apply: (b) => (b[name] = null) };
        }
        case 10:
          return { field: "IsMarketplacePrime", apply: (b) => (b.IsMarketplacePrime = f.pick(["yes", 1, "true"])), invalid: "IsMarketplacePrime" };
        case 11: {
          const d = f.pick(VALID_DATES.filter((v) => !v.text.includes("%") && !v.text.includes("+")));
          return { field: "DateCreatedInOrderSource", apply: (b) => (b.DateCreatedInOrderSource = d.text), note: `created:${d.ms}` };
        }
        case 12: {
          const name = field(["DateCreatedInOrderSource", "DateShipped", "DateCreatedInDestination"]);
          const value = f.pick(["yesterday", "2025-02-30", "2026-13-01", "31/12/2025", 1767225600000]);
          return { field: name, apply: (b) => (b[name] = value), invalid: name };
        }
        case 13: {
          const name = field(["DateShipped", "DateCreatedInDestination"]);
          const value = f.pick([null, "2026-03-04", "2026-03-04T10:00:00+01:00"]);
          return { field: name, apply: (b) => (b[name] = value) };
        }
        case 14: {
          const [text, status] = f.pick([
            ["NEW", "New"],
            ["processing", "Processing"],
            ["Shipped", "Shipped"],
            ["CANCELED", "Canceled"],
            ["Cancelled", "Canceled"],
          ] as const);
          return { field: "OrderStatus", apply: (b) => (b.OrderStatus = text), note: `status:${status}` };
        }
        case 15: {
          const value = f.pick<unknown>(["Lost", "constructor", "", 3]);
          return { field: "OrderStatus", apply: (b) => (b.OrderStatus = value), invalid: "OrderStatus" };
        }
        case 16: {
          const value = f.pick<unknown>([[], "SKU-1", { Sku: "A" }, [null]]);
          return { field: "OrderItems", apply: (b) => (b.OrderItems = value), invalid: "OrderItems" };
        }
        case 17: {
          const [name, value] = f.pick<[string, unknown]>([
            ["Quantity", 1.5],
            ["Quantity", "2"],
            ["Quantity", 0],
            ["UnitPrice", "1"],
            ["UnitPrice", null],
            ["Sku", ""],
            ["Name", " "],
            ["Sku", 7],
          ]);
          return { field: "OrderItems", apply: (b) => (b.OrderItems = [{ ...item(), [name]: value }]), invalid: "OrderItems" };
        }
        case 18: {
          const name = f.pick(["Sku", "Name", "Quantity", "UnitPrice"]);
          return {
            field: "OrderItems",
            apply: (b) => (b.OrderItems = [item(), Object.fromEntries(Object.entries(item()).filter(([k]) => k !== name))]),
            invalid: "OrderItems",
          };
        }
        case 19:
          return {
            field: "OrderItems",
            apply: (b) =>
              (b.OrderItems = [item(), { Sku: "SKU-2", Name: "Tea", Quantity: 1, UnitPrice: 8, SaleTaxCost: 0.5, Discount: "0.25", OrderItemId: "" }]),
          };
        case 20:
          return { field: "OrderItems", apply: (b) => (b.OrderItems = Array.from({ length: 501 }, item)), invalid: "OrderItems" };
        case 21: // OrderId is assigned by the service: sent empty or not at all (spec 4.7).
          {
            const valid = f.chance(0.5);
            const value = valid ? f.pick(["", null]) : f.pick(["123", 5]);
            return { field: "OrderId", apply: (b) => (b.OrderId = value), invalid: valid ? undefined : "OrderId" };
          }
        case 22: // Fields of the Order the client may echo back, and fields it does not know: ignored.
          {
            const extra = f.pick<Record<string, unknown>>([{ SyncStatus: "Enabled" }, { SourceOrderStatus: "Shipped" }, { Foo: 1 }, { constructor: "x" }]);
            return { field: Object.keys(extra)[0]!, apply: (b) => Object.assign(b, extra) };
          }
        default: {
          const value = f.pick([null, "Acme Ltd"]);
          return { field: "ShipToCompanyName", apply: (b) => (b.ShipToCompanyName = value) };
        }
      }
    }

    const numbers = Array.from({ length: 12 }, (_, i) => `F-${i + 1}`);

    function insertRequest(token: string): [Sent, Expected] {
      const source = f.pick(["Web", "Mall"]);
      const number = f.chance(0.8) ? f.pick(numbers) : `U-${f.int(1e9)}`;
      const body: Record<string, unknown> = {
        BuyerEmailAddress: "jane.doe@example.com",
        BuyerPhoneNumber: "555-201-1234",
        OrderSource: source,
        OrderSourceOrderNumber: number,
        DateCreatedInOrderSource: "2026-03-04T10:00:00Z",
        ShipToCompanyName: null,
        FirstName: "Jane",
        LastName: "Doe",
        Street1: "1 Main St",
        City: "Springfield",
        StateOrProvince: "IL",
        Country: "US",
        PostalCode: "62701",
        ShippingMethod: "Standard",
        GrandTotal: 27.5,
        SubTotal: 25,
        ShippingTotal: 2.5,
        OrderItems: [item()],
      };
      // A later change of a field replaces an earlier one: only the last per field is made.
      const drawn = Array.from({ length: f.int(4) }, insertMutation);
      const mutations = drawn.filter((m, i) => !drawn.slice(i + 1).some((later) => later.field === m.field));
      for (const m of mutations) m.apply(body);
      const invalid = mutations.flatMap((m) => (m.invalid ? [m.invalid] : []));
      const path = `/v1/${token}/Orders/${spell(f, "InsertOrder")}`;
      const broken = brokenBody();
      if (broken) {
        const headers: Record<string, string> = broken.contentType ? { "content-type": broken.contentType } : {};
        return [
          { method: "PUT", path, body: broken.body, headers },
          { status: 400, message: broken.message },
        ];
      }
      const contentType = f.pick(["application/json", "application/json", "application/json; charset=utf-8"]);
      if (f.chance(0.015)) {
        // decisions 1: a /v1 body over 1 MiB is 413, before the token is looked at.
        body.Street2 = "x".repeat(1024 * 1024);
        return [
          { method: "PUT", path, body: toJson(body), headers: { "content-type": contentType } },
          { status: 413, message: /1 MiB/ },
        ];
      }
      const sent: Sent = { method: "PUT", path, body: toJson(body), headers: { "content-type": contentType } };
      if (invalid.length) return [sent, { status: 400, fields: invalid }];
      const key = (o: { source: string; number: string }) => `${o.source}\u0000${o.number}`;
      const existing = orders.find((o) => key(o) === key({ source: body.OrderSource as string, number: body.OrderSourceOrderNumber as string }));
      if (existing) return [sent, { status: 400, message: `OrderId ${existing.id}` }];
      const created = mutations.map((m) => m.note).find((n) => n?.startsWith("created:"));
      const status = (mutations
        .map((m) => m.note)
        .filter((n) => n?.startsWith("status:"))
        .at(-1)
        ?.slice(7) ?? "New") as Status;
      let newId = "";
      return [
        sent,
        {
          status: 200,
          writes: true,
          check: (res) => {
            expect(res.json).toEqual({ Success: true, Message: "", OrderId: expect.stringMatching(/^[1-9]\d*$/) });
            newId = res.json.OrderId as string;
          },
          apply: () => {
            const dateShipped = body.DateShipped;
            orders.push({
              id: newId,
              source: body.OrderSource as string,
              number: body.OrderSourceOrderNumber as string,
              created: created ? Number(created.slice(8)) : utc("2026-03-04T10:00:00Z"),
              grandTotal: body.GrandTotal as number,
              status,
              seller: (body.OrderDestinationOrderNumber as string | null | undefined) ?? null,
              tracking: (body.ShipmentTrackingNumber as string | null | undefined) ?? null,
              shipped:
                typeof dateShipped === "string"
                  ? Date.parse(
                      /[zZ]|[+-]\d\d:\d\d$/.test(dateShipped) || dateShipped.length === 10
                        ? dateShipped.length === 10
                          ? `${dateShipped}T00:00:00Z`
                          : dateShipped
                        : `${dateShipped}Z`,
                    )
                  : null,
              carrier: (body.DestinationShippingCarrier as string | undefined) ?? "",
              claimed: body.OrderSource === "Mall",
              queued: [],
            });
          },
        },
      ];
    }

    // -----------------------------------------------------------------------------------------
    // Moves: AcknowledgeOrder and UpdateStatus, by the state rules of decisions 3 and docs/behaviour.md.

    function ackRequest(token: string): [Sent, Expected] {
      const { id, order } = orderId();
      const number = f.pick(["ERP-0", "ERP-1", "ERP-2", "S-77", "Ünïcode-1"]);
      const r = f.random();
      let param: Param;
      if (r < 0.85) param = { name: "orderDestinationOrderNumber", value: encodeURIComponent(number), valid: true };
      else if (r < 0.93) param = { name: "orderDestinationOrderNumber", value: "", valid: false };
      else param = { name: "orderDestinationOrderNumber", value: undefined, valid: false };
      const query = queryOf(f, [param]);
      const sent: Sent = {
        method: "PUT",
        path: `/v1/${token}/${spell(f, "Orders")}/${id}/${spell(f, "AcknowledgeOrder")}${query ? `?${query}` : ""}`,
        headers: {},
      };
      if (!param.valid) return [sent, { status: 400, fields: ["orderDestinationOrderNumber"] }];
      if (!order) return [sent, { status: 404, message: /No order with OrderId/ }];
      if (order.status === "Canceled") return [sent, { status: 400, message: /Canceled/ }];
      if (order.seller === number && order.status !== "New") return [sent, { status: 200, message: "" }];
      if (order.status === "Shipped" && order.seller !== null) return [sent, { status: 400, message: /Shipped/ }];
      return [
        sent,
        {
          status: 200,
          message: "",
          writes: true,
          orderId: order.id,
          apply: () => {
            order.status = order.status === "New" ? "Processing" : order.status;
            order.seller = number;
            if (order.claimed) queue(order, "acknowledge");
          },
        },
      ];
    }

    const STATUS_WORDS = { ship: ["SHIPPED", "shipped", "Shipped"], cancel: ["CANCELED", "CANCELLED", "canceled", "Cancelled"] };

    function statusRequest(token: string): [Sent, Expected] {
      const { id, order } = orderId();
      const path = `/v1/${token}/${spell(f, "Orders")}/${id}/${spell(f, "UpdateStatus")}`;
      const broken = brokenBody();
      if (broken) {
        return [
          { method: "PUT", path, body: broken.body, headers: broken.contentType ? { "content-type": broken.contentType } : {} },
          { status: 400, message: broken.message },
        ];
      }
      const invalid: string[] = [];
      const body: Record<string, unknown> = {};
      let kind: "ship" | "cancel" | null;
      const r = f.random();
      if (r < 0.55) {
        kind = "ship";
        body.OrderStatus = f.pick(STATUS_WORDS.ship);
      } else if (r < 0.85) {
        kind = "cancel";
        body.OrderStatus = f.pick(STATUS_WORDS.cancel);
      } else {
        kind = null;
        const value = f.pick<unknown>(["NEW", "PROCESSING", "Delivered", "", "SHIPPED!", 3, null, undefined]);
        if (value !== undefined) body.OrderStatus = value;
        invalid.push("OrderStatus");
      }
      // Optional fields (spec 4.5), valid or not.
      if (f.chance(0.5)) body.ShipmentTrackingNumber = f.pick(["1Z-0", "1Z-1", "1Z-2", null]);
      if (f.chance(0.35)) body.DateShipped = f.pick(["2026-03-04T00:00:00Z", "2026-03-04", "2026-03-05T14:30:00+01:00", null]);
      if (f.chance(0.3)) body.DestinationShippingCarrier = f.pick(["UPS", "FedEx", null]);
      if (f.chance(0.06)) {
        const [name, value] = f.pick<[string, unknown]>([
          ["DateShipped", "2026-02-30"],
          ["DateShipped", "tomorrow"],
          ["ShipmentTrackingNumber", 12345],
          ["ShipmentTrackingNumber", LONE],
          ["DestinationShippingCarrier", ["UPS"]],
        ]);
        body[name] = value;
        invalid.push(name);
      }
      if (f.chance(0.01)) {
        body.ShipmentTrackingNumber = "t".repeat(1024 * 1024);
        return [
          { method: "PUT", path, body: toJson(body), headers: { "content-type": "application/json" } },
          { status: 413, message: /1 MiB/ },
        ];
      }
      const sent: Sent = {
        method: "PUT",
        path,
        body: toJson(body),
        headers: { "content-type": f.pick(["application/json", "application/json; charset=utf-8"]) },
      };
      if (invalid.length) {
        const only = invalid.includes("OrderStatus") && typeof body.OrderStatus === "string" && invalid.length === 1;
        // Spec 7.1: the error says that only CANCELLED or SHIPPED status updates are allowed.
        return [
          sent,
          only ? { status: 400, fields: ["OrderStatus"], message: /only CANCELLED or SHIPPED status updates are allowed/ } : { status: 400, fields: invalid },
        ];
      }
      if (!order) return [sent, { status: 404, message: /No order with OrderId/ }];
      if (kind === "cancel") {
        if (order.status === "Shipped") return [sent, { status: 400, message: /Shipped/ }];
        if (order.status === "Canceled") return [sent, { status: 200, message: "" }];
        return [
          sent,
          {
            status: 200,
            message: "",
            writes: true,
            orderId: order.id,
            apply: () => {
              order.status = "Canceled";
              if (order.claimed) queue(order, "cancel");
            },
          },
        ];
      }
      if (order.status === "Canceled") return [sent, { status: 400, message: /Canceled/ }];
      const given = {
        tracking: (body.ShipmentTrackingNumber as string | null | undefined) ?? undefined,
        shipped: typeof body.DateShipped === "string" ? parseBodyDate(body.DateShipped) : undefined,
        carrier: (body.DestinationShippingCarrier as string | null | undefined) ?? undefined,
      };
      if (order.status === "Shipped") {
        // A repeat corrects what it gives and keeps what it leaves out (docs/behaviour.md); with the same
        // values it succeeds and changes nothing (decisions 3). A ship date never set is stamped.
        const next = {
          tracking: given.tracking ?? order.tracking,
          shipped: given.shipped ?? (order.shipped === null ? "now" : order.shipped),
          carrier: given.carrier ?? order.carrier,
        };
        const same = next.tracking === order.tracking && next.shipped === order.shipped && next.carrier === order.carrier && order.shipped !== null;
        if (same) return [sent, { status: 200, message: "" }];
        return [
          sent,
          {
            status: 200,
            message: "",
            writes: true,
            orderId: order.id,
            apply: () => {
              Object.assign(order, next);
              if (order.claimed) queue(order, "ship");
            },
          },
        ];
      }
      return [
        sent,
        {
          status: 200,
          message: "",
          writes: true,
          orderId: order.id,
          apply: () => {
            order.status = "Shipped";
            order.tracking = given.tracking ?? null;
            order.shipped = given.shipped ?? "now";
            order.carrier = given.carrier ?? order.carrier;
            if (order.claimed) queue(order, "ship");
          },
        },
      ];
    }

    // -----------------------------------------------------------------------------------------
    // Feeds.

    const FILTERS = [undefined, "", "google", "GOOGLE", "émile", "ÉMILE", "é", "%", "_", "o", "zzz", "'", "us", "Google US"];
    const feedMatches = (q: string | undefined) => feeds.filter((feed) => !q || feed.name.toLowerCase().includes(q.toLowerCase()));

    function feedCountRequest(token: string): [Sent, Expected] {
      const q = f.pick(FILTERS);
      const query = queryOf(f, [{ name: "filterQuery", value: q === undefined ? undefined : encodeURIComponent(q), valid: true }]);
      return [
        { method: "GET", path: `/v1/${token}/${spell(f, "feeds")}/${spell(f, "count")}${query ? `?${query}` : ""}`, headers: {} },
        { status: 200, check: (res) => expect(res.json).toEqual({ Success: true, Message: "", Count: feedMatches(q).length }) },
      ];
    }

    function feedListRequest(token: string): [Sent, Expected] {
      const q = f.pick(FILTERS);
      const paging = pagingParams(f);
      const params: Param[] = [{ name: "filterQuery", value: q === undefined ? undefined : encodeURIComponent(q), valid: true }, ...paging.params];
      let sortBy: "Name" | "DateLastCompiled" | undefined;
      let direction: "asc" | "desc" | undefined;
      const rb = f.random();
      if (rb < 0.4) {
        sortBy = f.pick(["Name", "DateLastCompiled"] as const);
        params.push({ name: "sortBy", value: sortBy, valid: true });
      } else if (rb < 0.5) params.push({ name: "sortBy", value: f.pick(["Score", "constructor"]), valid: false });
      if (f.chance(0.4)) {
        direction = f.pick(["asc", "desc"] as const);
        params.push({ name: "sortDirection", value: direction, valid: true });
      } else if (f.chance(0.08)) params.push({ name: "sortDirection", value: "up", valid: false });
      const invalid = params.filter((p) => !p.valid).map((p) => p.name);
      const sent: Sent = { method: "GET", path: `/v1/${token}/${spell(f, "Feeds")}?${queryOf(f, params)}`, headers: {} };
      if (invalid.length) return [sent, { status: 400, fields: invalid }];
      return [
        sent,
        {
          status: 200,
          check: (res) => {
            const all = feedMatches(q);
            const offset = (paging.page - 1) * paging.pageSize;
            expect(res.json.Paging).toEqual({
              Page: paging.page,
              PageSize: paging.pageSize,
              MaxPageSize: 100,
              NextCursor: all.length > offset + paging.pageSize ? expect.any(String) : null,
            });
            expect(res.json.Sorting).toEqual({ SortBy: sortBy ?? "Name", SortDirection: direction ?? "asc" });
            const got = (res.json.Feeds as { FeedId: string; Name: string }[]).map((feed) => feed.Name);
            expect(got).toHaveLength(Math.max(0, Math.min(paging.pageSize, all.length - offset)));
            if ((sortBy ?? "Name") === "Name") {
              const sign = (direction ?? "asc") === "asc" ? 1 : -1;
              const sorted = [...all].sort((a, b) => sign * (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1)).map((feed) => feed.name);
              expect(got).toEqual(sorted.slice(offset, offset + paging.pageSize));
            } else {
              for (const name of got) expect(all.map((feed) => feed.name)).toContain(name);
            }
          },
        },
      ];
    }

    function feedId(): { id: string; feed?: ModelFeed } {
      const r = f.random();
      if (r < 0.75) {
        const feed = f.chance(0.6) ? compiled : f.pick(feeds);
        return { id: feed.id, feed };
      }
      if (r < 0.87) return { id: otherFeed };
      return { id: f.pick(["fd_nope", "0", "constructor", "%00"]) };
    }

    function feedGetRequest(token: string): [Sent, Expected] {
      const { id, feed } = feedId();
      const sent: Sent = { method: "GET", path: `/v1/${token}/${spell(f, "feeds")}/${id}`, headers: {} };
      if (!feed) return [sent, { status: 404 }];
      return [
        sent,
        {
          status: 200,
          check: (res) => expect((res.json.Feeds as { FeedId: string; Name: string }[]).map((x) => [x.FeedId, x.Name])).toEqual([[feed.id, feed.name]]),
        },
      ];
    }

    function downloadRequest(token: string): [Sent, Expected] {
      const { id, feed } = feedId();
      const headers: Record<string, string> = {};
      // decisions 1: a download accepts text/csv, text/tab-separated-values, text/plain and */*.
      const accept = f.chance(0.08)
        ? f.pick(["application/json", "text/html"])
        : f.pick([undefined, undefined, undefined, "text/csv", "*/*", "text/plain", "text/csv, */*;q=0.1"]);
      if (accept !== undefined) headers.accept = accept;
      type RangeCase = { header: string; result: "whole" | "unsatisfiable" | { start: number; end: number } };
      const ranges: RangeCase[] = [
        { header: "bytes=0-9", result: { start: 0, end: 9 } },
        { header: "bytes=-5", result: { start: fileSize - 5, end: fileSize - 1 } },
        { header: `bytes=${fileSize - 3}-`, result: { start: fileSize - 3, end: fileSize - 1 } },
        { header: `bytes=10-${fileSize + 100}`, result: { start: 10, end: fileSize - 1 } },
        { header: `bytes=${fileSize}-`, result: "unsatisfiable" },
        { header: `bytes=${fileSize + 50}-${fileSize + 60}`, result: "unsatisfiable" },
        // Several ranges, or one that does not parse: the whole file (docs/behaviour.md).
        { header: "bytes=0-1,4-5", result: "whole" },
        { header: "bytes=abc", result: "whole" },
        { header: "items=0-1", result: "whole" },
      ];
      const range = f.chance(0.45) ? f.pick(ranges) : null;
      if (range) headers.range = range.header;
      const conditional = f.chance(0.25) ? f.pick([etag, `W/${etag}`, '"stale"']) : null;
      if (conditional) headers["if-none-match"] = conditional;
      const sent: Sent = { method: "GET", path: `/v1/${token}/${spell(f, "feeds")}/${id}/${spell(f, "download")}`, headers };
      if (accept === "application/json" || accept === "text/html") return [sent, { status: 406 }];
      if (feed !== compiled) return [sent, { status: 404, message: feed ? /has no file yet/ : /No feed with FeedId/ }];
      if (conditional && conditional !== '"stale"') return [sent, { status: 304, check: (res) => expect(res.text).toBe("") }];
      if (range?.result === "unsatisfiable")
        return [sent, { status: 416, check: (res) => expect(res.headers.get("content-range")).toBe(`bytes */${fileSize}`) }];
      if (range && range.result !== "whole") {
        const { start, end } = range.result;
        return [
          sent,
          {
            status: 206,
            check: (res) => {
              expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${fileSize}`);
              expect(res.text).toBe(new TextDecoder().decode(new TextEncoder().encode(fileText).slice(start, end + 1)));
            },
          },
        ];
      }
      return [sent, { status: 200, check: (res) => expect(res.text).toBe(fileText) }];
    }

    // -----------------------------------------------------------------------------------------

    const build: Record<Route, (token: string) => [Sent, Expected]> = {
      count: countRequest,
      list: listRequest,
      get: getRequest,
      insert: insertRequest,
      ack: ackRequest,
      status: statusRequest,
      feedCount: feedCountRequest,
      feedList: feedListRequest,
      feedGet: feedGetRequest,
      download: downloadRequest,
    };
    const ROUTES: Route[] = [
      "count",
      "list",
      "list",
      "get",
      "insert",
      "insert",
      "ack",
      "ack",
      "status",
      "status",
      "status",
      "feedCount",
      "feedList",
      "feedGet",
      "download",
      "download",
    ];
    const FILE_ROUTE: Route = "download";

    const seen = new Map<Route, Map<number, number>>();
    const failures: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const route = f.pick(ROUTES);
      const holder = f.chance(0.88) ? tokens[0]! : f.pick(tokens.slice(1));
      let [sent, expected] = build[route](holder.token);
      // decisions 1: an Accept that admits no JSON is 406 on every JSON route, before the token.
      if (route !== FILE_ROUTE && f.chance(0.03)) {
        sent.headers.accept = f.pick(["text/html", "application/xml"]);
        expected = { status: 406 };
      } else if (route !== FILE_ROUTE && f.chance(0.05)) sent.headers.accept = f.pick(["application/json", "*/*", "application/json; charset=utf-8"]);
      const nonNumericGet = route === "get" && !/^\d+$/.test(sent.path.split("/").at(-1)!);
      if (![406, 413].includes(expected.status) && !nonNumericGet && !holder.scopes.includes(SCOPE_OF[route])) {
        // A missing scope: 401 with the interface's exact Message, before the request is read.
        expected = { status: 401, message: DENIED };
      }

      const res = await call(sent.method, sent.path, { raw: sent.body, headers: sent.headers });
      const label =
        `#${i} ${route} ${sent.method} ${sent.path.slice(0, 160)} ${JSON.stringify(sent.headers)} ` + `${JSON.stringify((sent.body ?? "").slice(0, 240))}`;
      const byStatus = seen.get(route) ?? new Map<number, number>();
      byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
      seen.set(route, byStatus);

      const problems: string[] = [];
      if (res.status !== expected.status)
        problems.push(
          `status ${res.status}, the rules give ${expected.status}${expected.fields ? ` naming ${expected.fields.join("/")}` : ""}: ` +
            `${JSON.stringify(res.text.slice(0, 200))}`,
        );
      else {
        const fileAnswer = route === FILE_ROUTE && [200, 206, 304].includes(res.status);
        if (!fileAnswer) {
          if (!/^application\/json/.test(res.headers.get("content-type") ?? "")) problems.push(`not JSON: ${res.headers.get("content-type")}`);
          else if (res.status >= 400) {
            if (res.json?.Success !== false || typeof res.json.Message !== "string" || !res.json.Message)
              problems.push(`not a failure envelope: ${res.text.slice(0, 200)}`);
            else {
              if (expected.fields && !expected.fields.some((field) => res.json.Message.includes(`'${field}`)))
                problems.push(`Message names none of ${expected.fields.join(", ")}: ${res.json.Message}`);
              if (
                typeof expected.message === "string" &&
                res.json.Message !== expected.message &&
                !(expected.status === 400 && res.json.Message.includes(expected.message))
              ) {
                problems.push(`Message ${JSON.stringify(res.json.Message)}, expected ${JSON.stringify(expected.message)}`);
              }
              if (expected.message instanceof RegExp && !expected.message.test(res.json.Message))
                problems.push(`Message ${JSON.stringify(res.json.Message)} does not match ${expected.message}`);
            }
          } else if (expected.message === "" && JSON.stringify(res.json) !== JSON.stringify({ Success: true, Message: "" })) {
            problems.push(`a move answers exactly {Success:true, Message:""}: ${res.text.slice(0, 200)}`);
          }
        }
        if (!problems.length && expected.check) {
          try {
            await expected.check(res);
          } catch (error) {
            problems.push(`answer: ${(error as Error).message.slice(0, 400)}`);
          }
        }
      }

      const now = await snapshot(names);
      if (res.status === expected.status && expected.status === 200 && expected.writes) {
        expected.apply?.();
        if (expected.orderId) {
          const order = orders.find((o) => o.id === expected.orderId)!;
          const kinds = await outboxKinds(order.id);
          if (JSON.stringify(kinds) !== JSON.stringify(order.queued))
            problems.push(`outbox of order ${order.id} is ${JSON.stringify(kinds)}, the model queued ${JSON.stringify(order.queued)}`);
          if (now === last) problems.push("a move that changes the order left the database as it was");
        }
      } else if (now !== last) {
        problems.push(res.status >= 400 ? `refused with ${res.status} yet the database changed` : "a read or a repeated move changed the database");
      }
      last = now;
      if (problems.length) failures.push(`${label}\n    ${problems.join("\n    ")}`);
      if (failures.length >= 15) break;
    }
    expect(failures).toEqual([]);

    // Every route met every answer its rules can give: 200 and 400 both occur, and the rest.
    const missing = Object.entries(MUST_SEE).flatMap(([route, statuses]) =>
      statuses.filter((s) => !seen.get(route as Route)?.has(s)).map((s) => `${route} ${s}`),
    );
    expect(missing).toEqual([]);
    const overall = new Set([...seen.values()].flatMap((m) => [...m.keys()]));
    expect([200, 400, 401, 404, 406, 413].filter((s) => !overall.has(s))).toEqual([]);

    // The model and the service agree on every order, and on what each queued, at the end.
    for (const order of orders) {
      const res = await call("GET", `/v1/${main.token}/Orders/${order.id}`);
      expect(res.status, order.id).toBe(200);
      expect((res.json.Orders as Record<string, unknown>[])[0], order.id).toMatchObject({
        OrderStatus: order.status,
        OrderDestinationOrderNumber: order.seller,
      });
      expect(await outboxKinds(order.id), order.id).toEqual(order.queued);
    }
    const queued = orders.reduce((n, o) => n + o.queued.length, 0);
    expect(queued).toBeGreaterThan(10);
  });
});

/** An ISO date or date-time from a body, as the instant it names (decisions 2). */
function parseBodyDate(text: string): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Date.parse(`${text}T00:00:00Z`);
  return Date.parse(text);
}
