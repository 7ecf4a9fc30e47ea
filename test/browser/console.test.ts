// The operator console in a real browser (Chromium driven by Playwright) against a real local
// server: sign in (a wrong key refused), create a store and a key (shown once, copied), add a
// simulated source and sync it, find an imported order and ship one of its lines, upload a
// catalog, compile a feed and watch the progress reach 100 %, download it, see the products with the stock PUT Inventory set and look
// one up, add a webhook endpoint (a refused URL said under its
// field, the secret shown once), disable it, revoke the key, maintenance on and off, sign out. Each
// page is checked by axe-core (no serious or critical violation) and screenshotted to
// test-results/console/. The browser: CHROME_PATH, else /usr/bin/chromium (Debian's package).
import { mkdirSync, readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, request, startServer, type Server } from "./server";

const SHOTS = "test-results/console";
const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const STEP_MS = 20_000;

let server: Server;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const checked: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
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
  context = await browser.newContext({ ignoreHTTPSErrors: true, acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
});

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await server?.stop();
});

/** axe-core on the page as it is now, then a full-page screenshot named after the step. */
async function check(name: string) {
  await page.waitForLoadState("load");
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  expect(serious, `axe on ${name}`).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/${String(checked.length + 1).padStart(2, "0")}-${name}.png`, fullPage: true });
  checked.push(name);
}

const flash = () => page.locator("p.done[role=status]");

it("runs an operator's day from sign-in to sign-out", async () => {
  // Sign in: the console sends an anonymous visitor to the form; a wrong key is refused in words.
  await page.goto(`${server.base}/console`);
  await expect.poll(() => new URL(page.url()).pathname).toBe("/console/login");
  await check("sign-in");
  await page.getByLabel("Admin key").fill("not-the-key");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.getByRole("alert").textContent()).toContain("That admin key is not valid.");
  expect(await page.getByLabel("Admin key").getAttribute("aria-invalid")).toBe("true");
  await check("sign-in-refused");
  await page.getByLabel("Admin key").fill(ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Hub overview" }).waitFor();
  const cookies = await context.cookies();
  expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([["__Host-console", true, true, "Strict"]]);
  expect(cookies[0]!.value).not.toContain(ADMIN_KEY);
  await check("stores");

  // A store; the API's refusal appears under the field that caused it.
  // The field's own maxlength would stop the browser first; without it the API answers.
  await page.getByLabel("Name").evaluate((el: HTMLInputElement) => el.removeAttribute("maxlength"));
  await page.getByLabel("Name").fill("y".repeat(201));
  await page.getByRole("button", { name: "Create store" }).click();
  await expect.poll(() => page.locator("#create-store-Name-error").textContent()).toContain("'Name'");
  await check("store-refused");
  await page.getByLabel("Name").fill("Browser store");
  await page.getByRole("button", { name: "Create store" }).click();
  await page.getByRole("heading", { level: 1, name: "Store: Browser store" }).waitFor();
  expect(await flash().textContent()).toBe("Store 'Browser store' created.");
  const storeId = /\/console\/stores\/([^/?]+)/.exec(page.url())![1]!;
  await check("store");

  // A consumer key: shown once, with a copy button and the warning.
  await page.getByRole("navigation", { name: "Store" }).getByRole("link", { name: "Consumer keys" }).click();
  await page.getByLabel("Name").fill("Browser key");
  await page.getByLabel("Lifespan of its tokens").selectOption("30Days");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("heading", { level: 1, name: "Consumer key created" }).waitFor();
  expect(await page.getByText("it will not be shown again").count()).toBe(1);
  const key = await page.getByLabel("Consumer key").inputValue();
  expect(key).toMatch(/^ofh_[A-Za-z0-9_-]{43}$/);
  await page.getByRole("button", { name: "Copy" }).click();
  await expect.poll(() => page.locator("#new-key-copied").textContent()).toMatch(/Copied to the clipboard\.|Selected:/);
  await check("key-created");
  const token = await request(server.base, "PUT", "/v1/Authorization", { body: { ConsumerKey: key } });
  expect(token.status).toBe(200);
  // Shown once: the list never carries it again.
  await page.goto(`${server.base}/console/stores/${storeId}/keys`);
  expect(await page.content()).not.toContain(key);
  await check("keys");

  // A simulated source, from the form built out of its connector's Settings; then sync now.
  await page.getByRole("navigation", { name: "Store" }).getByRole("link", { name: "Sources" }).click();
  // One "Add a source" section: every marketplace's form closed until its name is clicked.
  expect(await page.locator("details.add-source[open]").count()).toBe(0);
  expect(await page.locator("details.add-source summary").allTextContents()).toEqual(expect.arrayContaining(["Add an eBay source", "Add a Walmart source"]));
  const form = page.locator("form", { has: page.getByRole("button", { name: "Add a simulated marketplace source" }) });
  expect(await form.isVisible()).toBe(false);
  await page.getByText("Add a simulated marketplace source", { exact: true }).first().click();
  await form.getByLabel("Name", { exact: true }).fill("Browser market");
  await form.getByLabel("Orders per hour").fill("12");
  await form.getByLabel("Start at").fill(new Date(Date.now() - 60 * 60_000).toISOString());
  await form.getByLabel("End at").fill(new Date(Date.now() - 60_000).toISOString());
  await check("sources");
  await form.getByRole("button", { name: "Add a simulated marketplace source" }).click();
  await page.getByRole("heading", { level: 1, name: "Source: Browser market" }).waitFor();
  await page.getByRole("button", { name: "Sync now" }).click();
  await expect.poll(() => flash().textContent()).toMatch(/^Sync done: \d+ orders fetched, \d+ imported/);
  const imported = Number(/(\d+) imported/.exec((await flash().textContent())!)![1]);
  expect(imported).toBeGreaterThanOrEqual(8);
  expect(imported).toBeLessThanOrEqual(14);
  expect(await page.getByText("Set-aside orders").count()).toBeGreaterThan(0);
  await check("source");

  // Orders: the imported ones are listed; find one by its marketplace number and open it.
  await page.getByRole("navigation", { name: "Store" }).getByRole("link", { name: "Orders" }).click();
  const table = page.getByRole("table", { name: /Orders, page 1/ });
  // count() does not wait: the page must have arrived first (a loaded machine is slower than the click).
  await table.waitFor();
  const rows = table.locator("tbody tr");
  expect(await rows.count()).toBe(imported);
  const number = (await rows.first().locator("td").nth(1).textContent())!;
  await check("orders");
  await page.getByLabel("Order number").fill(number);
  await page.getByRole("button", { name: "Search" }).click();
  await expect.poll(() => rows.count()).toBe(1);
  await rows.first().getByRole("link").click();
  await page.getByRole("heading", { level: 1, name: /^Order \d+$/ }).waitFor();
  expect(await page.getByRole("table", { name: "Items" }).locator("tbody tr").count()).toBeGreaterThanOrEqual(1);
  expect(await page.getByText(`Browser market ${number}`).count()).toBe(1);
  await check("order");
  // Ship one unit of the first line as a package of its own: the package is listed, the line shows it shipped.
  const itemRows = page.getByRole("table", { name: "Items" }).locator("tbody tr");
  const firstLine = (await itemRows.first().locator("td").first().textContent())!.trim();
  expect(await page.getByRole("table", { name: "Packages" }).count()).toBe(0);
  await page.locator(`#lines-Quantity-${firstLine}`).fill("1");
  await page.getByLabel("Tracking number").fill("1Z-BROWSER");
  await page.getByRole("button", { name: "Ship these units" }).click();
  await expect.poll(() => flash().textContent()).toBe("Package recorded.");
  const packages = page.getByRole("table", { name: "Packages" }).locator("tbody tr");
  expect(await packages.count()).toBe(1);
  expect(await packages.first().locator("td").nth(1).textContent()).toBe("1Z-BROWSER");
  expect(await itemRows.first().locator("td").nth(4).textContent()).toBe("1");
  await check("order-shipped");

  // Feeds: a catalog, a feed, compile with the progress bar reaching 100 %, download.
  await page.getByRole("navigation", { name: "Store" }).getByRole("link", { name: "Feeds" }).click();
  const header = "Sku,Title,Description,Link,ImageLink,Price,Availability,Brand,Gtin";
  const lines = Array.from(
    { length: 30 },
    (_, i) =>
      `SKU-${String(i + 1).padStart(3, "0")},Mug ${i + 1},A blue ` +
      `mug,https://shop.example/m/${i + 1},https://shop.example/m/${i + 1}.jpg,${(i + 5).toFixed(2)},in ` +
      `stock,Acme,${i === 0 ? "" : `${"0".repeat(11) + String(i % 10)}0`}`,
  );
  await page
    .getByLabel(/CSV file with a header row/)
    .setInputFiles({ name: "catalog.csv", mimeType: "text/csv", buffer: Buffer.from([header, ...lines].join("\n")) });
  await page.getByRole("button", { name: "Upload products" }).click();
  await expect.poll(() => flash().textContent()).toBe("30 products stored, 0 rejected.");
  await page.getByLabel("Name", { exact: true }).fill("Browser feed");
  await check("feeds");
  await page.getByRole("button", { name: "Create feed" }).click();
  await page.getByRole("heading", { level: 1, name: "Feed: Browser feed" }).waitFor();
  expect(await page.locator("#compile-progress").getAttribute("value")).toBe("0");
  await page.getByRole("button", { name: "Compile now" }).click();
  await expect.poll(() => page.locator("#compile-percent").textContent(), { timeout: 60_000 }).toBe("100 %");
  expect(await page.locator("#compile-progress").evaluate((el: HTMLProgressElement) => el.value)).toBe(100);
  // The page then shows the server's counts.
  await expect.poll(() => page.locator("#feed-status").textContent(), { timeout: 30_000 }).toBe("Completed");
  expect(await page.locator("#feed-counts").textContent()).toMatch(/^30 read: 30 valid \(\d+ with warnings\), 0 with errors$/);
  expect(Number(await page.locator("#feed-score").textContent())).toBeGreaterThan(0);
  await check("feed");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "browser-feed.csv" }).click()]);
  expect(download.suggestedFilename()).toBe("browser-feed.csv");
  const file = readFileSync((await download.path())!, "utf8");
  const fileLines = file.trimEnd().split("\r\n");
  expect(fileLines).toHaveLength(31);
  expect(fileLines[1]).toMatch(/^SKU-001,/);

  // Catalog: the stock the seller's system set (PUT Inventory) in the products table, a Sku looked up.
  const stock = await request(server.base, "PUT", `/v1/${token.json!.Token}/Inventory`, { body: { Items: [{ Sku: "SKU-002", Quantity: 7 }] } });
  expect(stock.status).toBe(200);
  await page.getByRole("navigation", { name: "Store" }).getByRole("link", { name: "Catalog" }).click();
  const products = page.getByRole("table", { name: "Products" });
  expect(await products.locator("tbody tr").count()).toBe(30);
  expect(await products.locator("tbody tr").nth(1).locator("td").allTextContents()).toEqual(["SKU-002", "Mug 2", "6.00", "7", "in stock"]);
  await page.getByLabel("Sku", { exact: true }).fill("SKU-002");
  await page.getByRole("button", { name: "Look up" }).click();
  await page.getByRole("heading", { level: 2, name: "Product SKU-002" }).waitFor();
  await check("catalog");

  // Webhooks: a URL the API refuses is said under its field; an endpoint on this machine (nothing
  // listens there, and no event happens after it is added) shows its secret once, with Copy.
  await page.goto(`${server.base}/console/stores/${storeId}`);
  await page.getByRole("navigation", { name: "Store" }).getByRole("link", { name: "Webhooks" }).click();
  await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
  expect(await page.getByText("Webhooks: no endpoint yet.").count()).toBe(1);
  await page.getByLabel("URL", { exact: true }).fill("http://erp.example/hooks");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect.poll(() => page.locator("#add-webhook-Url-error").textContent()).toContain("must be an https:// URL");
  expect(await page.getByLabel("URL", { exact: true }).getAttribute("aria-invalid")).toBe("true");
  expect(await page.getByLabel("URL", { exact: true }).inputValue()).toBe("http://erp.example/hooks");
  await check("webhook-refused");
  const hookUrl = "https://127.0.0.1:9/browser-hooks";
  await page.getByLabel("URL", { exact: true }).fill(hookUrl);
  await page.getByLabel("order.shipped", { exact: true }).check();
  await page.getByLabel("All events (*)").uncheck();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByRole("heading", { level: 1, name: "Endpoint added" }).waitFor();
  expect(await page.getByText("it will not be shown again").count()).toBe(1);
  const secret = await page.getByLabel("Signing secret").inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await page.getByRole("button", { name: "Copy" }).click();
  await expect.poll(() => page.locator("#new-secret-copied").textContent()).toMatch(/Copied to the clipboard\.|Selected:/);
  await check("webhook-added");
  await page.getByRole("link", { name: "Back to the webhooks" }).click();
  await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
  expect(await page.content()).not.toContain(secret);
  const hooks = await request(server.base, "GET", `/admin/v1/stores/${storeId}/webhooks`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect((hooks.json!.Webhooks as { Url: string; Events: string[]; Enabled: boolean }[]).map((w) => [w.Url, w.Events, w.Enabled])).toEqual([
    [hookUrl, ["order.shipped"], true],
  ]);
  await check("webhooks");
  await page.getByRole("button", { name: "Disable" }).click();
  await expect.poll(() => flash().textContent()).toBe("Endpoint disabled.");
  expect(await page.getByText("Disabled by an operator").count()).toBe(1);
  const off = await request(server.base, "GET", `/admin/v1/stores/${storeId}/webhooks`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect((off.json!.Webhooks as { Enabled: boolean }[]).map((w) => w.Enabled)).toEqual([false]);

  // Revoke the key, with confirmation: its token is refused from then on.
  await page.goto(`${server.base}/console/stores/${storeId}/keys`);
  await page.getByRole("link", { name: /Revoke/ }).click();
  await page.getByRole("heading", { level: 1, name: "Revoke this key?" }).waitFor();
  await check("revoke-confirm");
  await page.getByRole("button", { name: "Yes, revoke the key" }).click();
  await expect.poll(() => flash().textContent()).toBe("Key revoked.");
  const refused = await request(server.base, "GET", `/v1/${token.json!.Token}/Orders/count?fromDate=2026-01-01&toDate=2026-01-02`);
  expect(refused.status).toBe(401);

  // Maintenance on (a /v1 call answers 503 with the message), then off.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Maintenance" }).click();
  await page.getByLabel("Message to clients").fill("Back at noon.");
  await page.getByRole("button", { name: "Turn maintenance on" }).click();
  await expect.poll(() => page.locator("#maintenance-state").textContent()).toContain("Maintenance is on");
  const during = await request(server.base, "PUT", "/v1/Authorization", { body: { ConsumerKey: key } });
  expect([during.status, during.json?.Message]).toEqual([503, "Back at noon."]);
  await check("maintenance-on");
  await page.getByRole("button", { name: "Turn maintenance off" }).click();
  await expect.poll(() => page.locator("#maintenance-state").textContent()).toContain("Maintenance is off");
  const after = await request(server.base, "GET", "/admin/v1/maintenance", { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(after.json!.Maintenance).toEqual({ Enabled: false, Message: "" });

  // Returns: a second simulated source whose orders were made 8 hours ago and more, every second
  // one coming back (asked 6 hours after its order); one cycle imports orders, then returns.
  const adminAuth = { authorization: `Bearer ${ADMIN_KEY}` };
  const end = Date.now() - 8 * 3_600_000;
  const returnsSource = await request(server.base, "POST", `/admin/v1/stores/${storeId}/sources`, {
    headers: adminAuth,
    body: {
      Type: "simulated",
      Name: "Returns market",
      Settings: { ordersPerHour: 12, startAt: new Date(end - 35 * 60_000).toISOString(), endAt: new Date(end).toISOString(), returnsEvery: 2 },
    },
  });
  expect(returnsSource.status).toBe(200);
  const returnsSourceId = (returnsSource.json!.Source as { SourceId: string }).SourceId;
  expect((await request(server.base, "POST", `/admin/v1/sync?sourceId=${returnsSourceId}`, { headers: adminAuth })).status).toBe(200);
  await page.goto(`${server.base}/console/stores/${storeId}/returns`);
  const returnsTable = page.getByRole("table", { name: /Returns, page 1/ });
  await returnsTable.waitFor();
  const returnRows = returnsTable.locator("tbody tr");
  expect(await returnRows.count()).toBeGreaterThanOrEqual(3);
  await check("returns");
  await page.getByLabel("Status").selectOption("Received");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("Returns, page 1: no return matches.").waitFor();
  await page.getByLabel("Status").selectOption("Requested");
  await page.getByRole("button", { name: "Filter" }).click();
  await returnsTable.waitFor();
  await returnRows.first().getByRole("link").first().click();
  await page.getByRole("heading", { level: 1, name: /^Return \d+$/ }).waitFor();
  await check("return");
  await page.getByLabel(/\(line \d+\), of 1/).fill("1");
  await page.getByRole("button", { name: "Record what came back" }).click();
  await expect.poll(() => flash().textContent()).toBe("Receipt recorded.");
  const line = page.getByRole("table", { name: "Lines coming back" }).locator("tbody td");
  expect([await line.nth(3).textContent(), await line.nth(4).textContent()]).toEqual(["1", "1"]);
  await check("return-received");

  // A phone's width: nothing sticks out sideways; the keyboard's first stop skips to the content.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`${server.base}/console/stores/${storeId}/orders`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await check("orders-phone");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
  await page.setViewportSize({ width: 1280, height: 900 });

  // Sign out: the session is gone and the console is closed again.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
  expect(await context.cookies()).toEqual([]);
  await page.goto(`${server.base}/console/maintenance`);
  await expect.poll(() => new URL(page.url()).pathname).toBe("/console/login");

  expect(checked).toHaveLength(24);
});

it("renders the API reference at /docs from the Worker's own assets", async () => {
  const external: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(server.base)) external.push(r.url());
  });
  await page.goto(`${server.base}/docs`);
  await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
  expect(await page.locator(".opblock").count()).toBeGreaterThanOrEqual(44);
  await page.screenshot({ path: `${SHOTS}/99-docs.png` });
  expect(external).toEqual([]);
});
