// What every console page shares: the admin API of the request, the page context (CSRF token,
// notice), POST-then-redirect, a failed action shown in the page, form parsing, and the store that
// most pages belong to (loaded through the API, with its tab bar and breadcrumbs).
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../http/create-router";
import { ApiError } from "../http/errors";
import { adminApi, type AppFetch } from "./admin-api";
import { fieldOf, page, type Notice, type PageContext } from "./layout";
import type { Session } from "./session";

export type C = Context<AppEnv>;
export type Row = Record<string, unknown>;
export type Router = Hono<AppEnv>;

export const ORDERS_PER_PAGE = 25;

export const enc = encodeURIComponent;
export const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));

export function makeKit(appFetch: AppFetch, sessions: WeakMap<Request, Session>) {
  const api = (c: C) => adminApi(c, appFetch);
  const session = (c: C) => sessions.get(c.req.raw)!;
  const ctxOf = (c: C, notice: Notice = {}): PageContext => ({
    csrf: session(c).csrf,
    notice: { done: c.req.query("done"), ...notice },
  });
  const back = (c: C, to: string, done: string) => c.redirect(`${to}${to.includes("?") ? "&" : "?"}done=${enc(done)}`, 303);

  /** A failed action: the page again, with the API's words next to the form (or field) that caused them. */
  function failed(c: C, render: (c: C, notice: Notice) => Promise<Response>, form: string, result: { status: number; message: string }) {
    return render(c, { form, error: result.message, field: fieldOf(result.message) }).then((response) => {
      return new Response(response.body, { status: result.status >= 400 && result.status < 500 ? result.status : 502, headers: response.headers });
    });
  }

  async function form(c: C): Promise<Record<string, string | File | (string | File)[]>> {
    try {
      return (await c.req.parseBody({ all: true })) as Record<string, string | File | (string | File)[]>;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // A body that claims to be a form and is not (a multipart part without a name, a cut-off body).
      throw new ApiError(400, "The form could not be read: the body is not valid multipart/form-data or URL-encoded data.");
    }
  }


  async function loadStore(c: C): Promise<{ store: Row } | Response> {
    const res = await api(c).call<{ Store: Row }>("GET", `/stores/${enc(c.req.param("storeId") ?? "")}`);
    if (!res.ok) return c.html(page("Store not found", html`<p class="error" role="alert">${res.message}</p><p><a href="/console">All stores</a></p>`, { ctx: ctxOf(c) }), res.status === 404 ? 404 : 502);
    return { store: res.data.Store };
  }

  const storeNav = (store: Row, current: string) => {
    const base = `/console/stores/${enc(str(store.StoreId))}`;
    const items: [string, string][] = [["Settings", base], ["Consumer keys", `${base}/keys`], ["Sources", `${base}/sources`], ["Orders", `${base}/orders`], ["Feeds", `${base}/feeds`]];
    return html`<nav aria-label="Store" class="tabs"><ul>${items.map(
      ([label, href]) => html`<li><a href="${href}"${label === current ? html` aria-current="page"` : ""}>${label}</a></li>`,
    )}</ul></nav>`;
  };
  const storeCrumbs = (store: Row): [string, string][] => [["Stores", "/console"], [str(store.Name), `/console/stores/${enc(str(store.StoreId))}`]];


  return { api, ctxOf, back, failed, form, loadStore, storeNav, storeCrumbs };
}

export type Kit = ReturnType<typeof makeKit>;
