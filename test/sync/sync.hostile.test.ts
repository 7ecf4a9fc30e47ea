// A marketplace having a bad day, through whole cycles (decisions 6, "Whatever a marketplace
// answers"), for the engine's rules: the fake Walmart of test/marketplaces/walmart answers as documented, with
// its own bad-day modes for page tokens that never end or come round again, and a thin hostile
// layer in front of it where a fault must hit one operation only (a Retry-After no date can hold
// on the acknowledgement; 429 on every order list while deliveries go through), which the fake's
// fault queue cannot aim at. Every admin read of the source must still answer below 500 afterwards.
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, call, storeWithToken } from "../helpers/api";
import { createSource, cycleAt, deliveries, HOUR, listOrders, MINUTE, type WireOrder } from "../helpers/sync";
import {
  createWalmartFake,
  WALMART_FAKE_CLIENT_ID,
  WALMART_FAKE_CLIENT_SECRET,
  walmartErrorBody,
  walmartPagesForEver,
} from "../marketplaces/walmart/walmart-fake";

afterEach(() => {
  vi.restoreAllMocks();
});

type Rule = (method: string, url: URL) => Response | null;

/** The fake Walmart behind a hostile layer: `rule` answers a call itself, or lets it through. */
function hostileWalmart() {
  const fake = createWalmartFake();
  let rule: Rule = () => null;
  const seen: { method: string; url: URL }[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const url = new URL(request.url);
    seen.push({ method: request.method, url });
    return rule(request.method, url) ?? fake.fetch(input as RequestInfo, init);
  });
  return {
    fake,
    seen,
    set(next: Rule) {
      rule = next;
    },
  };
}

const throttled = (retryAfter: string) =>
  new Response(JSON.stringify(walmartErrorBody(429)), { status: 429, headers: { "Content-Type": "application/json", "Retry-After": retryAfter } });
const isOrderList = (method: string, url: URL) => method === "GET" && url.pathname === "/v3/orders";
const isAcknowledge = (method: string, url: URL) => method === "POST" && url.pathname.endsWith("/acknowledge");

async function walmartStore() {
  const hostile = hostileWalmart();
  const { storeId, token } = await storeWithToken();
  const sourceId = await createSource(storeId, {
    Type: "walmart",
    Name: "Walmart US",
    Settings: { clientId: WALMART_FAKE_CLIENT_ID, clientSecret: WALMART_FAKE_CLIENT_SECRET },
  });
  expect((await cycleAt(sourceId, Date.now())).error).toBeNull();
  const open = (await listOrders(token)).filter((o) => o.SourceOrderStatus === "Created");
  expect(open.length).toBeGreaterThanOrEqual(2);
  return { ...hostile, storeId, token, sourceId, open };
}

const acknowledge = (token: string, order: WireOrder, number: string) =>
  call("PUT", `/v1/${token}/Orders/${order.OrderId}/AcknowledgeOrder?orderDestinationOrderNumber=${number}`);

/** Every admin read of the source answers below 500. */
async function adminReadsHold(storeId: string, sourceId: string) {
  for (const path of ["", "/deliveries", "/set-aside"]) {
    const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}${path}`);
    expect(res.status, path).toBe(200);
  }
  expect((await admin("GET", `/stores/${storeId}/sources`)).status).toBe(200);
}

describe("a Retry-After no date can hold", () => {
  it("counts as one hour: later cycles record their end, and the delivery list answers", async () => {
    const { storeId, token, sourceId, open, set } = await walmartStore();
    expect((await acknowledge(token, open[0]!, "PO-1")).status).toBe(200);
    set((method, url) => (isAcknowledge(method, url) ? throttled("9000000000000") : null));
    const t0 = Date.now();
    const first = await cycleAt(sourceId, t0);
    expect(first.error).toMatch(/429/);
    const [row] = await deliveries(storeId, sourceId);
    expect(row).toMatchObject({ Status: "pending", Attempts: 1 });
    expect(Date.parse(row!.DateNextAttempt!)).toBe(t0 + HOUR);
    await adminReadsHold(storeId, sourceId);

    // Within the hour the source waits, and the cycle still records its end.
    const waiting = await cycleAt(sourceId, t0 + 30 * MINUTE);
    expect(waiting.error).toMatch(/Retry-After/);
    const status = (await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { DateLastCycleEnded: string } };
    expect(Date.parse(status.Status.DateLastCycleEnded)).toBeGreaterThanOrEqual(t0 + 30 * MINUTE);

    // After it, the marketplace is asked again.
    set(() => null);
    const after = await cycleAt(sourceId, t0 + HOUR + MINUTE);
    expect(after).toMatchObject({ delivered: 1, error: null });
    await adminReadsHold(storeId, sourceId);
  });
});

describe("a marketplace answering 429 to every order list", () => {
  it("pauses the import only: pending shipments still go out that cycle and the next", async () => {
    const { storeId, token, sourceId, open, seen, set } = await walmartStore();
    expect((await acknowledge(token, open[0]!, "PO-1")).status).toBe(200);
    set((method, url) => (isOrderList(method, url) ? throttled("600") : null));
    const t0 = Date.now();
    const first = await cycleAt(sourceId, t0);
    expect(first.error).toMatch(/^import: Walmart 429/);
    expect(first.delivered).toBe(1);

    // Ten minutes later the order list is left alone, and a new acknowledgement still goes out.
    expect((await acknowledge(token, open[1]!, "PO-2")).status).toBe(200);
    const lists = seen.filter((s) => isOrderList(s.method, s.url)).length;
    const second = await cycleAt(sourceId, t0 + 5 * MINUTE);
    expect(second.delivered).toBe(1);
    expect(second.error).toMatch(/Retry-After/);
    expect(seen.filter((s) => isOrderList(s.method, s.url)).length).toBe(lists);
    expect((await deliveries(storeId, sourceId)).map((d) => d.Status)).toEqual(["delivered", "delivered"]);
    await adminReadsHold(storeId, sourceId);
  });
});

const sourceStatus = async (storeId: string, sourceId: string) =>
  ((await admin("GET", `/stores/${storeId}/sources/${sourceId}`)).json.Source as { Status: { LastError: string | null; Cursor: string | null } }).Status;

describe("next-page tokens that never end", () => {
  // The fake Walmart's own bad-day mode (house-kit): empty order lists for ever, each naming a
  // next page, a new one each time or the same one every time.
  const listCalls = (seen: { method: string; url: URL }[]) => seen.filter((s) => isOrderList(s.method, s.url));

  it("ends the window after 200 pages, keeps what was read, says why, and waits for the next cycle", async () => {
    const { fake, storeId, sourceId, seen } = await walmartStore();
    const cursorBefore = (await sourceStatus(storeId, sourceId)).Cursor;
    fake.failNext(walmartPagesForEver(false));
    const setup = listCalls(seen).length;
    const lists = () => listCalls(seen).length - setup;
    const t0 = Date.now();
    const first = await cycleAt(sourceId, t0);
    expect(lists()).toBe(200);
    expect(first.error).toBe("import: the window ended after 200 pages (the most one window reads); the next cycle goes on from there.");
    const status = await sourceStatus(storeId, sourceId);
    expect(status.LastError).toBe(first.error);
    expect(status.Cursor).toBe(cursorBefore);
    // Nothing runs on by itself: no alarm carries the import on back to back.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lists()).toBe(200);
    await adminReadsHold(storeId, sourceId);

    // The next cycle goes on from the last token (the 200th page named soIndex 20000), for another 200 pages at most.
    await cycleAt(sourceId, t0 + 15 * MINUTE);
    expect(lists()).toBe(400);
    expect(listCalls(seen)[setup + 200]!.url.searchParams.get("soIndex")).toBe("20000");
  });

  it("stops on a token already seen in the window, and starts the window over next cycle", async () => {
    const { fake, storeId, sourceId, seen } = await walmartStore();
    const cursorBefore = (await sourceStatus(storeId, sourceId)).Cursor;
    fake.failNext(walmartPagesForEver(true));
    const before = listCalls(seen).length;
    const soIndexes = () =>
      listCalls(seen)
        .slice(before)
        .map((s) => s.url.searchParams.get("soIndex"));
    const t0 = Date.now();
    const first = await cycleAt(sourceId, t0);
    // The first page names soIndex 100; so does the second: the window ends there.
    expect(soIndexes()).toEqual([null, "100"]);
    expect(first.error).toBe(
      "import: the marketplace sent a next-page token it had already sent in this window; the window ended there and starts over next cycle.",
    );
    expect((await sourceStatus(storeId, sourceId)).Cursor).toBe(cursorBefore);
    await cycleAt(sourceId, t0 + 15 * MINUTE);
    expect(soIndexes()).toEqual([null, "100", null, "100"]);
    await adminReadsHold(storeId, sourceId);
  });
});
