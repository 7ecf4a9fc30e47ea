// What the TikTok Shop connector tests share: a connector on the fake with an explicit clock, the
// Settings of a source on the fake, orders numbered like TikTok's, and deliveries (ship, cancel of
// the whole order or of some lines, return decisions, receipts and refunds) built from imported
// orders as the sync engine builds them (fake-kit/connector-calls.ts's importAll and
// deliveryOrder).
import type { CancelDelivery, Connector, ImportedOrder, ImportWindow, ReturnDelivery, SecretSealer, ShipDelivery } from "../../../src/marketplaces/connector";
import { createTiktokConnector } from "../../../src/marketplaces/tiktok/tiktok.connector";
import { memoryStorage, type SourceStorage } from "../../../src/marketplaces/storage";
import { decryptJson, encryptJson } from "../../../src/lib/crypto";
import {
  createTiktokFake,
  TIKTOK_FAKE_APP_KEY,
  TIKTOK_FAKE_APP_SECRET,
  TIKTOK_FAKE_REFRESH_TOKEN,
  TIKTOK_FAKE_SHOP_CIPHER,
  type TiktokFakeOptions,
} from "./tiktok-fake";
import { deliveryOrder, importAll as importPages } from "../fake-kit/connector-calls";
import { sampleOrder, type SampleOrder } from "./tiktok-orders";

export const START = Date.parse("2026-03-01T12:00:00.000Z");
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const WINDOW: ImportWindow = { since: new Date("2026-02-28T00:00:00.000Z"), until: new Date(START) };
const KEY = btoa("tiktok-connector-test-key-32byte");
export const SEALER: SecretSealer = { seal: (v) => encryptJson(KEY, v), open: (s) => decryptJson<string>(KEY, s) };
export const USPS = "6617675021119438849";
export const UPS = "6617674942426447874";

export const SETTINGS = {
  appKey: TIKTOK_FAKE_APP_KEY,
  appSecret: TIKTOK_FAKE_APP_SECRET,
  refreshToken: TIKTOK_FAKE_REFRESH_TOKEN,
  shopCipher: TIKTOK_FAKE_SHOP_CIPHER,
  shippingProviders: { USPS, UPS },
};

/** TikTok-like ids: order n, its line item k, its package. */
export const orderId = (n: number) => `5764614130387${String(n).padStart(5, "0")}`;
export const lineId = (n: number, k: number) => `5764614130${String(n).padStart(5, "0")}${String(k).padStart(3, "0")}`;
export const packageIdOf = (n: number) => `11${orderId(n).slice(2)}`;

/** Order n: created 1 h into Feb 28 plus n minutes, changed 5 minutes after; `lines` units of $10 (SKU-n-k). */
export function orderAt(n: number, extra: Partial<SampleOrder> = {}, lines = 1) {
  const created = new Date(Date.parse("2026-02-28T01:00:00.000Z") + n * MINUTE);
  return sampleOrder({
    id: orderId(n),
    created,
    updated: new Date(created.getTime() + 5 * MINUTE),
    lines: Array.from({ length: lines }, (_, k) => ({ id: lineId(n, k + 1), sku: `SKU-${n}-${k + 1}`, price: 1000, tax: 73 })),
    shipping: 499,
    ...extra,
  });
}

export function setup(
  options: { orders?: ReturnType<typeof sampleOrder>[]; settings?: Record<string, unknown>; storage?: SourceStorage; fake?: Partial<TiktokFakeOptions> } = {},
) {
  const clock = { ms: START };
  const now = () => new Date(clock.ms);
  const fake = createTiktokFake({ now, orders: options.orders ?? [orderAt(1)], ...options.fake });
  const storage = options.storage ?? memoryStorage();
  /** A connector as one cycle builds it (the same storage across cycles), on its own clock when given. */
  const make = (settings: Record<string, unknown> = options.settings ?? {}, own?: { now?: () => Date; secrets?: SecretSealer | null }) =>
    createTiktokConnector(
      {
        sourceId: "source-1",
        settings: { ...SETTINGS, ...settings },
        fetch: fake.fetch,
        now: own?.now ?? now,
        secrets: own?.secrets === null ? undefined : (own?.secrets ?? SEALER),
      },
      storage,
    );
  return {
    fake,
    storage,
    clock,
    connector: make(),
    make,
    advance(ms: number) {
      clock.ms += ms;
    },
  };
}

/** Every page of the window (the default: Feb 28 to START). */
export const importAll = (connector: Connector, window = WINDOW) => importPages(connector, window);

let nextId = 1;
export function shipDelivery(order: ImportedOrder, shipment: { trackingNumber?: string | null; carrier?: string | null; lines?: string[] } = {}): ShipDelivery {
  const id = nextId++;
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    kind: "ship",
    order: deliveryOrder(order),
    earlier: [],
    shipment: {
      trackingNumber: shipment.trackingNumber === undefined ? "9400111899223197428490" : shipment.trackingNumber,
      carrier: shipment.carrier === undefined ? "USPS" : shipment.carrier,
      shippingMethod: null,
      shippedAt: new Date("2026-03-01T10:30:00.000Z"),
      lines: order.items
        .filter((i) => !shipment.lines || shipment.lines.includes(i.sourceLineId))
        .map((i) => ({ sourceLineId: i.sourceLineId, quantity: i.quantity })),
    },
  };
}

export function cancelDelivery(order: ImportedOrder, lines?: string[]): CancelDelivery {
  const id = nextId++;
  return {
    id,
    idempotencyKey: `source-1-${id}`,
    kind: "cancel",
    order: deliveryOrder(order),
    earlier: [],
    reason: "out of stock",
    ...(lines && { lines: lines.map((sourceLineId) => ({ sourceLineId, quantity: 1 })) }),
  };
}

/** The member of ReturnDelivery that takes kind K (approve and reject share one), narrowed to K. */
type Kinded<K extends ReturnDelivery["kind"]> = ReturnDelivery extends infer R
  ? R extends { kind: infer RK }
    ? K extends RK
      ? R & { kind: K }
      : never
    : never
  : never;
type Own<K extends ReturnDelivery["kind"]> = Omit<Kinded<K>, "id" | "idempotencyKey" | "order" | "earlier" | "kind">;

/** A return or refund delivery of an imported order, as the engine builds it. */
export function returnDelivery<K extends ReturnDelivery["kind"]>(kind: K, order: ImportedOrder, own: Own<K>): Kinded<K> {
  const id = nextId++;
  return { id, idempotencyKey: `source-1-${id}`, kind, order: deliveryOrder(order), earlier: [], ...own } as unknown as Kinded<K>;
}

export async function importedOrders(connector: Connector): Promise<Map<string, ImportedOrder>> {
  return new Map((await importAll(connector)).flatMap((p) => p.orders).map((o) => [o.sourceOrderNumber, o]));
}
