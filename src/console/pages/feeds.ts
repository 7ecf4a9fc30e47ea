// Console pages: a store's feeds and its catalog upload; one feed (counts, Score, compile with a
// live progress bar, download).
import { html } from "hono/html";
import { enc, str, type C, type Kit, type Router, type Row } from "../kit";
import { csrfField, field, formError, page, select, table, when, type Notice } from "../layout";

export function feedPages(router: Router, kit: Kit) {
  const { api, ctxOf, back, failed, form, loadStore, storeNav, storeCrumbs } = kit;

  async function feedsPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const a = api(c);
    const sid = enc(str(store.StoreId));
    const [res, count] = await Promise.all([a.call<{ Feeds: Row[] }>("GET", `/stores/${sid}/feeds`), a.call<{ Count: number }>("GET", `/stores/${sid}/products/count`)]);
    const feeds = res.ok ? res.data.Feeds : [];
    const base = `/console/stores/${sid}`;
    return c.html(
      page(
        "Feeds",
        html`${storeNav(store, "Feeds")}${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
${table(
  "Feeds",
  ["Name", "Format", "Status", "Score", "Valid", "Warnings", "Errors", "Compiled"],
  feeds.map((f) => [
    html`<a href="${base}/feeds/${enc(str(f.FeedId))}">${str(f.Name)}</a>`,
    str(f.Format),
    str(f.Status),
    str(f.Score),
    str(f.CompilationValidCount),
    str(f.CompilationWarningCount),
    str(f.CompilationErrorCount),
    when(f.DateLastCompiled),
  ]),
  "no feed yet.",
)}
<section class="card" aria-labelledby="create-feed-h">
  <h2 id="create-feed-h">Create a feed</h2>
  <form method="post" action="${base}/feeds">${csrfField(ctx.csrf)}${formError(ctx, "create-feed", ["Name", "Format", "Template", "Columns", "CompileIntervalMinutes"])}
    ${field(ctx, { form: "create-feed", name: "Name", label: "Name", required: true, attrs: 'maxlength="200"' })}
    ${select(ctx, { form: "create-feed", name: "Format", label: "Format", required: true, value: "csv", options: [["csv", "CSV"], ["tsv", "TSV"]] })}
    ${select(ctx, { form: "create-feed", name: "Template", label: "Template", value: "google-shopping", options: [["google-shopping", "Google Shopping"]] })}
    <div class="field">
      <label for="create-feed-Columns">Columns <span class="optional">(optional: instead of the template's)</span></label>
      <p class="hint" id="create-feed-Columns-hint">One a line: <code>header=Field</code>, e.g. <code>id=Sku</code>.</p>
      <textarea id="create-feed-Columns" name="Columns" rows="4" aria-describedby="create-feed-Columns-hint"></textarea>
      ${ctx.notice.form === "create-feed" && ctx.notice.field === "Columns" ? html`<p class="error" role="alert">${ctx.notice.error}</p>` : ""}
    </div>
    ${field(ctx, { form: "create-feed", name: "CompileIntervalMinutes", label: "Compile every (minutes)", type: "number", hint: "At least 15; empty: only when asked.", attrs: 'min="15" step="1"' })}
    <button type="submit">Create feed</button>
  </form>
</section>
<section class="card" aria-labelledby="catalog-h">
  <h2 id="catalog-h">Catalog</h2>
  <p>${count.ok ? `${count.data.Count} products.` : count.message}</p>
  <form method="post" action="${base}/catalog" enctype="multipart/form-data">${csrfField(ctx.csrf)}${formError(ctx, "catalog", ["file"])}
    <div class="field"><label for="catalog-file">CSV file with a header row (Sku, Title, Description, Link, ImageLink, Price, Availability, …)</label>
    <input id="catalog-file" name="file" type="file" accept=".csv,text/csv" required></div>
    <button type="submit">Upload products</button>
  </form>
</section>`,
        { ctx, crumbs: storeCrumbs(store) },
      ),
    );
  }
  router.get("/stores/:storeId/feeds", (c) => feedsPage(c));
  router.post("/stores/:storeId/feeds", async (c) => {
    const body = await form(c);
    const payload: Row = { Name: str(body.Name), Format: str(body.Format) };
    const columns = str(body.Columns)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    if (columns.length) {
      const bad = columns.find((l) => !/^[^=]+=.+$/.test(l));
      if (bad) return failed(c, feedsPage, "create-feed", { status: 400, message: `'Columns': the line '${bad}' is not header=Field.` });
      payload.Columns = columns.map((l) => ({ Header: l.slice(0, l.indexOf("=")).trim(), Field: l.slice(l.indexOf("=") + 1).trim() }));
    } else if (str(body.Template)) payload.Template = str(body.Template);
    if (str(body.CompileIntervalMinutes).trim()) payload.CompileIntervalMinutes = Number(body.CompileIntervalMinutes);
    const res = await api(c).call<{ Feed: Row }>("POST", `/stores/${enc(c.req.param("storeId"))}/feeds`, payload);
    if (!res.ok) return failed(c, feedsPage, "create-feed", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}/feeds/${enc(str(res.data.Feed.FeedId))}`, `Feed '${str(res.data.Feed.Name)}' created.`);
  });
  router.post("/stores/:storeId/catalog", async (c) => {
    const body = await form(c);
    const file = body.file;
    if (!(file instanceof File) || file.size === 0) return failed(c, feedsPage, "catalog", { status: 400, message: "Choose a CSV file to upload." });
    const response = await api(c).raw("PUT", `/stores/${enc(c.req.param("storeId"))}/products`, { body: file.stream(), contentType: "text/csv" });
    const json = (await response.json().catch(() => null)) as Row | null;
    if (response.status !== 200 || !json) return failed(c, feedsPage, "catalog", { status: response.status, message: str(json?.Message) || `The service answered ${response.status}.` });
    const rejected = Number(json.RowsRejected);
    const first = (json.Rejections as Row[])[0];
    return back(
      c,
      `/console/stores/${enc(c.req.param("storeId"))}/feeds`,
      `${str(json.RowsUpserted)} products stored, ${rejected} rejected${first ? ` (row ${str(first.Row)}: ${str(first.Message)})` : ""}.`,
    );
  });

  const feedApi = (c: C) => `/feeds/${enc(c.req.param("feedId") ?? "")}`;
  async function feedPage(c: C, notice: Notice = {}) {
    const loaded = await loadStore(c);
    if (loaded instanceof Response) return loaded;
    const { store } = loaded;
    const ctx = ctxOf(c, notice);
    const res = await api(c).call<{ Feed: Row }>("GET", feedApi(c));
    const crumbs: [string, string][] = [...storeCrumbs(store), ["Feeds", `/console/stores/${enc(str(store.StoreId))}/feeds`]];
    if (!res.ok || res.data.Feed.StoreId !== store.StoreId) {
      return c.html(page("Feed not found", html`<p class="error" role="alert">${res.ok ? "No such feed in this store." : res.message}</p>`, { ctx, crumbs }), 404);
    }
    const f = res.data.Feed;
    const base = `/console/stores/${enc(str(store.StoreId))}/feeds/${enc(str(f.FeedId))}`;
    const percent = f.Status === "Completed" || f.Status === "Failed" ? 100 : 0;
    return c.html(
      page(
        `Feed: ${str(f.Name)}`,
        html`${storeNav(store, "Feeds")}
<dl class="facts" id="feed-facts">
  <dt>Status</dt><dd id="feed-status">${str(f.Status)}${f.StatusMessage ? `: ${str(f.StatusMessage)}` : ""}</dd>
  <dt>Format</dt><dd>${str(f.Format)} (${f.Columns ? (f.Columns as Row[]).length : 0} columns; template ${str(f.Template)})</dd>
  <dt>Score</dt><dd id="feed-score">${str(f.Score)}</dd>
  <dt>Products</dt><dd id="feed-counts">${str(f.CompilationTotalCount)} read: ${str(f.CompilationValidCount)} valid (${str(f.CompilationWarningCount)} with warnings), ${str(f.CompilationErrorCount)} with errors</dd>
  <dt>File</dt><dd>${f.DateLastCompiled ? html`<a href="${base}/download" download>${str(f.FileName)}</a> (${str(f.FileSize)} bytes, compiled ${when(f.DateLastCompiled)})` : "not compiled yet"}</dd>
  <dt>Schedule</dt><dd>${f.CompileIntervalMinutes ? `every ${str(f.CompileIntervalMinutes)} minutes` : "only when asked"}</dd>
</dl>
<section class="card" aria-labelledby="compile-h">
  <h2 id="compile-h">Compile</h2>
  <form method="post" action="${base}/compile" data-compile="${base}/progress">${csrfField(ctx.csrf)}${formError(ctx, "compile")}
    <button type="submit">Compile now</button>
  </form>
  <div class="field">
    <label for="compile-progress">Progress</label>
    <progress id="compile-progress" max="100" value="${percent}" aria-describedby="compile-percent">${percent} %</progress>
    <p id="compile-percent" aria-live="polite">${percent} %</p>
  </div>
  <p class="error" role="alert" id="compile-error" hidden></p>
</section>
${table(
  "First problems of the last compile",
  ["Sku", "Errors", "Warnings"],
  ((f.Issues as Row[]) ?? []).map((i) => [str(i.Sku), (i.Errors as string[]).join("; ") || "—", (i.Warnings as string[]).join("; ") || "—"]),
  "none.",
)}`,
        { ctx, crumbs },
      ),
    );
  }
  router.get("/stores/:storeId/feeds/:feedId", (c) => feedPage(c));
  router.post("/stores/:storeId/feeds/:feedId/compile", async (c) => {
    const res = await api(c).call<{ Feed: Row }>("POST", `${feedApi(c)}/compile`);
    if (c.req.header("x-requested-with") === "fetch") {
      return c.json(res.ok ? { ok: true, status: res.data.Feed.Status } : { ok: false, message: res.message }, res.ok ? 200 : 400);
    }
    if (!res.ok) return failed(c, feedPage, "compile", res);
    return back(c, `/console/stores/${enc(c.req.param("storeId"))}/feeds/${enc(c.req.param("feedId"))}`, `Compile ${str(res.data.Feed.Status).toLowerCase()}.`);
  });
  // What the progress bar polls: the feed's status and how far the compile has read the catalog.
  router.get("/stores/:storeId/feeds/:feedId/progress", async (c) => {
    const a = api(c);
    const [feed, progress, count] = await Promise.all([
      a.call<{ Feed: Row }>("GET", feedApi(c)),
      a.call<{ Compile: Row | null }>("GET", `${feedApi(c)}/compile`),
      a.call<{ Count: number }>("GET", `/stores/${enc(c.req.param("storeId"))}/products/count`),
    ]);
    if (!feed.ok) return c.json({ ok: false, message: feed.message }, 404);
    const running = progress.ok && progress.data.Compile ? Boolean(progress.data.Compile.Running) : false;
    const rows = progress.ok && progress.data.Compile ? Number(progress.data.Compile.RowsCompiled) : 0;
    const total = count.ok ? count.data.Count : 0;
    const status = str(feed.data.Feed.Status);
    const finished = !running && status !== "Compiling";
    const percent = finished ? 100 : total > 0 ? Math.min(99, Math.floor((rows / total) * 100)) : 0;
    return c.json({ ok: true, status, running, percent, message: str(feed.data.Feed.StatusMessage) });
  });
  router.get("/stores/:storeId/feeds/:feedId/download", async (c) => {
    const response = await api(c).raw("GET", `${feedApi(c)}/download`);
    if (response.status !== 200) {
      const json = (await response.json().catch(() => null)) as Row | null;
      return c.html(page("Download", html`<p class="error" role="alert">${str(json?.Message) || `The service answered ${response.status}.`}</p>`, { ctx: ctxOf(c) }), 404);
    }
    const headers = new Headers();
    for (const name of ["content-type", "content-disposition", "content-length"]) {
      const value = response.headers.get(name);
      if (value) headers.set(name, value);
    }
    headers.set("cache-control", "no-store");
    return new Response(response.body, { status: 200, headers });
  });

}
