// The source page's stock and price section (decisions 11): whether the hub pushes to this source,
// counts per listing status, and each Sku's accepted and pending quantity and price, filtered by
// status and Sku through GET .../sources/:sourceId/listings. Paged by the API's NextAfter.
import type { FC } from "hono/jsx";
import { LISTING_STATES } from "../../db/schema";
import type { ApiResult } from "../admin-api";
import { Field, FormError, Select, Table, money, when } from "../components";
import type { C } from "../context";
import type { Listing, Listings } from "../wire";

const PER_PAGE = 100;

/** What an operator reads for each Push value. */
const PUSH_WORDS: Record<Listings["Push"], string> = {
  Enabled: "Enabled: each cycle sends what changed",
  ImportOnly: "Import only (Settings.pushStock is false): nothing is sent",
  NotApplicable: "Not applicable: this marketplace takes no stock or price",
};

const STATUS_WORDS: Record<Listing["Status"], string> = {
  pending: "Pending",
  submitted: "Submitted",
  accepted: "Accepted",
  unknownSku: "Unknown Sku",
  refused: "Refused",
};

export type ListingsFilter = { sku: string; status: string; after: string };

export const listingsFilter = (c: C): ListingsFilter => ({
  sku: (c.req.query("sku") ?? "").trim(),
  status: (c.req.query("status") ?? "").trim(),
  after: c.req.query("after") ?? "",
});

/** The listings the filter asks for; an empty field is no filter, anything else is the API's to judge. */
export function loadListings(c: C, sourcePath: string, f: ListingsFilter) {
  const params = new URLSearchParams({ limit: String(PER_PAGE) });
  if (f.sku) params.set("sku", f.sku);
  if (f.status) params.set("status", f.status);
  if (f.after) params.set("after", f.after);
  return c.var.api.call<Listings>("GET", `${sourcePath}/listings?${params}`);
}

const num = (n: number | null) => (n === null ? "—" : String(n));

export const ListingsSection: FC<{ res: ApiResult<Listings>; filter: ListingsFilter }> = ({ res, filter }) => {
  const data = res.ok ? res.data : null;
  const next = new URLSearchParams();
  if (filter.sku) next.set("sku", filter.sku);
  if (filter.status) next.set("status", filter.status);
  if (data?.NextAfter) next.set("after", data.NextAfter);
  return (
    <section aria-labelledby="listings-h">
      <h2 id="listings-h">Stock and price</h2>
      {data ? (
        <dl class="facts" id="listings-facts">
          <dt>Push</dt>
          <dd data-push={data.Push}>{PUSH_WORDS[data.Push]}</dd>
          <dt>Listings</dt>
          <dd>
            {data.Counts.Pending} pending, {data.Counts.Submitted} submitted, {data.Counts.Accepted} accepted, {data.Counts.UnknownSku} unknown Sku,{" "}
            {data.Counts.Refused} refused
          </dd>
        </dl>
      ) : null}
      <form method="get" action="#listings-h" class="card search" role="search" aria-label="Listings">
        <FormError form="listings" fields={["sku", "status"]} />
        <Field form="listings" name="sku" label="Sku" value={filter.sku} hint="Exactly." attrs={{ maxlength: 100 }} />
        <Select
          form="listings"
          name="status"
          label="Status"
          value={filter.status}
          options={[["", "Any"], ...LISTING_STATES.map((s) => [s, STATUS_WORDS[s]] as const)]}
        />
        <button type="submit">Filter listings</button>
      </form>
      <Table
        caption="Listings"
        id="listings"
        headers={["Sku", "Status", "Accepted quantity", "Accepted price", "Accepted", "Pending quantity", "Pending price", "Attempts", "Last error"]}
        rows={(data?.Listings ?? []).map((l) => [
          l.Sku,
          // A submitted Sku names the marketplace's feed, so the operator can look it up there.
          l.Status === "submitted" && l.Submission ? `${STATUS_WORDS.submitted} (${l.Submission})` : STATUS_WORDS[l.Status],
          num(l.AcceptedQuantity),
          money(l.AcceptedPrice, l.Currency),
          when(l.DateAccepted),
          num(l.PendingQuantity),
          money(l.PendingPrice, l.Currency),
          String(l.Attempts),
          l.LastError || "—",
        ])}
        empty="none."
      />
      {data?.NextAfter ? <a href={`?${next}#listings-h`}>Next listings</a> : null}
    </section>
  );
};
