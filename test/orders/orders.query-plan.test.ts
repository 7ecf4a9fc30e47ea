// Every count and list shape is served by an index walk that stops after a page (issue 12): the
// plan SQLite picks for each statement must not scan orders, must walk the index of its sort,
// and after a cursor must seek to the cursor's position rather than step from the range's start.
import { beforeAll, describe, expect, it } from "vitest";
import { choosePlan, countStatement, listStatement, planFor } from "../../src/orders/orders.queries";
import { insert, storeWithToken } from "../helpers/api";
import { drizzleOf, storeD1 } from "../helpers/shards";

/** The shard of the store the plans are asked for (set before the tests run). */
let shard: D1Database;

async function planOf(query: { sql: string; params: unknown[] }): Promise<string> {
  const { results } = await shard
    .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
    .bind(...query.params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail).join("\n");
}

const FULL_SCAN = /\bSCAN (orders|o|order_day_counts|sources|s)\b(?! USING)/;
const DAY = 86_400_000;

type Shape = { dateField: "created" | "updated"; status?: "New" };
const shapes: Shape[] = [{ dateField: "created" }, { dateField: "created", status: "New" }, { dateField: "updated" }, { dateField: "updated", status: "New" }];

/** The sort, the index it must walk, and the column its cursor seeks on. */
const SORTS = [
  { sortBy: "DateCreatedInOrderSource", index: (s: Shape) => `orders_store_${s.status ? "status_" : ""}created`, seek: "date_created_in_order_source" },
  { sortBy: "DateUpdated", index: (s: Shape) => `orders_store_${s.status ? "status_" : ""}updated`, seek: "date_updated" },
  { sortBy: "OrderId", index: (s: Shape) => `orders_store_${s.status ? "status_" : ""}id`, seek: "id" },
  { sortBy: "GrandTotal", index: (s: Shape) => `orders_store_${s.status ? "status_" : ""}total`, seek: "grand_total" },
  { sortBy: "OrderStatus", index: () => "orders_store_status_id", seek: "status" },
] as const;

describe("query plans", () => {
  let storeId: string;
  beforeAll(async () => {
    const store = await storeWithToken();
    for (let i = 0; i < 3; i++) await insert(store.token);
    storeId = store.storeId;
    shard = await storeD1(storeId);
  });

  it.each(shapes)("count over whole days with dateField=$dateField, status=$status sums day buckets and searches two edges", async (shape) => {
    const plan = await planOf(countStatement(storeId, { fromDate: Date.UTC(2025, 0, 1, 12), toDate: Date.UTC(2026, 0, 1, 12), ...shape }));
    expect(plan, plan).not.toMatch(FULL_SCAN);
    expect(plan, plan).toMatch(
      /SEARCH order_day_counts USING (INDEX|PRIMARY KEY|COVERING INDEX) sqlite_autoindex_order_day_counts_1 \(store_id=\? AND field=\? AND day>\? AND day<\?\)/,
    );
    const edge = new RegExp(
      `SEARCH orders USING COVERING INDEX orders_store_${shape.status ? "status_" : ""}${shape.dateField} ` +
        `\\(store_id=\\?${shape.status ? " AND status=\\?" : ""} AND date_\\w+>\\? AND date_\\w+<\\?\\)`,
      "g",
    );
    expect(plan.match(edge), plan).toHaveLength(2);
  });

  it.each(shapes)("count within one day with dateField=$dateField, status=$status searches the index only", async (shape) => {
    const plan = await planOf(countStatement(storeId, { fromDate: Date.UTC(2025, 0, 1, 1), toDate: Date.UTC(2025, 0, 1, 1) + DAY / 2, ...shape }));
    expect(plan, plan).not.toMatch(FULL_SCAN);
    expect(plan, plan).not.toMatch(/order_day_counts/);
    expect(plan, plan).toMatch(/SEARCH orders USING COVERING INDEX orders_store_/);
  });

  const cases = shapes.flatMap((shape) => SORTS.flatMap((sort) => (["asc", "desc"] as const).map((sortDirection) => ({ shape, sort, sortDirection }))));

  it.each(cases)(
    "list $shape.dateField/$shape.status by $sort.sortBy $sortDirection: first page, offset page and cursor page walk the sort's index",
    async ({ shape, sort, sortDirection }) => {
      const query = { fromDate: 0, toDate: Date.now(), pageSize: 50, cursor: undefined, page: 1, ...shape, sortBy: sort.sortBy, sortDirection };
      const index = sort.index(shape);
      const walk = new RegExp(`SEARCH o USING (COVERING )?INDEX ${index} \\(store_id=\\?`);
      for (const start of [{ offset: 0 }, { offset: 150 }]) {
        const plan = await planOf(listStatement(storeId, query, 51, start));
        expect(plan, plan).not.toMatch(FULL_SCAN);
        expect(plan, plan).toMatch(walk);
        // The walk is in the index's order: no sort of the range.
        expect(plan.split("\n").filter((line) => /TEMP B-TREE/.test(line)).length, plan).toBeLessThanOrEqual(1);
      }
      const value = sort.seek === "status" ? "New" : sort.seek === "grand_total" ? 12.5 : Date.now() - DAY;
      const plan = await planOf(listStatement(storeId, query, 51, { after: { value, id: 2 } }));
      expect(plan, plan).not.toMatch(FULL_SCAN);
      const op = sortDirection === "asc" ? ">" : "<";
      if (sort.seek === "id") {
        expect(plan, plan).toMatch(
          new RegExp(`SEARCH o USING (COVERING )?INDEX ${index} \\(store_id=\\?${shape.status ? " AND status=\\?" : ""} AND id${op}\\?\\)`),
        );
      } else {
        // The ties: (sort value = ?, id beyond); the rest: sort value beyond, each an index seek.
        const eq = sort.seek === "status" && shape.status ? "status=\\?" : `${shape.status ? "status=\\? AND " : ""}${sort.seek}=\\?`;
        expect(plan, plan).toMatch(new RegExp(`SEARCH o USING (COVERING )?INDEX ${index} \\(store_id=\\? AND ${eq} AND id${op}\\?\\)`));
        if (!(sort.seek === "status" && shape.status)) {
          expect(plan, plan).toMatch(
            new RegExp(`SEARCH o USING (COVERING )?INDEX ${index} \\(store_id=\\?${shape.status ? " AND status=\\?" : ""} AND ${sort.seek}[<>]\\?`),
          );
        }
      }
      // The page's rows and their sources are looked up by key.
      expect(plan, plan).toMatch(/SEARCH o USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan, plan).toMatch(/SEARCH s USING INDEX sqlite_autoindex_sources_1 \(id=\?\)/);
    },
  );

  const narrow = shapes.flatMap((shape) => SORTS.filter((sort) => !sort.index(shape).endsWith(shape.dateField)).map((sort) => ({ shape, sort })));

  it.each(narrow)(
    "list $shape.dateField/$shape.status by $sort.sortBy over a narrow range reads the range through the date index and sorts it",
    async ({ shape, sort }) => {
      const query = { fromDate: 0, toDate: Date.now(), pageSize: 50, cursor: undefined, page: 1, ...shape, sortBy: sort.sortBy, sortDirection: "asc" as const };
      const date = new RegExp(
        `SEARCH o USING (COVERING )?INDEX orders_store_${shape.status ? "status_" : ""}${shape.dateField} ` +
          `\\(store_id=\\?${shape.status ? " AND status=\\?" : ""} AND date_\\w+>\\? AND date_\\w+<\\?\\)`,
      );
      for (const start of [{ offset: 0 }, { after: { value: sort.seek === "status" ? "New" : 3, id: 2 } }]) {
        const plan = await planOf(listStatement(storeId, query, 51, start, "date index"));
        expect(plan, plan).not.toMatch(FULL_SCAN);
        expect(plan, plan).toMatch(date);
        expect(plan, plan).toMatch(/USE TEMP B-TREE FOR (LAST TERM OF )?ORDER BY/);
      }
    },
  );

  it("chooses the date index for a range of few orders, the sort's index for a wide one", async () => {
    const db = drizzleOf(shard);
    const query = (from: string, to: string, pageSize: number) =>
      ({ fromDate: Date.parse(from), toDate: Date.parse(to), dateField: "created", pageSize, page: 1, sortBy: "GrandTotal", sortDirection: "desc" }) as const;
    // The store holds 3 orders, all at 2026-03-01T10:15Z.
    expect(await planFor(db, storeId, query("2026-03-01T10:00:00Z", "2026-03-01T10:30:00Z", 50), 50)).toBe("date index");
    expect(await planFor(db, storeId, query("2026-03-01T10:00:00Z", "2026-03-01T10:30:00Z", 1), 1)).toBe("sort index");
    expect(await planFor(db, storeId, { ...query("2026-03-01T10:00:00Z", "2026-03-01T10:30:00Z", 50), sortBy: "DateCreatedInOrderSource" }, 50)).toBe(
      "sort index",
    );
    // At a million orders: the last hour (114) is read whole; a week (19,000) is walked.
    expect(choosePlan(114, 1_000_000, 100)).toBe("date index");
    expect(choosePlan(19_000, 1_000_000, 100)).toBe("sort index");
    expect(choosePlan(192, 10_000, 100)).toBe("date index");
  });

  it("reads a page's items through the order index", async () => {
    const plan = await planOf({
      sql: "select * from order_items where order_items.order_id in (select value from json_each(?)) order by order_id, id limit ?",
      params: ["[1,2,3]", 2001],
    });
    expect(plan, plan).not.toMatch(/\bSCAN order_items\b/);
    expect(plan, plan).toMatch(/SEARCH order_items USING INDEX order_items_order \(order_id=\?\)/);
  });
});
