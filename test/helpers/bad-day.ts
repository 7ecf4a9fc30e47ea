// A marketplace having a bad day, played by its fake through whole cycles of the Cron Trigger
// (decisions 6, "Whatever a marketplace answers" and "never follow a redirect"): a redirect to a
// host that must receive nothing, a body over 16 MiB, a Retry-After no date can hold, 429 for
// ever, a record that makes the mapper throw. After each, every admin read of the source answers below 500 and
// the source imports again once the marketplace recovers. Each <x>.sync.test.ts runs it for its
// marketplace.
import { expect, it, vi } from "vitest";
import { admin, storeWithToken } from "./api";
import { createSource, fireCron, listOrders, MINUTE } from "./sync";
import { badDay, followingFetch, forbiddenHost, type AnswerFault, type FaultHelpers, type FaultPlace } from "../marketplaces/fake-kit/faults";

export interface FakeOnABadDay extends FaultHelpers {
  fetch: typeof fetch;
}

export interface MarketplaceUnderTest {
  type: string;
  /** Settings of a source on the fake. */
  settings: Record<string, unknown>;
  /** The hosts the fake answers for (its API, its token service). */
  hosts: string[];
  /** A fake with orders to import; `now` is the cycles' clock (it runs ahead in these tests). */
  fake(now: () => Date): FakeOnABadDay;
  /** Where the order list is answered; where tokens are (none for a marketplace without). */
  orderList: FaultPlace;
  token: FaultPlace | null;
  /**
   * Where a Retry-After pauses the source's import (its first call); null for a marketplace whose
   * import keeps its own pace instead (Amazon: its sync test holds a delivery's Retry-After).
   */
  pausedBy: FaultPlace | null;
  /** Spoils one record of the fake so that the connector's mapper throws on it; its order number. */
  spoilRecord?(fake: FakeOnABadDay): string;
}

const COLLECTOR = "https://collector.example/steal";

/** Every admin read of the source, by path: none may answer a 5xx after what the marketplace sent. */
export async function adminReadStatuses(storeId: string, sourceId: string): Promise<Record<string, number>> {
  const paths = ["", `/${sourceId}`, `/${sourceId}/deliveries`, `/${sourceId}/set-aside`, `/${sourceId}/received`];
  const statuses: Record<string, number> = {};
  for (const path of paths) statuses[`GET sources${path}`] = (await admin("GET", `/stores/${storeId}/sources${path}`)).status;
  return statuses;
}

async function sourceStatus(storeId: string, sourceId: string) {
  const res = await admin("GET", `/stores/${storeId}/sources/${sourceId}`);
  expect(res.status).toBe(200);
  return (res.json.Source as { Status: { LastError: string | null; DateLastCycleEnded: string | null; SetAside: number } }).Status;
}

/**
 * Disables every enabled source of every store, so that a cycle of the Cron Trigger runs only
 * the source a test creates next (the file's earlier tests leave theirs behind).
 */
export async function quietOtherSources(): Promise<void> {
  const stores = (await admin("GET", "/stores")).json.Stores as { StoreId: string }[];
  for (const { StoreId } of stores) {
    const sources = (await admin("GET", `/stores/${StoreId}/sources`)).json.Sources as { SourceId: string; Enabled: boolean }[] | undefined;
    for (const source of sources ?? []) {
      if (source.Enabled) expect((await admin("PATCH", `/stores/${StoreId}/sources/${source.SourceId}`, { Enabled: false })).status).toBe(200);
    }
  }
}

export function badDaySuite(m: MarketplaceUnderTest): void {
  async function start(fault?: AnswerFault) {
    await quietOtherSources();
    let ahead = 0;
    const fake = m.fake(() => new Date(Date.now() + ahead));
    if (fault) fake.failNext(fault);
    const elsewhere = forbiddenHost();
    vi.spyOn(globalThis, "fetch").mockImplementation(followingFetch(Object.fromEntries(m.hosts.map((h) => [h, fake.fetch])), elsewhere.fetch));
    const { storeId, token } = await storeWithToken();
    const sourceId = await createSource(storeId, { Type: m.type, Name: `${m.type} on a bad day`, Settings: m.settings });
    const cycle = async (minutesLater: number) => {
      ahead = minutesLater * MINUTE;
      await fireCron(Date.now() + ahead);
    };
    const done = async () => {
      expect(Object.entries(await adminReadStatuses(storeId, sourceId)).filter(([, status]) => status >= 500)).toEqual([]);
    };
    return { fake, elsewhere, storeId, token, sourceId, cycle, done };
  }

  const places = [...(m.token ? [["token request", m.token] as const] : []), ["order list", m.orderList] as const];
  for (const [what, place] of places) {
    it(`follows no redirect of the ${what}: the host it names receives nothing, and the source says why`, async () => {
      const s = await start({ ...badDay.redirect(COLLECTOR), ...place });
      await s.cycle(0);
      expect(s.elsewhere.received).toEqual([]);
      const status = await sourceStatus(s.storeId, s.sourceId);
      expect(status.LastError).toContain('answered 307 redirecting to "https://collector.example/steal"');
      // The marketplace is itself again: the next cycle imports.
      await s.cycle(16);
      expect((await listOrders(s.token)).length).toBeGreaterThan(0);
      expect(s.elsewhere.received).toEqual([]);
      await s.done();
    });
  }

  it("reads no order list over 16 MiB: the window ends with the reason, and the next cycle imports", async () => {
    const s = await start({ ...badDay.hugeBody(), ...m.orderList });
    await s.cycle(0);
    expect((await sourceStatus(s.storeId, s.sourceId)).LastError).toContain("the answer is larger than 16 MiB, more than the hub reads");
    expect(await listOrders(s.token)).toEqual([]);
    await s.cycle(16);
    expect((await listOrders(s.token)).length).toBeGreaterThan(0);
    await s.done();
  });

  const pausedBy = m.pausedBy;
  if (pausedBy)
    it("takes a Retry-After of 9,000,000,000,000 s as one hour: later cycles end and record it, and the source imports after the hour", async () => {
      const s = await start({ ...badDay.hugeRetryAfter(), ...pausedBy });
      const first = Date.now();
      await s.cycle(0);
      await s.cycle(16);
      const paused = await sourceStatus(s.storeId, s.sourceId);
      expect(Date.parse(paused.DateLastCycleEnded!)).toBeGreaterThanOrEqual(first + 16 * MINUTE);
      const until = /asked to wait until (\S+) \(Retry-After\)/.exec(paused.LastError ?? "")?.[1];
      expect(Date.parse(until!)).toBeLessThanOrEqual(Date.now() + 61 * MINUTE);
      await s.cycle(62);
      expect((await listOrders(s.token)).length).toBeGreaterThan(0);
      await s.done();
    });

  it("keeps its footing while the order list answers 429 to every call: each cycle ends and says why", async () => {
    const s = await start({ ...badDay.throttledForever(), ...m.orderList });
    await s.cycle(0);
    await s.cycle(61);
    const status = await sourceStatus(s.storeId, s.sourceId);
    expect(Date.parse(status.DateLastCycleEnded!)).toBeGreaterThanOrEqual(Date.now() + 60 * MINUTE);
    expect(status.LastError).toMatch(/429|asked to wait/);
    expect(await listOrders(s.token)).toEqual([]);
    await s.done();
  });

  if (m.spoilRecord) {
    const spoil = m.spoilRecord;
    it("sets aside a record that makes the mapper throw, and imports the rest of its page", async () => {
      const s = await start();
      const spoiled = spoil(s.fake);
      await s.cycle(0);
      const imported = (await listOrders(s.token)).map((o) => o.OrderSourceOrderNumber);
      expect(imported.length).toBeGreaterThan(0);
      expect(imported).not.toContain(spoiled);
      const aside = await admin("GET", `/stores/${s.storeId}/sources/${s.sourceId}/set-aside`);
      const rows = aside.json.SetAside as { OrderSourceOrderNumber: string; Reason: string }[];
      expect(rows.map((r) => r.OrderSourceOrderNumber)).toEqual([spoiled]);
      expect(rows[0]!.Reason).toContain("does not have the shape the marketplace publishes (TypeError: ");
      expect((await sourceStatus(s.storeId, s.sourceId)).SetAside).toBe(1);
      await s.done();
    });
  }
}
