// The overviews (issue 24) in Chromium against a real local server: a hub with a failing source,
// a failed delivery and a failed compile shows each under "Needs attention" with a link to where
// it is mended; each chart's numbers are the table's beside it and the admin API's, and its bars
// are drawn to scale; axe finds no serious or critical violation; at 1366 px every table box
// shows all its columns (no sideways scroll) and the page uses the width (issue 34); the hub and
// the store overview are screenshotted to test-results/overview/ (git-ignored), and the store
// overview at 1366 px is kept in docs/screenshots/ (docs/console.md shows it).
import { mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, request, startServer, type Server } from "./server";

const SHOTS = "test-results/overview";
const KEPT = "docs/screenshots";
const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const DAY = 86_400_000;

let server: Server;
let browser: Browser;
let page: Page;
const failedRequests: string[] = [];

/** At 1366 px: no table box scrolls sideways (every column shown whole) and main has no wide empty margin. */
async function tablesFit(name: string) {
  expect(await page.evaluate(() => window.innerWidth), name).toBe(1366);
  const overflowing = await page
    .locator(".scroll")
    .evaluateAll((boxes) =>
      boxes.filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => `${b.getAttribute("aria-label")}: ${b.scrollWidth} > ${b.clientWidth}`),
    );
  expect(overflowing, name).toEqual([]);
  const left = await page.locator("main").evaluate((m) => m.getBoundingClientRect().left + Number.parseFloat(getComputedStyle(m).paddingLeft));
  expect(left, name).toBeLessThanOrEqual(32);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true);
}

const adminCall = async (method: string, path: string, body?: unknown) => {
  const res = await request(server.base, method, `/admin/v1${path}`, { body, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.json!;
};

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(KEPT, { recursive: true });
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROME,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    timeout: 60_000,
  });
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1366, height: 900 } });
  page = await context.newPage();
  // Every request a console page makes answers (the favicon too): no 404 in the console.
  page.on("response", (response) => {
    if (response.status() >= 400) failedRequests.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await server?.stop();
});

async function axe(name: string) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  expect(serious, `axe on ${name}`).toEqual([]);
}

/** A chart's bars: series, column and value, and the height each is drawn at. */
const barsOf = (chart: string) =>
  page.locator(`#${chart} rect.bar`).evaluateAll((rects) =>
    rects.map((r) => ({
      series: r.getAttribute("data-series")!,
      column: r.getAttribute("data-column"),
      value: Number(r.getAttribute("data-value")),
      size: Number(r.getAttribute("height")) || Number(r.getAttribute("width")),
    })),
  );
/** A table's body cells, row by row. */
const cellsOf = (table: string) =>
  page.locator(`#${table} tbody tr`).evaluateAll((rows) => rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim())));
const headersOf = (table: string) => page.locator(`#${table} thead th`).allTextContents();

it("shows what needs the operator first, with links to mend it, and charts whose numbers are the tables' and the API's", async () => {
  // ---- A hub: North shop with orders over several days from two channels, a failing source and
  // a delivery the marketplace refuses; South shop with a feed whose compile failed.
  const north = ((await adminCall("POST", "/stores", { Name: "North shop" })).Store as { StoreId: string }).StoreId;
  const south = ((await adminCall("POST", "/stores", { Name: "South shop" })).Store as { StoreId: string }).StoreId;
  const key = (
    (await adminCall("POST", `/stores/${north}/consumer-keys`, { Name: "k", Scopes: ["OrdersCreate", "OrdersRead", "OrdersUpdate"], Lifespan: "NeverExpires" }))
      .ConsumerKey as { Key: string }
  ).Key;
  const token = (await request(server.base, "PUT", "/v1/Authorization", { body: { ConsumerKey: key } })).json!.Token as string;
  const todayStart = Math.floor(Date.now() / DAY) * DAY;
  const at = (daysAgo: number) => new Date(daysAgo === 0 ? Math.max(todayStart, Date.now() - 60_000) : todayStart - daysAgo * DAY + 3_600_000).toISOString();
  const plan: [string, number, number][] = [
    ["Web", 0, 3],
    ["Web", 1, 2],
    ["Web", 10, 4],
    ["Phone", 0, 1],
    ["Phone", 5, 2],
  ];
  let n = 0;
  for (const [source, daysAgo, count] of plan) {
    for (let i = 0; i < count; i += 1) {
      n += 1;
      const res = await request(server.base, "PUT", `/v1/${token}/Orders/InsertOrder`, {
        body: {
          BuyerEmailAddress: "jane@example.com",
          BuyerPhoneNumber: "555-201-1234",
          OrderSource: source,
          OrderSourceOrderNumber: `${source}-${n}`,
          DateCreatedInOrderSource: at(daysAgo),
          ShipToCompanyName: null,
          FirstName: "Jane",
          LastName: "Doe",
          Street1: "1 Main St",
          City: "Springfield",
          StateOrProvince: "IL",
          Country: "US",
          PostalCode: "62701",
          ShippingMethod: "Standard",
          GrandTotal: 10,
          SubTotal: 10,
          ShippingTotal: 0,
          OrderItems: [{ Sku: "SKU-1", Name: "Mug", Quantity: 1, UnitPrice: 10 }],
        },
      });
      expect(res.status, res.text).toBe(200);
    }
  }
  const failing = (
    (
      await adminCall("POST", `/stores/${north}/sources`, {
        Type: "simulated",
        Name: "Failing market",
        Settings: { fault: { kind: "http500", retryAfterSeconds: 1 } },
      })
    ).Source as { SourceId: string }
  ).SourceId;
  await adminCall("POST", `/sync?sourceId=${failing}`);
  // Two orders, 5 minutes apart, ending within the hour before now (the sync tests' window).
  const end = Math.floor((Date.now() - 3_600_000) / 300_000) * 300_000;
  const window = { ordersPerHour: 12, startAt: new Date(end - 300_000).toISOString(), endAt: new Date(end).toISOString() };
  const refusing = (
    (await adminCall("POST", `/stores/${north}/sources`, { Type: "simulated", Name: "Refusing market", Settings: window })).Source as { SourceId: string }
  ).SourceId;
  await adminCall("POST", `/sync?sourceId=${refusing}`);
  const imported = (await adminCall("GET", `/stores/${north}/orders?page=1&pageSize=50`)).Orders as {
    OrderId: string;
    OrderSource: string;
    OrderSourceOrderNumber: string;
    DateCreatedInOrderSource: string;
  }[];
  const target = imported.find((o) => o.OrderSource === "Refusing market")!;
  // Counted, so that the totals below are exact whatever day the window fell on.
  const fromMarket = imported.filter((o) => o.OrderSource === "Refusing market").length;
  const fromMarketToday = imported.filter((o) => o.OrderSource === "Refusing market" && Date.parse(o.DateCreatedInOrderSource) >= todayStart).length;
  expect(fromMarket).toBe(2);
  await adminCall("PATCH", `/stores/${north}/sources/${refusing}`, { Settings: { rejectOrderNumbers: [target.OrderSourceOrderNumber] } });
  expect((await request(server.base, "PUT", `/v1/${token}/Orders/${target.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=PO-1`)).status).toBe(200);
  await adminCall("POST", `/sync?sourceId=${refusing}`);
  const feedId = ((await adminCall("POST", `/stores/${south}/feeds`, { Name: "Empty feed", Format: "csv" })).Feed as { FeedId: string }).FeedId;
  expect(((await adminCall("POST", `/feeds/${feedId}/compile`)).Feed as { Status: string }).Status).toBe("Failed");
  // North's feed: one product without a gtin (a warning), one without a title (an error).
  const product = (sku: string, extra: Record<string, unknown> = {}) => ({
    Sku: sku,
    Title: `Mug ${sku}`,
    Description: "A mug.",
    Price: 12.5,
    Currency: "USD",
    Link: `https://shop.example/${sku}`,
    ImageLink: `https://shop.example/${sku}.jpg`,
    Availability: "in_stock",
    Brand: "Acme",
    Gtin: "4006381333931",
    ...extra,
  });
  await adminCall("PUT", `/stores/${north}/products`, { Products: [product("A-1"), product("B-2", { Gtin: "" }), product("C-3", { Title: "" })] });
  const northFeed = ((await adminCall("POST", `/stores/${north}/feeds`, { Name: "North Google Shopping", Format: "csv" })).Feed as { FeedId: string }).FeedId;
  expect((await adminCall("POST", `/feeds/${northFeed}/compile`)).Feed).toMatchObject({ CompilationWarningCount: 1, CompilationErrorCount: 1 });

  // ---- The hub overview: the three, each a link to where it is mended.
  await page.goto(`${server.base}/console/login`);
  await page.getByLabel("Admin key").fill(ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Hub overview" }).waitFor();
  const items = page.locator("ul.attention > li");
  expect(await items.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-kind")))).toEqual(["SourceFailing", "DeliveriesFailed", "CompileFailed"]);
  expect(await items.nth(0).textContent()).toContain("Source failing:");
  expect(await items.nth(0).getByRole("link").getAttribute("href")).toBe(`/console/stores/${north}/sources/${failing}`);
  expect(await items.nth(1).getByRole("link").getAttribute("href")).toBe(`/console/stores/${north}/sources/${refusing}#failed`);
  expect(await items.nth(2).getByRole("link").getAttribute("href")).toBe(`/console/stores/${south}/feeds/${feedId}`);
  expect(await items.nth(2).textContent()).toContain("catalog is empty");

  // The chart of the week is the table's numbers and the API's.
  const hub = (await adminCall("GET", "/overview")).Overview as { Stores: { Name: string; OrdersToday: number; OrdersLast7Days: number }[] };
  const weekBars = await barsOf("hub-week");
  const weekRows = await cellsOf("hub-week-table");
  expect(weekBars.map((b) => [b.series, b.value])).toEqual(weekRows.map((r) => [r[0], Number(r[2])]));
  expect(weekRows).toEqual(hub.Stores.map((s) => [s.Name, String(s.OrdersToday), String(s.OrdersLast7Days), String(s.OrdersNew)]));
  // Orders waiting to be acknowledged: North's New (one of its orders was acknowledged).
  expect(hub.Stores.find((s) => s.Name === "North shop")!.OrdersNew).toBe(12 + fromMarket - 1);
  expect(await page.locator("#hub-waiting").textContent()).toContain(`${hub.Stores.reduce((n, s) => n + s.OrdersNew, 0)} orders wait to be acknowledged (New)`);
  await tablesFit("hub overview");
  expect(hub.Stores.find((s) => s.Name === "North shop")).toMatchObject({ OrdersToday: 4 + fromMarketToday, OrdersLast7Days: 8 + fromMarket });
  await axe("hub overview");
  await page.screenshot({ path: `${SHOTS}/hub-overview.png`, fullPage: true });

  // Each link leads to the page where it is mended.
  await items.nth(0).getByRole("link").click();
  await page.getByRole("heading", { level: 1, name: "Source: Failing market" }).waitFor();
  expect(await page.getByRole("button", { name: "Sync now" }).count()).toBe(1);
  await page.goBack();
  await items.nth(1).getByRole("link").click();
  await page.getByRole("heading", { level: 1, name: "Source: Refusing market" }).waitFor();
  expect(await page.getByRole("table", { name: "Failed deliveries" }).locator("tbody tr").count()).toBe(1);
  expect(await page.getByRole("button", { name: "Retry failed deliveries" }).count()).toBe(1);
  await page.goBack();
  await items.nth(2).getByRole("link").click();
  await page.getByRole("heading", { level: 1, name: "Feed: Empty feed" }).waitFor();
  expect(await page.locator("#feed-status").textContent()).toMatch(/^Failed: /);

  // ---- The store overview: orders per day per source, the table beside it, and the API.
  await page.goto(`${server.base}/console/stores/${north}`);
  await page.getByRole("heading", { level: 1, name: "Store: North shop" }).waitFor();
  const store = (await adminCall("GET", `/stores/${north}/overview`)).Overview as {
    OrdersPerDay: { Days: string[]; Sources: { OrderSource: string; Counts: number[] }[]; Totals: number[] };
    OrderStatuses: { Status: string; Count: number }[];
  };
  expect(store.OrdersPerDay.Sources.map((s) => s.OrderSource)).toEqual(["Phone", "Refusing market", "Web"]);
  const bars = await barsOf("orders-per-day");
  const fromApi = store.OrdersPerDay.Sources.flatMap((s) =>
    s.Counts.map((value, i) => ({ series: s.OrderSource, column: store.OrdersPerDay.Days[i], value })),
  ).filter((b) => b.value > 0);
  expect(
    bars.map(({ series, column, value }) => ({ series, column, value })).sort((a, b) => `${a.column}${a.series}`.localeCompare(`${b.column}${b.series}`)),
  ).toEqual(fromApi.sort((a, b) => `${a.column}${a.series}`.localeCompare(`${b.column}${b.series}`)));
  // Drawn to scale: every bar's height is its value times the same factor.
  const factors = bars.map((b) => b.size / b.value);
  for (const f of factors) expect(f).toBeCloseTo(factors[0]!, 6);
  const headers = await headersOf("orders-per-day-table");
  expect(headers).toEqual(["Day", "Phone", "Refusing market", "Web", "Total"]);
  const rows = await cellsOf("orders-per-day-table");
  expect(rows.map((r) => r[0])).toEqual(store.OrdersPerDay.Days);
  for (const bar of bars) {
    const row = rows.find((r) => r[0] === bar.column)!;
    expect(Number(row[headers.indexOf(bar.series)]), `${bar.column} ${bar.series}`).toBe(bar.value);
  }
  expect(rows.map((r) => Number(r[4]))).toEqual(store.OrdersPerDay.Totals);
  const web = store.OrdersPerDay.Sources.find((x) => x.OrderSource === "Web")!.Counts;
  const phone = store.OrdersPerDay.Sources.find((x) => x.OrderSource === "Phone")!.Counts;
  expect([web[29], web[28], web[19], phone[29], phone[24]]).toEqual([3, 2, 4, 1, 2]);
  expect(store.OrdersPerDay.Totals.reduce((a, b) => a + b, 0)).toBe(12 + fromMarket);

  // Statuses now: chart, table and API agree.
  const statusBars = await barsOf("order-statuses");
  expect(statusBars.map((b) => [b.series, b.value])).toEqual(store.OrderStatuses.map((s) => [s.Status, s.Count]));
  expect((await cellsOf("order-statuses-table")).map((r) => [r[0], Number(r[1])])).toEqual(store.OrderStatuses.map((s) => [s.Status, s.Count]));

  // The failing source's strip marks its failed cycle.
  expect(await page.locator(".source-health", { hasText: "Failing market" }).getByText("Failing for 1 cycle in a row").count()).toBe(1);
  await axe("store overview");
  await tablesFit("store overview");
  await page.screenshot({ path: `${SHOTS}/store-overview.png`, fullPage: true });
  await page.screenshot({ path: `${KEPT}/store-overview-1366.png`, fullPage: true });
  // The feeds table: every column whole, its warnings a link to what they are.
  expect(await headersOf("feeds-table")).toEqual(["Feed", "Status", "Score", "Rows valid", "With warnings", "With errors", "Compiled"]);
  await page
    .locator("#feeds-table")
    .getByRole("link", { name: /^1 product with warnings in North Google Shopping/ })
    .click();
  await page.getByRole("heading", { level: 1, name: "Feed: North Google Shopping" }).waitFor();
  expect(new URL(page.url()).hash).toBe("#problems");
  expect(await page.locator("#problems-table tbody tr").allTextContents()).toEqual([expect.stringContaining("B-2"), expect.stringContaining("C-3")]);
  await page.goBack();
  expect(failedRequests).toEqual([]);

  // A phone's width: nothing sticks out sideways.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await page.screenshot({ path: `${SHOTS}/store-overview-phone.png`, fullPage: true });
});
