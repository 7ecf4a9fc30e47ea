// Counts (issue 12) come from day buckets kept by triggers plus the two edge days: after random
// inserts, moves and direct changes of dates, every count equals a brute-force count of the rows.
import { describe, expect, it } from "vitest";
import { prng } from "../../src/lib/prng";
import { call, insert, storeWithToken } from "../helpers/api";
import { storeD1 } from "../helpers/shards";

const DAY = 86_400_000;
const STATUSES = ["New", "Processing", "Shipped", "Canceled"];

async function bruteForce(storeId: string, column: string, from: number, to: number, status?: string): Promise<number> {
  const row = await (await storeD1(storeId))
    .prepare(`select count(*) as n from orders where store_id = ? and ${column} >= ? and ${column} <= ?${status ? " and status = ?" : ""}`)
    .bind(storeId, from, to, ...(status ? [status] : []))
    .first<{ n: number }>();
  return row!.n;
}

describe("counts", () => {
  it("equal a brute-force count after random inserts and moves, for ranges of whole days, partial days and single instants", async () => {
    const random = prng(12);
    const { storeId, token } = await storeWithToken();
    const base = Date.UTC(2026, 2, 1);
    const created: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      // Some exactly at midnight and a millisecond either side of it: the bucket edges.
      const dayIndex = Math.floor(random() * 12);
      const offset = [0, 1, DAY - 1, Math.floor(random() * DAY)][Math.floor(random() * 4)]!;
      const at = base + dayIndex * DAY + offset;
      created.push(at);
      ids.push(await insert(token, { DateCreatedInOrderSource: new Date(at).toISOString() }));
    }
    for (const id of ids) {
      const r = random();
      if (r < 0.25) expect((await call("PUT", `/v1/${token}/Orders/${id}/AcknowledgeOrder?orderDestinationOrderNumber=E-${id}`)).status).toBe(200);
      else if (r < 0.45) expect((await call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body: { OrderStatus: "SHIPPED" } })).status).toBe(200);
      else if (r < 0.6) expect((await call("PUT", `/v1/${token}/Orders/${id}/UpdateStatus`, { body: { OrderStatus: "CANCELED" } })).status).toBe(200);
    }
    // Any writer of the table keeps the counts: spread DateUpdated over days, straight in D1.
    for (const id of ids.filter(() => random() < 0.5)) {
      await (await storeD1(storeId))
        .prepare("update orders set date_updated = ? where id = ?")
        .bind(base + Math.floor(random() * 12 * DAY), Number(id))
        .run();
    }
    const updated = (
      await (await storeD1(storeId)).prepare("select date_updated as d from orders where store_id = ?").bind(storeId).all<{ d: number }>()
    ).results.map((r) => r.d);

    const points = (dates: number[]) => {
      const pick = () => {
        const r = random();
        if (r < 0.3) return base + Math.floor(random() * 13) * DAY; // a midnight
        if (r < 0.5) return base + Math.floor(random() * 13) * DAY - 1; // just before one
        if (r < 0.75) return dates[Math.floor(random() * dates.length)]!; // exactly an order's time
        return base - DAY + Math.floor(random() * 14 * DAY);
      };
      const [a, b] = [pick(), pick()];
      return a <= b ? [a, b] : [b, a];
    };
    let checked = 0;
    for (const [dateField, column, dates] of [
      ["created", "date_created_in_order_source", created],
      ["updated", "date_updated", updated],
    ] as const) {
      for (let i = 0; i < 40; i++) {
        const [from, to] = points(dates) as [number, number];
        const status = random() < 0.5 ? undefined : STATUSES[Math.floor(random() * 4)];
        const query =
          `fromDate=${new Date(from).toISOString()}&toDate=${new Date(to).toISOString()}&dateField=${dateField}` + (status ? `&status=${status}` : "");
        const res = await call("GET", `/v1/${token}/Orders/count?${query}`);
        expect(res.status, res.text).toBe(200);
        expect(JSON.parse(res.text).Count, query).toBe(await bruteForce(storeId, column, from, to, status));
        checked++;
      }
    }
    expect(checked).toBe(80);
    // The whole range: every order once.
    const all = await call("GET", `/v1/${token}/Orders/count?fromDate=2000-01-01&toDate=2100-01-01`);
    expect(all.json.Count).toBe(60);
  }, 120_000);

  it("counts dates before 1970 in the right day", async () => {
    const { token } = await storeWithToken();
    await insert(token, { DateCreatedInOrderSource: "1969-12-31T23:59:59.999Z" });
    await insert(token, { DateCreatedInOrderSource: "1970-01-01T00:00:00Z" });
    const count = async (from: string, to: string) => (await call("GET", `/v1/${token}/Orders/count?fromDate=${from}&toDate=${to}`)).json.Count;
    expect(await count("1969-12-01", "1969-12-31T23:59:59.999Z")).toBe(1);
    expect(await count("1969-12-01", "1970-01-01T23:59:59.999Z")).toBe(2);
    expect(await count("1970-01-01", "1970-02-01")).toBe(1);
    expect(await count("1969-12-31", "1969-12-31T23:59:59.998Z")).toBe(0);
  });
});
