// What every console page shares: its typed context (the session, the admin API of the request,
// the store of a store's page, the notice of a failed form), the middleware that put them on
// c.var, POST-then-redirect with a fixed notice code, and a failed action shown in its page.
import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../http/errors";
import { adminApi, type AdminApi, type AppFetch } from "./admin-api";
import type { Session } from "./session";
import type { Store } from "./wire";

/** A failed form: the API's words, tied to the form and, when its Message names one, the field. */
export interface Notice {
  form?: string;
  field?: string;
  error?: string;
}

export interface ConsoleEnv {
  Bindings: Env;
  Variables: { session: Session; api: AdminApi; store: Store; notice: Notice };
}
export type C = Context<ConsoleEnv>;

/** The console's routers carry its own variables, so they are made here rather than by createRouter(). */
export const consoleRouter = () => new Hono<ConsoleEnv>();

export const enc = encodeURIComponent;

/** c.var.api: the admin API, called in-process with the Worker's admin key. */
export const withApi = (appFetch: AppFetch) =>
  createMiddleware<ConsoleEnv>(async function withApi(c, next) {
    c.set("api", adminApi(c, appFetch));
    c.set("notice", {});
    await next();
  });

/** The store of /stores/:storeId/..., read through the API; an unknown one is a page that says so. */
export const withStore = createMiddleware<ConsoleEnv>(async function withStore(c, next) {
  const res = await c.var.api.call<{ Store: Store }>("GET", `/stores/${enc(c.req.param("storeId") ?? "")}`);
  if (!res.ok) return notFound(c, "Store not found", res, { href: "/console", label: "All stores" });
  c.set("store", res.data.Store);
  await next();
});

/** A page for what the API could not find (404) or could not answer (502), in its words. */
export function notFound(c: C, title: string, res: { status: number; message: string }, back?: { href: string; label: string }, crumbs?: [string, string][]) {
  c.status(res.status === 404 ? 404 : 502);
  return c.render(
    <>
      <p class="error" role="alert">
        {res.message}
      </p>
      {back && (
        <p>
          <a href={back.href}>{back.label}</a>
        </p>
      )}
    </>,
    { title, crumbs },
  );
}

/**
 * POST, then a redirect to the page with what was done. The notice travels as a fixed code (and
 * numbers): the page says it in its own words, so no link can make the console say anything else.
 */
export function back(c: C, to: string, done: string, numbers: Record<string, number | string> = {}) {
  const query = new URLSearchParams({ done, ...Object.fromEntries(Object.entries(numbers).map(([k, v]) => [k, String(v)])) });
  return c.redirect(`${to}${to.includes("?") ? "&" : "?"}${query}`, 303);
}

/** The text of the notice a redirect named, if it is one of this page's codes. */
export function doneNotice(c: C, texts: Record<string, () => string>): string | undefined {
  const code = c.req.query("done");
  return code !== undefined && Object.hasOwn(texts, code) ? texts[code]!() : undefined;
}

/** A count a notice carries: a whole number or nothing. */
export function countParam(c: C, name: string): number {
  const value = c.req.query(name) ?? "";
  return /^\d{1,9}$/.test(value) ? Number(value) : 0;
}

/** The field a 400's Message names first ('Settings.ordersPerHour' is required → Settings.ordersPerHour). */
export function fieldOf(message: string): string | undefined {
  return /^'([^']+)'/.exec(message)?.[1]?.replace(/\[\d+\].*$/, "");
}

/** A failed action: the page again, with the API's words next to the form (or field) that caused them. */
export function failed(c: C, render: (c: C) => Response | Promise<Response>, form: string, result: { status: number; message: string }) {
  c.set("notice", { form, error: result.message, field: fieldOf(result.message) });
  c.status(result.status >= 400 && result.status < 500 ? (result.status as 400) : 502);
  return render(c);
}

export type FormBody = Record<string, string | File | (string | File)[]>;

/** The posted form, parsed once per request (the CSRF gate reads it first). */
export async function formOf(c: Context): Promise<FormBody> {
  try {
    return (await c.req.parseBody({ all: true })) as FormBody;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // A body that claims to be a form and is not (a multipart part without a name, a cut-off body).
    throw new ApiError(400, "The form could not be read: the body is not valid multipart/form-data or URL-encoded data.");
  }
}

/** A form value as text ("" when absent or a file). */
export const text = (v: unknown) => (typeof v === "string" ? v : "");
