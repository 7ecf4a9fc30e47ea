// The drizzle database type, the one way a D1 database becomes one (dbOf), and a drizzle database
// on a D1 session (openSession) that a deployment with read replication serves from the nearest
// replica, sequentially consistent from where it starts (a bookmark, or a constraint) and through
// its own writes. Which D1 database to open: src/db/shards.ts.
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";

/**
 * Without drizzle's relational API (`db.query`, which nothing here uses): given the schema,
 * drizzle() walks every table and relation of it on each call, about 0.2-1 ms of CPU, and every
 * /v1 call opens a database.
 */
export type Db = DrizzleD1Database & { $client: D1Database };

/** A drizzle database over a D1 database (or a session, or a wrapper counting statements). */
export function dbOf(d1: D1Database): Db {
  return drizzle(d1);
}

export interface DbSession {
  db: Db;
  /** The latest bookmark of what this session read or wrote; null before its first query. */
  bookmark(): string | null;
}

/**
 * A drizzle database on `d1.withSession(start)`. drizzle's D1 driver calls only prepare() and
 * batch() on its client (and so does every raw statement here, through db.$client), which a
 * session has; the session is handed over as a D1Database whose other methods say they are
 * not there, instead of failing with "undefined is not a function".
 */
export function openSession(d1: D1Database, start: D1SessionBookmark | D1SessionConstraint): DbSession {
  const session = d1.withSession(start);
  const absent = (name: string) => () => {
    throw new Error(`${name}() is not available on a D1 session`);
  };
  const client: D1Database = {
    prepare: (query) => session.prepare(query),
    batch: (statements) => session.batch(statements),
    exec: absent("exec"),
    dump: absent("dump"),
    withSession: absent("withSession"),
  };
  return { db: dbOf(client), bookmark: () => session.getBookmark() };
}
