// Walmart's bulk stock and price feeds against the fake Walmart, which holds each feed to the
// published descriptions (test/marketplaces/walmart/walmart-feeds-fake.ts): a cycle with many Skus due sends one
// inventory and one price feed, the Skus stay `submitted` with the feed ids until later cycles
// read each item's result, and the bad days (throttling, a feed stuck or in ERROR, nonsense).
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWalmartConnector } from "../../../src/marketplaces/walmart/walmart.connector";
import { createWalmartFake, WALMART_FAKE_CLIENT_ID, WALMART_FAKE_CLIENT_SECRET, type WalmartFake } from "./walmart-fake";
import type { WalmartFeedsOptions } from "./walmart-feeds-fake";
import { storeWithToken } from "../../helpers/api";
import { createSource, cycleAt } from "../../helpers/sync";
import { collect, send, signIn } from "../../console/helpers";
import { listings, putInventory, putStock } from "../../stock/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const HOUR = 3_600_000;
const feedCalls = (fake: WalmartFake) => fake.apiRequests().filter((r) => r.path.startsWith("/v3/feeds"));
const itemCalls = (fake: WalmartFake) => fake.apiRequests().filter((r) => r.operationId === "updateInventoryForAnItem" || r.operationId === "updatePrice");

const skus = (n: number) => Array.from({ length: n }, (_, i) => `SKU-${String(i).padStart(4, "0")}`);

/** A store with `n` tracked Skus and a Walmart source; the fake knows every Sku but the ones in `unknown`. */
async function walmartStore(n: number, feeds: WalmartFeedsOptions = {}, unknown: string[] = []) {
  let at = Date.now();
  const all = skus(n);
  const fake = createWalmartFake({ now: () => new Date(at), listings: { knownSkus: all.filter((s) => !unknown.includes(s)) }, feeds });
  vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
  const { storeId, token } = await storeWithToken();
  await putStock(
    storeId,
    all.map((Sku, i) => ({ Sku, Quantity: i + 1, Price: 5 + i / 100 })),
  );
  const sourceId = await createSource(storeId, {
    Type: "walmart",
    Name: "Walmart US",
    Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
  });
  return {
    fake,
    storeId,
    token,
    sourceId,
    cycle: (afterMs: number) => {
      at += afterMs;
      return cycleAt(sourceId, at);
    },
  };
}

describe("Walmart feeds, call by call", () => {
  it("posts multipart inventory and price feeds as the descriptions say, then reads each item's result", async () => {
    const at = Date.parse("2026-03-01T12:00:00Z");
    const fake = createWalmartFake({ now: () => new Date(at), listings: { knownSkus: ["A", "B"] } });
    const connector = createWalmartConnector({
      sourceId: "s",
      settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
      fetch: fake.fetch,
      now: () => new Date(at),
    });
    const submission = connector.listings!.submission!;
    expect([submission.threshold, submission.size]).toEqual([200, 10_000]);
    const answer = await submission.submit([
      { sku: "A", quantity: 3, price: 9.5, currency: "USD" },
      { sku: "B", quantity: null, price: 4, currency: "CAD" },
      { sku: "GHOST", quantity: 1, price: null, currency: "USD" },
      { sku: "EURO", quantity: null, price: 2, currency: "EUR" },
    ]);
    expect(fake.violations).toEqual([]);
    const [inventory, price] = feedCalls(fake);
    expect([inventory!.method, inventory!.rawQuery, price!.rawQuery]).toEqual(["POST", "?feedType=inventory", "?feedType=price"]);
    expect(inventory!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(inventory!.headers.authorization).toBe(`Basic ${btoa(`${WALMART_FAKE_CLIENT_ID}:${WALMART_FAKE_CLIENT_SECRET}`)}`);
    expect(fake.feeds.map((f) => f.file)).toEqual([
      {
        InventoryHeader: { version: "1.4" },
        Inventory: [
          { sku: "A", quantity: { unit: "EACH", amount: 3 } },
          { sku: "GHOST", quantity: { unit: "EACH", amount: 1 } },
        ],
      },
      {
        PriceHeader: { version: "1.7" },
        Price: [
          { sku: "A", pricing: [{ currentPriceType: "BASE", currentPrice: { currency: "USD", amount: 9.5 } }] },
          { sku: "B", pricing: [{ currentPriceType: "BASE", currentPrice: { currency: "CAD", amount: 4 } }] },
        ],
      },
    ]);
    expect(answer.reference).toBe(`inventory:${fake.feeds[0]!.feedId} price:${fake.feeds[1]!.feedId}`);
    expect(answer.sent.map((u) => u.sku)).toEqual(["A", "B", "GHOST"]);
    expect(answer.outcomes.get("EURO")).toEqual({ state: "refused", message: "Walmart takes prices in USD or CAD, not EUR" });

    // The fake answers INPROGRESS to the first status call of each feed.
    expect(await submission.check(answer.reference, ["A", "B", "GHOST"])).toBeNull();
    const outcomes = await submission.check(answer.reference, ["A", "B", "GHOST"]);
    expect(outcomes!.get("A")).toEqual({ state: "accepted" });
    expect(outcomes!.get("B")).toEqual({ state: "accepted" });
    expect(outcomes!.get("GHOST")).toEqual({ state: "unknownSku", message: "inventory: DATA_ERROR ERR_EXT_DATA_0801 Item with sku GHOST not found" });
    const statusCall = feedCalls(fake).find((r) => r.method === "GET")!;
    expect(statusCall.path).toBe(`/v3/feeds/${encodeURIComponent(fake.feeds[0]!.feedId)}`);
    expect(statusCall.query).toEqual({ includeDetails: "true", offset: "0", limit: "1000" });
    expect([fake.item("A"), fake.item("B")]).toEqual([
      { quantity: 3, price: 9.5, currency: "USD" },
      { price: 4, currency: "CAD" },
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("the fake refuses a feed the description does not allow", async () => {
    const fake = createWalmartFake({});
    const connector = createWalmartConnector({
      sourceId: "s",
      settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
      fetch: fake.fetch,
      now: () => new Date(),
    });
    // A token issued by the fake, through the connector's own call.
    await connector.listings!.push([{ sku: "A", quantity: 1, price: null, currency: "USD" }]);
    const token = fake.tokens[0];
    const headers = { Accept: "application/json", "WM_SVC.NAME": "x", Authorization: `Basic ${btoa("a:b")}` };
    const form = new FormData();
    form.append("file", new Blob([JSON.stringify({ InventoryHeader: { version: "1.4" }, Inventory: [{ sku: "A", quantity: { unit: "BOX", amount: 1.5 } }] })]));
    const bad = await fake.fetch("https://marketplace.walmartapis.com/v3/feeds?feedType=inventory", {
      method: "POST",
      headers: { ...headers, "WM_QOS.CORRELATION_ID": crypto.randomUUID(), "WM_SEC.ACCESS_TOKEN": token ?? "none" },
      body: form,
    });
    expect(bad.status).toBe(400);
    const json = await fake.fetch("https://marketplace.walmartapis.com/v3/feeds?feedType=MP_ITEM", {
      method: "POST",
      headers: { ...headers, "WM_QOS.CORRELATION_ID": crypto.randomUUID(), "WM_SEC.ACCESS_TOKEN": "none", "Content-Type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(400);
    expect(fake.violations.join("\n")).toMatch(/Inventory\/0\/quantity/);
    expect(fake.violations.join("\n")).toMatch(/feedType MP_ITEM is not one of inventory, MP_INVENTORY/);
    expect(fake.violations.join("\n")).toMatch(/Content-Type must be multipart\/form-data, got application\/json/);
  });
});

describe("a Walmart source's cycles with many Skus due", () => {
  it("sends 250 Skus as two feeds, keeps them submitted while Walmart processes, then records each item's result", async () => {
    const { fake, storeId, token, sourceId, cycle } = await walmartStore(250, {}, ["SKU-0007"]);
    const first = await cycle(0);
    expect(first.error).toBeNull();
    expect(itemCalls(fake)).toEqual([]);
    expect(feedCalls(fake).map((r) => `${r.method} ${r.rawQuery} ${r.status}`)).toEqual(["POST ?feedType=inventory 200", "POST ?feedType=price 200"]);
    expect(fake.feeds.map((f) => f.items.length)).toEqual([250, 250]);
    let shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts).toEqual({ Pending: 0, Submitted: 250, Accepted: 0, UnknownSku: 0, Refused: 0 });
    const reference = `inventory:${fake.feeds[0]!.feedId} price:${fake.feeds[1]!.feedId}`;
    expect(shown.Listings[0]!.Submission).toBe(reference);
    // The console's source page says so too, filtered by the new state.
    const { cookie } = await signIn();
    const page = await send("GET", `/console/stores/${storeId}/sources/${sourceId}?status=submitted`, { cookie });
    expect(page.status).toBe(200);
    expect((await collect(page.text, "#listings-facts dd"))[1]).toBe("0 pending, 250 submitted, 0 accepted, 0 unknown Sku, 0 refused");
    const cells = await collect(page.text, "table#listings tbody td");
    expect(cells.slice(0, 2)).toEqual(["SKU-0000", `Submitted (${reference})`]);

    // Still processing: asked, nothing changes, nothing is sent again.
    await cycle(15 * 60_000);
    shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts.Submitted).toBe(250);
    expect(fake.feeds).toHaveLength(2);

    await cycle(15 * 60_000);
    shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 249, UnknownSku: 1, Refused: 0 });
    const ghost = shown.Listings.find((l) => l.Sku === "SKU-0007")!;
    expect(ghost.Status).toBe("unknownSku");
    expect(ghost.LastError).toContain("Item with sku SKU-0007 not found");
    expect(shown.Listings.find((l) => l.Sku === "SKU-0100")).toMatchObject({ Status: "accepted", AcceptedQuantity: 101, AcceptedPrice: 6, Submission: null });
    expect(fake.item("SKU-0249")).toEqual({ quantity: 250, price: 7.49, currency: "USD" });

    // A few changes go by the per-item calls; nothing accepted is sent again.
    await putInventory(token, [{ Sku: "SKU-0001", Quantity: 40 }]);
    await cycle(15 * 60_000);
    expect(itemCalls(fake).map((r) => r.rawBody)).toEqual([JSON.stringify({ sku: "SKU-0001", quantity: { unit: "EACH", amount: 40 } })]);
    expect(fake.feeds).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });

  it("a change made while its feed processes goes out after the feed's result, never before it", async () => {
    const { fake, storeId, token, sourceId, cycle } = await walmartStore(201);
    await cycle(0);
    await putInventory(token, [{ Sku: "SKU-0003", Quantity: 77 }]);
    await cycle(10 * 60_000);
    const during = (await listings(storeId, sourceId, "?sku=SKU-0003")).Listings[0]!;
    expect(during).toMatchObject({ Status: "submitted", PendingQuantity: 77, AcceptedQuantity: null });
    expect(itemCalls(fake)).toEqual([]);
    // The feed's result first (its quantity 4 and price 5.03 accepted), then in the same cycle the
    // new quantity alone by the per-item call: the feed's older value cannot land after it.
    await cycle(10 * 60_000);
    const after = (await listings(storeId, sourceId, "?sku=SKU-0003")).Listings[0]!;
    expect(after).toMatchObject({ Status: "accepted", PendingQuantity: 77, AcceptedQuantity: 77, AcceptedPrice: 5.03 });
    const order = fake
      .apiRequests()
      .filter((r) => r.path !== "/v3/orders")
      .map((r) => r.operationId);
    expect(order.slice(-3)).toEqual(["getFeedItemStatus", "getFeedItemStatus", "updateInventoryForAnItem"]);
    expect(itemCalls(fake).map((r) => r.rawBody)).toEqual([JSON.stringify({ sku: "SKU-0003", quantity: { unit: "EACH", amount: 77 } })]);
    expect((await listings(storeId, sourceId, "?limit=500")).Counts).toEqual({ Pending: 0, Submitted: 0, Accepted: 201, UnknownSku: 0, Refused: 0 });
    expect(fake.item("SKU-0003")!.quantity).toBe(77);
  });

  it("a throttled feed leaves the Skus pending and pauses; they go as a feed after the pause", async () => {
    const { fake, storeId, sourceId, cycle } = await walmartStore(300);
    fake.failNext({ target: "api", operation: "updateBulkInventory", status: 429, headers: { "Retry-After": "600" } });
    const first = await cycle(0);
    expect(first.error).toContain("429");
    let shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts.Pending).toBe(300);
    expect(shown.Listings[0]!.Attempts).toBe(1);
    await cycle(HOUR);
    shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts.Submitted).toBe(300);
    expect(fake.feeds).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });

  it("a feed stuck in processing stays submitted for a day, then its Skus are sent again", async () => {
    const { fake, storeId, sourceId, cycle } = await walmartStore(210, { stuck: true });
    await cycle(0);
    await cycle(12 * HOUR);
    expect((await listings(storeId, sourceId, "?limit=500")).Counts.Submitted).toBe(210);
    await cycle(12 * HOUR);
    const shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts).toEqual({ Pending: 210, Submitted: 0, Accepted: 0, UnknownSku: 0, Refused: 0 });
    expect(shown.Listings[0]!.LastError).toMatch(/^No outcome for submission inventory:\S+ price:\S+ within a day: sent again\.$/);
    fake.feedOptions.stuck = false;
    // Due again after the back-off (5 minutes): a new pair of feeds, then processed.
    await cycle(10 * 60_000);
    expect(fake.feeds).toHaveLength(4);
    await cycle(10 * 60_000);
    await cycle(10 * 60_000);
    expect((await listings(storeId, sourceId, "?limit=500")).Counts.Accepted).toBe(210);
    expect(fake.violations).toEqual([]);
  });

  it("a feed that ends in ERROR sends its Skus again; nonsense and 429 on the status call leave them submitted", async () => {
    const { fake, storeId, sourceId, cycle } = await walmartStore(220, { failFeeds: true, checksBeforeProcessed: 0 });
    await cycle(0);
    fake.failNext({ target: "api", operation: "getFeedItemStatus", status: 200, body: "<html>maintenance</html>" });
    const nonsense = await cycle(10 * 60_000);
    expect(nonsense.error).toMatch(/Walmart/);
    expect((await listings(storeId, sourceId, "?limit=500")).Counts.Submitted).toBe(220);
    fake.failNext({ target: "api", operation: "getFeedItemStatus", status: 200, body: { feedStatus: "SOMETHING" } });
    const odd = await cycle(10 * 60_000);
    expect(odd.error).toContain("answered nonsense: no known feedStatus");
    fake.failNext({ target: "api", operation: "getFeedItemStatus", status: 429, headers: { "Retry-After": "60" } });
    const throttled = await cycle(10 * 60_000);
    expect(throttled.error).toContain("429");
    expect((await listings(storeId, sourceId, "?limit=500")).Counts.Submitted).toBe(220);

    await cycle(HOUR);
    let shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts.Pending).toBe(220);
    expect(shown.Listings[0]).toMatchObject({
      Status: "pending",
      Attempts: 1,
      LastError: "inventory: Walmart feed inventory ended in ERROR; price: Walmart feed price ended in ERROR",
    });
    fake.feedOptions.failFeeds = false;
    await cycle(HOUR);
    expect(fake.feeds).toHaveLength(4);
    await cycle(HOUR);
    shown = await listings(storeId, sourceId, "?limit=500");
    expect(shown.Counts.Accepted).toBe(220);
    expect(fake.violations).toEqual([]);
  });
});
