// Mirakl stock and price against the fake Mirakl (mirakl-offers-fake.ts): quantities by the
// STO01 stock import, prices by OF24 with each offer read by OF21 first and sent back whole (the
// fake resets what OF24 is not sent, as the description warns: the test that nothing is reset
// can fail), each import's outcome read 5 minutes on (STO02/OF02, then STO03/OF03 for the lines
// in error), the pace, and the bad days; then the whole round through cycles and the listings
// admin answer.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ListingsSubmission, ListingUpdate } from "../../../src/marketplaces/connector";
import { createMiraklConnector } from "../../../src/marketplaces/mirakl/mirakl.connector";
import { memoryStorage } from "../../../src/marketplaces/storage";
import { storeWithToken } from "../../helpers/api";
import { createSource, cycleAt } from "../../helpers/sync";
import { listings, putStock } from "../../stock/helpers";
import { createMiraklFake, MIRAKL_FAKE_KEY, MIRAKL_FAKE_URL, type MiraklFakeOptions } from "./mirakl-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

const START = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;

function setup(fakeOptions: MiraklFakeOptions = {}) {
  let nowMs = START;
  const now = () => new Date(nowMs);
  const fake = createMiraklFake({ now, ...fakeOptions });
  const connector = createMiraklConnector(
    { sourceId: "s", settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY }, fetch: fake.fetch, now },
    memoryStorage(),
  );
  const submission = connector.listings!.submission as ListingsSubmission;
  return { fake, submission, advance: (ms: number) => void (nowMs += ms) };
}

const u = (sku: string, quantity: number | null, price: number | null, currency = "USD"): ListingUpdate => ({ sku, quantity, price, currency });

describe("Mirakl stock by STO01", () => {
  it("sends quantities as the description's CSV in one multipart file, and reads each Sku's outcome 5 minutes on", async () => {
    const { fake, submission, advance } = setup();
    fake.offers.seed("A");
    fake.offers.seed('B "quoted";sku');
    expect([submission.threshold, submission.size]).toEqual([0, 10_000]);
    const answer = await submission.submit([u("A", 3, null), u('B "quoted";sku', 0, null), u("GHOST", 5, null)]);
    const [call] = fake.calls("STO01");
    expect([call!.method, call!.path]).toEqual(["POST", "/api/offers/stock/imports"]);
    expect(call!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(call!.rawBody).toContain(
      '"offer-sku";"quantity";"warehouse-code";"update-delete"\n"A";"3";"";"update"\n"B ""quoted"";sku";"0";"";"update"\n"GHOST";"5";"";"update"\n',
    );
    const id = fake.offers.imports[0]!.id;
    expect(answer).toEqual({ reference: `stock:${id}`, sent: [u("A", 3, null), u('B "quoted";sku', 0, null), u("GHOST", 5, null)], outcomes: new Map() });

    const skus = ["A", 'B "quoted";sku', "GHOST"];
    // Within 5 minutes of the import: not asked.
    advance(4 * MINUTE);
    expect(await submission.check(answer.reference, skus)).toBeNull();
    expect(fake.calls("STO02")).toHaveLength(0);
    advance(MINUTE);
    expect(await submission.check(answer.reference, skus)).toBeNull();
    expect(fake.calls("STO02").map((r) => r.path)).toEqual([`/api/offers/stock/imports/${id}/status`]);
    advance(5 * MINUTE);
    const outcomes = await submission.check(answer.reference, skus);
    expect(Object.fromEntries(outcomes!)).toEqual({
      A: { state: "accepted" },
      'B "quoted";sku': { state: "accepted" },
      GHOST: { state: "unknownSku", message: `Mirakl stock import ${id}: The offer with SKU GHOST does not exist` },
    });
    expect(fake.calls("STO03").map((r) => r.path)).toEqual([`/api/offers/stock/imports/${id}/error_report`]);
    expect([fake.offers.offer("A")!.quantity, fake.offers.offer('B "quoted";sku')!.quantity]).toEqual([3, 0]);
    expect(fake.violations).toEqual([]);
  });

  it("imports at most every 5 minutes: a cycle sooner sends nothing and leaves the Skus pending", async () => {
    const { fake, submission, advance } = setup();
    fake.offers.seed("A");
    await submission.submit([u("A", 1, null)]);
    advance(2 * MINUTE);
    expect(await submission.submit([u("A", 2, null)])).toEqual({ reference: "", sent: [], outcomes: new Map() });
    advance(3 * MINUTE);
    expect((await submission.submit([u("A", 2, null)])).sent).toEqual([u("A", 2, null)]);
    expect(fake.calls("STO01")).toHaveLength(2);
    expect(fake.violations).toEqual([]);
  });
});

describe("Mirakl price by OF24", () => {
  it("reads the offer, sends it back whole with the new price and quantity: nothing else is reset", async () => {
    const { fake, submission, advance } = setup();
    const before = fake.offers.seed("P1");
    const answer = await submission.submit([u("P1", 9, 24.5)]);
    expect(fake.calls("OF21").map((r) => r.query)).toEqual([{ sku: "P1", max: "10", offset: "0" }]);
    const [write] = fake.calls("OF24");
    expect([write!.method, write!.path, write!.headers["content-type"]]).toEqual(["POST", "/api/offers", "application/json"]);
    expect(answer.reference).toBe(`offers:${fake.offers.imports[0]!.id}`);
    expect(answer.sent).toEqual([u("P1", 9, 24.5)]);
    advance(5 * MINUTE);
    expect(await submission.check(answer.reference, ["P1"])).toBeNull();
    advance(5 * MINUTE);
    expect(Object.fromEntries((await submission.check(answer.reference, ["P1"]))!)).toEqual({ P1: { state: "accepted" } });
    const after = fake.offers.offer("P1")!;
    // What was asked changed: the price (with the default price entry and its quantity-one volume price) and the quantity.
    expect([after.price, after.quantity]).toEqual([24.5, 9]);
    expect(after.all_prices![0]).toMatchObject({
      channel_code: null,
      unit_origin_price: 24.5,
      unit_discount_price: 18,
      volume_prices: [
        { quantity_threshold: 1, unit_origin_price: 24.5, unit_discount_price: 18 },
        { quantity_threshold: 10, unit_origin_price: 17 },
      ],
    });
    expect(after.discount).toMatchObject({ discount_price: 18, start_date: before.discount!.start_date, end_date: before.discount!.end_date });
    // Everything else is as it was.
    const kept = (o: typeof before) => ({ ...o, price: 0, quantity: 0, all_prices: o.all_prices!.slice(1), discount: { ...o.discount, origin_price: 0 } });
    expect(kept(after)).toEqual(kept(before));
    expect(fake.violations).toEqual([]);
  });

  it("the fake resets what OF24 is not sent, as the description warns (so the test above can fail)", async () => {
    const { fake } = setup();
    fake.offers.seed("P2");
    const bare = { shop_sku: "P2", product_id: "MKP-P2", product_id_type: "SKU", price: 30, state_code: "11", update_delete: "update" };
    const sent = await fake.fetch(`${MIRAKL_FAKE_URL}/api/offers`, {
      method: "POST",
      headers: { Authorization: MIRAKL_FAKE_KEY, "Content-Type": "application/json" },
      body: JSON.stringify({ offers: [bare] }),
    });
    expect(sent.status).toBe(201);
    const { import_id } = (await sent.json()) as { import_id: number };
    for (let i = 0; i < 2; i++) await fake.fetch(`${MIRAKL_FAKE_URL}/api/offers/imports/${import_id}`, { headers: { Authorization: MIRAKL_FAKE_KEY } });
    expect(fake.offers.offer("P2")).toMatchObject({
      price: 30,
      quantity: 0,
      description: null,
      discount: null,
      leadtime_to_ship: null,
      allow_quote_requests: false,
      offer_additional_fields: [],
      logistic_class: null,
    });
  });

  it("a Sku Mirakl has no offer for is unknown; a price in another currency is refused while its quantity still goes", async () => {
    const { fake, submission } = setup();
    fake.offers.seed("EUR-1", { currency_iso_code: "EUR" });
    fake.offers.seed("EUR-2", { currency_iso_code: "EUR" });
    const answer = await submission.submit([u("NONE", 1, 5), u("EUR-1", null, 5), u("EUR-2", 4, 5)]);
    expect(Object.fromEntries(answer.outcomes)).toEqual({
      NONE: { state: "unknownSku", message: "Mirakl has no offer with shop SKU NONE" },
      "EUR-1": { state: "refused", message: "Mirakl cannot take the price: the shop sells in EUR and the product's price is in USD" },
    });
    expect(answer.sent).toEqual([u("EUR-2", 4, null)]);
    expect(fake.calls("OF24")).toHaveLength(0);
    expect(fake.calls("STO01")).toHaveLength(1);
  });

  it("reads at most 100 offers a cycle: the other prices wait, their quantities go by STO01", async () => {
    const { fake, submission } = setup();
    const updates = Array.from({ length: 102 }, (_, i) => {
      fake.offers.seed(`S${i}`);
      return u(`S${i}`, i, 10 + i);
    });
    const answer = await submission.submit(updates);
    expect(fake.calls("OF21")).toHaveLength(100);
    expect((fake.calls("OF24")[0]!.body as { offers: unknown[] }).offers).toHaveLength(100);
    expect(answer.sent.slice(0, 2)).toEqual([u("S100", 100, null), u("S101", 101, null)]);
    expect(answer.sent).toHaveLength(102);
    expect(answer.reference).toMatch(/^stock:\S+ offers:\d+$/);
    expect(fake.violations).toEqual([]);
  });
});

describe("Mirakl imports on a bad day", () => {
  it("a FAILED import, an unreadable error report and nonsense status are tried again", async () => {
    const { fake, submission, advance } = setup({ offers: { failing: ["stock"] } });
    fake.offers.seed("A");
    const failed = await submission.submit([u("A", 1, null)]);
    advance(5 * MINUTE);
    await submission.check(failed.reference, ["A"]);
    advance(5 * MINUTE);
    const id = fake.offers.imports[0]!.id;
    expect(Object.fromEntries((await submission.check(failed.reference, ["A"]))!)).toEqual({
      A: { state: "retry", message: `Mirakl stock import ${id} FAILED` },
    });

    fake.offers.options.failing = [];
    fake.offers.options.garbledReports = true;
    const garbled = await submission.submit([u("GHOST", 1, null)]);
    advance(5 * MINUTE);
    await submission.check(garbled.reference, ["GHOST"]);
    advance(5 * MINUTE);
    const second = fake.offers.imports[1]!.id;
    expect(Object.fromEntries((await submission.check(garbled.reference, ["GHOST"]))!)).toEqual({
      GHOST: { state: "retry", message: `Mirakl's error report of stock import ${second} names no offer SKU or error column` },
    });

    advance(5 * MINUTE);
    const third = await submission.submit([u("A", 2, null)]);
    advance(5 * MINUTE);
    fake.failNext({ status: 200, body: { import_id: "x" }, operation: "STO02" });
    await expect(submission.check(third.reference, ["A"])).rejects.toMatchObject({
      retryable: true,
      message: `Mirakl STO02 answered nonsense for import ${fake.offers.imports[2]!.id}: no status`,
    });
  });

  it("a throttled import is thrown with its Retry-After; nothing was taken", async () => {
    const { fake, submission } = setup();
    fake.offers.seed("A");
    fake.failNext({ status: 429, headers: { "Retry-After": "300" }, operation: "STO01" });
    await expect(submission.submit([u("A", 1, null)])).rejects.toMatchObject({ status: 429, retryable: true, retryAfterMs: 300_000 });
  });
});

describe("a Mirakl source's stock and price through cycles", () => {
  it("submits what changed, reads the outcome in a later cycle, and shows it in the listings answer", async () => {
    let at = Date.now();
    const fake = createMiraklFake({ now: () => new Date(at) });
    vi.spyOn(globalThis, "fetch").mockImplementation(fake.fetch);
    fake.offers.seed("M-1");
    fake.offers.seed("M-2");
    const { storeId } = await storeWithToken();
    await putStock(storeId, [
      { Sku: "M-1", Quantity: 4, Price: 20 },
      { Sku: "M-2", Quantity: 6, Price: 31.5 },
      { Sku: "M-3", Quantity: 1, Price: 9 },
    ]);
    const sourceId = await createSource(storeId, { Type: "mirakl", Name: "Mirakl shop", Settings: { baseUrl: MIRAKL_FAKE_URL, apiKey: MIRAKL_FAKE_KEY } });
    const first = await cycleAt(sourceId, at);
    expect(first.error).toBeNull();
    const shown = async () => (await listings(storeId, sourceId)).Listings.map((l) => [l.Sku, l.Status, l.AcceptedQuantity, l.AcceptedPrice, l.LastError]);
    expect((await shown()).map((l) => l.slice(0, 2))).toEqual([
      ["M-1", "submitted"],
      ["M-2", "submitted"],
      ["M-3", "unknownSku"],
    ]);
    at += 15 * MINUTE;
    await cycleAt(sourceId, at);
    at += 15 * MINUTE;
    await cycleAt(sourceId, at);
    expect(await shown()).toEqual([
      ["M-1", "accepted", 4, 20, null],
      ["M-2", "accepted", 6, 31.5, null],
      ["M-3", "unknownSku", null, null, "Mirakl has no offer with shop SKU M-3"],
    ]);
    expect(fake.offers.offer("M-2")).toMatchObject({ quantity: 6, price: 31.5, description: "Offer for M-2", leadtime_to_ship: 3 });
    expect(fake.violations).toEqual([]);
  });
});

describe("Mirakl offer reads on a bad day", () => {
  it("an OF21 read Mirakl fails stops the push with its error when nothing went out; with quantities out, the price waits", async () => {
    const { fake, submission, advance } = setup();
    fake.offers.seed("A");
    fake.offers.seed("B");
    fake.failNext({ status: 503, operation: "OF21" });
    await expect(submission.submit([u("A", null, 5)])).rejects.toMatchObject({ status: 503, retryable: true, message: "Mirakl OF21 503 fault 503" });
    advance(5 * MINUTE);
    fake.failNext({ status: 503, operation: "OF21" });
    const answer = await submission.submit([u("A", 3, 5), u("B", 4, null)]);
    expect(answer.sent).toEqual([u("A", 3, null), u("B", 4, null)]);
    expect(answer.reference).toMatch(/^stock:/);
    expect(fake.calls("OF24")).toHaveLength(0);
  });
});
