// The console's security rules through whole requests in workerd: the session cookie (what it
// holds, its attributes), a wrong key refused, pages closed without a session, forms refused
// without their CSRF token or from another origin, sign-out, and that what a form does is what the
// admin API then answers. The pages themselves are driven in a real browser (test/browser/).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import worker from "../../src/index";
import { describe, expect, it } from "vitest";
import { admin, ADMIN_KEY, BASE, createStore } from "../helpers/api";
import { collect, definitionLists } from "./helpers";

async function send(
  method: string,
  path: string,
  init: { form?: Record<string, string>; cookie?: string; origin?: string | null; headers?: Record<string, string> } = {},
) {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.origin !== null) headers.set("origin", init.origin ?? BASE);
  const body = init.form ? new URLSearchParams(init.form) : undefined;
  if (body) headers.set("content-type", "application/x-www-form-urlencoded");
  const response = await exports.default.fetch(new Request(BASE + path, { method, headers, body, redirect: "manual" }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const res = await send("POST", "/console/login", { form: { key: ADMIN_KEY } });
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/console");
  const setCookie = res.headers.get("set-cookie")!;
  const cookie = setCookie.split(";")[0]!;
  const home = await send("GET", "/console", { cookie });
  expect(home.status).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)![1]!;
  return { cookie, csrf, setCookie };
}

describe("console session", () => {
  it("exchanges the admin key for a signed, HttpOnly, Secure, SameSite=Strict cookie that does not hold the key", async () => {
    const { setCookie, cookie } = await signIn();
    expect(setCookie).toMatch(/^__Host-console=/);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; Secure/i);
    expect(setCookie).toMatch(/; SameSite=Strict/i);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).toMatch(/; Max-Age=28800/);
    expect(decodeURIComponent(cookie)).not.toContain(ADMIN_KEY);
    // A tampered signature is no session.
    const forged = cookie.replace(/.$/, (ch) => (ch === "A" ? "B" : "A"));
    const res = await send("GET", "/console", { cookie: forged });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/login");
  });

  it("refuses a wrong key with 401 and the reason in the page, and sets no cookie", async () => {
    const res = await send("POST", "/console/login", { form: { key: "not-the-admin-key" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.text).toContain("That admin key is not valid.");
    expect(res.text).toContain('aria-invalid="true"');
  });

  it("sends every page to sign-in without a session", async () => {
    for (const path of ["/console", "/console/maintenance", "/console/stores/st_x/keys", "/console/stores/st_x/feeds/fd_x/progress"]) {
      const res = await send("GET", path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location"), path).toBe("/console/login");
    }
  });

  it("refuses a form without its CSRF token, with a wrong one, or from another origin; nothing changes", async () => {
    const { cookie, csrf } = await signIn();
    const before = ((await admin("GET", "/stores")).json.Stores as unknown[]).length;
    const missing = await send("POST", "/console/stores", { cookie, form: { Name: "csrf missing" } });
    expect(missing.status).toBe(403);
    const wrong = await send("POST", "/console/stores", { cookie, form: { Name: "csrf wrong", _csrf: "0".repeat(64) } });
    expect(wrong.status).toBe(403);
    const crossSite = await send("POST", "/console/stores", { cookie, origin: "https://evil.example", form: { Name: "cross site", _csrf: csrf } });
    expect(crossSite.status).toBe(403);
    expect(((await admin("GET", "/stores")).json.Stores as unknown[]).length).toBe(before);
  });

  it("does what a form says through the admin API, and shows the API's error next to the field", async () => {
    const { cookie, csrf } = await signIn();
    const created = await send("POST", "/console/stores", { cookie, form: { Name: "Console store", MaskBuyerPii: "on", _csrf: csrf } });
    expect(created.status).toBe(303);
    const storeId = /\/console\/stores\/([^?]+)\?/.exec(created.headers.get("location")!)![1]!;
    const got = await admin("GET", `/stores/${storeId}`);
    expect(got.json.Store).toMatchObject({ Name: "Console store", MaskBuyerPii: true });

    const bad = await send("POST", "/console/stores", { cookie, form: { Name: "x".repeat(201), _csrf: csrf } });
    expect(bad.status).toBe(400);
    // The API's Message, under the Name field it names.
    expect(bad.text).toMatch(/id="create-store-Name-error">&#39;Name&#39;: Too big: expected string to have &lt;=200 characters<\/p>/);
    expect(bad.text).toMatch(/id="create-store-Name"[^>]*aria-invalid="true"/);
  });

  it("signs out: the cookie is cleared", async () => {
    const { cookie, csrf } = await signIn();
    const res = await send("POST", "/console/logout", { cookie, form: { _csrf: csrf } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/login");
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-console=; Max-Age=0/);
  });

  it("signs out for good: a copy of the cookie taken before opens nothing after, other sessions stay open", async () => {
    const copied = await signIn();
    const other = await signIn();
    expect((await send("GET", "/console", { cookie: copied.cookie })).status).toBe(200);
    expect((await send("POST", "/console/logout", { cookie: copied.cookie, form: { _csrf: copied.csrf } })).status).toBe(303);

    const page = await send("GET", "/console", { cookie: copied.cookie });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/console/login");
    const form = await send("POST", "/console/stores", { cookie: copied.cookie, form: { Name: "after sign-out", _csrf: copied.csrf } });
    expect(form.status).toBe(401);
    expect(form.text).toBe("Your session has ended; sign in again.");
    // The sign-in page no longer takes the copy for a session either.
    expect((await send("GET", "/console/login", { cookie: copied.cookie })).status).toBe(200);

    expect((await send("GET", "/console", { cookie: other.cookie })).status).toBe(200);
  });

  it(
    "with its database down: the sign-in page still opens, a session is refused with 503, sign-out clears the cookie and says it was not " + "recorded",
    async () => {
      const { cookie, csrf } = await signIn();
      let failing = ["prepare", "batch"];
      const down = new Proxy(env.DB, {
        get(target, prop) {
          if (typeof prop === "string" && failing.includes(prop)) {
            return () => {
              throw new Error("D1_ERROR: the database went away");
            };
          }
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const sendDown = async (method: string, path: string, form?: Record<string, string>) => {
        const headers = new Headers({ cookie, origin: BASE });
        if (form) headers.set("content-type", "application/x-www-form-urlencoded");
        const ctx = createExecutionContext();
        const response = await worker.fetch(
          new Request(BASE + path, { method, headers, body: form ? new URLSearchParams(form) : undefined, redirect: "manual" }),
          { ...env, DB: down },
          ctx,
        );
        await waitOnExecutionContext(ctx);
        return { status: response.status, headers: response.headers, text: await response.text() };
      };

      const login = await sendDown("GET", "/console/login");
      expect(login.status).toBe(200);
      expect(login.text).toContain("Sign in");
      const home = await sendDown("GET", "/console");
      expect(home.status).toBe(503);
      expect(home.headers.get("retry-after")).toBe("5");
      expect(home.text).toBe("The console's database did not answer; try again in a moment.");

      // Reads answer, the sign-out's write does not: the cookie is cleared all the same, and the
      // operator is told the copy of it stays valid.
      failing = ["batch"];
      const out = await sendDown("POST", "/console/logout", { _csrf: csrf });
      expect(out.status).toBe(503);
      expect(out.headers.get("set-cookie")).toMatch(/^__Host-console=; Max-Age=0/);
      expect(out.text).toContain("the service&#39;s database did not record it: a copy of this session&#39;s cookie stays valid until it expires");
      // Not recorded, indeed: the session still opens with the real database.
      expect((await send("GET", "/console", { cookie })).status).toBe(200);
    },
  );

  it("serves pages with a strict Content-Security-Policy and no caching", async () => {
    const res = await send("GET", "/console/login");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.text).toContain('<label for="login-key">Admin key</label>');
  });
});

describe("console sources", () => {
  it("offers one closed form per marketplace, named in words, secrets as password fields", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console sources");
    const res = await send("GET", `/console/stores/${storeId}/sources`, { cookie });
    expect(res.status).toBe(200);
    // One "Add a source" section: each marketplace's form closed inside its <details>, its
    // summary in words with the right article.
    expect(await collect(res.text, "h2#add-source-h")).toEqual(["Add a source"]);
    const summaries = await collect(res.text, "details.add-source summary");
    expect(summaries).toEqual(
      expect.arrayContaining([
        "Add a simulated marketplace source",
        "Add a Walmart source",
        "Add an eBay source",
        "Add a Shopify source",
        "Add an Amazon source",
        "Add an Etsy source",
        "Add a Mirakl source",
        "Add a TikTok Shop source",
      ]),
    );
    expect(await collect(res.text, "details.add-source[open]")).toEqual([]);
    expect(await collect(res.text, "details.add-source", "data-type")).toEqual(
      expect.arrayContaining(["simulated", "walmart", "ebay", "shopify", "amazon", "etsy", "mirakl", "tiktok"]),
    );
    for (const type of ["simulated", "walmart", "ebay", "shopify", "amazon"]) {
      expect(await collect(res.text, `details[data-type="${type}"] input[name="Type"]`, "value"), type).toEqual([type]);
    }
    expect(await collect(res.text, 'details[data-type="ebay"] button[type="submit"]')).toEqual(["Add an eBay source"]);
    // Settings labelled in words, not in their API spelling (which the hint still names).
    const labels = await collect(res.text, 'details[data-type="simulated"] label');
    expect(labels).toEqual(expect.arrayContaining(["Orders per hour (optional)", "Start at (optional)", "Unknown SKUs (optional)", "Push stock (optional)"]));
    expect(labels.filter((l) => /[a-z][A-Z]/.test(l))).toEqual([]);
    expect(await collect(res.text, 'details[data-type="walmart"] label')).toEqual(
      expect.arrayContaining(["Client ID", "Client secret", "Base URL (optional)"]),
    );
    expect(await collect(res.text, "#add-simulated-Settings-ordersPerHour-hint")).toEqual([expect.stringContaining("(ordersPerHour in the API.)")]);
    const secrets = [
      "walmart:clientId",
      "walmart:clientSecret",
      "ebay:clientId",
      "ebay:clientSecret",
      "ebay:refreshToken",
      "shopify:accessToken",
      "amazon:refreshToken",
      "amazon:clientId",
      "amazon:clientSecret",
      "mirakl:apiKey",
      "tiktok:appSecret",
      "tiktok:refreshToken",
    ];
    for (const secret of secrets) {
      const [type, name] = secret.split(":");
      expect(await collect(res.text, `#add-${type}-Settings-${name}`, "type"), secret).toEqual(["password"]);
    }
    // Not a secret: shown as text.
    expect(await collect(res.text, "#add-shopify-Settings-shopDomain", "type")).toEqual(["text"]);
    expect(await collect(res.text, "#add-tiktok-Settings-appKey", "type")).toEqual(["text"]);
  });

  it("reopens the refused marketplace's form with the API's words at the field, and shows a source's settings in words", async () => {
    const { cookie, csrf } = await signIn();
    const storeId = await createStore("Console source form");
    const refused = await send("POST", `/console/stores/${storeId}/sources`, {
      cookie,
      form: { _csrf: csrf, Type: "simulated", Name: "Sim", "Settings.ordersPerHour": "0" },
    });
    expect(refused.status).toBe(400);
    expect(await collect(refused.text, "details.add-source[open]", "data-type")).toEqual(["simulated"]);
    expect((await collect(refused.text, "#add-simulated-Settings-ordersPerHour-error"))[0]).toContain("'Settings.ordersPerHour'");
    expect((await admin("GET", `/stores/${storeId}/sources`)).json.Sources).toEqual([]);

    const added = await send("POST", `/console/stores/${storeId}/sources`, {
      cookie,
      form: { _csrf: csrf, Type: "simulated", Name: "Sim", "Settings.ordersPerHour": "2.5", "Settings.unknownSkus": '["X-1"]', "Settings.pushStock": "false" },
    });
    expect(added.status).toBe(303);
    const page = await send("GET", added.headers.get("location")!, { cookie });
    const [facts] = await definitionLists(page.text, "dl.facts");
    expect(facts!.Marketplace).toBe("simulated marketplace");
    const [settings] = await definitionLists(page.text, "#source-settings");
    expect(settings).toEqual({ "Orders per hour": "2.5", "Unknown SKUs": '["X-1"]', "Push stock": "false" });
    expect(Object.keys(settings!).filter((k) => /[a-z][A-Z]/.test(k))).toEqual([]);
  });

  it("lists a source's set-aside orders as the admin API answers them", async () => {
    const { cookie } = await signIn();
    const storeId = await createStore("Console set-aside");
    const now = Date.now();
    const created = await admin("POST", `/stores/${storeId}/sources`, {
      Type: "simulated",
      Name: "Sometimes broken",
      Settings: { ordersPerHour: 6, startAt: new Date(now - 60 * 60_000).toISOString(), endAt: new Date(now - 60_000).toISOString(), malformedEvery: 2 },
    });
    expect(created.status).toBe(200);
    const sourceId = (created.json.Source as { SourceId: string }).SourceId;
    expect((await admin("POST", `/sync?sourceId=${sourceId}`)).status).toBe(200);
    const listed = await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`);
    const setAside = listed.json.SetAside as { OrderSourceOrderNumber: string; Reason: string }[];
    // Six orders in the hour, every second one without a SKU on a line.
    expect(setAside.length).toBeGreaterThanOrEqual(2);
    expect(setAside.length).toBeLessThanOrEqual(4);
    const res = await send("GET", `/console/stores/${storeId}/sources/${sourceId}`, { cookie });
    expect(res.status).toBe(200);
    const table = /<table[^>]*>\s*<caption>Set-aside orders<\/caption>([\s\S]*?)<\/table>/.exec(res.text);
    expect(table).not.toBeNull();
    const rows = table![1]!.match(/<tr><td>/g) ?? [];
    expect(rows.length).toBe(setAside.length);
    for (const order of setAside) expect(table![1]).toContain(`<td>${order.OrderSourceOrderNumber}</td>`);
    expect(res.text).toContain("Map set-aside orders again</button>");
  });

  it("dismisses one set-aside order from the source's page, and only that one", async () => {
    const { cookie, csrf } = await signIn();
    const storeId = await createStore("Console dismiss");
    const now = Date.now();
    const created = await admin("POST", `/stores/${storeId}/sources`, {
      Type: "simulated",
      Name: "Broken half the time",
      Settings: { ordersPerHour: 6, startAt: new Date(now - 60 * 60_000).toISOString(), endAt: new Date(now - 60_000).toISOString(), malformedEvery: 2 },
    });
    const sourceId = (created.json.Source as { SourceId: string }).SourceId;
    expect((await admin("POST", `/sync?sourceId=${sourceId}`)).status).toBe(200);
    const numbers = async () =>
      ((await admin("GET", `/stores/${storeId}/sources/${sourceId}/set-aside`)).json.SetAside as { OrderSourceOrderNumber: string }[]).map(
        (o) => o.OrderSourceOrderNumber,
      );
    const before = await numbers();
    expect(before.length).toBeGreaterThanOrEqual(2);
    const [gone, ...kept] = before;

    const page = `/console/stores/${storeId}/sources/${sourceId}`;
    const action = `${page}/set-aside/dismiss`;
    const shown = (await send("GET", page, { cookie })).text;
    expect(shown).toContain(`action="${action}"`);
    expect(shown).toContain(`<input type="hidden" name="OrderSourceOrderNumber" value="${gone}"/>`);
    expect((await send("POST", action, { cookie, form: { OrderSourceOrderNumber: gone! } })).status).toBe(403);
    expect(await numbers()).toEqual(before);

    const res = await send("POST", action, { cookie, form: { OrderSourceOrderNumber: gone!, _csrf: csrf } });
    expect(res.status).toBe(303);
    expect(await numbers()).toEqual(kept);
    const after = await send("GET", res.headers.get("location")!, { cookie });
    expect(after.text).toContain(`Set-aside order ${gone} dismissed.`);
    expect(after.text).not.toContain(`<td>${gone}</td>`);

    // Dismissing it again: the API's 404 is shown on the page, nothing else changes.
    const again = await send("POST", action, { cookie, form: { OrderSourceOrderNumber: gone!, _csrf: csrf } });
    expect(again.text).toContain(`has no set-aside order &#39;${gone}&#39;.`);
    expect(await numbers()).toEqual(kept);
  });
});

describe("console notices", () => {
  it("shows only its own fixed notices: text put in ?done= by a link is never shown", async () => {
    const { cookie, csrf } = await signIn();
    const storeId = await createStore("Console notices");
    const bait = "Your account is locked: call +1 555 0100";
    for (const path of ["/console", `/console/stores/${storeId}`, "/console/maintenance", `/console/stores/${storeId}/keys`]) {
      const res = await send("GET", `${path}?done=${encodeURIComponent(bait)}`, { cookie });
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain("call +1 555 0100");
      expect(res.text, path).not.toContain('class="done"');
    }
    // A code the page knows is said in the page's words, from what the API answers now.
    const known = await send("GET", `/console/stores/${storeId}?done=created`, { cookie });
    expect(known.text).toContain('<p class="done" role="status">Store &#39;Console notices&#39; created.</p>');
    // The store's settings tab: a rename comes back to it with its notice.
    const renamed = await send("POST", `/console/stores/${storeId}/rename`, { cookie, form: { Name: "Console notices 2", _csrf: csrf } });
    expect([renamed.status, renamed.headers.get("location")]).toEqual([303, `/console/stores/${storeId}/settings?done=renamed`]);
    const settings = await send("GET", renamed.headers.get("location")!, { cookie });
    expect(settings.text).toContain('<p class="done" role="status">Name saved.</p>');
    expect(settings.text).toMatch(/<input id="rename-Name" name="Name" type="text" value="Console notices 2"/);
    // Numbers travel as numbers; anything else in their place reads as 0.
    const sourceId = (
      (await admin("POST", `/stores/${storeId}/sources`, { Type: "simulated", Name: "Notice source", Settings: { ordersPerHour: 1 } })).json.Source as {
        SourceId: string;
      }
    ).SourceId;
    const retried = await send("GET", `/console/stores/${storeId}/sources/${sourceId}?done=retried&n=${encodeURIComponent("3 (call us)")}`, { cookie });
    expect(retried.text).toContain("0 deliveries will be tried again on the next cycle.");
    expect(retried.text).not.toContain("call us");
    // An order number is repeated only when it reads as one.
    const dismissed = await send("GET", `/console/stores/${storeId}/sources/${sourceId}?done=dismissed&order=${encodeURIComponent(bait)}`, { cookie });
    expect(dismissed.text).toContain("Set-aside order dismissed.");
    expect(dismissed.text).not.toContain("555 0100");
  });
});
