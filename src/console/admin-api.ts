// The console's only way to data: the admin API, called in-process through the app itself (the
// same middleware, validation and answers as any operator's curl), with the admin key from the
// Worker's secret. The browser never holds the key. Every answer is read here, once: a page gets
// the envelope's fields or the API's Message.
import type { Context } from "hono";

export type AppFetch = (request: Request, env: Env, ctx: Context["executionCtx"]) => Response | Promise<Response>;

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; message: string };

export interface AdminApi {
  /** A JSON body, or (with a content type) a raw one such as a streamed CSV upload. */
  call<T>(method: string, path: string, body?: unknown, init?: { contentType: string }): Promise<ApiResult<T>>;
  /** The raw answer (a file download); read a failure with failureOf. */
  raw(method: string, path: string): Promise<Response>;
  /** A route outside /admin/v1 that needs no key (the OpenAPI document). */
  publicJson<T>(path: string): Promise<T>;
}

/** The envelope of an answer, or the API's Message when it is not a success. */
async function readAnswer<T>(response: Response): Promise<ApiResult<T>> {
  let json: { Success?: boolean; Message?: string } | null = null;
  try {
    json = (await response.json()) as { Success?: boolean; Message?: string };
  } catch {
    json = null;
  }
  if (response.status === 200 && json?.Success) return { ok: true, status: 200, data: json as T };
  return { ok: false, status: response.status, message: json?.Message || `The service answered ${response.status}.` };
}

/** What a raw answer that is not a success says. */
export async function failureOf(response: Response): Promise<{ status: number; message: string }> {
  const answer = await readAnswer<unknown>(response);
  return answer.ok ? { status: 502, message: "The service answered with no file." } : answer;
}

export function adminApi<E extends { Bindings: Env }>(c: Context<E>, appFetch: AppFetch, key = c.env.ADMIN_API_KEY ?? ""): AdminApi {
  const origin = new URL(c.req.url).origin;
  const send = (method: string, path: string, init: { body?: BodyInit | null; contentType?: string; accept?: string; auth?: boolean } = {}) => {
    const headers = new Headers({ accept: init.accept ?? "application/json" });
    if (init.auth !== false) headers.set("authorization", `Bearer ${key}`);
    if (init.contentType) headers.set("content-type", init.contentType);
    const ip = c.req.header("cf-connecting-ip");
    if (ip) headers.set("cf-connecting-ip", ip);
    return Promise.resolve(appFetch(new Request(`${origin}${path}`, { method, headers, body: init.body ?? null }), c.env, c.executionCtx));
  };
  return {
    async call<T>(method: string, path: string, body?: unknown, init?: { contentType: string }) {
      const request = init
        ? { body: body as BodyInit, contentType: init.contentType }
        : body === undefined
          ? {}
          : { body: JSON.stringify(body), contentType: "application/json" };
      return readAnswer<T>(await send(method, `/admin/v1${path}`, request));
    },
    raw(method, path) {
      return send(method, `/admin/v1${path}`, { accept: "*/*" });
    },
    async publicJson<T>(path: string): Promise<T> {
      const response = await send("GET", path, { auth: false });
      return (await response.json()) as T;
    },
  };
}
