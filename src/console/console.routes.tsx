// /console: the operator console. Server-rendered pages (hono/jsx through one jsxRenderer) with
// plain forms (POST, then a redirect to the page with a fixed notice code), a little script for
// the copy button and the compile progress (public/console/console.js). Every read and write goes
// through the admin API in-process (admin-api.ts), so what a page shows is what the API answers;
// its errors are shown in words next to the form or field that caused them. Here: headers, CSRF,
// sign-in and the session gate, and one sub-app per resource (pages/).
import { csrf } from "hono/csrf";
import { secureHeaders } from "hono/secure-headers";
import { limitBody, MiB } from "../http/transport";
import { adminApi, type AppFetch } from "./admin-api";
import { Field } from "./components";
import { consoleRouter, formOf, text, withApi, type C } from "./context";
import { catalogPages } from "./pages/catalog";
import { feedPages } from "./pages/feeds";
import { keyPages } from "./pages/keys";
import { maintenancePages } from "./pages/maintenance";
import { orderPages } from "./pages/orders";
import { returnPages } from "./pages/returns";
import { sourcePages } from "./pages/sources";
import { storePages } from "./pages/stores";
import { webhookPages } from "./pages/webhooks";
import { renderer } from "./renderer";
import { csrfMatches, endSession, readSession, startSession, type Session } from "./session";

function loginPage(c: C, error?: string, status: 200 | 401 | 429 | 503 = 200) {
  if (error) c.set("notice", { form: "login", field: "key", error });
  c.status(status);
  return c.render(
    <form method="post" action="/console/login" class="card narrow">
      <p>
        Sign in with the service's admin key (the <code>ADMIN_API_KEY</code> secret). The key is exchanged for a session cookie that lasts 8 hours; the browser
        never keeps the key.
      </p>
      <Field form="login" name="key" label="Admin key" type="password" required attrs={{ autocomplete: "current-password" }} />
      <button type="submit">Sign in</button>
    </form>,
    { title: "Sign in", signedOut: true },
  );
}

export function consoleRoutes(appFetch: AppFetch) {
  const router = consoleRouter();

  router.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
      referrerPolicy: "same-origin",
    }),
    // A form posted from another origin is refused before anything else (Origin / Sec-Fetch-Site).
    csrf(),
    limitBody(16 * MiB),
    async function noStore(c, next) {
      c.header("Cache-Control", "no-store");
      await next();
    },
    withApi(appFetch),
    renderer,
  );

  // ---- Sign in and out ----------------------------------------------------------------------
  router.get("/login", async (c) => {
    // The sign-in page opens even when the database does not answer.
    if (await readSession(c).catch(() => null)) return c.redirect("/console", 303);
    return loginPage(c);
  });

  router.post("/login", async (c) => {
    const key = text((await formOf(c)).key).trim();
    // The key is checked by the admin API itself: 200 on a harmless read means it is the key (and
    // a wrong one counts against this address there). A key no header can carry (a CR/LF, a
    // character above U+00FF) cannot be it: wrong, without a call.
    const sendable = /^[\x20-\x7e]+$/.test(key);
    const probe = sendable ? await adminApi(c, appFetch, key).call("GET", "/maintenance") : { ok: false as const, status: 403, message: "" };
    if (!probe.ok && probe.status === 429) return loginPage(c, probe.message, 429);
    if (!probe.ok) return loginPage(c, key ? "That admin key is not valid. Check the ADMIN_API_KEY secret." : "Enter the admin key.", 401);
    await startSession(c);
    return c.redirect("/console", 303);
  });

  // Everything below needs a session; a state-changing request also needs its CSRF token.
  router.use("*", async function sessionGate(c, next) {
    let current: Session | null;
    try {
      current = await readSession(c);
    } catch {
      // Whether this session was signed out is unknown: closed, and said so.
      return c.text("The console's database did not answer; try again in a moment.", 503, { "Retry-After": "5" });
    }
    if (!current) {
      if (c.req.method === "GET") return c.redirect("/console/login", 303);
      return c.text("Your session has ended; sign in again.", 401);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const body = await formOf(c);
      if (!csrfMatches(current, body._csrf ?? c.req.header("x-csrf-token"))) {
        return c.text("This form has expired or did not come from the console; reload the page and try again.", 403);
      }
    }
    c.set("session", current);
    await next();
  });

  router.post("/logout", async (c) => {
    if (await endSession(c, c.var.session)) return c.redirect("/console/login", 303);
    return loginPage(
      c,
      "You are signed out in this browser, but the service's database did not record it: a copy of this session's cookie stays valid until it expires " +
        "(rotate ADMIN_API_KEY to end every session).",
      503,
    );
  });

  router.route("/", storePages);
  router.route("/maintenance", maintenancePages);
  router.route("/stores/:storeId/keys", keyPages);
  router.route("/stores/:storeId/sources", sourcePages);
  router.route("/stores/:storeId/orders", orderPages);
  router.route("/stores/:storeId/returns", returnPages);
  router.route("/stores/:storeId/catalog", catalogPages);
  router.route("/stores/:storeId/feeds", feedPages);
  router.route("/stores/:storeId/webhooks", webhookPages);
  return router;
}
