// SQL pieces every table's owner module shares.
import { sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * `column in (ids)` with one bound parameter whatever the number of ids: D1 binds at most 100
 * parameters a statement, so the ids travel as one JSON array that json_each unpacks.
 */
export function idIn(column: AnySQLiteColumn, ids: readonly (number | string)[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
}
