// The console's page frame, one jsxRenderer for every page: head, skip link, landmarks, the main
// navigation (with sign-out) once signed in, breadcrumbs, the h1 and the success notice. Pages
// call c.render(body, { title, crumbs, done }). Accessible by construction: a label on every
// control, errors tied to their field and announced, visible focus, and a layout that reflows to a
// phone's width (public/console/console.css).
import { jsxRenderer } from "hono/jsx-renderer";
import type { ConsoleEnv } from "./context";
import type { Session } from "./session";
import { CsrfField } from "./components";

export interface PageProps {
  title: string;
  crumbs?: [string, string][] | undefined;
  /** What the last action did (from its fixed notice code). */
  done?: string | undefined;
  /** The sign-in pages: no navigation, whatever the request carries. */
  signedOut?: boolean;
}

declare module "hono" {
  interface ContextRenderer {
    (content: string | Promise<string>, props: PageProps): Response | Promise<Response>;
  }
}

export const renderer = jsxRenderer<ConsoleEnv>(({ children, title, crumbs, done, signedOut }, c) => {
  // Unset on the sign-in pages and before the session gate.
  const session = signedOut ? undefined : (c.var.session as Session | undefined);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Order and feed hub console`}</title>
        <link rel="icon" href="/favicon.ico" sizes="32x32" />
        <link rel="stylesheet" href="/console/console.css" />
        <script src="/console/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <p class="brand">
            <a href="/console">Order and feed hub</a>
          </p>
          {session && (
            <nav aria-label="Main">
              <ul>
                <li>
                  <a href="/console">Overview</a>
                </li>
                <li>
                  <a href="/console/maintenance">Maintenance</a>
                </li>
                <li>
                  <a href="/docs">API reference</a>
                </li>
                <li>
                  <form method="post" action="/console/logout">
                    <CsrfField token={session.csrf} />
                    <button type="submit" class="link">
                      Sign out
                    </button>
                  </form>
                </li>
              </ul>
            </nav>
          )}
        </header>
        <main id="main" tabindex={-1}>
          {crumbs?.length ? (
            <nav aria-label="Breadcrumb" class="crumbs">
              <ol>
                {crumbs.map(([label, href]) => (
                  <li>
                    <a href={href}>{label}</a>
                  </li>
                ))}
              </ol>
            </nav>
          ) : null}
          <h1>{title}</h1>
          {done && (
            <p class="done" role="status">
              {done}
            </p>
          )}
          {children}
        </main>
      </body>
    </html>
  );
});
