import { Hono } from "hono";
import type { Db } from "../db/client";

/** What a request carries once it has passed authentication (src/auth/authorize.ts). */
export interface Caller {
  storeId: string;
  consumerKeyId: string;
  /** The request's D1 session: /v1 resource routes read and write through this, not getDb. */
  db: Db;
}

export interface AppEnv {
  Bindings: Env;
  Variables: { caller: Caller };
}

/** Every router is made here, so all share the typed bindings and variables. */
export function createRouter() {
  return new Hono<AppEnv>();
}
