// Whole requests against the Worker, as a client would send them.
import { exports } from "cloudflare:workers";
import { checkContract } from "./contract";

export const BASE = "https://hub.test";
export const ADMIN_KEY = "test-admin-key-0123456789abcdef-0123";

export interface Envelope {
  Success: boolean;
  Message: string;
  [field: string]: unknown;
}

export async function call(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; raw?: BodyInit } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  let body: BodyInit | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const request = new Request(path.startsWith("http") ? path : BASE + path, { method, headers, body });
  const response = await exports.default.fetch(request);
  const text = await response.text();
  await checkContract(
    { method, url: request.url, authorization: request.headers.get("authorization") },
    { status: response.status, headers: response.headers, text },
  );
  let json: Envelope | undefined;
  try {
    json = JSON.parse(text) as Envelope;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json: json as Envelope, text };
}

export function admin(method: string, path: string, body?: unknown) {
  return call(method, `/admin/v1${path}`, { body, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
}

let counter = 0;
/** Distinct client addresses keep per-IP buckets of different tests apart. */
export function nextIp(): string {
  counter += 1;
  return `198.51.${(counter >> 8) & 255}.${counter & 255}`;
}

export const ALL_SCOPES = ["FeedsRead", "InventoryUpdate", "OrdersCreate", "OrdersRead", "OrdersUpdate"];

export async function createStore(name = "Test store", maskBuyerPii = false): Promise<string> {
  const res = await admin("POST", "/stores", { Name: name, MaskBuyerPii: maskBuyerPii });
  if (res.status !== 200) throw new Error(`createStore: ${res.status} ${res.text}`);
  return (res.json.Store as { StoreId: string }).StoreId;
}

export async function createKey(storeId: string, options: { scopes?: string[]; lifespan?: string; bucketSize?: number; leakRatePerSecond?: number } = {}) {
  const res = await admin("POST", `/stores/${storeId}/consumer-keys`, {
    Name: "test key",
    Scopes: options.scopes ?? ALL_SCOPES,
    Lifespan: options.lifespan ?? "NeverExpires",
    BucketSize: options.bucketSize ?? 10_000,
    LeakRatePerSecond: options.leakRatePerSecond ?? 1_000,
  });
  if (res.status !== 200) throw new Error(`createKey: ${res.status} ${res.text}`);
  return res.json.ConsumerKey as { ConsumerKeyId: string; Key: string };
}

export async function tokenFor(key: string): Promise<string> {
  const res = await call("PUT", "/v1/Authorization", { body: { ConsumerKey: key }, headers: { "cf-connecting-ip": nextIp() } });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.json.Token as string;
}

/** A store with a key of the given scopes (generous bucket unless given), and a token. */
export async function storeWithToken(options: Parameters<typeof createKey>[1] & { maskBuyerPii?: boolean } = {}) {
  const storeId = await createStore(`Store ${Math.random().toString(36).slice(2, 8)}`, options.maskBuyerPii ?? false);
  const key = await createKey(storeId, options);
  const token = await tokenFor(key.Key);
  return { storeId, key, token };
}

export function sampleOrder(overrides: Record<string, unknown> = {}) {
  return {
    BuyerEmailAddress: "jane.doe@example.com",
    BuyerPhoneNumber: "555-201-1234",
    OrderSource: "Web",
    OrderSourceOrderNumber: `WEB-${Math.random().toString(36).slice(2, 10)}`,
    DateCreatedInOrderSource: "2026-03-01T10:15:00Z",
    ShipToCompanyName: null,
    FirstName: "Jane",
    LastName: "Doe",
    Street1: "1 Main St",
    City: "Springfield",
    StateOrProvince: "IL",
    Country: "US",
    PostalCode: "62701",
    ShippingMethod: "Standard",
    GrandTotal: 27.5,
    SubTotal: 25,
    ShippingTotal: 2.5,
    OrderItems: [{ Sku: "SKU-1", Name: "Blue mug", Quantity: 2, UnitPrice: 12.5 }],
    ...overrides,
  };
}

export async function insert(token: string, overrides: Record<string, unknown> = {}) {
  const res = await call("PUT", `/v1/${token}/Orders/InsertOrder`, { body: sampleOrder(overrides) });
  if (res.status !== 200) throw new Error(`insert: ${res.status} ${res.text}`);
  return res.json.OrderId as string;
}
