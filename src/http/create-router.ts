import { Hono } from "hono";

/** What a request carries once it has passed authentication (src/auth/authorize.ts). */
export interface Caller {
  storeId: string;
  consumerKeyId: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: { caller: Caller };
}

/** Every router is made here, so all share the typed bindings and variables. */
export function createRouter() {
  return new Hono<AppEnv>();
}
