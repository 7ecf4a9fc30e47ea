// The list machinery a store's lists share (orders, returns): one page of a table's rows within
// a date range, walked in sort order along an index, so a page reads about pageSize rows whatever
// the store's size. A page starts at an offset (`page`) or after the last row of the page before
// (a cursor: its sort value and id). Knows no table: each list names its table, alias, filters,
// index and what its rows are joined to.
import type { PageStart } from "../lib/cursor";

export interface KeysetList {
  /** The table and the alias its columns are read under. */
  table: string;
  alias: string;
  /** The index the walk goes along (INDEXED BY pins it: without statistics the planner would sort the range). */
  index: string;
  storeId: string;
  /** Equality filters after the store (a status): [column, value]. */
  equals: [column: string, value: string | number][];
  /** The filtered date column, and its range (inclusive). */
  dateColumn: string;
  fromDate: number;
  toDate: number;
  /** The sort's column (`id` sorts by id alone) and direction; id breaks ties. */
  sortColumn: string;
  direction: "asc" | "desc";
  /**
   * The statement the page's ids (CTE `page`: id, sk) become, ordered as the page. Written with
   * the list's alias and direction; it binds no parameters of its own.
   */
  project(dir: "asc" | "desc"): string;
}

/**
 * The page's statement. After a cursor the walk is two index seeks (rows that tie with the last
 * one and have a greater id, then rows with a greater sort value) merged: SQLite seeks a row value
 * `(x, id) > (?, ?)` on x alone and would step through every tie.
 */
export function keysetPageStatement(list: KeysetList, limit: number, start: PageStart): { sql: string; params: unknown[] } {
  const { alias: o, sortColumn: column, dateColumn } = list;
  const desc = list.direction === "desc";
  const dir = list.direction;
  const order = column === "id" ? `${o}.id ${dir}` : `${o}.${column} ${dir}, ${o}.id ${dir}`;
  const params: unknown[] = [];
  const filter = (from: number, to: number) => {
    params.push(list.storeId, ...list.equals.map(([, value]) => value), from, to);
    return `${o}.store_id = ?${list.equals.map(([c]) => ` and ${o}.${c} = ?`).join("")} and ${o}.${dateColumn} between ? and ?`;
  };
  const select = (where: string, tail: string) =>
    `select ${o}.id as id, ${o}.${column} as sk from ${list.table} ${o} indexed by ${list.index} where ${where} order by ${order} ${tail}`;
  let ids: string;
  if ("offset" in start) {
    const where = filter(list.fromDate, list.toDate);
    params.push(limit, start.offset);
    ids = select(where, "limit ? offset ?");
  } else if (column === "id") {
    const where = `${filter(list.fromDate, list.toDate)} and ${o}.id ${desc ? "<" : ">"} ?`;
    params.push(start.after.id, limit);
    ids = select(where, "limit ?");
  } else {
    const { value, id } = start.after;
    const tieWhere = `${filter(list.fromDate, list.toDate)} and ${o}.${column} = ? and ${o}.id ${desc ? "<" : ">"} ?`;
    params.push(value, id, limit);
    const ties = select(tieWhere, "limit ?");
    let beyondWhere: string;
    if (column === dateColumn && typeof value === "number") {
      // The sort is the filtered (integer) date: narrow the range itself, so the seek starts at
      // the cursor rather than at fromDate.
      beyondWhere = desc ? filter(list.fromDate, Math.min(list.toDate, value - 1)) : filter(Math.max(list.fromDate, value + 1), list.toDate);
    } else {
      beyondWhere = `${filter(list.fromDate, list.toDate)} and ${o}.${column} ${desc ? "<" : ">"} ?`;
      params.push(value);
    }
    params.push(limit);
    const beyond = select(beyondWhere, "limit ?");
    params.push(limit);
    ids = `select id, sk from (${ties}) union all select id, sk from (${beyond}) order by sk ${dir}, id ${dir} limit ?`;
  }
  return { sql: `with page as (${ids}) ${list.project(dir)}`, params };
}
