// The console's only way to data: the admin API, called in-process through the app itself (the
// same middleware, validation and answers as any operator's curl), with the admin key from the
// Worker's secret. The browser never holds the key.
import type { Context } from "hono";
import type { AppEnv } from "../http/create-router";

export type AppFetch = (request: Request, env: Env, ctx: Context<AppEnv>["executionCtx"]) => Response | Promise<Response>;

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; message: string };

export interface AdminApi {
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ApiResult<T>>;
  /** The raw answer (a file download, a streamed upload). */
  raw(method: string, path: string, init?: { body?: BodyInit | null; contentType?: string }): Promise<Response>;
  /** A route outside /admin/v1 that needs no key (the OpenAPI document). */
  publicJson<T>(path: string): Promise<T>;
}

export function adminApi(c: Context<AppEnv>, appFetch: AppFetch, key = c.env.ADMIN_API_KEY ?? ""): AdminApi {
  const origin = new URL(c.req.url).origin;
  const send = (method: string, path: string, init: { body?: BodyInit | null; contentType?: string; accept?: string; auth?: boolean } = {}) => {
    const headers = new Headers({ accept: init.accept ?? "application/json" });
    if (init.auth !== false) headers.set("authorization", `Bearer ${key}`);
    if (init.contentType) headers.set("content-type", init.contentType);
    const ip = c.req.header("cf-connecting-ip");
    if (ip) headers.set("cf-connecting-ip", ip);
    return appFetch(new Request(`${origin}${path}`, { method, headers, body: init.body ?? null }), c.env, c.executionCtx);
  };
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
      const response = await send(method, `/admin/v1${path}`, body === undefined ? {} : { body: JSON.stringify(body), contentType: "application/json" });
      let json: { Success?: boolean; Message?: string } | null = null;
      try {
        json = (await response.json()) as { Success?: boolean; Message?: string };
      } catch {
        json = null;
      }
      if (response.status === 200 && json?.Success) return { ok: true, status: 200, data: json as T };
      return { ok: false, status: response.status, message: json?.Message || `The service answered ${response.status}.` };
    },
    raw(method, path, init = {}) {
      return Promise.resolve(send(method, `/admin/v1${path}`, { ...init, accept: "*/*" }));
    },
    async publicJson<T>(path: string): Promise<T> {
      const response = await send("GET", path, { auth: false });
      return (await response.json()) as T;
    },
  };
}
