// Console pages: a store's feeds and its catalog upload; one feed (counts, Score, compile with a
// live progress bar, download). Mounted at /console/stores/:storeId/feeds.
import { failureOf } from "../admin-api";
import { ReadError, Field, PostForm, ProblemsLink, Select, StoreNav, Table, TextArea, storeBase, storeCrumbs, when } from "../components";
import { back, consoleRouter, countParam, doneNotice, enc, failed, formOf, notFound, text, withStore, type C } from "../context";
import { DEFAULT_TEMPLATE, TEMPLATE_CHOICES } from "../../feeds/templates";
import type { CompileProgress, Feed, ImportSummary } from "../wire";

const feedApi = (c: C) => `/feeds/${enc(c.req.param("feedId") ?? "")}`;
const feedUrl = (c: C) => `${storeBase(c.var.store)}/feeds/${enc(c.req.param("feedId") ?? "")}`;

/** The store's feeds; `uploaded` is a catalog upload's answer when it rejected rows (shown here, not carried in a link). */
async function feedsPage(c: C, uploaded?: ImportSummary) {
  const store = c.var.store;
  const sid = enc(store.StoreId);
  const [res, count] = await Promise.all([
    c.var.api.call<{ Feeds: Feed[] }>("GET", `/stores/${sid}/feeds`),
    c.var.api.call<{ Count: number }>("GET", `/stores/${sid}/products/count`),
  ]);
  const feeds = res.ok ? res.data.Feeds : [];
  const base = storeBase(store);
  const first = uploaded?.Rejections[0];
  const done = uploaded
    ? `${uploaded.RowsUpserted} products stored, ${uploaded.RowsRejected} rejected${first ? ` (row ${first.Row}: ${first.Message})` : ""}.`
    : doneNotice(c, { uploaded: () => `${countParam(c, "stored")} products stored, 0 rejected.` });
  return c.render(
    <>
      <StoreNav store={store} current="Feeds" />
      <ReadError res={res} />
      <Table
        caption="Feeds"
        headers={["Name", "Format", "Status", "Score", "Valid", "Warnings", "Errors", "Compiled"]}
        rows={feeds.map((f) => [
          <a href={`${base}/feeds/${enc(f.FeedId)}`}>{f.Name}</a>,
          f.Format,
          f.Status,
          String(f.Score),
          String(f.CompilationValidCount),
          <ProblemsLink href={`${base}/feeds/${enc(f.FeedId)}`} count={f.CompilationWarningCount} what="warnings" feed={f.Name} />,
          <ProblemsLink href={`${base}/feeds/${enc(f.FeedId)}`} count={f.CompilationErrorCount} what="errors" feed={f.Name} />,
          when(f.DateLastCompiled),
        ])}
        empty="no feed yet."
      />
      <section class="card" aria-labelledby="create-feed-h">
        <h2 id="create-feed-h">Create a feed</h2>
        <PostForm action={`${base}/feeds`} name="create-feed" fields={["Name", "Format", "Template", "Columns", "CompileIntervalMinutes"]}>
          <Field form="create-feed" name="Name" label="Name" required attrs={{ maxlength: 200 }} />
          <Select
            form="create-feed"
            name="Format"
            label="Format"
            required
            value="csv"
            options={[
              ["csv", "CSV"],
              ["tsv", "TSV"],
            ]}
          />
          <Select
            form="create-feed"
            name="Template"
            label="Template"
            value={DEFAULT_TEMPLATE}
            options={TEMPLATE_CHOICES}
            hint="The channel whose fields and rules the feed follows."
          />
          <TextArea
            form="create-feed"
            name="Columns"
            label="Columns"
            optional="optional: instead of the template's"
            hint={
              <>
                One a line: <code>header=Field</code>, e.g. <code>id=Sku</code>.
              </>
            }
          />
          <Field
            form="create-feed"
            name="CompileIntervalMinutes"
            label="Compile every (minutes)"
            type="number"
            hint="At least 15; empty: only when asked."
            attrs={{ min: 15, step: 1 }}
          />
          <button type="submit">Create feed</button>
        </PostForm>
      </section>
      <section class="card" aria-labelledby="catalog-h">
        <h2 id="catalog-h">Catalog</h2>
        <p>
          {count.ok ? `${count.data.Count} products.` : count.message} <a href={`${base}/catalog`}>See them on the Catalog tab</a>, with their Quantity.
        </p>
        <PostForm action={`${base}/feeds/catalog`} name="catalog" fields={["file"]} enctype="multipart/form-data">
          <div class="field">
            <label for="catalog-file">CSV file with a header row (Sku, Title, Description, Link, ImageLink, Price, Availability, …)</label>
            <input id="catalog-file" name="file" type="file" accept=".csv,text/csv" required />
          </div>
          <button type="submit">Upload products</button>
        </PostForm>
      </section>
    </>,
    { title: "Feeds", crumbs: storeCrumbs(store), done },
  );
}

async function feedPage(c: C) {
  const store = c.var.store;
  const res = await c.var.api.call<{ Feed: Feed }>("GET", feedApi(c));
  const crumbs = storeCrumbs(store, ["Feeds", `${storeBase(store)}/feeds`]);
  if (!res.ok || res.data.Feed.StoreId !== store.StoreId)
    return notFound(
      c,
      "Feed not found",
      res.ok ? { status: 404, message: "No such feed in this store." } : { status: 404, message: res.message },
      undefined,
      crumbs,
    );
  const f = res.data.Feed;
  const base = feedUrl(c);
  const percent = f.Status === "Completed" || f.Status === "Failed" ? 100 : 0;
  return c.render(
    <>
      <StoreNav store={store} current="Feeds" />
      <dl class="facts" id="feed-facts">
        <dt>Status</dt>
        <dd id="feed-status">{f.StatusMessage ? `${f.Status}: ${f.StatusMessage}` : f.Status}</dd>
        <dt>Format</dt>
        <dd>{`${f.Format} (${f.Columns.length} columns; template ${f.Template})`}</dd>
        <dt>Score</dt>
        <dd id="feed-score">{f.Score}</dd>
        <dt>Products</dt>
        <dd id="feed-counts">
          {`${f.CompilationTotalCount} read: ${f.CompilationValidCount} valid (${f.CompilationWarningCount} with warnings), ` +
            `${f.CompilationErrorCount} with errors`}
        </dd>
        <dt>File</dt>
        <dd>
          {f.DateLastCompiled ? (
            <>
              <a href={`${base}/download`} download>
                {f.FileName}
              </a>{" "}
              ({f.FileSize} bytes, compiled {when(f.DateLastCompiled)})
            </>
          ) : (
            "not compiled yet"
          )}
        </dd>
        <dt>Schedule</dt>
        <dd>{f.CompileIntervalMinutes ? `every ${f.CompileIntervalMinutes} minutes` : "only when asked"}</dd>
      </dl>
      <section class="card" aria-labelledby="compile-h">
        <h2 id="compile-h">Compile</h2>
        <PostForm action={`${base}/compile`} name="compile" data={{ compile: `${base}/progress` }}>
          <button type="submit">Compile now</button>
        </PostForm>
        <div class="field">
          <label for="compile-progress">Progress</label>
          <progress id="compile-progress" max="100" value={percent} aria-describedby="compile-percent">
            {percent} %
          </progress>
          <p id="compile-percent" aria-live="polite">
            {`${percent} %`}
          </p>
        </div>
        <p class="error" role="alert" id="compile-error" hidden></p>
      </section>
      <h2 id="problems">What the last compile found</h2>
      <p class="hint">
        A product with errors is left out of the file (the channel would refuse it); one with warnings is written, and the channel takes it with a complaint.
        The first products with either, in Sku order:
      </p>
      <Table
        caption="First problems of the last compile"
        id="problems-table"
        headers={["Sku", "Errors", "Warnings"]}
        rows={f.Issues.map((i) => [i.Sku, i.Errors.join("; ") || "—", i.Warnings.join("; ") || "—"])}
        empty="none."
      />
    </>,
    {
      title: `Feed: ${f.Name}`,
      crumbs,
      done: doneNotice(c, { created: () => `Feed '${f.Name}' created.`, compiled: () => `Compile ${f.Status.toLowerCase()}.` }),
    },
  );
}

/** "header=Field" lines to Columns, or the line that is not one. */
function columnsOf(value: string): { columns: { Header: string; Field: string }[] } | { bad: string } {
  const lines = value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const bad = lines.find((l) => !/^[^=]+=.+$/.test(l));
  if (bad) return { bad };
  return { columns: lines.map((l) => ({ Header: l.slice(0, l.indexOf("=")).trim(), Field: l.slice(l.indexOf("=") + 1).trim() })) };
}

export const feedPages = consoleRouter()
  .use("*", withStore)
  .get("/", (c) => feedsPage(c))
  .post("/", async (c) => {
    const body = await formOf(c);
    const payload: Record<string, unknown> = { Name: text(body.Name), Format: text(body.Format) };
    const columns = columnsOf(text(body.Columns));
    if ("bad" in columns) return failed(c, feedsPage, "create-feed", { status: 400, message: `'Columns': the line '${columns.bad}' is not header=Field.` });
    if (columns.columns.length) payload.Columns = columns.columns;
    else if (text(body.Template)) payload.Template = text(body.Template);
    if (text(body.CompileIntervalMinutes).trim()) payload.CompileIntervalMinutes = Number(body.CompileIntervalMinutes);
    const res = await c.var.api.call<{ Feed: Feed }>("POST", `/stores/${enc(c.var.store.StoreId)}/feeds`, payload);
    if (!res.ok) return failed(c, feedsPage, "create-feed", res);
    return back(c, `${storeBase(c.var.store)}/feeds/${enc(res.data.Feed.FeedId)}`, "created");
  })
  .post("/catalog", async (c) => {
    const file = (await formOf(c)).file;
    if (!(file instanceof File) || file.size === 0) return failed(c, feedsPage, "catalog", { status: 400, message: "Choose a CSV file to upload." });
    const res = await c.var.api.call<ImportSummary>("PUT", `/stores/${enc(c.var.store.StoreId)}/products`, file.stream(), { contentType: "text/csv" });
    if (!res.ok) return failed(c, feedsPage, "catalog", res);
    if (res.data.RowsRejected > 0) return feedsPage(c, res.data);
    return back(c, `${storeBase(c.var.store)}/feeds`, "uploaded", { stored: res.data.RowsUpserted });
  })
  .get("/:feedId", (c) => feedPage(c))
  .post("/:feedId/compile", async (c) => {
    const res = await c.var.api.call<{ Feed: Feed }>("POST", `${feedApi(c)}/compile`);
    if (c.req.header("x-requested-with") === "fetch") {
      return c.json(res.ok ? { ok: true, status: res.data.Feed.Status } : { ok: false, message: res.message }, res.ok ? 200 : 400);
    }
    if (!res.ok) return failed(c, feedPage, "compile", res);
    return back(c, feedUrl(c), "compiled");
  })
  // What the progress bar polls: the feed's status and how far the compile has read the catalog.
  .get("/:feedId/progress", async (c) => {
    const api = c.var.api;
    const [feed, progress, count] = await Promise.all([
      api.call<{ Feed: Feed }>("GET", feedApi(c)),
      api.call<{ Compile: CompileProgress }>("GET", `${feedApi(c)}/compile`),
      api.call<{ Count: number }>("GET", `/stores/${enc(c.var.store.StoreId)}/products/count`),
    ]);
    if (!feed.ok) return c.json({ ok: false, message: feed.message }, 404);
    const compile = progress.ok ? progress.data.Compile : null;
    const running = compile?.Running ?? false;
    const rows = compile?.RowsCompiled ?? 0;
    const total = count.ok ? count.data.Count : 0;
    const status = feed.data.Feed.Status;
    const finished = !running && status !== "Compiling";
    const percent = finished ? 100 : total > 0 ? Math.min(99, Math.floor((rows / total) * 100)) : 0;
    return c.json({ ok: true, status, running, percent, message: feed.data.Feed.StatusMessage });
  })
  .get("/:feedId/download", async (c) => {
    const response = await c.var.api.raw("GET", `${feedApi(c)}/download`);
    if (response.status !== 200) return notFound(c, "Download", { ...(await failureOf(response)), status: 404 });
    const headers = new Headers();
    for (const name of ["content-type", "content-disposition", "content-length"]) {
      const value = response.headers.get(name);
      if (value) headers.set(name, value);
    }
    headers.set("cache-control", "no-store");
    return new Response(response.body, { status: 200, headers });
  });
