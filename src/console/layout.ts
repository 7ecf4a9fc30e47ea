// The console's page frame and form pieces (hono/html: every interpolated value is escaped).
// Accessible by construction: a label on every control, errors tied to their field with
// aria-describedby and announced (role=alert), a skip link, landmarks, visible focus, and a layout
// that reflows to a phone's width (public/console/console.css).
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What the last action left to say: a success (done) or an error tied to a form and maybe a field. */
export interface Notice {
  done?: string;
  form?: string;
  field?: string;
  error?: string;
}

export interface PageContext {
  csrf: string;
  notice: Notice;
}

export function page(title: string, body: Html, options: { ctx?: PageContext; crumbs?: [string, string][] } = {}) {
  const ctx = options.ctx;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Order and feed hub console</title>
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <p class="brand"><a href="/console">Order and feed hub</a></p>
  ${ctx
    ? html`<nav aria-label="Main"><ul>
      <li><a href="/console">Stores</a></li>
      <li><a href="/console/maintenance">Maintenance</a></li>
      <li><a href="/docs">API reference</a></li>
      <li><form method="post" action="/console/logout">${csrfField(ctx.csrf)}<button type="submit" class="link">Sign out</button></form></li>
    </ul></nav>`
    : ""}
</header>
<main id="main" tabindex="-1">
${options.crumbs?.length
    ? html`<nav aria-label="Breadcrumb" class="crumbs"><ol>${options.crumbs.map(([label, href]) => html`<li><a href="${href}">${label}</a></li>`)}</ol></nav>`
    : ""}
<h1>${title}</h1>
${ctx?.notice.done ? html`<p class="done" role="status">${ctx.notice.done}</p>` : ""}
${body}
</main>
</body>
</html>`;
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** The error of a form, shown at its top, when the API's Message named no field of it. */
export function formError(ctx: PageContext, form: string, fields: string[] = []) {
  const n = ctx.notice;
  if (n.form !== form || !n.error || (n.field && fields.includes(n.field))) return "";
  return html`<p class="error" role="alert" id="${form}-error">${n.error}</p>`;
}

interface FieldOptions {
  form: string;
  name: string;
  label: string;
  type?: string;
  value?: string | number | null;
  required?: boolean;
  hint?: string;
  attrs?: string;
}

/** A labelled input; the API's error for this field appears right under it. */
export function field(ctx: PageContext, o: FieldOptions) {
  const id = `${o.form}-${o.name}`.replace(/[^A-Za-z0-9_-]/g, "-");
  const error = ctx.notice.form === o.form && ctx.notice.field === o.name ? ctx.notice.error : undefined;
  const described = [o.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return html`<div class="field">
  <label for="${id}">${o.label}${o.required ? "" : html` <span class="optional">(optional)</span>`}</label>
  ${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ""}
  <input id="${id}" name="${o.name}" type="${o.type ?? "text"}" value="${o.value ?? ""}"${o.required ? raw(" required") : ""}${described ? raw(` aria-describedby="${described}"`) : ""}${error ? raw(' aria-invalid="true"') : ""}${o.attrs ? raw(` ${o.attrs}`) : ""}>
  ${error ? html`<p class="error" role="alert" id="${id}-error">${error}</p>` : ""}
</div>`;
}

export function select(ctx: PageContext, o: FieldOptions & { options: [string, string][] }) {
  const id = `${o.form}-${o.name}`.replace(/[^A-Za-z0-9_-]/g, "-");
  const error = ctx.notice.form === o.form && ctx.notice.field === o.name ? ctx.notice.error : undefined;
  return html`<div class="field">
  <label for="${id}">${o.label}${o.required ? "" : html` <span class="optional">(optional)</span>`}</label>
  <select id="${id}" name="${o.name}"${error ? raw(` aria-invalid="true" aria-describedby="${id}-error"`) : ""}>
    ${o.options.map(([value, label]) => html`<option value="${value}"${String(o.value ?? "") === value ? raw(" selected") : ""}>${label}</option>`)}
  </select>
  ${error ? html`<p class="error" role="alert" id="${id}-error">${error}</p>` : ""}
</div>`;
}

export function checkbox(o: { form: string; name: string; label: string; checked?: boolean; value?: string }) {
  const id = `${o.form}-${o.name}-${o.value ?? "on"}`.replace(/[^A-Za-z0-9_-]/g, "-");
  return html`<div class="check"><input type="checkbox" id="${id}" name="${o.name}" value="${o.value ?? "on"}"${o.checked ? raw(" checked") : ""}><label for="${id}">${o.label}</label></div>`;
}

/** A table that scrolls sideways on a narrow screen (focusable, so the keyboard can scroll it). */
export function table(caption: string, headers: string[], rows: (Html | string)[][], empty = "Nothing yet.") {
  if (rows.length === 0) return html`<p class="empty">${caption}: ${empty}</p>`;
  return html`<div class="scroll" role="region" aria-label="${caption}" tabindex="0"><table>
  <caption>${caption}</caption>
  <thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${rows.map((r) => html`<tr>${r.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A date as the API gives it (ISO, UTC), shown short; "—" when absent. */
export const when = (iso: unknown) => (typeof iso === "string" ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC") : "—");

/** The field a 400's Message names first ('Settings.ordersPerHour' is required → Settings.ordersPerHour). */
export function fieldOf(message: string): string | undefined {
  return /^'([^']+)'/.exec(message)?.[1]?.replace(/\[\d+\].*$/, "");
}
