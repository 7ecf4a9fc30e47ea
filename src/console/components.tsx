// The console's form and list pieces. Values are escaped by JSX itself. A field finds the error of
// its form in the request's notice (c.var.notice), so a page never threads it through.
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import { useRequestContext } from "hono/jsx-renderer";
import { enc, type ConsoleEnv } from "./context";
import type { Store } from "./wire";

const notice = () => useRequestContext<ConsoleEnv>().var.notice ?? {};
const session = () => useRequestContext<ConsoleEnv>().var.session;

export const CsrfField: FC<{ token?: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token ?? session().csrf} />;

/** The error of a form, shown at its top, when the API's Message named no field of it. */
export const FormError: FC<{ form: string; fields?: string[] }> = ({ form, fields = [] }) => {
  const n = notice();
  if (n.form !== form || !n.error || (n.field && fields.includes(n.field))) return null;
  return (
    <p class="error" role="alert" id={`${form}-error`}>
      {n.error}
    </p>
  );
};

/** A POST form of the console: its CSRF token and its error at the top. */
export const PostForm: FC<
  PropsWithChildren<{ action: string; name: string; fields?: string[]; class?: string; enctype?: "multipart/form-data"; data?: Record<string, string> }>
> = (p) => (
  <form
    method="post"
    action={p.action}
    class={p.class}
    enctype={p.enctype}
    {...Object.fromEntries(Object.entries(p.data ?? {}).map(([k, v]) => [`data-${k}`, v]))}
  >
    <CsrfField />
    <FormError form={p.name} fields={p.fields} />
    {p.children}
  </form>
);

interface FieldProps {
  form: string;
  name: string;
  label: string;
  required?: boolean;
  hint?: Child;
  /** The label's note when the field is optional. */
  optional?: string;
}

/** The id, hint id and error of a field of a form. */
function fieldState(o: FieldProps) {
  const id = `${o.form}-${o.name}`.replace(/[^A-Za-z0-9_-]/g, "-");
  const n = notice();
  const error = n.form === o.form && n.field === o.name ? n.error : undefined;
  const describedBy = [o.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return { id, error, describedBy, invalid: error ? "true" : undefined };
}

/** A label, a hint, the control and the API's error for this field right under it. */
const FieldFrame: FC<PropsWithChildren<FieldProps & { id: string; error?: string | undefined }>> = (o) => (
  <div class="field">
    <label for={o.id}>
      {o.label}
      {o.required ? (
        ""
      ) : (
        <>
          {" "}
          <span class="optional">({o.optional ?? "optional"})</span>
        </>
      )}
    </label>
    {o.hint ? (
      <p class="hint" id={`${o.id}-hint`}>
        {o.hint}
      </p>
    ) : null}
    {o.children}
    {o.error ? (
      <p class="error" role="alert" id={`${o.id}-error`}>
        {o.error}
      </p>
    ) : null}
  </div>
);

type InputAttributes = Record<string, string | number | boolean | undefined>;

export const Field: FC<FieldProps & { type?: string; value?: string | number | null; attrs?: InputAttributes }> = (o) => {
  const s = fieldState(o);
  return (
    <FieldFrame {...o} id={s.id} error={s.error}>
      <input
        id={s.id}
        name={o.name}
        type={o.type ?? "text"}
        value={o.value ?? ""}
        required={o.required}
        aria-describedby={s.describedBy}
        aria-invalid={s.invalid}
        {...o.attrs}
      />
    </FieldFrame>
  );
};

export const TextArea: FC<FieldProps & { rows?: number }> = (o) => {
  const s = fieldState(o);
  return (
    <FieldFrame {...o} id={s.id} error={s.error}>
      <textarea id={s.id} name={o.name} rows={o.rows ?? 4} required={o.required} aria-describedby={s.describedBy} aria-invalid={s.invalid}></textarea>
    </FieldFrame>
  );
};

export const Select: FC<FieldProps & { value?: string | null; options: readonly (readonly [string, string])[] }> = (o) => {
  const s = fieldState(o);
  return (
    <FieldFrame {...o} id={s.id} error={s.error}>
      <select id={s.id} name={o.name} aria-describedby={s.describedBy} aria-invalid={s.invalid}>
        {o.options.map(([value, label]) => (
          <option value={value} selected={String(o.value ?? "") === value}>
            {label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
};

export const Checkbox: FC<{ form: string; name: string; label: string; checked?: boolean; value?: string }> = (o) => {
  const id = `${o.form}-${o.name}-${o.value ?? "on"}`.replace(/[^A-Za-z0-9_-]/g, "-");
  return (
    <div class="check">
      <input type="checkbox" id={id} name={o.name} value={o.value ?? "on"} checked={o.checked} />
      <label for={id}>{o.label}</label>
    </div>
  );
};

/** A table that scrolls sideways on a narrow screen (focusable, so the keyboard can scroll it). */
export const Table: FC<{ caption: string; headers: string[]; rows: Child[][]; empty?: string; id?: string }> = ({
  caption,
  headers,
  rows,
  empty = "Nothing yet.",
  id,
}) => {
  if (rows.length === 0) return <p class="empty">{`${caption}: ${empty}`}</p>;
  return (
    <div class="scroll" role="region" aria-label={caption} tabindex={0}>
      <table id={id}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {headers.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              {r.map((cell) => (
                <td>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

/** An error the API answered to a read, in its words. */
export const ReadError: FC<{ res: { ok: boolean; message?: string } }> = ({ res }) =>
  res.ok ? null : (
    <p class="error" role="alert">
      {res.message}
    </p>
  );

const AMOUNT = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Money as an operator reads it: two decimals, thousands grouped, and its currency code when it
 * is known ("1,234.50 USD"); "—" when absent. Orders carry no currency in the interface: their
 * amounts are shown in the marketplace's own currency, unnamed.
 */
export const money = (amount: number | string | null | undefined, currency?: string | null) => {
  const n = typeof amount === "string" ? Number(amount) : amount;
  if (n === null || n === undefined || !Number.isFinite(n)) return typeof amount === "string" && amount ? amount : "—";
  return `${AMOUNT.format(n)}${currency ? ` ${currency}` : ""}`;
};

/** A date as the API gives it (ISO, UTC), shown short; "—" when absent. */
export const when = (iso: string | null | undefined) => (typeof iso === "string" ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC") : "—");

export const storeBase = (store: Store) => `/console/stores/${enc(store.StoreId)}`;
export const storeCrumbs = (store: Store, ...more: [string, string][]): [string, string][] => [
  ["Hub overview", "/console"],
  [store.Name, storeBase(store)],
  ...more,
];

export const StoreNav: FC<{ store: Store; current: string }> = ({ store, current }) => {
  const base = storeBase(store);
  const items: [string, string][] = [
    ["Overview", base],
    ["Settings", `${base}/settings`],
    ["Consumer keys", `${base}/keys`],
    ["Sources", `${base}/sources`],
    ["Orders", `${base}/orders`],
    ["Returns", `${base}/returns`],
    ["Catalog", `${base}/catalog`],
    ["Feeds", `${base}/feeds`],
    ["Webhooks", `${base}/webhooks`],
  ];
  return (
    <nav aria-label="Store" class="tabs">
      <ul>
        {items.map(([label, href]) => (
          <li>
            <a href={href} aria-current={label === current ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
};

/** A secret shown once, read-only with a Copy button (public/console/console.js copies it). */
export const CopyField: FC<{ id: string; label: string; value: string }> = ({ id, label, value }) => (
  <div class="field">
    <label for={id}>{label}</label>
    <div class="copy-row">
      <input id={id} type="text" readonly value={value} class="mono" />
      <button type="button" data-copy={id}>
        Copy
      </button>
    </div>
    <p class="hint" aria-live="polite" id={`${id}-copied`}></p>
  </div>
);

/** A count of a feed's warnings or errors, linked to the feed page's list of them when there are any. */
export const ProblemsLink: FC<{ href: string; count: number; what: "warnings" | "errors"; feed: string }> = ({ href, count, what, feed }) =>
  count > 0 ? (
    <a href={`${href}#problems`} aria-label={`${count} ${count === 1 ? "product" : "products"} with ${what} in ${feed}: see them`}>
      {String(count)}
    </a>
  ) : (
    <>0</>
  );
